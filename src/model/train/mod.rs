//! Training a tiny attention-only transformer, exactly and deterministically.
//!
//! - [`shape`]: a model's size, its position kind and where each parameter group lies;
//! - [`transformer`]: the model (parameters, forward pass through the explorer's softmax);
//! - [`backward`]: hand-written backpropagation, checked against finite differences;
//! - [`checkpoint_file`]: trained weights as a small binary file the page fetches;
//! - [`adam`]: the optimiser;
//! - [`tasks`]: the two built-in tasks, generated from a seed (tiny grammar, repeat a sequence);
//! - [`detectors`]: per-head scores (previous token, induction, first token, self, entropy);
//! - [`export`]: the training page's JSON download of the model it shows;
//! - [`trainer`]: steps (whole, or one sequence at a time for the page), an evaluation every N
//!   steps, loss curves;
//! - [`evaluation`]: one evaluation on the held-out set, the copying circuit's three conditions and
//!   the stuck test;
//! - [`checkpoints`]: the bounded timeline of weights the page replays;
//! - [`settings`]: the training view's choices and the run they stand for;
//! - [`mistakes`]: training with one of five classic attention mistakes, forward and backward;
//! - [`knockout`], [`ablation`], [`composition`]: heads knocked out (zero or mean), an evaluation
//!   with them, and the causal test that layer 2's induction head needs layer 1's
//!   previous-token head;
//! - [`workers`]: one sequence's gradient as a buffer, added back in sequence order, so a step
//!   split between Web Workers is the same step bit for bit;
//! - [`messages`]: the page's commands to a run's Web Worker and its reports, as flat buffers;
//! - [`prediction`]: "predict first": what a loss does when heads are knocked out, graded;
//! - [`run_b`]: run B of the page's A/B, run A with one change (a setting or a mistake);
//! - [`run_record`]: what the page keeps of a run it draws (bounded curve, checkpoints, latest).
//!
//! Everything is f64, single-threaded and in a fixed order, so a seed gives the same loss curve
//! bit for bit natively, and the WebAssembly build agrees to rounding of `exp`/`ln`/`sin`/`cos`.

pub mod ablation;
pub mod adam;
pub mod backward;
pub mod checkpoint_file;
pub mod checkpoints;
pub mod composition;
pub mod detectors;
pub mod evaluation;
pub mod export;
mod kernels;
pub mod knockout;
pub mod messages;
pub mod mistakes;
pub mod prediction;
pub mod run_b;
pub mod run_record;
pub mod settings;
pub mod shape;
pub mod tasks;
pub mod trainer;
pub mod transformer;
pub mod workers;
