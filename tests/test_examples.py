"""The example scripts run on the bundled data."""

import subprocess
import sys

from conftest import REPO


def test_quickstart_runs():
    out = subprocess.run([sys.executable, str(REPO / "examples" / "quickstart.py")],
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    assert "Closest pair: codellama-python-13b vs mixtral-8x7b" in out
    assert "smallest gap detectable" in out
