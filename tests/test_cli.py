"""The command line on the bundled data: columns, formats, errors."""

import io
import json
import subprocess
import sys

import pandas as pd
import pytest

from bayesnoise.cli import main

NOISE = ["model", "questions", "samples_per_question", "accuracy", "se_total", "se_data",
         "se_prediction", "se_mean"]  # fmt: skip
PAIRS = ["model_a", "model_b", "accuracy_a", "accuracy_b", "difference", "se_total", "se_data",
         "se_prediction", "se_mean", "z", "p_sign_test", "p_mcnemar", "correlation"]  # fmt: skip
ARENA = ["benchmark", "models", "questions", "p5_min", "p5_max", "p5_min_count", "p5_max_count"]


@pytest.fixture
def crux(bundled_data):
    return str(bundled_data / "cruxeval_output_temp0.8.csv.gz")


def _csv(capsys, *args, err=None):
    assert main([*args, "--format", "csv"]) == 0
    captured = capsys.readouterr()
    if err is not None:
        err.append(captured.err)
    return pd.read_csv(io.StringIO(captured.out))


def test_noise_columns(capsys, crux):
    df = _csv(capsys, "noise", crux)
    assert list(df.columns) == NOISE and len(df) == 8
    assert (df["samples_per_question"] == 10).all()
    df = _csv(capsys, "noise", crux, "--confidence-level", "0.9")
    assert list(df.columns) == [*NOISE, "accuracy_low", "accuracy_high"]
    assert (
        ((df["accuracy_high"] - df["accuracy_low"]) / df["se_mean"])
        .round(6)
        .eq(round(2 * 1.6448536, 6))
        .all()
    )


def test_pairs_columns_and_filter(capsys, crux):
    df = _csv(capsys, "pairs", crux)
    assert list(df.columns) == PAIRS and len(df) == 28
    close = _csv(capsys, "pairs", crux, "--max-difference", "0.01")
    assert 0 < len(close) < 28 and (close["difference"].abs() <= 0.01).all()
    boot = _csv(capsys, "pairs", crux, "--bootstrap", "200", "--seed", "3")
    assert list(boot.columns) == [*PAIRS, "se_bootstrap"]


def test_arena_json_and_output_file(capsys, crux, tmp_path):
    out = tmp_path / "arena.json"
    assert main(["arena", crux, "--format", "json", "--output", str(out)]) == 0
    records = json.loads(out.read_text())
    assert list(records[0]) == ARENA and records[0]["questions"] == 800


def test_k1_leaves_split_empty(capsys, tmp_path):
    path = tmp_path / "k1.csv"
    path.write_text(
        "model,example_id,count,correct\n" + "".join(f"a,q{i},1,{i % 2}\n" for i in range(40))
    )
    err = []
    df = _csv(capsys, "noise", str(path), err=err)
    assert df["se_data"].isna().all() and df["se_total"].notna().all()
    assert (
        err[0].startswith("warning: data/prediction split not identifiable") and "K = 1" in err[0]
    )


def test_errors_exit_2_with_message(capsys, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("model,example_id,count,correct\na,q1,4,5\n")
    assert main(["noise", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "bad.csv, line 2" in err and "exceeds count=4" in err
    assert main(["noise", "nope.csv"]) == 2
    assert main(["noise", str(bad), "--confidence-level", "1.5"]) == 2


def test_table_format_and_module_entry(crux):
    run = subprocess.run(
        [sys.executable, "-m", "bayesnoise", "noise", crux],
        capture_output=True,
        text=True,
        check=True,
    )
    assert run.stdout.splitlines()[0].split() == NOISE


def test_import_does_not_load_pymc():
    code = "import sys, bayesnoise, bayesnoise.frequentist, bayesnoise.cli; sys.exit('pymc' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
