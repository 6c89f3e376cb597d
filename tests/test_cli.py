"""The command line on the bundled data: columns, formats, errors."""

import io
import json
import subprocess
import sys

import pandas as pd
import pytest

from bayesnoise.cli import main

NOISE = [
    "model",
    "questions",
    "samples_per_question",
    "accuracy",
    "se_total",
    "se_data",
    "se_prediction",
    "se_mean",
]
PAIRS = [
    "model_a",
    "model_b",
    "accuracy_a",
    "accuracy_b",
    "difference",
    "se_total",
    "se_data",
    "se_prediction",
    "se_mean",
    "z",
    "p_sign_test",
    "p_mcnemar",
    "correlation",
]
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
    # a Wilson-type score interval: at N = 800 within 1% of the Wald width 2 z se_mean
    ratio = (df["accuracy_high"] - df["accuracy_low"]) / (2 * 1.6448536 * df["se_mean"])
    assert ratio.between(0.99, 1.01).all()


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
    with pytest.raises(SystemExit) as exit_info:  # argparse rejects it before any work
        main(["noise", str(bad), "--confidence-level", "1.5"])
    assert exit_info.value.code == 2
    assert "--confidence-level: must be in (0, 1), got 1.5" in capsys.readouterr().err


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


# --- defects of the architecture issue, each reproduced first --------------------------------


def _one_model(tmp_path):
    path = tmp_path / "one.csv"
    rows = ["model,example_id,count,correct"] + [f"only,q{i},4,{i % 5}" for i in range(40)]
    path.write_text("\n".join(rows) + "\n")
    return str(path)


def test_pairs_on_one_model_is_an_error(capsys, tmp_path):
    assert main(["pairs", _one_model(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "pairs need at least two models" in err and "only" in err


@pytest.mark.parametrize(
    ("suffix", "check"),
    [
        (".csv", lambda text: pd.read_csv(io.StringIO(text)).columns.tolist()[:2] == NOISE[:2]),
        (".tsv", lambda text: text.split("\n")[0].split("\t")[:2] == NOISE[:2]),
        (".json", lambda text: list(json.loads(text)[0])[:2] == NOISE[:2]),
        (".txt", lambda text: text.split()[:2] == NOISE[:2] and "," not in text.split("\n")[0]),
    ],
)
def test_output_format_follows_the_extension(crux, tmp_path, suffix, check):
    out = tmp_path / f"result{suffix}"
    assert main(["noise", crux, "--output", str(out)]) == 0
    assert check(out.read_text())


def test_explicit_format_wins_and_unknown_extension_is_refused(crux, tmp_path, capsys):
    out = tmp_path / "result.csv"
    assert main(["noise", crux, "--output", str(out), "--format", "json"]) == 0
    assert json.loads(out.read_text())[0]["model"]
    with pytest.raises(SystemExit) as exit_info:
        main(["noise", crux, "--output", str(tmp_path / "result.xlsx")])
    assert exit_info.value.code == 2
    assert "cannot tell the output format" in capsys.readouterr().err


def test_version(capsys):
    import bayesnoise

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"bayesnoise {bayesnoise.__version__}"


def test_warnings_once_without_file_and_line(capsys, tmp_path):
    """`compare --pairs` used to print each warning twice, with internal file:line."""
    path = tmp_path / "k1.csv"
    rows = ["model,example_id,sample,correct"]
    rows += [f"{m},q{i},0,{(i * (j + 3)) % 2}" for j, m in enumerate("abc") for i in range(60)]
    path.write_text("\n".join(rows) + "\n")
    assert main(["compare", str(path), "--pairs"]) == 0
    lines = [x for x in capsys.readouterr().err.splitlines() if x]
    assert lines, "K = 1 data must warn that kappa is assumed"
    assert all(x.startswith("warning: ") for x in lines)
    assert len(lines) == len(set(lines))
    assert not any(".py:" in x for x in lines)


def test_bad_input_is_exit_2_but_bugs_are_not_hidden(monkeypatch, crux):
    """Only input errors become 'error: ...' with exit 2; an internal bug keeps its traceback."""
    from bayesnoise import frequentist

    def broken(*args, **kwargs):
        raise ValueError("internal bug")

    monkeypatch.setattr(frequentist, "model_noise", broken)
    with pytest.raises(ValueError, match="internal bug"):
        main(["noise", crux])
