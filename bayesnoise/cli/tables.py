"""The table commands: ``noise``, ``pairs``, ``arena``, ``compare``, ``posterior``,
``columns``; each calls the Python verb of the same name."""

from __future__ import annotations

from pathlib import Path

from bayesnoise.verbs import choices

from ._options import (
    COLUMNS_HELP,
    add_level,
    add_max_difference,
    add_mcmc,
    add_n_resamples,
    add_pair,
    add_renamed,
    add_rng,
    input_parent,
    output_parent,
    positive,
)

ADD_INTERVAL = "add interval columns at this level"
BAYES_LEVEL = "interval level (default 0.95)"


#: The columns each command prints by default, described in its --help from the registry.
SHOWN = {
    "noise": "frequentist.MODEL_COLUMNS",
    "pairs": "frequentist.PAIR_COLUMNS",
    "arena": "frequentist.ARENA_COLUMNS",
    "posterior": "conjugate.POSTERIOR_COLUMNS",
    "ranks": "decide.RANK_COLUMNS",
    "power": "frequentist.POWER_COLUMNS",
    "passk": "frequentist.PASSK_COLUMNS",
}


def _epilog(name: str) -> str:
    import importlib

    from bayesnoise.vocabulary import describe

    if name not in SHOWN:
        return COLUMNS_HELP
    module, attr = SHOWN[name].split(".")
    columns = getattr(importlib.import_module(f"bayesnoise.{module}"), attr)
    lines = [f"  {c:<24} {describe(c)['label']}" for c in columns]
    return "columns:\n" + "\n".join(lines) + "\n\n" + COLUMNS_HELP


class _Epilog:
    """A command's epilog, written only when its ``--help`` is shown: the column lists live in
    the estimator modules, which a command must not import just to build the parser."""

    def __init__(self, name: str, prefix: str = ""):
        self.name, self.prefix = name, prefix

    def __radd__(self, text: str) -> _Epilog:  # ``"more text " + p.epilog``
        return _Epilog(self.name, text + self.prefix)

    def __call__(self) -> str:
        return self.prefix + _epilog(self.name)


def _formatter():
    import argparse

    class EpilogFormatter(argparse.RawDescriptionHelpFormatter):
        def add_text(self, text):
            super().add_text(text() if isinstance(text, _Epilog) else text)

    return EpilogFormatter


def _command(sub, name: str, verb, text: str, *, inputs: bool = True):
    parents = [input_parent(), output_parent()] if inputs else [output_parent()]
    p = sub.add_parser(
        name,
        parents=parents,
        help=text,
        description=text,
        epilog=_Epilog(name),
        formatter_class=_formatter(),
    )
    p.set_defaults(verb=verb, shows="table")
    return p


def add_by(p, text: str) -> None:
    """``--by model|pair`` (``by=``), and the old ``--pairs`` flag as an error naming it."""
    p.add_argument("--by", choices=choices.BY, default="model", help=text)
    add_renamed(p, "--pairs", "--by pair")


def register(sub) -> None:
    """Add the table commands to the ``bayesnoise`` sub-parsers."""
    p = _command(sub, "noise", "noise", "per-model accuracy and noise components")
    add_level(p, ADD_INTERVAL)
    p.add_argument(
        "--no-correction",
        dest="correction",
        action="store_false",
        help="uncorrected estimators (no small-K correction), as in the paper's site tables",
    )

    p = _command(sub, "pairs", "pairs", "all model pairs: paired noise, z, p-values")
    add_level(p, ADD_INTERVAL)
    add_max_difference(p)
    add_pair(p, "only the pair A - B (no multiplicity)")
    p.add_argument(
        "--adjust",
        choices=("holm", "bh", "bonferroni", "none"),
        default="holm",
        help="p_value_adjusted: adjust p_value over all pairs, before --max-difference (default holm: "
        "family-wise error under any dependence; bh: false discovery rate)",
    )
    add_n_resamples(
        p,
        0,
        "add se_bootstrap (paired bootstrap over questions) and p_value_permutation (sign flips "
        "of the per-question differences) from B resamples each (see --resampling)",
        old=("--bootstrap", "--permutations"),
    )
    p.add_argument(
        "--resampling",
        choices=choices.RESAMPLING,
        default="both",
        help="which columns --n-resamples adds (default both)",
    )
    p.add_argument(
        "--simultaneous",
        nargs="?",
        const="max-t",
        choices=("max-t", "bonferroni"),
        help="add p_value_simultaneous and, with --confidence-level, simultaneous_low/high "
        "(all pair differences at once); max-|T| (default) or Bonferroni",
    )
    p.add_argument(
        "--one-sample-tests",
        action="store_true",
        help="add Eval-Arena's one-sample-level p_value_sign_one_sample and p_value_mcnemar_one_sample",
    )
    add_rng(p, "bootstrap, permutations, max-t")

    _command(sub, "arena", "arena", "Eval-Arena summary: smallest significant gap")

    p = _command(sub, "compare", "compare", "frequentist and Bayesian intervals side by side")
    add_level(p, BAYES_LEVEL, 0.95)
    add_by(p, "one row per model (default) or per pair of models")
    p.add_argument(
        "--method",
        choices=choices.COMPARE_METHODS,
        default="bayes",
        help="the Bayesian side: closed forms (default; with --factor the frequentist crossed "
        "rows alone) or, with --factor, the crossed model's MCMC twins (30 s or more)",
    )
    add_pair(p, "with --by pair: only the pair A - B, and a one-line verdict on it")
    add_max_difference(p)
    add_mcmc(p, "--method mcmc: ")
    add_rng(p, "Monte Carlo intervals, MCMC")

    p = _command(
        sub, "posterior", "posterior", "Bayesian Beta-Bernoulli posterior per model or pair"
    )
    add_level(p, BAYES_LEVEL, 0.95)
    add_by(p, "one row per model (default) or the paired differences of every pair")
    p.add_argument(
        "--method",
        choices=("bayes", "mcmc"),
        default="bayes",
        help="closed forms with empirical Bayes (default) or full Bayes by MCMC",
    )
    p.add_argument(
        "--kappa",
        type=positive,
        help="bayes: fix the Beta concentration kappa for every model instead of fitting it",
    )
    p.add_argument(
        "--ubar-prior",
        dest="ubar_prior",
        choices=("auto", "beta", "nonparametric", "binomial"),
        default="auto",
        help="bayes: prior behind ubar and dbar (default auto: the Beta population, "
        "nonparametric where the Beta is rejected, the kappa-free binomial bound at K = 1; "
        "beta keeps the kappa-dependent interval at K = 1; binomial: K = 1 data only)",
    )
    p.add_argument(
        "--sampler",
        choices=("auto", "pymc", "nutpie", "numpyro"),
        default="auto",
        help="NUTS implementation (default auto: nutpie for --by pair when installed, else pymc)",
    )
    add_mcmc(p, "mcmc: ")
    p.add_argument("--save", type=Path, help="save the MCMC fit (NetCDF)")
    add_rng(p, "Monte Carlo intervals, MCMC")

    _command(
        sub,
        "columns",
        "columns",
        "what every column name means (name, meaning, unit), grouped by command",
        inputs=False,
    ).add_argument(
        "--command",
        metavar="NAME",
        help="only the columns this command prints",
    )
