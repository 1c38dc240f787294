//! The next-token readout's and the generation panel's sentences, from the grammar checkpoint's
//! own numbers: the following token's probability and loss as printed, the last row said plainly,
//! and a draw's u printed inside the share it fell in.

use crate::views::*;
use attention_explorer::format::{fixed, percent};
use attention_explorer::model::next_token::{generate_at, next_token, share_of};
use attention_explorer::model::sampling::Sampler;
use attention_explorer::model::train::tasks::GRAMMAR_WORDS;
use attention_explorer::model::train::transformer::Transformer;
use attention_explorer::text;
use proptest::prelude::*;

fn model() -> Transformer {
    checkpoint().model.clone()
}

/// The numbers a sentence prints, in order ("31.0%" gives 31.0).
fn numbers(text: &str) -> Vec<f64> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|w| w.trim_matches('.').parse().ok())
        .collect()
}

proptest! {
    #![proptest_config(config(96))]

    /// `following_token_text`: the following token named with the model's p and loss as printed,
    /// e^(−loss) agreeing with p, and "the last row" exactly at the last row.
    #[test]
    fn the_following_token_is_named_with_its_probability_and_loss(
        ids in proptest::collection::vec(0usize..29, 1..=16),
        row in any::<prop::sample::Index>(),
        tau_exponent in -2.0f64..2.0,
    ) {
        let model = model();
        let row = row.index(ids.len());
        let p = next_token(&model, &ids, row, 10f64.powf(tau_exponent)).unwrap();
        let text = text::following_token_text(
            p.following.map(|f| (GRAMMAR_WORDS[f.token], f.p, f.loss)),
        );
        prop_assert_clean!(&text);
        if let Some(f) = p.following {
            prop_assert!(row + 1 < ids.len());
            prop_assert!(text.contains(&format!("“{}”", GRAMMAR_WORDS[ids[row + 1]])), "{}", text);
            prop_assert!(text.contains(&percent(f.p)), "{}", text);
            prop_assert!(text.contains(&format!("{} nats", fixed(f.loss, 3))), "{}", text);
            prop_assert!(((-f.loss).exp() - f.p).abs() < 1e-9);
            prop_assert!(!text.contains("last row"));
        } else {
            prop_assert_eq!(row + 1, ids.len());
            prop_assert!(text.starts_with("This is the last row"), "{}", text);
        }
        let caption = text::next_token_caption(GRAMMAR_WORDS[ids[row]], row);
        let end = format!("(row {})", row + 1);
        prop_assert!(caption.ends_with(&end), "{}", caption);
        let rest = ids.len().min(29);
        prop_assert_clean!(text::other_tokens(rest));
    }

    /// `draw_text`: the printed u lies in the printed share, never equal to an end it is not,
    /// and a greedy step says there was no draw.
    #[test]
    fn the_draw_is_printed_inside_its_share(
        prompt in proptest::collection::vec(0usize..29, 1..=8),
        t in 0.0f64..=2.0,
        k in 1usize..=29,
        seed in 0u64..100_000,
    ) {
        let model = model();
        let sampler = Sampler { temperature: t, top_k: k };
        let steps = generate_at(&model, &prompt, 16 - prompt.len(), sampler, seed, 1.0).unwrap();
        for step in &steps {
            let share = share_of(&step.probs, step.token);
            let text = text::draw_text(step.draw, GRAMMAR_WORDS[step.token], share);
            prop_assert_clean!(&text);
            match step.draw {
                None => prop_assert!(text.starts_with("Greedy") && sampler.is_greedy(), "{}", text),
                Some(u) => {
                    let n = numbers(&text);
                    let (shown_u, start, end) = (n[0], n[1], n[2]);
                    prop_assert!(start <= shown_u && shown_u <= end, "{}", text);
                    prop_assert!(shown_u != end || u == share.1, "{}", text);
                    prop_assert!(shown_u != start || u == share.0, "{}", text);
                }
            }
        }
        let words: Vec<String> = steps.iter().map(|s| GRAMMAR_WORDS[s.token].to_string()).collect();
        let summary = text::generated_text(&words);
        prop_assert_clean!(&summary);
        prop_assert!(summary.contains(&format!("Generated {} token", words.len())), "{}", summary);
    }
}
