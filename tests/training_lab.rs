//! The training page's lab, natively: the training mistakes against the explorer's Break it,
//! and the numbers `docs/training.md` quotes about knocking heads out and training with a mistake
//! (so the docs cannot go stale silently).

use attention_explorer::model::broken::{broken_weights, Mistake, Mistakes};
use attention_explorer::model::rng::SeededRng;
use attention_explorer::model::train::mistakes::{mistaken_weights, score_scale, TrainingMistake};
use nalgebra::DMatrix;

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
