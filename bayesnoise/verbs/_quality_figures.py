"""The benchmark-quality figures of ``bn.plot`` (``bayesnoise plot difference-sum | p-values |
difficulty``); the question x model heat map is ``bn.plot.heatmap``."""

from __future__ import annotations

from ._inputs import dataset


def _figure(drawn):
    return getattr(drawn, "figure", drawn)


def difference_sum(data, *, progress=True, **read):
    """Eval-Arena's pair wins: ``|wins A - wins B|`` against wins A + wins B, with the McNemar
    significance curves at 0.05, 0.1 and 0.2."""
    from bayesnoise.plots.quality import plot_difference_sum

    return _figure(plot_difference_sum(dataset(data, progress=progress, **read)))


def p_values(data, *, progress=True, **read):
    """Each pair's p-values (paired t, sign test) against its accuracy difference."""
    from bayesnoise.plots.quality import plot_pvalue_difference

    return _figure(plot_pvalue_difference(dataset(data, progress=progress, **read)))


def difficulty(data, *, progress=True, **read):
    """Histogram of the questions' accuracy over the models, unsolved questions apart."""
    from bayesnoise.plots.quality import plot_difficulty

    return _figure(plot_difficulty(dataset(data, progress=progress, **read)))
