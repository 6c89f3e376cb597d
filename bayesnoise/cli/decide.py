"""The decision commands: ``ranks`` (which model is best, how sure), ``power`` (how many
questions or samples a difference needs) and ``passk`` (pass@k per model or pair)."""

from __future__ import annotations

from bayesnoise.verbs import choices

from ._options import (
    add_level,
    add_n_resamples,
    add_pair,
    add_renamed,
    add_rng,
    count,
    positive,
)
from .tables import _command, add_by


def register(sub) -> None:
    """Add this module's commands to the ``bayesnoise`` sub-parsers."""
    p = _command(sub, "ranks", "ranks", "per model: P(best), expected rank, rank interval")
    add_level(p, "level of the rank interval and top group (default 0.95)", 0.95)
    p.add_argument(
        "--model",
        choices=choices.RANK_MODELS,
        default="hierarchical",
        help="population accuracies: normal hierarchy over the models, which shrinks the "
        "leader's luck (default; calibrated P(best)) or the paired bootstrap over questions "
        "(overconfident about the leader); or the conjugate posterior of the accuracy on "
        "these questions",
    )
    add_renamed(p, "--method", "--model")
    add_n_resamples(p, 4000, "bootstrap replicates or posterior draws", old=("--draws",))
    add_rng(p, "bootstrap, posterior draws")

    p = _command(
        sub, "power", "power", "smallest detectable difference, questions and samples needed"
    )
    p.add_argument(
        "--difference",
        type=positive,
        metavar="D",
        help="true difference to detect, a fraction (0.02 = 2 points): adds questions and "
        "samples per question needed",
    )
    p.add_argument(
        "--planned-questions",
        type=count,
        metavar="N",
        help="questions of the planned eval (default: the file's)",
    )
    p.add_argument(
        "--planned-samples-per-question",
        type=count,
        metavar="K",
        help="samples per question of the planned eval (default: the file's)",
    )
    add_renamed(p, "--n", "--planned-questions")
    add_renamed(p, "--k", "--planned-samples-per-question")
    p.add_argument("--alpha", type=positive, default=0.05, help="two-sided level (default 0.05)")
    p.add_argument("--power", type=positive, default=0.8, help="power (default 0.8)")
    add_pair(p, "only the pair A - B")
    p.epilog = (
        "with --cluster-col C: also clusters, cluster_size, icc, design_effect, "
        "clustered_min_difference (and clustered_clusters/questions_needed with --difference). "
        + (p.epilog or "")
    )

    p = _command(sub, "passk", "passk", "pass@k per model or pair (unbiased estimator or Bayesian)")
    add_level(p, "add interval columns at this level (either method)")
    p.add_argument("--k", type=count, required=True, help="k of pass@k (k <= samples per question)")
    add_by(p, "one row per model (default) or every pair: difference, SE, paired t test")
    p.add_argument(
        "--method",
        choices=("frequentist", "bayes"),
        default="frequentist",
        help="unbiased estimator with its SE across questions (default), or the Beta-Binomial "
        "posterior for these questions and the population",
    )
    add_rng(p, "Monte Carlo intervals")
    register_quality(sub)


def register_quality(sub) -> None:
    """``questions`` and ``leaderboard``: is the benchmark, and each question, any good."""
    p = _command(sub, "questions", "questions", "per question: solvers, Kendall tau, suspects")
    p.add_argument("--unsolved", action="store_true", help="only questions no model solved")
    p.add_argument(
        "--solved-once", action="store_true", help="only questions exactly one model solved"
    )
    p.add_argument("--suspect", type=count, metavar="N", help="the N most suspect questions")

    p = _command(
        sub, "leaderboard", "leaderboard", "per model: accuracy, win rate, Elo, rank interval"
    )
    add_level(p, "level of the Elo and rank intervals (default 0.95)", 0.95)
    add_n_resamples(p, 1000, "bootstrap replicates for Elo", old=("--bootstrap",))
    add_rng(p, "bootstrap, rank draws")
