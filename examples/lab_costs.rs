//! Times the lab's model calls natively on the repeat task's reference default (seed 1, step
//! 200, 64 held-out sequences), the figures `docs/training.md` quotes for the page's builders:
//!
//!   `cargo run --release --example lab_costs`
//!
//! (The release profile is built for size like the page, `opt-level = "z"`, with the products at
//! opt-level 3; the page's WebAssembly is slower again.)

use attention_explorer::model::train::backward::Workspace;
use attention_explorer::model::train::lab::ablation::{evaluate_ablated, HeadMeans};
use attention_explorer::model::train::lab::composition::composition;
use attention_explorer::model::train::lab::knockout::AblationKind;
use attention_explorer::model::train::lab::mistakes::TrainingMistake;
use attention_explorer::model::train::lab::pass::Pass;
use attention_explorer::model::train::lab::run_config::TrainConfig;
use attention_explorer::model::train::page::export::lab_json;
use attention_explorer::model::train::page::stepping::Trainer;
use attention_explorer::model::train::page::workers::SequenceGradient;
use std::time::Instant;

/// The median of `runs` timings of `f`, in ms.
fn time(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut ms: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    ms[runs / 2]
}

fn main() {
    for mistake in [None, Some(TrainingMistake::MaskWithZero)] {
        let mut config = TrainConfig::repeat_default(1);
        config.mistake = mistake;
        let mut t = Trainer::new(config).unwrap();
        t.run_to(200);
        let model = t.model().clone();
        let held = t.held_out().to_vec();
        let label = mistake.map_or("no mistake", TrainingMistake::key);
        println!("{label}:");
        let means = HeadMeans::measure(&model, &held, mistake);
        let ablation = means.ablation(&[(0, 0, AblationKind::Zero)]).unwrap();
        let ms = time(21, || drop(HeadMeans::measure(&model, &held, mistake)));
        println!("  HeadMeans::measure            {ms:7.2} ms");
        let ms = time(21, || drop(means.ablation(&[(0, 0, AblationKind::Mean)])));
        println!("  HeadMeans::ablation           {ms:7.4} ms");
        let ms = time(21, || {
            drop(evaluate_ablated(&model, &held, 200, &ablation, mistake));
        });
        println!("  evaluate_ablated (1 head)     {ms:7.2} ms");
        let ms = time(5, || drop(composition(&config, &model, &held)));
        println!("  composition                   {ms:7.2} ms");
        let pass = Pass::with_mistake(mistake);
        let ms = time(101, || {
            drop(model.attention_with(&held[0].tokens, 1.0, pass));
        });
        println!("  attention_with (one grid)     {ms:7.3} ms");
        let mut ws = Workspace::default();
        let g = SequenceGradient::compute(&model, &held[0].tokens, 1.0 / 240.0, mistake, &mut ws);
        let ms = time(101, || {
            drop(SequenceGradient::compute(
                &model,
                &held[0].tokens,
                1.0 / 240.0,
                mistake,
                &mut ws,
            ));
        });
        println!(
            "  SequenceGradient::compute     {ms:7.3} ms ({} values)",
            g.as_slice().len()
        );
        let mut grad = vec![0.0; model.params().len()];
        let ms = time(101, || g.add_to(&mut grad).unwrap());
        println!("  SequenceGradient::add_to      {ms:7.3} ms");
        let snapshot = t.latest_snapshot().clone();
        let grid = model.attention_with(&held[0].tokens, 1.0, pass);
        let ablated = evaluate_ablated(&model, &held, 200, &ablation, mistake);
        let ms = time(11, || {
            drop(lab_json(&config, &snapshot, &held, &grid, Some(&ablated)));
        });
        println!("  lab_json                      {ms:7.2} ms");
        let ms = time(11, || {
            let mut fresh = t.clone();
            fresh.step();
        });
        println!("  Trainer::step (for scale)     {ms:7.2} ms");
    }
}
