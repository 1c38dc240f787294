//! The compare view's sentences: the rows that changed most between settings A and B.

use crate::views::*;
use attention_explorer::format::fixed;
use attention_explorer::model::broken::Mistake;
use attention_explorer::model::compare::{difference, setting_b, view_weights};
use attention_explorer::model::url_state::{CompareChange, ViewState};
use attention_explorer::text;
use proptest::prelude::*;

proptest! {
    #![proptest_config(config(128))]

    /// The compare view (`compare_text`, `row_change_text`, `change_sentence`): the three rows
    /// that changed most, largest Σ|Δ| first, each with its largest change, its key, its sign and
    /// who gives the key more, recomputed from A − B; "unchanged" only for a row that did not move.
    #[test]
    fn compare_sentences_recount_the_difference(case in case(), which in 0u8..4, other_mistakes in 0u8..128, tau_b in -2.0f64..=2.0) {
        let v = case.build();
        if v.trained() {
            // A setting (`ViewState`) here is built for random weights; trained views are covered
            // by the other tests.
            return Ok(());
        }
        let a = ViewState {
            sentence: v.sentence.clone(),
            tau: v.tau,
            seed: v.p.config.seed,
            heads: v.p.heads.len(),
            head: v.head,
            row: v.row,
            positions: v.p.config.positions,
            broken: v.mistakes,
            ..ViewState::default()
        };
        let change = match which {
            0 => CompareChange::Tau(10f64.powf(tau_b)),
            1 => CompareChange::Seed(v.other_seed),
            2 => CompareChange::Positions,
            _ => CompareChange::Broken(Mistake::ALL.into_iter().enumerate().filter(|(k, _)| other_mistakes & (1 << k) != 0).map(|(_, m)| m).collect()),
        };
        let b = setting_b(&change, &a);
        let diff = difference(&view_weights(&a), &view_weights(&b));
        let ct = text::compare_text(&change, (&a, &b), v.tokens(), &diff);
        prop_assert_clean!(&ct.change);
        prop_assert_clean!(&ct.legend);
        match &change {
            CompareChange::Positions => {
                let (on, off) = if a.positions { ("off", "on") } else { ("on", "off") };
                prop_assert_eq!(&ct.change, &format!("B has positions {on} (A has them {off})."));
                prop_assert_eq!(b.positions, !a.positions);
            }
            CompareChange::Broken(m) if m.is_empty() => prop_assert!(ct.change.contains("correct attention"), "{}", ct.change),
            CompareChange::Broken(m) => {
                for x in m.iter() {
                    prop_assert!(ct.change.contains(text::mistake_label(x)), "{}", ct.change);
                }
            }
            _ => {}
        }
        let t = v.p.len();
        let l1: Vec<f64> = (0..t).map(|i| diff.row(i).iter().map(|x| x.abs()).sum()).collect();
        let mut order: Vec<usize> = (0..t).collect();
        order.sort_by(|&x, &y| l1[y].total_cmp(&l1[x]).then(x.cmp(&y)));
        prop_assert_eq!(ct.rows_changed.len(), t.min(3));
        for (said, &i) in ct.rows_changed.iter().zip(&order) {
            prop_assert_clean!(said);
            prop_assert!(said.starts_with(&format!("Row {} {}:", i + 1, quote(&v.tokens()[i]))), "{} (expected row {})", said, i + 1);
            if l1[i] == 0.0 {
                prop_assert!(said.ends_with(": unchanged."), "{}", said);
                continue;
            }
            let col = number_after(said, "the largest change is on key ") as usize - 1;
            let largest = diff.row(i).iter().map(|x| x.abs()).fold(0.0, f64::max);
            prop_assert_eq!(diff[(i, col)].abs(), largest, "{}", said);
            let (sign, who) = if diff[(i, col)] < 0.0 { ("−", "B gives it more") } else { ("+", "A gives it more") };
            prop_assert!(said.ends_with(&format!("{sign}{} ({who}).", fixed(largest, 3))), "{}", said);
            prop_assert!(said.contains(&format!("Σ|Δ| = {};", fixed(l1[i], 3))), "{}", said);
        }
        prop_assert!(ct.legend.contains(&format!("±the largest |Δ|, {};", fixed(diff.abs().max(), 3))), "{}", ct.legend);
    }
}
