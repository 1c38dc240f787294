//! The trainer's tiled products (the `attention-kernels` crate in `kernels/`) against the
//! plainest loops that sum in the documented order, bit for bit: natively (the scalar tiles) and
//! in WebAssembly (headless Chromium: the `f64x2` SIMD tiles). Shapes cover whole tiles, partial
//! tiles on every side and single entries; values span 60 powers of two so that summing in any
//! other order gives other bits (the negative control checks that it does).

use attention_explorer::model::rng::SeededRng;
use attention_kernels::{matmul, matmul_a_bt_acc, matmul_acc, matmul_at_b_acc};

const SHAPES: [[usize; 3]; 10] = [
    [1, 1, 1],
    [3, 5, 2],
    [4, 4, 4],
    [5, 7, 9],
    [12, 16, 16],
    [16, 32, 32],
    [16, 32, 8],
    [7, 16, 16],
    [16, 16, 7],
    [9, 3, 13],
];

/// Normal draws times 2^e, e uniform in −30..30.
fn values(rng: &mut SeededRng, len: usize) -> Vec<f64> {
    (0..len)
        .map(|_| rng.normal() * 2f64.powi((rng.next_open01() * 60.0) as i32 - 30))
        .collect()
}

/// `c[i][j] += a[i][p] · b[p][j]` for p = 0, 1, … (a m × k, b k × n).
fn reference_acc(a: &[f64], b: &[f64], c: &mut [f64], [m, k, n]: [usize; 3]) {
    for i in 0..m {
        for j in 0..n {
            for p in 0..k {
                c[i * n + j] += a[i * k + p] * b[p * n + j];
            }
        }
    }
}

/// `c[p][j] += a[i][p] · b[i][j]` for i = 0, 1, … (a m × k, b m × n, c k × n).
fn reference_at_b(a: &[f64], b: &[f64], c: &mut [f64], [m, k, n]: [usize; 3]) {
    for p in 0..k {
        for j in 0..n {
            for i in 0..m {
                c[p * n + j] += a[i * k + p] * b[i * n + j];
            }
        }
    }
}

/// `c[i][j] += Σ_p a[i][p] · b[j][p]`, the sum from 0 (a m × k, b n × k).
fn reference_a_bt(a: &[f64], b: &[f64], c: &mut [f64], [m, k, n]: [usize; 3]) {
    for i in 0..m {
        for j in 0..n {
            let mut sum = 0.0;
            for p in 0..k {
                sum += a[i * k + p] * b[j * k + p];
            }
            c[i * n + j] += sum;
        }
    }
}

fn assert_same_bits(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (idx, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(
            g.to_bits(),
            w.to_bits(),
            "{what}, entry {idx}: {g:e} vs {w:e}"
        );
    }
}

fn check_every_product() {
    let mut rng = SeededRng::stream(7, "tests:kernels");
    for [m, k, n] in SHAPES {
        let what = format!("{m} × {k} × {n}");
        let (a, b, c0) = (
            values(&mut rng, m * k),
            values(&mut rng, k * n),
            values(&mut rng, m * n),
        );

        let mut want = vec![0.0; m * n];
        reference_acc(&a, &b, &mut want, [m, k, n]);
        let mut got = vec![f64::NAN; m * n];
        matmul(&a, &b, &mut got, m, k, n);
        assert_same_bits(&got, &want, &format!("a · b, {what}"));

        let mut want = c0.clone();
        reference_acc(&a, &b, &mut want, [m, k, n]);
        let mut got = c0.clone();
        matmul_acc(&a, &b, &mut got, m, k, n);
        assert_same_bits(&got, &want, &format!("c + a · b, {what}"));

        let (b2, c2) = (values(&mut rng, m * n), values(&mut rng, k * n));
        let mut want = c2.clone();
        reference_at_b(&a, &b2, &mut want, [m, k, n]);
        let mut got = c2.clone();
        matmul_at_b_acc(&a, &b2, &mut got, m, k, n);
        assert_same_bits(&got, &want, &format!("c + aᵀ · b, {what}"));

        let b3 = values(&mut rng, n * k);
        let mut want = c0.clone();
        reference_a_bt(&a, &b3, &mut want, [m, k, n]);
        let mut got = c0.clone();
        matmul_a_bt_acc(&a, &b3, &mut got, m, k, n);
        assert_same_bits(&got, &want, &format!("c + a · bᵀ, {what}"));
    }
}

/// The data can tell orders apart: the 16 × 32 × 32 product summed backwards differs somewhere.
fn check_order_matters() {
    let [m, k, n] = [16, 32, 32];
    let mut rng = SeededRng::stream(7, "tests:kernels:control");
    let (a, b) = (values(&mut rng, m * k), values(&mut rng, k * n));
    let mut forwards = vec![0.0; m * n];
    matmul(&a, &b, &mut forwards, m, k, n);
    let mut backwards = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            for p in (0..k).rev() {
                backwards[i * n + j] += a[i * k + p] * b[p * n + j];
            }
        }
    }
    let differ = forwards
        .iter()
        .zip(&backwards)
        .filter(|&(f, r)| f.to_bits() != r.to_bits())
        .count();
    assert!(differ > 0, "no entry depends on the order of its sum");
}

#[cfg(not(target_arch = "wasm32"))]
#[test]
fn products_match_the_reference_loops_bit_for_bit() {
    check_every_product();
    check_order_matters();
}

#[cfg(target_arch = "wasm32")]
mod wasm {
    use wasm_bindgen_test::*;

    wasm_bindgen_test_configure!(run_in_browser);

    #[wasm_bindgen_test]
    fn simd_products_match_the_reference_loops_bit_for_bit() {
        super::check_every_product();
        super::check_order_matters();
    }
}
