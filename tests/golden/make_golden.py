"""Write the golden outputs of every ``bayesnoise`` command (issue 38, item 7).

Run from the repository root, only after an intended change of output (say why in the commit
message)::

    PYTHONPATH=. python tests/golden/make_golden.py          # every case
    PYTHONPATH=. python tests/golden/make_golden.py pairs    # the named cases only

Each case of :data:`CASES` runs the command line in this process (``bayesnoise.cli.main``) with
its defaults plus only the options the command needs, on the bundled files
(``examples/data/``), on :data:`FACTOR` (a prompt-template file this script writes once,
seeded) and on the bundled judge-graded file, and writes

- ``tests/golden/<case>.csv``: standard output of ``--format csv`` (``%.10g`` floats);
- ``tests/golden/<case>.txt``: the exit status, then the lines the command wrote on standard
  error (verdict sentences, notes, warnings; the progress display is switched off).

:data:`FILE_CASES` (``plot``, ``report``) write a file: only checked to run and to write a
non-empty file, not compared byte by byte. ``tests/test_golden.py`` reruns every case and
compares. Left out: anything that samples with PyMC (``--method mcmc``, the ``bayes`` judge,
the ``trace``/``mcmc-forest`` figures) and ``coverage`` at its default size (20 s of CPU; it
runs here on two models with 4 simulated evals per population).
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path
from unittest import mock

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent

TEMP = "examples/data/cruxeval_output_temp0.8.csv.gz"  # 0/1 scores, 10 samples per question
RATE = "examples/data/cruxeval_output_pass_rate.csv.gz"  # graded scores (pass rates)
JUDGE = "examples/data/judge_graded.csv"  # judge scores, human labels on a subset
FACTOR = "tests/golden/templates.csv"  # 3 models x 60 questions x 4 templates x 2 runs

_F = ["--factor", "template"]
_J = ["--judge-col", "judge_score"]

#: case name -> command line (paths relative to the repository root; ``--format csv`` added)
CASES: dict[str, list[str]] = {
    # per-question 0/1 scores
    "noise": ["noise", TEMP],
    "pairs": ["pairs", TEMP],
    "pairs_one_pair": ["pairs", TEMP, "--pair", "phind", "codellama-13b"],  # + its sentence
    "arena": ["arena", TEMP],
    "compare": ["compare", TEMP],
    "compare_by_pair": ["compare", TEMP, "--by", "pair"],
    "posterior": ["posterior", TEMP],
    "posterior_by_pair": ["posterior", TEMP, "--by", "pair"],
    "columns": ["columns"],
    "rate": ["rate", TEMP],
    "ranks": ["ranks", TEMP],
    "power": ["power", TEMP],
    "passk": ["passk", TEMP, "--k", "5"],
    "passk_by_pair": ["passk", TEMP, "--k", "5", "--by", "pair"],
    "questions": ["questions", TEMP],
    "leaderboard": ["leaderboard", TEMP],
    "signal": ["signal", TEMP],
    "decision_accuracy": ["decision-accuracy", TEMP, TEMP],
    "coverage_small": [
        *("coverage", TEMP, "--models", "phind,codellama-13b"),
        *("--n-resamples", "4"),
    ],
    "check": ["check", TEMP, "--baseline", "codellama-13b", "--candidate", "phind"],
    "check_regression": ["check", TEMP, "--baseline", "phind", "--candidate", "codellama-13b"],
    "monitor": ["monitor", TEMP, "--baseline", "codellama-13b", "--candidate", "phind"],
    "plan": ["plan", TEMP, "--difference", "0.02"],
    "plan_target_se": ["plan", TEMP, "--target-se", "0.01"],
    "reference": ["reference", "CRUXEval-output"],
    # graded scores
    "rate_graded": ["rate", RATE, "--threshold", "0.5"],
    "threshold": ["threshold", RATE, "--grid", "0.1:0.9:0.2"],
    "passk_graded": ["passk", RATE, "--threshold", "0.5", "--k", "1"],
    # scores crossed with a factor (prompt templates)
    "noises": ["noises", FACTOR, *_F],
    "noises_by_pair": ["noises", FACTOR, *_F, "--by", "pair"],
    "pairs_factor": ["pairs", FACTOR, *_F],
    "compare_factor": ["compare", FACTOR, *_F],
    "compare_factor_by_pair": ["compare", FACTOR, *_F, "--by", "pair"],
    "check_factor": ["check", FACTOR, *_F, "--baseline", "beta", "--candidate", "alpha"],
    "plan_factor": ["plan", FACTOR, *_F, "--target-se", "0.03"],
    "plan_factor_pair": ["plan", FACTOR, *_F, "--difference", "0.05", "--pair", "alpha", "beta"],
    # judge-graded scores with human labels
    "judge": ["judge", JUDGE],
    "judge_by_pair": ["judge", JUDGE, "--by", "pair"],
    "check_judge": ["check", JUDGE, *_J, "--baseline", "model_c", "--candidate", "model_a"],
    "plan_judge": ["plan", JUDGE, *_J, "--target-se", "0.02"],
}

#: case name -> command line writing ``{out}``: checked to run and write a non-empty file. Few
#: figures: drawing them is most of the CPU time (``report`` on the bundled 0/1 file takes 4 s
#: of CPU even for two models, so the reports here are on the template and judge files).
FILE_CASES: dict[str, list[str]] = {
    "plot_noises": ["plot", "noises", FACTOR, *_F, "-o", "{out}.png"],
    "plot_judge": ["plot", "judge", JUDGE, "-o", "{out}.png"],
    "report_factor": ["report", FACTOR, *_F, "-o", "{out}.html"],
    "report_judge": ["report", JUDGE, "-o", "{out}.html"],
}


def write_factor_file(path: Path) -> None:
    """3 models x 60 questions x 4 templates x 2 runs of 0/1 scores from a logit crossed model,
    seeded (the generator of ``tests/test_verdicts_read_as_tables.py``'s ``templates``)."""
    rng = np.random.default_rng(7)
    n, t, k = 60, 4, 2
    u, v = rng.normal(0, 1, n), rng.normal(0, 0.3, t)
    rows = []
    for model, shift in (("alpha", 0.4), ("beta", 0.0), ("gamma", 0.1)):
        p = 1 / (1 + np.exp(-(shift + u[:, None] + v[None, :] + rng.normal(0, 0.4, (1, t)))))
        y = rng.random((n, t, k)) < p[:, :, None]
        q, tt, r = np.meshgrid(range(n), range(t), range(k), indexing="ij")
        rows.append(
            pd.DataFrame(
                {
                    "model": model,
                    "question": q.ravel(),
                    "template": [f"t{i}" for i in tt.ravel()],
                    "run": r.ravel(),
                    "score": y.ravel().astype(int),
                }
            )
        )
    pd.concat(rows).to_csv(path, index=False)


def run(argv: list[str]) -> tuple[int, str, str]:
    """``bayesnoise <argv>`` in this process, from the repository root: (exit status, standard
    output, standard error). The progress display is off: it depends on the elapsed time."""
    from bayesnoise.cli import main

    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.chdir(ROOT),
        mock.patch("bayesnoise._progress.Progress._write", lambda self, text: None),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            code = main(list(argv))
        except SystemExit as exit_:  # argparse: a usage error
            code = exit_.code
    return code, out.getvalue(), err.getvalue()


def table_argv(case: str) -> list[str]:
    """The command line of a table case, with ``--format csv``."""
    return [*CASES[case], "--format", "csv"]


def notes_text(code: int, err: str) -> str:
    """What ``<case>.txt`` holds: the exit status, then standard error's lines."""
    return f"exit status: {code}\n" + err


def main(names: list[str]) -> int:
    unknown = set(names) - set(CASES)
    if unknown:
        print(f"unknown case(s): {', '.join(sorted(unknown))}; known: {', '.join(CASES)}")
        return 2
    factor = ROOT / FACTOR
    if not factor.exists():
        write_factor_file(factor)
    for case in names or CASES:
        code, out, err = run(table_argv(case))
        if code not in (0, 1) or not out:  # 1: check shows a regression
            print(f"{case}: exit status {code}, no table\n{err}", file=sys.stderr)
            return 1
        (GOLDEN / f"{case}.csv").write_text(out)
        (GOLDEN / f"{case}.txt").write_text(notes_text(code, err))
        print(f"{case}: {out.count(chr(10)) - 1} rows")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
