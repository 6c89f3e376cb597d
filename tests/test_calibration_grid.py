"""CI-sized subset of the issue 8 calibration grid (``benchmarks/calibration_grid.py``).

Each cell is simulated once (module cache) with R = 300 replicated pairs and a seed derived from
the cell's parameters, so every number here is deterministic.

Tolerance for a 95% interval, derived: the Monte Carlo SE of a coverage estimated from R
independent replicates is sqrt(p (1 - p) / R); at the nominal p = 0.95 and R = 300 that is
MCSE = sqrt(0.95 * 0.05 / 300) = 0.0126. A calibrated interval is accepted when its estimated
coverage lies within 3 MCSE of the nominal level on both sides, [0.912, 0.988]: 3 MCSE keeps
the false-alarm rate per check at about 0.3% (normal approximation). (The band used to add
issue 8's 0.02 on each side, [0.892, 1.008]: at R = 300 that accepted any over-coverage.)
Cells that over-cover are strict xfails with their numbers. For the fraction of null
replicates with P(A > B) > 0.95 (target 5%, band 4-6%): MCSE = sqrt(0.05 * 0.95 / 300) =
0.0126 and the accepted range is [0.05 - 3 MCSE - 0.01, 0.05 + 3 MCSE + 0.01] = [0.002, 0.088].

Only intervals whose cell is one where issue 8's targets apply and which the current code
already meets are asserted plainly. Known defects are ``xfail(strict=True)`` with the issue's
defect number, so the test turns into an unexpected pass (a failure under strict) when the
defect is fixed: then remove the mark.
"""

from __future__ import annotations

import numpy as np
import pytest

from studies import grid

pytestmark = pytest.mark.slow

R = 300
LEVEL = 0.95
MCSE_95 = np.sqrt(LEVEL * (1 - LEVEL) / R)  # 0.0126
COV_LOW, COV_HIGH = LEVEL - 3 * MCSE_95, LEVEL + 3 * MCSE_95  # 0.912, 0.988 (two-sided)
P_TARGET = 0.05
MCSE_P = np.sqrt(P_TARGET * (1 - P_TARGET) / R)
P_LOW, P_HIGH = P_TARGET - 3 * MCSE_P - 0.01, P_TARGET + 3 * MCSE_P + 0.01  # 0.002, 0.088

# (shape, N, K, mu, kappa) -> parts simulated
CELLS = {
    "beta_n30_k5_mu50": (("beta", 30, 5, 0.5, 1.0), ("models", "fresh", "pairs")),
    "beta_n30_k5_mu05": (("beta", 30, 5, 0.05, 1.0), ("models", "pairs")),
    "beta_n30_k1_mu05": (("beta", 30, 1, 0.05, 1.0), ("models",)),
    "logitnormal_n100_k5_mu50": (("logitnormal", 100, 5, 0.5, 1.0), ("models",)),
    "twopoint_n30_k20_mu90": (("twopoint", 30, 20, 0.9, 1.0), ("models", "fresh", "pairs")),
}

_CACHE: dict[str, grid.CellResult] = {}


def cell(name: str) -> grid.CellResult:
    if name not in _CACHE:
        params, parts = CELLS[name]
        _CACHE[name] = grid.simulate_cell(*params, replicates=R, seed=0, parts=parts)
    return _CACHE[name]


def xfail(defect: int | None, why: str):
    """Strict xfail naming the audit's defect number (None: a target miss not in its list)."""
    label = f"defect {defect}" if defect else "acceptance target"
    return pytest.mark.xfail(strict=True, reason=f"issue 8 {label}: {why}")


def _over(measured: str):
    """Strict xfail of a cell that over-covers (above the two-sided band), with its numbers."""
    return pytest.mark.xfail(
        strict=True, reason=f"over-covers: measured {measured}, band [0.912, 0.988]"
    )


COVERAGE_CASES = [
    # a well-behaved cell (N = 30, K = 5 is inside the target region N >= 30 & K >= 5)
    *[
        ("beta_n30_k5_mu50", name)
        for name in (
            "ubar",
            "mu_bayes",
            "here_freq",
            "pop_freq",
            "acc_noise",
            "fresh",
            "fresh_new",
            "dbar_null",
            "pop_diff_null",
            "dbar_freq_null",
            "pop_diff_freq_null",
            "dbar_shift",
            "pop_diff_shift",
            "dbar_freq_shift",
            "pop_diff_freq_shift",
        )
    ],
    # lopsided accuracy at N = 30, K = 5: issue 8 defect 3 (the Bayesian-bootstrap population
    # difference covered 0.72-0.80 here at R = 50-300). The Dirichlet posterior with end atoms
    # far out over-covered, 0.993-0.997; with the atoms at the typical difference size (issue
    # 20) 0.977 / 0.960, in the band.
    ("beta_n30_k5_mu05", "pop_diff_null"),
    ("beta_n30_k5_mu05", "pop_diff_shift"),
    # the frequentist population interval of one model at K = 5: the effective-n Wilson interval
    # alone covered 0.86-0.89 here (var_i(p_i) underestimated when the rare solvable questions are
    # not sampled); the union with the held-prediction-noise score interval covers 0.94-0.97
    ("beta_n30_k5_mu05", "pop_freq"),
    # the frequentist population difference: the union with the held-noise interval
    # over-covered (0.993); the effective-n Tango interval alone (issue 20) 0.980
    ("beta_n30_k5_mu05", "pop_diff_freq_shift"),
    # K = 1, N = 30, accuracy 0.05: outside the K = 1 target region (N >= 100), but
    # defect 5's fix (a score interval in `compare`: Wilson has exact coverage 0.939 here, Wald
    # 0.782) already meets the band in the working tree; this guards it, and the same interval
    # as ``noise --confidence-level`` prints it. ``acc_wald`` (accuracy +- z se_mean, the Wald
    # form kept by name, not printed) is not asserted: it measures 0.78 here.
    ("beta_n30_k1_mu05", "pop_freq"),
    ("beta_n30_k1_mu05", "acc_noise"),
    # non-Beta question difficulties (logit-normal with the Beta's mean and variance)
    *[
        ("logitnormal_n100_k5_mu50", name)
        for name in ("ubar", "mu_bayes", "here_freq", "pop_freq", "acc_noise")
    ],
    # two-point difficulties, K = 20: the Beta-Binomial mu was biased under this shape and
    # covered 0.77-0.86 (R = 200, accuracy 0.05 / 0.9, N = 30 and 100); mu now comes from the
    # shape-free Dirichlet posterior of the mean per-question score (0.923-0.977 at R = 300),
    # and so does the run on new questions (0.82-0.86 before, 0.95 now in this cell).
    ("twopoint_n30_k20_mu90", "mu_bayes"),
    ("twopoint_n30_k20_mu90", "fresh_new"),
    # two-point difficulties, N = 30, K = 20, accuracy 0.9: 0.90-0.92 before the union, now in band
    ("twopoint_n30_k20_mu90", "pop_freq"),
    # the frequentist population difference of a pair under a shift, same cell: the effective-n
    # Tango interval covers 0.887 here, as the difference comes from the few hard questions
    # one model solves and the other does not (a sample of 30 often holds none). The union with
    # the held-prediction-noise Tango interval covered 0.97-0.99 here but cost 1.41 x the paired
    # t width in this cell and 1.3-4.3 x in every lopsided N = 30-100 cell of issue 20's grid
    # (studies/popdiff.py), where it over-covered; the paired t interval covers 0.885 here
    # (R = 2000). Issue 20 dropped the union: strict xfail with the numbers.
    pytest.param(
        "twopoint_n30_k20_mu90",
        "pop_diff_freq_shift",
        marks=xfail(
            None, "0.887 (MCSE 0.018): rare decisive questions; t 0.885, union 0.98 at 1.41 x t"
        ),
    ),
    ("twopoint_n30_k20_mu90", "pop_diff_freq_null"),
]


@pytest.mark.parametrize(("cell_name", "interval"), COVERAGE_CASES)
def test_coverage(cell_name, interval):
    res = cell(cell_name)
    cov, mcse = res.coverage[interval]
    assert np.isfinite(cov), f"{interval} not provided in {cell_name}"
    assert COV_LOW <= cov <= COV_HIGH, (
        f"{cell_name} {interval}: coverage {cov:.3f} (MCSE {mcse:.3f}) outside "
        f"[{COV_LOW:.3f}, {COV_HIGH:.3f}]"
    )


WIDTH_POWER_CASES = [
    (cell_name, base)
    for cell_name, (_, parts) in CELLS.items()
    if "pairs" in parts
    for base in grid.PAIR_POPULATION
]


@pytest.mark.parametrize(("cell_name", "base"), WIDTH_POWER_CASES)
def test_population_difference_width_and_power(cell_name, base):
    """Issue 20's width and power criteria in every pair cell, the strict-xfail coverage cell
    (``twopoint_n30_k20_mu90`` ``pop_diff_freq_shift``) included, so a doubled width or a lost
    power fails even where coverage is a known limit (issue 28). Width: median over the
    replicates of the width / the paired t interval's, null and shift, <= 1.3 (no allowance:
    its bootstrap MCSE is printed beside it, <= 0.02 here). Power: the interval's power / the
    paired t test's >= 0.9 - 3 MCSE (delta-method MCSE over the same R = 300 replicates)."""
    res = cell(cell_name)
    for design in ("null", "shift"):
        ratio, se = res.ratio[f"width_ratio_{base}_{design}"]
        assert ratio <= 1.3, f"{cell_name} {base} {design}: width {ratio:.2f} x t (MCSE {se:.2f})"
    ratio, se = res.ratio[f"power_ratio_{base}"]
    if np.isfinite(ratio):  # NaN when the t test never rejects (no power to compare)
        assert ratio >= 0.9 - 3 * se, f"{cell_name} {base}: power {ratio:.2f} x t (MCSE {se:.2f})"


def test_population_probability_null_fraction():
    """Issue 8 defect 4: a population-level P(A > B) exceeds 0.95 in about 5% of null pairs.

    ``prob_a_better`` itself is about *these* questions; under a null *population* difference it
    exceeds 0.95 far more often (0.14-0.38 in the grid at K >= 5), as it should for its own
    target, so it is reported by the benchmark but not asserted here.
    """
    p, mcse = cell("beta_n30_k5_mu50").probability["p_pop_gt95"]
    if not np.isfinite(p):
        pytest.skip("the package has no population-level P(A > B) yet (issue 8 defect 4)")
    assert P_LOW <= p <= P_HIGH, f"population P > 0.95 in {p:.3f} (MCSE {mcse:.3f}) of nulls"


def test_no_pair_table_errors():
    assert cell("beta_n30_k5_mu50").info["pair_errors"] == 0


def test_difficulty_shapes_match_mean_and_variance():
    """The non-Beta shapes have the Beta's mean mu and variance mu(1-mu)/(kappa+1)."""
    rng = np.random.default_rng(0)
    for shape in grid.SHAPES:
        for mu, kappa in ((0.05, 0.5), (0.5, 1.0), (0.9, 5.0)):
            d = grid.Difficulty(shape, mu, kappa)
            u = d.sample(rng, 400_000)
            # sampling SE of the mean: sqrt(var / 4e5) <= 0.0007 here; of the variance ~1%
            assert abs(u.mean() - mu) < 5 * np.sqrt(d.var / u.size) + 1e-4, (shape, mu, kappa)
            assert abs(u.var() / d.var - 1) < 0.05, (shape, mu, kappa)
