//! Captions of exported figures and the compare view's sentences, built from the view's settings.

use super::{format_tau, quote};
use crate::format::fixed;
use crate::model::broken::Mistakes;
use crate::model::compare::{CompareKind, RowChange};
use crate::model::url_state::{CompareChange, ViewState, MAX_SEED, SLIDER_MAX_TAU, SLIDER_MIN_TAU};
use crate::text::mistake_label;
use nalgebra::DMatrix;

/// A view's settings in one line: sentence, seed, head, τ, positions and any "Break it" switch.
pub fn figure_caption(
    sentence: &str,
    seed: u64,
    (head, heads): (usize, usize),
    tau: f64,
    positions: bool,
    broken: Mistakes,
) -> String {
    let mut s = format!(
        "{} · seed {seed} · head {} of {heads} · τ = {} · positions {}",
        quote(sentence),
        head + 1,
        format_tau(tau),
        if positions { "on" } else { "off" }
    );
    if !broken.is_empty() {
        let names: Vec<&str> = broken.iter().map(mistake_label).collect();
        s.push_str(" · BROKEN: ");
        s.push_str(&names.join("; "));
    }
    s
}

/// What setting B changes, against setting A, in one sentence.
pub fn change_sentence(change: &CompareChange, a: &ViewState) -> String {
    match change {
        CompareChange::Tau(tau) => format!(
            "B uses τ = {} instead of A's {}.",
            format_tau(*tau),
            format_tau(a.tau)
        ),
        CompareChange::Seed(seed) => format!("B uses seed {seed} instead of A's {}.", a.seed),
        CompareChange::Positions => format!(
            "B has positions {} (A has them {}).",
            if a.positions { "off" } else { "on" },
            if a.positions { "on" } else { "off" }
        ),
        CompareChange::Sentence(s) => {
            format!("B reads {} instead of {}.", quote(s), quote(&a.sentence))
        }
        CompareChange::Broken(m) if m.is_empty() => {
            "B is correct attention, with no mistake made.".to_string()
        }
        CompareChange::Broken(m) => {
            let names: Vec<&str> = m.iter().map(mistake_label).collect();
            format!("B is BROKEN: {}.", names.join("; "))
        }
    }
}

/// The difference heatmap's accessible name.
pub fn diff_label(n: usize, scale: f64) -> String {
    format!(
        "Difference heatmap A − B, {n} × {n} cells: purple where A gives the key more weight, orange where B does, light grey for no change; the scale runs from −{} to +{}.",
        fixed(scale, 3),
        fixed(scale, 3)
    )
}

/// One of the rows that changed most.
pub fn row_change_text(tokens: &[String], r: &RowChange, diff: &DMatrix<f64>) -> String {
    if r.l1 == 0.0 {
        return format!("Row {} {}: unchanged.", r.row + 1, quote(&tokens[r.row]));
    }
    let d = diff[(r.row, r.max_col)];
    format!(
        "Row {} {}: Σ|Δ| = {}; the largest change is on key {} {}, {}{} ({}).",
        r.row + 1,
        quote(&tokens[r.row]),
        fixed(r.l1, 3),
        r.max_col + 1,
        quote(&tokens[r.max_col]),
        if d < 0.0 { "−" } else { "+" },
        fixed(r.max_abs, 3),
        if d < 0.0 {
            "B gives it more"
        } else {
            "A gives it more"
        }
    )
}

/// The compare view's words for one setting B, as plain strings (the view puts them in the page as
/// text, so nothing here is HTML).
#[derive(Clone, Debug, PartialEq)]
pub struct CompareText {
    /// What B changes, in one sentence.
    pub change: String,
    /// Setting A's and B's figure captions.
    pub captions: (String, String),
    /// B's link query (without the `?`), for "Open setting B on its own".
    pub b_query: String,
    /// How to read the difference's colours, with the scale's ends.
    pub legend: String,
    /// The rows that changed most (at most three), largest first.
    pub rows_changed: Vec<String>,
}

/// What Compare A and B is, under its heading.
pub const COMPARE_HINT: &str = "Setting A is the view above. Setting B is the same view with one thing changed; the difference A − B shows what that one change does to every weight.";
/// B's mistake menu's first choice: no mistake.
pub const COMPARE_NO_MISTAKE: &str = "none: correct attention";

/// What the compare view's first menu calls each kind of change.
pub fn compare_kind_label(kind: CompareKind) -> &'static str {
    match kind {
        CompareKind::Off => "nothing: compare off",
        CompareKind::Tau => "the temperature τ",
        CompareKind::Seed => "the seed",
        CompareKind::Positions => "positions on/off",
        CompareKind::Sentence => "the sentence (same length)",
        CompareKind::Broken => "Break it vs correct",
    }
}

/// Why `value`, typed into B's value box, was not used: what B's value can be.
pub fn compare_value_refused(value: &str) -> String {
    format!(
        "“{value}” is not a value for setting B: use a temperature from {SLIDER_MIN_TAU} to {SLIDER_MAX_TAU}, a seed from 0 to {MAX_SEED}, or a sentence."
    )
}

/// Builds [`CompareText`] for settings `a` and `b` (B made by `change`), their tokens and the
/// difference A − B.
pub fn compare_text(
    change: &CompareChange,
    (a, b): (&ViewState, &ViewState),
    tokens: &[String],
    diff: &DMatrix<f64>,
) -> CompareText {
    let caption = |v: &ViewState| {
        figure_caption(
            &v.sentence,
            v.seed,
            (v.head, v.heads),
            v.tau,
            v.positions,
            v.broken,
        )
    };
    let scale = fixed(crate::model::compare::max_abs(diff), 3);
    CompareText {
        change: change_sentence(change, a),
        captions: (caption(a), caption(b)),
        b_query: b.to_query(),
        legend: format!(
            "Purple: A gives the key more weight; orange: B does; light grey: no change. The ends of the scale are ±the largest |Δ|, {scale}; grey cells are masked in both."
        ),
        rows_changed: crate::model::compare::rows_by_change(diff)
            .iter()
            .take(3)
            .map(|r| row_change_text(tokens, r, diff))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::broken::{Mistake, Mistakes};
    use crate::model::compare::setting_b;

    #[test]
    fn caption_names_every_setting() {
        let c = figure_caption("The cat sat .", 7, (1, 4), 0.5, true, Mistakes::NONE);
        assert_eq!(
            c,
            "“The cat sat .” · seed 7 · head 2 of 4 · τ = 0.500 · positions on"
        );
        let broken = Mistakes::NONE.with(Mistake::MaskWithZero, true);
        let c = figure_caption("a", 1, (0, 1), 2.0, false, broken);
        assert!(
            c.ends_with(" · positions off · BROKEN: Mask with 0 instead of −∞"),
            "{c}"
        );
    }

    #[test]
    fn compare_sentences() {
        let a = ViewState::default();
        assert_eq!(
            change_sentence(&CompareChange::Tau(2.0), &a),
            "B uses τ = 2.00 instead of A's 1.00."
        );
        assert_eq!(
            change_sentence(&CompareChange::Positions, &a),
            "B has positions on (A has them off)."
        );
        let diff = DMatrix::from_row_slice(2, 2, &[0.0, 0.0, -0.25, 0.25]);
        let tokens = vec!["a".to_string(), "b".to_string()];
        let rows = crate::model::compare::rows_by_change(&diff);
        assert_eq!(
            row_change_text(&tokens, &rows[0], &diff),
            "Row 2 “b”: Σ|Δ| = 0.500; the largest change is on key 1 “a”, −0.250 (B gives it more)."
        );
        assert_eq!(
            row_change_text(&tokens, &rows[1], &diff),
            "Row 1 “a”: unchanged."
        );
        assert!(diff_label(2, 0.25).contains("from −0.250 to +0.250"));
    }

    #[test]
    fn compare_text_names_the_change_the_captions_and_the_rows() {
        let a = ViewState {
            sentence: "<a> & b".into(),
            ..ViewState::default()
        };
        let change = CompareChange::Tau(2.0);
        let b = setting_b(&change, &a);
        let tokens: Vec<String> = ["<a>", "&", "b"].map(String::from).to_vec();
        let wa = DMatrix::from_row_slice(3, 3, &[1.0, 0.0, 0.0, 0.5, 0.5, 0.0, 0.2, 0.3, 0.5]);
        let wb = DMatrix::from_row_slice(3, 3, &[1.0, 0.0, 0.0, 0.25, 0.75, 0.0, 0.2, 0.3, 0.5]);
        let diff = &wa - &wb;
        let t = compare_text(&change, (&a, &b), &tokens, &diff);
        assert_eq!(t.change, "B uses τ = 2.00 instead of A's 1.00.");
        assert!(t.captions.0.contains("τ = 1.00") && t.captions.1.contains("τ = 2.00"));
        assert_eq!(t.b_query, b.to_query());
        assert!(t.legend.contains("±the largest |Δ|, 0.250;"));
        assert_eq!(t.rows_changed.len(), 3);
        assert!(
            t.rows_changed[0].starts_with("Row 2 “&”: Σ|Δ| = 0.500;"),
            "{:?}",
            t.rows_changed
        );
    }

    #[test]
    fn a_refused_value_for_b_names_the_ranges_the_link_accepts() {
        assert_eq!(
            compare_value_refused("abc"),
            "“abc” is not a value for setting B: use a temperature from 0.01 to 100, a seed from 0 to 4294967295, or a sentence."
        );
        // The ends named are the ends a link's `cmp` accepts.
        for tau in [SLIDER_MIN_TAU, SLIDER_MAX_TAU] {
            assert!(CompareKind::Tau.with_value(&tau.to_string()).is_some());
        }
        assert!(CompareKind::Seed
            .with_value(&MAX_SEED.to_string())
            .is_some());
        assert!(CompareKind::Seed
            .with_value(&(MAX_SEED + 1).to_string())
            .is_none());
        assert_eq!(compare_kind_label(CompareKind::Off), "nothing: compare off");
    }
}
