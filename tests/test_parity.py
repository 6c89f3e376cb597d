"""One language (issue 29, docs/concepts/one-language.md): every command is the verb of the
same name, every option its keyword twin (same name, default and choices), and a script
written with the documented spelling runs every verb."""

from __future__ import annotations

import argparse
import inspect
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import bayesnoise as bn
from bayesnoise import verbs
from bayesnoise.cli import build_parser
from bayesnoise.cli._options import Renamed

F = "examples/data/cruxeval_output_temp0.8.csv.gz"

# Options that steer the command line itself (how the table is written), not the computation.
CLI_ONLY = {"help", "format", "output", "dpi", "all_rows", "all_columns"}
# Keywords with no flag: none today. Add (verb, keyword) with a comment saying why a command
# cannot take it (e.g. a Python object).
PYTHON_ONLY: set[tuple[str, str]] = set()
# Verbs without a command: tidy turns a result into the printed table (the CLI does it).
NOT_COMMANDS = {"tidy", "READ_OPTIONS"}


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _options(sub: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """dest -> the first optional action with that dest (the one whose default is used),
    old flags (:class:`Renamed`) and positionals left out."""
    out: dict[str, argparse.Action] = {}
    for a in sub._actions:
        if not a.option_strings or isinstance(a, Renamed) or a.dest == "help":
            continue
        out.setdefault(a.dest, a)
    return out


def _default(sub, action):
    return sub._defaults.get(action.dest, action.default)


def _keywords(fn) -> dict[str, inspect.Parameter]:
    """The keyword-only parameters (the options; positionals before ``*`` are the data)."""
    params = inspect.signature(fn).parameters.values()
    return {p.name: p for p in params if p.kind is p.KEYWORD_ONLY}


def _takes_read(fn) -> bool:
    return any(p.kind is p.VAR_KEYWORD for p in inspect.signature(fn).parameters.values())


def _doc_choices(fn, name) -> set[str] | None:
    """The quoted values ``{"a", "b"}`` of parameter ``name`` in the numpydoc docstring."""
    from numpydoc.docscrape import FunctionDoc

    for p in FunctionDoc(fn)["Parameters"]:
        names = [n.strip() for n in p.name.split(",")]
        if name in names:
            m = re.search(r"\{([^}]*)\}", p.type)
            if not m:
                return None
            return set(re.findall(r"[\"']([^\"']+)[\"']", m.group(1)))
    return None


def _verb(command: str):
    return getattr(bn, command.replace("-", "_"))


def test_every_command_is_a_verb_and_every_verb_a_command():
    commands = _subparsers()
    for command in commands:
        name = command.replace("-", "_")
        assert name in bn.__all__ and name in verbs.__all__, f"command {command}: no verb {name}"
    missing = set(verbs.__all__) - NOT_COMMANDS - {c.replace("-", "_") for c in commands}
    assert not missing, f"verbs without a command: {sorted(missing)}"


def _pairs_of_command_and_verb():
    for command, sub in _subparsers().items():
        if command != "plot":  # plot: one command, a verb per figure (test below)
            yield command, sub, _verb(command)


@pytest.mark.parametrize(
    ("command", "sub", "fn"), list(_pairs_of_command_and_verb()), ids=lambda x: str(x)[:20]
)
def test_every_option_has_its_keyword_twin(command, sub, fn):
    options = _options(sub)
    keywords = _keywords(fn)
    read = _takes_read(fn)
    for dest, action in options.items():
        flag = action.option_strings[-1]
        if dest in CLI_ONLY and dest not in keywords:
            continue
        if dest in verbs.READ_OPTIONS and read and dest not in keywords:
            assert _default(sub, action) == verbs.READ_OPTIONS[dest], (command, flag)
            continue
        assert dest in keywords, f"{command} {flag}: no keyword {dest}= in bn.{fn.__name__}"
        assert (
            flag == "--" + dest.replace("_", "-")
            or action.const is not None
            or (isinstance(action, argparse._StoreFalseAction) and flag == f"--no-{dest}")
            # a repeatable flag is singular: --factor NAME (twice) -> factors=[...]
            or (isinstance(action, argparse._AppendAction) and flag + "s" == f"--{dest}")
        ), f"{command} {flag}: the flag is not --{dest.replace('_', '-')}"
        want = keywords[dest].default
        got = _default(sub, action)
        assert got == want or (want is inspect.Parameter.empty and action.required), (
            f"{command} {flag}: default {got!r}, bn.{fn.__name__}({dest}=) default {want!r}"
        )
        if action.choices is not None and not callable(action.choices):
            doc = _doc_choices(fn, dest)
            assert doc == set(action.choices), (
                f"{command} {flag}: choices {sorted(action.choices)}, the docstring of "
                f"bn.{fn.__name__} says {doc}"
            )
    for name in keywords:
        assert name in options or (command, name) in PYTHON_ONLY, (
            f"bn.{fn.__name__}({name}=) has no flag --{name.replace('_', '-')} in `{command}`"
        )
    if read:
        missing = set(verbs.READ_OPTIONS) - set(options)
        assert not missing, f"{command}: input options without a flag: {sorted(missing)}"
    else:
        assert not set(verbs.READ_OPTIONS) & set(options), f"{command}: input flags, no **read"


def test_plot_options_are_keywords_of_a_figure():
    sub = _subparsers()["plot"]
    figures = [f for f in verbs.plot.KINDS.values() if "data" in inspect.signature(f).parameters]
    for dest, action in _options(sub).items():
        if dest in verbs.READ_OPTIONS or dest in CLI_ONLY:
            continue
        owners = [f for f in figures if dest in _keywords(f)]
        assert owners, f"plot --{dest.replace('_', '-')}: no figure takes {dest}="
        for f in owners:
            assert _keywords(f)[dest].default == _default(sub, action), (dest, f.__name__)
    for f in figures:
        for name in _keywords(f):
            assert name in _options(sub), f"bn.plot.{f.__name__}({name}=) has no flag"


OLD_FLAGS = [
    (["pairs", F, "--seed", "1"], "--rng"),
    (["pairs", F, "--bootstrap", "10"], "--n-resamples"),
    (["pairs", F, "--permutations", "10"], "--n-resamples"),
    (["noise", F, "--quiet"], "--no-progress"),
    (["compare", F, "--pairs"], "--by pair"),
    (["ranks", F, "--draws", "10"], "--n-resamples"),
    (["ranks", F, "--method", "bayes"], "--model"),
    (["power", F, "--k", "3"], "--planned-samples-per-question"),
    (["plan", F, "--one-sided"], "--alternative less"),
    (["monitor", F, "--model-a", "phind"], "--candidate"),
    (["coverage", F, "--replicates", "3"], "--n-resamples"),
]


@pytest.mark.parametrize(("argv", "new"), OLD_FLAGS, ids=lambda x: " ".join(x[:1] + x[2:3]))
def test_an_old_flag_fails_naming_the_new_one(argv, new, capsys):
    from bayesnoise.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip().endswith(f"{argv[2]} is now {new}")


@pytest.mark.parametrize(
    ("call", "new"),
    [
        (lambda: bn.pairs(F, seed=1), "rng="),
        (lambda: bn.pairs(F, bootstrap=10), "n_resamples="),
        (lambda: bn.compare(F, pairs=True), "by="),
        (lambda: bn.ranks(F, draws=10), "n_resamples="),
        (lambda: bn.ranks(F, method="bayes"), "model="),
        (lambda: bn.power(F, k=3), "planned_samples_per_question="),
        (lambda: bn.check(F, baseline_model="phind"), "baseline="),
        (lambda: bn.monitor(F, model_a="phind"), "candidate="),
        (lambda: bn.coverage(F, replicates=3), "n_resamples="),
        (lambda: bn.noise(F, quiet=True), "progress="),
    ],
)
def test_an_old_keyword_is_a_type_error_naming_the_new_one(call, new):
    with pytest.raises(TypeError, match=f"is now `{re.escape(new)}"):
        call()


@pytest.mark.parametrize(
    ("call", "new"),
    [
        (lambda: bn.posterior(F, method="conjugate"), "'bayes'"),
        (lambda: bn.passk(F, k=1, method="conjugate"), "'bayes'"),
        (lambda: bn.check(F, baseline="a", candidate="b", method="freq"), "'frequentist'"),
        (lambda: bn.plan(F, target_se=0.01, alternative="one-sided"), "'greater' or 'less'"),
    ],
)
def test_an_old_value_names_the_new_one(call, new):
    with pytest.raises(ValueError, match=f"is now method={new}|is now alternative={new}"):
        call()


def test_a_script_with_the_documented_names_runs_every_verb(tmp_path):
    """Every verb with the shared spelling (rng, n_resamples, confidence_level, by, pair,
    baseline/candidate, alternative, method, progress) on three models of the bundled
    data; each returns a Dataset that bn.tidy takes."""
    three = dict(models="phind,codellama-34b,codellama-13b", progress=False)
    gen = np.random.default_rng(0)
    pair = ("phind", "codellama-34b")
    cells = [(m, q, t, int(gen.random() < 0.7)) for m in "AB" for q in range(20) for t in "xyz"]
    templates = pd.DataFrame(cells, columns=["model", "question", "template", "score"])
    runs = {
        "noise": lambda: bn.noise(F, confidence_level=0.9, **three),
        "pairs": lambda: bn.pairs(F, pair=pair, n_resamples=20, rng=gen, **three),
        "arena": lambda: bn.arena(F, **three),
        "compare": lambda: bn.compare(F, by="pair", confidence_level=0.9, rng=1, **three),
        "posterior": lambda: bn.posterior(F, by="model", method="bayes", rng=gen, **three),
        "ranks": lambda: bn.ranks(F, model="bootstrap", n_resamples=200, rng=2, **three),
        "power": lambda: bn.power(
            F, difference=0.05, planned_samples_per_question=2, pair=pair, **three
        ),
        "passk": lambda: bn.passk(F, k=1, by="pair", confidence_level=0.95, **three),
        "questions": lambda: bn.questions(F, suspect=5, **three),
        "leaderboard": lambda: bn.leaderboard(F, n_resamples=20, rng=3, **three),
        "signal": lambda: bn.signal(F, **three),
        "decision_accuracy": lambda: bn.decision_accuracy(
            {"a": 0.3, "b": 0.4, "c": 0.5}, {"a": 0.5, "b": 0.4, "c": 0.6}, n_resamples=20, rng=4
        ),
        "coverage": lambda: bn.coverage(
            F, n_resamples=3, populations=("fitted",), max_pair_models=3, rng=5, **three
        ),
        "check": lambda: bn.check(
            F,
            baseline="phind",
            candidate="codellama-13b",
            alpha=0.05,
            method="bayes",
            n_resamples=200,
            rng=6,
            **three,
        ),
        "monitor": lambda: bn.monitor(
            F,
            baseline="codellama-13b",
            candidate="codellama-34b",
            alternative="less",
            alpha=0.05,
            **three,
        ),
        "plan": lambda: bn.plan(
            F, pair=pair, target_se=0.02, alternative="less", alpha=0.05, **three
        ),
        "rate": lambda: bn.rate(
            F, prior="jeffreys", target=0.35, alternative="greater", confidence_level=0.9, **three
        ),
        "threshold": lambda: bn.threshold(F, grid="0.5", prior="mean=0.4,sd=0.1", **three),
        "judge": lambda: bn.judge(
            "examples/data/judge_graded.csv",
            by="pair",
            confidence_level=0.9,
            rng=1,
            progress=False,
        ),
        "noises": lambda: bn.noises(
            templates,
            factors=["template"],
            by="pair",
            confidence_level=0.9,
            rng=2,
            progress=False,
        ),
        "reference": lambda: bn.reference("humaneval+", accuracy=0.5),
        "columns": lambda: bn.columns(),
    }
    # report: the same spelling, checked on its signature (drawing the page takes ~6 s;
    # tests/test_report_html.py runs it)
    inspect.signature(bn.report).bind(
        F, output=tmp_path / "r.html", confidence_level=0.9, rng=7, progress=False, models="a,b"
    )
    pending = set(verbs.__all__) - NOT_COMMANDS - {"plot", "report"} - set(runs)
    assert not pending, f"add a run of {sorted(pending)} in the one spelling"
    # no wall-clock limit here: the suite's CPU-time guard (tests/conftest.py) bounds every test
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, run in runs.items():
            table = bn.tidy(run())
            assert len(table) > 0, name


# The lower layers speak the same language (issue 38 item 4): their public functions (each
# subpackage's ``__all__``) spell the vocabulary's options as the verbs do, with the shared
# defaults, and every public function of their modules offers only scipy's sidedness.
LOWER = ("frequentist", "conjugate", "mcmc", "decide", "io", "data", "plots", "reporting")


def _lower_functions(everything=False):
    import importlib
    import pkgutil

    for name in LOWER:
        pkg = importlib.import_module(f"bayesnoise.{name}")
        mods = [pkg]
        if everything:
            mods += [
                importlib.import_module(f"{pkg.__name__}.{m.name}")
                for m in pkgutil.iter_modules(pkg.__path__)
                if m.name not in ("figures",) and not m.name.startswith("__")
            ]
        for mod in mods:
            names = pkg.__all__ if mod is pkg else [n for n in vars(mod) if not n.startswith("_")]
            for n in names:
                fn = getattr(mod, n)
                if inspect.isfunction(fn) and (mod is pkg or fn.__module__ == mod.__name__):
                    yield f"{mod.__name__}.{n}", fn


def test_lower_layers_use_the_sheets_names_and_shared_defaults():
    from bayesnoise._defaults import ALTERNATIVES, BY

    shared = {"rng": {0}, "confidence_level": {0.95, None}, "by": set(BY)}
    shared["alternative"] = set(ALTERNATIVES)
    seen = set()
    for where, fn in _lower_functions():
        for p in inspect.signature(fn).parameters.values():
            assert p.name not in ("seed", "random_seed", "level", "one_sided"), where
            if p.name in shared and p.default is not inspect.Parameter.empty:
                seen.add(p.name)
                assert p.default in shared[p.name], f"{where}: {p.name}={p.default!r}"
    assert {"rng", "confidence_level", "by"} <= seen  # the walk sees the options


def test_every_lower_alternative_is_scipys():
    from bayesnoise._defaults import ALTERNATIVES

    found = 0
    for where, fn in _lower_functions(everything=True):
        p = inspect.signature(fn).parameters.get("alternative")
        if p is not None and p.default is not inspect.Parameter.empty:
            found += 1
            assert p.default in ALTERNATIVES, f"{where}: alternative={p.default!r}"
            doc = fn.__doc__ or ""
            assert 'one-sided"}' not in doc, f"{where} documents alternative='one-sided'"
    assert found >= 10  # power, plan, ppi, rate, sequential, exact tests


@pytest.mark.parametrize("side", ["greater", "less"])
def test_power_plans_a_one_sided_test_with_scipys_spelling(side):
    from scipy import stats

    from bayesnoise.decide.plan import target_variance
    from bayesnoise.frequentist.power import required_questions

    # oracle: N = ceil(var (z_{1-alpha} + z_power)^2 / d^2) with scipy's normal quantiles
    z = stats.norm.ppf(0.95) + stats.norm.ppf(0.8)
    n = required_questions(0.05, data=0.2, prediction=0.1, alternative=side)
    assert n == np.ceil(0.3 * (z / 0.05) ** 2)
    tv = target_variance(difference=0.05, alternative=side)
    assert tv == pytest.approx((0.05 / z) ** 2, rel=1e-12)


@pytest.mark.parametrize("module", ["frequentist.power", "decide.plan"])
def test_one_sided_in_a_lower_layer_names_the_new_spelling(module):
    from bayesnoise.decide.plan import target_variance
    from bayesnoise.frequentist.power import required_questions

    call = {
        "frequentist.power": lambda: required_questions(
            0.05, data=0.2, prediction=0.1, alternative="one-sided"
        ),
        "decide.plan": lambda: target_variance(difference=0.05, alternative="one-sided"),
    }[module]
    with pytest.raises(ValueError, match="is now alternative='greater' or alternative='less'"):
        call()
