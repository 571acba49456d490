//! Medians, quartiles and a distribution-free confidence interval of the paired ratios.

pub fn quantile(values: &[f64], q: f64) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let pos = q * (v.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
}

pub fn median(values: &[f64]) -> f64 {
    quantile(values, 0.5)
}

/// Median, and interquartile range, of `r`.
pub fn median_iqr(r: &[f64]) -> (f64, f64, f64) {
    (median(r), quantile(r, 0.25), quantile(r, 0.75))
}

/// A distribution-free confidence interval, of at least 95%, for the median of what `r`
/// samples: the order statistics `r(j)` and `r(n+1-j)` with the largest `j` such that
/// `P(Binomial(n, 1/2) < j) <= 2.5%` (each round's ratio is equally likely to fall below or
/// above the true median). It assumes independent rounds; the A/A runs
/// (`QUERY_OVERHEAD_CALIBRATE=1`) check that: their intervals should hold 1.000. `None` with
/// fewer than 6 rounds, where no such `j` exists.
pub fn median_ci95(r: &[f64]) -> Option<(f64, f64)> {
    let n = r.len();
    // P(Binomial(n, 1/2) <= k), accumulated term by term.
    let mut term = 0.5f64.powi(n as i32);
    let mut below = 0.0;
    let mut j = 0;
    for k in 0..n {
        // `below` = P(X < k + 1) after this step.
        below += term;
        if below > 0.025 {
            break;
        }
        j = k + 1;
        term *= (n - k) as f64 / (k + 1) as f64;
    }
    if j == 0 {
        return None;
    }
    let mut v = r.to_vec();
    v.sort_by(f64::total_cmp);
    Some((v[j - 1], v[n - j]))
}
