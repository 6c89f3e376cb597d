"""First-call latency: ``import bayesnoise`` and commands on a small file vs the import floor.

The floor is ``python -c "import numpy, pandas, scipy.stats, xarray"``; each case and the floor
run in turn as fresh processes (A B A B ..., median of 5 pair-by-pair ratios). Cases:
``import bayesnoise``, ``bayesnoise --version``, ``bayesnoise pairs`` and ``bayesnoise noise``
on a 49-model x 164-question file (``../shared/data``'s HumanEval+, else the bundled CRUXEval
extract). Target (issue 33): each <= 1.5x the floor.

Run: ``python benchmarks/bench_import.py --label after``  (table appended to
``benchmarks/results/first_call.md``)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _versus import CLI, IMPORT_FLOOR, PYTHON, ROOT, SHARED, parser, versus, write

SMALL = SHARED / "all-the-noises/main/input_table_humaneval+.csv"  # 49 models x 164 questions
BUNDLED = ROOT / "examples/data/cruxeval_output_temp0.8.csv.gz"


def main() -> None:
    p = parser(__doc__)
    args = p.parse_args()
    small = str(SMALL if SMALL.exists() else BUNDLED)
    name = Path(small).name
    cases = {
        "import bayesnoise": [PYTHON, "-c", "import bayesnoise"],
        "bayesnoise --version": [CLI, "--version"],
        f"bayesnoise pairs {name}": [CLI, "pairs", small],
        f"bayesnoise noise {name}": [CLI, "noise", small],
    }
    rows = [versus(case, cmd, IMPORT_FLOOR, runs=args.runs) for case, cmd in cases.items()]
    write("first_call", args.label, rows, "import floor",
          "Floor: `python -c \"import numpy, pandas, scipy.stats, xarray\"`. "
          "Target: every row <= 1.5x.")  # fmt: skip


if __name__ == "__main__":
    main()
