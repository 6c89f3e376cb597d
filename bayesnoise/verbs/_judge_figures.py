"""The judge figure of ``bn.plot`` / ``bayesnoise plot judge``."""

from __future__ import annotations


def judge(
    data,
    *,
    judge_col=None,
    human_col=None,
    human=None,
    confidence_level=0.95,
    progress=True,
    **read,
):
    """Each model's accuracy by the judge alone, by the human labels alone and corrected by
    PPI++ (``bn.judge``'s intervals; one judge: the first when there are several).

    Examples
    --------
    >>> import bayesnoise as bn
    >>> fig = bn.plot.judge("examples/data/judge_graded.csv")
    >>> [c.lines[0].get_gid() for c in fig.axes[0].containers]
    ['accuracy_judge', 'accuracy_human', 'accuracy_ppi']
    """
    from bayesnoise.plots.judge import plot_judge_intervals

    from ._result import tidy
    from .judge import judge as judge_verb

    result = judge_verb(
        data,
        judge_col=judge_col,
        human_col=human_col,
        human=human,
        confidence_level=confidence_level,
        progress=progress,
        **read,
    )
    if "judge" in result.dims:
        result = result.isel(judge=0)
        result.attrs["columns"] = result.attrs["columns"][1:]
    ax = plot_judge_intervals(tidy(result), confidence_level=confidence_level)
    return ax.figure
