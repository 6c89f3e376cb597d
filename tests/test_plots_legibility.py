"""Figures stay legible at leaderboard size: no two axis labels overlap, the forest plot keeps a
bounded height, and the thinning / paging rules keep every model accounted for."""

import itertools

import numpy as np
import pandas as pd
import pytest

import bayesnoise as bn
from bayesnoise import plots
from bayesnoise.plots.pairs import MATRIX_MAX_SIDE, matrix_layout

matplotlib = pytest.importorskip("matplotlib")

#: Names as long as the longest on all-the-noises (37 characters), a few of each shape.
_STEMS = ("mistralai_mixtral_8x22b_instruct_v0", "qwen2.5-coder-32b-instruct", "gemma_2b_it")


def _names(m):
    return [f"{_STEMS[i % 3]}.{i}" for i in range(m)]


def _pairs(m, seed=0):
    """A pair table of m models (only the columns the matrix reads), accuracies all distinct."""
    rng = np.random.default_rng(seed)
    names = _names(m)
    acc = np.sort(rng.uniform(0.05, 0.95, m))
    a, b = np.triu_indices(m, 1)
    return pd.DataFrame(
        {
            "model_a": [names[i] for i in a],
            "model_b": [names[j] for j in b],
            "accuracy_a": acc[a],
            "accuracy_b": acc[b],
            "z": rng.normal(0, 5, a.size),
            "p_value_adjusted": rng.uniform(0, 1, a.size),
        }
    )


def _check_labels(fig, *label_lists):
    """Draw once (Agg, as the PNG writer lays text out); in each list, consecutive visible labels
    do not overlap (Bbox.overlaps is strict: touching is fine) and every label lies inside the
    figure (nothing cut off at the edges)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    width, height = fig.bbox.width, fig.bbox.height
    for labels in label_lists:
        boxes = [t.get_window_extent(renderer) for t in labels if t.get_visible() and t.get_text()]
        assert boxes
        clashes = [i for i, (a, b) in enumerate(itertools.pairwise(boxes)) if a.overlaps(b)]
        assert not clashes, f"{len(clashes)} overlapping labels, first at {clashes[0]}"
        for box in boxes:
            assert box.x0 >= -1 and box.y0 >= -1 and box.x1 <= width + 1 and box.y1 <= height + 1


@pytest.mark.parametrize("m", [8, 50, 90])
def test_pair_matrix_labels_do_not_overlap(m):
    ax = plots.plot_pair_matrix(_pairs(m))
    _check_labels(ax.figure, ax.get_xticklabels(), ax.get_yticklabels())
    # up to 11 in / (1.4 * 6 pt) = 94 models every one is named, in accuracy order
    assert [t.get_text() for t in ax.get_yticklabels()] == _names(m)


def test_pair_matrix_thins_labels_beyond_its_largest_side():
    m = 150
    size, every, figsize = matrix_layout(_names(m))
    # 150 cells of 1.4 font heights would be 150 * 1.4 * 6 / 72 = 17.5 in: every 2nd is named
    assert every == int(np.ceil(m * 1.4 * size / 72 / MATRIX_MAX_SIDE)) == 2
    assert max(figsize) < 16
    ax = plots.plot_pair_matrix(_pairs(m))
    shown = [t.get_text() for t in ax.get_yticklabels()]
    assert shown == _names(m)[::every]
    assert "every 2th named" in ax.get_ylabel()
    _check_labels(ax.figure, ax.get_yticklabels())


@pytest.mark.parametrize("m", [5, 50])
def test_heatmap_names_every_model_without_overlap(m):
    rng = np.random.default_rng(3)
    ds = bn.from_arrays(rng.integers(0, 3, (m, 40)), np.full((m, 40), 2), models=_names(m))
    ax = plots.plot_heatmap(ds)
    assert len(ax.get_xticklabels()) == m
    _check_labels(ax.figure, ax.get_xticklabels())


def _model_table(m, seed=1):
    rng = np.random.default_rng(seed)
    acc = rng.uniform(0.1, 0.9, m)
    out = {"model": _names(m), "accuracy": acc}
    for j, (low, high, _, _) in enumerate(plots.FOREST_SERIES):
        half = 0.01 + 0.02 * j
        out[low], out[high] = acc - half, acc + half
    return pd.DataFrame(out)


@pytest.mark.parametrize("m", [3, 50, 60])
def test_forest_height_is_capped_and_names_stay_apart(m):
    ax = plots.plot_forest(_model_table(m))
    fig = ax.figure
    height = fig.get_size_inches()[1]
    # 1,400 px at save_figure's 100 dpi (the cap at 50 models), and never shorter
    # than 3 in; 50 models used to be 0.32 * 50 * 2 + 1.6 = 33.6 in
    assert 3.0 <= height <= 14.0
    assert height * 100 <= 1400
    _check_labels(fig, ax.get_yticklabels())
    assert [t.get_text() for t in ax.get_yticklabels()] == list(
        _model_table(m).sort_values("accuracy", kind="stable")["model"]
    )


def test_forest_xlim_is_kept():
    ax = plots.plot_forest(_model_table(10), xlim=(0.0, 1.0))
    assert ax.get_xlim() == (0.0, 1.0)
