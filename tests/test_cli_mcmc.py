"""``bayesnoise posterior --method mcmc`` run as a user runs it: a subprocess, progress display on.

These catch what in-process tests cannot: a dependency the progress bar needs but the package
does not declare (a fresh install crashed), progress written to standard output (which broke
``--format json > out.json``), and a missing optional sampler printed as a traceback.
"""

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import REPO

MODELS = ("alpha", "beta", "gamma")


@pytest.fixture
def samples_csv(tmp_path):
    """3 models x 60 questions, K = 5 samples each, one row per sample."""
    rng = np.random.default_rng(20)
    difficulty = rng.normal(0.0, 1.5, 60)
    rows = ["model,example_id,sample,correct"]
    for name, ability in zip(MODELS, (-0.5, 0.0, 0.8), strict=True):
        p = 1.0 / (1.0 + np.exp(-(ability - difficulty)))
        correct = rng.binomial(1, p[:, None], size=(60, 5))
        for q in range(60):
            rows += [f"{name},q{q},{s},{correct[q, s]}" for s in range(5)]
    path = tmp_path / "samples.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


def _run(args, tmp_path, code=None, terminal=True):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    if terminal:
        # make rich draw its live progress display as on a terminal, although stderr is a pipe
        env.update(TTY_COMPATIBLE="1", TTY_INTERACTIVE="1", COLUMNS="100")
    cmd = (
        [sys.executable, "-m", "bayesnoise", *args]
        if code is None
        else [sys.executable, "-c", code]
    )
    return subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=1800)


@pytest.mark.mcmc
@pytest.mark.parametrize("terminal", [True, False], ids=["terminal", "pipe"])
def test_posterior_mcmc_json_with_progress_on(samples_csv, tmp_path, terminal):
    args = ["posterior", str(samples_csv), "--method", "mcmc", "--draws", "100", "--tune", "100"]
    args += ["--chains", "1", "--format", "json"]  # no --no-progress: the progress display is on
    out = _run(args, tmp_path, terminal=terminal)
    assert out.returncode == 0, out.stderr[-3000:]
    records = json.loads(out.stdout)  # progress must not leak into standard output
    # every model, listed best first (the models' abilities rise alpha < beta < gamma; checked
    # on the file's own accuracies, which sort the table)
    table = pd.read_csv(samples_csv)
    best_first = table.groupby("model")["correct"].mean().sort_values(ascending=False)
    assert [r["model"] for r in records] == list(best_first.index)
    assert sorted(r["model"] for r in records) == sorted(MODELS)
    assert all(0.0 < r["mu_beta"] < 1.0 for r in records)


def test_missing_sampler_is_a_one_line_error(samples_csv, tmp_path):
    code = (
        "import importlib.util, sys\n"
        "real = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda name, *a, **k: (\n"
        "    None if name.split('.')[0] == 'nutpie' else real(name, *a, **k))\n"
        "from bayesnoise.cli import main\n"
        f"sys.exit(main(['posterior', {str(samples_csv)!r}, '--method', 'mcmc',\n"
        "                '--sampler', 'nutpie', '--draws', '100', '--tune', '100']))\n"
    )
    out = _run([], tmp_path, code=code, terminal=False)
    assert out.returncode == 2, out.stderr[-3000:]
    assert "Traceback" not in out.stderr
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "pip install 'bayesnoise[nutpie]'" in lines[0], out.stderr
    assert out.stdout == ""
