//! Which heads a forward pass knocks out, and what replaces each one's output ([`Ablation`]).
//!
//! Knocking out head h of layer l replaces its output `Z_h = A_h V_h` (T × d, d the head size)
//! before the heads are concatenated and multiplied by `W_o`:
//! - **zero-ablation** ([`AblationKind::Zero`]): every row of `Z_h` becomes 0, so the head adds
//!   nothing to the residual stream;
//! - **mean-ablation** ([`AblationKind::Mean`]): every row of `Z_h` becomes the head's **mean
//!   output row**, the mean of `Z_h[i]` over every position i of every held-out sequence of the
//!   run, measured on the intact model ([`HeadMeans`](super::ablation::HeadMeans)). The head then
//!   still adds its average contribution (its "bias"), but nothing that depends on the sequence.
//!   Every position counts once (row 0, which can only look at itself, included), so the mean is
//!   that of what the head writes, position by position, over the set the page scores on.
//!
//! The head's attention weights are still computed (and shown): only what it writes is replaced.
//! The forward pass reads an [`Ablation`] as its [`AfterHead`] hook; evaluating with one is
//! [`super::ablation`]'s.

use crate::model::train::transformer::AfterHead;

/// The most heads a layer has on the training page: a set of knocked-out heads fits in one
/// number, bit `layer · MASK_HEADS + head` ([`mask_of`], [`heads_of_mask`]), as the link keeps it.
pub const MASK_HEADS: usize = 4;

/// The bit set of `heads` (`(layer, head)`, from 0; heads past [`MASK_HEADS`] are left out).
pub fn mask_of(heads: &[(usize, usize)]) -> usize {
    heads
        .iter()
        .filter(|&&(l, h)| h < MASK_HEADS && l < 8)
        .fold(0, |m, &(l, h)| m | 1 << (l * MASK_HEADS + h))
}

/// The heads of a bit set, sorted by (layer, head).
pub fn heads_of_mask(mask: usize) -> Vec<(usize, usize)> {
    (0..usize::BITS as usize)
        .filter(|bit| mask >> bit & 1 == 1)
        .map(|bit| (bit / MASK_HEADS, bit % MASK_HEADS))
        .collect()
}

/// How a head is knocked out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AblationKind {
    /// Its output rows become 0.
    Zero,
    /// Its output rows become its mean output row on the held-out set.
    Mean,
}

impl AblationKind {
    /// Its name in the JSON download.
    pub fn key(self) -> &'static str {
        match self {
            Self::Zero => "zero",
            Self::Mean => "mean",
        }
    }
}

/// One knocked-out head: `layer` and `head` from 0, and the row that replaces each of its output
/// rows (head-size zeros, or its mean output row).
#[derive(Debug, Clone, PartialEq)]
pub struct KnockedOut {
    pub layer: usize,
    pub head: usize,
    pub kind: AblationKind,
    pub replacement: Vec<f64>,
}

/// A set of knocked-out heads, sorted by (layer, head), each at most once. The empty set (the
/// default) changes nothing: a forward pass with it is the plain forward pass, bit for bit.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Ablation {
    heads: Vec<KnockedOut>,
}

impl Ablation {
    /// No head knocked out.
    pub fn none() -> Self {
        Self::default()
    }

    /// From knocked-out heads in any order; refuses a head named twice or a replacement that is
    /// not `head_size` long, and checks every head against `(layers, heads, head_size)`.
    pub fn new(
        mut heads: Vec<KnockedOut>,
        (layers, heads_per_layer, head_size): (usize, usize, usize),
    ) -> Result<Self, String> {
        for k in &heads {
            if k.layer >= layers || k.head >= heads_per_layer {
                return Err(format!(
                    "layer {} head {}: the model has {layers} layers of {heads_per_layer} heads",
                    k.layer + 1,
                    k.head + 1
                ));
            }
            if k.replacement.len() != head_size {
                return Err(format!(
                    "layer {} head {}: a replacement of {} values for a head of size {head_size}",
                    k.layer + 1,
                    k.head + 1,
                    k.replacement.len()
                ));
            }
        }
        // In (layer, head) order: the model's heads in turn, each taken at most once. (A model
        // has a few dozen heads at most, so walking them all is cheap.)
        let mut ordered = Vec::with_capacity(heads.len());
        for layer in 0..layers {
            for head in 0..heads_per_layer {
                let is_this = |k: &KnockedOut| (k.layer, k.head) == (layer, head);
                if let Some(i) = heads.iter().position(is_this) {
                    ordered.push(heads.swap_remove(i));
                    if heads.iter().any(is_this) {
                        return Err(format!(
                            "layer {} head {} is named twice",
                            layer + 1,
                            head + 1
                        ));
                    }
                }
            }
        }
        Ok(Self { heads: ordered })
    }

    /// Zero-ablation of `heads` (`(layer, head)`, from 0) of a model of that shape.
    pub fn zero(heads: &[(usize, usize)], shape: (usize, usize, usize)) -> Result<Self, String> {
        let knocked = heads
            .iter()
            .map(|&(layer, head)| KnockedOut {
                layer,
                head,
                kind: AblationKind::Zero,
                replacement: vec![0.0; shape.2],
            })
            .collect();
        Self::new(knocked, shape)
    }

    pub fn is_empty(&self) -> bool {
        self.heads.is_empty()
    }

    /// The knocked-out heads, sorted by (layer, head).
    pub fn heads(&self) -> &[KnockedOut] {
        &self.heads
    }

    /// The row replacing each output row of head `head` of layer `layer`, if it is knocked out.
    pub fn replacement(&self, layer: usize, head: usize) -> Option<&[f64]> {
        self.heads
            .iter()
            .find(|k| k.layer == layer && k.head == head)
            .map(|k| k.replacement.as_slice())
    }

    /// Whether every head of `layer` is knocked out by zero-ablation (that layer then passes the
    /// residual stream through unchanged).
    pub fn zeroes_layer(&self, layer: usize, heads_per_layer: usize) -> bool {
        (0..heads_per_layer).all(|h| {
            self.heads
                .iter()
                .any(|k| (k.layer, k.head, k.kind) == (layer, h, AblationKind::Zero))
        })
    }
}

/// The forward pass replaces each knocked-out head's output rows with its replacement row.
impl AfterHead for Ablation {
    fn replacement(&self, layer: usize, head: usize) -> Option<&[f64]> {
        Ablation::replacement(self, layer, head)
    }

    fn replaces_any(&self) -> bool {
        !self.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_are_sorted_checked_and_found() {
        let shape = (2, 2, 4);
        let a = Ablation::zero(&[(1, 0), (0, 1)], shape).unwrap();
        let order: Vec<(usize, usize)> = a.heads().iter().map(|k| (k.layer, k.head)).collect();
        assert_eq!(order, vec![(0, 1), (1, 0)]);
        assert_eq!(a.replacement(0, 1), Some(&[0.0; 4][..]));
        assert_eq!(a.replacement(0, 0), None);
        assert!(!a.is_empty() && Ablation::none().is_empty());
        assert!(Ablation::zero(&[(2, 0)], shape).is_err());
        assert!(Ablation::zero(&[(0, 2)], shape).is_err());
        assert!(Ablation::zero(&[(0, 1), (0, 1)], shape).is_err());
        let short = KnockedOut {
            layer: 0,
            head: 0,
            kind: AblationKind::Mean,
            replacement: vec![1.0; 3],
        };
        assert!(Ablation::new(vec![short], shape).is_err());
        assert!(Ablation::zero(&[(1, 0), (1, 1)], shape)
            .unwrap()
            .zeroes_layer(1, 2));
        assert!(!a.zeroes_layer(1, 2));
        assert_eq!(AblationKind::Mean.key(), "mean");
    }

    #[test]
    fn a_set_of_heads_is_one_number() {
        let heads = vec![(0, 1), (1, 0), (1, 3)];
        let mask = mask_of(&heads);
        assert_eq!(mask, 0b1001_0010);
        assert_eq!(heads_of_mask(mask), heads);
        assert_eq!(heads_of_mask(0), Vec::<(usize, usize)>::new());
        assert_eq!(mask_of(&[(0, 4)]), 0);
    }
}
