"""Option types and option groups shared by the commands."""

from __future__ import annotations

import argparse
from pathlib import Path

from bayesnoise.report import FORMATS


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


def add_output(p: argparse.ArgumentParser) -> None:
    """``--format`` and ``--output`` for commands that print a table."""
    p.add_argument(
        "--format",
        choices=FORMATS,
        help="output format (default: from --output's extension .csv/.tsv/.json/.txt, else table)",
    )
    p.add_argument("--output", type=Path, help="write to this file instead of standard output")


def add_table_command(p: argparse.ArgumentParser, *, level_help: str) -> None:
    """The input options, ``--confidence-level`` and the output options of a table command."""
    from .inputs import add_input

    add_input(p)
    p.add_argument("--confidence-level", type=level, metavar="LEVEL", help=level_help)
    add_output(p)


def add_paired(p: argparse.ArgumentParser) -> None:
    """``--intersect``: what to do when models cover different questions."""
    p.add_argument(
        "--intersect",
        action="store_true",
        help="when models cover different questions, use those all models answered",
    )


def add_seed(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--seed", type=int, default=0, help=f"random seed ({what})")


def add_max_difference(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--max-difference",
        type=float,
        metavar="D",
        help="keep pairs with |difference| <= D",
    )


def on_missing(args: argparse.Namespace) -> str:
    return "intersect" if getattr(args, "intersect", False) else "raise"
