"""One spelling per idea in every function of the package, public or internal (issue 29).

The parity test checks the verbs and the commands; this walks the source of every module
with :mod:`ast` and fails on a parameter spelled the old way (docs/concepts/one-language.md).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import bayesnoise as bn

PACKAGE = Path(bn.__file__).parent

#: Old parameter name -> its one spelling.
FORBIDDEN = {
    "level": "confidence_level",
    "random_seed": "rng",
    "seed": "rng",
    "n_boot": "n_resamples",
    "n_bootstrap": "n_resamples",
    "n_permutations": "n_resamples",
    "n_draws": "n_resamples",
    "progressbar": "progress",
    "quiet": "progress",
}


def _offenders(source: str, where: str) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            a = node.args
            for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg]:
                if arg is not None and arg.arg in FORBIDDEN:
                    name = getattr(node, "name", "<lambda>")
                    out.append(f"{where}:{node.lineno} {name}({arg.arg}=) -> {FORBIDDEN[arg.arg]}=")
    return out


def test_no_old_spellings_in_signatures():
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        offenders += _offenders(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE)))
    assert not offenders, "old parameter spellings:\n" + "\n".join(offenders)


def test_the_scan_sees_every_kind_of_parameter():
    src = (
        "def f(a, level=0.9, *, seed=0): pass\n"
        "class C:\n    def m(self, /, quiet, *progressbar, **n_boot): pass\n"
        "g = lambda random_seed: 0\n"
    )
    found = {line.split("(")[1].split("=")[0] for line in _offenders(src, "x")}
    assert found == {"level", "seed", "quiet", "progressbar", "n_boot", "random_seed"}


@pytest.mark.parametrize(
    ("call", "new"),
    [
        (lambda ds: bn.frequentist.pair_noise(ds, n_boot=10), "n_resamples="),
        (lambda ds: bn.frequentist.pair_noise(ds, seed=1), "rng="),
        (lambda ds: bn.frequentist.paired_test(ds, "a", "b"), "pair=(A, B)"),
        (lambda ds: bn.frequentist.paired_test(ds, model_a="a", model_b="b"), "pair=(A, B)"),
        (lambda ds: bn.decide.rank_table(ds, method="bootstrap"), "model="),
        (lambda ds: bn.decide.rank_table(ds, draws=100), "n_resamples="),
        (lambda ds: bn.decide.simultaneous_intervals(ds, n_draws=100), "n_resamples="),
        (lambda ds: bn.decide.compare_models(ds, level=0.9), "confidence_level="),
        (lambda ds: bn.conjugate.posterior_table(ds, random_seed=1), "rng="),
        (lambda ds: bn.mcmc.posterior_table_mcmc(ds, progressbar=False), "progress="),
        (lambda ds: bn.reporting.write_report(ds, "x.html", quiet=True), "progress="),
    ],
)
def test_old_keywords_of_public_functions_name_the_new(call, new):
    ds = bn.from_arrays([[1, 0, 1], [0, 0, 1]], [[1, 1, 1]] * 2, models=["a", "b"])
    with pytest.raises(TypeError, match=f"is now .*{re.escape(new)}"):
        call(ds)
