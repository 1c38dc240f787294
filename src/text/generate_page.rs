//! The generate page's sentences: the cache's check and cost, what the model's positions mean
//! for cached keys, the two temperatures (the question, its feedback, what τ changed), and the
//! measured curves' captions. Each sentence is built from the numbers it states.

use super::{count, format_tau_pair, quote};
use crate::format::{fixed, grouped, percent};
use crate::model::generate_page::link::Writer;
use crate::model::generate_page::run::LastRowWork;
use crate::model::generate_page::{HeatmapChanger, TauEffect};
use crate::model::train::generate::CacheCheck;
use crate::model::train::lab::generation::GrammarPoint;
use crate::model::train::shape::{PositionKind, TransformerConfig};

/// What the page is, under its heading: shown at once, before the model has loaded.
pub const GENERATE_INTRO: &str = "Each token ends in a prediction: the model turns the token's final vector (its input plus what every attention head added) into a score (a logit) for every word it knows, and a softmax turns the scores into probabilities for the next token. Writing text is that, over and over: choose a next token, append it, read one more row.";

/// Which model writes (`yours`: the learner's), once it has loaded, under the text it wrote.
pub fn generate_model_text(cfg: &TransformerConfig, writer: Writer) -> String {
    let whose = match writer {
        Writer::Shipped => "the tiny-grammar transformer that ships with the app, trained on the training page's tiny grammar",
        Writer::Yours => "the tiny-grammar model you trained on the training page, read from this browser",
    };
    format!(
        "The model writing here is {whose}: {} of {}, a vocabulary of {} tokens (words and “.”), {} tokens of context. It is attention only: each layer adds its heads' output to the token's vector, with no MLP block and no LayerNorm, which models like GPT have in every layer.",
        count(cfg.layers, "attention layer", "attention layers"),
        count(cfg.heads, "head", "heads"),
        cfg.vocab,
        cfg.max_len
    )
}

/// Under the page: where its numbers come from.
pub const GENERATE_FOOTER: &str = "Every number on this page is computed in your browser by the app's own code (written in Rust, compiled to WebAssembly), from the trained weights named above and the seeded draws; download the JSON to recompute the text anywhere.";

/// Beside the sampling temperature's slider.
pub const T_HINT: &str = "T divides the logits before their softmax: below 1 the likeliest word gets more of the probability, above 1 the rest get more. T = 0 is greedy: always the likeliest word, no draw. T never enters attention.";

/// Beside the attention temperature's slider.
pub const TAU_HINT: &str = "τ divides every attention score q·k/√d inside the layer, as the explorer's slider does. The model was trained at τ = 1, and a model is run at the scale it was trained with; other values change the weights of the rows that read more than one token, and so the predictions.";

/// Beside top-k.
pub const TOP_K_HINT: &str = "Only the k likeliest words can be drawn; their probabilities are scaled up to sum to 1. k = 1 is greedy; k = 29 keeps every token.";

/// Beside the seed.
pub const SEED_HINT: &str = "Each generated token draws one number u, uniform between 0 and 1, from this seed and which generated token it is (the first, the second, …), so the same seed and settings write the same text on every machine, and the link reproduces it.";

/// The heatmap's explanation.
pub const GROWING_HEATMAP: &str = "One row per token: row i is token i reading tokens 1 to i. Each generated token adds a row at the bottom: its query reading the keys kept in the cache. The rows above never change when a token is appended, because a row never reads the future. Click a row to see what it predicts.";

/// The question's prompt.
pub const TWO_T_QUESTION: &str = "This page has two temperatures, T and τ. Which of the two changes the heatmap of the text above, for the same tokens? Answer first: moving T can draw other tokens, so once you have answered, the page measures what τ does to these same tokens' weights.";

/// The question's choices, in [`HeatmapChanger::ALL`] order.
pub fn changer_label(choice: HeatmapChanger) -> &'static str {
    match choice {
        HeatmapChanger::Tau => "The attention temperature τ",
        HeatmapChanger::SamplingT => "The sampling temperature T",
        HeatmapChanger::Both => "Both",
        HeatmapChanger::Neither => "Neither",
    }
}

/// The feedback after an answer.
pub fn changer_feedback(choice: HeatmapChanger) -> String {
    let why = "τ divides the attention scores inside the layer, so it changes the weights of any row whose scores are not all equal, and through them the predictions. T divides only the logits after the last layer: for the same tokens it changes no weight at all. It changes which token is drawn next, and so which rows get added.";
    if choice.is_right() {
        format!("Right. {why}")
    } else {
        format!("Not quite: the answer is τ. {why}")
    }
}

/// What moving τ did to the text's weights, measured: the largest change of one weight.
pub fn tau_effect_text(effect: Option<TauEffect>, words: &[&str], (a, b): (f64, f64)) -> String {
    let (from, to) = format_tau_pair(a, b);
    let Some(e) = effect else {
        return format!(
            "With this text, moving τ from {from} to {to} changes no weight: a text of one token attends only to itself."
        );
    };
    format!(
        "Measured on this text: moving τ from {from} to {to} changes the weight of row {} ({}) on token {} ({}), layer {}, head {}, from {} to {}, the largest change of any weight. T is not part of the attention computation at all (it divides only the logits), so moving it changes none of them.",
        e.row + 1,
        quote(words[e.row]),
        e.key + 1,
        quote(words[e.key]),
        e.layer + 1,
        e.head + 1,
        percent(e.before),
        percent(e.after)
    )
}

/// The cache's check against one full pass, for the text shown.
pub fn cache_check_text(check: CacheCheck, len: usize) -> String {
    if check.differing == 0 {
        format!(
            "Checked on this text: all {} numbers the cache computed (every row's logits, probabilities and attention weights, and every cached key and value) are bit-identical to one full pass over the {} from scratch.",
            grouped(check.compared as u64),
            count(len, "token", "tokens")
        )
    } else {
        format!(
            "Checked on this text: {} of the {} numbers the cache computed differ from one full pass over the {}.",
            grouped(check.differing as u64),
            grouped(check.compared as u64),
            count(len, "token", "tokens")
        )
    }
}

/// The last row's cost with the cache, without it (a naive full pass), and without it but
/// recomputing only what the last row needs, for a model of `layers` layers.
pub fn multiplications_text(len: usize, work: LastRowWork, layers: usize) -> String {
    let times = |n: usize| fixed(n as f64 / work.with_cache as f64, 1);
    let minimal = if layers == 1 {
        "only the earlier tokens' keys and values, then the last row"
    } else {
        "every layer but the last in full, then only the last layer's keys and values of the earlier tokens"
    };
    format!(
        "Computing token {len}'s row: {} multiplications with the cache (its own q, k and v, one row of {} per head against the cached keys, the weighted values, W_o, the matrix that mixes the heads, and the unembedding), {} without it (a naive full pass: every token's row again, its projections, attention, W_o and unembedding, though only the last row's prediction is used), {}× as many. Without a cache but recomputing only what the last row needs ({minimal}), it is {}, {}× as many. Only the matrix products are counted, not the scaling, the softmax or the rotations.",
        grouped(work.with_cache as u64),
        count(len, "score", "scores"),
        grouped(work.full_pass as u64),
        times(work.full_pass),
        grouped(work.minimal_recompute as u64),
        times(work.minimal_recompute)
    )
}

/// Why the cached keys stay valid for this model's positions.
pub fn positions_text(positions: PositionKind) -> &'static str {
    match positions {
        PositionKind::Sinusoidal => "This model adds a sinusoidal position code (fixed sines and cosines of the token's place) to each token's input, before any projection: a token's key and value depend only on the token and its own place, so appending a token leaves every cached key valid.",
        PositionKind::Learned => "This model adds a learned position code to each token's input, before any projection: a token's key and value depend only on the token and its own place, so appending a token leaves every cached key valid.",
        PositionKind::Rotary => "This model rotates q and k by their own position (rotary positions): a key is rotated once, at its own place, so appending a token leaves every cached key valid.",
    }
}

/// What one layer's cache holds after `len` tokens.
pub fn cache_contents(layer: usize, len: usize, d_model: usize) -> String {
    format!(
        "Layer {}: K and V each hold {} of {d_model} numbers, one per token so far; the last row was added by token {len}.",
        layer + 1,
        count(len, "row", "rows")
    )
}

/// The cache's size after `len` tokens, and how it fills: the `prompt_len` prompt tokens at
/// once (the prefill), then a row a token; and which of the two token `len` was.
pub fn cache_size_text(layers: usize, len: usize, d_model: usize, prompt_len: usize) -> String {
    let this = if len <= prompt_len {
        format!("token {len} is a prompt token, so its row came with the prefill")
    } else {
        format!("token {len} was generated, so its row came from a decoding step")
    };
    format!(
        "In all the cache holds 2 × {layers} × {len} × {d_model} = {} numbers (K and V, per layer, per token, per dimension): it grows with the text, one row per layer for each token. Reading the {} (the prefill) fills it with their rows; each generated token after that (decoding) computes one new row and reads all the cached ones. Here {this}.",
        grouped((2 * layers * len * d_model) as u64),
        count(prompt_len, "prompt token", "prompt tokens")
    )
}

/// Beside the cache's strips: how to read them.
pub const KV_STRIP_LEGEND: &str = "Each strip is one row of K or V, one band per number: orange for positive, blue for negative, the stronger the colour the larger the number (one scale per matrix). The numbers themselves are in the table below.";
/// The curves' table caption.
pub const CURVES_CAPTION: &str = "Generations of the tiny-grammar model from “the” to the end of the context, at each temperature (the loss: the model as trained, τ = 1 and T = 1)";

/// The share's standard error in percentage points, to one decimal.
pub fn share_spread(point: &GrammarPoint) -> String {
    format!("{} points", fixed(100.0 * point.share_standard_error, 1))
}

/// Under the curves' table, for points of `generations` generations each: how to read a
/// difference between two shares, and a share of 100 %.
pub fn curves_spread(generations: usize) -> String {
    format!(
        "± is one standard error of the share from the seeds' sampling noise, each generation counted as one independent unit: two shares less than about two standard errors apart may differ only by chance. At T = 0 every seed writes the same text, so its share has no sampling noise. Where every sentence is grammatical the standard error is 0 too, but that is not certainty: no ungrammatical generation in {generations} still allows a rate of up to about 3 in {generations} ({}, the “rule of three”, a 95 % upper bound). The two curves share one point: T = 1 with τ = 1 is the same {generations} generations in both.",
        percent(3.0 / generations as f64)
    )
}

/// The chart's text alternative.
pub fn curves_label(name: &str, points: &[GrammarPoint]) -> String {
    let parts: Vec<String> = points
        .iter()
        .map(|p| {
            format!(
                "{name} = {}: {}",
                fixed(p.temperature, 2),
                percent(p.grammatical_share())
            )
        })
        .collect();
    format!(
        "Line chart of the grammatical share against {name}: {}.",
        parts.join("; ")
    )
}
