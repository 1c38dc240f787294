//! The generate page's numbers: its link ([`link`]), the generation it shows ([`run`]), and the
//! two temperatures side by side (below): what the attention temperature τ changes in the
//! heatmap, and the graded question that asks it first.

pub mod link;
pub mod run;

use crate::model::next_token::next_token_rows;
use crate::model::train::transformer::Transformer;

/// The answers to "which of the two temperatures changes the heatmap?".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeatmapChanger {
    Tau,
    SamplingT,
    Both,
    Neither,
}

impl HeatmapChanger {
    pub const ALL: [Self; 4] = [Self::Tau, Self::SamplingT, Self::Both, Self::Neither];

    /// Whether this is the answer: τ divides the scores inside attention, so it changes every
    /// weight; T acts only on the logits after the last layer, so for the same tokens it changes
    /// no weight (it changes which token comes next, and so the rows that token adds).
    pub fn is_right(self) -> bool {
        self == Self::Tau
    }
}

/// The largest change of one attention weight between two attention temperatures, over every
/// layer, head, row and key of `tokens`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TauEffect {
    pub layer: usize,
    pub head: usize,
    pub row: usize,
    pub key: usize,
    /// The weight at the first τ and at the second.
    pub before: f64,
    pub after: f64,
}

/// Where moving τ from `tau_a` to `tau_b` changes a weight of `tokens` the most (the first such
/// place in layer, head, row, key order); `None` when no weight changes (one token, or equal τ).
pub fn tau_effect(
    model: &Transformer,
    tokens: &[usize],
    tau_a: f64,
    tau_b: f64,
) -> Option<TauEffect> {
    let a = next_token_rows(model, tokens, tau_a).ok()?;
    let b = next_token_rows(model, tokens, tau_b).ok()?;
    let mut best: Option<(f64, TauEffect)> = None;
    for (row, (ra, rb)) in a.iter().zip(&b).enumerate() {
        for (layer, (la, lb)) in ra.attention.iter().zip(&rb.attention).enumerate() {
            for (head, (ha, hb)) in la.iter().zip(lb).enumerate() {
                for (key, (&wa, &wb)) in ha.iter().zip(hb).enumerate() {
                    let change = (wa - wb).abs();
                    if change > 0.0 && best.is_none_or(|(c, _)| change > c) {
                        let effect = TauEffect {
                            layer,
                            head,
                            row,
                            key,
                            before: wa,
                            after: wb,
                        };
                        best = Some((change, effect));
                    }
                }
            }
        }
    }
    best.map(|(_, e)| e)
}
