//! The training page's download: the model the page shows (the latest evaluation, or the
//! checkpoint the replay slider chose) as JSON, with everything needed to recompute that view
//! elsewhere (`e2e/check_train_json.py` does it in NumPy):
//! - the run (`task`, `seed`, `lr`, `batch`, `step`) and the model's shape (`model`);
//! - every trained matrix (`groups`, named as [`ParamGroup::label`], row-major like the page);
//! - the held-out sequences the scores average over (`held_out`, with each repeat's place);
//! - every head's weights on held-out sequence 1 (`attention[layer][head]`: the head grid);
//! - the evaluation (`eval`: held-out losses and every head's scores: the loss table's row and
//!   the detector table).
//!
//! The training page's lab adds, only when they apply (a plain run's file is unchanged):
//! - `mistake`: the run's training mistake ([`TrainingMistake::key`]). `attention` and `eval`
//!   are then the mistaken pass's (as the run trains), and `eval.as_used` holds the same
//!   evaluation with correct causal attention (losses and scores);
//! - `ablation`: the heads knocked out (`heads`: `layer` and `head` counted from 1 as the page
//!   names them, `kind` `"zero"` or `"mean"`, and `mean`, the replacement row of a mean-ablated
//!   head, else `null`), with the evaluation (`eval`, the same fields as the top-level one) and
//!   the head grid of held-out sequence 1 (`attention`) computed with those heads knocked out.
//!
//! Written by hand like the explorer's download (`model::export`): Rust's `{}` prints the shortest
//! string that reads back as the same f64, so `NumPy` starts from exactly the page's numbers.
//!
//! [`ParamGroup::label`]: crate::model::train::shape::ParamGroup::label
//! [`TrainingMistake::key`]: crate::model::train::lab::mistakes::TrainingMistake::key

use super::stepping::Snapshot;
use crate::model::export::{json_matrix, json_number, json_string};
use crate::model::train::lab::ablation::AblatedEval;
use crate::model::train::lab::detectors::HeadScores;
use crate::model::train::lab::evaluation::EvalPoint;
use crate::model::train::lab::knockout::AblationKind;
use crate::model::train::lab::run_config::TrainConfig;
use crate::model::train::shape::TransformerConfig;
use crate::model::train::tasks::{Sequence, Task, GRAMMAR_WORDS};
use nalgebra::DMatrix;
use std::fmt::Write;

/// The task's name in the file.
fn task_key(task: &Task) -> &'static str {
    match task {
        Task::Repeat(_) => "repeat",
        Task::Grammar(_) => "grammar",
    }
}

fn optional_number(out: &mut String, x: Option<f64>) {
    match x {
        Some(x) => json_number(out, x),
        None => out.push_str("null"),
    }
}

fn scores_json(out: &mut String, s: &HeadScores) {
    out.push_str("{\"previous_token\": ");
    json_number(out, s.previous_token);
    out.push_str(", \"induction\": ");
    optional_number(out, s.induction);
    out.push_str(", \"first_token\": ");
    json_number(out, s.first_token);
    out.push_str(", \"self\": ");
    json_number(out, s.self_token);
    out.push_str(", \"entropy_bits\": ");
    json_number(out, s.entropy_bits);
    out.push('}');
}

/// `items` as a JSON list, each written by `item`, separated by `sep`.
fn list<T>(out: &mut String, items: &[T], sep: &str, mut item: impl FnMut(&mut String, &T)) {
    out.push('[');
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        item(out, x);
    }
    out.push(']');
}

/// The evaluation's losses and scores: `{"loss": …, "first_copy_loss": …, "repeated_loss": …,
/// "heads": …}`, and `"as_used"` (the same, with correct attention) after a training mistake.
fn eval_json(out: &mut String, eval: &EvalPoint) {
    out.push_str("{\"loss\": ");
    json_number(out, eval.loss);
    out.push_str(", \"first_copy_loss\": ");
    optional_number(out, eval.first_copy_loss);
    out.push_str(", \"repeated_loss\": ");
    optional_number(out, eval.repeated_loss);
    out.push_str(",\n    \"heads\": ");
    list(out, &eval.heads, ",\n      ", |o, layer| {
        list(o, layer, ", ", scores_json);
    });
    if let Some(used) = &eval.used {
        out.push_str(",\n    \"as_used\": ");
        eval_json(out, used);
    }
    out.push('}');
}

/// A model's shape as the downloads write it: `{"vocab": …, "d_model": …, "layers": …, "heads": …,
/// "head_size": …, "max_len": …, "positions": "…"}` (the training page's `model`, and the
/// generation download's).
pub(crate) fn shape_json(m: &TransformerConfig) -> String {
    format!(
        "{{\"vocab\": {}, \"d_model\": {}, \"layers\": {}, \"heads\": {}, \"head_size\": {}, \"max_len\": {}, \"positions\": \"{}\"}}",
        m.vocab,
        m.d_model,
        m.layers,
        m.heads,
        m.head_size(),
        m.max_len,
        m.positions.name()
    )
}

/// Every trained matrix of a model of shape `model` with parameters `params`, in layout order:
/// `[{"name": label, "rows": r, "cols": c, "values": [[…], …]}, …]`, row-major, one group a line
/// (the training page's `groups`, and the generation download's: one writer, one format).
pub(crate) fn groups_json(out: &mut String, model: &TransformerConfig, params: &[f64]) {
    list(out, &model.layout(), ",\n    ", |o, span| {
        o.push_str("{\"name\": ");
        json_string(o, &span.group.label());
        let _ = write!(
            o,
            ", \"rows\": {}, \"cols\": {}, \"values\": ",
            span.rows, span.cols
        );
        let values = &params[span.range()];
        json_matrix(o, &DMatrix::from_row_slice(span.rows, span.cols, values));
        o.push('}');
    });
}

/// The JSON document for `snapshot` of a run with `config` (see the module documentation);
/// `attention` is `snapshot`'s model on `held_out[0]`, `[layer][head]`.
pub fn run_json(
    config: &TrainConfig,
    snapshot: &Snapshot,
    held_out: &[Sequence],
    attention: &[Vec<DMatrix<f64>>],
) -> String {
    lab_json(config, snapshot, held_out, attention, None)
}

/// [`run_json`] for the lab: a run trained with a mistake (`config.mistake`; `attention` must then
/// be the mistaken pass's, [`Transformer::attention_with`]) and, if heads are knocked out,
/// `ablated` ([`evaluate_ablated`] of `snapshot`'s model). Without either it is [`run_json`]'s
/// document byte for byte.
///
/// [`Transformer::attention_with`]: crate::model::train::transformer::Transformer::attention_with
/// [`evaluate_ablated`]: crate::model::train::lab::ablation::evaluate_ablated
pub fn lab_json(
    config: &TrainConfig,
    snapshot: &Snapshot,
    held_out: &[Sequence],
    attention: &[Vec<DMatrix<f64>>],
    ablated: Option<&AblatedEval>,
) -> String {
    let m = &config.model;
    let mut out = String::with_capacity(256 * 1024);
    let _ = write!(
        out,
        "{{\n  \"format\": \"attention-explorer-trained-model\",\n  \"task\": \"{}\",\n  \"seed\": {},\n  \"lr\": ",
        task_key(&config.task),
        config.seed
    );
    json_number(&mut out, config.lr);
    let _ = write!(
        out,
        ",\n  \"batch\": {},\n  \"step\": {},\n  \"model\": {},\n  \"words\": ",
        config.batch,
        snapshot.eval.step,
        shape_json(m)
    );
    if let Some(mistake) = config.mistake {
        // Before "words", so a reader meets it before the numbers it changes.
        let at = out.rfind(",\n  \"words\": ").expect("just written");
        out.insert_str(at, &format!(",\n  \"mistake\": \"{}\"", mistake.key()));
    }
    if matches!(config.task, Task::Grammar(_)) {
        list(&mut out, &GRAMMAR_WORDS, ", ", |o, w| json_string(o, w));
    } else {
        out.push_str("null");
    }
    out.push_str(",\n  \"groups\": ");
    groups_json(&mut out, m, &snapshot.params);
    out.push_str(",\n  \"held_out\": ");
    list(&mut out, held_out, ",\n    ", |o, s| {
        o.push_str("{\"tokens\": ");
        list(o, &s.tokens, ",", |o, t| {
            let _ = write!(o, "{t}");
        });
        o.push_str(", \"repeat\": ");
        match s.repeat {
            Some(r) => {
                let _ = write!(o, "{{\"first\": {}, \"len\": {}}}", r.first, r.len);
            }
            None => o.push_str("null"),
        }
        o.push('}');
    });
    out.push_str(",\n  \"attention\": ");
    list(&mut out, attention, ",\n    ", |o, layer| {
        list(o, layer, ",\n     ", json_matrix);
    });
    out.push_str(",\n  \"eval\": ");
    eval_json(&mut out, &snapshot.eval);
    if let Some(ablated) = ablated {
        out.push_str(",\n  \"ablation\": {\"heads\": ");
        list(&mut out, ablated.ablation.heads(), ", ", |o, k| {
            let _ = write!(
                o,
                "{{\"layer\": {}, \"head\": {}, \"kind\": \"{}\", \"mean\": ",
                k.layer + 1,
                k.head + 1,
                k.kind.key()
            );
            if k.kind == AblationKind::Mean {
                list(o, &k.replacement, ", ", |o, &x| json_number(o, x));
            } else {
                o.push_str("null");
            }
            o.push('}');
        });
        out.push_str(",\n    \"eval\": ");
        eval_json(&mut out, &ablated.eval);
        out.push_str(",\n    \"attention\": ");
        list(&mut out, &ablated.attention, ",\n    ", |o, layer| {
            list(o, layer, ",\n     ", json_matrix);
        });
        out.push('}');
    }
    out.push_str("\n}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::train::lab::run_config::held_out_set;
    use crate::model::train::page::stepping::Trainer;

    /// Every number in `text`, in order (enough of a reader to check a writer of numbers).
    fn numbers(text: &str) -> Vec<f64> {
        text.split(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c)))
            .filter(|s| s.chars().any(|c| c.is_ascii_digit()))
            .map(|s| s.parse().unwrap())
            .collect()
    }

    /// The text between `"key": ` and the next top-level key `stop`.
    fn section<'a>(json: &'a str, key: &str, stop: &str) -> &'a str {
        let start = json.find(&format!("\"{key}\": ")).unwrap();
        let end = json[start..].find(&format!("\n  \"{stop}\"")).unwrap();
        &json[start..start + end]
    }

    fn trained(config: TrainConfig, steps: usize) -> (Trainer, String) {
        let mut t = Trainer::new(config).unwrap();
        t.run_to(steps);
        let snapshot = t.latest_snapshot().clone();
        let attention = snapshot
            .model(config.model)
            .attention(&t.held_out()[0].tokens);
        let json = run_json(&config, &snapshot, t.held_out(), &attention);
        (t, json)
    }

    #[test]
    fn the_file_holds_every_trained_number_exactly_and_the_evaluation_of_them() {
        let mut config = TrainConfig::repeat_default(5);
        config.eval_sequences = 4;
        let (t, json) = trained(config, 25);
        let snapshot = t.latest_snapshot();
        assert_eq!(snapshot.eval.step, 25);
        // Matrices: the parameters in layout order, bit for bit (names, rows and cols between).
        let groups = section(&json, "groups", "held_out");
        for span in config.model.layout() {
            assert!(groups.contains(&format!(
                "{{\"name\": \"{}\", \"rows\": {}, \"cols\": {}",
                span.group.label(),
                span.rows,
                span.cols
            )));
        }
        // Each group's numbers: its layer (in the name, if any), rows, cols, then its values.
        let mut expected = Vec::new();
        for span in config.model.layout() {
            expected.extend(numbers(&span.group.label()));
            expected.extend([span.rows as f64, span.cols as f64]);
            expected.extend_from_slice(&snapshot.params[span.range()]);
        }
        let found = numbers(groups);
        assert_eq!(found.len(), expected.len());
        assert!(found
            .iter()
            .zip(&expected)
            .all(|(a, b)| a.to_bits() == b.to_bits()));
        // Held-out sequences and their repeats.
        let held = section(&json, "held_out", "attention");
        assert_eq!(held.matches("\"tokens\"").count(), 4);
        let r = t.held_out()[0].repeat.unwrap();
        assert!(held.contains(&format!(
            "\"repeat\": {{\"first\": {}, \"len\": {}}}",
            r.first, r.len
        )));
        // Attention: layers × heads matrices of the first held-out sequence, exactly.
        let attention = numbers(section(&json, "attention", "eval"));
        let model = snapshot.model(config.model);
        let expected: Vec<f64> = model
            .attention(&t.held_out()[0].tokens)
            .iter()
            .flatten()
            .flat_map(|a| a.transpose().iter().copied().collect::<Vec<_>>())
            .collect();
        assert_eq!(attention.len(), expected.len());
        assert!(attention
            .iter()
            .zip(&expected)
            .all(|(a, b)| a.to_bits() == b.to_bits()));
        // The evaluation, with the detector table's scores.
        let eval = &json[json.find("\"eval\"").unwrap()..];
        let first = snapshot.eval.heads[0][0];
        assert!(eval.contains(&format!("\"loss\": {}", snapshot.eval.loss)));
        assert!(eval.contains(&format!("\"previous_token\": {}", first.previous_token)));
        assert_eq!(eval.matches("\"entropy_bits\"").count(), 4);
        assert!(json.contains("\"words\": null"));
        assert!(json.contains("\"positions\": \"rotary\""));
        assert_eq!(held_out_set(&config).len(), 4);
    }

    #[test]
    fn a_grammar_file_names_its_words_and_has_no_repeat_losses() {
        let mut config = TrainConfig::grammar_default(2);
        config.eval_sequences = 3;
        let (_, json) = trained(config, 0);
        assert!(json.contains("\"words\": [\"the\", "));
        assert!(json.contains("\"first_copy_loss\": null, \"repeated_loss\": null"));
        assert!(json.contains("\"induction\": null"));
        assert!(json.contains("\"task\": \"grammar\""));
        assert!(json.ends_with("}\n}\n"));
    }

    /// The lab's additions: a mistake's key and second measure, and an ablation's heads, means,
    /// evaluation and grid, each number exactly; a plain run has none of them.
    #[test]
    fn a_lab_file_records_the_mistake_and_the_knocked_out_heads() {
        use crate::model::train::lab::ablation::{evaluate_ablated, HeadMeans};
        use crate::model::train::lab::knockout::AblationKind;
        use crate::model::train::lab::mistakes::TrainingMistake;
        use crate::model::train::lab::pass::Pass;
        let mut config = TrainConfig::repeat_default(3);
        config.eval_sequences = 3;
        config.mistake = Some(TrainingMistake::MaskWithZero);
        let mut t = Trainer::new(config).unwrap();
        t.run_to(25);
        let snapshot = t.latest_snapshot().clone();
        let model = snapshot.model(config.model);
        let tokens = &t.held_out()[0].tokens;
        let attention = model.attention_with(tokens, 1.0, Pass::with_mistake(config.mistake));
        let means = HeadMeans::measure(&model, t.held_out(), config.mistake);
        let ablation = means
            .ablation(&[(0, 1, AblationKind::Mean), (1, 0, AblationKind::Zero)])
            .unwrap();
        let ablated = evaluate_ablated(&model, t.held_out(), 25, &ablation, config.mistake);
        let json = lab_json(&config, &snapshot, t.held_out(), &attention, Some(&ablated));
        assert!(json.contains("\"rotary\"},\n  \"mistake\": \"mask-zero\",\n  \"words\": null"));
        let used = snapshot.eval.used.as_deref().unwrap();
        assert!(json.contains(&format!("\"as_used\": {{\"loss\": {}", used.loss)));
        let section = &json[json.find("\"ablation\"").unwrap()..];
        let mean = &ablation.heads()[0].replacement;
        let mean_text: Vec<String> = mean.iter().map(ToString::to_string).collect();
        assert!(section.contains(&format!(
            "{{\"layer\": 1, \"head\": 2, \"kind\": \"mean\", \"mean\": [{}]}}",
            mean_text.join(", ")
        )));
        assert!(section.contains("{\"layer\": 2, \"head\": 1, \"kind\": \"zero\", \"mean\": null}"));
        let e = &ablated.eval;
        assert!(section.contains(&format!(
            "\"eval\": {{\"loss\": {}, \"first_copy_loss\": {}",
            e.loss,
            e.first_copy_loss.unwrap()
        )));
        assert!(section.contains(&format!(
            "\"as_used\": {{\"loss\": {}",
            e.used.as_ref().unwrap().loss
        )));
        let grid = numbers(&section[section.find("\"attention\"").unwrap()..]);
        let expected: Vec<f64> = ablated
            .attention
            .iter()
            .flatten()
            .flat_map(|a| a.transpose().iter().copied().collect::<Vec<_>>())
            .collect();
        assert_eq!(grid, expected);
        assert!(json.ends_with("]]]}\n}\n"));
        // The same run without a mistake or knock-out has none of these keys.
        config.mistake = None;
        let (_, plain) = trained(config, 25);
        for key in ["\"mistake\"", "\"as_used\"", "\"ablation\""] {
            assert!(!plain.contains(key), "{key}");
        }
    }
}
