"""Write the HTML report and every figure for the bundled CRUXEval extract.

    .venv/bin/python examples/make_report.py [OUT_DIR]          (default: ./bayesnoise-report)
    .venv/bin/python examples/make_report.py --all-the-noises OUT_DIR [SHARED_DATA]

The second form builds one report per all-the-noises input table in ../shared/data and prints
how long each took (the acceptance run of the report; several minutes for the K = 1100 files).
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import bayesnoise as bn
from bayesnoise import decide, frequentist, plots
from bayesnoise.reporting.html import typical_components, write_report

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "cruxeval_output_temp0.8.csv.gz"


def bundled(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    report = write_report([DATA], out / "report.html", progress=False)
    print(f"report: {report} ({time.perf_counter() - start:.1f} s)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = bn.load(DATA)
        pairs = frequentist.pair_noise(ds)
        close = decide.close_pairs(pairs)
        comps = typical_components(close)
        figures = {
            "noise_vs_accuracy": plots.plot_noise_vs_accuracy(ds, pairs=pairs),
            "heatmap": plots.plot_heatmap(ds),
            "question_cdfs": plots.plot_question_cdfs(ds),
            "forest": plots.plot_forest(decide.compare_models(ds)),
            "pair_matrix": plots.plot_pair_matrix(pairs),
            "accuracy_scatter": plots.plot_accuracy_scatter(pairs),
            "power": plots.plot_power(
                comps["data"],
                comps["prediction"],
                n=ds.sizes["question"],
                k=10,
                total=comps["total"],
            ),
        }
    for name, fig in figures.items():
        print(f"figure: {plots.save_figure(fig, out / f'{name}.png')}")


def all_the_noises(out: Path, shared: Path) -> None:
    files = sorted((shared / "all-the-noises").glob("*/input_table_*.csv"))
    if not files:
        raise SystemExit(f"error: {shared / 'all-the-noises'}: no */input_table_*.csv files")
    out.mkdir(parents=True, exist_ok=True)
    print(f"{'file':<60} {'models':>6} {'questions':>9} {'seconds':>8}")
    for path in files:
        start = time.perf_counter()
        name = f"{path.parent.name}_{path.stem.removeprefix('input_table_')}.html"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ds = bn.load(path)
            write_report([ds], out / name, on_missing="intersect", progress=False)
        took = time.perf_counter() - start
        label = f"{path.parent.name}/{path.name}"
        print(
            f"{label:<60} {ds.sizes['model']:>6} {ds.sizes['question']:>9} {took:>8.1f}", flush=True
        )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line; nothing is read or written before it is parsed."""
    parser = argparse.ArgumentParser(
        description="Write the HTML report and every figure for the bundled CRUXEval extract, "
        "or (--all-the-noises) one report per all-the-noises input table.",
    )
    parser.add_argument(
        "out",
        nargs="?",
        type=Path,
        metavar="OUT_DIR",
        help="folder to write into (created if missing; default: ./bayesnoise-report)",
    )
    parser.add_argument(
        "shared",
        nargs="?",
        type=Path,
        metavar="SHARED_DATA",
        help="with --all-the-noises: the shared data folder holding all-the-noises/ "
        "(default: ../shared/data beside the repository)",
    )
    parser.add_argument(
        "--all-the-noises",
        action="store_true",
        help="build one report per all-the-noises input table and print how long each took "
        "(needs OUT_DIR)",
    )
    args = parser.parse_args(argv)
    if args.all_the_noises and args.out is None:
        parser.error("--all-the-noises needs OUT_DIR")
    if args.shared is not None and not args.all_the_noises:
        parser.error("SHARED_DATA applies to --all-the-noises only")
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.all_the_noises:
        shared = args.shared or HERE.parent.parent / "shared" / "data"
        all_the_noises(args.out, shared)
    else:
        bundled(args.out or Path("bayesnoise-report"))


if __name__ == "__main__":
    main()
