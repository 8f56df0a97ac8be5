"""Fixtures shared by test modules."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def sglang_0_5_13() -> Path:
    """sglang 0.5.13's source tree from its PyPI wheel (downloaded once, cached)."""
    from migrator.verify.wheels import WheelError, unpacked_wheel

    try:
        return unpacked_wheel("0.5.13") / "sglang"
    except WheelError as error:  # pragma: no cover - offline
        pytest.skip(f"sglang 0.5.13 wheel not available: {error}")
