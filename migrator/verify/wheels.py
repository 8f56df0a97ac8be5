"""Released sglang wheels from PyPI, downloaded once into a cache and unpacked on demand.

Used by ``dflash-migrate verify --target-version`` and by the test suite (catalog truth
test, shim tests, whole-tree checks). Nothing here imports sglang: wheels are read as
zip archives. The cache lives in ``$DFLASH_MIGRATE_CACHE`` (default
``~/.cache/dflash-migrate``), shared by every test module and every run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path


class WheelError(RuntimeError):
    pass


def cache_dir() -> Path:
    root = os.environ.get("DFLASH_MIGRATE_CACHE")
    return Path(root).expanduser() if root else Path.home() / ".cache" / "dflash-migrate"


def _find_cached_wheel(folder: Path, version: str) -> Path | None:
    matches = sorted(folder.glob(f"sglang-{version}-*.whl"))
    return matches[0] if matches else None


def cached_wheel(version: str) -> Path | None:
    """The wheel of ``sglang==version`` if it is already in the cache (never downloads)."""
    return _find_cached_wheel(cache_dir() / "wheels", version)


def download_wheel(version: str) -> Path:
    """Path of ``sglang==version``'s wheel, downloading it (no dependencies) if needed."""
    folder = cache_dir() / "wheels"
    folder.mkdir(parents=True, exist_ok=True)
    cached = _find_cached_wheel(folder, version)
    if cached:
        return cached
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                   "--only-binary=:all:", "--dest", tmp, f"sglang=={version}"]
        proc = subprocess.run(command, capture_output=True, text=True)
        if proc.returncode != 0:
            raise WheelError(f"could not download sglang=={version} from PyPI: {proc.stderr.strip()[-500:]}")
        got = _find_cached_wheel(Path(tmp), version)
        if got is None:
            raise WheelError(f"pip did not produce a wheel for sglang=={version}")
        final = folder / got.name
        os.replace(got, final)
        return final


def unpacked_wheel(version: str) -> Path:
    """A folder holding the unpacked wheel (``<folder>/sglang/...``), cached."""
    target = cache_dir() / "trees" / version
    marker = target / ".complete"
    if marker.exists():
        return target
    wheel = download_wheel(version)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{version}-"))
    try:
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(staging)
        (staging / ".complete").write_text(wheel.name)
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging, target)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return target
