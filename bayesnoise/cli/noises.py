"""``bayesnoise noises``: the noise of a crossed factor (prompt templates) beside questions and
runs; calls :func:`bayesnoise.noises`."""

from __future__ import annotations

import argparse

from bayesnoise.verbs import choices

from ._options import (
    COLUMNS_HELP,
    add_level,
    add_mcmc,
    add_pair,
    add_renamed,
    add_rng,
    input_parent,
    output_parent,
)

TEXT = (
    "per model (or pair): accuracy over prompt templates and its noise split into question, "
    "template, question x template and sampling parts (name the template column with --factor)"
)


def register(sub) -> None:
    """Add ``noises`` to the ``bayesnoise`` sub-parsers."""
    p = sub.add_parser(
        "noises",
        parents=[input_parent(), output_parent()],
        help=TEXT,
        description=TEXT,
        epilog=COLUMNS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.set_defaults(verb="noises", shows="table")
    p.add_argument(
        "--by",
        choices=choices.BY,
        default="model",
        help="per model, or per pair of models (paired differences)",
    )
    add_renamed(p, "--pairs", "--by pair")
    add_pair(p, "with --by pair: only the pair A - B, and a one-line verdict on it")
    add_level(p, "interval level (default 0.95)", default=0.95)
    p.add_argument("--method", choices=choices.NOISES_METHODS, default="frequentist")
    add_mcmc(p, "--method mcmc: ")
    add_rng(p, "MCMC")
