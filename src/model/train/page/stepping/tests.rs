//! The trainer's runs: repeatable bit for bit, the same in pieces, checkpoints of their step,
//! agreement reports, training with a mistake, steps split between workers, and evaluations
//! with heads knocked out against the run's own.

use super::*;
use crate::model::rng::SeededRng;
use crate::model::train::backward::Workspace;
use crate::model::train::lab::ablation::{evaluate_ablated, unchanged_scores, HeadMeans};
use crate::model::train::lab::detectors::score_heads;
use crate::model::train::lab::knockout::{Ablation, AblationKind};
use crate::model::train::lab::pass::Pass;
use crate::model::train::shape::PositionKind;
use crate::model::train::tasks::{RepeatTask, Task, REPEAT_SYLLABLES};

fn tiny(seed: u64) -> TrainConfig {
    TrainConfig {
        model: TransformerConfig {
            vocab: 8,
            d_model: 8,
            layers: 2,
            heads: 2,
            max_len: 8,
            positions: PositionKind::Rotary,
        },
        task: Task::Repeat(RepeatTask {
            vocab: 8,
            seq_len: 8,
            min_segment: 2,
            max_segment: 4,
        }),
        batch: 4,
        lr: 1e-2,
        seed,
        eval_every: 5,
        eval_sequences: 8,
        mistake: None,
    }
}

#[test]
fn same_seed_same_curve_bit_for_bit() {
    let mut a = Trainer::new(tiny(3)).unwrap();
    let mut b = Trainer::new(tiny(3)).unwrap();
    a.run_to(30);
    b.run_to(30);
    assert_eq!(a.train_losses.len(), 30);
    let bits = |t: &Trainer| {
        t.train_losses
            .iter()
            .map(|l| l.to_bits())
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(&a), bits(&b));
    assert_eq!(a.evals, b.evals);
    assert_eq!(a.model().params(), b.model().params());
    let mut c = Trainer::new(tiny(4)).unwrap();
    c.run_to(30);
    assert_ne!(bits(&a), bits(&c));
    // Evaluations at 0, 5, …, 30.
    let steps: Vec<usize> = a.evals.iter().map(|e| e.step).collect();
    assert_eq!(steps, vec![0, 5, 10, 15, 20, 25, 30]);
}

#[test]
fn work_in_pieces_gives_the_same_run_bit_for_bit() {
    let mut whole = Trainer::new(tiny(5)).unwrap();
    whole.run_to(40);
    let mut pieces = Trainer::new(tiny(5)).unwrap();
    let mut counts = [0usize; 4];
    // Pieces until step 40 is taken and evaluated, as the page's frames do.
    while pieces.steps() < 40 || !pieces.is_idle() {
        counts[match pieces.work() {
            Work::Sequence => 0,
            Work::Stepped(_) => 1,
            Work::EvalSequence => 2,
            Work::Evaluated => 3,
        }] += 1;
    }
    // Batch 4: 3 unfinished sequences and 1 finishing one per step; 8 held-out sequences.
    assert_eq!(counts, [3 * 40, 40, 7 * 8, 8]);
    let bits = |t: &Trainer| {
        t.train_losses
            .iter()
            .map(|l| l.to_bits())
            .collect::<Vec<_>>()
    };
    assert_eq!(bits(&pieces), bits(&whole));
    assert_eq!(pieces.evals, whole.evals);
    assert_eq!(pieces.model().params(), whole.model().params());
    assert_eq!(pieces.checkpoints, whole.checkpoints);
    // An evaluation in one go equals the one made piece by piece.
    assert_eq!(&whole.evaluate(), whole.latest());
    assert_eq!(&whole.latest_snapshot().eval, whole.latest());
    assert_eq!(whole.latest_snapshot().params, whole.model().params());

    // Stopping part-way through a step and finishing with step() changes nothing either.
    let mut mixed = Trainer::new(tiny(5)).unwrap();
    mixed.run_to(12);
    mixed.work();
    mixed.work();
    assert!(!mixed.is_idle());
    assert_eq!(mixed.steps(), 12);
    mixed.step();
    mixed.run_to(40);
    assert_eq!(bits(&mixed), bits(&whole));
    assert_eq!(mixed.evals, whole.evals);
}

#[test]
fn checkpoints_hold_the_weights_and_scores_of_their_step() {
    let mut config = tiny(2);
    config.eval_every = 1;
    let mut t = Trainer::new(config).unwrap();
    // 80 evaluations into at most 64 checkpoints: thinned once, to every 2nd step.
    t.run_to(80);
    let kept = t.checkpoints.kept();
    assert!(kept.len() <= MAX_CHECKPOINTS);
    assert_eq!(t.checkpoints.interval(), 2);
    let steps: Vec<usize> = kept.iter().map(|(s, _)| *s).collect();
    assert_eq!(steps, (0..=80).step_by(2).collect::<Vec<_>>());
    for &(step, ref snap) in kept.iter().step_by(7) {
        let mut fresh = Trainer::new(config).unwrap();
        fresh.run_to(step);
        assert_eq!(
            snap.params,
            fresh.model().params(),
            "weights at step {step}"
        );
        assert_eq!(&snap.eval, fresh.latest(), "scores at step {step}");
        assert_eq!(snap.eval.step, step);
        // The snapshot's model scores its held-out set to the same numbers.
        let model = snap.model(config.model);
        assert_eq!(
            model.attention(&t.held_out()[0].tokens),
            fresh.model().attention(&t.held_out()[0].tokens)
        );
    }
}

#[test]
fn training_lowers_the_loss() {
    let mut t = Trainer::new(tiny(1)).unwrap();
    let before = t.latest().loss;
    t.run_to(60);
    assert!(t.latest().loss < before, "{} vs {before}", t.latest().loss);
    let e = t.latest();
    assert!(e.first_copy_loss.is_some() && e.repeated_loss.is_some());
    assert_eq!(e.heads.len(), 2);
    assert_eq!(e.heads[1].len(), 2);
    assert!(e.heads[1][0].induction.is_some());
}

#[test]
fn grammar_runs_and_configs_are_checked() {
    let mut config = TrainConfig::grammar_default(2);
    config.batch = 2;
    config.eval_sequences = 4;
    let mut t = Trainer::new(config).unwrap();
    t.run_to(3);
    assert_eq!(t.latest().first_copy_loss, None);
    assert_eq!(t.latest().heads[0][0].induction, None);
    assert_eq!(t.agreement().unwrap().sentences, 4);
    assert!(Trainer::new(tiny(1)).unwrap().agreement().is_none());
    let mut bad = TrainConfig::repeat_default(1);
    bad.model.vocab = 16;
    assert!(Trainer::new(bad).is_err());
    let mut bad = TrainConfig::repeat_default(1);
    bad.lr = f64::NAN;
    assert!(Trainer::new(bad).is_err());
}

/// The one-pass report equals the plain computation bit for bit: the probabilities from
/// `next_token_probs` and the weights from `attention`, two forward passes per sentence.
#[test]
fn agreement_report_equals_the_two_pass_computation() {
    let mut config = TrainConfig::grammar_default(3);
    config.model.layers = 2;
    config.batch = 4;
    let mut t = Trainer::new(config).unwrap();
    t.run_to(40);
    let sentences = crate::model::train::tasks::Grammar::agreement_sentences(
        &mut SeededRng::stream(3, "agreement-check"),
        12,
    );
    let model = t.model();
    let (is, are) = (
        crate::model::train::tasks::Grammar::encode("is").unwrap()[0],
        crate::model::train::tasks::Grammar::encode("are").unwrap()[0],
    );
    let (mut correct, mut mismatched, mut mismatched_correct) = (0, 0, 0);
    let mut subject = vec![vec![0.0; 2]; 2];
    let mut attractor = vec![vec![0.0; 2]; 2];
    for s in &sentences {
        let a = s.agreement.unwrap();
        let probs = model.next_token_probs(&s.tokens);
        let (right, wrong) = if a.subject_plural {
            (are, is)
        } else {
            (is, are)
        };
        let ok = probs[(a.attractor, right)] > probs[(a.attractor, wrong)];
        correct += usize::from(ok);
        if a.subject_plural != a.attractor_plural {
            mismatched += 1;
            mismatched_correct += usize::from(ok);
        }
        for (l, layer) in model.attention(&s.tokens).iter().enumerate() {
            for (h, w) in layer.iter().enumerate() {
                subject[l][h] += w[(a.attractor, a.subject)];
                attractor[l][h] += w[(a.attractor, a.attractor)];
            }
        }
    }
    for x in subject.iter_mut().chain(attractor.iter_mut()).flatten() {
        *x /= 12.0;
    }
    let expected = crate::model::train::lab::detectors::AgreementReport {
        sentences: 12,
        correct,
        mismatched,
        mismatched_correct,
        subject_weight: subject,
        attractor_weight: attractor,
    };
    assert_eq!(
        crate::model::train::lab::detectors::agreement_report(model, &sentences),
        expected
    );
    assert_eq!(t.agreement_of(model), t.agreement());
}

/// A step shared out between `workers` threads, as the page's Web Workers will: each computes
/// the gradients of its share of the batch (round robin) from a copy of the parameters, and the
/// trainer adds them back in sequence order. Evaluations run on the "main thread" (`work`).
fn run_with_workers(config: TrainConfig, steps: usize, workers: usize) -> Trainer {
    use crate::model::train::page::workers::SequenceGradient;
    let mut t = Trainer::new(config).unwrap();
    while t.steps() < steps {
        let Some(plan) = t.step_plan() else {
            t.work();
            continue;
        };
        assert_eq!((plan.next, plan.step), (0, t.steps() + 1));
        let params = t.model().params().to_vec();
        let shares: Vec<Vec<(usize, SequenceGradient)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|w| {
                    let (plan, params) = (&plan, params.clone());
                    scope.spawn(move || {
                        let model = Transformer::with_params(config.model, params);
                        let mut ws = Workspace::default();
                        (w..plan.batch.len())
                            .step_by(workers)
                            .map(|s| {
                                let g = SequenceGradient::compute(
                                    &model,
                                    &plan.batch[s],
                                    plan.weight,
                                    plan.mistake,
                                    &mut ws,
                                );
                                // Through a flat buffer, as a Float64Array would carry it.
                                (s, SequenceGradient::from_buffer(g.into_buffer()).unwrap())
                            })
                            .collect()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut gradients: Vec<(usize, SequenceGradient)> = shares.into_iter().flatten().collect();
        gradients.sort_by_key(|(s, _)| *s);
        for (s, g) in &gradients {
            let work = t.add_sequence_gradient(g).unwrap();
            assert_eq!(matches!(work, Work::Stepped(_)), *s + 1 == plan.batch.len());
        }
    }
    t.finish_evaluation();
    t
}

/// The reference default, 50 steps, with 1, 2 and 4 simulated workers: the same losses,
/// parameters and evaluations as `run_to`, bit for bit; and for a run trained with a mistake.
#[test]
fn steps_shared_between_workers_are_the_same_run_bit_for_bit() {
    let mut config = TrainConfig::repeat_default(1);
    config.eval_sequences = 16;
    let mut whole = Trainer::new(config).unwrap();
    whole.run_to(50);
    let bits = |t: &Trainer| {
        t.train_losses
            .iter()
            .map(|l| l.to_bits())
            .collect::<Vec<_>>()
    };
    for workers in [1, 2, 4] {
        let shared = run_with_workers(config, 50, workers);
        assert_eq!(bits(&shared), bits(&whole), "{workers} workers");
        assert_eq!(shared.model().params(), whole.model().params());
        assert_eq!(shared.evals, whole.evals);
    }
    let mut mistaken = tiny(6);
    mistaken.mistake = Some(TrainingMistake::SoftmaxOverQueries);
    let mut whole = Trainer::new(mistaken).unwrap();
    whole.run_to(20);
    let shared = run_with_workers(mistaken, 20, 2);
    assert_eq!(bits(&shared), bits(&whole));
    assert_eq!(shared.model().params(), whole.model().params());
}

/// Mixing the two ways within a step changes nothing either; out-of-turn calls are refused.
#[test]
fn worker_gradients_and_work_mix_within_a_step() {
    use crate::model::train::page::workers::SequenceGradient;
    let mut config = tiny(7);
    config.eval_every = 1;
    let mut whole = Trainer::new(config).unwrap();
    whole.run_to(3);
    let mut t = Trainer::new(config).unwrap();
    let dummy = SequenceGradient::compute(t.model(), &[1, 2], 1.0, None, &mut Workspace::default());
    assert!(t.add_sequence_gradient(&dummy).is_err());
    t.finish_evaluation();
    while t.steps() < 3 {
        t.work(); // sequence 1 by the trainer itself
        let plan = t.step_plan().unwrap();
        assert_eq!(plan.next, 1);
        // A gradient with the wrong number of losses is refused and changes nothing.
        assert!(t.add_sequence_gradient(&dummy).is_err());
        for s in plan.next..plan.batch.len() {
            let g = SequenceGradient::compute(
                t.model(),
                &plan.batch[s],
                plan.weight,
                None,
                &mut Workspace::default(),
            );
            t.add_sequence_gradient(&g).unwrap();
        }
        assert!(t.step_plan().is_none(), "the step's evaluation comes first");
        t.finish_evaluation();
    }
    assert_eq!(t.train_losses, whole.train_losses);
    assert_eq!(t.evals, whole.evals);
    assert_eq!(t.model().params(), whole.model().params());
}

/// A run with a mistake is a pure function of its config too, differs from the correct run,
/// and its evaluations carry the second measure, as used (correct attention, same weights).
#[test]
fn a_run_with_a_mistake_is_repeatable_and_evaluated_both_ways() {
    for mistake in TrainingMistake::ALL {
        let mut config = tiny(8);
        config.mistake = Some(mistake);
        let mut a = Trainer::new(config).unwrap();
        let mut b = Trainer::new(config).unwrap();
        a.run_to(10);
        b.run_to(10);
        assert_eq!(a.train_losses, b.train_losses);
        assert_eq!(a.model().params(), b.model().params());
        assert_eq!(a.evals, b.evals);
        let mut correct = Trainer::new(tiny(8)).unwrap();
        correct.run_to(10);
        assert_ne!(a.train_losses, correct.train_losses, "{mistake:?}");
        let e = a.latest();
        let used = e.used.as_deref().expect("a second measure");
        assert!(used.used.is_none() && used.step == e.step);
        // As used is the plain evaluation of the same weights.
        let plain = {
            let mut fresh = config;
            fresh.mistake = None;
            let mut eval = fresh.evaluation();
            for s in a.held_out() {
                eval.add(a.model(), s);
            }
            eval.finish(a.steps())
        };
        assert_eq!(e.as_used(), &plain);
        assert_ne!(e.loss, used.loss);
    }
    assert!(Trainer::new(tiny(8)).unwrap().latest().used.is_none());
}

/// The repeat task names each of its tokens by a distinct short syllable (never a number, so a
/// token is not read as a position); past the table, `#` and the number.
#[test]
fn repeat_tokens_are_distinct_syllables() {
    let task = TrainConfig::repeat_default(1).task;
    let names: Vec<String> = (0..task.vocab()).map(|id| task.token_name(id)).collect();
    assert_eq!(names.len(), REPEAT_SYLLABLES.len());
    let distinct: std::collections::BTreeSet<&String> = names.iter().collect();
    assert_eq!(distinct.len(), names.len());
    assert!(names
        .iter()
        .all(|n| n.len() == 2 && n.chars().all(|c| c.is_ascii_lowercase())));
    assert_eq!((names[0].as_str(), names[31].as_str()), ("ba", "to"));
    assert_eq!(task.token_name(40), "#40");
}

/// No head knocked out is the trainer's own evaluation, bit for bit (any mistake too), and the
/// grid is the plain attention.
#[test]
fn an_empty_ablation_is_the_intact_evaluation_bit_for_bit() {
    let mut config = TrainConfig::repeat_default(2);
    config.eval_sequences = 6;
    for mistake in [None, Some(TrainingMistake::NoCausalMask)] {
        config.mistake = mistake;
        let mut t = Trainer::new(config).unwrap();
        t.run_to(25);
        let got = evaluate_ablated(t.model(), t.held_out(), 25, &Ablation::none(), mistake);
        assert_eq!(&got.eval, t.latest());
        let grid =
            t.model()
                .attention_with(&t.held_out()[0].tokens, 1.0, Pass::with_mistake(mistake));
        assert_eq!(got.attention, grid);
        if mistake.is_none() {
            assert_eq!(got.attention, t.model().attention(&t.held_out()[0].tokens));
            assert_eq!(got.eval.heads, score_heads(t.model(), t.held_out()));
        }
    }
}

/// Every set of heads knocked out, zero and mean, over seeds and a few training steps: the
/// heads up to the first layer with a knocked-out head keep their scores bit for bit, and a
/// head after it that reads a changed input does not (at least one does change: the
/// knock-out is felt).
#[test]
fn heads_up_to_the_first_knocked_layer_keep_their_scores() {
    for seed in 1..=3 {
        let mut config = TrainConfig::repeat_default(seed);
        config.eval_sequences = 4;
        let mut t = Trainer::new(config).unwrap();
        t.run_to(20);
        let (model, held) = (t.model(), t.held_out());
        let cfg = *model.config();
        let means = HeadMeans::measure(model, held, None);
        let intact = evaluate_ablated(model, held, 20, &Ablation::none(), None).eval;
        let all: Vec<(usize, usize)> = (0..cfg.layers)
            .flat_map(|l| (0..cfg.heads).map(move |h| (l, h)))
            .collect();
        for mask in 1..(1usize << all.len()) {
            let chosen: Vec<(usize, usize)> = (0..all.len())
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| all[i])
                .collect();
            let first = chosen.iter().map(|&(l, _)| l).min().unwrap();
            for kind in [AblationKind::Zero, AblationKind::Mean] {
                let knocked: Vec<_> = chosen.iter().map(|&(l, h)| (l, h, kind)).collect();
                let ablation = means.ablation(&knocked).unwrap();
                let got = evaluate_ablated(model, held, 20, &ablation, None);
                let same = unchanged_scores(&intact, &got.eval);
                for &(l, h) in &all {
                    if l <= first {
                        assert!(
                            same.contains(&(l, h)),
                            "seed {seed} {chosen:?} {kind:?}: ({l},{h}) {:?} vs {:?}",
                            intact.heads[l][h],
                            got.eval.heads[l][h]
                        );
                    }
                }
                if first + 1 < cfg.layers && kind == AblationKind::Zero {
                    assert!(
                        all.iter()
                            .any(|&(l, h)| l > first && !same.contains(&(l, h))),
                        "seed {seed} {chosen:?}: nothing after layer {first} changed"
                    );
                }
            }
        }
    }
}
