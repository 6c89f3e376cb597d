"""The picture commands: ``plot`` (one figure), ``report`` (an HTML page), ``reference``."""

from __future__ import annotations

from pathlib import Path

from bayesnoise.verbs import choices

from ._options import FILE_HELP, add_level, add_rng, input_parent, output_parent

FIT_KINDS = ("trace", "rank", "mcmc-forest")


def register(sub) -> None:
    """Add ``plot``, ``report`` and ``reference`` to the ``bayesnoise`` sub-parsers."""
    text = "draw one figure to a PNG, SVG or PDF file"
    p = sub.add_parser("plot", parents=[input_parent(file=False)], help=text, description=text)
    p.add_argument(
        "kind",
        choices=choices.PLOT_KINDS,
        help="figure; trace/rank/mcmc-forest read a fit saved by posterior --save",
    )
    p.add_argument("file", nargs="+", help=FILE_HELP + " ('components': several)")
    p.add_argument("-o", "--output", type=Path, required=True, help="figure file (.png/.svg/.pdf)")
    p.add_argument(
        "--statistic", choices=choices.PLOT_STATISTICS, default="z", help="matrix colour"
    )
    p.add_argument("--bins", type=int, default=5, help="cdf: model groups by accuracy")
    p.add_argument("--prior", default="uniform", help="rate, threshold: Beta prior of the rates")
    p.add_argument("--priors", type=Path, metavar="FILE", help="rate, threshold: per-model priors")
    p.add_argument("--grid", metavar="START:STOP:STEP", help="threshold: the thresholds")
    p.add_argument("--judge-col", metavar="NAME", help="judge: judge-score column")
    p.add_argument("--human-col", metavar="NAME", help="judge: human-label column")
    p.add_argument("--human", metavar="FILE", help="judge: human labels in a second table")
    p.add_argument(
        "--by",
        choices=choices.BY,
        default="model",
        help="noises: a bar per model (default) or per pair (the parts of the difference's "
        "SE^2; the template part is then the model x template interaction)",
    )
    p.add_argument("--dpi", type=int, default=150, help="PNG resolution")
    add_level(p, "forest: interval level (default 0.95)", 0.95)
    add_rng(p, "Monte Carlo intervals")
    p.set_defaults(shows="figure")

    text = "one self-contained HTML report for one or more files"
    p = sub.add_parser("report", parents=[input_parent()], help=text, description=text)
    p.add_argument("-o", "--output", type=Path, required=True, help="the .html file to write")
    p.add_argument("--title", default="bayesnoise report")
    p.add_argument(
        "--models-dir", type=Path, help="reference noise tables (default: the packaged copy)"
    )
    add_level(p, "interval level (default 0.95)", 0.95)
    add_rng(p, "Monte Carlo intervals")
    p.add_argument("--judge-col", metavar="NAME", help="judge-graded table: score column")
    p.add_argument("--human-col", metavar="NAME", help="judge-graded table: label column")
    p.add_argument("--human", metavar="FILE", help="judge-graded table: label file")
    p.set_defaults(verb="report", shows="file")

    text = "typical noise of a public benchmark (bundled reference tables)"
    p = sub.add_parser("reference", parents=[output_parent()], help=text, description=text)
    p.add_argument("benchmark", help="benchmark name, e.g. humaneval+ or math500_cot")
    p.add_argument(
        "--accuracy",
        type=float,
        metavar="P",
        help="add the Beta-theory SEs of a model at accuracy P",
    )
    p.add_argument(
        "--models-dir", type=Path, help="reference noise tables (default: the packaged copy)"
    )
    p.set_defaults(verb="reference", shows="table")
