"""Shared fixtures: the third-party reference data beside the checkout, skipped when absent."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("BAYESNOISE_SHARED_DATA", REPO.parent / "shared" / "data"))
BUNDLED = REPO / "examples" / "data"

# One BLAS thread per test process (issue 33): the suite's matrices are small and OpenBLAS's
# thread pool spins on them. At load 10 on 2 cores, tests/test_quality.py, test_freq_speed.py
# and test_pvalues.py took 24.9 s CPU / 64 s wall with OpenBLAS's default threads and
# 13.6 s / 31 s with one. A thread count set in the environment wins; subprocesses (the CLI
# tests) inherit the variable; threadpoolctl (a PyMC dependency) covers a numpy already loaded.
_BLAS_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
if not any(os.environ.get(v) for v in _BLAS_THREAD_VARS):
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    import threadpoolctl

    threadpoolctl.threadpool_limits(1, user_api="blas")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path of ``../shared/data``; the test is skipped when the folder is not there."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"reference data not found at {SHARED_DATA}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def bundled_data() -> Path:
    """Folder of the small real data set shipped with the repository."""
    return BUNDLED


# The CI budget (issue 33): README's test command runs the whole default suite on 2 cores in a
# few minutes only if no single test is a simulation study. When the default selection runs
# (``pytest`` with no paths, no -k, no -m, nothing deselected), the session fails if a test's
# call took longer than BAYESNOISE_SLOWEST_TEST_S seconds (default 10; raise it on a loaded
# machine, "inf" switches the check off). Long studies belong in benchmarks/ or studies/.
SLOWEST_TEST_ENV = "BAYESNOISE_SLOWEST_TEST_S"


def _slowest_limit() -> float:
    raw = os.environ.get(SLOWEST_TEST_ENV, "10")
    try:
        return float(raw)
    except ValueError:
        raise pytest.UsageError(f"{SLOWEST_TEST_ENV}={raw!r}: give a number of seconds") from None


def _whole_default_suite(config) -> bool:
    """True when pytest runs every test of ``testpaths`` (not a file subset, -k, -m, --lf)."""
    opt = config.option
    if opt.keyword or opt.markexpr or getattr(opt, "deselect", None):
        return False
    if getattr(opt, "lf", False):  # --last-failed deselects
        return False
    if config.args_source == pytest.Config.ArgsSource.TESTPATHS:
        return True
    root = config.rootpath
    given = {(config.invocation_params.dir / a).resolve() for a in config.args}
    return given == {(root / p).resolve() for p in config.getini("testpaths")}


class _SlowestTestGuard:
    """Registered as a plugin so that it sees every test, the doctests of bayesnoise/ too (hooks
    of a conftest.py only see the items under its folder)."""

    def __init__(self):
        self.call_seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report):
        if report.when == "call":
            self.call_seconds[report.nodeid] = report.duration

    def offenders(self, config):
        limit = _slowest_limit()
        if not _whole_default_suite(config):
            return limit, []
        slow = sorted(((s, n) for n, s in self.call_seconds.items() if s > limit), reverse=True)
        return limit, slow

    def pytest_sessionfinish(self, session, exitstatus):
        _, slow = self.offenders(session.config)
        if slow and exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter, exitstatus, config):
        limit, slow = self.offenders(config)
        if slow:
            title = f"tests slower than {limit:g} s ({SLOWEST_TEST_ENV})"
            terminalreporter.section(title, red=True)
            for seconds, nodeid in slow:
                terminalreporter.line(f"{seconds:8.2f}s {nodeid}")
            terminalreporter.line(
                f"the default suite fails when a test takes more than {limit:g} s: shrink it (or "
                f"move the study to benchmarks/); on a loaded machine set {SLOWEST_TEST_ENV}"
            )


def pytest_configure(config):
    _slowest_limit()  # a bad value is a usage error before any test runs
    config.pluginmanager.register(_SlowestTestGuard(), "bayesnoise-slowest-test-guard")
