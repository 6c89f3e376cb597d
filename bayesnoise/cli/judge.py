"""``bayesnoise judge``: accuracy graded by an LLM judge, corrected with human labels."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bayesnoise import verbs
from bayesnoise._defaults import ALTERNATIVES

from ._call import show
from ._options import COLUMNS_HELP, add_level, add_pair, input_parent, output_parent

_SKIP = {
    "subcommand",
    "run",
    "verb",
    "shows",
    "format",
    "output",
    "file",
    "all_rows",
    "all_columns",
}


def _run(args, fmt):
    kw = {k: v for k, v in vars(args).items() if k not in _SKIP}
    result = verbs.judge(args.file, **kw)
    a = result.attrs
    print(f"note: {a['note']}", file=sys.stderr)
    if isinstance(a.get("verdict"), str):  # one pair: its sentence, beside the table
        print(a["verdict"], file=sys.stderr)
    return show(result, fmt, args, "judge"), 0


def register(sub) -> None:
    """Add ``judge`` to the ``bayesnoise`` sub-parsers."""
    text = (
        "accuracy graded by an LLM judge, corrected with a random subset of human labels "
        "(PPI++ or a misclassification model), beside the judge-only numbers"
    )
    p = sub.add_parser(
        "judge",
        parents=[input_parent(file=False), output_parent()],
        help=text,
        description=text,
        epilog=COLUMNS_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "file",
        help="table with one row per model, question (and judge): a judge score in [0, 1] and "
        "a human label 0/1, empty where no human looked (.csv, .tsv, .jsonl, .json, .parquet)",
    )
    g = p.add_argument_group("judge and human labels")
    g.add_argument(
        "--judge-col",
        metavar="NAME",
        help="judge-score column (default judge_score); several judges: NAME1,NAME2",
    )
    g.add_argument("--human-col", metavar="NAME", help="human-label column (default human)")
    g.add_argument(
        "--human",
        type=Path,
        metavar="FILE",
        help="human labels in a second table (model, question, label)",
    )
    g.add_argument(
        "--label-prob-col",
        metavar="NAME",
        help="each item's probability of being chosen for a human label (default label_prob "
        "when present): PPI++ weighted by 1/p, bayes stratified by it",
    )
    p.add_argument(
        "--method",
        choices=("frequentist", "bayes", "mcmc"),
        default="frequentist",
        help="PPI++ (default), the misclassification model in closed form / Gibbs (bayes) or "
        "in PyMC (mcmc)",
    )
    p.add_argument("--by", choices=("model", "pair"), default="model", help="per model or per pair")
    add_pair(p, "with --by pair: only the pair A - B, and a one-line verdict on it")
    add_level(p, "interval level (default 0.95)")
    p.set_defaults(confidence_level=0.95)
    p.add_argument(
        "--alternative",
        choices=ALTERNATIVES,
        default="two-sided",
        help="sidedness of the intervals and of p_value_ppi (H0: difference 0)",
    )
    p.add_argument(
        "--no-power-tuning",
        dest="power_tuning",
        action="store_false",
        help="PPI (judge weight 1) instead of PPI++ (tuned weight)",
    )
    p.add_argument(
        "--judge-bias",
        choices=("per-model", "shared"),
        default="per-model",
        help="bayes, mcmc: the judge's sensitivity and specificity per model (default) or one "
        "pair for every model",
    )
    p.add_argument("--draws", type=int, default=2000, help="posterior draws per chain")
    p.add_argument("--tune", type=int, default=1000, help="burn-in per chain")
    p.add_argument("--chains", type=int, default=4, help="chains")
    p.add_argument("--rng", type=int, default=0, metavar="N", help="random seed")
    p.set_defaults(run=_run, verb="judge")
