"""Option types and the option groups every command shares.

Each option's destination is the keyword argument of the Python verb it is passed to
(``--confidence-level`` -> ``confidence_level``, ``--no-progress`` -> ``progress=False``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bayesnoise._defaults import FORMATS, MCMC_CHAINS, MCMC_DRAWS, MCMC_TUNE

#: (flag, role) of the column-mapping options; the verb keyword is ``<role>_col``.
COLUMN_FLAGS = (
    ("--model-col", "model"),
    ("--question-col", "question"),
    ("--score-col", "score"),
    ("--sample-col", "sample"),
    ("--count-col", "count"),
    ("--benchmark-col", "benchmark"),
    ("--cluster-col", "cluster"),
)

COLUMNS_HELP = "`bayesnoise columns` says what every column means."


def level(text: str) -> float:
    """argparse type: a confidence level in (0, 1)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1), got {text}")
    return value


def positive(text: str) -> float:
    """argparse type: a number > 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def count(text: str) -> int:
    """argparse type: a whole number > 0."""
    value = positive(text)
    if value != int(value):
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text}")
    return int(value)


FILE_HELP = (
    "results: tables (.csv, .tsv, .jsonl, .json, .parquet, optionally .gz), Inspect logs "
    "(.eval, .json), lm-eval output folders, .nc; several files or a quoted glob"
)


def input_parent(*, file: bool = True) -> argparse.ArgumentParser:
    """The input options of every command that reads results (one parser, shared); ``file``:
    include the positional FILE (a command with a positional before it adds its own)."""
    p = argparse.ArgumentParser(add_help=False)
    if file:
        p.add_argument("file", nargs="+", help=FILE_HELP)
    g = p.add_argument_group("input")
    g.add_argument("--benchmark", help="benchmark (task) to use when the input holds several")
    g.add_argument("--models", help="comma-separated models to keep (default: all)")
    g.add_argument(
        "--intersect",
        action="store_true",
        help="when models cover different questions, use those all models answered",
    )
    g.add_argument(
        "--no-progress",
        dest="progress",
        action="store_false",
        help="no progress display (reading, fits, MCMC)",
    )
    add_renamed(g, "--quiet", "--no-progress")
    cols = p.add_argument_group("table columns (when they are not named as bayesnoise expects)")
    for flag, role in COLUMN_FLAGS:
        cols.add_argument(flag, metavar="NAME", help=f"column holding the {role}")
    logs = p.add_argument_group("eval logs")
    logs.add_argument("--scorer", help="Inspect: scorer to use when samples have several")
    logs.add_argument("--score-key", help="Inspect: key to use when a score is a dict of values")
    logs.add_argument(
        "--use-scored",
        action="store_true",
        help="Inspect: load only the scored samples of unfinished logs or errored samples "
        "(what is left out is reported)",
    )
    logs.add_argument(
        "--merge-duplicates",
        action="store_true",
        help="Inspect: merge the epochs of two logs of the same model and task",
    )
    logs.add_argument(
        "--metric",
        help="lm-eval, lighteval, HELM: per-sample metric (lm-eval default: the first)",
    )
    logs.add_argument("--filter", help="lm-eval: filter pipeline when a task has several")
    cols.add_argument(
        "--factor",
        dest="factors",
        action="append",
        metavar="NAME",
        help="column of a factor (prompt template, run, judge): a dim, never samples; "
        "repeatable (`bayesnoise noises` measures its noise)",
    )
    graded = p.add_argument_group("graded scores")
    graded.add_argument(
        "--threshold",
        type=float,
        metavar="T",
        help="a graded score becomes a success when >= T (T inclusive), before anything else",
    )
    graded.add_argument(
        "--success",
        choices=("above", "below"),
        default="above",
        help="with --threshold: below makes a score <= T a success (a distance; default above)",
    )
    cols.add_argument(
        "--samples-per-question",
        type=count,
        metavar="K",
        help="Eval-Arena pass1 tables: each pass1 is the mean of K samples "
        "(read as round(pass1*K) correct of K)",
    )
    return p


def output_parent() -> argparse.ArgumentParser:
    """``--format`` and ``--output`` of the commands that print a table."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("output")
    g.add_argument(
        "--format",
        choices=FORMATS,
        help="output format (default: from --output's extension .csv/.tsv/.json/.txt, else table)",
    )
    g.add_argument(
        "-o", "--output", type=Path, help="write to this file instead of standard output"
    )
    g.add_argument(
        "--all-rows",
        action="store_true",
        help="table: print every row (default: the first 50, and a note saying how many were cut)",
    )
    g.add_argument(
        "--all-columns",
        action="store_true",
        help="table: print every column (default: the command's main columns, the others named "
        "below the table); CSV and JSON always hold every row and column",
    )
    return p


def add_level(p: argparse.ArgumentParser, text: str, default: float | None = None) -> None:
    """``--confidence-level`` (``confidence_level=``; the verb's default)."""
    p.add_argument("--confidence-level", type=level, default=default, metavar="LEVEL", help=text)
    add_renamed(p, "--level", "--confidence-level")


class Renamed(argparse.Action):
    """An old flag: using it is an error naming its one spelling (no silent alias); hidden
    from ``--help``, and left out of the parsed options."""

    def __init__(self, option_strings, dest, new: str, **kwargs):
        self.new = new
        kwargs.update(dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        super().__init__(option_strings, nargs="?", **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        parser.exit(2, f"{parser.prog}: error: {option_string} is now {self.new}\n")


def add_renamed(p, old: str, new: str) -> None:
    """Make ``old`` an error that names ``new`` (see :class:`Renamed`)."""
    p.add_argument(old, action=Renamed, new=new)


def add_rng(p: argparse.ArgumentParser, what: str) -> None:
    """``--rng N``: the seed of the command's random draws (``rng=`` of the verb)."""
    p.add_argument("--rng", type=int, default=0, metavar="N", help=f"random seed ({what})")
    add_renamed(p, "--seed", "--rng")


def add_mcmc(p: argparse.ArgumentParser, when: str = "") -> None:
    """``--draws``, ``--tune``, ``--chains``: the MCMC sampler's (the package's one set of
    defaults); ``when`` says which choice uses them (e.g. ``"--method mcmc: "``)."""
    p.add_argument("--draws", type=count, default=MCMC_DRAWS, help=f"{when}MCMC draws per chain")
    p.add_argument(
        "--tune", type=whole, default=MCMC_TUNE, help=f"{when}MCMC tuning steps per chain"
    )
    p.add_argument("--chains", type=count, default=MCMC_CHAINS, help=f"{when}MCMC chains")


def add_n_resamples(p, default: int, text: str, *, old: tuple = ()) -> None:
    """``--n-resamples B`` (``n_resamples=``), and the old flags ``old`` as errors naming it."""
    kind = whole if default == 0 else count  # 0 = "none" where that is the default
    p.add_argument("--n-resamples", type=kind, default=default, metavar="B", help=text)
    for flag in old:
        add_renamed(p, flag, "--n-resamples")


def whole(text: str) -> int:
    """argparse type: a whole number >= 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def add_max_difference(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--max-difference", type=float, metavar="D", help="keep pairs with |difference| <= D"
    )


def add_pair(p: argparse.ArgumentParser, text: str) -> None:
    p.add_argument("--pair", nargs=2, metavar=("A", "B"), help=text)
