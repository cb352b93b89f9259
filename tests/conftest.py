"""Shared fixtures. Reference data lives in ../shared (beside the project) and is never copied."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Property tests check values, not speed: on a shared 2-core machine under xdist one example can
# take seconds, so no deadline and no "too slow" health check (a test's own settings still win).
settings.register_profile("tiebreak", deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("tiebreak")

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
_IRDS_TMP = pytest.StashKey[Path]()


def pytest_configure(config):
    """ir_datasets fixes each dataset's directory from IR_DATASETS_HOME when it is first
    imported (PyTerrier imports it too), so a test that points IR_DATASETS_HOME at its own copy
    later would be ignored. Before anything imports it, point IR_DATASETS_HOME at a temporary
    copy of the offline home in ../shared/data (ir_datasets writes into its home), unless the
    user set one."""
    src = SHARED / "data" / "ir_datasets_home"
    if src.is_dir() and "IR_DATASETS_HOME" not in os.environ:
        tmp = Path(tempfile.mkdtemp(prefix="tiebreak-irds-"))
        shutil.copytree(src, tmp / "home")
        os.environ["IR_DATASETS_HOME"] = str(tmp / "home")
        config.stash[_IRDS_TMP] = tmp


def pytest_unconfigure(config):
    tmp = config.stash.get(_IRDS_TMP, None)
    if tmp is not None:
        shutil.rmtree(tmp, ignore_errors=True)
        os.environ.pop("IR_DATASETS_HOME", None)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path of ../shared/data; skips the test with a clear message when it is absent."""
    d = SHARED / "data"
    if not d.is_dir():
        pytest.skip(f"reference data not found at {d} (clone the project beside ../shared)")
    return d
