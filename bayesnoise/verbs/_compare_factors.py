"""``compare`` on factor dims (prompt templates): beside the frequentist crossed rows of
``noises``, the Bayesian crossed model's columns (``noises --method mcmc``), from one fit of
the crossed logit model that serves every model and pair of the table."""

from __future__ import annotations

import numpy as np
import xarray as xr

from bayesnoise._common import option

from ._factor_tables import crossed_cells
from ._inputs import as_seed
from ._result import _attrs

#: The Bayesian columns (each with its ``_low`` / ``_high`` when ``noises`` gives them), each
#: group placed right after the frequentist column it is keyed by.
_BESIDE = {
    "model": {
        "df_templates": ("accuracy_templates_mcmc",),
        "df_these_templates": ("accuracy_these_templates_mcmc",),
    },
    "pair": {
        "p_value_templates_adjusted": (
            "difference_templates_mcmc",
            "prob_a_better_templates_mcmc",
        ),
        "p_value_these_templates": ("difference_these_templates_mcmc",),
    },
}
#: Convergence checks of the fit, copied to the result's attrs as ``noises`` gives them.
_DIAGNOSTICS = ("r_hat_max", "ess_bulk_min", "divergences", "converged")

#: What ``attrs["estimand"]`` adds on the ``*_mcmc`` columns, per model and per pair.
ESTIMAND_MCMC = {
    "model": "; *_mcmc: the same accuracies in the crossed logit model (`bayesnoise noises "
    "--factor {factor} --method mcmc`: posterior means, equal-tailed intervals)",
    "pair": "; *_mcmc: the same differences in the crossed logit model (`bayesnoise noises "
    "--factor {factor} --method mcmc`: posterior means, equal-tailed intervals; "
    "prob_a_better_templates_mcmc: P(A > B) over the {factor} population)",
}


def mcmc_note() -> str:
    """``compare``'s ``attrs["note"]`` on factor data without ``method="mcmc"``: how to add
    the Bayesian twin, in the caller's words."""
    return (
        f"no *_mcmc columns: the Bayesian crossed twin is opt-in ({option('method', repr('mcmc'))}"
        f"; PyMC, 30 s or more, with {option('draws')}, {option('tune')}, {option('chains')})"
    )


GRADED_NOTE = (
    "no *_mcmc columns: the Bayesian crossed model (`noises --method mcmc`) has a binomial "
    "likelihood and needs 0/1 scores; these have partial credit (the frequentist rows take them)"
)


def with_mcmc(
    out, ds, factors, by, confidence_level, rng, progress, *, draws, tune, chains
) -> xr.Dataset:
    """``out`` (the frequentist crossed rows of ``compare``) with the Bayesian crossed model's
    columns beside them, matched by model (by pair, in ``out``'s orientation A - B) and its
    convergence checks in attrs; on graded scores ``out`` unchanged but for ``attrs["note"]``.
    ``confidence_level`` None: no interval columns (the fit is the same); ``draws``, ``tune``,
    ``chains``: the sampler's (``compare``'s options of those names)."""
    from .factors import binary_cells, noises

    if not out.sizes.get(by, 0):  # no rows (every pair beyond max_difference): nothing to fit
        return out
    factor, _, correct, _, sum_sq = crossed_cells(ds, factors)
    if not binary_cells(correct, sum_sq):
        out.attrs["note"] = GRADED_NOTE
        return out
    bayes = noises(
        ds,
        factors=factors,
        by=by,
        confidence_level=0.95 if confidence_level is None else confidence_level,
        method="mcmc",
        draws=draws,
        tune=tune,
        chains=chains,
        rng=as_seed(rng),
        progress=progress,
    )
    out = beside(out, bayes, by, intervals=confidence_level is not None)
    out.attrs.update({k: bayes.attrs[k] for k in _DIAGNOSTICS})
    if "estimand" in out.attrs:
        out.attrs["estimand"] += ESTIMAND_MCMC[by].format(factor=factor)
    return out


def _names(stem: str, bayes, intervals: bool) -> list[str]:
    ends = ("", "_low", "_high") if intervals else ("",)
    return [stem + e for e in ends if stem + e in bayes.data_vars]


def _flipped(bayes, name: str, i: int) -> float:
    """Row ``i``'s ``name`` for B - A when ``bayes`` holds A - B: a difference and its interval
    change sign (the ends swap), P(A > B) becomes P(B > A)."""
    if name.startswith("prob_a_better"):
        return 1.0 - float(bayes[name].values[i])
    if name.endswith("_low"):
        return -float(bayes[name.removesuffix("_low") + "_high"].values[i])
    if name.endswith("_high"):
        return -float(bayes[name.removesuffix("_high") + "_low"].values[i])
    return -float(bayes[name].values[i])


def beside(out, bayes, by: str, intervals: bool = True) -> xr.Dataset:
    """``out`` with ``bayes``'s ``*_mcmc`` columns (a ``noises(method="mcmc")`` result) on its
    rows: per model by name; per pair by (model_a, model_b), a pair ``bayes`` holds as B - A
    turned round into ``out``'s A - B. Each group of columns goes right after the frequentist
    column it is keyed by in :data:`_BESIDE` (at the end when that column is absent)."""
    groups = {
        key: [n for stem in stems for n in _names(stem, bayes, intervals)]
        for key, stems in _BESIDE[by].items()
    }
    names = [n for group in groups.values() for n in group]
    base = list(out.attrs["columns"])
    out = out.copy()
    if by == "model":
        rows = bayes.sel(model=[str(m) for m in out["model"].values])
        values = {n: rows[n].values.astype(float) for n in names}
    else:
        keys = zip(bayes["model_a"].values, bayes["model_b"].values, strict=True)
        index = {(str(a), str(b)): i for i, (a, b) in enumerate(keys)}
        values = {n: [] for n in names}
        for a, b in zip(out["model_a"].values, out["model_b"].values, strict=True):
            i = index.get((str(a), str(b)))
            for n in names:
                if i is not None:
                    values[n].append(float(bayes[n].values[i]))
                else:
                    values[n].append(_flipped(bayes, n, index[(str(b), str(a))]))
    for n in names:
        out[n] = xr.Variable(by, np.asarray(values[n], dtype=float), attrs=_attrs(n))
    columns = []
    for c in base:
        columns += [c, *groups.pop(c, [])]
    out.attrs["columns"] = [*columns, *(n for group in groups.values() for n in group)]
    return out
