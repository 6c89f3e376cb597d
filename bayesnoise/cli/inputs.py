"""Input options common to every command that reads results, and the one call to :func:`load`."""

from __future__ import annotations

import argparse

# (flag, role in load's columns=) for the column-mapping options.
_COLUMN_FLAGS = (
    ("--model-col", "model"),
    ("--question-col", "question"),
    ("--score-col", "score"),
    ("--sample-col", "sample"),
    ("--count-col", "count"),
    ("--benchmark-col", "benchmark"),
    ("--cluster-col", "cluster"),
)


def add_input(p: argparse.ArgumentParser) -> None:
    """The results files and the options that say how to read them."""
    p.add_argument(
        "file",
        nargs="+",
        help="results: tables (.csv, .tsv, .jsonl, .json, .parquet, optionally .gz), Inspect "
        "logs (.eval, .json), lm-eval output folders, .nc; several files or a quoted glob",
    )
    p.add_argument("--benchmark", help="benchmark (task) to use when the input holds several")
    group = p.add_argument_group("table columns (when they are not named as bayesnoise expects)")
    for flag, role in _COLUMN_FLAGS:
        group.add_argument(flag, metavar="NAME", help=f"column holding the {role}")
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
    logs.add_argument("--metric", help="lm-eval: per-sample metric (default: the first)")
    logs.add_argument("--filter", help="lm-eval: filter pipeline when a task has several")
    p.add_argument("--no-progress", action="store_true", help="no progress display while reading")


def load_input(args: argparse.Namespace):
    """Load the dataset the input options describe."""
    from bayesnoise.io import load

    columns = {
        role: getattr(args, flag[2:].replace("-", "_"))
        for flag, role in _COLUMN_FLAGS
        if getattr(args, flag[2:].replace("-", "_")) is not None
    }
    files = args.file if isinstance(args.file, list) else [args.file]
    return load(
        files[0] if len(files) == 1 else files,
        benchmark=args.benchmark,
        columns=columns or None,
        scorer=args.scorer,
        score_key=args.score_key,
        metric=args.metric,
        filter=args.filter,
        incomplete="use-scored" if args.use_scored else "error",
        duplicates="merge" if args.merge_duplicates else "error",
        progress=False if args.no_progress else None,
    )
