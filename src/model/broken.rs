//! "Break it": the classic mistakes people make when they write attention, computed for real so
//! the learner can see the damage next to correct attention.
//!
//! Each [`Mistake`] changes one line of the correct recipe
//! `softmax(mask(Q Kᵀ / (√d · τ)))`. Any set of them ([`Mistakes`]) can be on at once; they are
//! applied in this order, from the same raw scores `Q Kᵀ` the correct path uses:
//!
//! 1. **Scale.** The scores are multiplied by `1 / (√n · τ)`, where n is the head size d, or
//!    `d_model` with [`Mistake::ScaleByModelWidth`]; with [`Mistake::MultiplyBySqrtD`] by
//!    `√n / τ` instead (so both together multiply by `√d_model / τ`).
//! 2. **Mask.** The hidden cells are the future (`j > i`, `tril` keeps the past), or the past
//!    (`j < i`) with [`Mistake::WrongTriangle`] (`triu`).
//! 3. **Before the softmax** the hidden cells' scores become −∞, or 0 with
//!    [`Mistake::MaskWithZero`]. With [`Mistake::MaskAfterSoftmax`] nothing is hidden here, so
//!    that mistake overrides masking with 0 (both then fill with 0, after the softmax).
//! 4. **Softmax** over each row, or over each column with [`Mistake::SoftmaxOverColumns`].
//! 5. **After the softmax**, with [`Mistake::MaskAfterSoftmax`], the hidden cells are set to 0
//!    and the rows are not renormalised.
//! 6. **Dropout** ([`Mistake::Dropout`]): each weight is zeroed with probability [`DROPOUT_P`]
//!    and the rest are divided by `1 − p`, as during training. The draws come from the seeded
//!    stream `dropout:<head>` (head counted from 1), one draw per cell in row-major order; a
//!    cell is dropped when its draw is below p.
//!
//! With no mistake in steps 2–5 the weights come from the crate's one causal softmax
//! ([`causal_softmax`]); the other variants use [`softmax_full_rows`], which is that same
//! function applied so that every cell of a row is visible.
//!
//! [`Damage`] measures what changed: row and column sums, the cells that see the future, and
//! each row's largest weight and entropy next to correct attention's.

use super::attention::{causal_softmax, HeadAttention};
use super::explorer::Prepared;
use super::rng::SeededRng;
use super::stats::{divided_by_sum, row_entropy_bits, ROUNDING_TOLERANCE};
use super::temperature::{effective_temperature, logit_scale};
use nalgebra::DMatrix;

/// One mistake the "Break it" panel can switch on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mistake {
    /// Divide the scores by √`d_model` instead of √d (the head size).
    ScaleByModelWidth,
    /// Multiply the scores by √d instead of dividing.
    MultiplyBySqrtD,
    /// `triu` instead of `tril`: tokens see the future and the past is hidden.
    WrongTriangle,
    /// Fill the hidden cells with 0 instead of −∞ before the softmax.
    MaskWithZero,
    /// Softmax over each column (the queries) instead of each row (the keys).
    SoftmaxOverColumns,
    /// Mask after the softmax, without renormalising.
    MaskAfterSoftmax,
    /// Dropout on the weights at inference.
    Dropout,
}

/// The dropout probability of [`Mistake::Dropout`].
pub const DROPOUT_P: f64 = 0.1;

impl Mistake {
    /// Every mistake, in the order they act (see the module's doc), the panel lists them and
    /// links name them.
    pub const ALL: [Mistake; 7] = [
        Mistake::ScaleByModelWidth,
        Mistake::MultiplyBySqrtD,
        Mistake::WrongTriangle,
        Mistake::MaskWithZero,
        Mistake::SoftmaxOverColumns,
        Mistake::MaskAfterSoftmax,
        Mistake::Dropout,
    ];

    /// Its name in a link (`broken=mask-zero,triu`) and in the JSON's `broken` list.
    pub fn key(self) -> &'static str {
        match self {
            Mistake::ScaleByModelWidth => "d-model",
            Mistake::MultiplyBySqrtD => "multiply",
            Mistake::MaskWithZero => "mask-zero",
            Mistake::MaskAfterSoftmax => "mask-after",
            Mistake::SoftmaxOverColumns => "columns",
            Mistake::WrongTriangle => "triu",
            Mistake::Dropout => "dropout",
        }
    }

    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.key() == key)
    }

    fn bit(self) -> u8 {
        1 << Self::ALL.iter().position(|&m| m == self).unwrap_or(0)
    }
}

/// A set of mistakes (empty: correct attention).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Mistakes(u8);

impl Mistakes {
    pub const NONE: Mistakes = Mistakes(0);

    pub fn contains(self, m: Mistake) -> bool {
        self.0 & m.bit() != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// This set with `m` switched on or off.
    #[must_use]
    pub fn with(self, m: Mistake, on: bool) -> Self {
        if on {
            Mistakes(self.0 | m.bit())
        } else {
            Mistakes(self.0 & !m.bit())
        }
    }

    /// The mistakes switched on, in [`Mistake::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Mistake> {
        Mistake::ALL.into_iter().filter(move |&m| self.contains(m))
    }

    /// The keys joined by commas, as in a link: `mask-zero,triu`.
    pub fn keys(self) -> String {
        self.iter().map(Mistake::key).collect::<Vec<_>>().join(",")
    }
}

impl FromIterator<Mistake> for Mistakes {
    fn from_iter<I: IntoIterator<Item = Mistake>>(iter: I) -> Self {
        iter.into_iter()
            .fold(Self::NONE, |set, m| set.with(m, true))
    }
}

/// Softmax of every full row of `logits`; −∞ entries get weight 0. It is [`causal_softmax`] on a
/// taller matrix: with `c − 1` rows of padding on top, row `c − 1 + i` may see all `c` columns,
/// so row `i` of `logits` is softmaxed whole, by the same code as correct attention.
pub fn softmax_full_rows(logits: &DMatrix<f64>) -> DMatrix<f64> {
    let (t, c) = logits.shape();
    let pad = c.saturating_sub(1);
    let tall = DMatrix::from_fn(
        t + pad,
        c,
        |i, j| {
            if i < pad {
                0.0
            } else {
                logits[(i - pad, j)]
            }
        },
    );
    causal_softmax(&tall, 1.0).rows(pad, t).into_owned()
}

/// What the scores are multiplied by under `mistakes` (step 1 of the module's order).
pub fn broken_scale(mistakes: Mistakes, head_size: usize, d_model: usize, tau: f64) -> f64 {
    let n = if mistakes.contains(Mistake::ScaleByModelWidth) {
        d_model
    } else {
        head_size
    };
    if mistakes.contains(Mistake::MultiplyBySqrtD) {
        (n.max(1) as f64).sqrt() / effective_temperature(tau)
    } else {
        logit_scale(n, tau)
    }
}

/// Whether cell (`i`, `j`) is hidden by the mask under `mistakes` (the past with `triu`).
pub fn is_hidden(mistakes: Mistakes, i: usize, j: usize) -> bool {
    if mistakes.contains(Mistake::WrongTriangle) {
        j < i
    } else {
        j > i
    }
}

/// Whether row `i` sees key `j` under `mistakes`: the mask leaves the cell, or it masks with 0
/// before the softmax (as [`broken_weights`] fills), which leaves every masked cell a share.
pub fn sees(mistakes: Mistakes, i: usize, j: usize) -> bool {
    let leaks =
        mistakes.contains(Mistake::MaskWithZero) && !mistakes.contains(Mistake::MaskAfterSoftmax);
    !is_hidden(mistakes, i, j) || leaks
}

/// One head's T × T weights with `mistakes` made, from its raw scores `Q Kᵀ`. `head` (from 0)
/// and `seed` name the dropout stream.
pub fn broken_weights(
    scores: &DMatrix<f64>,
    mistakes: Mistakes,
    (head_size, d_model): (usize, usize),
    tau: f64,
    (seed, head): (u64, usize),
) -> DMatrix<f64> {
    let scale = broken_scale(mistakes, head_size, d_model, tau);
    let softmax_mistakes = [
        Mistake::MaskWithZero,
        Mistake::MaskAfterSoftmax,
        Mistake::SoftmaxOverColumns,
        Mistake::WrongTriangle,
    ];
    let mut weights = if softmax_mistakes.iter().all(|&m| !mistakes.contains(m)) {
        causal_softmax(scores, scale)
    } else {
        let after = mistakes.contains(Mistake::MaskAfterSoftmax);
        let fill = if mistakes.contains(Mistake::MaskWithZero) {
            0.0
        } else {
            f64::NEG_INFINITY
        };
        let logits = DMatrix::from_fn(scores.nrows(), scores.ncols(), |i, j| {
            if !after && is_hidden(mistakes, i, j) {
                fill
            } else {
                scores[(i, j)] * scale
            }
        });
        let mut w = if mistakes.contains(Mistake::SoftmaxOverColumns) {
            softmax_full_rows(&logits.transpose()).transpose()
        } else {
            softmax_full_rows(&logits)
        };
        if after {
            for i in 0..w.nrows() {
                for j in 0..w.ncols() {
                    if is_hidden(mistakes, i, j) {
                        w[(i, j)] = 0.0;
                    }
                }
            }
        }
        w
    };
    if mistakes.contains(Mistake::Dropout) {
        apply_dropout(&mut weights, seed, head);
    }
    weights
}

/// Head `head` (from 0) of `p` with `mistakes` made, at temperature `tau`: what the main view
/// shows of the selected head.
pub fn broken_head_weights(
    p: &Prepared,
    mistakes: Mistakes,
    tau: f64,
    head: usize,
) -> DMatrix<f64> {
    let sizes = (p.head_size(), p.d_model);
    broken_weights(
        &p.heads[head].scores,
        mistakes,
        sizes,
        tau,
        (p.config.seed, head),
    )
}

/// Every head of `p` with `mistakes` made, at temperature `tau`: what the thumbnails show.
pub fn broken_weights_all(p: &Prepared, mistakes: Mistakes, tau: f64) -> Vec<DMatrix<f64>> {
    (0..p.heads.len())
        .map(|h| broken_head_weights(p, mistakes, tau, h))
        .collect()
}

/// As [`broken_weights_all`], with each head's output `weights · V` (for the JSON download).
pub fn broken_attention(p: &Prepared, mistakes: Mistakes, tau: f64) -> Vec<HeadAttention> {
    broken_weights_all(p, mistakes, tau)
        .into_iter()
        .zip(&p.heads)
        .map(|(weights, head)| HeadAttention {
            output: &weights * &head.v,
            weights,
        })
        .collect()
}

/// Dropout as in training (step 6 of the module's order).
fn apply_dropout(weights: &mut DMatrix<f64>, seed: u64, head: usize) {
    let mut rng = SeededRng::stream(seed, &format!("dropout:{}", head + 1));
    for i in 0..weights.nrows() {
        for j in 0..weights.ncols() {
            weights[(i, j)] = if rng.next_open01() < DROPOUT_P {
                0.0
            } else {
                weights[(i, j)] / (1.0 - DROPOUT_P)
            };
        }
    }
}

/// One row's damage: its sum, and its largest weight and entropy against correct attention's.
/// Both measures of spread are of the broken row divided by its sum, so that they compare the
/// row's shape with correct attention's and agree with each other on what they measure (the sum
/// says how far off the row is).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowDamage {
    pub sum: f64,
    pub correct_max: f64,
    /// Of the row divided by its sum (0 for an all-zero row).
    pub broken_max: f64,
    /// Bits, `−Σ w log₂ w`.
    pub correct_entropy: f64,
    /// Bits, of the row divided by its sum (so it is a distribution again; 0 for an all-zero row).
    pub broken_entropy: f64,
}

impl RowDamage {
    /// How far the row's sum is from 1 (signed).
    pub fn deviation(&self) -> f64 {
        self.sum - 1.0
    }

    /// Whether the row still sums to 1 up to rounding.
    pub fn sums_to_one(&self) -> bool {
        self.deviation().abs() <= ROUNDING_TOLERANCE
    }
}

/// What a set of mistakes did to one head's weights, against correct attention.
#[derive(Debug, Clone, PartialEq)]
pub struct Damage {
    pub rows: Vec<RowDamage>,
    /// Each column's sum (what the wrong-axis softmax makes 1).
    pub column_sums: Vec<f64>,
    /// The cells above the diagonal (`j > i`, the future) with a weight above 0.
    pub future_cells: Vec<(usize, usize)>,
    /// Their total weight.
    pub future_weight: f64,
    /// The largest change of any weight, and its cell.
    pub largest_change: (f64, usize, usize),
}

/// Whether cell (`i`, `j`) is in the future of its row and has weight: it "sees the future".
pub fn sees_future(weights: &DMatrix<f64>, i: usize, j: usize) -> bool {
    j > i && weights[(i, j)] > 0.0
}

/// How many cells of `weights` see the future (the banner's count of hatched cells), and how
/// many of those have a weight under [`PRINTED_ZERO`], which the page prints as 0.0%.
pub fn future_cells(weights: &DMatrix<f64>) -> (usize, usize) {
    let (t, c) = weights.shape();
    (0..t)
        .flat_map(|i| (0..c).map(move |j| (i, j)))
        .filter(|&(i, j)| sees_future(weights, i, j))
        .fold((0, 0), |(seeing, tiny), (i, j)| {
            (
                seeing + 1,
                tiny + usize::from(weights[(i, j)] < PRINTED_ZERO),
            )
        })
}

/// Below this a weight prints as 0.0% (one decimal of a percentage).
pub const PRINTED_ZERO: f64 = 0.0005;

impl Damage {
    pub fn new(correct: &DMatrix<f64>, broken: &DMatrix<f64>) -> Self {
        let (t, c) = broken.shape();
        let rows = (0..t)
            .map(|i| {
                let good: Vec<f64> = correct.row(i).iter().copied().collect();
                let bad: Vec<f64> = broken.row(i).iter().copied().collect();
                let sum: f64 = bad.iter().sum();
                let rescaled = divided_by_sum(&bad);
                RowDamage {
                    sum,
                    correct_max: good.iter().copied().fold(0.0, f64::max),
                    broken_max: rescaled.iter().copied().fold(0.0, f64::max),
                    correct_entropy: row_entropy_bits(&good),
                    broken_entropy: row_entropy_bits(&rescaled),
                }
            })
            .collect();
        let future_cells: Vec<(usize, usize)> = (0..t)
            .flat_map(|i| (0..c).map(move |j| (i, j)))
            .filter(|&(i, j)| sees_future(broken, i, j))
            .collect();
        let future_weight = future_cells.iter().map(|&(i, j)| broken[(i, j)]).sum();
        let mut largest_change = (0.0, 0, 0);
        for i in 0..t {
            for j in 0..c {
                let change = (broken[(i, j)] - correct[(i, j)]).abs();
                if change > largest_change.0 {
                    largest_change = (change, i, j);
                }
            }
        }
        Self {
            rows,
            column_sums: broken.column_iter().map(|col| col.sum()).collect(),
            future_cells,
            future_weight,
            largest_change,
        }
    }

    /// Rows that no longer sum to 1, with their rows (from 0).
    pub fn rows_off(&self) -> impl Iterator<Item = (usize, &RowDamage)> {
        self.rows
            .iter()
            .enumerate()
            .filter(|(_, r)| !r.sums_to_one())
    }

    /// Mean of `f` over the rows.
    pub fn mean(&self, f: impl Fn(&RowDamage) -> f64) -> f64 {
        self.rows.iter().map(f).sum::<f64>() / self.rows.len().max(1) as f64
    }

    /// How many columns sum to 1 up to rounding.
    pub fn columns_summing_to_one(&self) -> usize {
        self.column_sums
            .iter()
            .filter(|s| (*s - 1.0).abs() <= ROUNDING_TOLERANCE)
            .count()
    }
}

#[cfg(test)]
mod tests;
