"""The ``coverage`` command: a self-check of the intervals on simulated copies of the file."""

from __future__ import annotations

import argparse

from bayesnoise.verbs.choices import POPULATIONS

from ._options import add_level, add_n_resamples, add_rng, count
from .tables import _command


def populations(text: str) -> tuple[str, ...]:
    """argparse type: comma-separated populations, each one of :data:`POPULATIONS`."""
    names = tuple(t.strip() for t in text.split(",") if t.strip())
    bad = [n for n in names if n not in POPULATIONS]
    if bad or not names:
        raise argparse.ArgumentTypeError(
            f"populations are {', '.join(POPULATIONS)} (comma-separated), got {text!r}"
        )
    return names


def register(sub) -> None:
    """Add ``coverage`` to the ``bayesnoise`` sub-parsers."""
    p = _command(
        sub,
        "coverage",
        "coverage",
        "self-check: coverage of every printed interval on simulated evals like this file",
    )
    add_level(p, "nominal level of the intervals checked (default 0.95)", 0.95)
    add_n_resamples(
        p,
        50,
        "simulated evals per population (default 50; coverage_mcse is the Monte Carlo SE "
        "of each row: 200 halve it)",
        old=("--replicates",),
    )
    p.add_argument(
        "--populations",
        type=populations,
        default=POPULATIONS,
        metavar="P[,P...]",
        help="question populations to simulate: fitted (each model's Beta), two-point (easy "
        "and hard questions matched to each model's accuracy and data variance), empirical "
        "(the observed per-question scores resampled); default all three",
    )
    p.add_argument(
        "--max-pair-models",
        type=count,
        default=12,
        metavar="M",
        help="check pair intervals on the pairs of at most M models spread over the accuracy "
        "ranking (default 12)",
    )
    p.add_argument(
        "--all-pairs",
        dest="max_pair_models",
        action="store_const",
        const=None,
        help="check pair intervals on every pair (slower with many models)",
    )
    add_rng(p, "simulation")
