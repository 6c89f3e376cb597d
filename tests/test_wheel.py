"""The built wheel works on its own: installed outside the checkout, it finds the reference noise
models it ships (``bayesnoise/_models``) and runs ``reference`` and ``report``.

The wheel is built with ``pip wheel`` (the build backend, hatchling, is taken from the current
environment when installed there, else pip fetches it), installed with ``pip install --no-deps
--target`` into a temporary folder and run with this interpreter: the dependencies come from the
current environment, bayesnoise itself from the temporary folder (checked).
"""

import csv
import importlib.util
import io
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from conftest import BUNDLED, REPO

pytestmark = pytest.mark.slow

TABLES = ("reference_benchmarks.csv", "reference_models.csv")


def _run(args, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, timeout=1800, **kwargs)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    args = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(REPO)]
    if importlib.util.find_spec("hatchling") is not None:
        args.insert(4, "--no-build-isolation")
    done = _run(args, cwd=dist)
    if done.returncode and "hatchling" in done.stderr and "No matching distribution" in done.stderr:
        pytest.skip("the build backend hatchling is neither installed nor downloadable")
    assert done.returncode == 0, done.stderr
    (path,) = dist.glob("bayesnoise-*.whl")
    return path


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """Folder holding the installed wheel (``pip install --no-deps --target``)."""
    site = tmp_path_factory.mktemp("site")
    done = _run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), wheel]
    )
    assert done.returncode == 0, done.stderr
    return site


@pytest.fixture(scope="module")
def run_installed(installed, tmp_path_factory):
    """Run this interpreter in a folder outside the repository, bayesnoise from the wheel."""
    work = tmp_path_factory.mktemp("work")
    env = {k: v for k, v in os.environ.items() if k not in ("BAYESNOISE_MODELS", "PYTHONPATH")}
    env["PYTHONPATH"] = str(installed)

    def run(*args):
        return _run([sys.executable, *args], cwd=work, env=env)

    return run


def test_wheel_ships_the_reference_tables_and_declared_dependencies(wheel):
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        for table in TABLES:
            assert zf.read(f"bayesnoise/_models/{table}") == (REPO / "models" / table).read_bytes()
        assert "bayesnoise/__main__.py" in names
        assert not any(n.startswith("models/") or "/build.py" in n for n in names)
        (meta,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        requires = [
            line.removeprefix("Requires-Dist: ")
            for line in zf.read(meta).decode().splitlines()
            if line.startswith("Requires-Dist: ") and "extra ==" not in line
        ]
    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    assert sorted(r.replace(" ", "") for r in requires) == sorted(
        d.replace(" ", "") for d in declared
    )


def test_installed_wheel_finds_its_packaged_tables(run_installed, installed):
    done = run_installed(
        "-c",
        "import bayesnoise\n"
        "from bayesnoise.reporting._html_reference import models_dir\n"
        "print(bayesnoise.__file__)\n"
        "print(models_dir())\n",
    )
    assert done.returncode == 0, done.stderr
    module_file, folder = done.stdout.splitlines()
    assert Path(module_file).is_relative_to(installed)
    assert Path(folder) == installed / "bayesnoise" / "_models"


def test_installed_reference_command(run_installed):
    done = run_installed("-m", "bayesnoise", "reference", "humaneval+", "--format", "csv")
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert [(r["run"], r["benchmark"]) for r in rows] == [
        ("all-the-noises/main", "humaneval+"),
        ("eval-arena", "humaneval+"),
    ]
    assert all(0 < float(r["se_difference_median_close"]) < 0.2 for r in rows)
    done = run_installed("-m", "bayesnoise", "reference", "no-such-benchmark")
    assert done.returncode == 2
    assert "humaneval+" in done.stderr


def test_installed_report_command(run_installed, tmp_path):
    out = tmp_path / "r.html"
    data = BUNDLED / "cruxeval_output_temp0.8.csv.gz"
    done = run_installed("-m", "bayesnoise", "report", str(data), "-o", str(out), "--no-progress")
    assert done.returncode == 0, done.stderr
    html = out.read_text()
    assert html.lstrip().lower().startswith("<!doctype html")
    # the section compares against the packaged tables (CRUXEval-output-T0.8)
    assert "Against the reference noise models" in html
