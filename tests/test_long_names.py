"""Warnings stay one line of at most 200 characters whatever the names (issue 37, item 8).

Model names of 300 characters go through every command of the parser (as
``tests/test_stderr_lines.py`` runs them) on three small files built to reach as many warning
paths as they can: K = 1 (kappa and the data/prediction split not identified), K = 5 with a
deterministic model and an all-correct one (kappa at its bound, the deterministic note, the
Beta-shape check), and a prompt-template file (the crossed factor's warnings); plus the judge
table through ``judge`` and ``check``. What the command line prints is checked as printed,
``warning: `` included; the Python verbs' messages likewise.
"""

from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np
import pandas as pd
import pytest
from test_stderr_lines import COMMANDS, _argv

import bayesnoise as bn
from bayesnoise.cli import main

WIDTH = 200  # the promise of docs/warnings.md, written out (not the package's constant)
LONG = [("m" * 292) + f"-{c}-model" for c in "abcd"]  # 300 characters each
assert all(len(n) == 300 for n in LONG)


def _k1(tmp):
    rng = np.random.default_rng(1)
    rows = [
        (m, f"q{i}", int(rng.random() < 0.3 + 0.15 * j))
        for j, m in enumerate(LONG[:3])
        for i in range(60)
    ]
    path = tmp / "k1.csv"
    pd.DataFrame(rows, columns=["model", "example_id", "correct"]).to_csv(path, index=False)
    return path


def _k5(tmp):
    """Model 0 deterministic (each question all right or all wrong), model 1 all correct, models
    2 and 3 ordinary (question accuracies spread)."""
    rng = np.random.default_rng(2)
    n, k = 40, 5
    rows = []
    p = rng.beta(2, 2, n)
    for j, m in enumerate(LONG):
        for i in range(n):
            for s in range(k):
                if j == 0:
                    y = int(i % 3 == 0)
                elif j == 1:
                    y = 1
                else:
                    y = int(rng.random() < p[i])
                rows.append((m, f"q{i}", s, y))
    path = tmp / "k5.csv"
    pd.DataFrame(rows, columns=["model", "example_id", "sample", "correct"]).to_csv(
        path, index=False
    )
    return path


def _templates(tmp):
    rng = np.random.default_rng(3)
    rows = [
        (m, f"q{i}", f"t{t}", int(rng.random() < 0.4 + 0.1 * j))
        for j, m in enumerate(LONG[:3])
        for i in range(30)
        for t in range(3)
    ]
    path = tmp / "templates.csv"
    pd.DataFrame(rows, columns=["model", "question", "template", "score"]).to_csv(path, index=False)
    return path


def _judge(tmp):
    rng = np.random.default_rng(4)
    rows = []
    for j, m in enumerate(LONG[:2]):
        for i in range(80):
            y = int(rng.random() < 0.6 + 0.1 * j)
            judge = y if rng.random() < 0.85 else 1 - y
            rows.append((m, f"q{i}", judge, y if i < 30 else None))
    path = tmp / "judge.csv"
    pd.DataFrame(rows, columns=["model", "question", "judge_score", "human"]).to_csv(
        path, index=False
    )
    return path


FILES = {"k1": _k1, "k5": _k5}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("long")
    out = {key: make(tmp) for key, make in FILES.items()}
    out["templates"] = _templates(tmp)
    out["judge"] = _judge(tmp)
    return out


def _lines(argv) -> list[str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            main(argv)
        except SystemExit:  # a usage error of a command this table does not know
            pass
    return [x for x in err.getvalue().splitlines() if x.startswith("warning: ")]


def _check(lines):
    long = [(len(x), x) for x in lines if len(x) > WIDTH]
    assert not long, long
    assert all("\n" not in x for x in lines)


def _cases():
    for key in FILES:
        for command in COMMANDS:
            if command in ("columns", "reference", "report", "decision-accuracy"):
                continue  # no model names (columns, reference) or every figure (report: slow)
            yield pytest.param(key, command, id=f"{key}-{command}")


@pytest.mark.parametrize(("key", "command"), list(_cases()))
def test_cli_warnings_fit_one_line_with_300_character_names(files, key, command, tmp_path):
    models = LONG[:3] if key == "k1" else LONG
    argv = _argv(command, files[key], models, tmp_path)
    _check(_lines(argv))


@pytest.mark.parametrize(
    "argv",
    [
        ["noises", "--factor", "template"],
        ["noises", "--factor", "template", "--by", "pair"],
        ["compare", "--factor", "template"],
        ["pairs", "--factor", "template"],
        ["plan", "--factor", "template", "--target-se", "0.05"],
    ],
    ids=lambda a: "-".join(a[:1] + a[3:]),
)
def test_factor_warnings_fit_one_line(files, argv):
    _check(_lines([argv[0], str(files["templates"]), *argv[1:], "--no-progress"]))


@pytest.mark.parametrize("command", ["judge", "check"])
def test_judge_warnings_fit_one_line(files, command):
    extra = ["--baseline", LONG[0], "--candidate", LONG[1]] if command == "check" else []
    _check(_lines([command, str(files["judge"]), *extra, "--no-progress"]))


@pytest.mark.parametrize("verb", ["noise", "compare", "posterior", "pairs", "ranks", "signal"])
def test_python_warnings_fit_one_line(files, verb):
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        getattr(bn, verb)(files["k5"], progress=False)
    # the command line adds "warning: " (9 characters) before each message
    _check(["warning: " + str(w.message) for w in rec])
