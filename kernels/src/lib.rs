//! The small dense products of the training page's trainer (`src/model/train/kernels.rs` in the
//! app says what they are for and tests them), in a crate of their own so that they can be built
//! at `opt-level = 3` while the rest of the app is built for size (the workspace `Cargo.toml`).
//! At opt-level "s" or "z" the compiler does not unroll the small loops of a tile, so the tile's
//! sums live in memory instead of registers and a product runs about twice as slowly.
//!
//! Every output entry is a sum over `p = 0, 1, …` in that order, one multiply and one add at a
//! time (Rust never fuses them into an FMA on its own), so a result is the same bit for bit on
//! every platform and in WebAssembly, whatever the tiling.

/// `c = a · b` with `a` m × k, `b` k × n, `c` m × n (all row-major).
pub fn matmul(a: &[f64], b: &[f64], c: &mut [f64], m: usize, k: usize, n: usize) {
    c[..m * n].fill(0.0);
    matmul_acc(a, b, c, m, k, n);
}

/// `c += a · b` with `a` m × k, `b` k × n, `c` m × n.
pub fn matmul_acc(a: &[f64], b: &[f64], c: &mut [f64], m: usize, k: usize, n: usize) {
    product(View::row_major(a, k), b, c, [m, k, n], Sum::OntoC);
}

/// `c += aᵀ · b` with `a` m × k, `b` m × n, `c` k × n: the weight-gradient product `Xᵀ · dY`.
pub fn matmul_at_b_acc(a: &[f64], b: &[f64], c: &mut [f64], m: usize, k: usize, n: usize) {
    let at = View::row_major(a, k).transposed();
    product(at, b, c, [k, m, n], Sum::OntoC);
}

/// `c += a · bᵀ` with `a` m × k, `b` n × k, `c` m × n: the input-gradient product `dY · Wᵀ`.
/// Each entry's dot product is summed from 0 and then added to `c`.
pub fn matmul_a_bt_acc(a: &[f64], b: &[f64], c: &mut [f64], m: usize, k: usize, n: usize) {
    // The tiles read rows of the right-hand matrix, so bᵀ is written out first (k × n, a
    // sixteenth of the work for the trainer's 16-row products), into a buffer kept per thread.
    thread_local! {
        static B_T: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    B_T.with_borrow_mut(|bt| {
        bt.clear();
        bt.resize(k * n, 0.0);
        for (j, b_row) in b[..n * k].chunks_exact(k).enumerate() {
            for (p, &b_jp) in b_row.iter().enumerate() {
                bt[p * n + j] = b_jp;
            }
        }
        product(View::row_major(a, k), bt, c, [m, k, n], Sum::ThenAddToC);
    });
}

/// The left-hand matrix, read in place: entry (r, c) is `data[r · row_stride + c · col_stride]`,
/// so its transpose is a swap of the strides, not a copy.
#[derive(Clone, Copy)]
struct View<'a> {
    data: &'a [f64],
    row_stride: usize,
    col_stride: usize,
}

impl<'a> View<'a> {
    fn row_major(data: &'a [f64], cols: usize) -> Self {
        Self {
            data,
            row_stride: cols,
            col_stride: 1,
        }
    }

    fn transposed(self) -> Self {
        Self {
            row_stride: self.col_stride,
            col_stride: self.row_stride,
            ..self
        }
    }

    #[inline]
    fn at(&self, row: usize, col: usize) -> f64 {
        self.data[row * self.row_stride + col * self.col_stride]
    }
}

/// Where each entry's sum starts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Sum {
    /// `c += x₀; c += x₁; …`
    OntoC,
    /// `s = x₀ + x₁ + …` from 0, then `c += s`.
    ThenAddToC,
}

/// The rows and columns of `c` one tile keeps in registers.
const ROWS: usize = 4;
const COLS: usize = 4;

/// `c (m × n) += a (m × k) · b (k × n)`, `b` and `c` row-major, in `ROWS × COLS` tiles of `c`.
fn product(a: View, b: &[f64], c: &mut [f64], [m, k, n]: [usize; 3], sum: Sum) {
    // The SIMD tile walks `b` by rows (`chunks_exact`), which would stop early, not fail, on a
    // short `b`.
    assert!(b.len() >= k * n, "b: {} entries for {k} × {n}", b.len());
    let (full_rows, full_cols) = (m - m % ROWS, n - n % COLS);
    for i in (0..full_rows).step_by(ROWS) {
        for j in (0..full_cols).step_by(COLS) {
            #[cfg(target_arch = "wasm32")]
            simd::tile_4x4(a, b, c, [i, j], [k, n], sum);
            #[cfg(not(target_arch = "wasm32"))]
            tile::<ROWS, COLS>(a, b, c, [i, j], [k, n], sum);
        }
        for j in full_cols..n {
            tile::<ROWS, 1>(a, b, c, [i, j], [k, n], sum);
        }
    }
    for i in full_rows..m {
        for j in (0..full_cols).step_by(COLS) {
            tile::<1, COLS>(a, b, c, [i, j], [k, n], sum);
        }
        for j in full_cols..n {
            tile::<1, 1>(a, b, c, [i, j], [k, n], sum);
        }
    }
}

/// One `R × C` tile of `c` from row `i`, column `j`: `R × C` running sums, and for each `p` a
/// column of `a` times a row of `b` added into them.
#[inline]
fn tile<const R: usize, const C: usize>(
    a: View,
    b: &[f64],
    c: &mut [f64],
    [i, j]: [usize; 2],
    [k, n]: [usize; 2],
    sum: Sum,
) {
    let mut acc = [[0.0; C]; R];
    if sum == Sum::OntoC {
        for (r, acc_row) in acc.iter_mut().enumerate() {
            acc_row.copy_from_slice(&c[(i + r) * n + j..][..C]);
        }
    }
    for p in 0..k {
        let a_col: [f64; R] = std::array::from_fn(|r| a.at(i + r, p));
        let b_row = &b[p * n + j..][..C];
        for (acc_row, &a_rp) in acc.iter_mut().zip(&a_col) {
            for (acc_rs, &b_ps) in acc_row.iter_mut().zip(b_row) {
                *acc_rs += a_rp * b_ps;
            }
        }
    }
    for (r, acc_row) in acc.iter().enumerate() {
        let c_row = &mut c[(i + r) * n + j..][..C];
        match sum {
            Sum::OntoC => c_row.copy_from_slice(acc_row),
            Sum::ThenAddToC => {
                for (c_rs, &s) in c_row.iter_mut().zip(acc_row) {
                    *c_rs += s;
                }
            }
        }
    }
}

/// The 4 × 4 tile with WebAssembly's 128-bit SIMD: two `f64` per instruction, so a row of the
/// tile is two `f64x2` sums, and each step is 8 multiplies and 8 adds instead of 16 and 16
/// (about 1.2× the training steps per second in V8, benches/NOTES.md). The same
/// multiplies and adds on the same numbers in the same order as [`super::tile`], so the same bits
/// (a wasm test checks it on every shape).
///
/// `#[target_feature(enable = "simd128")]` is safe on wasm32: an engine without SIMD rejects the
/// whole module rather than misbehaving, and every current browser has it.
#[cfg(target_arch = "wasm32")]
mod simd {
    use super::{Sum, View, COLS, ROWS};
    use core::arch::wasm32::{f64x2_add, f64x2_mul, f64x2_splat, v128};

    const _: () = assert!(
        ROWS == 4 && COLS == 4,
        "tile_4x4 is written for 4 × 4 tiles"
    );

    /// Four neighbouring `f64` as two vectors, and back. `bytemuck` does the reinterpretation
    /// (this workspace forbids `unsafe`), which compiles to whole 128-bit loads and stores where
    /// `f64x2(x[0], x[1])` compiled to two 64-bit lane loads per vector.
    fn vectors(x: &[f64]) -> [v128; 2] {
        let x: [f64; 4] = x[..4].try_into().expect("four entries");
        bytemuck::cast(x)
    }

    fn numbers(v: [v128; 2]) -> [f64; 4] {
        bytemuck::cast(v)
    }

    #[target_feature(enable = "simd128")]
    pub(super) fn tile_4x4(
        a: View,
        b: &[f64],
        c: &mut [f64],
        [i, j]: [usize; 2],
        [k, n]: [usize; 2],
        sum: Sum,
    ) {
        let mut acc: [[v128; 2]; 4] = std::array::from_fn(|r| match sum {
            Sum::OntoC => vectors(&c[(i + r) * n + j..]),
            Sum::ThenAddToC => [f64x2_splat(0.0); 2],
        });
        // The tile's four entries of `a` in column `p`, read so that the bounds are checked once
        // per tile (a row-major `a`: four rows of `k`) or once per `p` (a transposed one: the four
        // entries are neighbours).
        if a.col_stride == 1 {
            let rows: [&[f64]; 4] = std::array::from_fn(|r| &a.data[(i + r) * a.row_stride..][..k]);
            accumulate(&mut acc, b, [j, k, n], |p| {
                std::array::from_fn(|r| rows[r][p])
            });
        } else {
            debug_assert_eq!(a.row_stride, 1);
            accumulate(&mut acc, b, [j, k, n], |p| {
                a.data[p * a.col_stride + i..][..4]
                    .try_into()
                    .expect("four entries")
            });
        }
        for (r, acc_row) in acc.into_iter().enumerate() {
            let c_row = &mut c[(i + r) * n + j..][..4];
            for (c_rs, s) in c_row.iter_mut().zip(numbers(acc_row)) {
                match sum {
                    Sum::OntoC => *c_rs = s,
                    Sum::ThenAddToC => *c_rs += s,
                }
            }
        }
    }

    /// For each `p`: the tile's column of `a` (`a_col(p)`) times columns `j..j + 4` of `b`'s
    /// row `p`, added into the sums, one multiply and one add per entry in the order of `p`.
    #[inline]
    #[target_feature(enable = "simd128")]
    fn accumulate(
        acc: &mut [[v128; 2]; 4],
        b: &[f64],
        [j, k, n]: [usize; 3],
        a_col: impl Fn(usize) -> [f64; 4],
    ) {
        for (p, b_row) in b.chunks_exact(n).take(k).enumerate() {
            let [b_left, b_right] = vectors(&b_row[j..]);
            for (acc_row, a_rp) in acc.iter_mut().zip(a_col(p)) {
                let a_rp = f64x2_splat(a_rp);
                acc_row[0] = f64x2_add(acc_row[0], f64x2_mul(a_rp, b_left));
                acc_row[1] = f64x2_add(acc_row[1], f64x2_mul(a_rp, b_right));
            }
        }
    }
}
