//! The training page's sentences against their numbers.

use super::*;

/// The agreement lines: counts and shares as the report has them, and the head that weights the
/// subject most named with both of its weights.
#[test]
fn agreement_lines_count_and_name_the_subject_s_head() {
    let report = AgreementReport {
        sentences: 64,
        correct: 62,
        mismatched: 32,
        mismatched_correct: 31,
        subject_weight: vec![vec![0.1, 0.624], vec![0.624, 0.3]],
        attractor_weight: vec![vec![0.5, 0.031], vec![0.2, 0.1]],
    };
    let counts = "At step 400 the right verb is more probable than the wrong one in 62 of 64 held-out sentences (96.9%), and in 31 of the 32 whose nearer noun differs from the subject in number, one singular and the other plural (96.9%).";
    // A tie names the first head.
    assert_eq!(
        agreement_summary(400, &report),
        format!("{counts} From the nearer noun's row, layer 1, head 2 looks at the subject most: 0.62 of its weight on average, against 0.03 on the nearer noun itself.")
    );
    let empty = AgreementReport {
        subject_weight: vec![],
        attractor_weight: vec![],
        ..report
    };
    assert_eq!(agreement_summary(400, &empty), counts);
}

/// The copying circuit's checklist and summary (`CircuitCheck`): head numbers from 1, every
/// number beside its threshold, never rounded onto it, and each way a run can stand.
#[test]
fn circuit_lines_say_which_head_and_how_far() {
    let check = |prev: f64, ind: Option<f64>, ratio: f64| CircuitCheck {
        previous_token: BestHead {
            head: 0,
            score: prev,
        },
        induction: ind.map(|score| BestHead { head: 1, score }),
        repeat_ratio: ratio,
    };
    let formed = check(0.851, Some(0.79), 0.214);
    let [previous, induction, copying] = circuit_items(&formed);
    assert_eq!(
        previous,
        CircuitItem {
            met: true,
            status: "Met",
            text: "previous-token head in layer 1: head 1 scores 0.85 (at least 0.70 needed)."
                .into(),
        }
    );
    assert_eq!(
        induction.text,
        "induction head in layer 2: head 2 scores 0.79 (at least 0.50 needed)."
    );
    assert_eq!(
        copying.text,
        "copying pays off: the loss on the repeated part is 21.4% of the first copy's (at most 30% needed)."
    );
    // Just short of a threshold: more digits, so the number never reads as the limit.
    let close = check(0.6951, Some(0.499_999_9), 0.300_04);
    let items = circuit_items(&close);
    assert!(items.iter().all(|i| !i.met && i.status == "Not yet"));
    assert!(
        items[0].text.contains("scores 0.695 (at"),
        "{}",
        items[0].text
    );
    assert!(
        items[1].text.contains("scores 0.4999999 (at"),
        "{}",
        items[1].text
    );
    assert!(items[2].text.contains("is 30.004% of"), "{}", items[2].text);
    // Exactly on a threshold is met, and printed as the threshold.
    let on = circuit_items(&check(0.7, Some(0.5), 0.3));
    assert!(on.iter().all(|i| i.met));
    assert!(on[0].text.contains("scores 0.70 (at least 0.70 needed)"));
    let one_layer = check(0.9, None, 0.2);
    let items = circuit_items(&one_layer);
    assert_eq!((items[1].met, items[1].status), (false, "Not possible"));
    assert!(circuit_summary(300, &one_layer, None).contains("cannot form: it takes two layers"));
    assert_eq!(
        circuit_summary(1_200, &formed, Some(1_100)),
        "At step 1,200 the copying circuit has formed: all three conditions hold (they first did at the evaluation of step 1,100). Formed asks, among the three, that the repeated part's loss be at most 30% of the first copy's."
    );
    assert!(circuit_summary(1_100, &formed, Some(1_100))
        .contains("for the first time in this run. Formed asks"));
    assert!(circuit_summary(500, &close, Some(1_100)).contains(
        "in this run it forms at the evaluation of step 1,100 (move Replay to that step or later). Formed asks"
    ));
    assert!(circuit_summary(1_500, &close, Some(1_100))
        .ends_with("though they did at the evaluation of step 1,100."));
    assert!(
        circuit_summary(500, &close, None).contains("has not formed yet: it counts as formed when")
    );
}

#[test]
fn training_sentences_say_what_is_shown() {
    assert!(training_status(0, "tiny grammar", false).starts_with("Not trained yet"));
    assert_eq!(
        training_status(40, "repeat", true),
        "Training on the repeat task in your browser…"
    );
    assert_eq!(
        training_status(1, "tiny grammar", false),
        "Trained for 1 step on the tiny grammar task; these weights were learned in your browser."
    );
    assert!(training_status(250, "repeat", false)
        .starts_with("Trained for 250 steps on the repeat task"));
    assert_eq!(training_rate(12.34, 256), "12.3 steps/s, 3,159 tokens/s");
    assert_eq!(
        loss_explainer(32, 64, Some(4.4371)),
        "The loss of one prediction is −ln p, where p is the probability the model gave the token that really came next: 0 if it was sure and right, ln\u{a0}2\u{a0}≈\u{a0}0.693 if it gave that token one half, and more the less it expected it. The chart shows its mean over every token predicted in 64 held-out sequences, kept apart from the training data, in nats (natural-log units). Spreading every guess evenly over the task's 32 tokens would score ln\u{a0}32\u{a0}≈\u{a0}3.466 nats. At step 0 the random starting weights score 4.437 nats, worse than that even guess."
    );
    assert!(loss_explainer(29, 64, Some(3.0))
        .ends_with("29 tokens would score ln\u{a0}29\u{a0}≈\u{a0}3.367 nats. At step 0 the random starting weights score 3.000 nats, better than that even guess."));
    assert!(loss_explainer(29, 64, None).ends_with("ln\u{a0}29\u{a0}≈\u{a0}3.367 nats."));
    assert!(loss_chart_label(None, None).ends_with(
        "and on the repeated part (each copy's tokens after its first, since nothing before a copy's first token says that a copy starts there); the table below gives the values."
    ));
    assert!(loss_chart_label(None, Some(Milestone::CircuitFormed(1100))).contains(
        "copy starts there), and a dashed vertical line at step 1,100, where the copying circuit first formed;"
    ));
    assert!(loss_chart_label(Some(1.3196), None).ends_with(
        "the grammar's floor for held-out sentences, 1.320 nats, as a dashed line; the table below gives the values."
    ));
    assert!(loss_chart_label(Some(1.3196), Some(Milestone::NearFloor(125))).contains(
        "1.320 nats, as a dashed line, and a dashed vertical line at step 125, where the held-out loss first came within 10% of its floor;"
    ));
    assert_eq!(
        Milestone::CircuitFormed(825).legend(),
        "copying circuit first formed (step 825)"
    );
    assert_eq!(
        Milestone::NearFloor(125).legend(),
        "first within 10% of the floor (step 125)"
    );
    let floors = GrammarFloors {
        held_out: crate::model::train::tasks::Grammar::REFERENCE.held_out_floor(),
        training: crate::model::train::tasks::Grammar::REFERENCE.achievable_minimum(),
    };
    assert_eq!(
        grammar_verdict(200, 1.35, floors, 64, Some(175)),
        "The chart shows the loss on held-out sentences, which training never uses. A model that had learned the grammar's rules exactly would average 1.320 nats on them (the dashed horizontal line, computed exactly by listing every sentence of the grammar), and 1.291 nats on its training sentences. At step 200 the held-out loss is 1.350 nats, 2.3% above the line. It first came within 10% of the line at step 175."
    );
    assert!(grammar_verdict(0, 3.0, floors, 64, None)
        .ends_with("127.3% above the line. It has not come within 10% of the line yet."));
    assert!(grammar_verdict(900, 1.3, floors, 64, Some(150)).contains(
        "1.300 nats, 1.5% below the line: the curve averages 64 held-out sequences, a sample,"
    ));
    assert_eq!(
        retrain_progress(50, 200),
        "Retraining to the link's step 200: 50 of 200 steps done."
    );
    // Counts of steps group their thousands, as every count on the page does.
    assert_eq!(
        retrain_progress(1_000, 20_000),
        "Retraining to the link's step 20,000: 1,000 of 20,000 steps done."
    );
    assert!(training_status(1_500, "repeat", false)
        .starts_with("Trained for 1,500 steps on the repeat task"));
    assert!(
        checkpoints_note(40, 1_600, 64).starts_with("40 checkpoints kept, one every 1,600 steps")
    );
    assert!(repeat_verdict(2_500, 0.8, true).starts_with("Stuck: at step 2,500"));
    for (n, word) in [(0, "steps"), (1, "step"), (2, "steps"), (1_500, "steps")] {
        assert_eq!(steps_word(n), word, "{n}");
    }
    assert!(repeat_verdict(2_500, 0.8, true).contains(&percent(0.8)));
    assert_eq!(
        repeat_verdict(900, 0.25, false),
        format!(
            "At step 900 the loss on the repeated part is {} of the first copy's.",
            percent(0.25)
        )
    );
    assert_eq!(score_cell(None), "–");
    assert_eq!(
        (loss_cell(None), loss_cell(Some(3.46571))),
        ("–".into(), "3.466".into())
    );
    assert_eq!(score_cell(Some(0.256)), "0.26");
    assert_eq!(replay_readout(50, false), "step 50 (checkpoint)");
    assert_eq!(replay_readout(75, true), "step 75 (latest evaluation)");
    assert!(checkpoints_note(1, 25, 64).starts_with("1 checkpoint kept, one every 25 steps"));
    assert!(checkpoints_note(33, 50, 64).starts_with("33 checkpoints kept, one every 50 steps"));
}

#[test]
fn checkpoints_note_matches_a_real_timeline() {
    use crate::model::train::page::checkpoints::Checkpoints;
    let mut c = Checkpoints::new(64, 25);
    for step in (0..=1_600).step_by(25) {
        c.offer(step, || ());
    }
    assert_eq!(
        checkpoints_note(c.kept().len(), c.interval(), 64),
        "33 checkpoints kept, one every 50 steps from step 0. At most 64 are kept: when the timeline is full, every second one is dropped and the interval doubles."
    );
}

#[test]
fn closer_row_summary_names_the_largest_weight_and_the_spread() {
    let tokens: Vec<String> = ["my", "key", "is"]
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        closer_row_summary(&tokens, &[0.25, 0.5, 0.25]),
        "Largest weight 50.0% on key 2 “key”; entropy 1.50 bits (0 = one key, 1.58 = evenly over all 3)."
    );
    assert_eq!(
        closer_row_summary(&tokens, &[1.0]),
        "Largest weight 100.0% on key 1 “my”; entropy 0.00 bits (the first row sees only its own key)."
    );
}

/// The training page's explanations name the run's own sizes, and the first-copy note's
/// comparison with the even guess follows the numbers.
#[test]
fn the_model_step_and_first_copy_explainers() {
    use crate::model::train::shape::{PositionKind, TransformerConfig};
    let config = TransformerConfig {
        vocab: 32,
        d_model: 32,
        layers: 2,
        heads: 2,
        max_len: 16,
        positions: PositionKind::Rotary,
    };
    let text = model_explainer(&config);
    assert!(text.contains("d_model = 32 numbers"), "{text}");
    assert!(text.contains("each of its 2 attention layers"), "{text}");
    assert!(text.contains("each layer has 2 heads of d = 16"), "{text}");
    assert!(text.contains("a 32 × 32 matrix"), "{text}");
    let one = model_explainer(&TransformerConfig {
        layers: 1,
        vocab: 29,
        ..config
    });
    assert!(one.contains("its attention layer reads it") && one.contains("a 32 × 29 matrix"));
    assert!(step_explainer(16, 0.01).starts_with("One step: the page draws 16 training sequences"));
    assert!(step_explainer(16, 0.01).contains("here 0.01 "));
    let above = first_copy_note(32, 3.777, 64, 500);
    assert!(
        above.contains("ln 32 ≈ 3.466 nats")
            && above.contains("3.777 nats, 0.311 above it: the model's"),
        "{above}"
    );
    assert!(first_copy_note(32, 4.559, 64, 0).contains(
        "4.559 nats, 1.093 above it: at step 0 the weights are the random starting ones"
    ));
    assert!(first_copy_note(32, 3.4, 64, 9).contains("3.400 nats, below it on these 64 sequences"));
}

#[test]
fn the_induction_walkthrough_names_the_earlier_occurrence() {
    let tokens: Vec<String> = ["a", "x", "y", "z", "x", "y", "z", "b"]
        .map(String::from)
        .to_vec();
    let mut row = vec![0.0; 5];
    row[2] = 0.8125;
    assert_eq!(
        induction_walkthrough(&tokens, 4, Repeat { first: 1, len: 3 }, 1, 0, &row),
        "Row 5 “x” is in the second copy. The same token stood at position 2 in the first copy, followed by “y” at position 3, the token this row must predict (“y” at position 6). An induction head puts its weight on position 3; layer 2, head 1 puts 81.3% there."
    );
    let last = induction_walkthrough(&tokens, 6, Repeat { first: 1, len: 3 }, 0, 1, &[0.0; 7]);
    assert!(
        last.contains("position 4 in the first copy, followed by “x” at position 5, which a copy would predict next; but the second copy ends here, and the token after it (“b” at position 8) is random."),
        "{last}"
    );
}

/// A token that stood more than once before its row (random tokens can repeat inside the first
/// copy): the walk names the place the copy lines up with and the others, each with what followed
/// it, and splits the head's weight between the copy and the others.
#[test]
fn the_induction_walkthrough_names_every_earlier_occurrence() {
    let tokens: Vec<String> = ["x", "q", "x", "y", "x", "q", "x", "y"]
        .map(String::from)
        .to_vec();
    // A segment of 4 at 0..4, copied at 4..8; row 7 ("x") lines up with position 3.
    let weights = [0.0, 0.1, 0.05, 0.6, 0.0, 0.2, 0.05];
    assert_eq!(
        induction_walkthrough(&tokens, 6, Repeat { first: 0, len: 4 }, 1, 0, &weights),
        "Row 7 “x” is in the second copy. The same token stood at position 3 in the first copy, followed by “y” at position 4, the token this row must predict (“y” at position 8). It also stood at position 1 (followed by “q” at position 2) and position 5 (followed by “q” at position 6). An induction head looks at the token after each earlier occurrence, so it may split its weight among positions 2, 4 and 6, of which the copy points to position 4. Layer 2, head 1 puts 60.0% on position 4 and 30.0% on the other 2."
    );
    let one = induction_walkthrough(&tokens, 4, Repeat { first: 0, len: 4 }, 1, 0, &weights[..5]);
    assert!(
        one.contains("It also stood at position 3 (followed by “y” at position 4). An induction head looks at the token after each earlier occurrence, so it may split its weight among positions 2 and 4, of which the copy points to position 2. Layer 2, head 1 puts 10.0% on position 2 and 60.0% on the other."),
        "{one}"
    );
}

/// The training page's static header (train.html, painted before the wasm loads) states the
/// repeat task's sizes and quotes two grammar sentences: the sizes are the reference task's and
/// both sentences are in the grammar's vocabulary.
#[test]
fn the_static_intro_matches_the_tasks() {
    use crate::model::train::tasks::RepeatTask;
    use crate::model::trained::grammar_ids;
    let html = include_str!("../../../train.html");
    let task = RepeatTask::REFERENCE;
    assert!(html.contains(&format!(
        "each sequence is {} random tokens in which a segment of {}–{} of them appears twice in a row",
        task.seq_len, task.min_segment, task.max_segment
    )));
    // "Twice in a row": the second copy starts where the first ends.
    let mut rng = crate::model::rng::SeededRng::stream(1, "intro");
    for _ in 0..100 {
        let seq = task.sample(&mut rng);
        let r = seq.repeat.unwrap();
        assert_eq!(seq.tokens.len(), task.seq_len);
        assert!((task.min_segment..=task.max_segment).contains(&r.len));
        assert_eq!(r.second(), r.first + r.len);
        assert_eq!(
            seq.tokens[r.first..r.first + r.len],
            seq.tokens[r.second()..r.second() + r.len]
        );
    }
    for quoted in [
        "the cat sat on the mat .",
        "the keys to the cabinet are rusted .",
    ] {
        assert!(html.contains(&format!("“{quoted}”")), "{quoted}");
        let tokens: Vec<String> = quoted.split(' ').map(str::to_string).collect();
        assert!(grammar_ids(&tokens).is_ok(), "{quoted}");
    }
}

/// The closer look's τ note speaks of later layers only when the model has them.
#[test]
fn the_closer_tau_note_fits_the_model_shape() {
    let one = closer_tau_note(1);
    assert!(
        !one.contains("layer 2") && !one.contains("later layers"),
        "{one}"
    );
    assert!(
        one.starts_with("The layer's scores are divided by √d · τ"),
        "{one}"
    );
    for layers in [2, 3] {
        let many = closer_tau_note(layers);
        assert!(
            many.contains("In layer 1, τ above 1 spreads every row's weights"),
            "{many}"
        );
        assert!(
            many.contains("the later layers also read layer 1's changed output"),
            "{many}"
        );
    }
}
