"""The front door: one Python verb per command of the ``bayesnoise`` command line.

Each verb takes the data (a path, several paths, a loaded dataset or an array) and the
command's options as keyword arguments of the same names (``--confidence-level`` ->
``confidence_level=``, ``--pairs`` -> ``pairs=True``, ``--no-progress`` -> ``progress=False``),
and returns what the command prints: an ``xarray.Dataset`` with named dims (``model``,
``pair``, ...) whose variables carry their registry description; :func:`tidy` gives the
table the command prints. The command line only parses, calls the verb and formats.
"""

from . import _inputs, plot
from ._inputs import READ_OPTIONS
from ._result import tidy, tidy_tables  # tidy_tables: the CLI's printed tables
from .coverage import coverage
from .decision import decision_accuracy
from .decisions import passk, power, ranks
from .factors import noises
from .gate import check
from .judge import judge
from .outputs import columns, reference, report
from .plan import plan
from .quality import leaderboard, questions
from .rate import rate, threshold
from .sequential import monitor
from .signal import signal
from .tables import arena, compare, noise, pairs, posterior

# the figures of bn.plot document each parameter as the verbs do
_inputs.document_figures(
    plot.KINDS.values(),
    [noise, pairs, compare, posterior, ranks, noises, rate, threshold, judge, coverage],
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


# Every verb that reads scores takes threshold= (a read option); its result says so.
for _name in __all__:
    _verb = globals()[_name]
    if callable(_verb) and _name not in ("rate", "threshold", "tidy") and _takes_read(_verb):
        globals()[_name] = _inputs.says_threshold(_verb)
