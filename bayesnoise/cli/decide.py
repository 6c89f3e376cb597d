"""The decision commands: ``ranks`` (which model is best, how sure), ``power`` (how many
questions or samples a difference needs) and ``passk`` (pass@k per model or pair)."""

from __future__ import annotations

import argparse

from bayesnoise.data import DataError

from ._options import add_paired, add_seed, add_table_command, on_missing, positive
from .inputs import load_input
from .tables import select_pair


def _ranks(args: argparse.Namespace):
    from bayesnoise import decide

    return decide.rank_table(
        load_input(args),
        method=args.method,
        draws=args.draws,
        confidence_level=0.95 if args.confidence_level is None else args.confidence_level,
        random_seed=args.seed,
        on_missing=on_missing(args),
    )


def _power(args: argparse.Namespace):
    from bayesnoise import frequentist

    ds = load_input(args)
    if args.pair:
        ds = select_pair(ds, args.pair)
    df = frequentist.power_table(
        ds,
        difference=args.difference,
        n=args.n,
        k=args.k,
        alpha=args.alpha,
        power=args.power,
        on_missing=on_missing(args),
    )
    needed = [c for c in frequentist.NEEDED_COLUMNS if c in df.columns]
    shown = df[frequentist.POWER_COLUMNS + needed]
    if "cluster" not in ds.coords:
        return shown
    # questions in groups (--cluster-col): the cluster-aware numbers beside the naive ones
    cl = frequentist.cluster_power_table(
        ds,
        "cluster",
        difference=args.difference,
        n=args.n,
        k=args.k,
        alpha=args.alpha,
        power=args.power,
        on_missing=on_missing(args),
        base=df,
    )
    return shown.merge(cl, on=["model_a", "model_b"], how="left", validate="one_to_one")


def _passk(args: argparse.Namespace):
    from bayesnoise import conjugate, frequentist

    ds = load_input(args)
    level = args.confidence_level
    if args.method == "conjugate":
        if args.pairs:
            raise DataError("passk --pairs is frequentist; drop --method conjugate")
        return conjugate.posterior_passk_table(
            ds, args.k, confidence_level=0.95 if level is None else level, random_seed=args.seed
        )
    if args.pairs:
        return frequentist.passk_pairs(
            ds, args.k, on_missing=on_missing(args), confidence_level=level
        )
    return frequentist.passk_table(ds, args.k, confidence_level=level)


def _count(text: str) -> int:
    value = positive(text)
    if value != int(value):
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text}")
    return int(value)


def register(sub) -> None:
    """Add this module's commands to the ``bayesnoise`` sub-parsers."""
    p = sub.add_parser("ranks", help="per model: P(best), expected rank, rank interval")
    add_table_command(p, level_help="level of the rank interval and top group (default 0.95)")
    add_paired(p)
    p.add_argument(
        "--method",
        choices=("hierarchical", "bootstrap", "bayes"),
        default="hierarchical",
        help="population accuracies: normal hierarchy over the models, which shrinks the "
        "leader's luck (default; calibrated P(best)) or the paired bootstrap over questions "
        "(overconfident about the leader); or the conjugate posterior of the accuracy on "
        "these questions",
    )
    p.add_argument("--draws", type=_count, default=4000, help="replicates or posterior draws")
    add_seed(p, "bootstrap, posterior draws")
    p.set_defaults(handler=_ranks)

    p = sub.add_parser("power", help="smallest detectable difference, questions and samples needed")
    add_table_command(p, level_help="(not used; see --alpha)")
    add_paired(p)
    p.add_argument(
        "--difference",
        type=positive,
        metavar="D",
        help="true difference to detect, a fraction (0.02 = 2 points): adds questions and "
        "samples per question needed",
    )
    p.add_argument("--n", type=_count, help="questions of the planned eval (default: the file's)")
    p.add_argument(
        "--k", type=_count, help="samples per question of the planned eval (default: the file's)"
    )
    p.add_argument("--alpha", type=positive, default=0.05, help="two-sided level (default 0.05)")
    p.add_argument("--power", type=positive, default=0.8, help="power (default 0.8)")
    p.add_argument("--pair", nargs=2, metavar=("A", "B"), help="only the pair A - B")
    p.set_defaults(handler=_power)
    p.epilog = (
        "with --cluster-col C: also clusters, cluster_size, icc, design_effect, "
        "clustered_min_difference (and clustered_clusters/questions_needed with --difference)"
    )

    p = sub.add_parser("passk", help="pass@k per model or pair (unbiased estimator or Bayesian)")
    add_table_command(p, level_help="add interval columns at this level (conjugate: default 0.95)")
    add_paired(p)
    p.add_argument(
        "--k", type=_count, required=True, help="k of pass@k (k <= samples per question)"
    )
    p.add_argument("--pairs", action="store_true", help="all pairs: difference, SE, z, p-value")
    p.add_argument(
        "--method",
        choices=("frequentist", "conjugate"),
        default="frequentist",
        help="unbiased estimator with its SE across questions (default), or the Beta-Binomial "
        "posterior for these questions and the population",
    )
    add_seed(p, "Monte Carlo intervals")
    p.set_defaults(handler=_passk)
