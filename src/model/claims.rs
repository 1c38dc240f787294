//! The facts behind the page's sentences about a whole head: how many rows are nearly one-hot,
//! which rows split their top weight between tied keys, how peaked rows are on average.
//!
//! A sentence such as "3 of 6 rows put more than 95 % on one key" is only ever printed from
//! these numbers, so it stays true for every sentence, seed, head split and temperature (the
//! tests below and in `src/text/` check the wording against them).

use super::broken::{sees, Mistakes};
use super::host::lowercase;
use super::stats::ROUNDING_TOLERANCE;
use nalgebra::DMatrix;

/// A row counts as nearly one-hot when its largest weight is above this.
pub const NEARLY_ONE_HOT: f64 = 0.95;

/// The keys of a causal row (its visible weights) that share its largest weight, up to
/// rounding: one key normally, several when their scores tie (e.g. identical words without
/// position codes, whose keys are identical).
pub fn top_keys(row: &[f64]) -> Vec<usize> {
    let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (0..row.len())
        .filter(|&j| max - row[j] < ROUNDING_TOLERANCE)
        .collect()
}

/// How a head's rows are shaped at one temperature.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeadShape {
    /// Rows with a choice to make: every row but the first, which sees only itself.
    pub rows_with_choice: usize,
    /// Of those, rows whose largest weight is above [`NEARLY_ONE_HOT`].
    pub nearly_one_hot: usize,
    /// Of those, rows whose largest weight is shared by two or more keys.
    pub tied: usize,
    /// The mean of those rows' largest weights (0 when there are none).
    pub mean_max_weight: f64,
}

impl HeadShape {
    /// The shape of causal `weights` (T × T; row i's visible keys are 0..=i).
    pub fn of(weights: &DMatrix<f64>) -> Self {
        let t = weights.nrows().min(weights.ncols());
        let (mut nearly_one_hot, mut tied, mut max_sum) = (0, 0, 0.0);
        for i in 1..t {
            let row: Vec<f64> = (0..=i).map(|j| weights[(i, j)]).collect();
            let top = top_keys(&row);
            let max = row[top[0]];
            max_sum += max;
            nearly_one_hot += usize::from(max > NEARLY_ONE_HOT);
            tied += usize::from(top.len() > 1);
        }
        let rows_with_choice = t.saturating_sub(1);
        Self {
            rows_with_choice,
            nearly_one_hot,
            tied,
            mean_max_weight: if rows_with_choice == 0 {
                0.0
            } else {
                max_sum / rows_with_choice as f64
            },
        }
    }
}

/// The first two tokens (by position) that are the same word once capitals are ignored, as this
/// app's embedding sees them.
pub fn first_repeated_word(tokens: &[String]) -> Option<(usize, usize)> {
    let folded: Vec<String> = tokens.iter().map(|t| lowercase(t)).collect();
    (1..folded.len()).find_map(|j| (0..j).find(|&i| folded[i] == folded[j]).map(|i| (i, j)))
}

/// How the rows of a heatmap treat two keys `(a, b)`: the rows that see both (see [`sees`]), and
/// how many of them give the two different weights. Without position
/// codes a repeated word has identical keys, so correct attention gives both copies the same
/// bits in every such row; some "Break it" mistakes do not.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairWeights {
    /// Rows that see both keys.
    pub seeing: usize,
    /// Of those, rows whose two weights are not the same bits.
    pub differing: usize,
    /// The first such row (from 0) with its weights on `a` and `b`.
    pub first_differing: Option<(usize, f64, f64)>,
}

impl PairWeights {
    /// The pair `(a, b)` in `weights` (T × T), masked as `mistakes` mask.
    pub fn of(weights: &DMatrix<f64>, mistakes: Mistakes, (a, b): (usize, usize)) -> Self {
        let rows: Vec<usize> = (0..weights.nrows())
            .filter(|&i| sees(mistakes, i, a) && sees(mistakes, i, b))
            .collect();
        let differing: Vec<usize> = rows
            .iter()
            .copied()
            .filter(|&i| weights[(i, a)].to_bits() != weights[(i, b)].to_bits())
            .collect();
        Self {
            seeing: rows.len(),
            differing: differing.len(),
            first_differing: differing
                .first()
                .map(|&i| (i, weights[(i, a)], weights[(i, b)])),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::explorer::Prepared;
    use crate::model::temperature::{unscaled_tau, SLIDER_MAX_TAU, SLIDER_MIN_TAU};
    use crate::model::tokenizer::tokenize;
    use crate::model::weights::HEAD_CHOICES;

    fn model(heads: usize, positions: bool) -> Prepared {
        crate::model::explorer::default_view(heads, positions)
    }

    /// Temperatures across the slider, both landmarks included.
    fn temperatures(head_size: usize) -> Vec<f64> {
        let mut taus: Vec<f64> = (0..=40)
            .map(|i| SLIDER_MIN_TAU * 10f64.powf(f64::from(i) * 0.1))
            .collect();
        taus.extend([unscaled_tau(head_size), 1.0, SLIDER_MAX_TAU]);
        taus
    }

    /// "Every row that sees both gives them exactly the same weight" (positions off), for correct
    /// attention and under each "Break it" mistake, across head splits, heads and the slider:
    /// correct attention and the mistakes that keep each row one softmax of equal scores hold it;
    /// masking with 0 (a row before the second copy sees it through the leak, with score 0), the
    /// wrong axis and dropout break it in some view, and the count says so.
    #[test]
    fn a_repeated_word_gets_the_same_weight_unless_a_mistake_breaks_it() {
        use crate::model::broken::{broken_weights_all, is_hidden, Mistake};
        let mut broke: Vec<Mistake> = Vec::new();
        for heads in HEAD_CHOICES {
            let p = model(heads, false);
            let pair = first_repeated_word(&p.config.tokens).expect("“The” … “the”");
            let t = p.len();
            for &tau in &temperatures(p.head_size()) {
                for (h, head) in p.heads.iter().enumerate() {
                    let correct = PairWeights::of(&head.weights(tau), Mistakes::NONE, pair);
                    assert_eq!((correct.seeing, correct.differing), (t - pair.1, 0));
                    for m in Mistake::ALL {
                        let on: Mistakes = [m].into_iter().collect();
                        let w = broken_weights_all(&p, on, tau).swap_remove(h);
                        let got = PairWeights::of(&w, on, pair);
                        // Masked with 0, every row sees both keys.
                        let seen =
                            |i: usize, j: usize| m == Mistake::MaskWithZero || !is_hidden(on, i, j);
                        let by_hand = (0..t)
                            .filter(|&i| seen(i, pair.0) && seen(i, pair.1))
                            .filter(|&i| w[(i, pair.0)] != w[(i, pair.1)])
                            .count();
                        assert_eq!(got.differing, by_hand, "{m:?} τ={tau}");
                        assert_eq!(got.first_differing.is_some(), by_hand > 0);
                        if got.differing > 0 && !broke.contains(&m) {
                            broke.push(m);
                        }
                    }
                }
            }
        }
        let broke: Vec<Mistake> = Mistake::ALL
            .into_iter()
            .filter(|m| broke.contains(m))
            .collect();
        assert_eq!(
            broke,
            vec![
                Mistake::MaskWithZero,
                Mistake::SoftmaxOverColumns,
                Mistake::Dropout
            ]
        );
    }

    #[test]
    fn top_keys_find_ties() {
        assert_eq!(top_keys(&[0.2, 0.5, 0.3]), vec![1]);
        assert_eq!(top_keys(&[0.4, 0.2, 0.4]), vec![0, 2]);
        assert_eq!(top_keys(&[1.0]), vec![0]);
    }

    #[test]
    fn head_shape_counts_by_hand() {
        // Row 1 has no choice; row 2 is one-hot; row 3 ties keys 1 and 3 at 0.45.
        let w = DMatrix::from_row_slice(3, 3, &[1.0, 0.0, 0.0, 0.02, 0.98, 0.0, 0.45, 0.1, 0.45]);
        let s = HeadShape::of(&w);
        assert_eq!((s.rows_with_choice, s.nearly_one_hot, s.tied), (2, 1, 1));
        assert!((s.mean_max_weight - f64::midpoint(0.98, 0.45)).abs() < 1e-15);
        let one = HeadShape::of(&DMatrix::from_element(1, 1, 1.0));
        assert_eq!((one.rows_with_choice, one.mean_max_weight), (0, 0.0));
    }

    /// What the regime sentences say without a number: every row's largest weight never falls and
    /// its entropy never rises as τ falls, so a colder row is at least as peaked as a warmer one
    /// (for every head split, with and without positions, across the slider).
    #[test]
    fn colder_rows_are_never_flatter() {
        use crate::model::stats::row_stats;
        for heads in HEAD_CHOICES {
            for positions in [false, true] {
                let p = model(heads, positions);
                let mut taus = temperatures(p.head_size());
                taus.sort_by(f64::total_cmp);
                for h in &p.heads {
                    let mut previous: Option<DMatrix<f64>> = None;
                    for &tau in &taus {
                        let w = h.weights(tau);
                        if let Some(colder) = &previous {
                            for i in 0..w.nrows() {
                                let warm: Vec<f64> = (0..=i).map(|j| w[(i, j)]).collect();
                                let cold: Vec<f64> = (0..=i).map(|j| colder[(i, j)]).collect();
                                let (warm, cold) = (row_stats(&warm), row_stats(&cold));
                                assert!(cold.max_weight >= warm.max_weight - 1e-12);
                                assert!(cold.entropy_bits <= warm.entropy_bits + 1e-9);
                            }
                        }
                        previous = Some(w);
                    }
                }
            }
        }
    }

    /// "Hotter: rows flatten toward the plain average of the past": every row's largest distance
    /// from its even share 1/t shrinks as τ grows, and is below 1 % at the slider's top for the
    /// default sentence.
    #[test]
    fn hotter_rows_approach_the_average() {
        for heads in HEAD_CHOICES {
            for positions in [false, true] {
                let p = model(heads, positions);
                let mut taus = temperatures(p.head_size());
                taus.sort_by(f64::total_cmp);
                for h in &p.heads {
                    let gap = |tau: f64| {
                        let w = h.weights(tau);
                        (0..w.nrows())
                            .flat_map(|i| (0..=i).map(move |j| (i, j)))
                            .map(|(i, j)| (w[(i, j)] - 1.0 / (i + 1) as f64).abs())
                            .fold(0.0, f64::max)
                    };
                    let gaps: Vec<f64> = taus
                        .iter()
                        .filter(|&&t| t >= 1.0)
                        .map(|&t| gap(t))
                        .collect();
                    assert!(gaps.windows(2).all(|g| g[1] <= g[0] + 1e-12), "{gaps:?}");
                    assert!(gap(SLIDER_MAX_TAU) < 0.01);
                }
            }
        }
    }

    /// "As τ → 0 every row goes one-hot on its top key, or splits evenly between tied keys": at
    /// the model's coldest temperature every row of the default sentence is within rounding of
    /// that.
    #[test]
    fn coldest_rows_are_one_hot_or_evenly_split_ties() {
        use crate::model::temperature::MIN_TEMPERATURE;
        for heads in HEAD_CHOICES {
            for positions in [false, true] {
                let p = model(heads, positions);
                for h in &p.heads {
                    let w = h.weights(MIN_TEMPERATURE);
                    for i in 0..w.nrows() {
                        let scores: Vec<f64> = (0..=i).map(|j| h.scores[(i, j)]).collect();
                        let best = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                        let tied: Vec<usize> = (0..=i).filter(|&j| scores[j] == best).collect();
                        for j in 0..=i {
                            let expected = if tied.contains(&j) {
                                1.0 / tied.len() as f64
                            } else {
                                0.0
                            };
                            assert!((w[(i, j)] - expected).abs() < 1e-6, "row {i} key {j}");
                        }
                    }
                }
            }
        }
    }

    /// Without positions the default sentence's "The" and "the" (keys 0 and 4) get exactly the
    /// same weight in every row that sees both, in every head, at every τ; with positions they
    /// differ in every such row.
    #[test]
    fn identical_words_tie_without_positions_only() {
        let tokens = tokenize("The cat sat on the mat .");
        assert_eq!(first_repeated_word(&tokens), Some((0, 4)));
        for heads in HEAD_CHOICES {
            for positions in [false, true] {
                let p = model(heads, positions);
                for tau in temperatures(p.head_size()) {
                    for w in p.weights_all(tau) {
                        for i in 4..w.nrows() {
                            if positions {
                                assert_ne!(w[(i, 0)], w[(i, 4)], "row {i} τ {tau}");
                            } else {
                                assert_eq!(w[(i, 0)], w[(i, 4)], "row {i} τ {tau}");
                            }
                        }
                    }
                }
            }
        }
    }
}
