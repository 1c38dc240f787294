//! The small dense products the trainer needs, on row-major slices, writing into buffers the caller
//! owns.
//!
//! Why not `nalgebra` products: above 5 × 5, `nalgebra` hands a product to `matrixmultiply`,
//! which picks an AVX2/FMA kernel at run time on x86, so the bits of a result would depend on
//! the machine (and differ from WebAssembly's); and a training step does a few thousand products
//! of 16 × 32 and 32 × 32 matrices, each of which would allocate a fresh `DMatrix`.
//! (`examples/train.rs` times both: at opt-level 3 the forward pass here was about 1.5× faster
//! than [`super::transformer::Transformer::reference_forward`]'s `DMatrix` products; at
//! opt-level "z" they were about even.)
//!
//! Why tiles, in a crate of their own (`kernels/`, `attention-kernels`): a product keeps a 4 × 4
//! tile of `c` in registers while it runs over `p`, instead of reading and writing a row of `c` for
//! every `p`; that needs the compiler to unroll the tile's loops, which it does at `opt-level = 3`
//! but not at the "s"/"z" the pages are built with, and the opt-level is chosen per crate
//! (`Cargo.toml`). In WebAssembly the tile runs on 128-bit SIMD (`f64x2`).
//!
//! Why the results are exact and portable: every output entry is a sum over `p = 0, 1, …` in that
//! order, one multiply and one add at a time (Rust never fuses them into an FMA on its own), so it
//! is the same bit for bit natively, in WebAssembly, with or without SIMD and whatever the tiling.
//! `tests/kernels.rs` checks that against plain triple loops, natively and in Chromium.

pub use attention_kernels::{matmul, matmul_a_bt_acc, matmul_acc, matmul_at_b_acc};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::rng::SeededRng;
    use nalgebra::DMatrix;

    fn random(rng: &mut SeededRng, rows: usize, cols: usize) -> DMatrix<f64> {
        DMatrix::from_fn(rows, cols, |_, _| rng.normal())
    }

    fn row_major(m: &DMatrix<f64>) -> Vec<f64> {
        m.transpose().as_slice().to_vec()
    }

    fn assert_matches(flat: &[f64], expected: &DMatrix<f64>) {
        let want = row_major(expected);
        assert_eq!(flat.len(), want.len());
        for (a, b) in flat.iter().zip(&want) {
            assert!((a - b).abs() <= 1e-12 * (1.0 + b.abs()), "{a} vs {b}");
        }
    }

    #[test]
    fn products_agree_with_nalgebra() {
        let mut rng = SeededRng::stream(3, "kernels");
        for (m, k, n) in [(1, 1, 1), (3, 5, 2), (16, 32, 32), (7, 16, 16), (16, 16, 7)] {
            let a = random(&mut rng, m, k);
            let b = random(&mut rng, k, n);
            let start = random(&mut rng, m, n);
            let mut c = vec![f64::NAN; m * n];
            matmul(&row_major(&a), &row_major(&b), &mut c, m, k, n);
            assert_matches(&c, &(&a * &b));

            let mut c = row_major(&start);
            matmul_acc(&row_major(&a), &row_major(&b), &mut c, m, k, n);
            assert_matches(&c, &(&start + &a * &b));

            // aᵀ · b with a m × k and b m × n.
            let b2 = random(&mut rng, m, n);
            let start2 = random(&mut rng, k, n);
            let mut c = row_major(&start2);
            matmul_at_b_acc(&row_major(&a), &row_major(&b2), &mut c, m, k, n);
            assert_matches(&c, &(&start2 + a.transpose() * &b2));

            // a · bᵀ with a m × k and b n × k.
            let b3 = random(&mut rng, n, k);
            let mut c = row_major(&start);
            matmul_a_bt_acc(&row_major(&a), &row_major(&b3), &mut c, m, k, n);
            assert_matches(&c, &(&start + &a * b3.transpose()));
        }
    }

    #[test]
    fn sums_run_in_index_order() {
        // 1e16 + 1 - 1e16 is 0 in f64 when summed left to right, 1 in other orders.
        let a = [1e16, 1.0, -1e16];
        let b = [1.0, 1.0, 1.0];
        let mut c = [0.0];
        matmul(&a, &b, &mut c, 1, 3, 1);
        assert_eq!(c[0], 0.0);
        let mut c = [0.0];
        matmul_a_bt_acc(&a, &b, &mut c, 1, 3, 1);
        assert_eq!(c[0], 0.0);
        let mut c = [0.0];
        matmul_at_b_acc(&a, &b, &mut c, 3, 1, 1);
        assert_eq!(c[0], 0.0);
    }
}
