"""Benchmark-quality figures of the Eval-Arena pages: pair wins (difference against sum),
p-value against difference, and the question-difficulty histogram.

The question x model heat map sorted by accuracy is :func:`bayesnoise.plots.plot_heatmap`.
Each function takes a dataset (the numbers are then computed by the estimators) or the table
that holds them, and an optional ``ax``; it returns the Axes. Artists carry a ``gid`` naming
what they draw.
"""

from __future__ import annotations

import numpy as np

from ._figure import new_axes

__all__ = [
    "pair_wins",
    "plot_difference_sum",
    "plot_difficulty",
    "plot_pvalue_difference",
]

#: Levels of the significance parabolas (Eval-Arena draws 0.05, 0.1 and 0.2).
SIGNIFICANCE_LEVELS = (0.05, 0.1, 0.2)
# p-values below this are drawn at it on the log axis (they underflow to 0 otherwise).
_P_FLOOR = 1e-16


def _complete_scores(ds) -> np.ndarray:
    from bayesnoise.data import complete, scores

    return scores(complete(ds, on_missing="raise")).values


def pair_wins(data) -> tuple[np.ndarray, np.ndarray]:
    """(wins of A, wins of B) of every unordered pair a < b, from a dataset or an M x M
    expected-win matrix ``W[a, b] = sum_i p_a,i (1 - p_b,i)``
    (:func:`bayesnoise.frequentist.elo.win_matrix`; for 0/1 scores the questions A got right
    and B wrong).

    Examples
    --------
    >>> pair_wins(np.array([[0.0, 3.0], [1.0, 0.0]]))
    (array([3.]), array([1.]))
    """
    if isinstance(data, np.ndarray):
        wins = data
    else:
        from bayesnoise.frequentist.elo import win_matrix

        wins = win_matrix(_complete_scores(data))
    a, b = np.triu_indices(wins.shape[0], k=1)
    return wins[a, b].astype(float), wins[b, a].astype(float)


def plot_difference_sum(data, *, levels=SIGNIFICANCE_LEVELS, ax=None):
    """Eval-Arena's difference-vs-sum: ``|wins A - wins B|`` against wins A + wins B per pair.

    A pair's points lie between x = 0 and the line x = y. The curves are where McNemar's test
    with continuity correction, (|b - c| - 1)^2 / (b + c), reaches the chi-square(1) critical
    value at each level: x = 1 + sqrt(y chi2_{1-alpha}(1)). Pairs to the right of a curve
    differ at that level; the curve shows how large a win difference a given number of
    deciding questions needs.

    Parameters
    ----------
    data : xarray.Dataset or numpy.ndarray
        Results (every model on every question) or an M x M expected-win matrix.
    levels : sequence of float
        Significance levels of the curves.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        ``gid`` "pairs" (the points), "x=y", "p=<level>" (the curves).

    Examples
    --------
    >>> w = np.array([[0, 30, 12], [20, 0, 5], [10, 8, 0]], dtype=float)
    >>> ax = plot_difference_sum(w)
    >>> ax.collections[0].get_offsets().tolist()
    [[10.0, 50.0], [2.0, 22.0], [3.0, 13.0]]
    """
    from scipy import stats

    wins_a, wins_b = pair_wins(data)
    x, y = np.abs(wins_a - wins_b), wins_a + wins_b
    ax = new_axes(ax)
    top = max(float(y.max(initial=0.0)), 1.0)
    grid = np.linspace(0.0, top, 200)
    ax.plot(grid, grid, color="0.6", lw=0.8, ls=":", gid="x=y", label="x = y (no ties)")
    steps = np.linspace(1.0, top, 200)
    for alpha, style in zip(levels, ("-", "--", "-.", ":"), strict=False):
        edge = 1.0 + np.sqrt(steps * stats.chi2.ppf(1.0 - alpha, 1))
        ax.plot(
            edge, steps, color="C3", lw=1.0, ls=style, gid=f"p={alpha:g}", label=f"p = {alpha:g}"
        )
    ax.scatter(x, y, s=8, alpha=0.6, color="C0", gid="pairs", label=f"{x.size} model pairs")
    ax.set_xlabel("|wins A - wins B| (questions)")
    ax.set_ylabel("wins A + wins B (questions that separate A and B)")
    ax.set_xlim(left=0.0)
    ax.set_ylim(bottom=0.0)
    ax.legend(fontsize=8, loc="lower right")
    title = getattr(data, "attrs", {}).get("benchmark", "")
    ax.set_title(f"{title}: pair wins, McNemar significance curves".lstrip(": "), fontsize=10)
    return ax


def plot_pvalue_difference(data, *, ax=None):
    """Each pair's p-values against its accuracy difference (log scale).

    Draws ``p_value`` (paired t test) and ``p_value_sign_questions`` (sign test on the per-question
    differences) of ``bayesnoise pairs`` against |difference|, with the 0.05 line: how large a
    gap this benchmark needs before it is significant.

    Parameters
    ----------
    data : xarray.Dataset or pandas.DataFrame
        Results, or a pair table with ``difference`` and ``p_value`` (``p_value_sign_questions``
        drawn when present), as :func:`bayesnoise.frequentist.pair_noise` returns.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        ``gid`` "p_value", "p_value_sign_questions" (points), "alpha" (the 0.05 line). p-values
        below 1e-16 are drawn at 1e-16.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"difference": [0.01, -0.08], "p_value": [0.4, 0.001]})
    >>> plot_pvalue_difference(t).collections[0].get_offsets().tolist()
    [[0.01, 0.4], [0.08, 0.001]]
    """
    import pandas as pd

    from bayesnoise.vocabulary import label

    if isinstance(data, pd.DataFrame):
        table, title = data, ""
    else:
        from bayesnoise.frequentist import pair_noise

        table, title = pair_noise(data, on_missing="raise"), data.attrs.get("benchmark", "")
    ax = new_axes(ax)
    x = np.abs(table["difference"].to_numpy(float))
    for column, marker, colour in (("p_value", "o", "C0"), ("p_value_sign_questions", "x", "C1")):
        if column in table.columns:
            p = np.maximum(table[column].to_numpy(float), _P_FLOOR)
            ax.scatter(
                x, p, s=10, marker=marker, color=colour, alpha=0.6, gid=column, label=label(column)
            )
    ax.axhline(0.05, color="C3", lw=0.8, ls="--", gid="alpha", label="p = 0.05")
    ax.set_yscale("log")
    ax.set_xlabel("|accuracy A - accuracy B|")
    ax.set_ylabel("p-value (below 1e-16 drawn at 1e-16)")
    ax.legend(fontsize=8)
    ax.set_title(f"{title}: p-value against difference, {x.size} pairs".lstrip(": "), fontsize=10)
    return ax


def plot_difficulty(data, *, bins: int = 20, ax=None):
    """Histogram of the questions' accuracy (mean over models), unsolved questions apart.

    Parameters
    ----------
    data : xarray.Dataset or pandas.DataFrame
        Results, or a question table with ``question_accuracy`` and ``solved_by``
        (:func:`bayesnoise.frequentist.question_quality`).
    bins : int, default 20
        Equal-width bins over (0, 1] for the questions some model solved.
    ax : matplotlib.axes.Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        Bars with ``gid`` "solved" (the histogram) and "unsolved" (one bar at 0: questions no
        model solved).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"question_accuracy": [0, 0, 0.5, 1], "solved_by": [0, 0, 2, 4]})
    >>> ax = plot_difficulty(t, bins=4)
    >>> [float(p.get_height()) for p in ax.patches if p.get_gid() == "unsolved"]
    [2.0]
    """
    import pandas as pd

    if isinstance(data, pd.DataFrame):
        table, title = data, ""
    else:
        from bayesnoise.frequentist import question_quality

        table, title = question_quality(data), data.attrs.get("benchmark", "")
    acc = table["question_accuracy"].to_numpy(float)
    unsolved = table["solved_by"].to_numpy() == 0
    ax = new_axes(ax)
    edges = np.linspace(0.0, 1.0, int(bins) + 1)
    counts, _ = np.histogram(acc[~unsolved], bins=edges)
    width = np.diff(edges)
    bars = ax.bar(
        edges[:-1],
        counts,
        width=width,
        align="edge",
        color="C0",
        edgecolor="white",
        label=f"solved by some model ({int((~unsolved).sum())})",
    )
    for bar in bars:
        bar.set_gid("solved")
    gap = ax.bar(
        [-width[0]],
        [float(unsolved.sum())],
        width=width[0] * 0.9,
        align="edge",
        color="C3",
        label=f"unsolved ({int(unsolved.sum())})",
    )
    gap[0].set_gid("unsolved")
    ax.set_xlabel("question accuracy (mean over models)")
    ax.set_ylabel("questions")
    ax.legend(fontsize=8)
    once = int((table["solved_by"].to_numpy() == 1).sum())
    ax.set_title(
        f"{title}: {acc.size} questions, {int(unsolved.sum())} unsolved, {once} solved by one "
        "model".lstrip(": "),
        fontsize=10,
    )
    return ax
