//! The downloads: a JSON document that lets anyone recompute the view, and a CSV of the weights.
//!
//! JSON is written by hand (a few nested arrays) rather than through serde: the bundle stays small
//! and the number format is under our control. Rust's `{}` for `f64` prints the shortest string that
//! parses back to the same number, so `NumPy` reads back exactly the values the page used.

use super::attention::{HeadAttention, LayerOutput};
use super::broken::Mistakes;
use super::explorer::Prepared;
use nalgebra::DMatrix;
use std::fmt::Write;

pub(crate) fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

pub(crate) fn json_number(out: &mut String, x: f64) {
    if x.is_finite() {
        let _ = write!(out, "{x}");
    } else {
        // Not reachable from the model (everything is finite); JSON has no NaN, so say so plainly.
        out.push_str("null");
    }
}

pub(crate) fn json_matrix(out: &mut String, m: &DMatrix<f64>) {
    out.push('[');
    for i in 0..m.nrows() {
        if i > 0 {
            out.push(',');
        }
        out.push('[');
        for j in 0..m.ncols() {
            if j > 0 {
                out.push(',');
            }
            json_number(out, m[(i, j)]);
        }
        out.push(']');
    }
    out.push(']');
}

/// The JSON document described in docs/formats.md. `attention` holds the weights the
/// page shows: with the `broken` mistakes made, if any (listed in `broken`).
pub fn view_json(
    sentence: &str,
    prepared: &Prepared,
    (tau, broken): (f64, Mistakes),
    attention: &[HeadAttention],
) -> String {
    let mut out = String::with_capacity(64 * 1024);
    out.push_str("{\n  \"sentence\": ");
    json_string(&mut out, sentence);
    out.push_str(",\n  \"tokens\": [");
    for (i, t) in prepared.config.tokens.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        json_string(&mut out, t);
    }
    let _ = write!(
        out,
        "],\n  \"seed\": {},\n  \"d_model\": {},\n  \"head_size\": {},\n  \"n_heads\": {},\n  \"positions\": {},\n  \"temperature\": ",
        prepared.config.seed,
        prepared.d_model,
        prepared.head_size(),
        prepared.heads.len(),
        prepared.config.positions
    );
    json_number(&mut out, tau);
    // Which weights: random (from `seed`) or a trained checkpoint (`model::trained`).
    match prepared.weights.checkpoint() {
        None => out.push_str(",\n  \"weights_source\": \"random\""),
        Some(c) => {
            let _ = write!(
                out,
                ",\n  \"weights_source\": \"trained\",\n  \"checkpoint\": {{\"task\": \"{}\", \"seed\": {}, \"steps\": {}}}",
                c.task.file_name().trim_end_matches(".bin"),
                c.seed,
                c.steps
            );
        }
    }
    out.push_str(",\n  \"broken\": [");
    for (i, m) in broken.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        json_string(&mut out, m.key());
    }
    out.push_str("],\n  \"embeddings\": ");
    json_matrix(&mut out, &prepared.x);
    out.push_str(",\n  \"heads\": [");
    for (h, (proj, att)) in prepared.heads.iter().zip(attention).enumerate() {
        let (w_q, w_k, w_v) = prepared.projections.head_columns(prepared.heads.len(), h);
        out.push_str(if h == 0 { "\n    {" } else { ",\n    {" });
        for (name, m) in [
            ("w_q", &w_q),
            ("w_k", &w_k),
            ("w_v", &w_v),
            ("scores", &proj.scores),
            ("weights", &att.weights),
            ("output", &att.output),
        ] {
            let _ = write!(out, "\"{name}\": ");
            json_matrix(&mut out, m);
            if name != "output" {
                out.push_str(", ");
            }
        }
        out.push('}');
    }
    let outputs: Vec<&DMatrix<f64>> = attention.iter().map(|a| &a.output).collect();
    let layer = LayerOutput::new(&outputs, &prepared.projections.w_o);
    out.push_str("\n  ],\n  \"w_o\": ");
    json_matrix(&mut out, &prepared.projections.w_o);
    out.push_str(",\n  \"concat\": ");
    json_matrix(&mut out, &layer.concat);
    out.push_str(",\n  \"output\": ");
    json_matrix(&mut out, &layer.output);
    out.push_str("\n}\n");
    out
}

pub(crate) fn csv_field(out: &mut String, s: &str) {
    // Quote every token: tokens may be commas or quotes. A leading =, +, - or @ would be read as a
    // formula by spreadsheets, so such a token gets a leading apostrophe.
    out.push('"');
    if s.starts_with(['=', '+', '-', '@']) {
        out.push('\'');
    }
    out.push_str(&s.replace('"', "\"\""));
    out.push('"');
}

/// One head's weights as CSV: a header row of key tokens, then one row per query token.
/// Masked (future) cells are empty, so they cannot be mistaken for a weight of 0; a future cell
/// that a "Break it" mistake gave weight is written like any other.
pub fn weights_csv(tokens: &[String], weights: &DMatrix<f64>) -> String {
    let mut out = String::from("\"query \\ key\"");
    for t in tokens {
        out.push(',');
        csv_field(&mut out, t);
    }
    out.push('\n');
    for (i, t) in tokens.iter().enumerate() {
        csv_field(&mut out, t);
        for j in 0..tokens.len() {
            out.push(',');
            if j <= i || weights[(i, j)] != 0.0 {
                let _ = write!(out, "{}", weights[(i, j)]);
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::explorer::ExplorerConfig;
    use crate::model::tokenizer::tokenize;

    #[test]
    fn json_has_every_field_and_escapes_text() {
        let sentence = "a \"b\" \\ c\n";
        let p = Prepared::new(ExplorerConfig {
            tokens: tokenize(sentence),
            seed: 5,
            heads: 2,
            positions: false,
        });
        let json = view_json(sentence, &p, (0.5, Mistakes::NONE), &p.attend_all(0.5));
        for key in [
            "sentence",
            "tokens",
            "seed",
            "d_model",
            "head_size",
            "temperature",
            "weights_source",
            "embeddings",
            "heads",
        ] {
            assert!(json.contains(&format!("\"{key}\": ")), "{key}");
        }
        for key in ["w_q", "w_k", "w_v", "scores", "weights"] {
            assert_eq!(json.matches(&format!("\"{key}\": ")).count(), 2, "{key}");
        }
        // One `output` per head, and the layer's at the top level.
        assert_eq!(json.matches("\"output\": ").count(), 3);
        for key in ["w_o", "concat"] {
            assert_eq!(json.matches(&format!("\"{key}\": ")).count(), 1, "{key}");
        }
        assert!(json.contains("],\n  \"w_o\": [["));
        assert!(json.contains("]],\n  \"concat\": [["));
        assert!(json.contains("]],\n  \"output\": [["));
        assert!(json.ends_with("]]\n}\n"));
        assert!(json.contains("\"weights_source\": \"random\""));
        assert!(json.contains(r#""sentence": "a \"b\" \\ c\n""#));
        assert!(json.contains("\"temperature\": 0.5"));
        assert!(json.contains("\"broken\": [],"));
    }

    #[test]
    fn json_lists_the_mistakes_and_holds_their_weights() {
        use crate::model::broken::{broken_attention, Mistake};
        let p = crate::model::explorer::default_view(2, false);
        let set: Mistakes = [Mistake::WrongTriangle, Mistake::Dropout]
            .into_iter()
            .collect();
        let att = broken_attention(&p, set, 1.0);
        let json = view_json("x", &p, (1.0, set), &att);
        assert!(
            json.contains("\"broken\": [\"triu\", \"dropout\"],"),
            "{json:.300}"
        );
        // The future has weight now, and the file holds exactly those numbers.
        let future = (1..7)
            .map(|j| att[1].weights[(0, j)])
            .find(|&w| w > 0.0)
            .unwrap();
        assert!(json.contains(&format!(",{future}")));
    }

    /// The rows of the top-level matrix `key` in `json`, parsed back (the writer's format: one
    /// `[[…],[…]]` on the key's line).
    fn top_level_matrix(json: &str, key: &str) -> Vec<Vec<f64>> {
        let line = json
            .lines()
            .find(|l| l.starts_with(&format!("  \"{key}\": ")))
            .unwrap();
        let body = line.split_once(": [[").unwrap().1;
        let body = body.trim_end_matches(',').trim_end_matches("]]");
        body.split("],[")
            .map(|r| r.split(',').map(|x| x.parse().unwrap()).collect())
            .collect()
    }

    #[test]
    fn json_has_the_layer_output() {
        let sentence = "The cat sat on the mat .";
        for heads in [1, 2, 4, 8] {
            let p = Prepared::new(ExplorerConfig {
                tokens: tokenize(sentence),
                seed: 1337,
                heads,
                positions: true,
            });
            let att = p.attend_all(0.7);
            let json = view_json(sentence, &p, (0.7, Mistakes::NONE), &att);
            let w_o = top_level_matrix(&json, "w_o");
            let concat = top_level_matrix(&json, "concat");
            let output = top_level_matrix(&json, "output");
            assert_eq!((w_o.len(), w_o[0].len()), (32, 32));
            assert_eq!((concat.len(), concat[0].len()), (7, 32));
            assert_eq!((output.len(), output[0].len()), (7, 32));
            for (r, row) in w_o.iter().enumerate() {
                for (c, x) in row.iter().enumerate() {
                    assert_eq!(*x, p.projections.w_o[(r, c)]);
                }
            }
            let d = 32 / heads;
            for i in 0..7 {
                for c in 0..32 {
                    assert_eq!(concat[i][c], att[c / d].output[(i, c % d)]);
                    let by_hand: f64 = (0..32).map(|m| concat[i][m] * w_o[m][c]).sum();
                    assert!((output[i][c] - by_hand).abs() < 1e-12);
                }
            }
        }
    }

    #[test]
    fn numbers_round_trip_exactly() {
        let mut out = String::new();
        for x in [0.1 + 0.2, 1e-300, -123.456e7, std::f64::consts::PI] {
            out.clear();
            json_number(&mut out, x);
            assert_eq!(out.parse::<f64>().unwrap(), x);
        }
    }

    #[test]
    fn csv_quotes_tokens_and_blanks_the_future() {
        let tokens: Vec<String> = ["a", ",", "=1"]
            .iter()
            .map(std::string::ToString::to_string)
            .collect();
        let w = DMatrix::from_row_slice(3, 3, &[1.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.25, 0.25, 0.5]);
        let csv = weights_csv(&tokens, &w);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "\"query \\ key\",\"a\",\",\",\"'=1\"");
        assert_eq!(lines[1], "\"a\",1,,");
        assert_eq!(lines[3], "\"'=1\",0.25,0.25,0.5");
        let mut seeing = w.clone();
        seeing[(0, 2)] = 0.5;
        assert_eq!(
            weights_csv(&tokens, &seeing).lines().nth(1),
            Some("\"a\",1,,0.5")
        );
    }
}
