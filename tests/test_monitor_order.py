"""``monitor``'s replay order and empty sequences (issue 28 item 2): the default seeded random
order (the same for any listing of the same questions), ``order="file"`` with its one-line
warning, an empty confidence sequence as a DataError (never blank cells), and the ever-reject
rate on null logs sorted by outcome (the full study: ``studies/monitor_order.py``,
``benchmarks/results/monitor_order.md``)."""

import warnings

import numpy as np
import pandas as pd
import pytest

import bayesnoise as bn
from bayesnoise.cli import main
from bayesnoise.data import DataError, from_arrays
from bayesnoise.decide.sequential import always_valid_pvalues
from studies.ci_decisions import population

ALPHA = 0.05


def _issue_file(path):
    """The issue's log: 20 tied questions (both fail), then 30 the baseline wins (K = 1)."""
    rows = []
    for i in range(50):
        rows.append({"model": "base", "example_id": f"q{i:02d}", "correct": int(i >= 20)})
        rows.append({"model": "cand", "example_id": f"q{i:02d}", "correct": 0})
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _ds(c, k, ids):
    return from_arrays(c, np.full(c.shape, k), models=["base", "cand"], questions=ids)


def test_default_order_is_a_seeded_permutation_of_the_ids():
    rng = np.random.default_rng(1)
    n = 40
    c = rng.binomial(3, 0.6, size=(2, n))
    ids = np.array([f"q{i:02d}" for i in range(n)])
    listing = rng.permutation(n)  # the file lists the questions in some order
    r = bn.monitor(_ds(c[:, listing], 3, ids[listing]), baseline="base", candidate="cand",
                   stop=False, rng=7, progress=False)  # fmt: skip
    expected = np.random.default_rng(7).permutation(n)  # of the ids sorted
    assert r["question"].values.tolist() == ids[expected].tolist()
    d = (c[1] - c[0])[expected] / 3
    np.testing.assert_allclose(r["p_value_always_valid"], always_valid_pvalues(d)[0])
    assert r.attrs["order"] == "random" and r.attrs["rng"] == 7
    again = bn.monitor(_ds(c, 3, ids), baseline="base", candidate="cand", stop=False,
                       rng=7, progress=False)  # fmt: skip
    assert again["question"].values.tolist() == r["question"].values.tolist()
    other = bn.monitor(_ds(c, 3, ids), baseline="base", candidate="cand", stop=False,
                       rng=8, progress=False)  # fmt: skip
    assert other["question"].values.tolist() != r["question"].values.tolist()


def test_file_order_warns_once_in_one_line(tmp_path):
    f = _issue_file(tmp_path / "log.csv")
    with pytest.warns(UserWarning) as caught:
        r = bn.monitor(f, baseline="base", candidate="cand", order="file", progress=False)
    assert len(caught) == 1
    text = str(caught[0].message)
    assert "file order" in text and "\n" not in text and len(text) <= 200
    assert r.attrs["order"] == "file" and r.attrs["rng"] is None
    assert r["question"].values[0] == "q00"


def test_an_empty_sequence_is_an_error_never_blank_cells(tmp_path, capsys):
    f = _issue_file(tmp_path / "log.csv")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(DataError, match="confidence sequence is empty") as err:
            bn.monitor(f, baseline="base", candidate="cand", order="file", stop=False)
    assert "sorted by outcome" in str(err.value)
    argv = ["monitor", str(f), "--baseline", "base", "--candidate", "cand", "--no-stop"]
    assert main([*argv, "--order", "file", "--every", "5"]) == 2
    out = capsys.readouterr()
    errors = [line for line in out.err.splitlines() if line.startswith("error:")]
    assert out.out == "" and len(errors) == 1 and "empty" in errors[0]
    # the default replays the same file in random order: every cell filled
    assert main([*argv, "--every", "5", "--format", "csv", "--rng", "3"]) == 0
    out = capsys.readouterr()
    import io

    table = pd.read_csv(io.StringIO(out.out))
    assert table[["confidence_sequence_low", "confidence_sequence_high"]].notna().all(axis=None)
    assert "questions in random order (--rng 3)" in out.err


def test_order_options_that_do_not_go_together(tmp_path):
    f = _issue_file(tmp_path / "log.csv")
    with pytest.raises(DataError, match="order='column' goes with order_column"):
        bn.monitor(f, baseline="base", candidate="cand", order="column")
    with pytest.raises(ValueError, match="order must be one of"):
        bn.monitor(f, baseline="base", candidate="cand", order="sorted")


def test_null_logs_sorted_by_outcome_keep_the_error_rate_by_default():
    """60 null logs (N = 80, K = 1) listed by outcome (ties, then the baseline's wins, then
    the candidate's): the default (random order) stops on at most alpha + 2 MCSE of them,
    MCSE = sqrt(alpha (1 - alpha) / 60) (limit 0.106, i.e. 6 of 60); the file order stops
    on most of the first 20 (the order depends on the results): the test sees the difference."""
    reps, n = 60, 80
    u = population(np.random.default_rng(3), 20_000)
    rng = np.random.default_rng(4)
    default = file_order = 0
    for rep in range(reps):
        idx = rng.integers(0, u.shape[1], n)
        c = rng.binomial(1, u[:, idx])
        d = c[1] - c[0]
        at = np.lexsort((d, np.where(d == 0, 0, np.where(d < 0, 1, 2))))
        ds = _ds(c[:, at], 1, [f"q{j:03d}" for j in at])
        r = bn.monitor(ds, baseline="base", candidate="cand", progress=False)
        default += r.attrs["stopped_at"] > 0
        if rep >= 20:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = bn.monitor(ds, baseline="base", candidate="cand", order="file", progress=False)
        file_order += r.attrs["stopped_at"] > 0
    assert default / reps <= ALPHA + 2 * np.sqrt(ALPHA * (1 - ALPHA) / reps)
    assert file_order / 20 > 0.5
