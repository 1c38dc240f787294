//! The explorer's own sentences: the heatmap's accessible names and tooltips, the row
//! inspector, the weights note, the positions help and the symbols list (the temperature's words
//! are in `temperature.rs`).

use super::{quote, top_keys_text};
use crate::format::{fixed, grouped, percent};
use crate::model::claims::top_keys;
use crate::model::explorer::WeightSource;
use crate::model::stats::row_stats;
use crate::model::train::tasks::GRAMMAR_WORDS;
use crate::model::url_state::MAX_SEED;
use nalgebra::DMatrix;

/// What stands in for a number while a practice question about it is open.
pub const NUMBERS_HIDDEN: &str = "Numbers are hidden until you check your answer.";
/// Under the practice page's download buttons while a question is open.
pub const DOWNLOADS_HIDDEN: &str = "The downloads wait too: each file holds the numbers the open practice question asks about. Check your answer to save them.";
/// Compare A and B's place on the practice page while a question is open (setting A is the
/// heatmap the question asks about).
pub const COMPARE_HIDDEN: &str = "A practice question is open (the page starts with one), and setting A is the heatmap it asks about, so the comparison waits: it shows once you check your answer.";

/// Under the sentence box: how long a sentence may be, `max_tokens` tokens.
pub fn sentence_help(max_tokens: usize) -> String {
    format!("Up to {max_tokens} tokens; punctuation becomes its own token.")
}

/// A seed that was not used: what a seed must be, and the seed `kept`.
pub fn seed_refused(kept: u64) -> String {
    format!("The seed must be a whole number from 0 to {MAX_SEED}; kept {kept}.")
}

/// The inspector's table: its caption, for `token` in 0-based `row`.
pub fn inspector_caption(token: &str, row: usize) -> String {
    format!("Attention weights of {} (row {})", quote(token), row + 1)
}

/// The heatmap's accessible name before any row is selected: what the `n` × `n` chart shows.
pub fn heatmap_label(title: &str, n: usize) -> String {
    format!(
        "{title}: {n} query tokens by {n} key tokens; colour shows attention weight, grey cells are the masked future."
    )
}

/// The tooltip's text for cell (`i`, `j`).
pub fn cell_description(tokens: &[String], weights: &DMatrix<f64>, i: usize, j: usize) -> String {
    let (q, k) = (&tokens[i], &tokens[j]);
    if j > i {
        format!("{q} → {k}: masked (future)")
    } else {
        format!("{q} → {k}: {}", percent(weights[(i, j)]))
    }
}

/// A sentence describing row `i`: its token and where it looks most.
pub fn row_summary(tokens: &[String], weights: &DMatrix<f64>, i: usize) -> String {
    let row: Vec<f64> = (0..=i).map(|j| weights[(i, j)]).collect();
    let stats = row_stats(&row);
    if i > 0 && stats.is_even() {
        return format!(
            "Row {} {} spreads its attention evenly: {} on each of its {} tokens.",
            i + 1,
            quote(&tokens[i]),
            percent(stats.max_weight),
            i + 1
        );
    }
    let (names, weight) = top_keys_text(tokens, &row);
    format!(
        "Row {} {} attends most to {names} ({weight}).",
        i + 1,
        quote(&tokens[i])
    )
}

/// The one line under the heatmap on narrow screens: row `i`'s top key with its weight (the row's
/// largest, as [`row_summary`] words it) and the row's entropy, as the inspector shows it.
pub fn row_glance(tokens: &[String], weights: &DMatrix<f64>, i: usize) -> String {
    let row: Vec<f64> = (0..=i).map(|j| weights[(i, j)]).collect();
    format!(
        "{} Entropy {}.",
        row_summary(tokens, weights, i),
        entropy_text(row_stats(&row).entropy_bits)
    )
}

/// The inspector's bar chart, for screen readers: row `i` with its visible weights `row`; every
/// key sharing the largest weight is named.
pub fn bar_chart_label(tokens: &[String], i: usize, row: &[f64]) -> String {
    let (names, weight) = top_keys_text(tokens, row);
    let bars = if top_keys(row).len() > 1 {
        "bars are"
    } else {
        "bar is"
    };
    format!(
        "Bar chart of the attention of {} (row {}) over every key token; the largest {bars} {names} at {weight}. The table below lists every value.",
        quote(&tokens[i]),
        i + 1
    )
}

/// A row's entropy, as the inspector shows it.
pub fn entropy_text(bits: f64) -> String {
    format!("{} bits", fixed(bits, 3))
}

/// A row's effective token count out of the `visible` tokens it may attend to.
pub fn effective_tokens_text(effective: f64, visible: usize) -> String {
    format!("{} of {}", fixed(effective, 2), visible)
}

/// What is real on this page and what is not, for the weights in use: random ones mean nothing,
/// trained ones were learned; either way the page computes attention itself, unless a Break it
/// mistake is on (`broken`), which the note then says instead. `seed`: the random weights' seed.
pub fn weights_note(weights: &WeightSource, seed: u64, broken: bool) -> String {
    let what = match weights.checkpoint() {
        None => format!(
            "Not trained: the word vectors and W_q, W_k, W_v and W_o are random (seed {seed}), so which word a row picks means nothing yet."
        ),
        Some(c) => {
            let cfg = c.model.config();
            format!(
                "Trained weights: the word vectors, W_q, W_k, W_v, W_o and the unembedding of a {}-layer, {}-head attention model that this app's own code trained for {} steps (seed {}) to predict the next word of sentences from a {}-word grammar, saved in f32. So these patterns were learned.",
                cfg.layers,
                cfg.heads,
                grouped(u64::from(c.steps)),
                c.seed,
                GRAMMAR_WORDS.len()
            )
        }
    };
    let how = if broken {
        "A Break it mistake is switched on, so what this view shows is not correct attention (the banner says which mistake)."
    } else {
        "The mechanism is real: every step from scores to weights to outputs is attention's own, computed here in 64-bit floating point."
    };
    format!("{what} {how}")
}

/// What the seed controls, under the seed field. `trained`: the trained model's heads, head size
/// and training seed, when the trained weights are in use (the seed then draws nothing the page
/// shows).
pub fn seed_help(trained: Option<(usize, usize, u64)>) -> String {
    match trained {
        Some((heads, d, training_seed)) => format!("The trained weights fix the model: {heads} heads of d = {d} and sinusoidal positions. The seed box keeps the random weights' seed for when you switch back; the trained model's own training seed is {training_seed}."),
        None => "The seed draws the word vectors and W_q, W_k, W_v and W_o (step 5's output projection); “New seed” redraws all of them.".to_string(),
    }
}

/// [`weights_note`] in one line, for the compact `?embed=1` view.
pub fn weights_note_short(weights: &WeightSource, seed: u64, broken: bool) -> String {
    let what = match weights.checkpoint() {
        None => format!("Not trained: random weights (seed {seed})"),
        Some(c) => format!(
            "Trained weights ({} steps on a tiny grammar)",
            grouped(u64::from(c.steps))
        ),
    };
    let how = if broken {
        "a Break it mistake is on: not correct attention"
    } else {
        "real attention, computed here"
    };
    format!("{what}; {how}.")
}

/// The help under the positions switch, for the current `tokens`: `repeated` is the first pair of
/// positions holding the same word once capitals are ignored (`model::claims::first_repeated_word`).
/// The claims about that pair (equal weights without positions, different with them) are tested
/// in `model::claims` and against the page.
pub fn positions_help(
    positions: bool,
    tokens: &[String],
    repeated: Option<(usize, usize)>,
) -> String {
    let pair = repeated.map(|(i, j)| {
        format!(
            "{} (token {}) and {} (token {})",
            quote(&tokens[i]),
            i + 1,
            quote(&tokens[j]),
            j + 1
        )
    });
    // Capitals are worth a word only when the two copies differ by them ("The" and "the").
    let capitals = repeated.is_some_and(|(i, j)| tokens[i] != tokens[j]);
    match (positions, pair) {
        (false, Some(pair)) if capitals => format!(
            "Without position codes a word's vector is the same wherever it stands, and this app's embedding ignores capitals (real tokenizers, the programs that cut text into tokens, keep them apart). So {pair} get identical keys and values, and every row that sees both gives them exactly the same weight."
        ),
        (false, Some(pair)) => format!(
            "Without position codes a word's vector is the same wherever it stands. So {pair}, the first word that repeats, get identical keys and values, and every row that sees both gives them exactly the same weight (as for any other repeated word)."
        ),
        (false, None) => "Without position codes a word's vector is the same wherever it stands (capitals are ignored), so a repeated word would get identical keys and the same weight in every row that sees both copies.".to_string(),
        (true, Some(pair)) => format!(
            "Each position adds its own sine–cosine pattern to the word's vector, so {pair} now get different keys, and a row that sees both can weigh them differently."
        ),
        (true, None) => "Each position adds its own sine–cosine pattern to the word's vector, so the same word at two places would get two different keys.".to_string(),
    }
}

/// The symbols the page uses, each with a one-line definition and this view's sizes: `tokens`
/// is T, `heads` splits `d_model` into heads of d (the "Symbols used here" glossary).
pub fn glossary(
    tokens: usize,
    d_model: usize,
    heads: usize,
    trained: bool,
) -> Vec<(&'static str, String)> {
    let heads = heads.max(1);
    let d = d_model / heads;
    let origin = if trained {
        "Trained here."
    } else {
        "Random here, drawn from the seed."
    };
    let example = softmax_example();
    vec![
        ("token", "one piece of the sentence: a word or a punctuation mark. Tokens are counted from 1, left to right.".to_string()),
        ("T", format!("the number of tokens in the sentence (here {tokens}); the heatmap is T × T.")),
        ("embedding", format!("a token's word vector: d_model numbers looked up for its word, the same wherever the word stands. {origin}")),
        ("position code", "d_model numbers built from sines and cosines of a token's place, added to its embedding when positions are on, so one word at two places gets two different vectors (step 6).".to_string()),
        ("X", "the T × d_model input to attention: one row per token, its embedding (plus its position code when positions are on).".to_string()),
        ("x", "one token's row of X.".to_string()),
        ("d_model", format!("how many numbers describe each token (here {d_model}).")),
        ("h", format!("the number of heads (here {heads}): attentions that run side by side on the same tokens, each with its own W_q, W_k, W_v (step 5).")),
        ("d", format!("the head size: d_model ÷ h (here {d_model} ÷ {heads} = {d}), the length of every query, key and value.")),
        ("W_q, W_k, W_v", format!("d_model × d matrices (here {d_model} × {d}, one set per head) that turn x into its query, key and value. {}", if trained { "Trained here (the grammar checkpoint)." } else { "Random here, not trained." })),
        ("Q, K, V", "T × d matrices: Q = X·W_q, K = X·W_k, V = X·W_v. Row t holds token t's query q (what it is looking for), key k (what it offers to be found by) and value v (what it hands over).".to_string()),
        ("scores", "q·k for every query and key (the matrix QKᵀ); before softmax they are divided by √d·τ.".to_string()),
        ("mask", "the causal mask: before the softmax, every score of a key after the query (key j later than query t: j > t, the future) is set to −∞, so its weight is exactly 0. Row t's output is what the model uses to predict token t + 1, so a row may see its own token but never the next one.".to_string()),
        ("softmax", format!("turns a row of scores s into weights that are positive and add up to 1: w_j = e^(s_j) ÷ Σ_k e^(s_k). For example, scores {example}: the largest score gets the most, and every key keeps some.")),
        ("τ", "the temperature, an extra divisor of the scores; τ = 1 is standard attention.".to_string()),
        ("A", "the T × T attention weights: softmax of each row of masked scores, so every row adds up to 1 (100 %). The head's output is A·V, T × d.".to_string()),
        ("concat", format!("the h heads' outputs A·V side by side: T × d_model (here {heads} × {d} = {d_model} columns).")),
        ("W_o", format!("the d_model × d_model output projection (here {d_model} × {d_model}) that mixes the concatenated heads: the layer's output is concat · W_o. {}", if trained { "Trained here." } else { "Random here, not trained." })),
        ("entropy (bits)", "−Σ w·log₂ w over a row's weights: 0 bits when one key gets everything, log₂ n bits when n keys share equally.".to_string()),
        ("effective tokens", "2^entropy: how many keys the row is spread over, as if evenly.".to_string()),
    ]
}

/// The glossary's softmax example, computed by the model's own softmax: "2, 1, 0 give weights
/// 0.665, 0.245, 0.090".
fn softmax_example() -> String {
    let scores = [2.0, 1.0, 0.0];
    let w = crate::model::broken::softmax_full_rows(&DMatrix::from_row_slice(1, 3, &scores));
    let listed = |xs: Vec<String>| xs.join(", ");
    format!(
        "{} give weights {}",
        listed(scores.iter().map(|s| fixed(*s, 0)).collect()),
        listed(w.iter().map(|x| fixed(*x, 3)).collect())
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::explorer::Prepared;
    use crate::model::tokenizer::tokenize;
    use crate::model::weights::DEFAULT_HEADS;

    /// The note under the heatmap names the trained checkpoint it shows, as the JSON does.
    #[test]
    fn the_page_says_which_weights_it_shows() {
        use crate::model::broken::Mistakes;
        use crate::model::explorer::DEFAULT_SENTENCE;
        use crate::model::export::view_json;
        use crate::model::train::page::checkpoint_file::decode;
        let checkpoint = decode(include_bytes!("../../assets/checkpoints/grammar.bin")).unwrap();
        let p =
            Prepared::from_checkpoint(tokenize(DEFAULT_SENTENCE), &std::sync::Arc::new(checkpoint))
                .unwrap();
        assert_eq!(
            weights_note(&p.weights, 1337, false),
            "Trained weights: the word vectors, W_q, W_k, W_v, W_o and the unembedding of a 1-layer, 2-head attention model that this app's own code trained for 1,000 steps (seed 1) to predict the next word of sentences from a 29-word grammar, saved in f32. So these patterns were learned. The mechanism is real: every step from scores to weights to outputs is attention's own, computed here in 64-bit floating point."
        );
        assert!(
            weights_note_short(&p.weights, 1337, false).starts_with("Trained weights (1,000 steps")
        );
        // With a Break it mistake on, no note calls what is shown attention.
        for broken in [false, true] {
            for note in [
                weights_note(&WeightSource::Random, 42, broken),
                weights_note(&p.weights, 1337, broken),
                weights_note_short(&WeightSource::Random, 42, broken),
                weights_note_short(&p.weights, 1337, broken),
            ] {
                assert_eq!(note.contains("not correct attention"), broken, "{note}");
                assert_eq!(note.contains("real"), !broken, "{note}");
            }
        }
        let json = view_json(
            DEFAULT_SENTENCE,
            &p,
            (1.0, Mistakes::NONE),
            &p.attend_all(1.0),
        );
        assert!(json.contains(
            "\"weights_source\": \"trained\",\n  \"checkpoint\": {\"task\": \"grammar\", \"seed\": 1, \"steps\": 1000}"
        ));
        // Shuffle the past rebuilds the model with the same trained weights.
        let s = crate::model::positions::shuffle_the_past(&p, 0, 1.0, 6, 3);
        let w = p.weights_all(1.0);
        for (j, b) in s.before.iter().enumerate() {
            assert_eq!(*b, w[0][(6, j)]);
        }
    }

    /// The seed's help names every matrix the seed draws, `W_o` included, and each one really
    /// changes with the seed (for random weights); with trained weights it says the seed is unused.
    #[test]
    fn the_seed_help_names_what_the_seed_draws() {
        use crate::model::weights::{Projections, D_MODEL};
        let help = seed_help(None);
        let (a, b) = (
            Projections::seeded(1, D_MODEL),
            Projections::seeded(2, D_MODEL),
        );
        for (name, differs) in [
            ("W_q", a.w_q != b.w_q),
            ("W_k", a.w_k != b.w_k),
            ("W_v", a.w_v != b.w_v),
            ("W_o", a.w_o != b.w_o),
        ] {
            assert!(help.contains(name), "{name}: {help}");
            assert!(differs, "{name} does not depend on the seed");
        }
        let trained = seed_help(Some((2, 16, 1)));
        assert!(trained.contains("2 heads of d = 16"), "{trained}");
        assert!(trained.ends_with("training seed is 1."), "{trained}");
    }

    /// The page as it opens: "The cat sat on the mat .", seed 1337, two heads of 16.
    fn default_model() -> Prepared {
        crate::model::explorer::default_view(DEFAULT_HEADS, false)
    }

    #[test]
    fn heatmap_text_for_the_default_view() {
        let p = default_model();
        let w = p.weights_all(1.0).swap_remove(0);
        let tokens = &p.config.tokens;
        assert_eq!(
            heatmap_label("Head 1 attention weights", 7),
            "Head 1 attention weights: 7 query tokens by 7 key tokens; colour shows attention weight, grey cells are the masked future."
        );
        assert_eq!(
            cell_description(tokens, &w, 1, 2),
            "cat → sat: masked (future)"
        );
        assert_eq!(cell_description(tokens, &w, 5, 1), "mat → cat: 5.7%");
        assert_eq!(cell_description(tokens, &w, 0, 0), "The → The: 100.0%");
        assert_eq!(
            row_summary(tokens, &w, 0),
            "Row 1 “The” attends most to “The” (100.0%)."
        );
        assert_eq!(
            row_summary(tokens, &w, 5),
            "Row 6 “mat” attends most to “sat” (35.5%)."
        );
        assert_eq!(
            row_summary(tokens, &w, 6),
            "Row 7 “.” attends most to “on” (59.1%)."
        );
        let hot = p.weights_all(1e4).swap_remove(0);
        assert_eq!(
            row_summary(tokens, &crate::model::attention::averaging_matrix(7), 3),
            "Row 4 “on” spreads its attention evenly: 25.0% on each of its 4 tokens."
        );
        // A hot row is not exactly even, so it names its (barely) largest weight.
        assert_eq!(
            row_summary(tokens, &hot, 3),
            "Row 4 “on” attends most to “sat” (25.0%)."
        );
    }

    #[test]
    fn row_glance_adds_the_rows_entropy() {
        let p = default_model();
        let w = p.weights_all(1.0).swap_remove(0);
        let tokens = &p.config.tokens;
        // The first token can attend only to itself: all its weight, zero bits.
        assert_eq!(
            row_glance(tokens, &w, 0),
            "Row 1 “The” attends most to “The” (100.0%). Entropy 0.000 bits."
        );
        // Row 6: −Σ w·log₂ w recomputed here from the matrix, not through row_stats.
        let bits: f64 = (0..6).map(|j| w[(5, j)]).map(|x| -x * x.log2()).sum();
        assert_eq!(
            row_glance(tokens, &w, 5),
            format!(
                "Row 6 “mat” attends most to “sat” (35.5%). Entropy {} bits.",
                fixed(bits, 3)
            )
        );
        // Uniform rows: log₂ of the row's length.
        assert_eq!(
            row_glance(tokens, &crate::model::attention::averaging_matrix(7), 3),
            "Row 4 “on” spreads its attention evenly: 25.0% on each of its 4 tokens. Entropy 2.000 bits."
        );
    }

    /// Tied top keys are all named: without positions "The" and "the" share a key, and at
    /// τ = 0.01 head 2's rows "the" and "." split their weight between them (a tie the page's review found).
    #[test]
    fn row_summaries_name_every_tied_top_key() {
        let p = default_model();
        let w = p.heads[1].weights(0.01);
        let tokens = &p.config.tokens;
        for i in [4, 6] {
            assert_eq!(w[(i, 0)], w[(i, 4)]);
            let said = row_summary(tokens, &w, i);
            assert!(
                said.contains("attends most to “The” and “the” (") && said.ends_with("% each)."),
                "{said}"
            );
            let row: Vec<f64> = (0..=i).map(|j| w[(i, j)]).collect();
            assert!(bar_chart_label(tokens, i, &row)
                .contains("the largest bars are “The” and “the” at "));
        }
    }

    #[test]
    fn positions_help_names_the_repeated_pair() {
        let p = default_model();
        let tokens = &p.config.tokens;
        let pair = crate::model::claims::first_repeated_word(tokens);
        assert!(positions_help(false, tokens, pair)
            .contains("So “The” (token 1) and “the” (token 5) get identical keys and values, and every row that sees both gives them exactly the same weight."));
        assert!(positions_help(true, tokens, pair)
            .contains("so “The” (token 1) and “the” (token 5) now get different keys"));
        let twice = tokenize("the dog saw the dog .");
        let said = positions_help(
            false,
            &twice,
            crate::model::claims::first_repeated_word(&twice),
        );
        assert!(
            said.starts_with("Without position codes a word's vector is the same wherever it stands. So “the” (token 1) and “the” (token 4), the first word that repeats, get identical keys"),
            "{said}"
        );
        assert!(!said.contains("capitals"));
        let plain = tokenize("a b c");
        assert!(positions_help(false, &plain, None)
            .contains("a repeated word would get identical keys"));
        assert!(weights_note(&WeightSource::Random, 42, false)
            .contains("are random (seed 42), so which word"));
        assert!(weights_note_short(&WeightSource::Random, 42, false)
            .contains("random weights (seed 42)"));
    }

    #[test]
    fn inspector_text_for_the_default_view() {
        let p = default_model();
        let w = p.weights_all(1.0).swap_remove(0);
        let row: Vec<f64> = (0..=5).map(|j| w[(5, j)]).collect();
        let s = row_stats(&row);
        let tokens = &p.config.tokens;
        assert_eq!(
            bar_chart_label(tokens, 5, &row),
            "Bar chart of the attention of “mat” (row 6) over every key token; the largest bar is “sat” at 35.5%. The table below lists every value."
        );
        assert_eq!(entropy_text(s.entropy_bits), "2.249 bits");
        assert_eq!(effective_tokens_text(s.effective_tokens, 6), "4.75 of 6");
    }

    #[test]
    fn the_glossary_defines_every_symbol_with_live_sizes() {
        let g = glossary(7, 32, 2, false);
        let symbols: Vec<&str> = g.iter().map(|(s, _)| *s).collect();
        for s in [
            "T",
            "X",
            "d_model",
            "d",
            "W_q, W_k, W_v",
            "Q, K, V",
            "A",
            "scores",
            "entropy (bits)",
            "effective tokens",
        ] {
            assert!(symbols.contains(&s), "{s} missing");
        }
        let def = |s: &str| g.iter().find(|(k, _)| *k == s).unwrap().1.clone();
        assert!(def("T").contains("here 7"));
        assert!(def("d").contains("32 ÷ 2 = 16"));
        assert!(def("h").contains("here 2"));
        assert!(def("W_q, W_k, W_v").contains("32 × 16"));
        let trained = glossary(7, 32, 2, true);
        assert!(trained
            .iter()
            .any(|(k, v)| *k == "W_q, W_k, W_v"
                && v.ends_with("Trained here (the grammar checkpoint).")));
        assert!(glossary(7, 32, 8, false)
            .iter()
            .any(|(k, v)| *k == "d" && v.contains("32 ÷ 8 = 4")));
        for s in ["h", "mask", "concat", "W_o"] {
            assert!(symbols.contains(&s), "{s} missing");
        }
        assert!(def("concat").contains("2 × 16 = 32"));
        // The softmax example is the model's softmax, and its weights add up to 1 as printed.
        assert!(
            def("softmax").contains("scores 2, 1, 0 give weights 0.665, 0.245, 0.090:"),
            "{}",
            def("softmax")
        );
        for s in ["token", "embedding", "position code", "softmax"] {
            assert!(symbols.contains(&s), "{s} missing");
        }
        assert!(def("mask").contains("key j later than query t"));
        assert!(def("W_o").contains("32 × 32"));
    }
}
