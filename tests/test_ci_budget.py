"""The CI budget guard of tests/conftest.py (issue 33): the default suite fails when a test is slow.

Oracle: a throw-away project with the same conftest, two tests that sleep 0.3 s (one in a folder
without the conftest) and one that does not, run by pytest in a subprocess; the limit set to 0.2 s through the environment. The
sleep is longer than the limit by 0.1 s, far above timer resolution; the fast test takes
microseconds, far below it.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).with_name("conftest.py")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("budget")
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["t", "u"]\n')
    (root / "t").mkdir()
    shutil.copy(CONFTEST, root / "t" / "conftest.py")
    (root / "t" / "test_a.py").write_text(
        "import time\n\ndef test_sleeps():\n    time.sleep(0.3)\n\ndef test_fast():\n    pass\n"
    )
    # a folder without the conftest (as bayesnoise/ for its doctests): the guard sees it too
    (root / "u").mkdir()
    (root / "u" / "test_b.py").write_text("import time\n\ndef test_naps():\n    time.sleep(0.3)\n")
    return root


def _run(root, *args, limit="0.2"):
    # no third-party plugins: the run starts in ~0.5 s instead of ~2 s
    env = {**os.environ, "BAYESNOISE_SLOWEST_TEST_S": limit, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    return subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=120)


def test_whole_default_suite_fails_on_a_slow_test_and_names_it(project):
    out = _run(project)
    assert out.returncode == 1, out.stdout
    assert "3 passed" in out.stdout
    assert "tests slower than 0.2 s (BAYESNOISE_SLOWEST_TEST_S)" in out.stdout
    listed = out.stdout.split("tests slower than")[1]
    assert "t/test_a.py::test_sleeps" in listed and "u/test_b.py::test_naps" in listed
    assert "test_fast" not in listed


def test_a_subset_is_not_checked(project):
    # -k, -m and a file path each select a subset; one run with all three
    out = _run(project, "-k", "sleeps", "-m", "not slow", "t/test_a.py")
    assert out.returncode == 0, out.stdout
    assert "1 passed" in out.stdout and "tests slower than" not in out.stdout


def test_the_limit_is_an_environment_variable(project):
    out = _run(project, limit="5")
    assert out.returncode == 0 and "tests slower than" not in out.stdout, out.stdout
