//! The explorer's sentences: each head's regime and shape at τ, the rows and cells, and what
//! positions do to a repeated word.

use crate::views::*;
use attention_explorer::format::{fixed, percent};
use attention_explorer::model::broken::{broken_weights_all, is_hidden, Mistake};
use attention_explorer::model::claims::{first_repeated_word, HeadShape, PairWeights};
use attention_explorer::model::temperature::{unscaled_tau, Regime};
use attention_explorer::text;
use proptest::prelude::*;

proptest! {
    #![proptest_config(config(128))]

    /// `regime_sentence` / `shape_sentence`: the counts ("none of / k of / all m rows … put over
    /// 95 % on one key", "k of them split … tied keys"), the mean largest weight, "exactly" and the
    /// named mark only at the mark, the regime's side of the marks, and "every row is at least as
    /// peaked as at τ = 1" / "at most as peaked as without the scaling" / "rows flatten toward the
    /// average", row by row, for every head.
    #[test]
    fn regime_sentence_counts_and_comparisons(case in case()) {
        let v = case.build();
        let (d, tau, t) = (v.d(), v.tau, v.p.len());
        let u = unscaled_tau(d);
        for head in &v.p.heads {
            let w = head.weights(tau);
            let text = text::regime_sentence(Regime::of(tau, d), tau, d, &HeadShape::of(&w));
            prop_assert_clean!(&text);
            if t == 1 {
                prop_assert_eq!(w[(0, 0)], 1.0);
                prop_assert!(text.ends_with("The only row sees only its own token, so it is always 100 % on it."), "{}", text);
            } else {
                let m = t - 1;
                let rows: Vec<Vec<f64>> = (1..t).map(|i| visible(&w, i)).collect();
                let one_hot = rows.iter().filter(|r| r.iter().any(|&x| x > 0.95)).count();
                let tied = rows.iter().filter(|r| tied_top(r).len() > 1).count();
                let mean = rows.iter().map(|r| max_of(r)).sum::<f64>() / m as f64;
                let counts = format!("In this head {} that see more than one key put over 95.0% of their weight on one key; averaged over those {m} rows, the largest weight is {}.", of_rows(one_hot, m), percent(mean));
                prop_assert!(text.contains(&counts), "expected {:?} in {}", counts, text);
                match tied {
                    0 => prop_assert!(!text.contains("tied"), "{}", text),
                    1 => prop_assert!(text.ends_with(" 1 of them splits its top weight equally between tied keys."), "{}", text),
                    k => prop_assert!(text.ends_with(&format!(" {k} of them split their top weight equally between tied keys.")), "{}", text),
                }
            }
            // The mark is named, and "exactly" said, only at the mark itself.
            if text.starts_with("τ = 1/√") {
                prop_assert_eq!(tau, u);
            }
            if text.starts_with("τ = 1:") {
                prop_assert_eq!(tau, 1.0);
            }
            if text.contains("exactly") {
                prop_assert!(tau == u || tau == 1.0, "{}", text);
            }
            if text.contains(&format!("close to 1/√{d}")) {
                prop_assert!(tau != u && (tau / u - 1.0).abs() < 0.04, "{}", text);
            }
            if text.contains("close to 1 (") {
                prop_assert!(tau != 1.0 && (tau - 1.0).abs() <= 0.04, "{}", text);
            }
            if text.starts_with("Colder") {
                prop_assert!(tau < u);
            }
            if text.starts_with("Between") {
                prop_assert!(u < tau && tau < 1.0);
            }
            if text.starts_with("Hotter") {
                prop_assert!(tau > 1.0);
            }
            // The comparisons, row by row against τ = 1 and τ = 1/√d.
            let standard = head.weights(1.0);
            let unscaled = head.weights(u);
            let peaked_as_standard = text.contains("at least as peaked as");
            let flatter_than_unscaled = text.contains("at most as peaked as without the scaling");
            let flattens = text.contains("rows flatten toward the plain average");
            for i in 0..t {
                let (now, one, raw) = (visible(&w, i), visible(&standard, i), visible(&unscaled, i));
                if peaked_as_standard {
                    prop_assert!(max_of(&now) >= max_of(&one) - ROUNDING, "row {}: {}", i, text);
                    prop_assert!(entropy(&now) <= entropy(&one) + 1e-9, "row {}: {}", i, text);
                }
                if flatter_than_unscaled {
                    prop_assert!(max_of(&now) <= max_of(&raw) + ROUNDING, "row {}: {}", i, text);
                    prop_assert!(entropy(&now) >= entropy(&raw) - 1e-9, "row {}: {}", i, text);
                }
                if flattens {
                    let even = 1.0 / (i + 1) as f64;
                    let gap = |r: &[f64]| r.iter().map(|x| (x - even).abs()).fold(0.0, f64::max);
                    prop_assert!(gap(&now) <= gap(&one) + ROUNDING, "row {}: {}", i, text);
                    prop_assert!(entropy(&now) >= entropy(&one) - 1e-9, "row {}: {}", i, text);
                }
            }
        }
    }

    /// `row_summary`, `row_glance`, `bar_chart_label` and `cell_description`: the row named, every
    /// key that shares the largest weight named (and no other), its weight, "evenly" only for an
    /// even row, the entropy, "masked (future)" only above the diagonal, for every row of every
    /// head.
    #[test]
    fn row_sentences_name_the_largest_weights(case in case()) {
        let v = case.build();
        let tokens = v.tokens();
        for head in &v.p.heads {
            let w = head.weights(v.tau);
            for i in 0..v.p.len() {
                let row = visible(&w, i);
                let summary = text::row_summary(tokens, &w, i);
                prop_assert_clean!(&summary);
                let lead = format!("Row {} {} ", i + 1, quote(&tokens[i]));
                prop_assert!(summary.starts_with(&lead), "{}", summary);
                let top = tied_top(&row);
                if summary.contains("spreads its attention evenly") {
                    prop_assert!(i > 0);
                    prop_assert!(max_of(&row) - min_of(&row) < ROUNDING, "{}", summary);
                    prop_assert!(summary.ends_with(&format!(": {} on each of its {} tokens.", percent(1.0 / (i + 1) as f64), i + 1)), "{}", summary);
                } else {
                    prop_assert!(i == 0 || max_of(&row) - min_of(&row) >= ROUNDING, "{}", summary);
                    let each = if top.len() > 1 { " each" } else { "" };
                    let said = format!("attends most to {} ({}{each}).", names(tokens, &top, row.len()), percent(row[top[0]]));
                    prop_assert!(summary.ends_with(&said), "expected {:?}: {}", said, summary);
                }
                let glance = text::row_glance(tokens, &w, i);
                prop_assert_eq!(glance, format!("{summary} Entropy {} bits.", fixed(entropy(&row), 3)));
                let bars = text::bar_chart_label(tokens, i, &row);
                let which = if top.len() > 1 { "bars are" } else { "bar is" };
                let each = if top.len() > 1 { " each" } else { "" };
                let said = format!("the largest {which} {} at {}{each}.", names(tokens, &top, row.len()), percent(row[top[0]]));
                prop_assert!(bars.contains(&said), "expected {:?}: {}", said, bars);
                for j in 0..v.p.len() {
                    let cell = text::cell_description(tokens, &w, i, j);
                    prop_assert_clean!(&cell);
                    if j > i {
                        prop_assert_eq!(w[(i, j)], 0.0);
                        prop_assert!(cell.ends_with(": masked (future)"), "{}", cell);
                    } else {
                        prop_assert!(cell.ends_with(&format!(": {}", percent(w[(i, j)]))), "{}", cell);
                    }
                }
            }
        }
    }

    /// `positions_help` and `pair_in_row`: the repeated pair named is the first pair of one word
    /// (capitals folded); without positions it gets "identical keys and values" and "every row that
    /// sees both gives them exactly the same weight" (bit for bit, every head); with positions
    /// "different keys" and "rows weigh them differently"; a row's "exactly the same weight" only
    /// when the two doubles are equal.
    #[test]
    fn positions_help_and_the_repeated_pair(case in case()) {
        let v = case.build();
        let tokens = v.tokens();
        let positions = v.p.config.positions;
        let pair = first_repeated_word(tokens);
        // The pair, found here another way: the first later token equal to an earlier one, folded.
        let by_hand = (0..tokens.len()).flat_map(|b| (0..b).map(move |a| (a, b)))
            .find(|&(a, b)| tokens[a].to_lowercase() == tokens[b].to_lowercase());
        prop_assert_eq!(pair, by_hand);
        let help = text::positions_help(positions, tokens, pair);
        prop_assert_clean!(&help);
        let Some((a, b)) = pair else {
            prop_assert!(help.contains("would"), "{}", help);
            return Ok(());
        };
        prop_assert!(help.contains(&format!("{} (token {}) and {} (token {})", quote(&tokens[a]), a + 1, quote(&tokens[b]), b + 1)), "{}", help);
        let broken = broken_weights_all(&v.p, v.mistakes, v.tau);
        for (h, head) in v.p.heads.iter().enumerate() {
            let w = head.weights(v.tau);
            let same_k = head.k.row(a) == head.k.row(b);
            let same_v = head.v.row(a) == head.v.row(b);
            if help.contains("get identical keys and values") {
                prop_assert!(same_k && same_v, "{}", help);
            }
            if help.contains("every row that sees both gives them exactly the same weight") {
                for r in b..w.nrows() {
                    prop_assert_eq!(w[(r, a)].to_bits(), w[(r, b)].to_bits(), "row {}: {}", r, help);
                }
            }
            if help.contains("now get different keys") {
                prop_assert!(!same_k, "{}", help);
            }
            prop_assert!(!help.contains("rows weigh them differently"), "{}", help);
            // While broken (positions off), the note on the broken weights shown: the rows that
            // see both and those that split them, recounted from the broken heatmap.
            if !positions && !v.mistakes.is_empty() {
                let shown = &broken[h];
                let note = text::broken_pair_note(&PairWeights::of(shown, v.mistakes, (a, b)));
                prop_assert_clean!(&note);
                // A row sees a key its mask leaves, or any key when masked with 0 before the softmax.
                let leak = v.mistakes.contains(Mistake::MaskWithZero) && !v.mistakes.contains(Mistake::MaskAfterSoftmax);
                let seeing: Vec<usize> = (0..shown.nrows())
                    .filter(|&r| leak || (!is_hidden(v.mistakes, r, a) && !is_hidden(v.mistakes, r, b)))
                    .collect();
                let split: Vec<usize> = seeing.iter().copied()
                    .filter(|&r| shown[(r, a)].to_bits() != shown[(r, b)].to_bits())
                    .collect();
                let rows = |n: usize| match n { 0 => "no row sees both".to_string(), 1 => "the 1 row that sees both".to_string(), n => format!("the {n} rows that see both") };
                let verb = |n: usize| if n == 1 { "gives" } else { "give" };
                match split.first() {
                    None if seeing.is_empty() => prop_assert!(note.ends_with("no row sees both."), "{}", note),
                    None => prop_assert!(note.ends_with(&format!("{} {} them the same weight.", rows(seeing.len()), verb(seeing.len()))), "{}", note),
                    Some(&r) => prop_assert!(note.ends_with(&format!(
                        "{} of {} {} them different weights (row {}: {} and {}).",
                        split.len(), rows(seeing.len()), verb(split.len()), r + 1, percent(shown[(r, a)]), percent(shown[(r, b)])
                    )), "{}", note),
                }
            }
            let i = v.row;
            let said = text::pair_in_row(tokens, i, &visible(&w, i), (a, b));
            prop_assert_clean!(&said);
            if b > i {
                prop_assert!(said.contains("does not see both"), "{}", said);
                prop_assert!(said.contains(&format!("pick row {} or later", b + 1)), "{}", said);
            } else if w[(i, a)] == w[(i, b)] {
                prop_assert!(said.contains(&format!("exactly the same weight, {} each.", percent(w[(i, a)]))), "{}", said);
            } else {
                prop_assert!(said.ends_with(&format!("different weights: {} and {}.", percent(w[(i, a)]), percent(w[(i, b)]))), "{}", said);
            }
        }
    }
}
