"""The table commands: ``noise``, ``pairs``, ``arena``, ``compare``, ``posterior``."""

from __future__ import annotations

import argparse
from pathlib import Path

from bayesnoise.data import DataError

from ._options import (
    add_max_difference,
    add_paired,
    add_seed,
    add_table_command,
    on_missing,
    positive,
)
from .inputs import load_input

ADD_INTERVAL = "add interval columns at this level"
BAYES_LEVEL = "interval level (default 0.95)"


def _present(df, *columns: str) -> list[str]:
    return [c for c in columns if c in df.columns]


def _noise(args: argparse.Namespace):
    from bayesnoise import frequentist

    ds = load_input(args)
    df = frequentist.model_noise(
        ds, correction=not args.no_correction, confidence_level=args.confidence_level
    )
    df = df[frequentist.MODEL_COLUMNS + _present(df, "accuracy_low", "accuracy_high")]
    if "cluster" not in ds.coords:
        return df
    # questions in groups (--cluster-col): cluster-robust SEs beside the iid ones
    cl = frequentist.cluster_noise(ds, "cluster", confidence_level=args.confidence_level)
    cl = cl.rename(columns={"accuracy_low": "clustered_low", "accuracy_high": "clustered_high"})
    keep = ["model", "clusters", "se_clustered", "design_effect", "icc"]
    keep += _present(cl, "clustered_low", "clustered_high")
    return df.merge(cl[keep], on="model", how="left", validate="one_to_one")


def _clustered_pairs(ds, df, args: argparse.Namespace):
    """Cluster-robust columns for the pairs of ``df``; the adjusted p-value is taken over all
    pairs, like ``p_adjusted``."""
    from bayesnoise import decide, frequentist

    cp = frequentist.cluster_pair_noise(ds, "cluster", on_missing=on_missing(args))
    cp = cp.rename(
        columns={
            "design_effect": "design_effect_pair",
            "z": "z_clustered",
            "p_value": "p_clustered",
        }
    )
    cp["p_clustered_adjusted"] = decide.adjust_pvalues(cp["p_clustered"], args.adjust)
    keep = ["model_a", "model_b", "se_clustered", "design_effect_pair", "z_clustered"]
    keep += ["p_clustered", "p_clustered_adjusted"]
    return df.merge(cp[keep], on=["model_a", "model_b"], how="left", validate="one_to_one")


def select_pair(ds, names: list[str]):
    """The dataset restricted to the two models of ``--pair A B``, in that order."""
    from bayesnoise.data import MODEL, attr

    models = list(map(str, ds[MODEL].values))
    for name in names:
        if name not in models:
            raise DataError(
                f"{attr(ds, 'source')}: --pair names model {name!r}, which is not in the file; "
                f"models are {', '.join(models)}"
            )
    if names[0] == names[1]:
        raise DataError(f"--pair names the same model twice ({names[0]!r}); give two models")
    return ds.sel({MODEL: names})


def _pairs(args: argparse.Namespace):
    from bayesnoise import frequentist

    ds = load_input(args)
    if args.pair:  # one pre-specified question: a family of one, p_adjusted = p_value
        ds = select_pair(ds, args.pair)
    df = frequentist.pair_noise(
        ds,
        on_missing=on_missing(args),
        max_difference=args.max_difference,
        n_boot=args.bootstrap,
        random_seed=args.seed,
        confidence_level=args.confidence_level,
        adjust=args.adjust,
        n_permutations=args.permutations,
        progress=not args.quiet,
    )
    tests = _present(df, "p_permutation")
    if args.one_sample_tests:
        tests += frequentist.ONE_SAMPLE_COLUMNS
    extra = _present(df, "se_bootstrap", "difference_low", "difference_high")
    columns = [c for c in frequentist.PAIR_COLUMNS if c in df.columns]
    df = df[[*columns[:-1], *tests, columns[-1], *extra]]
    if args.simultaneous:
        df = _simultaneous(ds, df, args)
    return _clustered_pairs(ds, df, args) if "cluster" in ds.coords else df


def _simultaneous(ds, df, args: argparse.Namespace):
    """Intervals that hold for all pairs of the file together (computed over all pairs, then
    merged onto the rows shown)."""
    from bayesnoise import decide

    sim = decide.simultaneous_intervals(
        ds,
        confidence_level=_level(args),
        method=args.simultaneous,
        random_seed=args.seed,
        on_missing=on_missing(args),
    )
    keep = ["model_a", "model_b", "simultaneous_low", "simultaneous_high", "p_simultaneous"]
    return df.merge(sim[keep], on=["model_a", "model_b"], how="left", validate="one_to_one")


def _arena(args: argparse.Namespace):
    from bayesnoise import frequentist

    return frequentist.arena_summary(load_input(args), on_missing=on_missing(args))


def _level(args: argparse.Namespace) -> float:
    return 0.95 if args.confidence_level is None else args.confidence_level


def _compare(args: argparse.Namespace):
    from bayesnoise import decide

    ds = load_input(args)
    if args.pairs:
        return decide.compare_pairs(
            ds,
            confidence_level=_level(args),
            random_seed=args.seed,
            on_missing=on_missing(args),
            max_difference=args.max_difference,
        )
    return decide.compare_models(ds, confidence_level=_level(args), random_seed=args.seed)


def _posterior(args: argparse.Namespace):
    from bayesnoise import conjugate
    from bayesnoise.data import complete

    ds = load_input(args)
    level = _level(args)
    if args.method == "conjugate":
        if args.pairs:
            return conjugate.posterior_pairs_table(
                ds,
                confidence_level=level,
                random_seed=args.seed,
                on_missing=on_missing(args),
                kappa=args.kappa,
                progress=not args.quiet,
            )
        return conjugate.posterior_table(
            ds,
            confidence_level=level,
            random_seed=args.seed,
            kappa=args.kappa,
            progress=not args.quiet,
        )
    if args.kappa is not None:
        raise DataError("--kappa applies to --method conjugate; MCMC fits kappa with its prior")
    from bayesnoise import mcmc

    if args.pairs:
        ds = complete(ds, on_missing=on_missing(args))
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


def register(sub) -> None:
    """Add the table commands to the ``bayesnoise`` sub-parsers."""
    p = sub.add_parser("noise", help="per-model accuracy and noise components")
    add_table_command(p, level_help=ADD_INTERVAL)
    p.add_argument(
        "--no-correction",
        action="store_true",
        help="uncorrected estimators (no small-K correction), as in the paper's site tables",
    )
    p.set_defaults(handler=_noise)

    p = sub.add_parser("pairs", help="all model pairs: paired noise, z, p-values")
    add_table_command(p, level_help=ADD_INTERVAL)
    add_paired(p)
    add_max_difference(p)
    p.add_argument(
        "--pair", nargs=2, metavar=("A", "B"), help="only the pair A - B (no multiplicity)"
    )
    p.add_argument(
        "--adjust",
        choices=("holm", "bh", "bonferroni", "none"),
        default="holm",
        help="p_adjusted: adjust p_value over all pairs, before --max-difference (default holm: "
        "family-wise error under any dependence; bh: false discovery rate)",
    )
    p.add_argument(
        "--permutations",
        type=int,
        default=0,
        metavar="B",
        help="add p_permutation, a sign-flip test on the per-question differences (B flips)",
    )
    p.add_argument(
        "--simultaneous",
        nargs="?",
        const="max-t",
        choices=("max-t", "bonferroni"),
        help="add simultaneous_low/high (all pair differences at once, at --confidence-level, "
        "default 0.95) and p_simultaneous; max-|T| (default) or Bonferroni",
    )
    p.add_argument(
        "--one-sample-tests",
        action="store_true",
        help="add Eval-Arena's one-sample-level p_sign_one_sample and p_mcnemar_one_sample",
    )
    p.add_argument(
        "--bootstrap", type=int, default=0, metavar="B", help="add a paired bootstrap SE"
    )
    p.add_argument("--quiet", action="store_true", help="no progress display")
    add_seed(p, "bootstrap, permutations")
    p.set_defaults(handler=_pairs)

    p = sub.add_parser("arena", help="Eval-Arena summary: smallest significant gap")
    add_table_command(p, level_help="(not used)")
    add_paired(p)
    p.set_defaults(handler=_arena)

    p = sub.add_parser("compare", help="frequentist and Bayesian intervals side by side")
    add_table_command(p, level_help=BAYES_LEVEL)
    add_paired(p)
    p.add_argument("--pairs", action="store_true", help="all pairs instead of single models")
    add_max_difference(p)
    add_seed(p, "Monte Carlo intervals")
    p.set_defaults(handler=_compare)

    p = sub.add_parser("posterior", help="Bayesian Beta-Bernoulli posterior per model or pair")
    add_table_command(p, level_help=BAYES_LEVEL)
    add_paired(p)
    p.add_argument("--pairs", action="store_true", help="paired differences for all pairs")
    p.add_argument(
        "--method",
        choices=("conjugate", "mcmc"),
        default="conjugate",
        help="closed forms with empirical Bayes (default) or full Bayes by MCMC",
    )
    p.add_argument(
        "--kappa",
        type=positive,
        help="conjugate: fix the Beta concentration kappa for every model instead of fitting it",
    )
    p.add_argument(
        "--sampler",
        choices=("auto", "pymc", "nutpie", "numpyro"),
        default="auto",
        help="NUTS implementation (default auto: nutpie for --pairs when installed, else pymc)",
    )
    p.add_argument("--draws", type=int, default=1000)
    p.add_argument("--tune", type=int, default=1000)
    p.add_argument("--chains", type=int, default=2)
    p.add_argument("--save", type=Path, help="save the MCMC fit (NetCDF)")
    p.add_argument("--quiet", action="store_true", help="no progress display (fits and MCMC)")
    add_seed(p, "Monte Carlo intervals, MCMC")
    p.set_defaults(handler=_posterior)
