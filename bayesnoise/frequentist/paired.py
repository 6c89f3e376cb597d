"""One paired comparison as a scipy-style result object."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import xarray as xr

from bayesnoise._common import ConfidenceInterval, new_spellings, reject_old
from bayesnoise.data import MODEL, complete
from bayesnoise.frequentist import _core, _score
from bayesnoise.frequentist.intervals import difference_interval
from bayesnoise.frequentist.noise import pair_noise_dataset

METHODS = ("t", "sign", "permutation", "bootstrap", "sign_one_sample", "mcnemar_one_sample")


@dataclass
class PairedTestResult:
    """Result of :func:`paired_test` (``a - b``).

    Attributes
    ----------
    statistic : float
        The paired t statistic for ``method="t"`` (t = z sqrt((N - 1) / N), ``df`` = N - 1); z
        (difference / bootstrap SE) for ``"bootstrap"``; the number of questions on which ``a``'s
        averaged score is higher for ``"sign"``; sum_i d_i for ``"permutation"``; the (truncated)
        expected one-sample win count of ``a`` for ``"sign_one_sample"``; the chi-square
        statistic for ``"mcnemar_one_sample"``. NaN (with a warning) when the variance behind a
        z is zero up to rounding.
    pvalue : float
        Two-sided.
    difference : float
        Observed accuracy of ``a`` minus ``b``.
    se : float
        Standard error of the observed difference (``se_difference`` = sqrt(var_i(p_a - p_b) / N), or
        the bootstrap SE for ``method="bootstrap"``).
    method : str
    questions : int
    noise : dict
        Paired ``total``, ``data``, ``prediction`` variances (per question) and their ``se_*``.
    moments : dict
        What the score interval needs: ``accuracy_a``, ``accuracy_b``, ``var_a``, ``var_b``,
        ``var_difference`` (per-question variances, ddof 0) and ``samples_per_question``.
    """

    statistic: float
    pvalue: float
    difference: float
    se: float
    method: str
    questions: int
    noise: dict = field(default_factory=dict)
    moments: dict = field(default_factory=dict)
    df: float = float("nan")
    alternative: str = "two-sided"

    def confidence_interval(
        self, confidence_level: float = 0.95, *, method: str = "tango"
    ) -> ConfidenceInterval:
        """Interval for the difference of the two population accuracies.

        ``method="tango"`` (default), ``"union"`` and ``"newcombe"``: the score intervals of
        :func:`difference_interval`, never outside [-1, 1] and never of zero width; ``"t"``:
        the paired t interval (as ``scipy.stats.ttest_rel(...).confidence_interval``).
        ``"wald"``: ``difference +- z * se`` (with the bootstrap SE after
        ``method="bootstrap"``), clipped to [-1, 1].
        """
        m = self.moments
        if method == "wald":
            var = self.se**2 * self.questions  # per question, so that the bootstrap SE is used
            low, high = difference_interval(
                m["accuracy_a"],
                m["accuracy_b"],
                m["var_a"],
                m["var_b"],
                var,
                self.questions,
                confidence_level=confidence_level,
                method="wald",
            )
        else:
            low, high = difference_interval(
                m["accuracy_a"],
                m["accuracy_b"],
                m["var_a"],
                m["var_b"],
                m["var_difference"],
                self.questions,
                samples_per_question=m["samples_per_question"],
                confidence_level=confidence_level,
                method=method,
            )
        return ConfidenceInterval(float(low), float(high))


@new_spellings
def paired_test(
    ds: xr.Dataset,
    pair: tuple[str, str] | None = None,
    *old_args,
    method: str = "t",
    on_missing: str = "raise",
    n_resamples: int | None = None,
    rng: int | None = 0,
    **old,
) -> PairedTestResult:
    """Test whether two models differ on the same questions.

    No z is formed from a variance that is zero up to rounding, i.e. var <= 1e-12 * scale^2 with
    scale the largest ``|score|`` of the two models (one question, or two models that agree on every
    question): the statistic and p-value are then NaN and a warning says why.

    Parameters
    ----------
    ds : xarray.Dataset
        From :func:`bayesnoise.load`, holding both models.
    pair : (str, str)
        The two models ``(A, B)``; the difference is ``A - B``.
    method : {"t", "sign", "permutation", "bootstrap", "sign_one_sample", "mcnemar_one_sample"}
        Tests of the difference measured, of the per-question averages d_i = p_a,i - p_b,i:
        ``t``: the paired t test, t = z sqrt((N - 1) / N) with z = difference / se_difference and
        se_difference = sqrt(var_i(p_a - p_b) / N) (ddof 0, the SE of the variance components),
        against Student t with ``df`` = N - 1 degrees of freedom (exactly
        ``scipy.stats.ttest_rel``; the normal reference of z rejected a true null about 5.4% of
        the time at N = 100); it is the ``p_value`` of ``bayesnoise pairs``;
        ``sign``: exact two-sided sign test on the signs of the d_i (ties dropped);
        ``permutation``: sign-flip permutation test of sum_i d_i (``n_resamples`` flips);
        ``bootstrap``: z with the paired bootstrap SE (``n_resamples`` resamples of the questions).
        Eval-Arena's tests at the level of one sample per question, on the expected win counts
        sum_i p_a (1 - p_b): ``sign_one_sample`` (exact binomial) and ``mcnemar_one_sample``
        (chi-square with continuity correction); at K = 1 with 0/1 scores ``sign_one_sample``
        equals ``sign``, at K > 1 both are nearly powerless for the averaged difference.
    on_missing : {"raise", "intersect"}
        What to do when the two models do not cover the same questions.
    n_resamples : int, optional
        Bootstrap resamples of ``method="bootstrap"`` (default 2000), or random sign vectors
        of ``method="permutation"`` (default 9999; the p-value's Monte Carlo SE is about
        sqrt(p (1 - p) / n_resamples)).
    rng : int or numpy.random.Generator, optional
        Seed of the bootstrap and of the permutations.

    Returns
    -------
    PairedTestResult
        scipy-style: ``statistic``, ``pvalue``, ``df`` (``method="t"``; NaN otherwise),
        ``alternative`` ("two-sided"), plus ``difference`` and ``se``;
        ``confidence_interval(confidence_level=)`` gives a score interval for the population
        difference.

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> from bayesnoise.frequentist import paired_test
    >>> rng = np.random.default_rng(1)
    >>> a = rng.random(400) < 0.7
    >>> b = np.where(rng.random(400) < 0.9, a, ~a)
    >>> ds = from_arrays(np.stack([a, b]), np.ones((2, 400)), models=["a", "b"])
    >>> res = paired_test(ds, pair=("a", "b"))
    >>> ci = res.confidence_interval(confidence_level=0.9)
    >>> bool(ci.low < res.difference < ci.high)
    True
    """
    reject_old(
        "paired_test",
        old,
        {"model_a": "pair=(A, B)", "model_b": "pair=(A, B)"},
        old_args=old_args,
        positional="paired_test(ds, A, B) is now paired_test(ds, pair=(A, B))",
    )
    if pair is None:
        raise TypeError("paired_test(): pair=(A, B) is required (the two models)")
    if isinstance(pair, str) or len(pair) != 2:
        raise ValueError(f"pair must be two model names (A, B); got {pair!r}")
    model_a, model_b = pair
    for name in (model_a, model_b):
        if name not in ds[MODEL].values:
            raise KeyError(f"no model {name!r}; models are {list(map(str, ds[MODEL].values))}")
    if model_a == model_b:
        raise ValueError(f"pair names the same model twice: {model_a!r}")
    if method == "z":
        raise ValueError(
            "method 'z' is now 't': its p-value was always the paired t test's (N - 1 df), "
            "and the result now carries that t and its df"
        )
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}; not {method!r}")
    sub = complete(ds.sel({MODEL: [model_a, model_b]}), on_missing=on_missing)
    n_boot = (2000 if n_resamples is None else n_resamples) if method == "bootstrap" else 0
    n_perm = (9999 if n_resamples is None else n_resamples) if method == "permutation" else 0
    resampling = "bootstrap" if method == "bootstrap" else "permutation"
    mat = pair_noise_dataset(sub, n_resamples=n_boot + n_perm, resampling=resampling, rng=rng)
    cell = mat.isel(model_a=0, model_b=1)
    n = mat.attrs["questions"]
    keys = ("total", "data", "prediction", "se_total", "se_data", "se_prediction", "se_difference")
    noise = {k: float(cell[k]) for k in keys}
    diff, se_mean = float(cell["difference"]), float(cell["se_difference"])
    wa, wb = float(mat["wins_a"][0, 1]), float(mat["wins_a"][1, 0])
    scale = float(mat["scale_model"].max())
    se = se_mean
    df = np.nan
    if method == "t":
        stat = float(_score.paired_t_statistic(float(cell["z"]), n))
        pvalue, df = float(cell["p_value"]), float(n - 1)
    elif method == "sign":
        stat, pvalue = float(cell["questions_a_above"]), float(cell["p_value_sign_questions"])
    elif method == "permutation":
        stat, pvalue = diff * n, float(cell["p_value_permutation"])
    elif method == "sign_one_sample":
        stat, pvalue = np.trunc(wa), float(cell["p_value_sign_one_sample"])
    elif method == "mcnemar_one_sample":
        stat = float(_core.mcnemar_statistic(wa, wb))
        pvalue = float(cell["p_value_mcnemar_one_sample"])
    else:
        se = float(cell["se_bootstrap"])
        stat = pvalue = np.nan
        if not _score.is_zero_variance(se * se, scale):
            stat = diff / se
            pvalue = float(_score.normal_pvalue(stat))
    if method == "bootstrap" and np.isnan(stat):  # (pair_noise_dataset says so for "z")
        warnings.warn(
            f"{model_a[:40]} - {model_b[:40]}: no z, the bootstrap variance of the difference is "
            "zero (the models agree on every question); use the sign test or the score interval",
            UserWarning,
            stacklevel=2,
        )
    var = mat["var_mean_model"].values
    moments = {
        "accuracy_a": float(mat["accuracy"][0]),
        "accuracy_b": float(mat["accuracy"][1]),
        "var_a": float(var[0]),
        "var_b": float(var[1]),
        "var_difference": float(cell["var_mean"]),
        "samples_per_question": float(mat["samples_per_question_model"].min()),
    }
    return PairedTestResult(
        float(stat), float(pvalue), diff, float(se), method, int(n), noise, moments, df
    )
