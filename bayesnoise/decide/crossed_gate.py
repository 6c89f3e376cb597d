"""The regression gate on a crossed design (prompt templates x questions, runs as replicates).

The change candidate - baseline is the paired difference over the template population of
:mod:`bayesnoise.frequentist.crossed` (the row ``bayesnoise noises --by pair`` prints), its SE
with the model x template part, and the one-sided t test of ``delta >= -margin`` on
Satterthwaite's degrees of freedom, so that a candidate that only wins under the templates
that happened to be drawn is not called better (nor worse) from 3 templates. The interval is
the two-sided ``1 - 2 alpha`` t interval, whose upper end is the one-sided bound tested, as
in :mod:`bayesnoise.decide.gate`; several benchmarks are combined as there (meta-analysis z,
Welch-Satterthwaite df, Holm).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .gate import COMBINED, GateResult, _result
from .regression_tests import _t_quantile, combine_tests

__all__ = ["crossed_gate", "crossed_regression_test"]

#: The ``test`` of a crossed gate row.
CROSSED_TEST = "Satterthwaite t"


def crossed_regression_test(fit, *, margin: float = 0.0, alpha: float = 0.05) -> dict:
    """One-sided t test of ``delta >= -margin`` from a crossed fit of the differences.

    Parameters
    ----------
    fit : bayesnoise.frequentist.crossed.CrossedFit
        Of the cells' candidate - baseline differences (``se_random``, ``df_random``: the
        template population).
    margin, alpha : float
        As :func:`bayesnoise.decide.gate.gate`.

    Returns
    -------
    dict
        The gate row: ``questions, change, se_change, t_change, df, p_value_regression,
        change_low, change_high, test``.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from bayesnoise.frequentist.crossed import crossed_fit
    >>> rng = np.random.default_rng(1)
    >>> y = -0.05 + rng.normal(0, 0.2, (50, 1)) + rng.normal(0, 0.02, (1, 4)) + rng.normal(0, 0.1, (50, 4))
    >>> fit = crossed_fit(y, None, np.ones((50, 4), bool))
    >>> r = crossed_regression_test(fit, alpha=0.05)
    >>> ref = stats.t.cdf(fit.estimate / fit.se_random, fit.df_random)
    >>> bool(np.isclose(r["p_value_regression"], ref)), r["test"]
    (True, 'Satterthwaite t')
    """
    change, se, df = float(fit.estimate), float(fit.se_random), float(fit.df_random)
    shifted = change + margin
    if se > 0:
        t = shifted / se
        p = float(special.stdtr(df, t))
        half = float(_t_quantile(1.0 - alpha, df)) * se
    else:  # every cell difference equal: no variation to refer t to
        t = np.nan if shifted == 0 else np.copysign(np.inf, shifted)
        p = 0.0 if shifted < 0 else 1.0
        half = 0.0
    return {
        "questions": int(fit.n_questions),
        "change": change,
        "se_change": se,
        "t_change": float(t),
        "df": df,
        "p_value_regression": p,
        "change_low": change - half,
        "change_high": change + half,
        "test": CROSSED_TEST,
        "all_zero": bool(change == 0 and se == 0),
    }


def crossed_gate(
    fits,
    *,
    names=None,
    accuracies=None,
    margin: float = 0.0,
    alpha: float = 0.05,
    baseline: str = "baseline",
    candidate: str = "candidate",
) -> GateResult:
    """The gate over one or several benchmarks from their crossed fits (module docs).

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.frequentist.crossed import crossed_fit
    >>> rng = np.random.default_rng(0)
    >>> y = -0.1 + rng.normal(0, 0.2, (80, 1)) + rng.normal(0, 0.1, (80, 5))
    >>> res = crossed_gate([crossed_fit(y, None, np.ones((80, 5), bool))])
    >>> res.regression, res.test
    (True, 'Satterthwaite t')
    """
    if not -1.0 < margin < 1.0:
        raise ValueError(f"margin must be in (-1, 1), got {margin}")
    if not 0.0 < alpha < 0.5:
        raise ValueError(f"alpha must be in (0, 0.5), got {alpha}")
    rows = [crossed_regression_test(f, margin=margin, alpha=alpha) for f in fits]
    names = [str(n) for n in (names or ["benchmark"] * len(rows))]
    if len(rows) > 1:
        combined = combine_tests(rows, margin=margin, alpha=alpha)
        combined["test"] = CROSSED_TEST if combined["test"] == "t" else combined["test"]
        combined["all_zero"] = all(r["all_zero"] for r in rows)
        rows.append(combined)
        names = [*names, COMBINED]
    return _result(rows, names, accuracies, margin, alpha, "frequentist", baseline, candidate)
