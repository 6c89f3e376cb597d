"""bayesnoise: how much of a gap between two LLM eval scores is real.

The verbs mirror the ``bayesnoise`` commands and return what they print (see
:mod:`bayesnoise.verbs`): :func:`noise`, :func:`pairs`, :func:`compare`, :func:`posterior`,
:func:`ranks`, :func:`power`, :func:`passk`, :func:`arena`, :func:`reference`, :func:`report`,
:func:`columns` and the figures in :mod:`bayesnoise.plot`; :func:`load` / :func:`save` read
and write results, :func:`tidy` turns a result into the printed table.

The layers below, in the order data flows, stay importable for lower-level work:
:mod:`bayesnoise.data` (the dataset contract) -> :mod:`bayesnoise.io` (readers) -> estimators
:mod:`bayesnoise.frequentist`, :mod:`bayesnoise.conjugate` (closed forms, empirical Bayes) and
:mod:`bayesnoise.mcmc` (full Bayes in PyMC, imported only when used) ->
:mod:`bayesnoise.decide` (ranks, multiplicity, both answers side by side) ->
:mod:`bayesnoise.plots`, :mod:`bayesnoise.reporting` -> :mod:`bayesnoise.verbs` -> the command line.

Examples
--------
>>> import bayesnoise as bn
>>> r = bn.pairs("examples/data/cruxeval_output_temp0.8.csv.gz", pair=("phind", "codellama-34b"))
>>> r["pair"].values.tolist(), round(float(r["difference"][0]), 4)
(['phind - codellama-34b'], -0.0046)
"""

import importlib

# PEP 562: ``import bayesnoise`` loads nothing but this file (eager imports loaded every estimator,
# 1.2x the cost of importing numpy, scipy.stats, pandas and xarray); each public name is imported
# from its module on first access and cached here.
_HOME = {
    "DataError": "bayesnoise.data",
    "complete": "bayesnoise.data",
    "from_arrays": "bayesnoise.data",
    "scores": "bayesnoise.data",
    "select_models": "bayesnoise.data",
    "load": "bayesnoise.io",
    "save": "bayesnoise.io",
    "exact_coverage": "bayesnoise.verbs.rate",
}
_VERBS = (
    "arena",
    "check",
    "columns",
    "compare",
    "coverage",
    "decision_accuracy",
    "judge",
    "leaderboard",
    "monitor",
    "noise",
    "noises",
    "pairs",
    "passk",
    "plan",
    "plot",
    "posterior",
    "power",
    "questions",
    "ranks",
    "rate",
    "reference",
    "report",
    "signal",
    "threshold",
    "tidy",
)
_HOME.update(dict.fromkeys(_VERBS, "bayesnoise.verbs"))

__version__ = "0.1.0"

#: Lower-level subpackages, imported on first attribute access (``bn.mcmc`` imports PyMC).
_SUBPACKAGES = (
    "conjugate",
    "data",
    "decide",
    "frequentist",
    "io",
    "mcmc",
    "plots",
    "reporting",
    "vocabulary",
)

__all__ = [
    "DataError",
    "__version__",
    "arena",
    "check",
    "columns",
    "compare",
    "complete",
    "coverage",
    "decision_accuracy",
    "exact_coverage",
    "from_arrays",
    "judge",
    "leaderboard",
    "load",
    "monitor",
    "noise",
    "noises",
    "pairs",
    "passk",
    "plan",
    "plot",
    "posterior",
    "power",
    "questions",
    "ranks",
    "rate",
    "reference",
    "report",
    "save",
    "scores",
    "select_models",
    "signal",
    "threshold",
    "tidy",
]


def __getattr__(name: str):
    if name in _SUBPACKAGES:
        return importlib.import_module(f"bayesnoise.{name}")
    if name in _HOME:
        value = getattr(importlib.import_module(_HOME[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'bayesnoise' has no attribute {name!r}")


def __dir__():
    return sorted([*__all__, *_SUBPACKAGES])
