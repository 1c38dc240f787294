//! The generate page's numbers: its link (read, clamped, written back), the prompt check, and
//! generations of the shipped tiny-grammar model over many settings (the cache bit-identical to
//! the full pass, the text reproducible from the seed, the context's end), and what τ changes.
#![cfg(not(target_arch = "wasm32"))]

mod shipped;

use attention_explorer::model::generate_page::link::{GenerateLink, Writer, MAX_GENERATED, VOCAB};
use attention_explorer::model::generate_page::run::{read_prompt, GenerationRun};
use attention_explorer::model::generate_page::{tau_effect, HeatmapChanger};
use attention_explorer::model::sampling::argmax;
use proptest::prelude::*;
use shipped::grammar_model;

fn link(
    prompt: &str,
    temperature: f64,
    top_k: usize,
    seed: u64,
    generated: usize,
    tau: f64,
) -> GenerateLink {
    GenerateLink {
        prompt: prompt.into(),
        temperature,
        top_k,
        seed,
        generated,
        tau,
        writer: Writer::Shipped,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn a_link_reads_back_as_written(
        prompt in "[a-z .]{0,30}",
        t in 0u32..=40,
        top_k in 1usize..=VOCAB,
        seed in 0u64..=u64::from(u32::MAX),
        generated in 0usize..=MAX_GENERATED,
        tau_step in 0u32..=99,
        yours in any::<bool>(),
    ) {
        let written = GenerateLink {
            prompt,
            temperature: f64::from(t) * 0.05,
            top_k,
            seed,
            generated,
            tau: 0.1 + f64::from(tau_step) * 0.1,
            writer: if yours { Writer::Yours } else { Writer::Shipped },
        };
        let (read, notices) = GenerateLink::from_query(&written.to_query());
        prop_assert_eq!(read, written);
        prop_assert!(notices.is_empty());
    }

    /// Any value in any key: no panic, every setting in range, a notice for each value not taken.
    #[test]
    fn any_link_gives_settings_in_range(values in proptest::collection::vec("[-0-9a-z.%e]{0,8}", 7)) {
        let query: Vec<String> = GenerateLink::KEYS.iter().zip(&values).map(|(k, v)| format!("{k}={v}")).collect();
        let (read, _) = GenerateLink::from_query(&query.join("&"));
        prop_assert!((0.0..=2.0).contains(&read.temperature));
        prop_assert!((1..=VOCAB).contains(&read.top_k));
        prop_assert!(read.generated <= MAX_GENERATED);
        prop_assert!((0.1..=10.0).contains(&read.tau));
    }
}

#[test]
fn values_out_of_range_are_clamped_with_a_notice() {
    let (read, notices) = GenerateLink::from_query("?t=5&k=0&n=99&tau=0.01&seed=x&w=mine&t=1");
    assert_eq!(
        (
            read.temperature,
            read.top_k,
            read.generated,
            read.tau,
            read.seed
        ),
        (2.0, 1, MAX_GENERATED, 0.1, 1)
    );
    assert_eq!(notices.len(), 7, "{notices:?}");
    assert!(
        notices[0].contains("t=“5” is outside 0–2; using 2"),
        "{notices:?}"
    );
    assert!(notices.iter().any(|n| n.contains("repeats “t”")));
    assert!(notices.iter().any(|n| n.contains("Ignored w=“mine”")));
}

#[test]
fn a_prompt_is_read_word_by_word_and_capped() {
    let max_len = grammar_model().config().max_len;
    assert_eq!(
        read_prompt("The cat sat", max_len).unwrap().ids,
        vec![0, 2, 14]
    );
    let err = read_prompt("the unicorn flew and flew <b>", max_len).unwrap_err();
    assert!(
        err.contains("these words: “unicorn”, “flew”, “<”, “b”, “>” are not among the 29"),
        "{err}"
    );
    assert!(err.contains("the my cat dog"), "{err}");
    assert!(read_prompt("  ", max_len)
        .unwrap_err()
        .starts_with("Type a prompt"));
    let long = read_prompt(&"the cat sat on the mat . ".repeat(3), max_len).unwrap();
    assert_eq!(long.ids.len(), max_len - 1);
    assert!(long
        .notice
        .unwrap()
        .contains("cut to its first 15 tokens (it has 21)"));
}

/// Many generations: the text fits the context, each step's token is its draw's choice, the
/// cache matches the full pass bit for bit, and the same link writes the same text.
#[test]
fn generations_over_many_settings_are_exact_and_reproducible() {
    let model = grammar_model();
    let max_len = model.config().max_len;
    let mut runs = 0;
    for prompt in [
        "the",
        "the cat sat on",
        "my dogs are",
        "the cat sat on the mat . the",
    ] {
        let ids = read_prompt(prompt, max_len).unwrap().ids;
        for (temperature, top_k) in [(0.0, VOCAB), (0.5, 3), (1.0, 1), (1.0, VOCAB), (2.0, 5)] {
            for tau in [0.1, 0.5, 1.0, 3.0, 10.0] {
                for seed in [0, 1, 77] {
                    let l = link(prompt, temperature, top_k, seed, MAX_GENERATED, tau);
                    let run = GenerationRun::compute(&model, &ids, &l).unwrap();
                    assert_eq!(run.sequence.len(), max_len);
                    assert_eq!(run.steps.len(), max_len - ids.len());
                    assert_eq!(run.stopped.is_some(), ids.len() > 1, "{prompt}");
                    assert_eq!(run.check.differing, 0);
                    assert!(run.check.compared > 0);
                    assert_eq!(run.rows.len(), run.sequence.len());
                    for (i, step) in run.steps.iter().enumerate() {
                        let row = &run.rows[ids.len() + i - 1];
                        let sum: f64 = step.probs.iter().sum();
                        assert!((sum - 1.0).abs() < 1e-12);
                        assert_eq!(step.logits, row.logits);
                        if temperature == 0.0 || top_k == 1 {
                            assert_eq!(step.token, argmax(&row.logits));
                            assert!(temperature != 0.0 || step.draw.is_none());
                        }
                    }
                    assert_eq!(GenerationRun::compute(&model, &ids, &l).unwrap(), run);
                    runs += 1;
                }
            }
        }
    }
    assert_eq!(runs, 4 * 5 * 5 * 3);
}

#[test]
fn fewer_tokens_than_the_room_leave_no_message() {
    let model = grammar_model();
    let run = GenerationRun::compute(&model, &[0], &link("the", 1.0, VOCAB, 1, 3, 1.0)).unwrap();
    assert_eq!((run.sequence.len(), run.stopped), (4, None));
    let shorter =
        GenerationRun::compute(&model, &[0], &link("the", 1.0, VOCAB, 1, 2, 1.0)).unwrap();
    assert_eq!(shorter.sequence, run.sequence[..3]);
}

#[test]
fn tau_changes_weights_and_only_tau_is_the_answer() {
    let model = grammar_model();
    let ids = read_prompt("the cat sat on the mat .", 16).unwrap().ids;
    assert_eq!(tau_effect(&model, &ids, 1.0, 1.0), None);
    assert_eq!(tau_effect(&model, &ids[..1], 1.0, 4.0), None);
    for (a, b) in [(1.0, 0.1), (1.0, 2.0), (0.5, 10.0)] {
        let e = tau_effect(&model, &ids, a, b).unwrap();
        assert!(e.key <= e.row && e.before != e.after);
        let at = |tau| {
            attention_explorer::model::next_token::next_token_rows(&model, &ids, tau).unwrap()
        };
        assert_eq!(at(a)[e.row].attention[e.layer][e.head][e.key], e.before);
        assert_eq!(at(b)[e.row].attention[e.layer][e.head][e.key], e.after);
    }
    let right: Vec<_> = HeatmapChanger::ALL
        .iter()
        .filter(|c| c.is_right())
        .collect();
    assert_eq!(right, [&HeatmapChanger::Tau]);
}
