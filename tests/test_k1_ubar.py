"""K = 1: the ubar interval rests on kappa's prior, which one sample per question cannot check.

With one sample per question the likelihood does not depend on kappa, so ``posterior``
integrates kappa over its LogNormal prior (median 1, log sd 1.5) and says so
(``kappa_status = "not identified (K = 1): prior"``). The ubar interval is then calibrated on
average over that prior, not at every true kappa: it assumes the question difficulties spread
about as much as Beta(p, 1 - p). This simulation measures the printed interval
(:func:`bayesnoise.conjugate.posterior_table`, ``ubar_low/high``) at true kappa 0.5, 1 and 5,
N = 100 and 500, accuracy 0.5, and the kappa-free alternative (the population interval, exactly
Jeffreys at K = 1, read as an interval for ubar).

Tolerance, derived: R = 1000 independent replicates (as 1000 models of one dataset, each
fitted on its own) give a coverage with binomial Monte Carlo SE sqrt(p (1 - p) / R); at the
nominal p = 0.95 that is 0.0069. A calibrated interval must lie within 3 MCSE of 0.95 on both
sides, [0.929, 0.971] (false alarm about 0.3% per cell).

Measured (R = 1000, seeds as below; the same at accuracy 0.8): ubar covers 0.987 / 0.988 at
kappa 0.5 (N = 100 / 500), 0.963 / 0.959 at kappa 1, 0.899 / 0.878 at kappa 5 (and 0.85 / 0.83 at
kappa 100); the error does not shrink with N, since the data never inform kappa. The Jeffreys
interval covers ubar at least at the nominal rate for every kappa (0.995-1.000 at kappa <= 1,
0.96-0.975 at 5, 0.94-0.955 at 100, where every u_i equals mu and ubar is the population mean)
and is 1.36 times as wide.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from bayesnoise.conjugate import posterior_table
from bayesnoise.data import from_arrays

pytestmark = pytest.mark.slow

R = 1000
LEVEL = 0.95
MCSE = np.sqrt(LEVEL * (1 - LEVEL) / R)  # 0.0069
BAND = (LEVEL - 3 * MCSE, LEVEL + 3 * MCSE)  # [0.929, 0.971]
MU = 0.5

_CACHE: dict = {}


def _cell(n, kappa):
    """(ubar coverage, Jeffreys coverage of ubar) for R replicates at K = 1."""
    if (n, kappa) not in _CACHE:
        rng = np.random.default_rng([n, int(10 * kappa)])
        u = rng.beta(MU * kappa, (1 - MU) * kappa, (R, n))
        c = rng.binomial(1, u)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the K = 1 note, once per call
            df = posterior_table(from_arrays(c, np.ones_like(c)), random_seed=1, progress=False)
        assert (df["kappa_status"] == "not identified (K = 1): prior").all()
        truth = u.mean(axis=1)
        ubar = np.mean((df["ubar_low"] <= truth) & (truth <= df["ubar_high"]))
        jeffreys = np.mean((df["mu_low"] <= truth) & (truth <= df["mu_high"]))
        _CACHE[n, kappa] = float(ubar), float(jeffreys)
    return _CACHE[n, kappa]


def _assumption_fails(measured):
    return pytest.mark.xfail(
        strict=True,
        reason=f"K = 1: ubar assumes kappa's prior (median 1); true kappa off it: {measured}",
    )


@pytest.mark.parametrize(
    ("n", "kappa"),
    [
        pytest.param(100, 0.5, marks=_assumption_fails("0.987, over")),
        pytest.param(500, 0.5, marks=_assumption_fails("0.988, over")),
        (100, 1.0),
        (500, 1.0),
        pytest.param(100, 5.0, marks=_assumption_fails("0.899, under")),
        pytest.param(500, 5.0, marks=_assumption_fails("0.878, under")),
    ],
)
def test_ubar_coverage_at_k1(n, kappa):
    ubar, _ = _cell(n, kappa)
    assert BAND[0] <= ubar <= BAND[1], f"N = {n}, kappa = {kappa}: ubar covers {ubar:.3f}"


@pytest.mark.parametrize("kappa", [0.5, 1.0, 5.0])
@pytest.mark.parametrize("n", [100, 500])
def test_kappa_free_interval_covers_ubar_at_every_kappa(n, kappa):
    """The population interval bounds ubar whatever kappa: given the u_i, the K = 1 accuracy
    has variance mean_i u_i (1 - u_i) / N <= ubar (1 - ubar) / N, the variance the Jeffreys
    interval allows for; equality only when every u_i is the same. So it is a worst-case
    (conservative) interval for ubar: the check is one-sided by design, at least nominal
    minus 3 MCSE."""
    _, jeffreys = _cell(n, kappa)
    assert jeffreys >= BAND[0], f"N = {n}, kappa = {kappa}: Jeffreys covers ubar {jeffreys:.3f}"
