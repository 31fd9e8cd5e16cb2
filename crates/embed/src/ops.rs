//! The arithmetic of the forward pass: matrix products (`matrixmultiply`'s sgemm,
//! whose AVX/FMA kernels are chosen at run time), LayerNorm, the exact (erf) GELU and
//! a row-wise softmax. `exp` and `erf` are branch-free polynomial forms that the
//! compiler vectorizes; both are within a few units in the last place of f32.

/// A matrix in a slice: element (r, c) is `data[r * rs + c * cs]`.
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    data: &'a [f32],
    rows: usize,
    cols: usize,
    rs: usize,
    cs: usize,
}

/// Whether a `rows`×`cols` matrix with these strides lies within `len` values.
fn fits(len: usize, rows: usize, cols: usize, rs: usize, cs: usize) -> bool {
    if rows == 0 || cols == 0 {
        return true;
    }
    let last = (rows - 1)
        .checked_mul(rs)
        .and_then(|r| (cols - 1).checked_mul(cs).and_then(|c| r.checked_add(c)));
    last.is_some_and(|last| last < len && isize::try_from(last).is_ok())
}

impl<'a> View<'a> {
    /// A view of `data`; panics if the matrix does not lie within it.
    pub(crate) fn new(data: &'a [f32], rows: usize, cols: usize, rs: usize, cs: usize) -> Self {
        assert!(
            fits(data.len(), rows, cols, rs, cs),
            "view outside its slice"
        );
        View {
            data,
            rows,
            cols,
            rs,
            cs,
        }
    }

    /// A row-major `rows`×`cols` matrix.
    pub(crate) fn rows(data: &'a [f32], rows: usize, cols: usize) -> Self {
        View::new(data, rows, cols, cols, 1)
    }
}

/// C ← α·A·B + β·C, with C row-major of row stride `rsc` in `c`.
pub(crate) fn gemm(alpha: f32, a: View, b: View, beta: f32, c: &mut [f32], rsc: usize) {
    assert_eq!(a.cols, b.rows, "inner dimensions differ");
    let (m, k, n) = (a.rows, a.cols, b.cols);
    assert!(
        rsc >= n && fits(c.len(), m, n, rsc, 1),
        "product outside its slice"
    );
    if m == 0 || n == 0 {
        return;
    }
    // SAFETY: `View::new` checked that every element A and B address lies within their
    // slices, and the assert above that C's do within `c`, all offsets fitting isize;
    // C's strides (rsc >= n, 1) address each element once, and `c` is borrowed
    // mutably so it aliases neither A nor B. matrixmultiply reads A and B and writes
    // only C's m×n elements.
    unsafe {
        matrixmultiply::sgemm(
            m,
            k,
            n,
            alpha,
            a.data.as_ptr(),
            a.rs as isize,
            a.cs as isize,
            b.data.as_ptr(),
            b.rs as isize,
            b.cs as isize,
            beta,
            c.as_mut_ptr(),
            rsc as isize,
            1,
        );
    }
}

/// A PyTorch `Linear`: `weight` is [out][in], and y = x·weightᵀ + bias.
#[derive(Debug)]
pub(crate) struct Linear {
    pub weight: Vec<f32>,
    pub bias: Vec<f32>,
}

impl Linear {
    /// out[rows×out] = x[rows×in]·weightᵀ + bias.
    pub(crate) fn apply(&self, x: &[f32], rows: usize, out: &mut [f32]) {
        let outs = self.bias.len();
        let ins = self.weight.len() / outs;
        for row in out[..rows * outs].chunks_exact_mut(outs) {
            row.copy_from_slice(&self.bias);
        }
        let weight_t = View::new(&self.weight, ins, outs, 1, ins);
        gemm(1.0, View::rows(x, rows, ins), weight_t, 1.0, out, outs);
    }
}

/// A LayerNorm's scale and shift.
#[derive(Debug)]
pub(crate) struct Norm {
    pub weight: Vec<f32>,
    pub bias: Vec<f32>,
}

/// BERT's LayerNorm epsilon.
const EPS: f32 = 1e-12;

impl Norm {
    /// x ← LayerNorm(x + residual), row by row.
    pub(crate) fn add_apply(&self, x: &mut [f32], residual: &[f32]) {
        let width = self.weight.len();
        for (row, res) in x.chunks_exact_mut(width).zip(residual.chunks_exact(width)) {
            for (v, r) in row.iter_mut().zip(res) {
                *v += r;
            }
            self.apply_row(row);
        }
    }

    /// One row normalized to mean 0, variance 1, then scaled and shifted.
    pub(crate) fn apply_row(&self, row: &mut [f32]) {
        let n = row.len() as f32;
        let mean = sum(row) / n;
        for v in row.iter_mut() {
            *v -= mean;
        }
        let var = lanes(row, 0.0, |v| v * v, |a, b| a + b) / n;
        let inv = 1.0 / (var + EPS).sqrt();
        for ((v, w), b) in row.iter_mut().zip(&self.weight).zip(&self.bias) {
            *v = *v * inv * w + b;
        }
    }
}

/// e^x for f32: Cephes' range reduction and polynomial, clamped to f32's normal range.
/// Integer arithmetic on the bits replaces a float-to-int cast, so loops vectorize.
#[inline]
pub(crate) fn exp(x: f32) -> f32 {
    // 1.5·2^23: adding it rounds to an integer, which then sits in the low bits.
    const ROUND: f32 = 12_582_912.0;
    let x = x.clamp(-87.3, 88.0);
    let t = x * std::f32::consts::LOG2_E + ROUND;
    let n = t - ROUND;
    // x - n·ln 2, with ln 2 in two parts so the product loses nothing.
    let r = x - n * 0.693_359_4 + n * 2.121_944_4e-4;
    let p = 1.987_569_1e-4_f32;
    let p = p * r + 1.398_199_9e-3;
    let p = p * r + 8.333_452e-3;
    let p = p * r + 4.166_579_6e-2;
    let p = p * r + 1.666_666_6e-1;
    let p = p * r + 0.5;
    let e = p * r * r + r + 1.0;
    // 2^n: n + 127 in the exponent field, n in -126..=127 after the clamp.
    let two_n = t.to_bits().wrapping_sub(ROUND.to_bits()).wrapping_add(127) << 23;
    e * f32::from_bits(two_n)
}

/// erf(x) for f32: the rational form Eigen and XLA use, odd over even polynomials in
/// x on [-4, 4] (beyond which erf is ±1 in f32).
#[inline]
pub(crate) fn erf(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let p = -2.726_142_4e-10_f32;
    let p = p * x2 + 2.770_681_5e-8;
    let p = p * x2 - 2.101_024e-6;
    let p = p * x2 - 5.692_506_2e-5;
    let p = p * x2 - 7.349_906_4e-4;
    let p = p * x2 - 2.954_6e-3;
    let p = p * x2 - 1.609_603_3e-2;
    let q = -1.456_607_15e-5_f32;
    let q = q * x2 - 2.133_740_5e-4;
    let q = q * x2 - 1.682_827e-3;
    let q = q * x2 - 7.373_329_3e-3;
    let q = q * x2 - 1.426_473_9e-2;
    x * p / q
}

/// GELU as BERT's `hidden_act: "gelu"` is: x·Φ(x) = x/2·(1 + erf(x/√2)), in place.
pub(crate) fn gelu(x: &mut [f32]) {
    for v in x {
        *v = 0.5 * *v * (1.0 + erf(*v * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// Softmax of each row of a row-major matrix `width` wide, in place.
pub(crate) fn softmax_rows(x: &mut [f32], width: usize) {
    for row in x.chunks_exact_mut(width) {
        let max = lanes(
            row,
            f32::NEG_INFINITY,
            |v| v,
            |a, b| if b > a { b } else { a },
        );
        for v in row.iter_mut() {
            *v = exp(*v - max);
        }
        let inv = 1.0 / sum(row);
        for v in row.iter_mut() {
            *v *= inv;
        }
    }
}

/// The sum of `x`, eight lanes at a time so that it vectorizes.
pub(crate) fn sum(x: &[f32]) -> f32 {
    lanes(x, 0.0, |v| v, |a, b| a + b)
}

/// `combine` over `map` of each value of `x`, in eight lanes (so that the loop
/// vectorizes), then over the lanes and the tail. `combine` must be associative up to
/// rounding, and `init` its identity.
#[inline]
fn lanes(x: &[f32], init: f32, map: impl Fn(f32) -> f32, combine: impl Fn(f32, f32) -> f32) -> f32 {
    let mut acc = [init; 8];
    let chunks = x.chunks_exact(8);
    let tail = chunks.remainder();
    for chunk in chunks {
        for (a, v) in acc.iter_mut().zip(chunk) {
            *a = combine(*a, map(*v));
        }
    }
    let tail = tail.iter().map(|v| map(*v));
    acc.into_iter().chain(tail).fold(init, combine)
}

#[cfg(test)]
#[path = "ops_tests.rs"]
mod tests;
