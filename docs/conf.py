"""Sphinx configuration of lowdim's documentation site (built by scripts/docs.sh)."""

import os
import warnings

import lowdim

project = "lowdim"
author = "the lowdim developers"
copyright = "2026, the lowdim developers"
release = version = lowdim.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "generated/*.examples", "sg_execution_times.rst"]
templates_path = ["_templates"]

autosummary_generate = True
autodoc_default_options = {"inherited-members": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# Every public name's docstring is checked by tests/test_docstrings.py (numpydoc's
# validator), so the build itself does not repeat it.
numpydoc_validation_checks = set()

intersphinx_mapping = {}  # no network at build time

myst_heading_anchors = 3
suppress_warnings = ["myst.header"]

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "show_memory": False,
    "min_reported_time": 1,
    "write_computation_times": False,  # its page loads a table script from a CDN
    "parallel": 2,  # two examples at a time, each in its own process (the machines have two cores or more)
}
# each of the two example processes computes with its share of the cores (the processes
# inherit these), so that their BLAS and numba threads do not wait on one another
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_variable, str(max((os.cpu_count() or 1) // sphinx_gallery_conf["parallel"], 1)))

html_theme = "pydata_sphinx_theme"
html_title = f"lowdim {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_prev_next": True,
    "secondary_sidebar_items": ["page-toc"],
}
html_context = {"default_mode": "light"}  # a fresh browser has no stored mode

# matplotlib draws off screen while the gallery runs
os.environ.setdefault("MPLBACKEND", "Agg")
warnings.filterwarnings("ignore", message="Matplotlib is currently using agg")
