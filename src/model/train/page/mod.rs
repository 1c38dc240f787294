//! The training page's plumbing, built on the core and the lab: a run stepped piece by piece,
//! its messages to and from Web Workers, and what the page keeps, saves and exports.
//!
//! - [`stepping`]: a run of the page, the training loop evaluated every N steps, in pieces small
//!   enough for an animation frame;
//! - [`workers`]: one sequence's gradient as a buffer, added back in sequence order, so a step
//!   split between Web Workers is the same step bit for bit;
//! - [`messages`]: the page's commands to a run's Web Worker and its reports, as flat buffers;
//! - [`checkpoints`]: the bounded timeline of weights the page replays;
//! - [`run_record`]: what the page keeps of a run it draws (bounded curve, checkpoints, latest);
//! - [`settings`]: the training view's choices and the run they stand for;
//! - [`run_b`]: run B of the page's A/B, run A with one change (a setting or a mistake);
//! - [`export`]: the training page's JSON download of the model it shows;
//! - [`checkpoint_file`]: trained weights as a small binary file the page fetches.

pub mod stepping;

pub mod workers;

pub mod messages;

pub mod checkpoints;

pub mod run_record;

pub mod settings;

pub mod run_b;

pub mod export;

pub mod checkpoint_file;
