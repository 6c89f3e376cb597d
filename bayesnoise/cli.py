"""The ``bayesnoise`` command line: parses options, calls library functions, prints tables.

Every number printed comes from a library function; this module only parses and prints.
Errors about the input (:class:`~bayesnoise.data.DataError`, a missing optional package) end
with one line on standard error and exit status 2; anything else is a bug and shows its
traceback. Warnings are printed once each, as ``warning: ...``; progress displays go to
standard error, so standard output holds only the table.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import warnings
from pathlib import Path

import numpy as np

from bayesnoise import __version__
from bayesnoise._common import OptionalDependencyError
from bayesnoise.data import DataError
from bayesnoise.report import FORMATS, format_for_path, render


def _level(text: str) -> float:
    try:
        level = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < level < 1:
        raise argparse.ArgumentTypeError(f"must be in (0, 1), got {text}")
    return level


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return value


def _common(p: argparse.ArgumentParser, *, level_help: str) -> None:
    p.add_argument("file", help="results file: .csv, .jsonl, .json or .parquet (optionally .gz)")
    p.add_argument("--benchmark", help="benchmark to use when the file holds several")
    p.add_argument("--confidence-level", type=_level, metavar="LEVEL", help=level_help)
    p.add_argument(
        "--format",
        choices=FORMATS,
        help="output format (default: from --output's extension .csv/.tsv/.json/.txt, else table)",
    )
    p.add_argument("--output", type=Path, help="write to this file instead of standard output")


def _paired(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--intersect",
        action="store_true",
        help="when models cover different questions, use those all models answered",
    )


def _seed(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--seed", type=int, default=0, help=f"random seed ({what})")


def _max_difference(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--max-difference",
        type=float,
        metavar="D",
        help="keep pairs with |difference| <= D",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``bayesnoise`` command."""
    parser = argparse.ArgumentParser(
        prog="bayesnoise",
        description="How much of a gap between two eval scores is real: data, prediction and "
        "total noise from question-level results.",
    )
    parser.add_argument("--version", action="version", version=f"bayesnoise {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    add_interval = "add interval columns at this level"

    p = sub.add_parser("noise", help="per-model accuracy and noise components")
    _common(p, level_help=add_interval)
    p.add_argument(
        "--no-correction",
        action="store_true",
        help="uncorrected estimators (no small-K correction), as in the paper's site tables",
    )

    p = sub.add_parser("pairs", help="all model pairs: paired noise, z, sign test, McNemar")
    _common(p, level_help=add_interval)
    _paired(p)
    _max_difference(p)
    p.add_argument(
        "--bootstrap", type=int, default=0, metavar="B", help="add a paired bootstrap SE"
    )
    _seed(p, "bootstrap")

    p = sub.add_parser("arena", help="Eval-Arena summary: smallest significant gap")
    _common(p, level_help="(not used)")
    _paired(p)

    bayes_level = "interval level (default 0.95)"
    p = sub.add_parser("compare", help="frequentist and Bayesian intervals side by side")
    _common(p, level_help=bayes_level)
    _paired(p)
    p.add_argument("--pairs", action="store_true", help="all pairs instead of single models")
    _max_difference(p)
    _seed(p, "Monte Carlo intervals")

    p = sub.add_parser("posterior", help="Bayesian Beta-Bernoulli posterior per model or pair")
    _common(p, level_help=bayes_level)
    _paired(p)
    p.add_argument("--pairs", action="store_true", help="paired differences for all pairs")
    p.add_argument(
        "--method",
        choices=("conjugate", "mcmc"),
        default="conjugate",
        help="closed forms with empirical Bayes (default) or full Bayes by MCMC",
    )
    p.add_argument(
        "--kappa",
        type=_positive,
        help="conjugate: fix the Beta concentration kappa for every model instead of fitting it",
    )
    p.add_argument("--sampler", choices=("pymc", "nutpie", "numpyro"), default="pymc")
    p.add_argument("--draws", type=int, default=1000)
    p.add_argument("--tune", type=int, default=1000)
    p.add_argument("--chains", type=int, default=2)
    p.add_argument("--save", type=Path, help="save the MCMC fit (NetCDF)")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    _seed(p, "Monte Carlo intervals, MCMC")
    return parser


def _present(df, *columns: str) -> list[str]:
    return [c for c in columns if c in df.columns]


def _run(args: argparse.Namespace):
    from bayesnoise import compare, conjugate, frequentist
    from bayesnoise.data import complete
    from bayesnoise.io import load

    ds = load(args.file, benchmark=args.benchmark)
    on_missing = "intersect" if getattr(args, "intersect", False) else "raise"
    level = args.confidence_level
    if args.command == "noise":
        df = frequentist.model_noise(ds, correction=not args.no_correction, confidence_level=level)
        return df[frequentist.MODEL_COLUMNS + _present(df, "accuracy_low", "accuracy_high")]
    if args.command == "pairs":
        df = frequentist.pair_noise(
            ds,
            on_missing=on_missing,
            max_difference=args.max_difference,
            n_boot=args.bootstrap,
            random_seed=args.seed,
            confidence_level=level,
        )
        extra = _present(df, "se_bootstrap", "difference_low", "difference_high")
        return df[frequentist.PAIR_COLUMNS + extra]
    if args.command == "arena":
        return frequentist.arena_summary(ds, on_missing=on_missing)
    level = 0.95 if level is None else level
    if args.command == "compare":
        if args.pairs:
            return compare.compare_pairs(
                ds,
                confidence_level=level,
                random_seed=args.seed,
                on_missing=on_missing,
                max_difference=args.max_difference,
            )
        return compare.compare_models(ds, confidence_level=level, random_seed=args.seed)
    if args.method == "conjugate":
        if args.pairs:
            return conjugate.posterior_pairs_table(
                ds,
                confidence_level=level,
                random_seed=args.seed,
                on_missing=on_missing,
                kappa=args.kappa,
            )
        return conjugate.posterior_table(
            ds, confidence_level=level, random_seed=args.seed, kappa=args.kappa
        )
    if args.kappa is not None:
        raise DataError("--kappa applies to --method conjugate; MCMC fits kappa with its prior")
    from bayesnoise import mcmc

    if args.pairs:
        ds = complete(ds, on_missing=on_missing)
    return mcmc.posterior_table_mcmc(
        ds,
        pairs=args.pairs,
        confidence_level=level,
        sampler=args.sampler,
        draws=args.draws,
        tune=args.tune,
        chains=args.chains,
        random_seed=args.seed,
        save=args.save,
        progressbar=not args.quiet,
    )


class _OnceWarnings:
    """Print each distinct warning once, as ``warning: message`` (no file or line)."""

    def __init__(self):
        self.seen: set[str] = set()

    def __call__(self, message, category, filename, lineno, file=None, line=None):
        text = str(message)
        if text not in self.seen:
            self.seen.add(text)
            print(f"warning: {text}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 2 bad input or missing package).

    Examples
    --------
    >>> main(["--version"])  # doctest: +SKIP
    bayesnoise 0.1.0
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        fmt = "table" if args.output is None else format_for_path(args.output, args.format)
    except ValueError as err:
        parser.error(str(err))
    fmt = args.format or fmt
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = _OnceWarnings()
        try:
            # Anything a computation prints (e.g. a sampler's progress) goes to standard error:
            # standard output carries only the table.
            with contextlib.redirect_stdout(sys.stderr), np.errstate(all="ignore"):
                df = _run(args)
        except (DataError, OptionalDependencyError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
    text = render(df, fmt)
    if args.output:
        args.output.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
