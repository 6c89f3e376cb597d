"""One self-contained HTML page per eval: summary, tables, verdicts, figures and data notes.

Every number shown comes from the estimators (:mod:`bayesnoise.frequentist`,
:mod:`bayesnoise.conjugate`, :mod:`bayesnoise.decide`); this module arranges and words them.
The page is rendered from the jinja2 templates in ``templates/`` (HTML autoescaped) and needs
no network: CSS and a few lines of JS (sortable tables) are inline and the figures are base64
PNGs.
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

import numpy as np

from bayesnoise._common import new_spellings, reject_old
from bayesnoise.data import DataError

from ._html_blocks import section_html
from ._html_headline import headline
from ._html_reference import matching, read_references, reference_rows
from ._html_render import png_data_uri, render_template, slug
from ._html_sections import (
    Section,
    compute_section,
    forest_pages,
    ranks_part,
    summary,
    typical_components,
)

__all__ = [
    "Section",
    "benchmark_section",
    "reference_table",
    "render_report",
    "typical_components",
    "write_report",
]


def reference_table(benchmark: str, *, accuracy=None, models_dir=None):
    """The reference noise of a public benchmark from the repository's ``models/`` tables.

    Parameters
    ----------
    benchmark : str
        Name as in ``models/reference_benchmarks.csv`` (case, punctuation and ``temp``/``T``
        are ignored when matching).
    accuracy : float, optional
        Add the Beta-theory SEs of a model at this accuracy and of a close pair around it, with
        the benchmark's kappa (:func:`bayesnoise.conjugate.theory_se_difference`).
    models_dir : path, optional
        Folder of the reference tables (default: ``$BAYESNOISE_MODELS`` or ``models/``).

    Returns
    -------
    pandas.DataFrame
        One row per run that measured the benchmark; ``se_difference_median_close`` is the median paired
        total SE of its close pairs, ``se_model`` the median per-model total SE.

    Examples
    --------
    >>> t = reference_table("humaneval+", accuracy=0.5)  # doctest: +SKIP
    >>> t[["run", "questions", "se_difference_median_close", "se_model_theory"]]  # doctest: +SKIP
    """
    return reference_rows(benchmark, accuracy, models_dir)


def _figures(section: Section, ds, paired_ds, close, step, heatmap=True) -> None:
    from bayesnoise import plots

    def add(name, caption, draw):
        try:
            section.figures[name] = (png_data_uri(draw()), caption)
        except DataError as err:
            section.notes.append(f"figure '{name}' left out: {err}")

    pairs, models = section.pairs, section.models
    n_pairs = len(close) if close is not None else 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # already recorded as notes by compute_section
        step("figures")
        if pairs is not None:
            add(
                "noise",
                f"Paired SE of the {n_pairs} close pairs against accuracy, with the "
                "Beta(p, 1-p) theory and the benchmark's fitted-kappa curve (paper Figure 1).",
                lambda: plots.plot_noise_vs_accuracy(
                    paired_ds, pairs=pairs, kappa=section.data["kappa"]
                ),
            )
        if heatmap:  # else drawn in the "Benchmark quality" block
            add(
                "heatmap",
                "Per-question accuracy, questions easiest first, models by accuracy "
                "(paper Figure 4).",
                lambda: plots.plot_heatmap(ds),
            )
        add(
            "cdf",
            "Per-question accuracy CDFs of models grouped by accuracy against their fitted "
            "Beta distributions (paper Figure 6).",
            lambda: plots.plot_question_cdfs(ds, groups=section.data["groups"]),
        )
        if "ubar_low" in models.columns:
            for j, (rows, xlim, part) in enumerate(forest_pages(models)):
                add(
                    "forest" if not j else f"forest{j + 1}",
                    "Each model's accuracy with frequentist and Bayesian intervals, for "
                    f"these questions and for the population{part}.",
                    lambda rows=rows, xlim=xlim: plots.plot_forest(models.iloc[rows], xlim=xlim),
                )
        if pairs is not None:
            add(
                "matrix",
                "All pairs: z of A - B, models ordered by accuracy; dots mark "
                "Holm-adjusted p < 0.05.",
                lambda: plots.plot_pair_matrix(pairs),
            )
            add(
                "scatter",
                "Accuracy of A against B for every pair, coloured by the pair's "
                "p-value (Eval-Arena's view).",
                lambda: plots.plot_accuracy_scatter(pairs),
            )
            comps = section.data.get("components")
            if comps and n_pairs:
                add(
                    "power",
                    "Smallest difference detectable (80% power, 5% two-sided) for the "
                    "median close pair's noise components, against N and against K.",
                    lambda: plots.plot_power(
                        comps["data"],
                        comps["prediction"],
                        n=paired_ds.sizes["question"],
                        k=section.data["k"],
                        total=comps["total"],
                    ),
                )


def benchmark_section(
    ds,
    *,
    title=None,
    confidence_level=0.95,
    rng=0,
    on_missing="raise",
    figures=True,
    models_dir=None,
    progress=None,
):
    """Compute one benchmark's section of the report.

    Parameters
    ----------
    ds : xarray.Dataset
        From :func:`bayesnoise.load`.
    title : str, optional
        Default: the dataset's benchmark name.
    confidence_level : float, default 0.95
    rng : int or numpy.random.Generator, default 0
        Seed of the Monte Carlo parts of the Bayesian answers.
    on_missing : {"raise", "intersect"}
        Pairs need the same questions (see :func:`bayesnoise.complete`).
    figures : bool, default True
    models_dir : path, optional
        Reference tables (matched by benchmark name; silently none when absent).
    progress : callable, optional
        Called with a short text before each step.

    Returns
    -------
    Section
        ``summary`` (dict), ``models`` and ``pairs`` tables (pairs with ``verdict``), ``notes``,
        ``figures`` (name -> (data URI, caption)), ``references``.

    Examples
    --------
    >>> import numpy as np, bayesnoise as bn
    >>> rng = np.random.default_rng(0)
    >>> u = rng.beta(1, 1, 60)
    >>> ds = bn.from_arrays(rng.binomial(4, np.broadcast_to(u, (3, 60))), np.full((3, 60), 4))
    >>> s = benchmark_section(ds, figures=False)
    >>> len(s.models), len(s.pairs)
    (3, 3)
    """
    from bayesnoise import decide

    title = title or str(ds.attrs.get("benchmark", "benchmark"))
    models, pairs, paired_ds, notes = compute_section(
        ds,
        title=title,
        confidence_level=confidence_level,
        rng=rng,
        on_missing=on_missing,
        progress=progress,
    )
    section = Section(title, str(ds.attrs.get("source", "")), {}, models, pairs, notes)
    if paired_ds is not None:
        section.ranks = ranks_part(paired_ds, confidence_level, rng, notes, progress)
    close = None
    section.data["k"] = float(np.median(models["samples_per_question"]))
    if pairs is not None:
        n = paired_ds.sizes["question"]
        family = pairs.attrs.get("family_size", len(pairs))
        # rows as dicts: iterrows builds a Series per pair (M = 200: 19,900 of them, ~1 s)
        pairs["verdict"] = [
            decide.verdict(r, n=n, k=section.data["k"], family=family)
            for r in pairs.to_dict("records")
        ]
        close = decide.close_pairs(pairs)
        section.data["components"] = typical_components(close)
    section.summary = summary(ds, models, pairs, close if close is not None else pairs)
    section.data["close"] = close
    section.data["headline"] = headline(section, paired_ds, confidence_level)
    kappa_ds = paired_ds if paired_ds is not None else ds
    section.data["kappa"], groups = _benchmark_kappa(kappa_ds)
    # the CDF figure shows the same group fits when it draws the same questions
    section.data["groups"] = groups if kappa_ds.sizes == ds.sizes else None
    _match_references(section, ds, models_dir)
    if paired_ds is not None:  # benchmark quality: questions, win rate, Elo, SNR
        from ._html_quality import quality_block

        section.blocks.append(
            quality_block(
                paired_ds,
                sid=slug(title),
                confidence_level=confidence_level,
                rng=rng,
                notes=section.notes,
                progress=progress,
                figures=figures,
                pairs=pairs,
                full=ds,
            )
        )
    if figures:
        _figures(section, ds, paired_ds, close, progress or (lambda text: None), paired_ds is None)
    return section


def _benchmark_kappa(ds):
    from bayesnoise.conjugate import benchmark_kappa
    from bayesnoise.data import beta_binomial_counts

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return benchmark_kappa(*beta_binomial_counts(ds))
    except ValueError:  # DataError (fractional scores) or kappa not identifiable
        return None, None


def _match_references(section, ds, models_dir) -> None:
    try:
        benches, _ = read_references(models_dir)
    except DataError:
        return
    rows = matching(benches, str(ds.attrs.get("benchmark", "")))
    if rows.empty:
        return
    section.references = reference_rows(str(ds.attrs.get("benchmark", "")), None, models_dir)
    close = section.data["close"]
    here = {
        "questions": section.summary.get("questions every model answered", ds.sizes["question"]),
        "k": section.summary["samples per question (K)"],
        "close": 0 if close is None else len(close),
        "kappa": section.data["kappa"] if section.data["kappa"] is not None else np.nan,
    }
    for key, column in (
        ("se", "se_total"),
        ("se_data", "se_data"),
        ("se_prediction", "se_prediction"),
    ):
        values = close[column].to_numpy(float) if close is not None else np.array([])
        here[key] = float(np.nanmedian(values)) if np.isfinite(values).any() else np.nan
    section.data["here"] = here


def render_report(sections, *, title="bayesnoise report", confidence_level=0.95) -> str:
    """The complete HTML page; an index of sections when there are several.

    Examples
    --------
    >>> "<!DOCTYPE html>" in render_report([])
    True
    """
    from bayesnoise import __version__

    index = [
        {
            "id": slug(s.title),
            "title": s.title,
            "models": s.summary.get("models"),
            "questions": s.summary.get("questions"),
        }
        for s in sections
    ]
    return render_template(
        "report.html.j2",
        title=title,
        version=__version__,
        index=index,
        sections=[section_html(s, confidence_level) for s in sections],
    )


@new_spellings
def write_report(
    inputs,
    path,
    *,
    benchmark=None,
    title="bayesnoise report",
    confidence_level=0.95,
    rng=0,
    on_missing="raise",
    progress=True,
    models_dir=None,
    **old,
):
    """Load each input, compute its section and write one self-contained HTML file.

    Parameters
    ----------
    inputs : sequence of path or xarray.Dataset, or mapping of title -> either
        One section per input.
    path : path
        The ``.html`` file to write.
    benchmark : str, optional
        Passed to :func:`bayesnoise.load` for files holding several benchmarks.
    title : str, default "bayesnoise report"
        The page's title.
    confidence_level : float, default 0.95
        Level of every interval in the report.
    rng : int or numpy.random.Generator, default 0
        Seed (or generator) of the Monte Carlo intervals.
    on_missing : {"raise", "intersect"}, default "raise"
        What to do when models do not cover the same questions (see
        :func:`bayesnoise.complete`).
    progress : bool, default True
        Progress lines on standard error.
    models_dir : path, optional
        Folder of the reference noise tables (default: the packaged copy).

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> write_report(["examples/data/cruxeval_output_temp0.8.csv.gz"], "r.html")  # doctest: +SKIP
    """
    reject_old("write_report", old)
    from bayesnoise.io import load

    items = list(inputs.items()) if hasattr(inputs, "items") else [(None, x) for x in inputs]
    sections = []
    for i, (label, item) in enumerate(items, 1):
        name = label or (Path(item).name if isinstance(item, (str, Path)) else None)
        start = time.perf_counter()

        def step(text, i=i, name=name, start=start):
            if progress:
                print(
                    f"[{i}/{len(items)}] {name}: {text} ({time.perf_counter() - start:.0f} s)",
                    file=sys.stderr,
                    flush=True,
                )

        step("loading")
        ds = load(item, benchmark=benchmark) if isinstance(item, (str, Path)) else item
        sections.append(
            benchmark_section(
                ds,
                title=label,
                confidence_level=confidence_level,
                rng=rng,
                on_missing=on_missing,
                models_dir=models_dir,
                progress=step if progress else None,
            )
        )
    titles = [s.title for s in sections]
    for s in sections:  # distinct anchors when two inputs share a benchmark name
        if titles.count(s.title) > 1:
            s.title = f"{s.title} ({Path(s.source).name})"
    out = Path(path)
    out.write_text(render_report(sections, title=title, confidence_level=confidence_level))
    return out
