//! "Predict first" for the training page's knock-outs: before the result of knocking heads out
//! shows, the learner says what one loss will do, and the answer is graded from the computed
//! losses.
//!
//! The loss asked about is the repeated part's for the repeat task (what copying saves) and the
//! held-out loss for the tiny grammar ([`watched_loss`]). A change counts as **staying** when the
//! knocked-out loss is within [`STAY_WITHIN`] (10 %) of the intact loss, either way; beyond that
//! it **rose** or **fell**.

use super::evaluation::EvalPoint;

/// Within this share of the intact loss, either way, the loss "stays".
pub const STAY_WITHIN: f64 = 0.10;

/// What a loss does when heads are knocked out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossChange {
    Rise,
    Fall,
    Stay,
}

impl LossChange {
    /// In the order the page offers them.
    pub const ALL: [Self; 3] = [Self::Rise, Self::Fall, Self::Stay];

    /// What `intact` became as `knocked` (both positive losses): within 10 % of `intact` either
    /// way it stays, else it rose or fell.
    pub fn of(intact: f64, knocked: f64) -> Self {
        if knocked > intact * (1.0 + STAY_WITHIN) {
            Self::Rise
        } else if knocked < intact * (1.0 - STAY_WITHIN) {
            Self::Fall
        } else {
            Self::Stay
        }
    }

    /// Its key in the page's radio buttons and the JSON download.
    pub fn key(self) -> &'static str {
        match self {
            Self::Rise => "rise",
            Self::Fall => "fall",
            Self::Stay => "stay",
        }
    }
}

/// The loss a prediction is about: the repeated part's (repeat task), else the held-out loss.
pub fn watched_loss(e: &EvalPoint) -> f64 {
    e.repeated_loss.unwrap_or(e.loss)
}

/// A prediction graded against the computed losses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Graded {
    pub predicted: LossChange,
    pub actual: LossChange,
    pub intact: f64,
    pub knocked: f64,
}

impl Graded {
    /// Grades `predicted` for the watched loss of `intact` and `knocked` evaluations.
    pub fn new(predicted: LossChange, intact: &EvalPoint, knocked: &EvalPoint) -> Self {
        let (a, b) = (watched_loss(intact), watched_loss(knocked));
        Self {
            predicted,
            actual: LossChange::of(a, b),
            intact: a,
            knocked: b,
        }
    }

    pub fn correct(&self) -> bool {
        self.predicted == self.actual
    }

    /// The change as a share of the intact loss (0.25 for a quarter more).
    pub fn relative(&self) -> f64 {
        self.knocked / self.intact - 1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_percent_either_way_stays() {
        assert_eq!(LossChange::of(1.0, 1.1), LossChange::Stay);
        assert_eq!(LossChange::of(1.0, 1.100_001), LossChange::Rise);
        assert_eq!(LossChange::of(1.0, 0.9), LossChange::Stay);
        assert_eq!(LossChange::of(1.0, 0.899_999), LossChange::Fall);
        assert_eq!(LossChange::of(2.0, 2.0), LossChange::Stay);
        assert_eq!(LossChange::of(0.5, 3.0), LossChange::Rise);
    }

    #[test]
    fn predictions_are_graded_on_the_watched_loss() {
        let e = |loss: f64, repeated: Option<f64>| EvalPoint {
            step: 0,
            loss,
            first_copy_loss: repeated.map(|_| 3.5),
            repeated_loss: repeated,
            heads: Vec::new(),
            used: None,
        };
        let g = Graded::new(LossChange::Rise, &e(2.0, Some(0.5)), &e(2.1, Some(3.0)));
        assert!(g.correct());
        assert_eq!((g.intact, g.knocked), (0.5, 3.0));
        assert!((g.relative() - 5.0).abs() < 1e-12);
        let g = Graded::new(LossChange::Stay, &e(2.0, None), &e(3.0, None));
        assert_eq!(g.actual, LossChange::Rise);
        assert!(!g.correct());
        assert_eq!(
            LossChange::ALL.map(LossChange::key),
            ["rise", "fall", "stay"]
        );
    }
}
