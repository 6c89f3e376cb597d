"""The picture commands: ``plot`` (one figure), ``report`` (an HTML page), ``reference``."""

from __future__ import annotations

import argparse
from pathlib import Path

from bayesnoise.data import DataError

from ._options import add_output, add_paired, add_seed, level, on_missing

DATA_KINDS = ("noise", "components", "heatmap", "cdf", "forest", "matrix", "scatter", "power")
FIT_KINDS = ("trace", "rank", "mcmc-forest")
STATISTICS = ("z", "difference", "p_value", "p_adjusted", "p_a_better", "p_a_better_population")


def _load(path, args):
    import bayesnoise as bn

    ds = bn.load(path, benchmark=args.benchmark)
    if args.models:
        ds = bn.select_models(ds, [m.strip() for m in args.models.split(",") if m.strip()])
    return ds


def _pairs(ds, args, statistic: str = "z"):
    from bayesnoise import conjugate, frequentist

    pairs = frequentist.pair_noise(ds, on_missing=on_missing(args))
    if statistic.startswith("p_a_better"):
        bayes = conjugate.posterior_pairs_table(
            ds, random_seed=args.seed, on_missing=on_missing(args)
        )
        pairs = pairs.merge(bayes[["model_a", "model_b", statistic]], on=["model_a", "model_b"])
    return pairs


def _draw(kind: str, args):
    from bayesnoise import decide, plots
    from bayesnoise.data import complete

    if kind in FIT_KINDS:
        from bayesnoise.mcmc import load_fit

        return plots.plot_mcmc(load_fit(args.file[0]), kind.removeprefix("mcmc-"))
    if kind == "components":
        return plots.plot_noise_components({Path(f).name: _load(f, args) for f in args.file})
    ds = _load(args.file[0], args)
    if kind == "noise":
        return plots.plot_noise_vs_accuracy(ds)
    if kind == "heatmap":
        return plots.plot_heatmap(ds)
    if kind == "cdf":
        return plots.plot_question_cdfs(ds, bins=args.bins)
    if kind == "forest":
        level_ = 0.95 if args.confidence_level is None else args.confidence_level
        return plots.plot_forest(decide.compare_models(ds, confidence_level=level_))
    if kind == "matrix":
        return plots.plot_pair_matrix(_pairs(ds, args, args.statistic), args.statistic)
    if kind == "scatter":
        return plots.plot_accuracy_scatter(_pairs(ds, args))
    # power: the median close pair's components
    import numpy as np

    from bayesnoise.frequentist import model_noise
    from bayesnoise.report.html import typical_components

    paired = complete(ds, on_missing=on_missing(args))
    close = plots.close_pairs(_pairs(paired, args))
    if close.empty:
        raise DataError(f"{args.file[0]}: no close pairs (|A - B| < 5 SE) to take noise from")
    comps = typical_components(close)
    k = float(np.median(model_noise(paired)["samples_per_question"]))
    return plots.plot_power(
        comps["data"],
        comps["prediction"],
        n=paired.sizes["question"],
        k=k,
        total=comps["total"],
        title=f"{ds.attrs.get('benchmark', '')}: median of {len(close)} close pairs",
    )


def _plot(args: argparse.Namespace):
    from bayesnoise.plots import save_figure

    if args.kind != "components" and len(args.file) != 1:
        raise DataError(f"plot {args.kind} takes one file; 'components' takes several")
    suffix = args.output.suffix.lower()
    if suffix not in (".png", ".svg", ".pdf"):
        raise DataError(f"{args.output}: the figure file must end in .png, .svg or .pdf")
    figure = _draw(args.kind, args)
    if hasattr(figure, "savefig") and not hasattr(figure, "axes"):  # arviz-plots collection
        figure.savefig(args.output)
    else:
        save_figure(figure, args.output, dpi=args.dpi)
    return None


def _report(args: argparse.Namespace):
    from bayesnoise.report.html import write_report

    if args.output.suffix.lower() not in (".html", ".htm"):
        raise DataError(f"{args.output}: the report file must end in .html")
    inputs = {}
    for path in args.file:
        ds = _load(path, args)
        inputs[str(ds.attrs.get("benchmark") or Path(path).name)] = ds
    if len(inputs) < len(args.file):  # two files with the same benchmark name
        inputs = {f"{Path(p).name}": _load(p, args) for p in args.file}
    write_report(
        inputs,
        args.output,
        title=args.title,
        confidence_level=0.95 if args.confidence_level is None else args.confidence_level,
        random_seed=args.seed,
        on_missing=on_missing(args),
        quiet=args.quiet,
        models_dir=args.models_dir,
    )
    return None


def _reference(args: argparse.Namespace):
    from bayesnoise.report.html import reference_table

    return reference_table(args.benchmark, accuracy=args.accuracy, models_dir=args.models_dir)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--benchmark", help="benchmark to use when a file holds several")
    p.add_argument("--models", help="comma-separated models to keep (default: all)")
    add_paired(p)
    p.add_argument("--confidence-level", type=level, metavar="LEVEL", help="default 0.95")
    add_seed(p, "Monte Carlo intervals")


def register(sub) -> None:
    """Add ``plot``, ``report`` and ``reference`` to the ``bayesnoise`` sub-parsers."""
    p = sub.add_parser("plot", help="draw one figure to a PNG, SVG or PDF file")
    p.add_argument(
        "kind",
        choices=DATA_KINDS + FIT_KINDS,
        help="figure; trace/rank/mcmc-forest read a fit saved by posterior --save",
    )
    p.add_argument("file", nargs="+", help="results file (several for 'components')")
    p.add_argument("-o", "--output", type=Path, required=True, help="figure file (.png/.svg/.pdf)")
    p.add_argument("--statistic", choices=STATISTICS, default="z", help="matrix colour")
    p.add_argument("--bins", type=int, default=5, help="cdf: model groups by accuracy")
    p.add_argument("--dpi", type=int, default=150, help="PNG resolution")
    _common(p)
    p.set_defaults(handler=_plot)

    p = sub.add_parser("report", help="one self-contained HTML report for one or more files")
    p.add_argument("file", nargs="+", help="results files (one section each)")
    p.add_argument("-o", "--output", type=Path, required=True, help="the .html file to write")
    p.add_argument("--title", default="bayesnoise report")
    p.add_argument("--models-dir", type=Path, help="reference noise models (default: models/)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    _common(p)
    p.set_defaults(handler=_report)

    p = sub.add_parser("reference", help="typical noise of a public benchmark (models/ tables)")
    p.add_argument("benchmark", help="benchmark name, e.g. humaneval+ or math500_cot")
    p.add_argument(
        "--accuracy",
        type=float,
        metavar="P",
        help="add the Beta-theory SEs of a model at accuracy P",
    )
    p.add_argument("--models-dir", type=Path, help="reference noise models (default: models/)")
    add_output(p)
    p.set_defaults(handler=_reference)
