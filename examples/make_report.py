"""Write the HTML report and every figure for the bundled CRUXEval extract.

    .venv/bin/python examples/make_report.py [OUT_DIR]          (default: ./bayesnoise-report)
    .venv/bin/python examples/make_report.py --all-the-noises OUT_DIR [SHARED_DATA]

The second form builds one report per all-the-noises input table in ../shared/data and prints
how long each took (the acceptance run of the report; several minutes for the K = 1100 files).
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import bayesnoise as bn
from bayesnoise import decide, frequentist, plots
from bayesnoise.report.html import typical_components, write_report

HERE = Path(__file__).resolve().parent
DATA = HERE / "data" / "cruxeval_output_temp0.8.csv.gz"


def bundled(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    report = write_report([DATA], out / "report.html", quiet=True)
    print(f"report: {report} ({time.perf_counter() - start:.1f} s)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ds = bn.load(DATA)
        pairs = frequentist.pair_noise(ds)
        close = plots.close_pairs(pairs)
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
    out.mkdir(parents=True, exist_ok=True)
    files = sorted((shared / "all-the-noises").glob("*/input_table_*.csv"))
    print(f"{'file':<60} {'models':>6} {'questions':>9} {'seconds':>8}")
    for path in files:
        start = time.perf_counter()
        name = f"{path.parent.name}_{path.stem.removeprefix('input_table_')}.html"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ds = bn.load(path)
            write_report([ds], out / name, on_missing="intersect", quiet=True)
        took = time.perf_counter() - start
        label = f"{path.parent.name}/{path.name}"
        print(
            f"{label:<60} {ds.sizes['model']:>6} {ds.sizes['question']:>9} {took:>8.1f}", flush=True
        )


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] == "--all-the-noises":
        default = HERE.parent.parent / "shared" / "data"
        all_the_noises(Path(args[1]), Path(args[2]) if len(args) > 2 else default)
    else:
        bundled(Path(args[0]) if args else Path("bayesnoise-report"))
