"""The command line on the bundled data: columns, formats, errors."""

import io
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from bayesnoise.cli import main
from bayesnoise.verbs._inputs import by_accuracy

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
    "se_difference",
    "z",
    "p_value",
    "p_value_adjusted",
    "p_value_sign_questions",
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
    boot = _csv(
        capsys, "pairs", crux, "--n-resamples", "200", "--resampling", "bootstrap", "--rng", "3"
    )
    assert list(boot.columns) == [*PAIRS, "se_bootstrap"]


def test_pairs_adjust_permutations_and_one_pair(capsys, crux):
    from bayesnoise.decide import adjust_pvalues

    full = _csv(capsys, "pairs", crux)
    # Holm over all 28 pairs, also when --max-difference then keeps a few of them
    close = _csv(capsys, "pairs", crux, "--max-difference", "0.01")
    np.testing.assert_allclose(full["p_value_adjusted"], adjust_pvalues(full["p_value"], "holm"))
    kept = full.set_index(["model_a", "model_b"]).loc[
        list(zip(close.model_a, close.model_b, strict=True))
    ]
    np.testing.assert_array_equal(close["p_value_adjusted"], kept["p_value_adjusted"])
    bh = _csv(capsys, "pairs", crux, "--adjust", "bh")
    np.testing.assert_allclose(bh["p_value_adjusted"], adjust_pvalues(full["p_value"], "bh"))
    none = _csv(capsys, "pairs", crux, "--adjust", "none")
    assert "p_value_adjusted" not in none.columns
    more = _csv(
        capsys,
        "pairs",
        crux,
        "--n-resamples",
        "99",
        "--resampling",
        "permutation",
        "--one-sample-tests",
    )
    assert list(more.columns) == [
        *PAIRS[:-1],
        "p_value_permutation",
        "p_value_sign_one_sample",
        "p_value_mcnemar_one_sample",
        PAIRS[-1],
    ]
    # the smallest attainable permutation p-value is 1 / (B + 1)
    assert more["p_value_permutation"].between(1 / 100, 1).all()
    one = _csv(capsys, "pairs", crux, "--pair", "mixtral-8x7b", "deepseek-base-6.7b")
    row = full[(full.model_a == "deepseek-base-6.7b") & (full.model_b == "mixtral-8x7b")].iloc[0]
    assert len(one) == 1 and one["difference"][0] == pytest.approx(-row["difference"], rel=1e-12)
    # a single pre-specified pair is a family of one
    assert one["p_value_adjusted"][0] == pytest.approx(row["p_value"], rel=1e-9)
    assert main(["pairs", crux, "--pair", "mixtral-8x7b", "nobody"]) == 2
    assert "no model 'nobody'" in capsys.readouterr().err


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


def _loaded(*argv: str) -> set[str]:
    """The modules a fresh ``python`` holds after ``import bayesnoise`` (no ``argv``) or after
    running ``bayesnoise *argv`` (this tree's package, from the repository root)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    run = (
        "import bayesnoise"
        if not argv
        else "import runpy; runpy.run_module('bayesnoise', run_name='__main__')"
    )
    code = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.__stderr__.write('MODULES ' + ' '.join(sys.modules) + '\\n'))\n"
        f"sys.argv = ['bayesnoise', *{list(argv)!r}]\n{run}\n"
    )
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, env=env
    )
    line = next(x for x in out.stderr.splitlines() if x.startswith("MODULES "))
    return set(line.split()[1:])


def test_import_and_version_load_no_numerics():
    """``import bayesnoise`` loads no numpy (PEP 562); ``--version`` builds the parser of
    every command without pandas, xarray or scipy (the verbs are named, imported when run)."""
    assert "numpy" not in _loaded()
    loaded = _loaded("--version")
    assert not {"numpy", "pandas", "xarray", "scipy"} & loaded
    assert not [
        m for m in loaded if m.startswith("bayesnoise.verbs.") and m != "bayesnoise.verbs.choices"
    ]


def test_noise_imports_only_what_it_runs():
    """``bayesnoise noise`` imports its verb's modules: no figures (matplotlib), no PyMC, no
    HTML report (the package's only jinja2 user; xarray's dask may load jinja2 on its own)."""
    loaded = _loaded("noise", "examples/data/cruxeval_output_temp0.8.csv.gz")
    assert "bayesnoise.verbs.tables" in loaded  # it ran
    unused = {
        "matplotlib",
        "pymc",
        "bayesnoise.plots",
        "bayesnoise.reporting.html",
        "bayesnoise.mcmc",
    }
    assert not unused & loaded
    assert not [
        m for m in loaded if m.startswith(("bayesnoise.verbs.judge", "bayesnoise.verbs.plot"))
    ]


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
    """`compare --by pair` used to print each warning twice, with internal file:line."""
    path = tmp_path / "k1.csv"
    rows = ["model,example_id,sample,correct"]
    rows += [f"{m},q{i},0,{(i * (j + 3)) % 2}" for j, m in enumerate("abc") for i in range(60)]
    path.write_text("\n".join(rows) + "\n")
    assert main(["compare", str(path), "--by", "pair"]) == 0
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


@pytest.mark.parametrize(
    ("extra", "library"),
    [
        ((), lambda ds: __import__("bayesnoise").frequentist.passk_table(ds, 3)),
        (("--by", "pair"), lambda ds: __import__("bayesnoise").frequentist.passk_pairs(ds, 3)),
        (
            ("--method", "bayes", "--confidence-level", "0.95"),
            lambda ds: __import__("bayesnoise").conjugate.posterior_passk_table(
                ds, 3, confidence_level=0.95, rng=0
            ),
        ),
    ],
)
def test_passk_prints_the_library_table(capsys, crux, extra, library):
    from bayesnoise import load

    df = _csv(capsys, "passk", crux, "--k", "3", *extra)
    expected = library(by_accuracy(load(crux)))  # the commands list the best model first
    assert list(df.columns) == list(expected.columns)
    for col in expected.columns:
        if expected[col].dtype.kind == "f":
            # the CSV prints 4 significant digits
            np.testing.assert_allclose(df[col], expected[col], rtol=5e-4, atol=1e-12)
        else:
            assert df[col].astype(str).tolist() == expected[col].astype(str).tolist()


def test_passk_k_larger_than_samples_is_an_error(capsys, crux):
    assert main(["passk", crux, "--k", "11"]) == 2
    err = capsys.readouterr().err
    assert "k = 11 but only 10 samples" in err and "choose k <= 10" in err


def test_cluster_col_adds_the_clustered_columns(capsys, tmp_path):
    from bayesnoise import decide, frequentist, load

    rng = np.random.default_rng(11)
    n_clusters, size, k = 30, 4, 3
    cluster_effect = np.repeat(rng.normal(0, 1, n_clusters), size)
    rows = []
    for m, shift in enumerate((0.0, 0.2, -0.1)):
        u = 1 / (1 + np.exp(-(cluster_effect + rng.normal(0, 0.5, n_clusters * size) + shift)))
        for q in range(n_clusters * size):
            for s in range(k):
                rows.append((f"m{m}", f"q{q}", s, int(rng.random() < u[q]), f"c{q // size}"))
    path = tmp_path / "grouped.csv"
    pd.DataFrame(rows, columns=["model", "example_id", "sample", "correct", "topic"]).to_csv(
        path, index=False
    )
    ds = by_accuracy(load(path, columns={"cluster": "topic"}))  # as the commands order models
    noise = _csv(capsys, "noise", str(path), "--cluster-col", "topic")
    expected = frequentist.cluster_noise(ds, "cluster")
    assert list(noise.columns[-4:]) == ["clusters", "se_clustered", "design_effect", "icc"]
    np.testing.assert_allclose(noise["se_clustered"], expected["se_clustered"], rtol=5e-4)
    expected = frequentist.cluster_pair_noise(ds, "cluster")
    cut = str(np.median(np.abs(expected["difference"])))  # keeps 2 of the 3 pairs
    pairs = _csv(capsys, "pairs", str(path), "--cluster-col", "topic", "--max-difference", cut)
    adjusted = decide.adjust_pvalues(expected["p_value"], "holm")  # over all 3 pairs
    merged = pairs.merge(expected.assign(adj=adjusted), on=["model_a", "model_b"])
    assert len(merged) == len(pairs) == 2
    np.testing.assert_allclose(merged["p_value_clustered"], merged["p_value_y"], rtol=5e-4)
    np.testing.assert_allclose(merged["p_value_clustered_adjusted"], merged["adj"], rtol=5e-4)


@pytest.mark.parametrize("method", ["max-t", "bonferroni"])
def test_pairs_simultaneous_columns_come_from_all_pairs(capsys, crux, method):
    from bayesnoise import decide, load

    df = _csv(
        capsys,
        "pairs",
        crux,
        "--simultaneous",
        method,
        "--confidence-level",
        "0.95",
        "--max-difference",
        "0.01",
    )
    expected = decide.simultaneous_intervals(
        by_accuracy(load(crux)), method=method, rng=0
    )  # pairs oriented as the command prints them: higher accuracy minus lower
    merged = df.merge(expected, on=["model_a", "model_b"], suffixes=("", "_lib"))
    assert 0 < len(merged) == len(df) < len(expected)  # filtered rows, intervals from all 28
    for col in ("simultaneous_low", "simultaneous_high", "p_value_simultaneous"):
        np.testing.assert_allclose(merged[col], merged[f"{col}_lib"], rtol=5e-4, atol=1e-12)


def test_parser_choices_are_the_verbs():
    """The parser's choices (``verbs.choices``, importing nothing) are what the verbs accept."""
    from bayesnoise.verbs import choices, plot

    assert choices.PLOT_KINDS == tuple(plot.KINDS)
    assert choices.PLOT_STATISTICS == plot.STATISTICS
