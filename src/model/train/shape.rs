//! The shape of a model: how it knows positions ([`PositionKind`]), its size
//! ([`TransformerConfig`]), and where each named block of parameters lies in its one flat vector
//! ([`ParamGroup`], [`GroupSpan`]).

/// How the model knows where a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PositionKind {
    /// The fixed sine–cosine code of [`sinusoidal_positions`](crate::model::weights::sinusoidal_positions), added to the embeddings.
    Sinusoidal,
    /// A trained `max_len × d_model` table, added to the embeddings.
    Learned,
    /// Rotary position embedding (`RoPE`): nothing is added to the embeddings; instead, in every
    /// head, the pair of query (and key) components `(2i, 2i+1)` of row t is rotated by the angle
    /// `t · θ_i` with `θ_i = 10000^(−2i/d)`, so `q_t · k_s` depends on the offset `t − s` only.
    Rotary,
}

impl PositionKind {
    pub const ALL: [Self; 3] = [Self::Sinusoidal, Self::Learned, Self::Rotary];

    /// The name used in links and labels.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sinusoidal => "sinusoidal",
            Self::Learned => "learned",
            Self::Rotary => "rotary",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|kind| kind.name() == name)
    }
}

/// The shape of a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransformerConfig {
    pub vocab: usize,
    pub d_model: usize,
    pub layers: usize,
    pub heads: usize,
    /// The longest sequence the model accepts (the rows of a learned position table).
    pub max_len: usize,
    pub positions: PositionKind,
}

impl TransformerConfig {
    /// The repeat task's reference default: vocab 32, `d_model` 32, 2 layers of 2
    /// heads, rotary positions, sequences of 16.
    pub const REFERENCE: Self = Self {
        vocab: 32,
        d_model: 32,
        layers: 2,
        heads: 2,
        max_len: 16,
        positions: PositionKind::Rotary,
    };

    pub fn head_size(&self) -> usize {
        self.d_model / self.heads.max(1)
    }

    /// Why this shape cannot be built, if it cannot.
    pub fn check(&self) -> Result<(), String> {
        if self.vocab == 0 || self.d_model == 0 || self.max_len == 0 {
            return Err("vocab, d_model and max_len must be positive".into());
        }
        if !(1..=2).contains(&self.layers) {
            return Err(format!("{} layers: 1 or 2 are supported", self.layers));
        }
        if ![1, 2, 4].contains(&self.heads) || self.d_model % self.heads != 0 {
            return Err(format!(
                "{} heads: 1, 2 or 4 heads that divide d_model = {}",
                self.heads, self.d_model
            ));
        }
        if self.positions == PositionKind::Rotary && self.head_size() % 2 != 0 {
            return Err("rotary positions need an even head size".into());
        }
        Ok(())
    }

    /// Where each parameter group lives in the flat parameter vector, in a fixed order:
    /// token embedding, learned positions (if any), then per layer `W_q`, `W_k`, `W_v`, `W_o`, then
    /// the unembedding. Every group is stored row-major.
    pub fn layout(&self) -> Vec<GroupSpan> {
        let d = self.d_model;
        let mut spans = Vec::new();
        let mut start = 0;
        let mut push = |group, rows: usize, cols: usize| {
            spans.push(GroupSpan {
                group,
                start,
                rows,
                cols,
            });
            start += rows * cols;
        };
        push(ParamGroup::TokenEmbedding, self.vocab, d);
        if self.positions == PositionKind::Learned {
            push(ParamGroup::Positions, self.max_len, d);
        }
        for layer in 0..self.layers {
            push(ParamGroup::Query(layer), d, d);
            push(ParamGroup::Key(layer), d, d);
            push(ParamGroup::Value(layer), d, d);
            push(ParamGroup::Output(layer), d, d);
        }
        push(ParamGroup::Unembedding, d, self.vocab);
        spans
    }

    pub fn parameter_count(&self) -> usize {
        self.layout().iter().map(GroupSpan::len).sum()
    }

    /// Multiply–adds ×2 of one forward pass over a sequence of `t` tokens, counting the products
    /// only (projections, `QKᵀ` and `A·V` over the full T × T square, `W_o`, the unembedding),
    /// the usual convention; softmaxes, rotations and additions are a few per cent more.
    pub fn forward_flops(&self, t: usize) -> usize {
        let (d, v) = (self.d_model, self.vocab);
        let per_layer = 2 * t * d * d * 4 + 2 * t * t * d * 2;
        self.layers * per_layer + 2 * t * d * v
    }

    /// FLOP of one training step on `batch` sequences of `t` tokens: the backward pass does two
    /// products for every forward one, so 3 × forward.
    pub fn step_flops(&self, batch: usize, t: usize) -> usize {
        3 * batch * self.forward_flops(t)
    }
}

/// A named block of parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamGroup {
    TokenEmbedding,
    Positions,
    Query(usize),
    Key(usize),
    Value(usize),
    Output(usize),
    Unembedding,
}

impl ParamGroup {
    /// A readable name, layers counted from 1: `"layer 2 W_k"`.
    pub fn label(self) -> String {
        match self {
            Self::TokenEmbedding => "token embedding".into(),
            Self::Positions => "learned positions".into(),
            Self::Query(l) => format!("layer {} W_q", l + 1),
            Self::Key(l) => format!("layer {} W_k", l + 1),
            Self::Value(l) => format!("layer {} W_v", l + 1),
            Self::Output(l) => format!("layer {} W_o", l + 1),
            Self::Unembedding => "unembedding".into(),
        }
    }
}

/// One group's place in the flat vector: `rows × cols` values from `start`, row-major.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupSpan {
    pub group: ParamGroup,
    pub start: usize,
    pub rows: usize,
    pub cols: usize,
}

impl GroupSpan {
    pub fn len(&self) -> usize {
        self.rows * self.cols
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn range(&self) -> std::ops::Range<usize> {
        self.start..self.start + self.len()
    }
}
