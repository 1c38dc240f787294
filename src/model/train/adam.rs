//! Adam (Kingma & Ba, 2015) over the flat parameter vector, with the paper's defaults
//! β₁ = 0.9, β₂ = 0.999, ε = 1e-8 and a configurable learning rate.
//!
//! Step `n` (from 1): `m ← β₁m + (1−β₁)g`, `v ← β₂v + (1−β₂)g²`,
//! `θ ← θ − lr · m̂ / (√v̂ + ε)` with `m̂ = m / (1 − β₁ⁿ)` and `v̂ = v / (1 − β₂ⁿ)`.
//! `β₁ⁿ` and `β₂ⁿ` are kept as running products (one multiplication per step, no `powi`), so
//! every operation is a correctly rounded IEEE one: the same on every platform.

/// The optimiser's state.
#[derive(Debug, Clone, PartialEq)]
pub struct Adam {
    pub lr: f64,
    pub beta1: f64,
    pub beta2: f64,
    pub eps: f64,
    m: Vec<f64>,
    v: Vec<f64>,
    beta1_power: f64,
    beta2_power: f64,
    steps: usize,
}

impl Adam {
    pub fn new(parameters: usize, lr: f64) -> Self {
        Self {
            lr,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            m: vec![0.0; parameters],
            v: vec![0.0; parameters],
            beta1_power: 1.0,
            beta2_power: 1.0,
            steps: 0,
        }
    }

    /// Steps taken so far.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// One update of `params` along `grad`.
    pub fn step(&mut self, params: &mut [f64], grad: &[f64]) {
        assert_eq!(params.len(), self.m.len());
        assert_eq!(grad.len(), self.m.len());
        self.steps += 1;
        self.beta1_power *= self.beta1;
        self.beta2_power *= self.beta2;
        let (c1, c2) = (1.0 - self.beta1_power, 1.0 - self.beta2_power);
        for (((p, &g), m), v) in params
            .iter_mut()
            .zip(grad)
            .zip(&mut self.m)
            .zip(&mut self.v)
        {
            *m = self.beta1 * *m + (1.0 - self.beta1) * g;
            *v = self.beta2 * *v + (1.0 - self.beta2) * g * g;
            let m_hat = *m / c1;
            let v_hat = *v / c2;
            *p -= self.lr * m_hat / (v_hat.sqrt() + self.eps);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_step_moves_each_parameter_by_the_learning_rate() {
        // After one step m̂ = g and v̂ = g², so the move is lr · g / (|g| + ε) ≈ lr · sign(g).
        let mut adam = Adam::new(3, 0.01);
        let mut params = vec![1.0, 1.0, 1.0];
        adam.step(&mut params, &[2.0, -0.5, 0.0]);
        assert!((params[0] - (1.0 - 0.01 * 2.0 / (2.0 + 1e-8))).abs() < 1e-15);
        assert!((params[1] - (1.0 + 0.01 * 0.5 / (0.5 + 1e-8))).abs() < 1e-15);
        assert_eq!(params[2], 1.0);
        assert_eq!(adam.steps(), 1);
    }

    #[test]
    fn matches_the_textbook_formula_over_several_steps() {
        let grads = [[0.3, -1.0], [0.1, 2.0], [-0.4, 0.5], [0.2, 0.2]];
        let mut adam = Adam::new(2, 0.05);
        let mut params = vec![0.5, -0.25];
        let (mut m, mut v, mut expect) = ([0.0; 2], [0.0; 2], [0.5, -0.25]);
        for (n, g) in grads.iter().enumerate() {
            adam.step(&mut params, g);
            let n = n as i32 + 1;
            for i in 0..2 {
                m[i] = 0.9 * m[i] + 0.1 * g[i];
                v[i] = 0.999 * v[i] + 0.001 * g[i] * g[i];
                let m_hat = m[i] / (1.0 - 0.9f64.powi(n));
                let v_hat = v[i] / (1.0 - 0.999f64.powi(n));
                expect[i] -= 0.05 * m_hat / (v_hat.sqrt() + 1e-8);
            }
            for i in 0..2 {
                assert!((params[i] - expect[i]).abs() < 1e-14);
            }
        }
    }

    #[test]
    fn minimises_a_quadratic() {
        let mut adam = Adam::new(2, 0.1);
        let mut params = vec![3.0, -2.0];
        for _ in 0..500 {
            let grad = [2.0 * (params[0] - 1.0), 2.0 * (params[1] + 0.5)];
            adam.step(&mut params, &grad);
        }
        assert!((params[0] - 1.0).abs() < 1e-2 && (params[1] + 0.5).abs() < 1e-2);
    }
}
