//! A timeline of checkpoints in bounded memory: the training page's "Replay" slider moves over it
//! to show how a pattern formed.
//!
//! A run may train for thousands of steps, and one checkpoint of the reference model holds
//! 10,240 weights (8 bytes each in f64), so the timeline keeps at most `capacity` of them, spread evenly
//! over the run so far. The rule ("thinning"): a checkpoint is kept at every multiple of
//! `interval` steps, starting at step 0 (with an even capacity). When the timeline is full and another is due, every
//! second checkpoint is dropped (the 2nd, 4th, …; step 0 stays) and the interval doubles; the
//! ones left are exactly the multiples of the new interval, so the new checkpoint is kept if its
//! step is one of them. The kept steps are therefore always `0, i, 2i, …, k·i` for the current
//! interval `i`, with `k + 1 ≤ capacity`: even spacing, the whole run covered, memory bounded.

/// At most this many checkpoints are kept by the trainer (64 × 10,240 weights × 8 bytes, about 5 MB,
/// for the reference model).
pub const MAX_CHECKPOINTS: usize = 64;

/// Checkpoints `T`, each with its step, thinned as the module documentation describes.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoints<T> {
    capacity: usize,
    interval: usize,
    kept: Vec<(usize, T)>,
}

impl<T> Checkpoints<T> {
    /// An empty timeline keeping at most `capacity` (at least 2) checkpoints, one every
    /// `interval` (at least 1) steps to begin with.
    pub fn new(capacity: usize, interval: usize) -> Self {
        assert!(
            capacity >= 2 && interval >= 1,
            "capacity ≥ 2 and interval ≥ 1"
        );
        Self {
            capacity,
            interval,
            kept: Vec::new(),
        }
    }

    /// Steps between kept checkpoints now.
    pub fn interval(&self) -> usize {
        self.interval
    }

    /// The kept checkpoints, oldest first.
    pub fn kept(&self) -> &[(usize, T)] {
        &self.kept
    }

    /// Whether a checkpoint at `step` would be kept now: a multiple of the interval (of the
    /// doubled one if the timeline is full), later than the last kept.
    pub fn wants(&self, step: usize) -> bool {
        let interval = if self.kept.len() >= self.capacity {
            2 * self.interval
        } else {
            self.interval
        };
        step % interval == 0 && self.kept.last().is_none_or(|&(last, _)| step > last)
    }

    /// Offers the checkpoint at `step`, made by `make` only if it is kept (thinning first when the
    /// timeline is full). Returns whether it was kept.
    pub fn offer(&mut self, step: usize, make: impl FnOnce() -> T) -> bool {
        if !self.wants(step) {
            return false;
        }
        if self.kept.len() >= self.capacity {
            let mut index = 0;
            self.kept.retain(|_| {
                index += 1;
                index % 2 == 1
            });
            self.interval *= 2;
        }
        self.kept.push((step, make()));
        true
    }

    /// The kept checkpoint nearest to `step` at or before it (the first one if none is).
    pub fn at_or_before(&self, step: usize) -> Option<usize> {
        let after = self.kept.partition_point(|&(s, _)| s <= step);
        if self.kept.is_empty() {
            None
        } else {
            Some(after.saturating_sub(1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Offers a checkpoint every `every` steps from 0 to `last` and checks the invariant after
    /// each offer: the kept steps are exactly 0, i, 2i, … up to the last offered step, for the
    /// current interval i = every · 2ᵐ, never more than the capacity.
    fn run(capacity: usize, every: usize, last: usize) -> Checkpoints<usize> {
        let mut c = Checkpoints::new(capacity, every);
        let mut thinned = 0;
        for step in (0..=last).step_by(every) {
            let before = c.interval();
            c.offer(step, || step * 10);
            if c.interval() != before {
                thinned += 1;
                assert_eq!(c.interval(), 2 * before);
            }
            let i = c.interval();
            assert_eq!(i, every << thinned);
            let expected: Vec<usize> = (0..=step).step_by(i).collect();
            let steps: Vec<usize> = c.kept().iter().map(|&(s, _)| s).collect();
            assert_eq!(steps, expected, "after step {step}");
            assert!(c.kept().len() <= capacity);
            // The payload is the one made for that step.
            assert!(c.kept().iter().all(|&(s, v)| v == s * 10));
            if thinned > 0 {
                assert!(c.kept().len() > capacity / 2, "never below half once full");
            }
        }
        c
    }

    #[test]
    fn thinning_keeps_an_even_bounded_timeline() {
        let c = run(64, 25, 20_000);
        // 20,000 / 25 = 800 evaluations: the interval doubled to 25 · 2⁴ = 400, keeping 0 … 20,000.
        assert_eq!(c.interval(), 400);
        assert_eq!(c.kept().len(), 51);
        run(2, 1, 100);
        run(4, 7, 1_000);
        run(64, 25, 1_575); // exactly full: 64 kept, not thinned yet
        assert_eq!(run(64, 25, 1_575).kept().len(), 64);
        assert_eq!(run(64, 25, 1_600).kept().len(), 33);
    }

    #[test]
    fn only_due_steps_are_made() {
        let mut c = Checkpoints::new(4, 10);
        assert!(c.offer(0, || "zero"));
        assert!(!c.offer(5, || panic!("step 5 is not a multiple of 10")));
        assert!(!c.offer(0, || panic!("step 0 is kept already")));
        assert!(c.offer(10, || "ten"));
        assert!(c.offer(20, || "twenty"));
        assert!(c.offer(30, || "thirty"));
        // Full: step 40 thins to 0, 20 and doubles the interval to 20; 40 is a multiple.
        assert!(!c.wants(50));
        assert!(c.offer(40, || "forty"));
        assert_eq!(c.kept(), &[(0, "zero"), (20, "twenty"), (40, "forty")]);
        assert!(!c.offer(50, || panic!("50 is not a multiple of 20")));
    }

    #[test]
    fn nearest_kept_checkpoint() {
        let mut c = Checkpoints::new(8, 10);
        assert_eq!(c.at_or_before(5), None);
        for s in [0, 10, 20] {
            c.offer(s, || ());
        }
        assert_eq!(c.at_or_before(0), Some(0));
        assert_eq!(c.at_or_before(19), Some(1));
        assert_eq!(c.at_or_before(20), Some(2));
        assert_eq!(c.at_or_before(1_000), Some(2));
    }
}
