"""Shared fixtures: the third-party reference data beside the checkout, skipped when absent."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("BAYESNOISE_SHARED_DATA", REPO.parent / "shared" / "data"))
BUNDLED = REPO / "examples" / "data"


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
