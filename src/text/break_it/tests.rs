//! The Break it sentences checked against the live numbers they state (heads, positions,
//! temperatures, each mistake alone and some together) and read by hand on the default view.

use super::*;
use crate::model::broken::{broken_weights_all, Damage, Mistake, Mistakes};
use crate::model::explorer::{default_view, Prepared};

fn set(mistakes: &[Mistake]) -> Mistakes {
    mistakes.iter().copied().collect()
}

/// The default view's head `h` at τ, correct and with `mistakes`, and the damage sentences.
fn sentences(p: &Prepared, mistakes: Mistakes, h: usize, tau: f64) -> Vec<String> {
    let correct = p.heads[h].weights(tau);
    let broken = broken_weights_all(p, mistakes, tau).swap_remove(h);
    damage_sentences(&Damage::new(&correct, &broken), mistakes, p.heads.len())
}

#[test]
fn every_mistake_has_words_and_code() {
    for m in Mistake::ALL {
        assert!(!mistake_label(m).is_empty() && mistake_why(m).ends_with('.'));
        let (wrong, right) = mistake_code(m);
        assert_ne!(wrong, right);
    }
    let banner = broken_banner(set(&[Mistake::WrongTriangle, Mistake::Dropout]), (21, 0));
    assert!(banner.starts_with("BROKEN: this is not correct attention — The wrong triangle"));
    assert!(banner.contains("; Dropout on the weights"));
    assert!(banner.contains("; 21 hatched cells see the future."));
    assert!(broken_banner(set(&[Mistake::Dropout]), (0, 0))
        .contains("; no cell of this heatmap sees the future."));
    assert!(broken_banner(set(&[Mistake::MaskWithZero]), (1, 0))
        .contains("; 1 hatched cell sees the future."));
}

/// The banner's count of hatched cells, recounted here, for every mistake alone and at every
/// end of the τ slider: the mistakes that keep the mask see no future, the others do (mask with
/// 0 until the visible scores drown the future's e⁰ at the coldest τ).
#[test]
fn the_banner_counts_the_cells_that_see_the_future() {
    use crate::model::broken::future_cells;
    let p = default_view(2, false);
    let t = p.len();
    for m in Mistake::ALL {
        for tau in [0.05, 0.3, 1.0, 5.0, 100.0] {
            for h in 0..p.heads.len() {
                let broken = broken_weights_all(&p, set(&[m]), tau).swap_remove(h);
                let seeing: Vec<f64> = (0..t)
                    .flat_map(|i| (i + 1..t).map(move |j| (i, j)))
                    .map(|(i, j)| broken[(i, j)])
                    .filter(|&w| w > 0.0)
                    .collect();
                let recount = seeing.len();
                let tiny = seeing
                    .iter()
                    .filter(|&&w| crate::format::percent(w) == "0.0%")
                    .count();
                assert_eq!(future_cells(&broken), (recount, tiny));
                let banner = broken_banner(set(&[m]), (recount, tiny));
                assert_eq!(banner.contains("too small to print"), tiny > 0, "{banner}");
                assert_eq!(
                    banner.contains("no cell of this heatmap sees the future"),
                    recount == 0,
                    "{m:?} {tau}: {banner}"
                );
                let keeps_mask = !matches!(m, Mistake::WrongTriangle | Mistake::MaskWithZero);
                if keeps_mask {
                    assert_eq!(recount, 0, "{m:?} at τ = {tau}");
                }
                if m == Mistake::WrongTriangle {
                    assert!(recount > 0, "the wrong triangle at τ = {tau}");
                }
            }
        }
    }
}

/// Each sentence's numbers, recomputed here from the weights (not from `Damage`).
#[test]
fn the_damage_sentences_state_the_live_numbers() {
    let p = default_view(2, false);
    let t = p.len();
    for m in Mistake::ALL {
        for tau in [0.05, 1.0, 20.0] {
            let mistakes = set(&[m]);
            let broken = broken_weights_all(&p, mistakes, tau).swap_remove(1);
            let said = sentences(&p, mistakes, 1, tau);
            let what = format!("{m:?} τ={tau}: {said:?}");
            let sums: Vec<f64> = (0..t).map(|i| broken.row(i).sum()).collect();
            let off = sums.iter().filter(|s| (*s - 1.0).abs() > 1e-12).count();
            match off {
                0 => assert!(
                    said.contains(&"Every row still sums to 1.".to_string()),
                    "{what}"
                ),
                1 => assert!(
                    said.iter()
                        .any(|s| s.starts_with(&format!("1 row of {t} no"))),
                    "{what}"
                ),
                n => assert!(
                    said.iter()
                        .any(|s| s.starts_with(&format!("{n} rows of {t} no"))),
                    "{what}"
                ),
            }
            let future: Vec<f64> = (0..t)
                .flat_map(|i| (i + 1..t).map(move |j| (i, j)))
                .map(|(i, j)| broken[(i, j)])
                .filter(|&w| w > 0.0)
                .collect();
            let total: f64 = future.iter().sum();
            let expected = match future.len() {
                0 => "No cell sees the future".to_string(),
                1 => format!(
                    "1 cell above the diagonal sees the future, with {}",
                    fixed(total, 3)
                ),
                n => format!(
                    "{n} cells above the diagonal see the future, with {}",
                    fixed(total, 3)
                ),
            };
            assert!(said.iter().any(|s| s.starts_with(&expected)), "{what}");
            if m == Mistake::SoftmaxOverColumns {
                let ones = (0..t)
                    .filter(|&j| (broken.column(j).sum() - 1.0).abs() < 1e-12)
                    .count();
                assert_eq!(ones, t, "{what}");
                assert!(
                    said.iter()
                        .any(|s| s.starts_with(&format!("{t} of {t} columns sum to 1"))),
                    "{what}"
                );
            }
        }
    }
}

/// The spread sentence's numbers and verdict, recomputed here from the weights over many
/// views: every mistake alone and in pairs, head splits, heads, positions and the τ range.
#[test]
fn the_spread_sentence_follows_both_measures() {
    let mut seen = std::collections::HashSet::new();
    for heads in [1, 2, 4] {
        for positions in [false, true] {
            let p = default_view(heads, positions);
            let t = p.len();
            for tau in [0.01, 0.2, 1.0, 3.0, 50.0, 100.0] {
                let mut sets: Vec<Mistakes> = Mistake::ALL.iter().map(|&m| set(&[m])).collect();
                sets.push(set(&[Mistake::MaskAfterSoftmax, Mistake::Dropout]));
                sets.push(set(&[Mistake::WrongTriangle, Mistake::MaskWithZero]));
                sets.push(set(&[
                    Mistake::SoftmaxOverColumns,
                    Mistake::MultiplyBySqrtD,
                ]));
                for mistakes in sets {
                    for h in 0..heads {
                        let good = p.heads[h].weights(tau);
                        let bad = broken_weights_all(&p, mistakes, tau).swap_remove(h);
                        let damage = Damage::new(&good, &bad);
                        let rescaled = damage.rows_off().next().is_some();
                        let said = spread_sentence(&damage, rescaled);
                        let what = format!("{mistakes:?} τ={tau} h={h}: {said}");
                        let mean = |f: &dyn Fn(&[f64]) -> f64, w: &DMatrix<f64>| {
                            (0..t)
                                .map(|i| {
                                    let row: Vec<f64> = w.row(i).iter().copied().collect();
                                    let sum: f64 = row.iter().sum();
                                    let row: Vec<f64> = if sum > 0.0 {
                                        row.iter().map(|x| x / sum).collect()
                                    } else {
                                        row
                                    };
                                    f(&row)
                                })
                                .sum::<f64>()
                                / t as f64
                        };
                        let max = |r: &[f64]| r.iter().copied().fold(0.0, f64::max);
                        let entropy = |r: &[f64]| crate::model::stats::row_entropy_bits(r);
                        let (bm, cm) = (mean(&max, &bad), mean(&max, &good));
                        let (be, ce) = (mean(&entropy, &bad), mean(&entropy, &good));
                        assert!(
                            said.contains(&format!(
                                "all {t} rows, row 1 included, the largest weight is {} (correct: {}) and the entropy {} bits (correct: {} bits): ",
                                percent(bm), percent(cm), fixed(be, 3), fixed(ce, 3)
                            )),
                            "{what}"
                        );
                        assert_eq!(said.starts_with("Each row divided by its sum"), rescaled);
                        // No largest weight above 100 %: each row is a distribution again.
                        assert!(
                            damage.rows.iter().all(|r| r.broken_max <= 1.0 + 1e-12),
                            "{what}"
                        );
                        // Means that print alike are "the same"; otherwise the sign decides.
                        let max_says = if percent(bm) == percent(cm) {
                            0
                        } else if bm > cm {
                            1
                        } else {
                            -1
                        };
                        let entropy_says = if fixed(be, 3) == fixed(ce, 3) {
                            0
                        } else if be < ce {
                            1
                        } else {
                            -1
                        };
                        let words = |k: i32| match k {
                            1 => "the rows are peakier",
                            -1 => "the rows are flatter",
                            _ => "the rows are as peaked as correct ones",
                        };
                        if max_says == entropy_says {
                            assert!(said.ends_with(&format!(": {}.", words(max_says))), "{what}");
                        } else {
                            assert!(said.contains("do not agree"), "{what}");
                            assert!(
                                said.contains(&format!("by entropy, {};", words(entropy_says))),
                                "{what}"
                            );
                            assert!(
                                said.contains(&format!(
                                    "by the largest weight, {}:",
                                    words(max_says)
                                )),
                                "{what}"
                            );
                        }
                        seen.insert((max_says, entropy_says));
                    }
                }
            }
        }
    }
    // The views cover agreement each way and disagreement.
    assert!(
        seen.contains(&(1, 1)) && seen.contains(&(-1, -1)) && seen.contains(&(0, 0)),
        "{seen:?}"
    );
    assert!(seen.iter().any(|(m, e)| m != e), "{seen:?}");
}

/// The note under the positions switch while broken, on the live numbers of every mistake.
#[test]
fn the_broken_pair_note_counts_the_rows() {
    let p = default_view(2, false);
    let pair = crate::model::claims::first_repeated_word(&p.config.tokens).unwrap();
    for m in Mistake::ALL {
        for tau in [0.1, 1.0, 10.0] {
            let on = set(&[m]);
            let w = broken_weights_all(&p, on, tau).swap_remove(0);
            let counted = PairWeights::of(&w, on, pair);
            let said = broken_pair_note(&counted);
            let rows = |n: usize| {
                if n == 1 {
                    "the 1 row that sees both".to_string()
                } else {
                    format!("the {n} rows that see both")
                }
            };
            let verb = |n: usize| if n == 1 { "gives" } else { "give" };
            if counted.differing == 0 {
                let end = format!(
                    "{} {} them the same weight.",
                    rows(counted.seeing),
                    verb(counted.seeing)
                );
                assert!(said.ends_with(&end), "{said}");
            } else {
                let (i, a, b) = counted.first_differing.unwrap();
                let count = format!(
                    "{} of {} {} them different weights",
                    counted.differing,
                    rows(counted.seeing),
                    verb(counted.differing)
                );
                assert!(said.contains(&count), "{said}");
                let example = format!("(row {}: {} and {})", i + 1, percent(a), percent(b));
                assert!(said.contains(&example), "{said}");
            }
        }
    }
    let columns = set(&[Mistake::SoftmaxOverColumns]);
    let w = broken_weights_all(&p, columns, 1.0).swap_remove(0);
    assert!(broken_pair_note(&PairWeights::of(&w, columns, pair))
        .starts_with("That is correct attention;"));
}

/// The "why" sentences' claims: a larger divisor never makes a row peakier, multiplying
/// never makes one flatter; masking with 0 keeps rows at 1 but feeds the future; masking after
/// the softmax leaves every row with a future short of 1; the wrong triangle sees the future.
#[test]
fn the_why_sentences_hold_on_the_default_view() {
    for heads in [1, 2, 4, 8] {
        for positions in [false, true] {
            let p = default_view(heads, positions);
            let t = p.len();
            for tau in [0.01, 0.3, 1.0, 7.0, 100.0] {
                for (h, head) in p.heads.iter().enumerate() {
                    let good = head.weights(tau);
                    let d = |m: Mistake| {
                        let w = broken_weights_all(&p, set(&[m]), tau).swap_remove(h);
                        Damage::new(&good, &w)
                    };
                    let (flat, peaked) =
                        (d(Mistake::ScaleByModelWidth), d(Mistake::MultiplyBySqrtD));
                    for i in 0..t {
                        let (f, k) = (flat.rows[i], peaked.rows[i]);
                        assert!(f.broken_max <= f.correct_max + 1e-12);
                        assert!(f.broken_entropy >= f.correct_entropy - 1e-9);
                        assert!(k.broken_max >= k.correct_max - 1e-12);
                        assert!(k.broken_entropy <= k.correct_entropy + 1e-9);
                    }
                    if heads == 1 {
                        assert_eq!(flat.largest_change.0, 0.0);
                    }
                    let zero = d(Mistake::MaskWithZero);
                    assert!(zero.rows_off().next().is_none());
                    assert_eq!(zero.future_cells.len(), t * (t - 1) / 2);
                    let after = d(Mistake::MaskAfterSoftmax);
                    // Never above 1; below it wherever the future's share did not
                    // underflow to 0 (at τ = 0.01 it can).
                    assert!(after.rows.iter().all(|r| r.sum <= 1.0 + 1e-12));
                    if tau >= 0.3 {
                        assert!(after.rows[..t - 1].iter().all(|r| r.sum < 1.0));
                    }
                    assert!(d(Mistake::WrongTriangle).future_cells.len() == t * (t - 1) / 2);
                }
            }
        }
    }
}

#[test]
fn one_head_scaled_by_d_model_changes_nothing_and_says_why() {
    let p = default_view(1, false);
    let said = sentences(&p, set(&[Mistake::ScaleByModelWidth]), 0, 1.0);
    assert!(
        said[0].starts_with("No weight changed: every weight is exactly correct attention's."),
        "{said:?}"
    );
    assert!(said[0].ends_with("With one head d = d_model, so √d_model is √d: try 2 or more heads."));
    assert!(said
        .iter()
        .any(|s| s.ends_with(": the rows are as peaked as correct ones.")));
    let two = sentences(
        &default_view(2, false),
        set(&[Mistake::ScaleByModelWidth]),
        0,
        1.0,
    );
    assert!(two[0].starts_with("The largest change of any weight is "));
    assert!(
        two.iter().any(|s| s.ends_with(": the rows are flatter.")),
        "{two:?}"
    );
}

#[test]
fn broken_cells_and_rows_read_by_hand() {
    let tokens: Vec<String> = ["a", "b"].iter().map(|s| (*s).to_string()).collect();
    let w = DMatrix::from_row_slice(2, 2, &[0.25, 0.75, 0.0, 1.0]);
    assert_eq!(
        broken_cell_description(&tokens, &w, 0, 1),
        "a → b: 75.0% (sees the future!)"
    );
    assert_eq!(broken_cell_description(&tokens, &w, 1, 0), "b → a: 0.0%");
    assert_eq!(
        broken_row_summary(&tokens, &w, 0),
        "Row 1 “a” attends most to “b” (75.0%); its weights sum to 1.000."
    );
    assert_eq!(
        broken_heatmap_label("Map", 2, 1),
        "Map, BROKEN (not correct attention): 2 query tokens by 2 key tokens; colour shows the weight, 1 cell above the diagonal sees the future and is hatched, grey cells have weight 0."
    );
    assert_eq!(signed(-0.25), "−0.250");
    assert_eq!(broken_stats_note(1.0), None);
    assert!(broken_stats_note(1.111_1)
        .unwrap()
        .starts_with("This broken row sums to 1.111, not 1:"));
    assert_eq!(signed(1e-6), "+1.0e-6");
}

/// The cheating sentence names the row with the largest weight on its own next token, for
/// every mistake, head split and temperature of the default view; none for correct attention.
#[test]
fn the_cheating_sentence_names_the_row_that_reads_its_answer() {
    for heads in [1, 2, 4] {
        let p = default_view(heads, false);
        let tokens = &p.config.tokens;
        for tau in [0.25, 1.0, 4.0] {
            for m in Mistake::ALL {
                for (h, w) in broken_weights_all(&p, set(&[m]), tau).iter().enumerate() {
                    let next: Vec<f64> = (0..tokens.len() - 1).map(|i| w[(i, i + 1)]).collect();
                    let best = next.iter().copied().fold(0.0, f64::max);
                    match cheating_sentence(tokens, w) {
                        None => assert!(best <= ROUNDING_TOLERANCE, "{m:?} head {h}"),
                        Some(text) => {
                            let i = next.iter().position(|&x| x == best).unwrap();
                            assert!(
                                text.starts_with(&format!("Look first at row {} ", i + 1)),
                                "{text}"
                            );
                            assert!(text.contains(&percent(best)), "{text}");
                        }
                    }
                }
            }
            assert_eq!(cheating_sentence(tokens, &p.heads[0].weights(tau)), None);
        }
    }
}

/// Means that print alike are called the same, even where their unprinted digits differ (the
/// wrong-triangle mistake at large τ prints the same entropy, broken and correct).
#[test]
fn spread_means_that_print_alike_are_the_same() {
    let mut printed_alike = 0;
    for heads in [1, 2, 4] {
        let p = default_view(heads, true);
        for h in 0..heads {
            for tau in [30.0, 60.0, 100.0] {
                let correct = p.heads[h].weights(tau);
                let broken =
                    broken_weights_all(&p, set(&[Mistake::WrongTriangle]), tau).swap_remove(h);
                let damage = Damage::new(&correct, &broken);
                let (be, ce) = (
                    damage.mean(|r| r.broken_entropy),
                    damage.mean(|r| r.correct_entropy),
                );
                if be != ce && fixed(be, 3) == fixed(ce, 3) {
                    printed_alike += 1;
                    let said = spread_sentence(&damage, false);
                    assert!(
                        said.contains("by entropy, the rows are as peaked as correct ones")
                            || said.ends_with(": the rows are as peaked as correct ones."),
                        "{said}"
                    );
                }
            }
        }
    }
    assert!(printed_alike > 0, "no view prints unequal entropies alike");
}
