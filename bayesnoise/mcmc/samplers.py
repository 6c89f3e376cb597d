"""Which NUTS implementation :func:`~bayesnoise.mcmc.fit` uses, and the checks it makes
before PyMC is imported or anything is compiled."""

from __future__ import annotations

import importlib.util
import math

import numpy as np

from bayesnoise._common import require

from .diagnostics import ESS_MIN, RHAT_MAX
from .inputs import BuiltModel

__all__ = [
    "check_arguments",
    "raised_draws",
    "resolve_sampler",
    "retry_message",
]

#: Samplers accepted by :func:`~bayesnoise.mcmc.fit` ("auto": see :func:`resolve_sampler`).
SAMPLERS = ("auto", "pymc", "nutpie", "numpyro")

#: Optional packages each sampler needs, with the extra that installs them.
_SAMPLER_PACKAGES = {"nutpie": ("nutpie",), "numpyro": ("numpyro", "jax")}


def resolve_sampler(sampler: str, kind: str) -> str:
    """The NUTS implementation ``sampler`` stands for when fitting a model of ``kind``.

    ``"auto"`` is nutpie for the joint model when nutpie is installed (its hand-written numba
    density samples the 50 x 500 benchmark several times faster than PyMC's NUTS) and PyMC's
    NUTS otherwise; any other name is returned as it is.

    Examples
    --------
    >>> resolve_sampler("pymc", "joint"), resolve_sampler("auto", "marginal")
    ('pymc', 'pymc')
    """
    if sampler != "auto":
        return sampler
    if kind == "joint" and importlib.util.find_spec("nutpie") is not None:
        return "nutpie"
    return "pymc"


def check_arguments(built, sampler: str, draws, tune, chains) -> None:
    """Everything that can be refused before PyMC is imported or anything is compiled."""
    if not isinstance(built, BuiltModel):
        raise TypeError(
            "fit() takes a model built by bayesnoise.mcmc (marginal_model, latent_model, "
            f"fixed_hyper_model or joint_model), got {type(built).__name__}"
        )
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler must be one of {SAMPLERS}, got {sampler!r}")
    for name, value in (("draws", draws), ("tune", tune), ("chains", chains)):
        if int(value) != value or value < (0 if name == "tune" else 1):
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    for module in _SAMPLER_PACKAGES.get(sampler, ()):
        require(module, sampler, f"sampler={sampler!r}")


#: The one automatic re-run of :func:`~bayesnoise.mcmc.fit` takes at most this many times the
#: draws asked for.
MAX_DRAW_FACTOR = 4


def raised_draws(report, draws: int, tune: int, target_accept):
    """Draws, tuning steps and target acceptance for the re-run after a failed check.

    ESS grows in proportion to the draws, so the draws are raised by the factor that brings
    the smallest bulk or tail ESS of the first run to 1.2 x 400, at least 2 (an r_hat problem
    alone) and at most :data:`MAX_DRAW_FACTOR`; the tuning steps double (a longer warm-up for
    the step size and mass matrix), and after divergences ``target_accept`` becomes 0.95.

    Parameters
    ----------
    report : ConvergenceReport
        Of the first run.
    draws, tune : int
    target_accept : float or None

    Returns
    -------
    draws, tune, target_accept

    Examples
    --------
    >>> import pandas as pd
    >>> from bayesnoise.mcmc.diagnostics import ConvergenceReport
    >>> table = pd.DataFrame({"r_hat_max": [1.02], "ess_bulk_min": [300.0], "ess_tail_min": [500.0]})
    >>> raised_draws(ConvergenceReport(False, 0, {"mu": "r_hat"}, table), 1000, 1000, None)
    (2000, 2000, None)
    >>> table["ess_bulk_min"] = 40.0
    >>> raised_draws(ConvergenceReport(False, 3, {"mu": "ESS"}, table), 1000, 1000, None)
    (4000, 2000, 0.95)
    """
    ess = np.inf
    if report.table is not None and len(report.table):
        ess = float(np.nanmin(report.table[["ess_bulk_min", "ess_tail_min"]].to_numpy()))
    need = 1.2 * ESS_MIN / ess if ess > 0 else np.inf
    factor = int(min(MAX_DRAW_FACTOR, max(2, math.ceil(need) if np.isfinite(need) else np.inf)))
    accept = target_accept
    if report.divergences and (target_accept is None or target_accept < 0.95):
        accept = 0.95
    return int(draws) * factor, 2 * int(tune), accept


def retry_message(first, asked, used, report) -> str:
    """The one warning of a re-run: what was out of bounds, what was run, how it ended."""
    settings = f"draws={used[0]}, tune={used[1]}"
    if used[2] != asked[2]:
        settings += f", target_accept={used[2]}"
    text = (
        f"MCMC diagnostics out of bounds at draws={asked[0]}, tune={asked[1]} "
        f"({first.message()}); sampled again with {settings}"
    )
    if report.ok:
        return (
            text + f": now within bounds (r_hat <= {RHAT_MAX}, bulk and tail ESS >= "
            f"{ESS_MIN}, no divergences)."
        )
    return (
        text + f", still out of bounds: {report.message()}. Run more draws/tune or chains "
        "before trusting these numbers."
    )
