//! The compare view (A/B): setting A is the view on screen, setting B the same view with one
//! thing changed ([`CompareChange`]). This file says what B is, computes B's weights the way the main
//! view computes A's, and measures the difference A − B: the matrix, its symmetric scale and the
//! rows that changed most.
//!
//! In a link the change is one parameter, `cmp` ([`CompareChange::key`]): `tau:2`, `seed:7`, `pos`
//! (positions flipped), `s:the mat sat on the cat .` (another sentence of as many tokens), or
//! `broken:mask-zero,dropout` (B with these "Break it" mistakes; `broken:` is B correct).

use super::broken::{broken_weights_all, Mistake, Mistakes};
use super::explorer::{ExplorerConfig, Prepared};
use super::export::csv_field;
use super::tokenizer::{checked_tokens, tokenize};
use super::url_state::{CompareChange, ViewState};
use nalgebra::DMatrix;

/// The sentence the compare view offers beside the default one: the same seven tokens, with
/// "cat" and "mat" swapped.
pub const SWAPPED_SENTENCE: &str = "the mat sat on the cat .";

/// Setting B: `a` with `change` made (the other parameters, row and step included, kept).
pub fn setting_b(change: &CompareChange, a: &ViewState) -> ViewState {
    let mut b = ViewState {
        compare: None,
        ..a.clone()
    };
    match change {
        CompareChange::Tau(tau) => b.tau = *tau,
        CompareChange::Seed(seed) => b.seed = *seed,
        CompareChange::Positions => b.positions = !a.positions,
        CompareChange::Sentence(s) => b.sentence.clone_from(s),
        CompareChange::Broken(m) => b.broken = *m,
    }
    b
}

/// What setting B changes, as the compare view's first menu offers it: the kind of a
/// [`CompareChange`], or none (compare off).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareKind {
    Off,
    Tau,
    Seed,
    Positions,
    Sentence,
    Broken,
}

impl CompareKind {
    /// In the menu's order.
    pub const ALL: [Self; 6] = [
        Self::Off,
        Self::Tau,
        Self::Seed,
        Self::Positions,
        Self::Sentence,
        Self::Broken,
    ];

    /// Its value in the menu, which is also the start of its change's text in a link (`tau` of
    /// `cmp=tau:2`, [`CompareChange::key`]).
    pub fn key(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Tau => "tau",
            Self::Seed => "seed",
            Self::Positions => "pos",
            Self::Sentence => "s",
            Self::Broken => "broken",
        }
    }

    /// The kind whose [`key`](Self::key) is `key`, if any.
    pub fn from_key(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.key() == key)
    }

    /// The kind of `change` (none: compare off).
    pub fn of(change: Option<&CompareChange>) -> Self {
        match change {
            None => Self::Off,
            Some(CompareChange::Tau(_)) => Self::Tau,
            Some(CompareChange::Seed(_)) => Self::Seed,
            Some(CompareChange::Positions) => Self::Positions,
            Some(CompareChange::Sentence(_)) => Self::Sentence,
            Some(CompareChange::Broken(_)) => Self::Broken,
        }
    }

    /// The change this kind starts with when the learner picks it, for view `a`: always one that
    /// differs from A (τ 2, or 0.5 when A has 2; seed 7, or 8; the sentence with "cat" and "mat"
    /// swapped; B correct when A has a mistake, else B with the mask written as zeros). `None`
    /// for [`Off`](Self::Off).
    pub fn first_change(self, a: &ViewState) -> Option<CompareChange> {
        Some(match self {
            Self::Off => return None,
            Self::Tau => CompareChange::Tau(if a.tau == 2.0 { 0.5 } else { 2.0 }),
            Self::Seed => CompareChange::Seed(if a.seed == 7 { 8 } else { 7 }),
            Self::Positions => CompareChange::Positions,
            Self::Sentence => CompareChange::Sentence(SWAPPED_SENTENCE.to_string()),
            Self::Broken if a.broken.is_empty() => {
                CompareChange::Broken(Mistakes::NONE.with(Mistake::MaskWithZero, true))
            }
            Self::Broken => CompareChange::Broken(Mistakes::NONE),
        })
    }

    /// The change of this kind with `value` typed into B's value box, read as a link reads it;
    /// `None` when it is not a value of this kind.
    pub fn with_value(self, value: &str) -> Option<CompareChange> {
        CompareChange::parse(&format!("{}:{value}", self.key()))
    }
}

/// B with the one mistake whose key is `key` (`""` or an unknown key: B correct), as B's
/// mistake menu chooses it.
pub fn mistake_change(key: &str) -> CompareChange {
    CompareChange::Broken(
        Mistake::from_key(key).map_or(Mistakes::NONE, |m| Mistakes::NONE.with(m, true)),
    )
}

/// What B's value box shows for `change`: τ, the seed or the sentence; empty for the others.
pub fn typed_value(change: Option<&CompareChange>) -> String {
    match change {
        Some(CompareChange::Tau(t)) => t.to_string(),
        Some(CompareChange::Seed(s)) => s.to_string(),
        Some(CompareChange::Sentence(s)) => s.clone(),
        _ => String::new(),
    }
}

/// The key B's mistake menu shows for `change`: its first mistake's, or `""` (none).
pub fn shown_mistake(change: Option<&CompareChange>) -> &'static str {
    match change {
        Some(CompareChange::Broken(m)) => m.iter().next().map_or("", Mistake::key),
        _ => "",
    }
}

/// Why B cannot be compared with A cell by cell: its sentence's token count differs, or it is
/// not a sentence the page accepts. The message is shown in place of the comparison.
pub fn refusal(a: &ViewState, b: &ViewState) -> Option<String> {
    let n_a = tokenize(&a.sentence).len();
    match checked_tokens(&b.sentence, b.max_tokens) {
        Err(e) => Some(format!("Setting B's sentence cannot be used. {}", e.message())),
        Ok(t) if t.len() != n_a => Some(format!(
            "Setting B's sentence has {} tokens and A's has {n_a}: a cell-by-cell difference needs sentences of equal length.",
            t.len()
        )),
        Ok(_) => None,
    }
}

/// The weights the main view shows for `view`: its head, its τ, its mistakes (if any).
pub fn view_weights(view: &ViewState) -> DMatrix<f64> {
    let tokens = checked_tokens(&view.sentence, view.max_tokens)
        .unwrap_or_else(|_| tokenize(&view.sentence));
    let prepared = Prepared::new(ExplorerConfig {
        tokens,
        seed: view.seed,
        heads: view.heads,
        positions: view.positions,
    });
    let mut all = broken_weights_all(&prepared, view.broken, view.tau);
    all.swap_remove(view.head.min(all.len() - 1))
}

/// A − B, cell by cell (same shape required).
pub fn difference(a: &DMatrix<f64>, b: &DMatrix<f64>) -> DMatrix<f64> {
    a - b
}

/// The symmetric scale of a difference: the largest |Δ| (0 for identical settings).
pub fn max_abs(diff: &DMatrix<f64>) -> f64 {
    diff.iter().fold(0.0, |m, d| m.max(d.abs()))
}

/// How much one query row changed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowChange {
    /// 0-based row.
    pub row: usize,
    /// The sum of the row's |Δ| (its L1 change).
    pub l1: f64,
    /// The row's largest |Δ| and its column.
    pub max_abs: f64,
    pub max_col: usize,
}

/// Every row's change, largest L1 first (ties: the earlier row first).
pub fn rows_by_change(diff: &DMatrix<f64>) -> Vec<RowChange> {
    let mut rows: Vec<RowChange> = (0..diff.nrows())
        .map(|i| {
            let row = diff.row(i);
            let (max_col, max_abs) = row.iter().enumerate().fold((0, 0.0), |(c, m), (j, d)| {
                if d.abs() > m {
                    (j, d.abs())
                } else {
                    (c, m)
                }
            });
            RowChange {
                row: i,
                l1: row.iter().map(|d| d.abs()).sum(),
                max_abs,
                max_col,
            }
        })
        .collect();
    // Insertion sort (stable: ties keep the earlier row first); a library sort of this one
    // type costs more wasm than it saves for at most a few hundred rows.
    for k in 1..rows.len() {
        let mut m = k;
        while m > 0 && rows[m - 1].l1 < rows[m].l1 {
            rows.swap(m - 1, m);
            m -= 1;
        }
    }
    rows
}

/// The compare CSV: one line per cell with A's, B's weight and A − B (masked cells of both: 0).
pub fn compare_csv(tokens_a: &[String], a: &DMatrix<f64>, b: &DMatrix<f64>) -> String {
    use std::fmt::Write;
    let diff = difference(a, b);
    let mut out = String::from("row,col,query,key,a,b,a_minus_b\n");
    for i in 0..a.nrows() {
        for j in 0..a.ncols() {
            let _ = write!(out, "{},{},", i + 1, j + 1);
            csv_field(&mut out, &tokens_a[i]);
            out.push(',');
            csv_field(&mut out, &tokens_a[j]);
            let _ = writeln!(out, ",{},{},{}", a[(i, j)], b[(i, j)], diff[(i, j)]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::broken::{Mistake, Mistakes};
    use crate::model::explorer::DEFAULT_SENTENCE;

    fn parse(text: &str) -> Option<CompareChange> {
        CompareChange::parse(text)
    }

    #[test]
    fn keys_round_trip_and_bad_ones_are_refused() {
        let broken = Mistakes::NONE.with(Mistake::MaskWithZero, true);
        for change in [
            CompareChange::Tau(2.0),
            CompareChange::Tau(0.25),
            CompareChange::Seed(7),
            CompareChange::Positions,
            CompareChange::Sentence(SWAPPED_SENTENCE.to_string()),
            CompareChange::Broken(broken),
            CompareChange::Broken(Mistakes::NONE),
        ] {
            assert_eq!(
                parse(&change.key()),
                Some(change.clone()),
                "{}",
                change.key()
            );
        }
        for bad in [
            "",
            "tau",
            "tau:x",
            "tau:0",
            "tau:-1",
            "seed:-3",
            "seed:99999999999",
            "pos:1",
            "s:",
            "s:  ",
            "broken:nope",
            "size:3",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn b_changes_exactly_one_thing() {
        let a = ViewState::default();
        let b = setting_b(&CompareChange::Tau(2.0), &a);
        assert_eq!(
            ViewState {
                tau: a.tau,
                ..b.clone()
            },
            a
        );
        assert_eq!(b.tau, 2.0);
        let b = setting_b(&CompareChange::Positions, &a);
        assert_eq!(b.positions, !a.positions);
        assert_eq!(
            ViewState {
                positions: a.positions,
                ..b
            },
            a
        );
        let b = setting_b(
            &CompareChange::Seed(9),
            &ViewState {
                compare: Some(CompareChange::Seed(9)),
                ..a.clone()
            },
        );
        assert_eq!(
            b.compare, None,
            "B is a plain view, openable as its own link"
        );
    }

    #[test]
    fn identical_settings_differ_by_exactly_zero() {
        let a = ViewState::default();
        let wa = view_weights(&a);
        let wb = view_weights(&setting_b(&CompareChange::Broken(Mistakes::NONE), &a));
        let diff = difference(&wa, &wb);
        assert!(diff.iter().all(|&d| d == 0.0));
        assert_eq!(max_abs(&diff), 0.0);
        assert!(rows_by_change(&diff)
            .iter()
            .all(|r| r.l1 == 0.0 && r.max_abs == 0.0));
    }

    #[test]
    fn masked_cells_are_exactly_zero_and_the_rest_is_a_minus_b() {
        let a = ViewState::default();
        for change in [
            CompareChange::Tau(2.0),
            CompareChange::Seed(3),
            CompareChange::Positions,
            CompareChange::Sentence(SWAPPED_SENTENCE.into()),
        ] {
            let b = setting_b(&change, &a);
            assert_eq!(refusal(&a, &b), None);
            let (wa, wb) = (view_weights(&a), view_weights(&b));
            let diff = difference(&wa, &wb);
            for i in 0..7 {
                for j in 0..7 {
                    if j > i {
                        assert_eq!(diff[(i, j)], 0.0, "masked ({i}, {j})");
                    } else {
                        assert_eq!(diff[(i, j)], wa[(i, j)] - wb[(i, j)]);
                    }
                }
            }
            // Row 1 attends only to itself in both: it never changes.
            assert_eq!(diff[(0, 0)], 0.0);
            assert!(max_abs(&diff) > 0.0, "{change:?} changes something");
        }
    }

    #[test]
    fn b_weights_are_the_main_views_weights_for_b() {
        // B computed through view_weights is the matrix A's path gives when B is the view.
        let b = setting_b(&CompareChange::Tau(0.5), &ViewState::default());
        let tokens = tokenize(DEFAULT_SENTENCE);
        let p = Prepared::new(ExplorerConfig {
            tokens,
            seed: b.seed,
            heads: b.heads,
            positions: b.positions,
        });
        assert_eq!(view_weights(&b), p.weights_all(0.5)[b.head]);
    }

    #[test]
    fn rows_are_ranked_by_l1_with_their_largest_cell() {
        let diff = DMatrix::from_row_slice(3, 3, &[0.0, 0.0, 0.0, 0.1, -0.1, 0.0, -0.3, 0.1, 0.2]);
        let rows = rows_by_change(&diff);
        assert_eq!(rows.iter().map(|r| r.row).collect::<Vec<_>>(), [2, 1, 0]);
        assert!((rows[0].l1 - 0.6).abs() < 1e-15);
        assert_eq!((rows[0].max_abs, rows[0].max_col), (0.3, 0));
        assert_eq!(max_abs(&diff), 0.3);
    }

    #[test]
    fn unequal_sentences_are_refused_with_a_message() {
        let a = ViewState::default();
        let b = setting_b(&CompareChange::Sentence("the cat sat .".into()), &a);
        let message = refusal(&a, &b).expect("refused");
        assert!(message.contains("has 4 tokens and A's has 7"), "{message}");
    }

    #[test]
    fn csv_has_a_b_and_their_difference() {
        let a = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.25, 0.75]);
        let b = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 0.5, 0.5]);
        let csv = compare_csv(&["x".into(), "\"y".into()], &a, &b);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "row,col,query,key,a,b,a_minus_b");
        assert_eq!(lines[3], "2,1,\"\"\"y\",\"x\",0.25,0.5,-0.25");
        assert_eq!(lines.len(), 5);
    }

    /// The change a kind starts with always differs from A, is of that kind, and reads back from
    /// its own link text; the menu's keys are the links' and B's value box reads like a link.
    #[test]
    fn each_kind_starts_with_a_change_that_differs_from_a() {
        let broken = Mistakes::NONE.with(Mistake::Dropout, true);
        let views = [
            ViewState::default(),
            ViewState {
                tau: 2.0,
                seed: 7,
                broken,
                ..ViewState::default()
            },
        ];
        for a in &views {
            assert_eq!(CompareKind::Off.first_change(a), None);
            for kind in &CompareKind::ALL[1..] {
                let change = kind.first_change(a).unwrap();
                assert_eq!(CompareKind::of(Some(&change)), *kind);
                assert_ne!(
                    setting_b(&change, a),
                    ViewState {
                        compare: None,
                        ..a.clone()
                    }
                );
                assert_eq!(parse(&change.key()).as_ref(), Some(&change), "{kind:?}");
                assert!(change.key().starts_with(kind.key()));
            }
        }
        let [plain, changed] = &views;
        let tau = |a| CompareKind::Tau.first_change(a);
        assert_eq!(tau(plain), Some(CompareChange::Tau(2.0)));
        assert_eq!(tau(changed), Some(CompareChange::Tau(0.5)));
        assert_eq!(
            CompareKind::Seed.first_change(plain),
            Some(CompareChange::Seed(7))
        );
        assert_eq!(
            CompareKind::Seed.first_change(changed),
            Some(CompareChange::Seed(8))
        );
        assert_eq!(
            CompareKind::Broken.first_change(plain),
            Some(CompareChange::Broken(
                Mistakes::NONE.with(Mistake::MaskWithZero, true)
            ))
        );
        assert_eq!(
            CompareKind::Broken.first_change(changed),
            Some(CompareChange::Broken(Mistakes::NONE))
        );
        assert_eq!(CompareKind::of(None), CompareKind::Off);
        for kind in CompareKind::ALL {
            assert_eq!(CompareKind::from_key(kind.key()), Some(kind));
        }
        assert_eq!(CompareKind::from_key("nothing"), None);
    }

    #[test]
    fn typed_values_and_mistakes_read_back_as_b() {
        for change in [
            CompareChange::Tau(0.25),
            CompareChange::Seed(42),
            CompareChange::Sentence(SWAPPED_SENTENCE.to_string()),
        ] {
            let kind = CompareKind::of(Some(&change));
            assert_eq!(kind.with_value(&typed_value(Some(&change))), Some(change));
        }
        assert_eq!(CompareKind::Tau.with_value("x"), None);
        assert_eq!(CompareKind::Off.with_value("2"), None);
        assert_eq!(typed_value(Some(&CompareChange::Positions)), "");
        let one = mistake_change(Mistake::Dropout.key());
        assert_eq!(
            one,
            CompareChange::Broken(Mistakes::NONE.with(Mistake::Dropout, true))
        );
        assert_eq!(shown_mistake(Some(&one)), Mistake::Dropout.key());
        assert_eq!(mistake_change(""), CompareChange::Broken(Mistakes::NONE));
        assert_eq!(shown_mistake(Some(&mistake_change(""))), "");
        assert_eq!(shown_mistake(None), "");
    }
}
