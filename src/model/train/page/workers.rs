//! What a Web Worker needs to compute part of a training step, so that the step stays the same,
//! bit for bit, however its sequences are shared out.
//!
//! **Why not just send back each sequence's gradient.** A step sums its sequences' gradients into
//! one running vector, sequence 1, then 2, …, and its products add each term onto that running
//! sum in turn (`kernels::matmul_at_b_acc`): an entry of `W_q`'s gradient is
//! `((g + x₁y₁) + x₂y₂) + …` over the positions of every sequence in order. A sequence's gradient
//! summed on its own first, `g + ((x₁y₁ + x₂y₂) + …)`, rounds differently, and so would the whole
//! run. That order is kept (the run of a seed must not change), so what a worker sends back is
//! not the summed gradient but the **operands** of every operation the step applies to its running
//! sum for that sequence ([`SequenceGradient`]): `grad[block] += aᵀ · b` for each weight gradient
//! (`X_inᵀ dQ`, `Zᵀ dX`, `X_Lᵀ dlogits`) and `grad[row] += x` for each embedding row. The expensive
//! part (the forward pass, the backward pass through every layer and head) happens in the
//! worker; the step then replays those operations in sequence order ([`SequenceGradient::add_to`],
//! [`Trainer::add_sequence_gradient`](crate::model::train::page::stepping::Trainer::add_sequence_gradient)), the very
//! operations, operands and order [`Trainer::step`](crate::model::train::page::stepping::Trainer::step) uses. For the
//! reference model the replay is the `9 · T·d·d`-term weight-gradient products, about a fifth of
//! a sequence's forward-and-backward work.
//!
//! **The buffer** is one flat `Vec<f64>`, so a worker can post it as one transferable
//! `Float64Array`: `[n, losses (n values), op, op, …]`, each op either
//! `[0, start, m, k, n, a (m·k values), b (m·n values)]` (`grad[start..start + k·n] += aᵀ · b`,
//! row-major) or `[1, start, len, x (len values)]` (`grad[start + i] += x[i]`). Counts and offsets
//! are small integers, exact in f64. For the reference model a sequence's buffer holds about
//! 10,000 values (8 bytes each).

use crate::model::train::backward::{Direct, GradSink, Workspace};
use crate::model::train::lab::mistakes::TrainingMistake;
use crate::model::train::lab::pass::Pass;
use crate::model::train::transformer::Transformer;

const PRODUCT: f64 = 0.0;
const ROW: f64 = 1.0;

/// One sequence's share of a training step, as the operations the step applies to its running
/// gradient (see the module documentation), with the sequence's position losses.
#[derive(Debug, Clone, PartialEq)]
pub struct SequenceGradient {
    buffer: Vec<f64>,
}

/// Records each contribution's operands in the buffer.
struct Recorder<'a>(&'a mut Vec<f64>);

impl GradSink for Recorder<'_> {
    fn at_b(&mut self, start: usize, a: &[f64], b: &[f64], [m, k, n]: [usize; 3]) {
        self.0
            .extend([PRODUCT, start as f64, m as f64, k as f64, n as f64]);
        self.0.extend_from_slice(&a[..m * k]);
        self.0.extend_from_slice(&b[..m * n]);
    }

    fn add(&mut self, start: usize, x: &[f64]) {
        self.0.extend([ROW, start as f64, x.len() as f64]);
        self.0.extend_from_slice(x);
    }
}

/// One operation of a buffer, checked.
enum Op<'a> {
    Product {
        start: usize,
        dims: [usize; 3],
        a: &'a [f64],
        b: &'a [f64],
    },
    Row {
        start: usize,
        x: &'a [f64],
    },
}

/// A buffer entry that must be a count or an offset: a whole number, not negative.
fn count(value: Option<&f64>) -> Result<usize, String> {
    match value {
        Some(&v) if v >= 0.0 && v.fract() == 0.0 && v < 2f64.powi(40) => Ok(v as usize),
        Some(v) => Err(format!("{v} is not a count")),
        None => Err("the buffer ends early".into()),
    }
}

impl SequenceGradient {
    /// What a worker does for one sequence of a step: the forward pass on `tokens` (making
    /// `mistake`, as the run trains), and the backward pass with each predicted position weighted
    /// by `weight` ([`StepPlan`](crate::model::train::page::stepping::StepPlan) gives both), recorded for the step.
    /// `model` must hold the step's parameters (those of the trainer's model when it planned the
    /// step).
    pub fn compute(
        model: &Transformer,
        tokens: &[usize],
        weight: f64,
        mistake: Option<TrainingMistake>,
        ws: &mut Workspace,
    ) -> Self {
        model.forward_with(tokens, &mut ws.cache, 1.0, Pass::with_mistake(mistake));
        let losses = ws.cache.position_losses();
        let mut buffer = Vec::with_capacity(16 * 1024);
        buffer.push(losses.len() as f64);
        buffer.extend_from_slice(&losses);
        model.backward(weight, &mut Recorder(&mut buffer), ws, &mistake);
        Self { buffer }
    }

    /// The sequence's loss at each predicted position.
    pub fn losses(&self) -> &[f64] {
        let n = self.buffer[0] as usize;
        &self.buffer[1..=n]
    }

    /// The flat buffer, to post to another thread.
    pub fn as_slice(&self) -> &[f64] {
        &self.buffer
    }

    pub fn into_buffer(self) -> Vec<f64> {
        self.buffer
    }

    /// A buffer received from another thread, checked to be well formed.
    pub fn from_buffer(buffer: Vec<f64>) -> Result<Self, String> {
        let n = count(buffer.first())?;
        if buffer.len() < 1 + n {
            return Err("the buffer ends inside the losses".into());
        }
        let gradient = Self { buffer };
        gradient.ops()?;
        Ok(gradient)
    }

    /// The buffer's operations, checked.
    fn ops(&self) -> Result<Vec<Op<'_>>, String> {
        let b = &self.buffer;
        let mut at = 1 + self.losses().len();
        let mut ops = Vec::new();
        let take = |from: usize, len: usize| -> Result<&[f64], String> {
            b.get(from..from + len)
                .ok_or_else(|| "the buffer ends inside an operation".to_string())
        };
        while at < b.len() {
            let kind = b[at];
            let start = count(b.get(at + 1))?;
            if kind == PRODUCT {
                let dims = [
                    count(b.get(at + 2))?,
                    count(b.get(at + 3))?,
                    count(b.get(at + 4))?,
                ];
                let [m, k, n] = dims;
                let a = take(at + 5, m * k)?;
                let bm = take(at + 5 + m * k, m * n)?;
                ops.push(Op::Product {
                    start,
                    dims,
                    a,
                    b: bm,
                });
                at += 5 + m * k + m * n;
            } else if kind == ROW {
                let len = count(b.get(at + 2))?;
                ops.push(Op::Row {
                    start,
                    x: take(at + 3, len)?,
                });
                at += 3 + len;
            } else {
                return Err(format!("{kind} is not an operation"));
            }
        }
        Ok(ops)
    }

    /// Applies the sequence's operations to a step's running gradient `grad`, in the order the
    /// backward pass made them: the same arithmetic as the step computing the sequence itself.
    /// Nothing is added if the buffer is malformed or does not fit `grad`.
    pub fn add_to(&self, grad: &mut [f64]) -> Result<(), String> {
        let ops = self.ops()?;
        for op in &ops {
            let end = match *op {
                Op::Product {
                    start,
                    dims: [_, k, n],
                    ..
                } => start + k * n,
                Op::Row { start, x } => start + x.len(),
            };
            if end > grad.len() {
                return Err(format!(
                    "an operation reaches entry {end} of {}",
                    grad.len()
                ));
            }
        }
        let mut sink = Direct(grad);
        for op in ops {
            match op {
                Op::Product { start, dims, a, b } => sink.at_b(start, a, b, dims),
                Op::Row { start, x } => sink.add(start, x),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::train::shape::PositionKind;
    use crate::model::train::transformer::tests::small;

    /// A batch's gradient added from recorded sequences equals the batch's own, bit for bit, for
    /// every position kind and with a mistake; a broken buffer is refused and adds nothing.
    #[test]
    fn recorded_sequences_add_up_to_the_batch_gradient_bit_for_bit() {
        for positions in PositionKind::ALL {
            for mistake in [None, Some(TrainingMistake::MaskWithZero)] {
                let cfg = small(positions, 2, 2);
                let model = Transformer::new(cfg, 4).unwrap();
                let batch = vec![vec![1, 2, 3, 1, 2, 3], vec![4, 4, 5, 6, 4], vec![0, 6]];
                let mut ws = Workspace::default();
                let mut whole = vec![0.0; cfg.parameter_count()];
                let loss = model.loss_and_grad_with(&batch, &mut whole, &mut ws, mistake);
                let weight = 1.0 / 10.0; // 5 + 4 + 1 predicted positions
                let mut replayed = vec![0.0; cfg.parameter_count()];
                for (s, tokens) in batch.iter().enumerate() {
                    let g = SequenceGradient::compute(&model, tokens, weight, mistake, &mut ws);
                    assert_eq!(g.losses(), loss.positions[s].as_slice());
                    let g = SequenceGradient::from_buffer(g.into_buffer()).unwrap();
                    g.add_to(&mut replayed).unwrap();
                }
                assert!(whole
                    .iter()
                    .zip(&replayed)
                    .all(|(a, b)| a.to_bits() == b.to_bits()));
            }
        }
        let cfg = small(PositionKind::Rotary, 1, 2);
        let model = Transformer::new(cfg, 4).unwrap();
        let g = SequenceGradient::compute(&model, &[1, 2, 3], 0.5, None, &mut Workspace::default());
        let mut bad = g.as_slice().to_vec();
        bad.pop();
        assert!(SequenceGradient::from_buffer(bad).is_err());
        let mut bad = g.as_slice().to_vec();
        bad[3] = 7.0; // the first operation's kind
        assert!(SequenceGradient::from_buffer(bad).is_err());
        let mut grad = vec![0.0; cfg.parameter_count() - 1];
        assert!(g.add_to(&mut grad).is_err());
        assert!(grad.iter().all(|&x| x == 0.0));
        assert!(SequenceGradient::from_buffer(vec![]).is_err());
    }
}
