"""Every default table of every command fits 120 characters, and a cut table says so.

The cases run each command with its defaults on the bundled files (``examples/data``) and on a
generated 3 models x 200 questions x 4 templates file, in process (``bayesnoise.cli.main``),
and measure the widest line of standard output. Run this file as a script to print the
widths (the measurement behind issue 37's "tables too wide to read")::

    PYTHONPATH=. python tests/test_table_width.py
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "examples" / "data"
CRUX = str(DATA / "cruxeval_output_temp0.8.csv.gz")  # 8 models, 800 questions, K = 10
GRADED = str(DATA / "cruxeval_output_pass_rate.csv.gz")  # pass rates in [0, 1]
JUDGE = str(DATA / "judge_graded.csv")  # judge score and a subset of human labels
TEMPLATES = "TEMPLATES"  # the generated file (a placeholder replaced by its path)

#: The width every printed table keeps to (reporting.text.TABLE_WIDTH).
WIDTH = 120

#: (id, argv) of every command with its defaults; TEMPLATES is the 4-template file.
CASES = [
    ("noise", ["noise", CRUX]),
    ("pairs", ["pairs", CRUX]),
    ("arena", ["arena", CRUX]),
    ("compare", ["compare", CRUX]),
    ("compare-pair", ["compare", CRUX, "--by", "pair"]),
    ("posterior", ["posterior", CRUX]),
    ("posterior-pair", ["posterior", CRUX, "--by", "pair"]),
    ("ranks", ["ranks", CRUX]),
    ("power", ["power", CRUX]),
    ("passk", ["passk", CRUX, "--k", "5"]),
    ("questions", ["questions", CRUX]),
    ("leaderboard", ["leaderboard", CRUX]),
    ("decision-accuracy", ["decision-accuracy", CRUX, CRUX]),
    ("coverage", ["coverage", CRUX, "--n-resamples", "5"]),  # 50 by default: 45 s
    ("check", ["check", CRUX, "--baseline", "phind", "--candidate", "codellama-34b"]),
    ("monitor", ["monitor", CRUX, "--baseline", "phind", "--candidate", "codellama-34b"]),
    ("plan", ["plan", CRUX, "--difference", "0.03"]),
    ("rate", ["rate", CRUX]),
    ("rate-pair", ["rate", CRUX, "--by", "pair"]),
    ("reference", ["reference", "humaneval+"]),
    ("columns", ["columns"]),
    ("noise-graded", ["noise", GRADED]),
    ("rate-threshold", ["rate", GRADED, "--threshold", "0.5"]),
    ("threshold", ["threshold", GRADED, "--grid", "0.2:0.8:0.2"]),
    ("judge", ["judge", JUDGE]),
    ("judge-pair", ["judge", JUDGE, "--by", "pair"]),
    (
        "check-judge",
        [
            "check",
            JUDGE,
            "--baseline",
            "model_a",
            "--candidate",
            "model_b",
            "--judge-col",
            "judge_score",
        ],
    ),
    ("noises-factor", ["noises", TEMPLATES, "--factor", "template"]),
    ("noises-factor-pair", ["noises", TEMPLATES, "--factor", "template", "--by", "pair"]),
    ("pairs-factor", ["pairs", TEMPLATES, "--factor", "template"]),
    ("compare-factor", ["compare", TEMPLATES, "--factor", "template"]),
    ("plan-factor", ["plan", TEMPLATES, "--factor", "template", "--target-se", "0.02"]),
    (
        "check-factor",
        ["check", TEMPLATES, "--factor", "template", "--baseline", "m0", "--candidate", "m1"],
    ),
]


def templates_frame(rng: int = 0) -> pd.DataFrame:
    """3 models x 200 questions x 4 templates, one 0/1 score per cell (seeded)."""
    g = np.random.default_rng(rng)
    q = g.normal(0.0, 1.5, 200)
    t = g.normal(0.0, 0.3, 4)
    rows = []
    for m, shift in enumerate((0.0, 0.2, 0.5)):
        for i in range(200):
            for j in range(4):
                p = 1 / (1 + np.exp(-(q[i] + t[j] + shift)))
                rows.append((f"m{m}", f"q{i:03d}", f"t{j}", int(g.random() < p)))
    return pd.DataFrame(rows, columns=["model", "question", "template", "score"])


def write_templates(folder: Path) -> str:
    path = folder / "templates.csv"
    templates_frame().to_csv(path, index=False)
    return str(path)


def run(argv: list[str]) -> tuple[str, str, int]:
    """(stdout, stderr, status) of ``bayesnoise ARGV --no-progress`` run in process."""
    from bayesnoise.cli import main

    if argv[0] not in ("reference", "columns"):
        argv = [*argv, "--no-progress"]
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        try:
            status = main(argv)
        except SystemExit as exit:  # argparse: a usage error
            status = exit.code
    return out.getvalue(), err.getvalue(), status


def widest(text: str) -> int:
    return max((len(line) for line in text.splitlines()), default=0)


@pytest.fixture(scope="module")
def templates(tmp_path_factory) -> str:
    return write_templates(tmp_path_factory.mktemp("width"))


#: A cut table's note: "... N of M rows shown ... --all-rows ..." (reporting.text.cut_note).
CUT = re.compile(r"(\d[\d,]*) of (\d[\d,]*) rows shown.*--all-rows")


#: Cases with more rows than a table shows (800 questions, 800 steps): their note must say so.
LONG = {"questions", "monitor"}


def table_lines(name: str, out: str) -> list[str]:
    """The lines of the printed table(s): ``check`` ends with its verdict, a sentence."""
    lines = out.splitlines()
    return lines[:-1] if name.startswith("check") else lines


@pytest.mark.parametrize(("name", "argv"), CASES, ids=[c[0] for c in CASES])
def test_every_default_table_fits_and_says_what_it_cut(name, argv, templates):
    from bayesnoise.reporting.text import TABLE_ROWS

    argv = [templates if a == TEMPLATES else a for a in argv]
    out, err, status = run(argv)
    assert status in (0, 1), f"{name}: exit {status}: {err[-500:]}"
    lines = table_lines(name, out)
    assert widest("\n".join(lines)) <= WIDTH, f"{name}: {widest(out)} wide:\n{out[:3000]}"
    first = []  # the first table: up to a blank line or the notes below it
    for line in lines:
        if not line or re.match(r"\d[\d,]* (of|more)", line):
            break
        first.append(line)
    cut = CUT.search(" ".join(out.split()))
    if name in LONG or len(first) - 1 >= TABLE_ROWS:
        assert cut, f"{name}: {len(first) - 1} rows printed and no note saying what was cut"
        shown, total = (int(g.replace(",", "")) for g in cut.groups())
        assert shown == TABLE_ROWS == len(first) - 1 and total > shown
    if name == "columns":  # a listing, not a table: never cut
        assert not cut


def test_all_rows_and_all_columns_print_everything(templates):
    out, _, _ = run(["questions", CRUX, "--all-rows"])
    assert not CUT.search(out) and len(out.splitlines()) == 801  # 800 questions and a header
    out, _, _ = run(["noises", templates, "--factor", "template", "--all-columns"])
    assert "more column" not in out and "runs_per_cell" in out
    assert widest(out) <= WIDTH  # every column, wrapped into blocks
    out, _, _ = run(["noises", templates, "--factor", "template"])
    assert "runs_per_cell" in out.split("more column")[1]  # named in the note


def test_factor_tables_print_each_model_once_and_csv_keeps_every_column(templates):
    out, _, _ = run(["noises", templates, "--factor", "template"])
    per_model, components = out.split("\nmodel component")
    assert [line.split()[0] for line in per_model.splitlines()[1:4]] == ["m2", "m1", "m0"]
    assert "component" not in per_model  # the per-model columns once per model
    assert len(components.strip().splitlines()) == 1 + 3 * 3  # 3 models x 3 components
    csv, _, _ = run(["noises", templates, "--factor", "template", "--format", "csv"])
    table = pd.read_csv(io.StringIO(csv))
    import bayesnoise as bn

    assert list(table.columns) == list(bn.tidy(bn.noises(templates, factors="template")).columns)
    assert len(table) == 9


def main() -> None:  # the measurement, as a table of widths
    import tempfile
    import time

    with tempfile.TemporaryDirectory() as folder:
        path = write_templates(Path(folder))
        print(f"{'case':<22} {'width':>6} {'lines':>6} {'s':>6}")
        for name, argv in CASES:
            argv = [path if a == TEMPLATES else a for a in argv]
            start = time.perf_counter()
            out, err, status = run(argv)
            took = time.perf_counter() - start
            mark = "" if status in (0, 1) else f"  exit {status}: {err.strip()[-120:]}"
            print(f"{name:<22} {widest(out):>6} {len(out.splitlines()):>6} {took:>6.1f}{mark}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
