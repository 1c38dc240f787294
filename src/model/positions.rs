//! Step 6 of the lesson: what attention knows about word order.
//!
//! Without position codes a token's vector depends only on its word, and a row's score for a key
//! depends only on the two vectors: shuffling the tokens before the selected row moves each
//! key's score and weight with it, and every key keeps exactly its weight. With position codes
//! the vectors depend on where the words stand, so the same shuffle changes the row. This file
//! makes that shuffle (seeded, so a press is reproducible) and compares the row before and after,
//! key by key, exactly.
//!
//! Without positions each key's score q·k is bit-identical after the shuffle. The weights are
//! equal as numbers but may differ in the last bit: the softmax adds the same terms in another
//! order, and floating-point addition rounds differently in another order. So the page says
//! "bit-identical" only where the comparison is exact, and otherwise gives the largest change.

use super::explorer::{ExplorerConfig, Prepared};
use super::rng::SeededRng;
use super::stats::{same_bits, ROUNDING_TOLERANCE};

/// The new order of the tokens when the `row` tokens before row `row` (0-based) are shuffled with
/// `seed`: `order[p]` is the original index of the token now at position `p`. The row's own token
/// and everything after it stay in place. With two or more earlier tokens the order always
/// differs from the original (a shuffle that happens to change nothing is rotated by one).
pub fn shuffled_order(len: usize, row: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    let past = row.min(len);
    let mut rng = SeededRng::stream(seed, "shuffle-the-past");
    // Fisher–Yates over positions 0..past.
    for i in (1..past).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    if past >= 2 && order[..past].iter().enumerate().all(|(p, &i)| p == i) {
        order[..past].rotate_left(1);
    }
    order
}

/// One row before and after shuffling the past.
#[derive(Debug, Clone, PartialEq)]
pub struct ShuffleComparison {
    /// `order[p]`: the original index of the token at position `p` after the shuffle.
    pub order: Vec<usize>,
    /// The row's weights on its visible keys, indexed by the key's original position.
    pub before: Vec<f64>,
    /// The shuffled row's weights on the same keys (moved back to their original positions).
    pub after: Vec<f64>,
    /// The row's raw scores q·k on its visible keys, before and after (indexed as `before`).
    pub scores_before: Vec<f64>,
    pub scores_after: Vec<f64>,
}

impl ShuffleComparison {
    /// Whether every key kept its weight bit for bit.
    pub fn bit_identical(&self) -> bool {
        same_bits(&self.before, &self.after)
    }

    /// Whether every key kept its raw score q·k bit for bit.
    pub fn scores_bit_identical(&self) -> bool {
        same_bits(&self.scores_before, &self.scores_after)
    }

    /// The largest change of any key's weight.
    pub fn largest_change(&self) -> f64 {
        self.before
            .iter()
            .zip(&self.after)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max)
    }
}

/// Row `row` (0-based) of head `head` at temperature `tau` of the model `prepared`, and of the
/// same model with the tokens before the row shuffled by `seed` (same weights, random or trained,
/// same heads and position switch).
pub fn shuffle_the_past(
    prepared: &Prepared,
    head: usize,
    tau: f64,
    row: usize,
    seed: u64,
) -> ShuffleComparison {
    let config = &prepared.config;
    let len = config.tokens.len();
    let row = row.min(len.saturating_sub(1));
    let order = shuffled_order(len, row, seed);
    let shuffled = ExplorerConfig {
        tokens: order.iter().map(|&i| config.tokens[i].clone()).collect(),
        ..config.clone()
    };
    // The row's (weights, scores) on its visible keys.
    let row_of = |config: ExplorerConfig| {
        // Cannot fail: the same words in another order, with the same weights.
        let p = prepared
            .weights
            .prepare(config.clone())
            .unwrap_or_else(|_| Prepared::new(config));
        let h = &p.heads[head.min(p.heads.len() - 1)];
        let w = h.weights(tau);
        (0..=row)
            .map(|j| (w[(row, j)], h.scores[(row, j)]))
            .unzip::<f64, f64, Vec<f64>, Vec<f64>>()
    };
    let (before, scores_before) = row_of(config.clone());
    let (moved, moved_scores) = row_of(shuffled);
    let (mut after, mut scores_after) = (vec![0.0; row + 1], vec![0.0; row + 1]);
    for p in 0..=row {
        after[order[p]] = moved[p];
        scores_after[order[p]] = moved_scores[p];
    }
    ShuffleComparison {
        order,
        before,
        after,
        scores_before,
        scores_after,
    }
}

/// The lesson's preset pair: the same three words, opposite meanings.
pub const PRESETS: [&str; 2] = ["dog bites man", "man bites dog"];

/// The presets' past swapped: "dog bites man" with its first two words swapped, so "man" has
/// the same past in another order.
pub const PAST_SWAPPED: &str = "bites dog man";

/// What step 6's presets show, computed for a view's seed, heads and position switch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrderDemo {
    /// How many of the presets' words have output rows (every head's A·V) that differ by more
    /// than rounding between the two sentences: each word has a different past there.
    pub rows_that_differ: usize,
    /// How many words the presets have.
    pub words: usize,
    /// The largest difference between the output rows of "man", the last word, in
    /// "dog bites man" and in [`PAST_SWAPPED`]: the same past in another order.
    pub past_swap_gap: f64,
    /// The largest change of "man"'s weight on the same word between those two sentences, over
    /// every head: what a reader sees when comparing the row's weights.
    pub past_swap_weight_gap: f64,
    /// The head (0-based) where that largest change is (the first, on a tie).
    pub past_swap_head: usize,
}

/// Every head's weights A and output rows A·V of `tokens` under `config`'s settings.
fn attend(
    tokens: &[String],
    config: &ExplorerConfig,
    tau: f64,
) -> (Vec<nalgebra::DMatrix<f64>>, Vec<nalgebra::DMatrix<f64>>) {
    let p = Prepared::new(ExplorerConfig {
        tokens: tokens.to_vec(),
        ..config.clone()
    });
    let weights: Vec<_> = p.heads.iter().map(|h| h.weights(tau)).collect();
    let outputs = weights
        .iter()
        .zip(&p.heads)
        .map(|(w, h)| w * &h.v)
        .collect();
    (weights, outputs)
}

/// Step 6's presets at temperature `tau` with `config`'s seed, heads and position switch (its
/// tokens are not used). Without position codes a row's output depends on its own word and on the
/// set of words before it, not their order; the presets give each word a different past.
pub fn order_demo(config: &ExplorerConfig, tau: f64) -> OrderDemo {
    let tokens = |s: &str| super::tokenizer::tokenize(s);
    let [a, b] = PRESETS.map(tokens);
    let ((wa, oa), (_, ob)) = (attend(&a, config, tau), attend(&b, config, tau));
    let row_gap =
        |x: &[nalgebra::DMatrix<f64>], i: usize, y: &[nalgebra::DMatrix<f64>], j: usize| {
            x.iter()
                .zip(y)
                .map(|(m, n)| (m.row(i) - n.row(j)).abs().max())
                .fold(0.0, f64::max)
        };
    let rows_that_differ = (0..a.len())
        .filter(|&i| {
            let j = b
                .iter()
                .position(|w| *w == a[i])
                .expect("the presets share their words");
            row_gap(&oa, i, &ob, j) > ROUNDING_TOLERANCE
        })
        .count();
    let swapped_tokens = tokens(PAST_SWAPPED);
    let (ws, swapped) = attend(&swapped_tokens, config, tau);
    let last = a.len() - 1;
    // "man"'s weight on each word, matched by the word (the presets' words are distinct).
    let swapped_words = &swapped_tokens;
    let a_words = &a;
    // Per head, the largest change of "man"'s weight on one word; then the head that shows most.
    let head_gaps: Vec<f64> = wa
        .iter()
        .zip(&ws)
        .map(|(x, y)| {
            a_words
                .iter()
                .enumerate()
                .map(|(j, word)| {
                    let k = swapped_words
                        .iter()
                        .position(|w| w == word)
                        .expect("the swap keeps the words");
                    (x[(last, j)] - y[(last, k)]).abs()
                })
                .fold(0.0, f64::max)
        })
        .collect();
    let (past_swap_head, weight_gap) =
        head_gaps
            .iter()
            .copied()
            .enumerate()
            .fold(
                (0, 0.0),
                |best, (h, g)| if g > best.1 { (h, g) } else { best },
            );
    OrderDemo {
        rows_that_differ,
        words: a.len(),
        past_swap_gap: row_gap(&oa, last, &swapped, last),
        past_swap_weight_gap: weight_gap,
        past_swap_head,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tokenizer::tokenize;
    use crate::model::weights::HEAD_CHOICES;

    fn config(sentence: &str, heads: usize, positions: bool) -> ExplorerConfig {
        ExplorerConfig {
            tokens: tokenize(sentence),
            seed: 1337,
            heads,
            positions,
        }
    }

    #[test]
    fn the_shuffle_moves_only_the_past() {
        for len in 1..=12 {
            for row in 0..len {
                for seed in 0..20 {
                    let order = shuffled_order(len, row, seed);
                    let mut sorted = order.clone();
                    sorted.sort_unstable();
                    assert_eq!(sorted, (0..len).collect::<Vec<_>>(), "a permutation");
                    assert!(order[row..].iter().enumerate().all(|(k, &i)| i == row + k));
                    if row >= 2 {
                        assert_ne!(&order[..row], &(0..row).collect::<Vec<_>>()[..]);
                    }
                }
            }
        }
        assert_eq!(shuffled_order(7, 5, 3), shuffled_order(7, 5, 3), "seeded");
        let distinct: std::collections::HashSet<Vec<usize>> =
            (0..20).map(|s| shuffled_order(7, 6, s)).collect();
        assert!(distinct.len() > 5, "seeds give different shuffles");
    }

    /// Without positions every key keeps its score bit for bit and its weight up to the rounding
    /// of a sum taken in another order (a few units in the last place), for every row, several
    /// seeds, every head split (first and last head) and temperatures across the slider.
    #[test]
    fn without_positions_the_row_is_bit_identical() {
        let (mut identical, mut total) = (0, 0);
        for sentence in [
            "The cat sat on the mat .",
            "dog bites man",
            "a b c d e f g h i j",
        ] {
            for heads in HEAD_CHOICES {
                let c = config(sentence, heads, false);
                for row in 0..c.tokens.len() {
                    for seed in 0..4 {
                        for tau in [0.01, 1.0, 100.0] {
                            for head in [0, heads - 1] {
                                let s = shuffle_the_past(
                                    &Prepared::new(c.clone()),
                                    head,
                                    tau,
                                    row,
                                    seed,
                                );
                                assert!(
                                    s.scores_bit_identical(),
                                    "{sentence} row {row} seed {seed} τ {tau}: {s:?}"
                                );
                                for (a, b) in s.before.iter().zip(&s.after) {
                                    assert!((a - b).abs() <= 4.0 * f64::EPSILON * a, "{s:?}");
                                }
                                identical += usize::from(s.bit_identical());
                                total += 1;
                            }
                        }
                    }
                }
            }
        }
        // Most shuffles leave even the last bit alone; the rest differ only by rounding.
        assert!(identical * 2 > total, "{identical} of {total}");
    }

    /// With positions the same shuffle changes the row (every row with two or more earlier
    /// tokens, every seed tried), by more than 1e-6, so that weights shown to six decimals differ
    /// too, at τ = 1 and at the slider's top.
    #[test]
    fn with_positions_the_row_changes() {
        for heads in HEAD_CHOICES {
            let c = config("The cat sat on the mat .", heads, true);
            for row in 2..c.tokens.len() {
                for seed in 0..6 {
                    for tau in [1.0, 100.0] {
                        let s = shuffle_the_past(&Prepared::new(c.clone()), 0, tau, row, seed);
                        assert!(!s.bit_identical(), "row {row} seed {seed}");
                        assert!(!s.scores_bit_identical(), "row {row} seed {seed}");
                        assert!(s.largest_change() > 1e-6, "row {row} seed {seed} τ {tau}");
                    }
                }
            }
        }
    }

    #[test]
    fn weights_are_moved_back_to_their_keys() {
        let c = config("The cat sat on the mat .", 2, false);
        let s = shuffle_the_past(&Prepared::new(c.clone()), 0, 1.0, 5, 1);
        let p = Prepared::new(c);
        let w = p.heads[0].weights(1.0);
        for j in 0..=5 {
            assert_eq!(s.before[j], w[(5, j)]);
        }
        assert!((s.after.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        // A 1-token row has nothing to shuffle.
        let one = shuffle_the_past(&Prepared::new(config("hi", 1, true)), 0, 1.0, 0, 4);
        assert_eq!(
            (one.order.clone(), one.before.clone(), one.after.clone()),
            (vec![0], vec![1.0], vec![1.0])
        );
        assert!(one.bit_identical() && one.scores_bit_identical());
    }

    /// The presets, for every head split, seeds and temperatures: every word's row differs
    /// between the two presets (each word has another past), with or without positions; swapping
    /// the past of "man" changes its row only by rounding without positions, and clearly with them.
    #[test]
    fn the_presets_differ_everywhere_and_a_swapped_past_only_with_positions() {
        for heads in HEAD_CHOICES {
            for seed in [1, 1337, 42] {
                for tau in [0.01, 0.25, 1.0, 100.0] {
                    let off = ExplorerConfig {
                        seed,
                        ..config("x", heads, false)
                    };
                    let demo = order_demo(&off, tau);
                    assert!(demo.past_swap_gap < ROUNDING_TOLERANCE, "{demo:?}");
                    assert!(demo.past_swap_weight_gap < ROUNDING_TOLERANCE, "{demo:?}");
                    if tau >= 0.25 {
                        assert_eq!((demo.rows_that_differ, demo.words), (3, 3), "{demo:?}");
                    }
                    let on = ExplorerConfig {
                        positions: true,
                        ..off
                    };
                    let demo = order_demo(&on, tau);
                    if tau >= 0.25 {
                        assert_eq!(demo.rows_that_differ, 3, "{demo:?}");
                        assert!(demo.past_swap_gap > 1e-6, "{demo:?}");
                        assert!(demo.past_swap_weight_gap > 1e-6, "{demo:?}");
                    }
                }
            }
        }
    }
}
