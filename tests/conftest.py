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


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty folder marked as a repository top (for repository-relative report paths),
    made the current folder. Test modules that need another layout define their own."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path
