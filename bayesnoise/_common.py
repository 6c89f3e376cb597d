"""The few helpers every layer shares: the one interval type, level checks, pair tables.

Nothing here knows about xarray; it is imported by every subpackage (and only by them).
"""

from __future__ import annotations

import contextlib
import contextvars
import difflib
import inspect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

__all__ = [
    "ConfidenceInterval",
    "OptionalDependencyError",
    "by_caller",
    "caller",
    "calling",
    "check_alternative",
    "check_confidence_level",
    "cut",
    "did_you_mean",
    "few",
    "fmt_value",
    "name_list",
    "new_spellings",
    "one_line",
    "option",
    "pair_table",
    "reject_old",
    "reject_renamed",
    "require",
    "see_warnings",
    "seed_of",
    "short_line",
    "tail_probabilities",
    "triu_pairs",
    "warn",
    "z_from_level",
]


#: The package's one set of PyMC defaults (defined in ``_defaults``, which the parser imports).
#: The option vocabulary's values (``alternative=``, ``by=``), defined in ``_defaults``; the
#: checks of ``alternative``, ``confidence_level`` and ``rng`` are :func:`check_alternative`,
#: :func:`check_confidence_level` and :func:`seed_of` below.
from bayesnoise._defaults import (  # noqa: F401  # noqa: F401
    ALTERNATIVES,
    BY,
    MCMC_CHAINS,
    MCMC_DRAWS,
    MCMC_TUNE,
    RETIRED_ALTERNATIVES,
)

#: Who called: ``"python"`` (a function of the package), ``"verb"`` (a ``bn.<verb>``, whose
#: input options are ``score_col=`` ...) or ``"cli"`` (the command line, ``--score-col``).
#: Errors name options in the caller's language (:func:`option`).
_CALLER: contextvars.ContextVar[str] = contextvars.ContextVar("bayesnoise_caller", default="python")
#: Python keyword -> its command-line flag where the two are not spelled alike.
_FLAGS = {"factors": "--factor", "by": "--by", "pair": "--pair"}


def caller() -> str:
    """``"python"``, ``"verb"`` or ``"cli"``: who is calling (see :func:`calling`).

    Examples
    --------
    >>> caller()
    'python'
    """
    return _CALLER.get()


@contextlib.contextmanager
def calling(kind: str):
    """Within this block errors speak to ``kind`` (``"verb"`` or ``"cli"``); a verb called by
    the command line stays ``"cli"``.

    Examples
    --------
    >>> with calling("cli"):
    ...     option("score_col", "NAME")
    '--score-col NAME'
    """
    if kind not in ("python", "verb", "cli"):
        raise ValueError(f"kind must be 'python', 'verb' or 'cli', got {kind!r}")
    token = _CALLER.set("cli" if _CALLER.get() == "cli" else kind)
    try:
        yield
    finally:
        _CALLER.reset(token)


def option(name: str, value: str | None = None) -> str:
    """Option ``name`` (a keyword of the verbs) as the caller writes it: ``score_col=NAME`` in
    Python, ``--score-col NAME`` on the command line (:func:`calling`).

    Examples
    --------
    >>> option("score_col", "'NAME'"), option("draws")
    ("score_col='NAME'", 'draws=')
    """
    if _CALLER.get() == "cli":
        flag = _FLAGS.get(name, "--" + name.replace("_", "-"))
        return flag if value is None else f"{flag} {value.strip(chr(39))}"
    return f"{name}=" if value is None else f"{name}={value}"


def by_caller(python: str, cli: str) -> str:
    """``python`` or ``cli``, whichever the caller speaks (:func:`calling`): for a phrase that
    is not one option, such as ``data`` against ``a FILE``.

    Examples
    --------
    >>> by_caller("a pilot (data)", "a FILE")
    'a pilot (data)'
    """
    return cli if _CALLER.get() == "cli" else python


def did_you_mean(name, known: Iterable, what: str = "model", role: str = "") -> str:
    """``"no model 'x'; did you mean 'y'? (59 models: a, b, +57 more)"``: the closest known
    names (:func:`difflib.get_close_matches`) and a few others, never the whole list; ``role``
    ("baseline") goes before ``what``.

    Examples
    --------
    >>> did_you_mean("gpt4", ["gpt-4", "claude", "llama"])
    "no model 'gpt4'; did you mean 'gpt-4'? (3 models: gpt-4, claude, llama)"
    """
    known = [str(k) for k in known]
    close = difflib.get_close_matches(str(name), known, n=3, cutoff=0.6)
    if not close:  # a prefix or a part of a long name
        low = str(name).lower()
        close = [k for k in known if low and low in k.lower()][:3]
    hint = f"; did you mean {' or '.join(map(repr, close))}?" if close else ""
    who = f"{role} {what}" if role else what
    return f"no {who} {str(name)!r}{hint} ({len(known)} {what}s: {few(known, 40)})"


class OptionalDependencyError(ImportError):
    """An optional package is needed for what was asked; the message names the extra to install."""


def require(module: str, extra: str, purpose: str) -> None:
    """Raise :class:`OptionalDependencyError` unless ``module`` can be imported.

    Examples
    --------
    >>> require("numpy", "test", "arrays")
    """
    import importlib.util

    if importlib.util.find_spec(module) is None:
        raise OptionalDependencyError(
            f"{purpose} needs the optional package {module!r}: pip install 'bayesnoise[{extra}]'"
        )


@dataclass(frozen=True)
class ConfidenceInterval:
    """Lower and upper end of a two-sided interval (floats, or arrays for many at once).

    The one interval type of the package: frequentist confidence intervals and Bayesian
    credible intervals both come back as this.

    Examples
    --------
    >>> ci = ConfidenceInterval(0.1, 0.3)
    >>> low, high = ci  # unpacks like a tuple
    >>> round(ci.width, 3)
    0.2
    """

    low: np.ndarray | float
    high: np.ndarray | float

    def __iter__(self):
        return iter((self.low, self.high))

    @property
    def width(self):
        """``high - low``."""
        return self.high - self.low


#: Old keyword -> its one spelling (docs/concepts/one-language.md); an old keyword is a
#: :class:`TypeError` naming the new one, never a silent alias. A function that keeps one of
#: these names with its own meaning (``posterior``'s MCMC ``draws``, ``passk``'s ``k``) takes it
#: as a keyword, so it never reaches this table.
RENAMED = {
    "seed": "rng=",
    "random_seed": "rng=",
    "bootstrap": "n_resamples=",
    "permutations": "n_resamples= (with resampling='permutation')",
    "replicates": "n_resamples=",
    "draws": "n_resamples=",
    "n_draws": "n_resamples=",
    "n_boot": "n_resamples=",
    "n_bootstrap": "n_resamples=",
    "n_permutations": "n_resamples=",
    "quiet": "progress= (quiet=True is progress=False)",
    "progressbar": "progress=",
    "pairs": "by= (pairs=True is by='pair')",
    "model_a": "candidate= (the difference is candidate - baseline; model_b is baseline=)",
    "model_b": "baseline= (the difference is candidate - baseline; model_a is candidate=)",
    "baseline_model": "baseline=",
    "candidate_model": "candidate=",
    "level": "confidence_level=",
    "one_sided": "alternative= ('greater' or 'less')",
}


def reject_renamed(verb: str | None, given, extra: dict | None = None) -> None:
    """A :class:`TypeError` for the first keyword of ``given`` that is an old spelling
    (:data:`RENAMED`, or a function's own ``extra`` renames).

    Examples
    --------
    >>> reject_renamed("f", {"seed": 1})
    Traceback (most recent call last):
    ...
    TypeError: f(): `seed=` is now `rng=`
    """
    renamed = {**RENAMED, **(extra or {})}
    where = f"{verb}(): " if verb else ""
    for name in given:
        if name in renamed:
            raise TypeError(f"{where}`{name}=` is now `{renamed[name]}`")


def new_spellings(func):
    """Decorator for a public function whose signature ends in ``**old`` (and may hold
    ``*old_args``): those catch-alls are left out of its signature (:func:`inspect.signature`,
    the docs), and the function passes them to :func:`reject_old` first. No wrapper: the
    function's own frame stays the one its warnings' ``stacklevel`` counts from.

    Examples
    --------
    >>> @new_spellings
    ... def f(x, *, rng=0, **old):
    ...     reject_old("f", old)
    ...     return x + rng
    >>> inspect.signature(f)
    <Signature (x, *, rng=0)>
    >>> f(1, seed=2)
    Traceback (most recent call last):
    ...
    TypeError: f(): `seed=` is now `rng=`
    """
    sig = inspect.signature(func)
    hidden = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    kept = [
        p for p in sig.parameters.values() if not (p.kind in hidden and p.name.startswith("old"))
    ]
    func.__signature__ = sig.replace(parameters=kept)
    return func


def reject_old(
    function: str, old: dict, extra: dict | None = None, *, old_args=(), positional=None
):
    """A :class:`TypeError` for what a :func:`new_spellings` function's catch-alls caught: an old
    keyword names its new one (:data:`RENAMED` or ``extra``), extra positional arguments say
    ``positional``, any other keyword is Python's unexpected-keyword error.

    Examples
    --------
    >>> reject_old("f", {})
    >>> reject_old("f", {"colour": 1})
    Traceback (most recent call last):
    ...
    TypeError: f() got an unexpected keyword argument 'colour'
    """
    if old_args:
        raise TypeError(f"{function}(): {positional or 'too many positional arguments'}")
    if old:
        reject_renamed(function, old, extra)
        raise TypeError(f"{function}() got an unexpected keyword argument {next(iter(old))!r}")


def seed_of(rng) -> int | None:
    """``rng`` (an int seed, None or a :class:`numpy.random.Generator`, SPEC 7) as an int seed,
    for code that derives several streams from one seed: an int is kept (the same numbers),
    a Generator gives one draw.

    Examples
    --------
    >>> seed_of(3), isinstance(seed_of(np.random.default_rng(0)), int)
    (3, True)
    """
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(2**63 - 1))
    if rng is None or isinstance(rng, int | np.integer):
        return None if rng is None else int(rng)
    raise TypeError(f"rng must be an int seed or a numpy.random.Generator, got {rng!r}")


def check_confidence_level(confidence_level: float, function: str | None = None) -> float:
    """Return ``confidence_level`` as a float after checking that it is a number in (0, 1);
    the error names ``function`` (a verb) and the option in the caller's language
    (:func:`option`).

    Examples
    --------
    >>> check_confidence_level(0.9)
    0.9
    >>> check_confidence_level(1.5, "pairs")
    Traceback (most recent call last):
    ...
    ValueError: pairs(): confidence_level= must be in (0, 1), got 1.5
    """
    where = f"{function}(): " if function else ""
    try:
        level = float(confidence_level)
    except (TypeError, ValueError):
        raise ValueError(
            f"{where}{option('confidence_level')} must be a number in (0, 1), "
            f"got {confidence_level!r}"
        ) from None
    if not 0.0 < level < 1.0:
        raise ValueError(
            f"{where}{option('confidence_level')} must be in (0, 1), got {confidence_level!r}"
        )
    return level


def check_alternative(alternative: str, function: str | None = None) -> str:
    """Return ``alternative`` after checking that it is one of :data:`ALTERNATIVES` (scipy's
    ``"two-sided"``, ``"greater"``, ``"less"``); a retired spelling (``"one-sided"``) is an
    error naming the new one, in the caller's language (:func:`option`).

    Examples
    --------
    >>> check_alternative("less")
    'less'
    >>> check_alternative("one-sided", "plan")
    Traceback (most recent call last):
    ...
    ValueError: plan(): alternative='one-sided' is now alternative='greater' or alternative='less'
    """
    if alternative in ALTERNATIVES:
        return alternative
    where = f"{function}(): " if function else ""
    given = option("alternative", repr(alternative))
    if isinstance(alternative, str) and alternative in RETIRED_ALTERNATIVES:
        new = " or ".join(option("alternative", repr(v)) for v in RETIRED_ALTERNATIVES[alternative])
        raise ValueError(f"{where}{given} is now {new}")
    choices = ", ".join(map(repr, ALTERNATIVES))
    raise ValueError(
        f"{where}{option('alternative')} must be one of {choices}, got {alternative!r}"
    )


def z_from_level(confidence_level: float) -> float:
    """Two-sided standard-normal quantile for a confidence level (1.96 for 0.95).

    Examples
    --------
    >>> round(z_from_level(0.95), 4)
    1.96
    """
    return float(special.ndtri(0.5 + check_confidence_level(confidence_level) / 2.0))


def tail_probabilities(confidence_level: float) -> tuple[float, float]:
    """Lower and upper tail quantile levels of an equal-tailed interval ((0.025, 0.975)).

    Examples
    --------
    >>> [round(p, 3) for p in tail_probabilities(0.9)]
    [0.05, 0.95]
    """
    level = check_confidence_level(confidence_level)
    return (1.0 - level) / 2.0, (1.0 + level) / 2.0


def name_list(names: Iterable | None, size: int, prefix: str) -> list[str]:
    """Labels as a list of str: ``names`` if given (checked for length), else ``prefix0..``.

    Examples
    --------
    >>> name_list(None, 2, "m")
    ['m0', 'm1']
    """
    if names is None:
        return [f"{prefix}{i}" for i in range(size)]
    out = [str(n) for n in names]
    if len(out) != size:
        raise ValueError(f"got {len(out)} names for {size} entries")
    return out


#: The docs page every warning points to for its long explanation (one section per warning).
WARNINGS_PAGE = "docs/warnings.md"
#: Longest warning line (characters): a warning is one line that says what to do.
WARNING_WIDTH = 200
#: What the command line prints before a warning's message (counted in its line's width).
WARNING_PREFIX = "warning: "
#: Longest warning message: the line the command line prints stays within WARNING_WIDTH.
MESSAGE_WIDTH = WARNING_WIDTH - len(WARNING_PREFIX)


def cut(name: str, width: int) -> str:
    """``name`` cut in the middle to at most ``width`` characters (``"abc...xyz"``).

    Examples
    --------
    >>> cut("a-very-long-model-name", 12)
    'a-ver...name'
    """
    name = str(name)
    if len(name) <= width:
        return name
    keep = max(width - 3, 2)
    return name[: keep - keep // 2] + "..." + name[len(name) - keep // 2 :]


def short_line(text: str, width: int = MESSAGE_WIDTH) -> str:
    """``text`` on one line of at most ``width`` characters: line breaks become spaces, then
    the longest words (model names, paths) are cut in the middle until it fits; the closing
    ``see docs/...`` pointer is kept whole.

    Examples
    --------
    >>> line = short_line("model " + "m" * 300 + " is odd; see docs/warnings.md#x")
    >>> len(line) <= MESSAGE_WIDTH, line.endswith("see docs/warnings.md#x")
    (True, True)
    """
    words = " ".join(str(text).split()).split(" ")
    over = len(" ".join(words)) - width
    while over > 0:
        i = max(
            (j for j, w in enumerate(words) if not w.startswith("docs/")),
            key=lambda j: len(words[j]),
            default=None,
        )
        if i is None or len(words[i]) <= 12:
            break
        words[i] = cut(words[i], max(12, len(words[i]) - over))
        over = len(" ".join(words)) - width
    line = " ".join(words)
    return line if len(line) <= width else cut(line, width)


def warn(text: str, category: type[Warning] = UserWarning, stacklevel: int = 1, **kw) -> None:
    """:func:`warnings.warn` of ``text`` made one line of at most :data:`MESSAGE_WIDTH`
    characters (:func:`short_line`); ``stacklevel`` counts from the caller, as there.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as rec:
    ...     warnings.simplefilter("always")
    ...     warn("model " + "m" * 300 + " has one question")
    >>> len(str(rec[0].message)) <= MESSAGE_WIDTH
    True
    """
    import warnings

    warnings.warn(short_line(text), category, stacklevel=stacklevel + 1, **kw)


def see_warnings(anchor: str) -> str:
    """``"see docs/warnings.md#anchor"``: the pointer a warning ends with.

    Examples
    --------
    >>> see_warnings("k1")
    'see docs/warnings.md#k1'
    """
    return f"see {WARNINGS_PAGE}#{anchor}"


def one_line(text: str, names: Iterable, unit: str = "model(s)") -> str:
    """``text`` with ``{who}`` replaced by ``"N model(s) (a, b, +k more)"``, the names cut so
    that the line stays within :data:`MESSAGE_WIDTH` characters whatever they are (the
    command line's ``warning: `` before it: :data:`WARNING_WIDTH`).

    Examples
    --------
    >>> one_line("kappa is wide for {who}; see x", ["a", "b"])
    'kappa is wide for 2 model(s) (a, b); see x'
    >>> one_line("{who}" + "." * 160, ["a - b", "b - c"])[:30]  # all listed when they fit
    '2 model(s) (a - b, b - c).....'
    >>> len(one_line("kappa is wide for {who}; see x", ["m" * 300, "b"]))
    191
    """
    names = list(names)
    head = f"{len(names)} {unit} ("
    spare = MESSAGE_WIDTH - (len(text) - len("{who}")) - len(head) - 1
    listed = ", ".join(str(n) for n in names)
    if len(listed) > spare:  # room for the names that fit and "+N more"
        listed = few(names, max(8, spare - len(f", +{len(names)} more")))
    return short_line(text.replace("{who}", f"{head}{listed})"))


def few(names: Iterable, width: int = 40) -> str:
    """The first names that fit in about ``width`` characters, then ``+N more``: a model
    list that keeps a warning on one short line whatever the names are.

    Examples
    --------
    >>> few(["a", "b"]), few(["model-" + str(i) for i in range(9)], width=20)
    ('a, b', 'model-0, model-1, +7 more')
    >>> few(["a-very-long-model-name-indeed-more-than-forty-chars-long"])
    'a-very-long-model-n...n-forty-chars-long'
    """
    names = [str(n) for n in names]
    shown: list[str] = []
    used = 0
    for name in names:
        if len(name) > width:
            name = cut(name, width)
        if shown and used + len(name) + 2 > width:
            break
        shown.append(name)
        used += len(name) + 2
    rest = len(names) - len(shown)
    return ", ".join(shown) + (f", +{rest} more" if rest else "")


def fmt_value(value) -> str:
    """Plain repr of a cell value for messages (no numpy type names).

    Examples
    --------
    >>> fmt_value(np.float64(0.5)), fmt_value("a")
    ('0.5', "'a'")
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, str):
        return repr(str(value))
    if isinstance(value, float):
        return f"{value:.10g}"
    return repr(value)


def triu_pairs(n_models: int) -> tuple[np.ndarray, np.ndarray]:
    """Row and column indices of the unordered pairs (a before b): the upper triangle."""
    return np.triu_indices(n_models, k=1)


def pair_table(
    names: Iterable[str],
    matrices: Mapping[str, np.ndarray],
    *,
    per_model: Mapping[str, np.ndarray] | None = None,
) -> pd.DataFrame:
    """One row per unordered pair (a before b in ``names`` order) from M x M matrices.

    Parameters
    ----------
    names : sequence of str, length M
        Model names; give columns ``model_a`` and ``model_b``.
    matrices : mapping of column name -> array, shape (M, M)
        Entry ``[a, b]`` is the pair's value (read from the upper triangle).
    per_model : mapping of name -> array, shape (M,), optional
        Per-model values written as ``{name}_a`` and ``{name}_b`` right after the names.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import numpy as np
    >>> d = np.array([[0.0, 0.1], [-0.1, 0.0]])
    >>> pair_table(["x", "y"], {"difference": d}, per_model={"accuracy": np.array([0.6, 0.5])})
      model_a model_b  accuracy_a  accuracy_b  difference
    0       x       y         0.6         0.5         0.1
    """
    names = np.asarray([str(n) for n in names], dtype=object)
    ia, ib = triu_pairs(names.size)
    cols: dict[str, np.ndarray] = {"model_a": names[ia], "model_b": names[ib]}
    for key, values in (per_model or {}).items():
        values = np.asarray(values)
        cols[f"{key}_a"], cols[f"{key}_b"] = values[ia], values[ib]
    for key, mat in matrices.items():
        cols[key] = np.asarray(mat)[ia, ib]
    return pd.DataFrame(cols)
