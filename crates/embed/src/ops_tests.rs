use super::*;

/// erf by its Taylor series in f64: exact to ~1e-13 for |x| <= 3.
fn erf_series(x: f64) -> f64 {
    let (mut sum, mut term, mut n) = (0.0, x, 0.0);
    while term.abs() > 1e-17 {
        sum += term / (2.0 * n + 1.0);
        n += 1.0;
        term *= -x * x / n;
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

#[test]
fn exp_is_within_a_few_ulp() {
    for i in -8700..=8800 {
        let x = i as f32 / 100.0;
        let (got, want) = (f64::from(exp(x)), f64::from(x).exp());
        assert!(
            ((got - want) / want).abs() < 4e-7,
            "exp({x}) = {got}, not {want}"
        );
    }
    assert_eq!(exp(-1000.0), exp(-87.3));
    assert!(exp(-1000.0) > 0.0 && exp(-1000.0) < 1e-37);
}

#[test]
fn erf_is_within_1e_6() {
    for i in -3000..=3000 {
        let x = i as f32 / 1000.0;
        let (got, want) = (f64::from(erf(x)), erf_series(f64::from(x)));
        assert!((got - want).abs() < 1e-6, "erf({x}) = {got}, not {want}");
    }
    for (x, want) in [(3.5, 0.999_999_256_901_6), (5.0, 1.0), (-9.0, -1.0)] {
        assert!((f64::from(erf(x)) - want).abs() < 1e-6, "erf({x})");
    }
}

#[test]
fn gelu_is_the_erf_form() {
    let mut x = [-3.0f32, -1.0, 0.0, 0.5, 2.0];
    gelu(&mut x);
    let want = [-0.004_049_7, -0.158_655_3, 0.0, 0.345_731_1, 1.954_5];
    for (g, w) in x.iter().zip(want) {
        assert!((g - w).abs() < 1e-5, "{x:?}");
    }
}

#[test]
fn gemm_matches_loops_for_any_strides() {
    let (m, k, n) = (5, 7, 3);
    let a: Vec<f32> = (0..m * k).map(|i| (i as f32 * 0.37).sin()).collect();
    let b: Vec<f32> = (0..k * n).map(|i| (i as f32 * 0.11).cos()).collect();
    // B read as the transpose of an n×k row-major matrix.
    let mut c = vec![1.0; m * 4];
    gemm(
        2.0,
        View::rows(&a, m, k),
        View::new(&b, k, n, 1, k),
        0.5,
        &mut c,
        4,
    );
    for i in 0..m {
        for j in 0..n {
            let dot: f32 = (0..k).map(|l| a[i * k + l] * b[j * k + l]).sum();
            assert!((c[i * 4 + j] - (2.0 * dot + 0.5)).abs() < 1e-5);
        }
        assert_eq!(c[i * 4 + 3], 1.0, "the column past n is left alone");
    }
}

#[test]
#[should_panic(expected = "view outside its slice")]
fn a_view_past_its_slice_panics() {
    let data = [0.0; 10];
    let _ = View::new(&data, 3, 4, 4, 1);
}

#[test]
fn linear_adds_the_bias() {
    let layer = Linear {
        weight: vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        bias: vec![0.5, -1.0],
    };
    let mut out = [0.0; 4];
    layer.apply(&[1.0, 0.0, 1.0, 0.0, 1.0, 0.0], 2, &mut out);
    assert_eq!(out, [4.5, 9.0, 2.5, 4.0]);
}

#[test]
fn layer_norm_and_softmax() {
    let norm = Norm {
        weight: vec![2.0; 4],
        bias: vec![1.0; 4],
    };
    let mut x = [1.0, 2.0, 3.0, 4.0];
    norm.add_apply(&mut x, &[1.0; 4]);
    let want = [-1.683_281_6, 0.105_572_8, 1.894_427_2, 3.683_281_6];
    assert!(
        x.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-5),
        "{x:?}"
    );

    let mut s = [1.0, 2.0, 3.0, -1e30, 0.0, 1e30];
    softmax_rows(&mut s, 3);
    let want = [0.090_030_57, 0.244_728_48, 0.665_240_9, 0.0, 0.0, 1.0];
    assert!(
        s.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-6),
        "{s:?}"
    );
}

#[test]
fn layer_norm_and_softmax_of_wide_rows() {
    // 384 wide, as in the model: the eight-lane loops and their tails both run.
    let x: Vec<f32> = (0..2 * 384)
        .map(|i| (i as f32 * 0.731).sin() * 3.0 + 0.5)
        .collect();
    let norm = Norm {
        weight: (0..384).map(|i| 1.0 + i as f32 / 384.0).collect(),
        bias: (0..384).map(|i| (i as f32).cos()).collect(),
    };
    let mut got = x.clone();
    norm.add_apply(&mut got, &vec![0.25; x.len()]);
    let mut soft = x.clone();
    softmax_rows(&mut soft, 384);
    for r in 0..2 {
        let row: Vec<f64> = x[r * 384..][..384].iter().map(|&v| f64::from(v)).collect();
        let shifted: Vec<f64> = row.iter().map(|v| v + 0.25).collect();
        let mean = shifted.iter().sum::<f64>() / 384.0;
        let var = shifted.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 384.0;
        let max = row.iter().fold(f64::NEG_INFINITY, |m, &v| m.max(v));
        let total: f64 = row.iter().map(|v| (v - max).exp()).sum();
        for c in 0..384 {
            let (w, b) = (f64::from(norm.weight[c]), f64::from(norm.bias[c]));
            let want = (shifted[c] - mean) / (var + 1e-12).sqrt() * w + b;
            assert!(
                (f64::from(got[r * 384 + c]) - want).abs() < 1e-5,
                "norm {r} {c}"
            );
            let want = (row[c] - max).exp() / total;
            assert!(
                (f64::from(soft[r * 384 + c]) - want).abs() < 1e-7,
                "softmax {r} {c}"
            );
        }
    }
}
