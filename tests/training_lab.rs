//! The training page's lab, natively: the training mistakes against the explorer's Break it,
//! and the numbers `docs/training.md` quotes about knocking heads out and training with a mistake
//! (so the docs cannot go stale silently). Native only: the wasm build checks the golden file.
#![cfg(not(target_arch = "wasm32"))]

use attention_explorer::model::broken::{broken_weights, Mistake, Mistakes};
use attention_explorer::model::rng::SeededRng;
use attention_explorer::model::train::lab::composition::composition;
use attention_explorer::model::train::lab::mistakes::{
    mistaken_weights, score_scale, TrainingMistake,
};
use attention_explorer::model::train::lab::pass::Pass;
use attention_explorer::model::train::lab::run_config::TrainConfig;
use attention_explorer::model::train::page::stepping::Trainer;
use nalgebra::DMatrix;

/// Within 1e-12 (the runs are bit-exact natively; this leaves room for a maths library that
/// rounds `exp` differently).
fn near(got: f64, want: f64) -> bool {
    (got - want).abs() < 1e-12
}

/// The two mistakes the explorer's Break it also makes give Break it's weights: the trained
/// model's mistakes are the ones the lesson shows. (Here, not in `src/model/train`, because Break
/// it's module depends on the explorer, which reads trained checkpoints.)
#[test]
fn zero_mask_and_wrong_axis_are_break_it_s_mistakes() {
    let (hs, d_model) = (4, 8);
    for seed in 1..=3 {
        let mut rng = SeededRng::stream(seed, "mistake-scores");
        let scores = DMatrix::from_fn(7, 7, |_, _| 3.0 * rng.normal());
        let scale = score_scale(None, hs, 1.0);
        for (ours, theirs) in [
            (TrainingMistake::MaskWithZero, Mistake::MaskWithZero),
            (
                TrainingMistake::SoftmaxOverQueries,
                Mistake::SoftmaxOverColumns,
            ),
        ] {
            let expected = broken_weights(
                &scores,
                Mistakes::NONE.with(theirs, true),
                (hs, d_model),
                1.0,
                (1, 0),
            );
            let got = mistaken_weights(ours, &scores, scale);
            assert!((got - expected).abs().max() < 1e-15, "{ours:?}");
        }
    }
}

/// Seed 1 of the repeat task's reference default, retrained to step 1,200 (11 s in the debug
/// profile, whose matrix products are built at opt-level 3 too; the composition test adds
/// 0.14 s): the composition test's numbers, as `docs/training.md` quotes them. Composition
/// holds, with zero- and with mean-ablation.
#[test]
fn composition_of_seed_1_at_step_1200() {
    let config = TrainConfig::repeat_default(1);
    let mut t = Trainer::new(config).unwrap();
    t.run_to(1_200);
    let c = composition(&config, t.model(), t.held_out()).unwrap();
    // Layer 1 head 1 is the previous-token head, layer 2 head 2 the induction head watched.
    assert_eq!((c.previous_token_head.head, c.induction_head.head), (0, 1));
    assert!(near(c.previous_token_head.score, 0.834_551_326_543_570_4));
    let expect = |n: &attention_explorer::model::train::lab::composition::CopyingNumbers,
                  [ind, first, rep]: [f64; 3]| {
        assert!(
            near(n.induction, ind) && near(n.first_copy_loss, first) && near(n.repeated_loss, rep),
            "{n:?}"
        );
    };
    expect(
        &c.intact,
        [
            0.783_037_968_506_435_7,
            3.777_432_279_655_841,
            0.937_964_190_463_974_6,
        ],
    );
    // Head 1 (the previous-token head) knocked out: induction 0.146, repeated part 79.6 % of the
    // first copy's.
    expect(
        &c.zero[0],
        [
            0.146_242_745_967_093_58,
            3.613_449_805_431_126,
            2.876_567_596_401_644,
        ],
    );
    // Head 2 knocked out: induction 0.769, 25.1 %.
    expect(
        &c.zero[1],
        [
            0.769_014_635_982_547_3,
            3.884_535_614_003_471_7,
            0.976_615_421_152_016_5,
        ],
    );
    expect(
        &c.mean[0],
        [
            0.146_768_495_471_793_77,
            3.613_024_836_652_017_7,
            2.875_693_410_551_911_6,
        ],
    );
    expect(
        &c.mean[1],
        [
            0.773_389_936_957_420_1,
            3.891_645_928_348_852,
            0.959_387_641_578_894_9,
        ],
    );
    assert!(c.intact.copies() && c.zero[0].broken() && c.zero[1].copies());
    assert!(c.holds() && c.holds_with_mean());
    // The page's sentence for this run, built from these numbers.
    let item = attention_explorer::text::composition_item(1_200, &c);
    assert!(item.met);
    assert_eq!(
        item.text,
        "layer 2 reads layer 1 (tested at step 1,200): intact, layer 2 head 2's induction score 0.78, \
         repeated part 24.8% of the first copy's. Knocking out layer 1 head 1 (the previous-token \
         head, 0.83): layer 2 head 2's induction score 0.15, repeated part 79.6% of the first \
         copy's, broken; knocking out layer 1 head 2: layer 2 head 2's induction score 0.77, repeated part \
         25.1% of the first copy's, still copying. Composition holds. With mean-ablation it holds \
         too. (Still copying: induction at least 0.50, repeated part at most 60% of the first \
         copy's, a looser bar than the 30% at which the circuit counts as formed. Broken: \
         induction below 0.50, repeated part above 60%.)"
    );
}

/// Seed 1 of the repeat task's reference default trained 200 steps with each mistake (1–3 s
/// each in the debug profile): the held-out losses as trained and as used that
/// `docs/training.md` quotes, and one observation per mistake.
#[test]
fn what_each_mistake_does_by_step_200() {
    // Each run's held-out loss as trained and as used, to the 4 decimals the docs quote.
    let pinned = |mistake: Option<TrainingMistake>| match mistake {
        None => (3.474_9, 3.474_9),
        Some(TrainingMistake::NoCausalMask) => (0.000_7, 18.691_3),
        Some(TrainingMistake::MaskWithZero) => (2.159_8, 8.759_1),
        Some(TrainingMistake::NoScaling) => (3.496_1, 3.482_7),
        Some(TrainingMistake::NoPositions) => (3.481_1, 3.476_8),
        Some(TrainingMistake::SoftmaxOverQueries) => (3.161_2, 4.138_6),
    };
    let losses = |t: &Trainer| (t.latest().loss, t.latest().as_used().loss);
    let run = |mistake: Option<TrainingMistake>| {
        let mut config = TrainConfig::repeat_default(1);
        config.mistake = mistake;
        let mut t = Trainer::new(config).unwrap();
        t.run_to(200);
        let ((a, b), (want_a, want_b)) = (losses(&t), pinned(mistake));
        assert!(
            (a - want_a).abs() < 5e-5 && (b - want_b).abs() < 5e-5,
            "{mistake:?}: {a} {b}"
        );
        t
    };
    let correct = run(None);
    let (plain, _) = losses(&correct);
    // Mean entropy of the four heads, in bits.
    let entropy = |t: &Trainer| {
        t.latest()
            .heads
            .iter()
            .flatten()
            .map(|h| h.entropy_bits)
            .sum::<f64>()
            / 4.0
    };

    // No mask: the training loss is almost 0 (it reads the answer) while the same weights used
    // causally lose 18.7 nats; layer 2's heads look at the next token, the answer.
    let t = run(Some(TrainingMistake::NoCausalMask));
    let (trained, used) = losses(&t);
    assert!(trained < 1e-3 && used > 18.0, "{trained} {used}");
    let tokens = &t.held_out()[0].tokens;
    let grid = t
        .model()
        .attention_with(tokens, 1.0, Pass::with_mistake(t.config().mistake));
    for a in &grid[1] {
        let next = (0..tokens.len() - 1).map(|i| a[(i, i + 1)]).sum::<f64>() / 15.0;
        assert!(next > 0.99, "next-token weight {next}");
    }

    // Mask filled with 0: a smaller leak, still 2.16 nats as trained against 8.76 as used.
    let t = run(Some(TrainingMistake::MaskWithZero));
    let (trained, used) = losses(&t);
    assert!(
        trained < plain - 1.0 && used > plain + 5.0,
        "{trained} {used}"
    );

    // No scaling: every head is far sharper (under 1 bit on average, against 2.5 for the
    // correct run) and the loss is no better than the correct run's.
    let t = run(Some(TrainingMistake::NoScaling));
    assert!(
        entropy(&t) < 0.8 && entropy(&correct) > 2.4,
        "{}",
        entropy(&t)
    );
    assert!(losses(&t).0 > plain);

    // No positions: layer 1 cannot tell two copies of a token apart: each row gives the two
    // copies of every repeated token exactly the same weight.
    let t = run(Some(TrainingMistake::NoPositions));
    let s = &t.held_out()[0];
    let r = s.repeat.unwrap();
    let grid = t
        .model()
        .attention_with(&s.tokens, 1.0, Pass::with_mistake(t.config().mistake));
    for a in &grid[0] {
        for p in r.first..r.second() {
            for i in p + r.len..s.tokens.len() {
                assert_eq!(a[(i, p)].to_bits(), a[(i, p + r.len)].to_bits());
            }
        }
    }

    // Softmax over the queries: as trained it beats the correct run (3.16 against 3.47), used
    // causally it is worse than an even guess (4.14 > ln 32).
    let t = run(Some(TrainingMistake::SoftmaxOverQueries));
    let (trained, used) = losses(&t);
    assert!(
        trained < plain - 0.2 && used > 32f64.ln(),
        "{trained} {used}"
    );
}

/// Writes the training page's download for seed 1 of the reference default at step 50 with
/// layer 1 head 1 knocked out (zero), and for a run trained with the mask filled with 0 with
/// layer 2 head 2 mean-ablated, into `target/tmp/lab/`, for `e2e/check_train_json.py` to
/// recompute by hand: `python3 e2e/check_train_json.py target/tmp/lab/ablated.json` (and
/// `mistake.json`, `mistake-<key>.json`).
#[test]
fn writes_lab_downloads_for_the_numpy_check() {
    use attention_explorer::model::train::lab::ablation::{evaluate_ablated, HeadMeans};
    use attention_explorer::model::train::lab::knockout::AblationKind;
    use attention_explorer::model::train::page::export::lab_json;
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("lab");
    std::fs::create_dir_all(&dir).unwrap();
    // And one file per mistake (layer 1 head 2 zero-ablated), so NumPy redoes each mistake's
    // forward pass from its definition.
    let each = TrainingMistake::ALL.map(|m| {
        (
            format!("mistake-{}.json", m.key()),
            Some(m),
            (0, 1, AblationKind::Zero),
        )
    });
    for (name, mistake, head) in [
        ("ablated.json".to_string(), None, (0, 0, AblationKind::Zero)),
        (
            "mistake.json".to_string(),
            Some(TrainingMistake::MaskWithZero),
            (1, 1, AblationKind::Mean),
        ),
    ]
    .into_iter()
    .chain(each)
    {
        let mut config = TrainConfig::repeat_default(1);
        config.mistake = mistake;
        let mut t = Trainer::new(config).unwrap();
        t.run_to(50);
        let snapshot = t.latest_snapshot().clone();
        let model = snapshot.model(config.model);
        let pass = Pass::with_mistake(mistake);
        let attention = model.attention_with(&t.held_out()[0].tokens, 1.0, pass);
        let means = HeadMeans::measure(&model, t.held_out(), mistake);
        let ablation = means.ablation(&[head]).unwrap();
        let ablated = evaluate_ablated(&model, t.held_out(), 50, &ablation, mistake);
        assert_ne!(ablated.eval.loss, snapshot.eval.loss);
        let json = lab_json(&config, &snapshot, t.held_out(), &attention, Some(&ablated));
        assert!(json.contains("\"ablation\""));
        std::fs::write(dir.join(name), json).unwrap();
    }
}
