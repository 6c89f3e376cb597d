"""The front door: one Python verb per command of the ``bayesnoise`` command line.

Each verb takes the data (a path, several paths, a loaded dataset or an array) and the
command's options as keyword arguments of the same names (``--confidence-level`` ->
``confidence_level=``, ``--pairs`` -> ``pairs=True``, ``--no-progress`` -> ``progress=False``),
and returns what the command prints: an ``xarray.Dataset`` with named dims (``model``,
``pair``, ...) whose variables carry their registry description; :func:`tidy` gives the
table the command prints. The command line only parses, calls the verb and formats.
"""

import importlib
import sys
import types

# PEP 562: importing this package loads no verb; each name is imported from its module on
# first access (``bayesnoise noise`` imports the table verbs, not the figures, the judge's
# templates or PyMC) and cached here.
_HOME = {
    "arena": "tables",
    "check": "gate",
    "columns": "outputs",
    "compare": "tables",
    "coverage": "coverage",
    "decision_accuracy": "decision",
    "judge": "judge",
    "leaderboard": "quality",
    "monitor": "sequential",
    "noise": "tables",
    "noises": "factors",
    "pairs": "tables",
    "passk": "decisions",
    "plan": "plan",
    "posterior": "tables",
    "power": "decisions",
    "questions": "quality",
    "ranks": "decisions",
    "rate": "rate",
    "reference": "outputs",
    "report": "outputs",
    "signal": "signal",
    "threshold": "rate",
    "tidy": "_result",
    "tidy_tables": "_result",  # the CLI's printed tables
    "READ_OPTIONS": "_inputs",
}

#: The verbs whose figures (``bn.plot``) document their parameters as these verbs do.
_FIGURE_VERBS = (
    *("noise", "pairs", "compare", "posterior", "ranks"),
    *("noises", "rate", "threshold", "judge", "coverage"),
)

__all__ = [
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
]


def _takes_read(verb) -> bool:
    import inspect

    params = inspect.signature(verb).parameters.values()
    return any(p.kind is p.VAR_KEYWORD for p in params)


def _verb(name: str):
    """The public object ``name``: every verb that reads scores takes threshold= (a read
    option), and its result says so (:func:`~bayesnoise.verbs._inputs.says_threshold`)."""
    from . import _inputs

    value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    if name in __all__ and name not in ("rate", "threshold", "tidy") and _takes_read(value):
        value = _inputs.says_threshold(value)
    return value


def _document_figures(plot) -> None:
    """The figures of ``bn.plot`` document each parameter as the verbs do."""
    from . import _inputs

    _inputs.document_figures(plot.KINDS.values(), [_verb(n) for n in _FIGURE_VERBS])


class _Verbs(types.ModuleType):
    """The import system binds each submodule on its package when it is first imported
    (``bayesnoise.verbs.rate``); the verb of that name keeps it (``verbs.rate`` is the verb),
    and the figures are documented as ``bayesnoise.verbs.plot`` is bound."""

    def __setattr__(self, name, value):
        if isinstance(value, types.ModuleType) and value.__name__ == f"{__name__}.{name}":
            if name in _HOME:
                value = _verb(name)
            elif name == "plot":
                _document_figures(value)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Verbs


def __getattr__(name: str):
    if name in _HOME:
        value = _verb(name)
    elif name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    else:  # a submodule: bayesnoise.verbs.plot, bayesnoise.verbs.tables, ...
        try:
            value = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    globals()[name] = value
    return value


def __dir__():
    return sorted({*globals(), *_HOME, *__all__})
