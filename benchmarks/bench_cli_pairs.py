"""All pairs through the command line against a numpy floor, whole processes back to back.

The file: 300 models x 3,000 questions, one 0/1 result per (model, question) (K = 1, a shared
question difficulty plus model noise), as a long CSV ``model,example_id,correct``. Commands:

- ``bayesnoise pairs FILE --format csv`` (frequentist all pairs)
- ``bayesnoise posterior --by pair FILE --format csv`` (Bayesian all pairs, closed forms;
  ``--pairs`` on trees before issue 29)

The floor, run in turn with each (A B A B ..., median of 5 pair-by-pair ratios): a fresh
``python`` that imports numpy and pandas, reads the same CSV with pyarrow, pivots it to the
M x N matrix, forms one Gram matrix and the closed-form pair formulas on it (difference, its
standard error, z, the normal two-sided p-value) and writes the 44,850-row CSV table. That is
the least any all-pairs command does with this file; the import of scipy.stats and xarray
(which the package needs) is not in the floor. Targets (issue 33): frequentist <= 2x,
Bayesian <= 3x.

Run: ``python benchmarks/bench_cli_pairs.py --label before``  (about 2 minutes on 2 cores;
the table is appended to ``benchmarks/results/cli_pairs.md``)
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _versus import CLI, PYTHON, parser, versus, write

FLOOR = r"""
import sys
import numpy as np, pandas as pd
from scipy.special import ndtr
df = pd.read_csv(sys.argv[1], engine="pyarrow")
c = df.pivot(index="model", columns="example_id", values="correct")
models = c.index.to_numpy()
p = c.to_numpy(dtype=np.float64)
m, n = p.shape
s = p.sum(axis=1)
cov = (p @ p.T) / n - np.outer(s, s) / n / n
v = np.diag(cov)
a, b = np.triu_indices(m, 1)
acc = s / n
diff = acc[a] - acc[b]
se = np.sqrt(np.maximum(v[a] + v[b] - 2 * cov[a, b], 0) / n)
z = np.divide(diff, se, out=np.zeros_like(diff), where=se > 0)
pd.DataFrame({"model_a": models[a], "model_b": models[b], "accuracy_a": acc[a],
              "accuracy_b": acc[b], "difference": diff, "se_total": se, "z": z,
              "p_value": 2 * ndtr(-np.abs(z))}).to_csv(sys.stdout, index=False)
"""


def write_file(path: Path, m: int = 300, n: int = 3000, seed: int = 1) -> None:
    """0/1 results: shared question difficulty plus model-specific noise (as bench_scale.py)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    base = rng.beta(0.7, 0.7, (1, n))
    u = np.clip(base + rng.normal(0, 0.15, (m, n)), 0, 1)
    c = (rng.random(u.shape) < u).astype(np.int8)
    pd.DataFrame(
        {
            "model": np.repeat([f"model-{i:03d}" for i in range(m)], n),
            "example_id": np.tile([f"q{j:04d}" for j in range(n)], m),
            "correct": c.ravel(),
        }
    ).to_csv(path, index=False)


def bayes_pairs_flags() -> list[str]:
    """``--by pair`` (issue 29), or the older ``--pairs`` when measuring an older tree."""
    import subprocess

    text = subprocess.run([CLI, "posterior", "-h"], capture_output=True, text=True).stdout
    return ["--by", "pair"] if "--by" in text else ["--pairs"]


def main() -> None:
    p = parser(__doc__)
    p.add_argument("--models", type=int, default=300)
    p.add_argument("--questions", type=int, default=3000)
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_cli_pairs_") as tmp:
        path = Path(tmp) / "results.csv"
        write_file(path, args.models, args.questions)
        floor = [PYTHON, "-c", FLOOR, str(path)]
        size = f"{args.models} x {args.questions}"
        rows = [
            versus(
                f"pairs (frequentist) {size}",
                [CLI, "pairs", str(path), "--format", "csv"],
                floor,
                runs=args.runs,
            ),
            versus(
                f"posterior, all pairs (Bayesian) {size}",
                [CLI, "posterior", *bayes_pairs_flags(), str(path), "--format", "csv"],
                floor,
                runs=args.runs,
            ),
        ]
    write("cli_pairs", args.label, rows, "numpy floor",
          "Targets: frequentist <= 2x, Bayesian <= 3x the floor.")  # fmt: skip


if __name__ == "__main__":
    main()
