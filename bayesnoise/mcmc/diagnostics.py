"""Convergence diagnostics of MCMC fits (r_hat, bulk and tail ESS, divergences) via arviz-stats.

Also the warning categories of :mod:`bayesnoise.mcmc`.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from bayesnoise._common import MESSAGE_WIDTH

__all__ = [
    "ConvergenceReport",
    "ConvergenceWarning",
    "IdentifiabilityWarning",
    "check_convergence",
    "default_var_names",
    "diagnostics_table",
    "summary",
]

#: Thresholds of the convergence warning (Vehtari et al. 2021: r_hat <= 1.01, ESS >= 400 for
#: 4 chains' worth of reliable MCSE; we keep 400 whatever the number of chains).
RHAT_MAX = 1.01
ESS_MIN = 400

_DEFAULT_VARS = {
    "marginal": ["mu", "kappa"],
    "latent": ["mu", "kappa", "u"],
    "fixed": ["u"],
    # joint: the quantities reported; per-question difficulties of all-correct or all-wrong
    # questions have long prior-driven tails and are summarised by diagnostics_table instead.
    "joint": ["theta", "phi", "sigma_b", "mu", "dbar", "population_difference"],
}


class ConvergenceWarning(UserWarning):
    """MCMC diagnostics out of bounds: the posterior summaries may be unreliable."""


class IdentifiabilityWarning(UserWarning):
    """The data cannot identify a parameter: its posterior is its prior (the message says which)."""


# bayesnoise/ itself: warnings are attributed to the first frame outside the package.
_PACKAGE_DIR = str(Path(__file__).parent.parent) + os.sep


def warn_user(message: str, category: type[Warning]) -> None:
    """Warn, attributed to the user's code (the first frame outside bayesnoise), not ours."""
    warnings.warn(message, category, stacklevel=2, skip_file_prefixes=(_PACKAGE_DIR,))


def default_var_names(kind: str) -> list[str]:
    """Variables checked by default for a model kind (its sampled parameters)."""
    return list(_DEFAULT_VARS[kind])


@dataclass
class ConvergenceReport:
    """Result of :func:`check_convergence`.

    Attributes
    ----------
    ok : bool
        True when nothing is out of bounds.
    divergences : int
        Number of divergent transitions after tuning.
    problems : dict of str to str
        Per variable name, what is out of bounds.
    table : pandas.DataFrame
        Per variable: worst r_hat, smallest bulk and tail ESS, number of elements.
    """

    ok: bool
    divergences: int
    problems: dict[str, str] = field(default_factory=dict)
    table: pd.DataFrame | None = None

    def message(self) -> str:
        """Human-readable description of the problems (empty when ok)."""
        parts = [f"{name}: {why}" for name, why in self.problems.items()]
        if self.divergences:
            parts.append(
                f"{self.divergences} divergent transitions (raise target_accept, e.g. 0.95)"
            )
        return "; ".join(parts)


def _posterior(tree) -> xr.Dataset:
    if isinstance(tree, xr.DataTree):
        return tree["posterior"].to_dataset()
    return tree["posterior"]


def diagnostics_table(tree: xr.DataTree, var_names: list[str] | None = None) -> pd.DataFrame:
    """Worst-element r_hat, bulk ESS, tail ESS and MCSE of the mean, per variable.

    Parameters
    ----------
    tree : xarray.DataTree
        A fit from :func:`bayesnoise.mcmc.fit`.
    var_names : list of str, optional
        Default: every posterior variable with ``chain`` and ``draw`` dims.

    Returns
    -------
    pandas.DataFrame
        Index ``variable``; columns ``size``, ``r_hat_max``, ``ess_bulk_min``,
        ``ess_tail_min``, ``mcse_mean_max``.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from bayesnoise.mcmc import diagnostics_table
    >>> rng = np.random.default_rng(0)
    >>> post = xr.Dataset({"mu": (("chain", "draw"), rng.normal(size=(2, 500)))})
    >>> tree = xr.DataTree.from_dict({"posterior": post})
    >>> diagnostics_table(tree).columns.tolist()
    ['size', 'r_hat_max', 'ess_bulk_min', 'ess_tail_min', 'mcse_mean_max']
    """
    post = _posterior(tree)
    if var_names is None:
        var_names = [v for v in post.data_vars if {"chain", "draw"} <= set(post[v].dims)]
    var_names = [v for v in var_names if v in post]
    rows = []
    for v in var_names:
        stats = _element_diagnostics(post[v])
        rows.append(
            {
                "variable": v,
                "size": int(np.prod([post.sizes[d] for d in post[v].dims[2:]], dtype=int)),
                "r_hat_max": float(np.nanmax(stats["r_hat"])),
                "ess_bulk_min": float(np.nanmin(stats["ess_bulk"])),
                "ess_tail_min": float(np.nanmin(stats["ess_tail"])),
                "mcse_mean_max": float(np.nanmax(stats["mcse_mean"])),
            }
        )
    return pd.DataFrame(rows).set_index("variable")


def _element_diagnostics(da: xr.DataArray) -> dict[str, np.ndarray]:
    """r_hat, bulk / tail ESS, MCSE of every element of one variable (arviz-stats' numbers).

    Vectorised (:func:`convergence_arrays`); a square variable with ``x[b, a] == -x[a, b]`` in
    every draw (``dbar``, ``population_difference``) is diagnosed on its upper triangle only,
    since negating a variable leaves all four diagnostics unchanged. Variables holding NaN go
    through arviz-stats.
    """
    from .rank_diagnostics import convergence_arrays

    ary = da.transpose("chain", "draw", ...).values
    with warnings.catch_warnings():
        # constant elements (e.g. the diagonal of dbar) give 0/0 inside r_hat: reported as NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        if np.isnan(ary).any():
            import arviz_stats as azs

            ds = da.to_dataset(name="x")
            return {
                "r_hat": azs.rhat(ds)["x"].values,
                "ess_bulk": azs.ess(ds, method="bulk")["x"].values,
                "ess_tail": azs.ess(ds, method="tail")["x"].values,
                "mcse_mean": azs.mcse(ds, method="mean")["x"].values,
            }
        if ary.ndim == 4 and ary.shape[2] == ary.shape[3] > 1:
            if np.array_equal(ary, -np.swapaxes(ary, 2, 3)):
                upper = np.triu_indices(ary.shape[2])
                return convergence_arrays(ary[:, :, upper[0], upper[1]])
        return convergence_arrays(ary)


def _count_divergences(tree) -> int:
    if isinstance(tree, xr.DataTree):
        if "sample_stats" not in tree.children:
            return 0
        stats = tree["sample_stats"].to_dataset()
    else:
        stats = tree.get("sample_stats")
        if stats is None:
            return 0
    if "diverging" in stats:
        return int(stats["diverging"].sum())
    if "divergences" in stats:
        return int((stats["divergences"].diff("draw") > 0).sum())
    return 0


def check_convergence(
    tree: xr.DataTree,
    var_names: list[str] | None = None,
    *,
    rhat_max: float = RHAT_MAX,
    ess_min: float = ESS_MIN,
    warn: bool = True,
    advice: str = "Run more draws/tune or chains",
) -> ConvergenceReport:
    """Check r_hat, bulk / tail ESS and divergences; warn naming the offending variables.

    Parameters
    ----------
    tree : xarray.DataTree
        A fit.
    var_names : list of str, optional
        Variables to check (default: all posterior variables).
    rhat_max, ess_min : float
        Thresholds: r_hat > ``rhat_max`` or bulk / tail ESS < ``ess_min`` is a problem.
    warn : bool, default True
        Emit a :class:`ConvergenceWarning` when there is a problem.
    advice : str, optional
        What the warning tells to do, in the caller's options (a verb's ``draws=``, a
        command's ``--draws``); default the generic "Run more draws/tune or chains".

    Returns
    -------
    ConvergenceReport

    Examples
    --------
    >>> import numpy as np, xarray as xr, warnings
    >>> from bayesnoise.mcmc import check_convergence
    >>> rng = np.random.default_rng(0)
    >>> stuck = np.stack([rng.normal(0, 1, 300), rng.normal(3, 1, 300)])
    >>> tree = xr.DataTree.from_dict({"posterior": xr.Dataset({"mu": (("chain", "draw"), stuck)})})
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     report = check_convergence(tree)
    >>> report.ok, sorted(report.problems)
    (False, ['mu'])
    """
    table = diagnostics_table(tree, var_names)
    problems = {}
    for name, row in table.iterrows():
        why = []
        if not row["r_hat_max"] <= rhat_max:
            why.append(f"r_hat {row['r_hat_max']:.3f} > {rhat_max}")
        if not row["ess_bulk_min"] >= ess_min:
            why.append(f"bulk ESS {row['ess_bulk_min']:.0f} < {ess_min:g}")
        if not row["ess_tail_min"] >= ess_min:
            why.append(f"tail ESS {row['ess_tail_min']:.0f} < {ess_min:g}")
        if why:
            problems[str(name)] = ", ".join(why)
    divergences = _count_divergences(tree)
    report = ConvergenceReport(
        ok=not problems and divergences == 0,
        divergences=divergences,
        problems=problems,
        table=table,
    )
    if warn and not report.ok:
        head = "MCMC diagnostics out of bounds (worst per variable): "
        tail = f". {advice} before trusting them."
        room = MESSAGE_WIDTH - len(head) - len(tail)
        what = report.message()
        if len(what) > room:  # the first problems that fit whole; what to do stays on the line
            parts, kept = what.split("; "), []
            for part in parts:
                if len("; ".join([*kept, part, "..."])) > room:
                    break
                kept.append(part)
            dropped = [part.split(":")[0] for part in parts[len(kept) :]]
            also = f"also {', '.join(dropped)}"  # every variable named, its details cut
            if kept and len("; ".join([*kept, also])) <= room:
                what = "; ".join([*kept, also])
            else:
                what = "; ".join([*kept, "..."]) if kept else parts[0][: room - 3] + "..."
        warn_user(head + what + tail, ConvergenceWarning)
    return report


def summary(tree: xr.DataTree, var_names: list[str] | None = None, **kwargs) -> pd.DataFrame:
    """Arviz summary table (mean, sd, interval, ESS, r_hat, MCSE) of a fit.

    Thin wrapper over :func:`arviz_stats.summary` with 95% equal-tailed intervals by default,
    as everywhere else in the package (arviz's own default is 89%); extra keyword arguments are
    passed on (e.g. ``ci_prob=0.89``, ``kind="stats"``).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from bayesnoise.mcmc import summary
    >>> rng = np.random.default_rng(0)
    >>> post = xr.Dataset({"mu": (("chain", "draw"), rng.normal(size=(2, 500)))})
    >>> "r_hat" in summary(xr.DataTree.from_dict({"posterior": post})).columns
    True
    """
    import arviz_stats as azs

    kwargs.setdefault("ci_prob", 0.95)
    return azs.summary(tree, var_names=var_names, **kwargs)
