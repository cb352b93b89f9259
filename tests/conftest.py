"""Shared fixtures. Reference data lives in ../shared (beside the project) and is never copied."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Path of ../shared/data; skips the test with a clear message when it is absent."""
    d = SHARED / "data"
    if not d.is_dir():
        pytest.skip(f"reference data not found at {d} (clone the project beside ../shared)")
    return d
