"""``bayesnoise report`` end to end: 49 models (real) and 200 models x 1,000 questions.

Cases: HumanEval+ from ``../shared/data`` (49 models x 164 questions, K = 1; skipped when the
folder is absent) and a synthetic count table of 200 models x 1,000 questions with K = 4
samples each (shared question difficulty plus model noise). Each report is a fresh
``bayesnoise report FILE -o OUT.html --no-progress`` run in turn with the import floor
``python -c "import numpy, pandas, scipy.stats, xarray"`` (A B A B ..., median of 5). The targets
are in seconds (issue 33: <= 5 s at 49 models, <= 20 s at 200 x 1,000); the ratio to the import
floor says how loaded the machine was.

Run: ``python benchmarks/bench_report.py --label after`` (table appended to
``benchmarks/results/report.md``)
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _versus import CLI, IMPORT_FLOOR, SHARED, parser, versus, write

HUMANEVAL_PLUS = SHARED / "all-the-noises/main/input_table_humaneval+.csv"


def write_counts(path: Path, m: int = 200, n: int = 1000, k: int = 4, seed: int = 2) -> None:
    """Count table ``model,example_id,count,correct``: difficulty ~ Beta(0.7, 0.7) + noise."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    u = np.clip(rng.beta(0.7, 0.7, (1, n)) + rng.normal(0, 0.15, (m, n)), 0, 1)
    pd.DataFrame(
        {
            "model": np.repeat([f"model-{i:03d}" for i in range(m)], n),
            "example_id": np.tile([f"q{j:04d}" for j in range(n)], m),
            "count": k,
            "correct": rng.binomial(k, u).ravel(),
        }
    ).to_csv(path, index=False)


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--cases", nargs="+", default=["49", "200"], choices=["49", "200"])
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_report_") as tmp:
        synth = Path(tmp) / "synthetic_200x1000.csv"
        write_counts(synth)
        files = {
            "49": ("HumanEval+ 49 x 164, K = 1", HUMANEVAL_PLUS),
            "200": ("synthetic 200 x 1,000, K = 4", synth),
        }
        rows = []
        for key in args.cases:
            name, path = files[key]
            if not path.exists():
                continue
            cmd = [CLI, "report", str(path), "-o", f"{tmp}/r.html", "--no-progress"]
            rows.append(versus(f"report {name}", cmd, IMPORT_FLOOR, runs=args.runs))
    write("report", args.label, rows, "import floor",
          "Targets: <= 5 s at 49 models, <= 20 s at 200 x 1,000 (command s).")  # fmt: skip


if __name__ == "__main__":
    main()
