"""One vocabulary, one front door: every printed column is registered, a name holds one number
in every command that prints it, and each command prints exactly what its Python verb returns."""

import io
import warnings

import numpy as np
import pandas as pd
import pytest

import bayesnoise as bn
from bayesnoise.cli import main
from bayesnoise.vocabulary import REGISTRY, describe, is_registered, registry_rows


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.fixture(scope="module")
def crux(bundled_data):
    return str(bundled_data / "cruxeval_output_temp0.8.csv.gz")


@pytest.fixture(scope="module")
def crux_shared(shared_data):
    """The file the vocabulary audit measured the disagreements on."""
    return str(shared_data / "cruxeval-samples" / "cruxeval_output_temp0.2.csv")


def test_registry_entries_are_well_formed():
    rows = registry_rows()
    names = [r["name"] for r in rows]
    assert len(names) == len(set(names))
    for r in rows:
        assert r["label"] and r["description"], r["name"]
        assert r["scope"] in ("", "these questions", "question population")
        assert r["method"] in ("", "freq", "bayes", "mcmc")
    assert describe("mu_difference_high")["description"].startswith("upper end")
    assert not is_registered("population_low") and not is_registered("here_freq_low")
    with pytest.raises(KeyError, match="bayesnoise columns"):
        describe("no_such_column")


def _all_results(path):
    """Every table verb with the options that add columns."""
    yield "noise", bn.noise(path, confidence_level=0.95)
    yield (
        "pairs",
        bn.pairs(
            path,
            confidence_level=0.95,
            one_sample_tests=True,
            n_resamples=20,
            simultaneous="max-t",
        ),
    )
    yield "arena", bn.arena(path)
    yield "compare", bn.compare(path)
    yield "compare --by pair", bn.compare(path, by="pair")
    yield "posterior", bn.posterior(path)
    yield "posterior --by pair", bn.posterior(path, by="pair")
    yield "ranks", bn.ranks(path, n_resamples=500)
    yield "power", bn.power(path, difference=0.05)
    yield "passk", bn.passk(path, k=2, confidence_level=0.95)
    yield "passk --by pair", bn.passk(path, k=2, by="pair", confidence_level=0.95)
    yield "passk bayes", bn.passk(path, k=2, method="bayes", confidence_level=0.95)
    yield "reference", bn.reference("humaneval+", accuracy=0.5)
    yield "questions", bn.questions(path)
    yield "leaderboard", bn.leaderboard(path, n_resamples=50)


def test_every_printed_column_is_registered_and_described(crux):
    for command, result in _quiet(lambda: list(_all_results(crux))):
        table = bn.tidy(result)
        unregistered = [c for c in table.columns if not is_registered(c)]
        assert not unregistered, f"{command}: {unregistered}"
        for name in result.data_vars:
            assert result[name].attrs["long_name"] == describe(name)["label"], (command, name)


def _common_columns_agree(tables: dict[str, pd.DataFrame], keys: list[str]):
    checked = 0
    names = list(tables)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            ta, tb = tables[a].set_index(keys), tables[b].set_index(keys)
            shared = [c for c in ta.columns if c in tb.columns]
            tb = tb.loc[ta.index]
            for col in shared:
                x, y = ta[col].to_numpy(), tb[col].to_numpy()
                if x.dtype.kind in "fi" and y.dtype.kind in "fi":
                    np.testing.assert_allclose(
                        x.astype(float),
                        y.astype(float),
                        rtol=1e-12,
                        atol=0,
                        equal_nan=True,
                        err_msg=f"{col}: {a} vs {b}",
                    )
                else:
                    assert list(x) == list(y), f"{col}: {a} vs {b}"
                checked += 1
    return checked


@pytest.mark.shared_data
def test_a_name_holds_one_number_across_commands_per_model(crux_shared):
    tables = _quiet(
        lambda: {
            "noise": bn.tidy(bn.noise(crux_shared, confidence_level=0.95)),
            "posterior": bn.tidy(bn.posterior(crux_shared)),
            "compare": bn.tidy(bn.compare(crux_shared)),
        }
    )
    # accuracy, questions, samples_per_question, accuracy_low/high, mu_low/high, kappa, ...
    assert _common_columns_agree(tables, ["model"]) >= 12


@pytest.mark.shared_data
def test_a_name_holds_one_number_across_commands_per_pair(crux_shared):
    tables = _quiet(
        lambda: {
            "pairs": bn.tidy(bn.pairs(crux_shared, confidence_level=0.95)),
            "posterior --by pair": bn.tidy(bn.posterior(crux_shared, by="pair")),
            "compare --by pair": bn.tidy(bn.compare(crux_shared, by="pair")),
        }
    )
    # difference, difference_low/high, z, p_value, p_value_sign_questions, dbar_low/high, ...
    assert _common_columns_agree(tables, ["model_a", "model_b"]) >= 12


COMMANDS = [
    (["noise", "--confidence-level", "0.9"], lambda f: bn.noise(f, confidence_level=0.9)),
    (["pairs", "--max-difference", "0.05"], lambda f: bn.pairs(f, max_difference=0.05)),
    (["arena"], bn.arena),
    (["questions", "--suspect", "5"], lambda f: bn.questions(f, suspect=5)),
    (["leaderboard", "--n-resamples", "50"], lambda f: bn.leaderboard(f, n_resamples=50)),
    (["compare", "--by", "pair"], lambda f: bn.compare(f, by="pair")),
    (["posterior", "--rng", "3"], lambda f: bn.posterior(f, rng=3)),
    (["ranks", "--n-resamples", "300"], lambda f: bn.ranks(f, n_resamples=300)),
    (["power", "--difference", "0.04"], lambda f: bn.power(f, difference=0.04)),
    (["passk", "--k", "3", "--by", "pair"], lambda f: bn.passk(f, k=3, by="pair")),
    (
        ["noise", "--models", "phind,mixtral-8x7b"],
        lambda f: bn.noise(f, models="phind,mixtral-8x7b"),
    ),
]


@pytest.mark.parametrize(
    "argv, verb", COMMANDS, ids=lambda a: " ".join(a) if isinstance(a, list) else ""
)
def test_command_csv_equals_the_verbs_tidy_table(crux, argv, verb, capsys):
    assert main([argv[0], crux, *argv[1:], "--format", "csv", "--no-progress"]) == 0
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out))
    expected = bn.tidy(_quiet(verb, crux))
    assert list(printed.columns) == list(expected.columns)
    assert len(printed) == len(expected)
    for col in expected.columns:
        x = expected[col].to_numpy()
        if x.dtype.kind == "f":  # the CSV carries 10 significant digits
            np.testing.assert_allclose(printed[col], x, rtol=1e-9, atol=1e-12, equal_nan=True)
        else:
            assert printed[col].astype(str).tolist() == pd.Series(x).astype(str).tolist(), col


def test_columns_command_prints_the_registry(capsys):
    assert main(["columns", "--format", "csv"]) == 0
    printed = pd.read_csv(io.StringIO(capsys.readouterr().out), keep_default_na=False)
    # grouped by command, each registered name once
    assert sorted(printed["column"]) == sorted(r["name"] for r in registry_rows())
    assert set(REGISTRY) <= set(printed["column"])


def test_results_are_datasets_with_named_dims(crux):
    r = bn.noise(crux)
    assert r["accuracy"].dims == ("model",) and r["accuracy"].attrs["scope"]
    p = bn.pairs(crux, pair=("phind", "mixtral-8x7b"))
    assert p.sizes == {"pair": 1} and str(p["model_a"].values[0]) == "phind"


def test_public_surface_is_small_and_has_no_constants():
    """The documented surface: the top-level verbs plus the lower layers a user may call."""
    import importlib

    public = {n for n in bn.__all__ if not n.startswith("_")}
    for sub in ("frequentist", "conjugate", "mcmc", "decide", "plots"):
        module = importlib.import_module(f"bayesnoise.{sub}")
        public |= set(module.__all__)
        assert all(hasattr(module, n) for n in module.__all__), sub
    assert len(public) <= 80, sorted(public)
    assert not [n for n in public if n.isupper() or n.endswith("COLUMNS")]
    for verb in ("noise", "pairs", "posterior", "compare", "ranks", "power", "passk", "arena"):
        assert callable(getattr(bn, verb))
    for sub in ("frequentist", "conjugate", "decide"):  # lower layers reachable as attributes
        assert getattr(bn, sub).__name__ == f"bayesnoise.{sub}"


def test_verbs_take_loaded_datasets_and_arrays(crux):
    ds = bn.load(crux)
    np.testing.assert_array_equal(bn.noise(ds)["accuracy"], bn.noise(crux)["accuracy"])
    rng = np.random.default_rng(0)
    scores = rng.integers(0, 2, size=(2, 40, 3))
    r = bn.noise(scores)
    assert r.sizes["model"] == 2 and r["samples_per_question"].values.tolist() == [3, 3]
    with pytest.raises(TypeError, match="unknown option"):
        bn.noise(crux, confidence=0.9)
    with pytest.raises(bn.DataError, match="already a loaded dataset"):
        bn.noise(ds, model_col="m")


@pytest.mark.shared_data
def test_questions_finds_the_confirmed_bad_mbpp_questions_and_counts(shared_data, capsys):
    path = str(shared_data / "eval-arena" / "mbpp+.jsonl")
    top = bn.questions(path, suspect=10)
    # seed eval-arena-readme.md, "Errors and contamination": confirmed wrong or underspecified
    confirmed = {"Mbpp/459", "Mbpp/581", "Mbpp/102", "Mbpp/615", "Mbpp/87", "Mbpp/558", "Mbpp/559"}
    assert len(confirmed & set(top["question"].values.tolist())) >= 6
    assert top["suspect_rank"].values.tolist() == list(range(1, 11))
    full = bn.tidy(bn.questions(path))
    assert top.attrs["unsolved"] == int((full["question_accuracy"] == 0).sum())
    assert top.attrs["tau_negative"] == int((full["kendall_tau"] < 0).sum())
    unsolved = bn.questions(path, unsolved=True)
    assert unsolved.sizes["question"] == top.attrs["unsolved"]
    assert main(["questions", path, "--solved-once", "--no-progress"]) == 0
    assert "unsolved" in capsys.readouterr().err


def test_question_quality_needs_three_models(tmp_path):
    f = tmp_path / "two.csv"
    f.write_text(
        "model,question,score\n" + "".join(f"{m},q{i},{i % 2}\n" for m in "ab" for i in range(6))
    )
    with pytest.raises(bn.DataError, match="at least 3 models"):
        bn.questions(str(f))
    assert main(["questions", str(f)]) == 2
