//! Training a tiny attention-only transformer, exactly and deterministically.
//!
//! The core, in reading order (it imports nothing from [`lab`] or [`page`]):
//! - [`shape`]: a model's size, its position kind and where each parameter group lies;
//! - [`scoring`]: how a head turns scores into weights, forward and backward (correct causal
//!   attention unless a pass is given another rule);
//! - [`transformer`]: the model and its forward pass (embed, each attention layer, unembed and
//!   loss);
//! - [`backward`]: hand-written backpropagation, checked against finite differences;
//! - [`adam`]: the optimiser;
//! - [`tasks`]: the two built-in tasks, generated from a seed (tiny grammar, repeat a sequence);
//! - [`trainer`]: the training loop (batch, gradients, Adam);
//! - [`generate`]: writing text one token at a time: a key–value cache (each new token one row,
//!   bit for bit the full pass) and a seeded sampler;
//! - `kernels`: the exact matrix products the passes use.
//!
//! [`lab`] holds the experiments on a model (training mistakes, knock-outs, evaluations, head
//! scores, the composition test, predictions) and what determines a run; [`page`] holds the
//! training page's plumbing (the run stepped piece by piece, Web Worker messages, checkpoints,
//! settings, exports).
//!
//! Everything is f64, single-threaded and in a fixed order, so a seed gives the same loss curve
//! bit for bit natively, and the WebAssembly build agrees to rounding of `exp`/`ln`/`sin`/`cos`.

pub mod shape;

pub mod scoring;

pub mod transformer;

pub mod backward;

pub mod adam;

pub mod tasks;

pub mod trainer;

pub mod generate;

mod kernels;

pub mod lab;

pub mod page;
