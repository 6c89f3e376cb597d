"""One paired comparison as a scipy-style result object."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import xarray as xr
from scipy import stats

from bayesnoise._common import ConfidenceInterval, z_from_level
from bayesnoise.data import MODEL, complete
from bayesnoise.frequentist import _core
from bayesnoise.frequentist.noise import pair_noise_dataset


@dataclass
class PairedTestResult:
    """Result of :func:`paired_test` (``a - b``).

    Attributes
    ----------
    statistic : float
        z for ``method="z"`` and ``"bootstrap"``; the number of questions ``a`` wins for
        ``"sign"``; the chi-square statistic for ``"mcnemar"``.
    pvalue : float
        Two-sided.
    difference : float
        Observed accuracy of ``a`` minus ``b``.
    se : float
        Standard error of the observed difference used by the z interval (``se_mean``, or the
        bootstrap SE for ``method="bootstrap"``).
    noise : dict
        Paired ``total``, ``data``, ``prediction`` variances and their ``se_*``.
    """

    statistic: float
    pvalue: float
    difference: float
    se: float
    method: str
    questions: int
    noise: dict = field(default_factory=dict)

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """Normal-theory interval ``difference +- z * se`` for the difference of mean scores."""
        half = z_from_level(confidence_level) * self.se
        return ConfidenceInterval(self.difference - half, self.difference + half)


def paired_test(
    ds: xr.Dataset,
    model_a: str,
    model_b: str,
    *,
    method: str = "z",
    on_missing: str = "raise",
    n_boot: int = 2000,
    random_seed: int | None = 0,
) -> PairedTestResult:
    """Test whether two models differ on the same questions.

    Parameters
    ----------
    ds : xarray.Dataset
    model_a, model_b : str
    method : {"z", "sign", "mcnemar", "bootstrap"}
        ``z``: difference / se_mean with se_mean = sqrt(var_i(p_a - p_b) / N), normal p-value.
        ``sign``: exact two-sided binomial test on the (expected) discordant counts.
        ``mcnemar``: chi-square with continuity correction on the same counts.
        ``bootstrap``: z with the paired bootstrap SE (``n_boot`` resamples of the questions).
    on_missing : {"raise", "intersect"}
    n_boot, random_seed : int

    Examples
    --------
    >>> import numpy as np
    >>> from bayesnoise.data import from_arrays
    >>> from bayesnoise.frequentist import paired_test
    >>> rng = np.random.default_rng(1)
    >>> a = rng.random(400) < 0.7
    >>> b = np.where(rng.random(400) < 0.9, a, ~a)
    >>> ds = from_arrays(np.stack([a, b]), np.ones((2, 400)), models=["a", "b"])
    >>> res = paired_test(ds, "a", "b")
    >>> ci = res.confidence_interval(confidence_level=0.9)
    >>> bool(ci.low < res.difference < ci.high)
    True
    """
    for name in (model_a, model_b):
        if name not in ds[MODEL].values:
            raise KeyError(f"no model {name!r}; models are {list(map(str, ds[MODEL].values))}")
    if model_a == model_b:
        raise ValueError("model_a and model_b are the same model")
    sub = complete(ds.sel({MODEL: [model_a, model_b]}), on_missing=on_missing)
    n_boot = n_boot if method == "bootstrap" else 0
    mat = pair_noise_dataset(sub, n_boot=n_boot, random_seed=random_seed)
    cell = mat.isel(model_a=0, model_b=1)
    n = mat.attrs["questions"]
    noise = {k: float(cell[k]) for k in ("total", "data", "prediction", "se_total", "se_data",
                                         "se_prediction", "se_mean")}  # fmt: skip
    diff, se_mean = float(cell["difference"]), float(cell["se_mean"])
    wa, wb = float(mat["wins_a"][0, 1]), float(mat["wins_a"][1, 0])
    if method == "z":
        stat, pvalue, se = float(cell["z"]), float(cell["p_normal"]), se_mean
    elif method == "sign":
        stat, pvalue, se = np.trunc(wa), float(cell["p_sign_test"]), se_mean
    elif method == "mcnemar":
        stat = float(_core.mcnemar_statistic(wa, wb))
        pvalue, se = float(cell["p_mcnemar"]), se_mean
    elif method == "bootstrap":
        se = float(cell["se_bootstrap"])
        stat = diff / se if se > 0 else np.nan
        pvalue = float(2 * stats.norm.sf(abs(stat))) if se > 0 else np.nan
    else:
        raise ValueError(f"method must be 'z', 'sign', 'mcnemar' or 'bootstrap', not {method!r}")
    return PairedTestResult(float(stat), float(pvalue), diff, float(se), method, int(n), noise)
