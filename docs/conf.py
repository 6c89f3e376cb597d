"""Sphinx configuration of the bayesnoise documentation.

Build locally (from the repository root)::

    pip install -e ".[docs]"
    python -m sphinx -W --keep-going -b html docs docs/_build/html

Everything is offline: no intersphinx inventories, bundled data only. The tutorials in
``docs/examples_gallery/`` are executed by sphinx-gallery at every build, so every figure is
drawn by the code; the glossary is written from the column registry (``_ext/bn_glossary.py``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))
sys.path.insert(0, str(ROOT))
import bayesnoise  # noqa: E402

project = "bayesnoise"
author = "the bayesnoise authors"
copyright = "the bayesnoise authors; MIT licence"
version = release = bayesnoise.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "matplotlib.sphinxext.plot_directive",
    "bn_glossary",
    "bn_command",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "_generated",
    "examples_gallery",
    "**.ipynb_checkpoints",
    "auto_examples/*.ipynb",
]
templates_path = ["_templates"]

# MyST: $...$ maths, ::: fences, heading anchors for links such as [x](loading.md#saving).
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# API reference: autosummary writes one page per verb and per lower-level module.
autosummary_generate = True
autosummary_imported_members = False
autosummary_ignore_module_all = False  # a module's page lists its __all__
autodoc_default_options = {"members": True, "inherited-members": False}
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# Check the sections every public docstring must have; the rest of numpydoc's style checks
# (summary punctuation, "See Also" completeness, ...) are not enforced.
numpydoc_validation_checks = {"GL06", "GL07", "GL08", "PR10", "SS01"}
numpydoc_validation_exclude = {r"\.__init__$", r"\._[a-z]"}

# Gallery: the tutorials, executed at every build from the repository root.
sphinx_gallery_conf = {
    "examples_dirs": ["examples_gallery"],
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "plot_gallery": "True",
    "reference_url": {"bayesnoise": None},
    "show_memory": False,
    "capture_repr": ("_repr_html_", "__repr__"),
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib",),
    "run_stale_examples": False,
    "show_signature": False,
    "write_computation_times": False,
}

# The plot directive (figures in the how-to guides) runs from the repository root too.
plot_working_directory = str(ROOT)
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 100)]
plot_rcparams = {"figure.dpi": 100}

html_theme = "pydata_sphinx_theme"
html_title = f"bayesnoise {release}"
html_static_path: list[str] = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 7,
    "navbar_align": "left",
    "secondary_sidebar_items": ["page-toc", "sourcelink"],
}
html_context = {"default_mode": "light"}
html_show_sourcelink = False
