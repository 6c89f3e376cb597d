"""The ``bayesnoise`` command line: noise, pairs, arena and posterior tables from a results file."""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
from scipy import special

from bayesnoise import report
from bayesnoise.data import DataError, load


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="results file: .csv, .jsonl, .json or .parquet (optionally .gz)")
    p.add_argument("--benchmark", help="benchmark to use when the file holds several")
    p.add_argument("--confidence-level", type=float, default=None, metavar="LEVEL",
                   help="add interval columns at this level (posterior: default 0.95)")  # fmt: skip
    p.add_argument("--format", choices=report.FORMATS, default="table", help="output format")
    p.add_argument("--output", type=Path, help="write to this file instead of standard output")


def _paired(p: argparse.ArgumentParser) -> None:
    p.add_argument("--intersect", action="store_true",
                   help="when models cover different questions, use those all models answered")  # fmt: skip


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bayesnoise",
        description="How much of a gap between two eval scores is real: data, prediction and "
        "total noise from question-level results.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("noise", help="per-model accuracy and noise components")
    _common(p)
    p.add_argument("--no-correction", action="store_true",
                   help="uncorrected estimators (no small-K correction), as in the paper's site tables")  # fmt: skip

    p = sub.add_parser("pairs", help="all model pairs: paired noise, z, sign test, McNemar")
    _common(p)
    _paired(p)
    p.add_argument("--max-difference", type=float, metavar="D",
                   help="keep pairs with |difference| <= D")  # fmt: skip
    p.add_argument("--bootstrap", type=int, default=0, metavar="B",
                   help="add a paired bootstrap SE from B resamples")  # fmt: skip
    p.add_argument("--seed", type=int, default=0, help="random seed (bootstrap, posterior)")

    p = sub.add_parser("arena", help="Eval-Arena summary: smallest significant gap")
    _common(p)
    _paired(p)

    p = sub.add_parser("compare", help="frequentist and Bayesian intervals side by side")
    _common(p)
    _paired(p)
    p.add_argument("--pairs", action="store_true", help="all pairs instead of single models")
    p.add_argument("--max-difference", type=float, metavar="D",
                   help="with --pairs: keep pairs with |difference| <= D")  # fmt: skip
    p.add_argument("--seed", type=int, default=0, help="random seed (Monte Carlo intervals)")

    p = sub.add_parser("posterior", help="Bayesian Beta-Bernoulli posterior per model or pair")
    _common(p)
    _paired(p)
    p.add_argument("--pairs", action="store_true", help="paired differences for all pairs")
    p.add_argument("--method", choices=("conjugate", "mcmc"), default="conjugate",
                   help="closed forms with empirical Bayes (default) or full Bayes by MCMC")  # fmt: skip
    p.add_argument("--sampler", choices=("pymc", "nutpie", "numpyro"), default="pymc")
    p.add_argument("--draws", type=int, default=1000)
    p.add_argument("--tune", type=int, default=1000)
    p.add_argument("--chains", type=int, default=2)
    p.add_argument("--save", type=Path, help="save the MCMC fit (NetCDF)")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p.add_argument("--seed", type=int, default=0, help="random seed")
    return parser


def _z(level: float) -> float:
    if not 0 < level < 1:
        raise DataError(f"--confidence-level must be in (0, 1), got {level}")
    return float(special.ndtri(0.5 + level / 2))


def _run(args: argparse.Namespace):
    from bayesnoise import frequentist

    ds = load(args.file, benchmark=args.benchmark)
    on_missing = "intersect" if getattr(args, "intersect", False) else "raise"
    if args.command == "noise":
        df = frequentist.model_noise(ds, correction=not args.no_correction)
        df = df[["model", "questions", "samples_per_question", "accuracy", "se_total", "se_data",
                 "se_prediction", "se_mean"]]  # fmt: skip
        if args.confidence_level is not None:
            half = _z(args.confidence_level) * df["se_mean"]
            df = df.assign(accuracy_low=df["accuracy"] - half, accuracy_high=df["accuracy"] + half)
        return df
    if args.command == "pairs":
        df = frequentist.pair_noise(ds, on_missing=on_missing, max_difference=args.max_difference,
                                    n_boot=args.bootstrap, random_seed=args.seed)  # fmt: skip
        keep = frequentist.PAIR_COLUMNS + (["se_bootstrap"] if args.bootstrap else [])
        df = df[keep]
        if args.confidence_level is not None:
            half = _z(args.confidence_level) * df["se_mean"]
            df = df.assign(difference_low=df["difference"] - half,
                           difference_high=df["difference"] + half)  # fmt: skip
        return df
    if args.command == "arena":
        return frequentist.arena_summary(ds, on_missing=on_missing)
    level = 0.95 if args.confidence_level is None else args.confidence_level
    _z(level)
    if args.command == "compare":
        if args.pairs:
            return report.compare_pairs(ds, confidence_level=level, random_seed=args.seed,
                                        on_missing=on_missing, max_difference=args.max_difference)  # fmt: skip
        return report.compare_models(ds, confidence_level=level, random_seed=args.seed)
    if args.method == "conjugate":
        from bayesnoise import conjugate

        if args.pairs:
            return conjugate.posterior_pairs_table(ds, confidence_level=level,
                                                   random_seed=args.seed, on_missing=on_missing)  # fmt: skip
        return conjugate.posterior_table(ds, confidence_level=level, random_seed=args.seed)
    from bayesnoise import mcmc

    if args.pairs and on_missing == "intersect":
        from bayesnoise.data import complete

        ds = complete(ds, on_missing="intersect")
    return mcmc.posterior_table_mcmc(
        ds, pairs=args.pairs, confidence_level=level, sampler=args.sampler, draws=args.draws,
        tune=args.tune, chains=args.chains, random_seed=args.seed, save=args.save,
        progressbar=not args.quiet,
    )  # fmt: skip


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"warning: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input)."""
    args = build_parser().parse_args(argv)
    warnings.showwarning = _show_warning
    try:
        with np.errstate(all="ignore"):
            df = _run(args)
    except (DataError, KeyError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    text = report.render(df, args.format)
    if args.output:
        args.output.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
