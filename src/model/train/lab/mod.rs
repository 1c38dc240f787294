//! Experiments on a trained model, built on the core: what a run is, how it is evaluated, and
//! what breaks when attention is done wrong or heads are knocked out.
//!
//! - [`run_config`]: everything that determines a run (the loop's settings, its evaluation
//!   schedule, its training mistake) and its held-out sets;
//! - [`mistakes`]: five classic attention mistakes, each a scoring rule, forward and backward;
//! - [`knockout`]: which heads a pass knocks out (zero or mean) and what replaces their output;
//! - [`pass`]: a forward pass with a mistake and knocked-out heads, and losses under a mistake;
//! - [`detectors`]: per-head scores (previous token, induction, first token, self, entropy) and
//!   the grammar's agreement report;
//! - [`evaluation`]: one evaluation on the held-out set, the copying circuit's three conditions
//!   and the stuck test;
//! - [`ablation`]: an evaluation with heads knocked out, and the heads' mean outputs;
//! - [`composition`]: the causal test that layer 2's induction head needs layer 1's
//!   previous-token head;
//! - [`prediction`]: "predict first": what a loss does when heads are knocked out, graded;
//! - [`generation`]: what a trained model writes: grammatical sentences against the sampling
//!   and attention temperatures, and greedy copying, intact and with a head knocked out.

pub mod run_config;

pub mod mistakes;

pub mod knockout;

pub mod pass;

pub mod detectors;

pub mod evaluation;

pub mod ablation;

pub mod composition;

pub mod prediction;

pub mod generation;
