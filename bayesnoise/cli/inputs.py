"""Input options common to every command that reads results, and the one call to :func:`load`."""

from __future__ import annotations

import argparse


def add_input(p: argparse.ArgumentParser) -> None:
    """The results file and the options that say how to read it."""
    p.add_argument("file", help="results file: .csv, .jsonl, .json or .parquet (optionally .gz)")
    p.add_argument("--benchmark", help="benchmark to use when the file holds several")


def load_input(args: argparse.Namespace):
    """Load the dataset the input options describe."""
    from bayesnoise.io import load

    return load(args.file, benchmark=args.benchmark)
