"""The CI commands: ``check`` (regression gate, exit 1 when a regression is shown),
``monitor`` (replay a log with an anytime-valid test) and ``plan`` (questions and samples to
pay for).

These commands render their own output and set the exit status: each sets ``run`` (a
function of the parsed options and the output format returning ``(text, status)``), which
:func:`bayesnoise.cli.main` calls in place of the table path.
"""

from __future__ import annotations

import json
import sys

from bayesnoise import verbs
from bayesnoise._defaults import ALTERNATIVES

from ._call import show
from ._options import (
    COLUMNS_HELP,
    FILE_HELP,
    add_n_resamples,
    add_renamed,
    add_rng,
    count,
    input_parent,
    output_parent,
    positive,
)

# parsed options that are not the verb's keyword arguments
_NOT_VERB = {"subcommand", "run", "format", "output", "file", "all_rows", "all_columns"}

CHECK_EPILOG = (
    "Exit status: 0 = no regression shown, 1 = regression shown (on a benchmark or the "
    "combined test, Holm), 2 = bad input. FILEs: one file holding both models (--baseline "
    "MODEL --candidate MODEL); two files, baseline then candidate (paired on the questions "
    "both answered); or several files holding both models, one benchmark each. A benchmark "
    "column gates every benchmark in it. --format json prints the whole result. "
)


def _kw(args) -> dict:
    return {k: v for k, v in vars(args).items() if k not in _NOT_VERB}


def _run_check(args, fmt):
    from bayesnoise.reporting import render

    files = args.file
    result = verbs.check(files[0] if len(files) == 1 else files, **_kw(args))
    rows, head = verbs.tidy(result), dict(result.attrs)
    if head.get("note"):  # judge-graded: the random-subset assumption
        print(f"note: {head['note']}", file=sys.stderr)
    head.pop("columns", None)
    if fmt == "json":
        # NaN as null, numpy values as plain JSON
        records = json.loads(rows.to_json(orient="records", double_precision=15))
        text = json.dumps({**head, "benchmarks": records}, indent=1) + "\n"
    elif fmt in ("csv", "tsv"):
        text = render(rows, fmt)
    else:
        several = len(rows) > 1
        table = show(result, "table", args, "check") + "\n" if several else ""
        text = table + head["verdict"] + "\n"
    return text, head["exit_status"]


def _run_monitor(args, fmt):
    files = args.file
    result = verbs.monitor(files[0] if len(files) == 1 else files, **_kw(args))
    a = result.attrs
    last = result.isel(step=-1)
    if a["stopped_at"]:
        summary = (
            f"stopped after {a['stopped_at']} of {a['questions_total']} questions: "
            f"{a['decision']} (always-valid p = {float(last['p_value_always_valid']):.3g})"
        )
    else:
        summary = (
            f"not stopped after {a['questions_total']} questions (always-valid p = "
            f"{float(last['p_value_always_valid']):.3g}, alpha {a['alpha']:g})"
        )
    if a["order"] == "random":
        summary += f"; questions in random order (--rng {a['rng']})"
    else:
        summary += f"; questions in {a['order']} order"
    print(summary, file=sys.stderr)
    return show(result, fmt, args, "monitor"), 0


def _run_plan(args, fmt):
    files = args.file
    data = None if not files else (files[0] if len(files) == 1 else files)
    result = verbs.plan(data, **_kw(args))
    if "se_prediction_before" in result.attrs:
        a = result.attrs
        print(
            f"{a['budget']} extra samples: the prediction-noise SE of {a['model_a']} - "
            f"{a['model_b']} on these questions goes from {a['se_prediction_before']:.4g} to "
            f"{a['se_prediction_after']:.4g}",
            file=sys.stderr,
        )
    if "cost" in result.attrs:  # --factor: the crossed design's target and cost model
        print(f"{result.attrs['target']}; cost = {result.attrs['cost']}", file=sys.stderr)
    if result.attrs.get("assumption"):
        print(f"assumption: {result.attrs['assumption']}", file=sys.stderr)
    return show(result, fmt, args, "plan"), 0


def _parser(sub, name, text, run, *, nargs="+"):
    p = sub.add_parser(
        name,
        parents=[input_parent(file=False), output_parent()],
        help=text,
        description=text,
        epilog=COLUMNS_HELP,
    )
    p.add_argument("file", nargs=nargs, help=FILE_HELP)
    p.set_defaults(run=run)
    return p


def add_roles(p, base: str = "", cand: str = "") -> None:
    """``--baseline`` / ``--candidate`` (``baseline=`` / ``candidate=``; difference
    candidate - baseline), the same in ``check`` and ``monitor``."""
    p.add_argument("--baseline", metavar="MODEL", help="baseline model" + base)
    p.add_argument("--candidate", metavar="MODEL", help="candidate model" + cand)


def _alpha(p, text):
    p.add_argument("--alpha", type=positive, default=0.05, help=text)


def register(sub) -> None:
    """Add ``check``, ``monitor`` and ``plan`` to the ``bayesnoise`` sub-parsers."""
    p = _parser(
        sub, "check", "regression gate: is the candidate worse than the baseline?", _run_check
    )
    p.epilog = CHECK_EPILOG + COLUMNS_HELP
    add_roles(p)
    p.add_argument(
        "--margin",
        type=float,
        default=0.0,
        help="tolerated drop, a fraction in (-1, 1) (0.01 = one point; default 0): only a "
        "drop beyond it is a regression",
    )
    _alpha(p, "family-wise level of the one-sided test (default 0.05)")
    p.add_argument(
        "--method",
        choices=("frequentist", "bayes"),
        default="frequentist",
        help="frequentist (default): paired t test, or an exact test on few questions; with "
        "--margin on 0/1 scores the exact unconditional test of paired proportions (named in "
        "the verdict); bayes: the Dirichlet-process posterior",
    )
    add_n_resamples(
        p, 4000, "posterior draws (bayes); bootstrap resamples (margin, K > 1)", old=("--draws",)
    )
    add_rng(p, "bayes")
    g = p.add_argument_group("judge-graded scores (see bayesnoise judge)")
    g.add_argument(
        "--judge-col",
        metavar="NAME",
        help="judge-score column (default judge_score): gate the judge scores corrected with "
        "the human labels (PPI++ one-sided z test; bayes: misclassification model)",
    )
    g.add_argument("--human-col", metavar="NAME", help="human-label column (default human)")
    g.add_argument("--human", metavar="FILE", help="human labels in a second table")
    g.add_argument(
        "--label-prob-col",
        metavar="NAME",
        help="each question's probability of being chosen for a human label (default "
        "label_prob when present)",
    )

    p = _parser(
        sub,
        "monitor",
        "replay a log in order: anytime-valid confidence sequence and p-value per question",
        _run_monitor,
    )
    p.add_argument(
        "--order-column",
        metavar="NAME",
        help="column giving each question's position (both models' rows of a question share "
        "it); the questions are replayed in its order",
    )
    p.add_argument(
        "--order",
        choices=("random", "column", "file"),
        help="replay order: random (default; seeded by --rng), column (with --order-column, "
        "its default), file (as listed: valid only if that order is independent of the results)",
    )
    add_rng(p, "the random order of the questions")
    add_roles(p, " (default with two models: the second)", " (default: the first)")
    add_renamed(p, "--model-a", "--candidate")
    add_renamed(p, "--model-b", "--baseline")
    p.add_argument(
        "--margin",
        type=float,
        default=0.0,
        help="null: candidate - baseline = -margin (default 0)",
    )
    _alpha(p, "error level of the sequence and the test (default 0.05)")
    p.add_argument(
        "--difference",
        type=positive,
        metavar="D",
        help="planned difference: bet on it (stops soonest when the true difference is about D)",
    )
    p.add_argument(
        "--alternative",
        choices=ALTERNATIVES,
        default="two-sided",
        help="less: look only for candidate - baseline < -margin (a regression)",
    )
    p.add_argument("--every", type=count, default=1, metavar="N", help="print every N-th question")
    p.add_argument(
        "--no-stop",
        dest="stop",
        action="store_false",
        help="replay the whole log instead of ending at the stopping question",
    )

    p = _parser(
        sub,
        "plan",
        "cost-optimal questions N and samples per question K; or which questions to resample",
        _run_plan,
        nargs="*",
    )
    target = p.add_mutually_exclusive_group()
    target.add_argument(
        "--difference", type=float, metavar="D", help="difference to detect (0.02 = 2 points)"
    )
    target.add_argument(
        "--target-se",
        type=float,
        metavar="SE",
        help="SE to reach: of the difference (pairs), of the accuracy (one model: --models M)",
    )
    p.add_argument("--power", type=float, default=0.8, help="power (default 0.8)")
    _alpha(p, "level (default 0.05)")
    p.add_argument(
        "--alternative",
        choices=ALTERNATIVES,
        default="two-sided",
        help="the test planned for (less: check's one-sided gate; either one-sided test needs "
        "the same N and K)",
    )
    add_renamed(p, "--one-sided", "--alternative less")
    p.add_argument(
        "--cost-question", type=float, default=1.0, help="cost of a new question (default 1)"
    )
    p.add_argument(
        "--cost-sample", type=float, default=1.0, help="cost of one sample of it (default 1)"
    )
    p.add_argument(
        "--cost-template",
        type=float,
        default=1.0,
        help="with --factor template: cost of adding one template (default 1); a design costs "
        "cost_question N + cost_template T + cost_sample N T K",
    )
    p.add_argument("--pair", nargs=2, metavar=("A", "B"), help="only the pair A - B")
    p.add_argument("--max-samples", type=count, default=100, help="largest K (default 100)")
    p.add_argument(
        "--max-templates",
        type=count,
        default=50,
        help="with --factor template: largest number of templates T (default 50)",
    )
    p.add_argument("--max-questions", type=count, help="largest N available")
    p.add_argument(
        "--resample",
        type=count,
        metavar="B",
        help="adaptive K: which questions of the pilot to sample again (B extra samples)",
    )
    p.add_argument(
        "--reference", metavar="BENCHMARK", help="plan from a public benchmark's reference noise"
    )
    g = p.add_argument_group("judge-graded pilot (see bayesnoise judge)")
    g.add_argument(
        "--human-cost",
        type=float,
        metavar="C",
        help="human labels to buy per model for --target-se of the PPI++ accuracy, C per label",
    )
    g.add_argument("--judge-col", action="append", metavar="NAME", help="judge-score column")
    g.add_argument("--human-col", metavar="NAME", help="human-label column (default human)")
    g.add_argument("--human", metavar="FILE", help="human labels in a second table")
    g.add_argument(
        "--label-prob-col",
        metavar="NAME",
        help="each question's probability of being chosen for a human label (default "
        "label_prob when present)",
    )
