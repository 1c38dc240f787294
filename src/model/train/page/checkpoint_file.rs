//! Trained checkpoints: a trained model's weights as a small binary file the page fetches on
//! demand, so a learner sees trained attention at once instead of training.
//!
//! What a checkpoint is: the parameters of a run of one of the built-in tasks with a given seed,
//! after a given number of steps, starting from the task's default ([`TrainConfig::repeat_default`]
//! or [`TrainConfig::grammar_default`]) with the training page's shape choices: layers, heads per
//! layer and positions. Everything else (vocabulary, widths, the held-out set the head scores are
//! measured on) follows from the task and the seed, so the file stores only those facts and the
//! numbers.
//!
//! Why f32: 10,240 parameters take 8 bytes each in f64, and trained weights hardly compress; in
//! f32 they take 4 bytes each, which keeps each file within the size a checkpoint may take
//! (`tests/checkpoints.rs`). The page and the native tests both use the
//! decoded f32 values (widened exactly to f64), so both compute the same head scores.
//!
//! The format, little-endian: the 4 bytes `AECK`, a version byte (2), a task byte (0 repeat,
//! 1 grammar), the seed (u64), the steps trained (u32), the parameter count (u32), the layers,
//! heads per layer and positions (one byte each: 0 sinusoidal, 1 learned, 2 rotary), then that
//! many f32. Version 1 had no shape bytes and always the task's default shape; it is still read.
//! Decoding checks every field and refuses non-finite numbers, so a damaged download gets a
//! message, never a broken model.

use super::settings::{LAYER_CHOICES, TRAIN_HEAD_CHOICES};
use crate::model::train::lab::run_config::TrainConfig;
use crate::model::train::shape::{PositionKind, TransformerConfig};
use crate::model::train::transformer::Transformer;

const MAGIC: &[u8; 4] = b"AECK";
const VERSION: u8 = 2;
/// Version 1's header: magic, version, task, seed, steps, parameter count.
const V1_HEADER_LEN: usize = 4 + 1 + 1 + 8 + 4 + 4;
/// Version 2 adds the shape: layers, heads, positions.
const HEADER_LEN: usize = V1_HEADER_LEN + 3;

fn position_byte(kind: PositionKind) -> u8 {
    match kind {
        PositionKind::Sinusoidal => 0,
        PositionKind::Learned => 1,
        PositionKind::Rotary => 2,
    }
}

/// Which built-in default a checkpoint was trained from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckpointTask {
    Repeat,
    Grammar,
}

impl CheckpointTask {
    pub const ALL: [Self; 2] = [Self::Repeat, Self::Grammar];

    /// The default run this task's checkpoints come from, for `seed`.
    pub fn config(self, seed: u64) -> TrainConfig {
        match self {
            Self::Repeat => TrainConfig::repeat_default(seed),
            Self::Grammar => TrainConfig::grammar_default(seed),
        }
    }

    /// The file's name beside the app (`checkpoints/<name>.bin`).
    pub fn file_name(self) -> &'static str {
        match self {
            Self::Repeat => "repeat.bin",
            Self::Grammar => "grammar.bin",
        }
    }

    fn byte(self) -> u8 {
        match self {
            Self::Repeat => 0,
            Self::Grammar => 1,
        }
    }

    fn from_byte(byte: u8) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.byte() == byte)
    }
}

/// A decoded checkpoint.
#[derive(Debug, Clone, PartialEq)]
pub struct Checkpoint {
    pub task: CheckpointTask,
    pub seed: u64,
    pub steps: u32,
    /// The model with the checkpoint's weights.
    pub model: Transformer,
}

impl Checkpoint {
    /// The run this checkpoint belongs to (its task, held-out set and the model's shape).
    pub fn config(&self) -> TrainConfig {
        let mut config = self.task.config(self.seed);
        config.model = *self.model.config();
        config
    }
}

/// The file for `model`, trained on `task` with `seed` for `steps` steps; `model` has the task's
/// default shape but for its layers, heads and positions. The weights are rounded to f32.
pub fn encode(task: CheckpointTask, seed: u64, steps: u32, model: &Transformer) -> Vec<u8> {
    let params = model.params();
    let shape = model.config();
    let mut out = Vec::with_capacity(HEADER_LEN + 4 * params.len());
    out.extend_from_slice(MAGIC);
    out.push(VERSION);
    out.push(task.byte());
    out.extend_from_slice(&seed.to_le_bytes());
    out.extend_from_slice(&steps.to_le_bytes());
    out.extend_from_slice(&(params.len() as u32).to_le_bytes());
    out.extend_from_slice(&[
        shape.layers as u8,
        shape.heads as u8,
        position_byte(shape.positions),
    ]);
    for &p in params {
        out.extend_from_slice(&(p as f32).to_le_bytes());
    }
    out
}

/// Reads a checkpoint file, or says what is wrong with it.
pub fn decode(bytes: &[u8]) -> Result<Checkpoint, String> {
    if bytes.len() < V1_HEADER_LEN || &bytes[..4] != MAGIC {
        return Err("not a checkpoint file (it does not start with AECK)".into());
    }
    let header_len = match bytes[4] {
        1 => V1_HEADER_LEN,
        VERSION if bytes.len() >= HEADER_LEN => HEADER_LEN,
        VERSION => return Err("the checkpoint's header is cut short".into()),
        other => return Err(format!("checkpoint version {other} is not supported")),
    };
    let task =
        CheckpointTask::from_byte(bytes[5]).ok_or_else(|| format!("unknown task {}", bytes[5]))?;
    let seed = u64::from_le_bytes(bytes[6..14].try_into().expect("8 bytes"));
    let steps = u32::from_le_bytes(bytes[14..18].try_into().expect("4 bytes"));
    let count = u32::from_le_bytes(bytes[18..22].try_into().expect("4 bytes")) as usize;
    let mut model = task.config(seed).model;
    if header_len == HEADER_LEN {
        model = shape(model, bytes[22], bytes[23], bytes[24])?;
    }
    let expected = model.parameter_count();
    if count != expected {
        return Err(format!(
            "the checkpoint has {count} parameters; its model needs {expected}"
        ));
    }
    let body = &bytes[header_len..];
    if body.len() != 4 * count {
        return Err(format!(
            "the checkpoint is {} bytes; {count} parameters need {}",
            bytes.len(),
            header_len + 4 * count
        ));
    }
    let params: Vec<f64> = body
        .chunks_exact(4)
        .map(|b| f64::from(f32::from_le_bytes(b.try_into().expect("4 bytes"))))
        .collect();
    if let Some(k) = params.iter().position(|p| !p.is_finite()) {
        return Err(format!("parameter {} is not a finite number", k + 1));
    }
    Ok(Checkpoint {
        task,
        seed,
        steps,
        model: Transformer::with_params(model, params),
    })
}

/// The task's default `model` with a version-2 file's shape bytes, each one the training page
/// offers.
fn shape(
    model: TransformerConfig,
    layers: u8,
    heads: u8,
    positions: u8,
) -> Result<TransformerConfig, String> {
    let (layers, heads) = (usize::from(layers), usize::from(heads));
    if !LAYER_CHOICES.contains(&layers) {
        return Err(format!(
            "a model of {layers} layers is not one the page trains"
        ));
    }
    if !TRAIN_HEAD_CHOICES.contains(&heads) {
        return Err(format!(
            "{heads} heads per layer is not a choice the page offers"
        ));
    }
    let positions = PositionKind::ALL
        .into_iter()
        .find(|&kind| position_byte(kind) == positions)
        .ok_or_else(|| format!("unknown position code {positions}"))?;
    Ok(TransformerConfig {
        layers,
        heads,
        positions,
        ..model
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(task: CheckpointTask) -> (Transformer, Vec<u8>) {
        let model = Transformer::new(task.config(5).model, 5).unwrap();
        let bytes = encode(task, 5, 300, &model);
        (model, bytes)
    }

    #[test]
    fn round_trip_keeps_the_run_and_the_f32_weights() {
        for task in CheckpointTask::ALL {
            let (model, bytes) = sample(task);
            assert_eq!(bytes.len(), HEADER_LEN + 4 * model.params().len());
            let c = decode(&bytes).unwrap();
            assert_eq!((c.task, c.seed, c.steps), (task, 5, 300));
            assert_eq!(c.model.config(), model.config());
            for (&a, &b) in model.params().iter().zip(c.model.params()) {
                assert_eq!(b, f64::from(a as f32));
                assert!((a - b).abs() <= a.abs() * 6e-8, "{a} vs {b}");
            }
            // Encoding the decoded model gives the same bytes: f32 → f64 → f32 is exact.
            assert_eq!(encode(task, 5, 300, &c.model), bytes);
        }
    }

    /// Every shape the training page offers travels in the file (the learner's model handed to
    /// the explorer), and a version-1 file (no shape bytes) still reads as the task's default.
    #[test]
    fn every_offered_shape_round_trips_and_version_1_still_reads() {
        for layers in LAYER_CHOICES {
            for heads in TRAIN_HEAD_CHOICES {
                for positions in PositionKind::ALL {
                    let mut config = CheckpointTask::Grammar.config(7);
                    config.model.layers = layers;
                    config.model.heads = heads;
                    config.model.positions = positions;
                    let model = Transformer::new(config.model, 7).unwrap();
                    let c = decode(&encode(CheckpointTask::Grammar, 7, 20, &model)).unwrap();
                    assert_eq!(c.model.config(), &config.model);
                    assert_eq!(c.config().model, config.model);
                    assert_eq!(c.config().task, config.task);
                }
            }
        }
        for task in CheckpointTask::ALL {
            let (model, v2) = sample(task);
            let mut v1 = v2[..V1_HEADER_LEN].to_vec();
            v1[4] = 1;
            v1.extend_from_slice(&v2[HEADER_LEN..]);
            let c = decode(&v1).unwrap();
            assert_eq!(c.model.config(), model.config());
            assert_eq!(encode(task, 5, 300, &c.model), v2);
        }
    }

    #[test]
    fn the_reference_checkpoint_fits_in_50_kb() {
        let (_, bytes) = sample(CheckpointTask::Repeat);
        assert!(bytes.len() <= 50_000, "{} bytes", bytes.len());
    }

    #[test]
    fn damaged_files_are_refused_with_a_reason() {
        let (_, good) = sample(CheckpointTask::Grammar);
        let refuse = |bytes: &[u8], words: &str| {
            let err = decode(bytes).unwrap_err();
            assert!(err.contains(words), "{err}");
        };
        refuse(&[], "not a checkpoint");
        refuse(b"<html>not found</html>", "not a checkpoint");
        let mut v = good.clone();
        v[4] = 9;
        refuse(&v, "version 9");
        let mut v = good.clone();
        v[5] = 7;
        refuse(&v, "unknown task 7");
        refuse(&good[..good.len() - 4], "bytes");
        let mut v = good.clone();
        v.push(0);
        refuse(&v, "bytes");
        let mut v = good.clone();
        v[18..22].copy_from_slice(&3u32.to_le_bytes());
        refuse(&v, "has 3 parameters");
        for (at, byte, words) in [
            (22, 3, "3 layers"),
            (23, 3, "3 heads"),
            (24, 9, "position code 9"),
        ] {
            let mut v = good.clone();
            v[at] = byte;
            refuse(&v, words);
        }
        refuse(&good[..=V1_HEADER_LEN], "cut short");
        let mut v = good.clone();
        v[HEADER_LEN + 8..HEADER_LEN + 12].copy_from_slice(&f32::NAN.to_le_bytes());
        refuse(&v, "parameter 3 is not a finite number");
    }
}
