"""Factor columns (prompt template, run, judge) read as dims, never pooled as samples (issue 31)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import bayesnoise as bn
from bayesnoise.data import DataError


def _table(with_run: bool = True) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    rows = [
        (m, f"q{q}", t, r, int(rng.random() < 0.6))
        for m in ("A", "B")
        for q in range(4)
        for t in ("t1", "t2", "t3")
        for r in range(2 if with_run else 1)
    ]
    df = pd.DataFrame(rows, columns=["model", "question", "template", "run", "score"])
    return df if with_run else df.drop(columns="run")


def test_factor_becomes_a_dim_with_the_sums_per_cell():
    df = _table()
    ds = bn.load(df, factors=["template"])
    assert ds["correct"].dims == ("model", "question", "template")
    assert ds.attrs["factors"] == ["template"]
    # brute force: the sum of scores per (model, question, template); runs are the samples
    want = df.groupby(["model", "question", "template"])["score"].sum()
    for (m, q, t), value in want.items():
        assert ds["correct"].sel(model=m, question=q, template=t).item() == value
    assert (ds["samples"] == 2).all()


def test_two_factors_and_missing_cells():
    df = _table().iloc[1:]  # drop one (A, q0, t1, run 0) row
    ds = bn.load(df, factors=["template", "run"])
    assert ds["samples"].dims == ("model", "question", "template", "run")
    assert int(ds["samples"].sum()) == len(df)
    assert int((ds["samples"] == 0).sum()) == 1


def test_duplicate_rows_name_the_factor_before_the_sample_column():
    df = _table(with_run=False)
    with pytest.raises(DataError, match=r"--factor template") as err:
        bn.load(df)
    text = str(err.value)
    assert text.index("--factor template") < text.index("columns={'sample'")


def test_other_commands_refuse_a_factor_dataset_and_name_noises():
    df = _table()
    with pytest.raises(DataError, match=r"bayesnoise noises --factor template"):
        bn.noise(df, factors=["template"])
    with pytest.raises(DataError, match=r"bayesnoise noises --factor template.*--method mcmc"):
        bn.posterior(bn.load(df, factors=["template"]))
    # pairs / compare / check model the factor (tests/test_factor_pairs.py)


def test_unknown_factor_column_is_named():
    with pytest.raises(DataError, match=r"no such column"):
        bn.load(_table(), factors=["prompt"])


def test_evalstats_layout_without_a_mapping():
    df = _table().rename(columns={"question": "input", "template": "prompt"})
    df["evaluator"] = "exact"
    ds = bn.load(df)
    assert ds["correct"].dims == ("model", "question", "prompt", "evaluator")
    assert (ds["samples"] == 2).all()  # run = the replicate (sample) column


def test_factor_dataset_round_trips_through_netcdf(tmp_path):
    ds = bn.load(_table(), factors=["template"])
    path = bn.save(ds, tmp_path / "f.nc")
    xr.testing.assert_identical(bn.load(path), ds)


def _inspect_logs(folder, rng):
    import json

    for model in ("a", "b"):
        for template in ("plain", "cot", "json"):
            log = {
                "version": 2,
                "status": "success",
                "eval": {
                    "task": "quiz",
                    "model": model,
                    "config": {"epochs": 2},
                    "task_args": {"template": template},
                },
                "samples": [
                    {
                        "id": i,
                        "epoch": e,
                        "scores": {"match": {"value": "C" if rng.random() < 0.6 else "I"}},
                    }
                    for i in range(6)
                    for e in (1, 2)
                ],
            }
            (folder / f"{model}_{template}.json").write_text(json.dumps(log))


def test_inspect_logs_of_prompt_variants(tmp_path):
    rng = np.random.default_rng(8)
    _inspect_logs(tmp_path, rng)
    with pytest.raises(DataError, match=r"factors=\[.template.\]"):
        bn.load(tmp_path)
    ds = bn.load(tmp_path, factors=["template"])
    assert ds["correct"].dims == ("model", "question", "template")
    assert (ds["samples"] == 2).all()  # the epochs are the runs of a cell
    # brute force: re-read the scores from the JSON files
    import json

    for path in tmp_path.glob("*.json"):
        log = json.loads(path.read_text())
        model, template = log["eval"]["model"], log["eval"]["task_args"]["template"]
        for i in range(6):
            want = sum(s["scores"]["match"]["value"] == "C" for s in log["samples"] if s["id"] == i)
            got = ds["correct"].sel(model=model, question=str(i), template=template).item()
            assert got == want


def _clustered(df: pd.DataFrame, column: str = "topic") -> pd.DataFrame:
    return df.assign(**{column: df["question"].map({"q0": "a", "q1": "a", "q2": "b", "q3": "b"})})


def _says_what_to_do(text: str, where: str, column: str) -> None:
    assert text.startswith(f"{where}: questions in clusters (column {column!r})")
    assert "the factor 'template'" in text
    assert "bayesnoise noises --factor template" in text and "--by pair" in text
    assert "model x template interaction" in text
    assert "load without --factor" in text


@pytest.mark.parametrize(
    "command",
    [
        ["noises"],
        ["noises", "--by", "pair"],
        ["pairs"],
        ["compare", "--by", "pair"],
        ["check", "--baseline", "B", "--candidate", "A"],
        ["plan", "--target-se", "0.05"],
        ["report", "-o", "r.html"],
        ["plot", "noises", "-o", "n.png"],
    ],
)
@pytest.mark.parametrize("column", ["topic", "cluster"])  # asked for, or found by its name
def test_clusters_on_factor_data_are_an_error_not_left_out(tmp_path, capsys, command, column):
    from bayesnoise.cli import main

    path = tmp_path / "t.csv"
    _clustered(_table(), column).to_csv(path, index=False)
    asked = ["--cluster-col", column] if column != "cluster" else []
    args = [*command[:2], str(path)] if command[0] == "plot" else [command[0], str(path)]
    rest = command[2:] if command[0] == "plot" else command[1:]
    rest = [str(tmp_path / a) if a.endswith((".html", ".png")) else a for a in rest]
    assert main([*args, *rest, "--factor", "template", *asked]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and len(err.strip().splitlines()) == 1
    _says_what_to_do(err.removeprefix("error: ").strip(), str(path), column)
    assert not list(tmp_path.glob("*.html")) and not list(tmp_path.glob("*.png"))


def test_a_loaded_dataset_with_clusters_and_a_factor_is_refused_by_every_factor_verb(tmp_path):
    # a Dataset built elsewhere (or saved before the check) reaches the verbs without the
    # reader: the verbs refuse it too, where the cluster columns used to be dropped silently
    ds = bn.load(_table(), factors=["template"])
    ds = ds.assign_coords(cluster=("question", ["a", "a", "b", "b"]))
    ds.attrs["source"] = "built.nc"
    calls = [
        lambda: bn.noises(ds),
        lambda: bn.noises(ds, by="pair"),
        lambda: bn.pairs(ds),
        lambda: bn.compare(ds, by="pair"),
        lambda: bn.check(ds, baseline="B", candidate="A", factors=["template"]),
        lambda: bn.plan(ds, factors=["template"], target_se=0.05),
        lambda: bn.plot.noises(ds),
        lambda: bn.report(ds, output=tmp_path / "r.html", factors=["template"]),
    ]
    for call in calls:
        with pytest.raises(DataError) as err:
            call()
        _says_what_to_do(str(err.value), "built.nc", "cluster")


@pytest.mark.filterwarnings("ignore::UserWarning")  # 4 questions in 2 clusters
def test_the_advice_works_clusters_on_one_template(tmp_path):
    # the error's second way out: one template at a time, without --factor, keeps the clusters
    from bayesnoise.cli import main

    path = tmp_path / "t1.csv"
    one = _clustered(_table()).query("template == 't1'").drop(columns="template")
    one.to_csv(path, index=False)
    assert main(["pairs", str(path), "--cluster-col", "topic", "--format", "csv"]) == 0
    pairs = bn.pairs(path, cluster_col="topic")
    assert np.isfinite(pairs["se_clustered"].values).all()
    # and the first: the same file with its template column and no clusters
    full = tmp_path / "all.csv"
    _table().to_csv(full, index=False)
    assert int(bn.pairs(full, factors=["template"])["templates"].values[0]) == 3
