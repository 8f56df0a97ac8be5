"""Released sglang wheels from PyPI, downloaded once into a cache and unpacked on demand.

Used by ``dflash-migrate verify --target-version`` and by the test suite (catalog truth
test, shim tests, whole-tree checks). Nothing here imports sglang: wheels are read as
zip archives. The cache lives in ``$DFLASH_MIGRATE_CACHE`` (default
``~/.cache/dflash-migrate``), shared by every test module and every run.

pip runs isolated (``python -I``: no ``PYTHONPATH``, no user site, no current folder on
``sys.path``) from a fresh empty folder: started in a scanned repository, ``python -m pip``
would import that repository's own ``pip/`` (or any module pip imports) first. pip's own
configuration (``PIP_*`` variables, ``pip.conf``: private mirrors, proxies) is kept. Every
wheel is checked before use: a release's wheel against ``migrator.releases.hashes``, any
other against the sha256 recorded beside it when it was downloaded.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from migrator.base.user_cache import cache_dir  # noqa: F401 - its home is light; callers name it here too
from migrator.releases.hashes import WHEEL_SHA256


class WheelError(RuntimeError):
    pass


def _find_cached_wheel(folder: Path, version: str) -> Path | None:
    matches = sorted(folder.glob(f"sglang-{version}-*.whl"))
    return matches[0] if matches else None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        while chunk := stream.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _record(wheel: Path) -> Path:
    """Where the sha256 of a wheel that is not in the release table is kept."""
    return wheel.with_name(wheel.name + ".sha256")


def _expected(wheel: Path) -> tuple[str | None, str]:
    """(expected sha256, where it comes from) for a wheel of the cache."""
    if wheel.name in WHEEL_SHA256:
        return WHEEL_SHA256[wheel.name], "the known release's hash"
    try:
        return _record(wheel).read_text().strip(), "the hash recorded at download"
    except OSError:
        return None, "no known or recorded hash"


def checked(wheel: Path) -> Path:
    """``wheel`` if its sha256 is the expected one; a ``WheelError`` (the wheel is not used) if not."""
    expected, source = _expected(wheel)
    actual = _sha256(wheel)
    if actual != expected:
        raise WheelError(f"{wheel}: sha256 {actual} does not match {source}"
                         + (f" ({expected})" if expected else "") + ": not used; delete it to download it again")
    return wheel


def cached_wheel(version: str) -> Path | None:
    """The wheel of ``sglang==version`` if it is already in the cache (never downloads);
    raises ``WheelError`` if its bytes are not the expected ones."""
    wheel = _find_cached_wheel(cache_dir() / "wheels", version)
    return checked(wheel) if wheel is not None else None


def download_wheel(version: str) -> Path:
    """Path of ``sglang==version``'s wheel, downloading it (no dependencies) if needed."""
    folder = cache_dir() / "wheels"
    folder.mkdir(parents=True, exist_ok=True)
    cached = _find_cached_wheel(folder, version)
    if cached:
        return checked(cached)
    with tempfile.TemporaryDirectory(dir=folder) as tmp, tempfile.TemporaryDirectory() as empty:
        command = [sys.executable, "-I", "-m", "pip", "download", "--quiet", "--no-deps",
                   "--only-binary=:all:", "--dest", tmp, f"sglang=={version}"]
        proc = subprocess.run(command, capture_output=True, text=True, cwd=empty)
        if proc.returncode != 0:
            raise WheelError(f"could not download sglang=={version} from PyPI: {proc.stderr.strip()[-500:]}")
        got = _find_cached_wheel(Path(tmp), version)
        if got is None:
            raise WheelError(f"pip did not produce a wheel for sglang=={version}")

        digest = _sha256(got)
        if got.name in WHEEL_SHA256 and digest != WHEEL_SHA256[got.name]:
            raise WheelError(f"downloaded {got.name}: sha256 {digest} does not match the known release's hash "
                             f"({WHEEL_SHA256[got.name]}): not used")
        final = folder / got.name
        _record(final).write_text(digest + "\n")
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
