"""The sglang releases the catalog knows and the arithmetic of their numbers: the release
list (one per wheel of ``migrator.releases.hashes``), ``VersionRange``, the check of a
``--target-version`` and the installed sglang's version (read from its metadata).

Import-light: the CLI's ``--version`` path and the shim import it.
"""

from __future__ import annotations

import os
import sys
from functools import cache

from migrator.base.records import NamedTuple, record
from migrator.releases.hashes import WHEEL_RELEASES

FIRST_V2_RELEASE = "0.5.14"


@cache
def parse_version(text: str) -> tuple[int, ...]:
    """``"0.5.13.post1"`` -> ``(0, 5, 13)``; only the numeric release part matters here."""
    parts: list[int] = []
    for piece in text.strip().lstrip("v").split("."):
        digits = ""
        for ch in piece:
            if not ch.isdigit():
                break
            digits += ch
        if not digits:
            break
        parts.append(int(digits))
        if len(digits) != len(piece):
            break
    if not parts:
        raise ValueError(f"not a version: {text!r}")
    return tuple(parts)


#: Releases the catalog knows, oldest first (post releases behave as their base): one per
#: wheel of ``migrator.releases.hashes``, the one table a new release is added to.
RELEASES: tuple[str, ...] = tuple(sorted(WHEEL_RELEASES, key=parse_version))
NEWEST_RELEASE = RELEASES[-1]


def target_release(text: str) -> str:
    """``text`` checked as a release to migrate to: a full ``X.Y.Z`` release number (a
    ``.postN`` suffix is allowed) no older than the first V2 release. Raises ValueError with
    a message for the user: ``0.5``, ``0`` or ``0.5.13`` would turn every rule off."""
    try:
        parsed = parse_version(text)
    except ValueError:
        parsed = ()
    if len(parsed) < 3:
        raise ValueError(f"{text!r} is not a release number (X.Y.Z, e.g. {NEWEST_RELEASE})")
    if parsed < parse_version(FIRST_V2_RELEASE):
        raise ValueError(f"{text!r} is older than {FIRST_V2_RELEASE}, the first release with the V2 worker "
                         f"(known releases: {FIRST_V2_RELEASE} to {NEWEST_RELEASE})")
    return text.strip()


def next_release(version: str) -> str | None:
    index = RELEASES.index(version)
    return RELEASES[index + 1] if index + 1 < len(RELEASES) else None


@record
class VersionRange(NamedTuple):
    """Inclusive range of sglang releases; ``last=None`` means still present."""

    first: str
    last: str | None = None

    def __contains__(self, version: str) -> bool:
        v = parse_version(version)
        if v < parse_version(self.first):
            return False
        return self.last is None or v <= parse_version(self.last)

    def releases(self) -> tuple[str, ...]:
        return tuple(r for r in RELEASES if r in self)

    def __str__(self) -> str:
        if self.last is None:
            return f"{self.first}+"
        return self.first if self.last == self.first else f"{self.first}–{self.last}"


def installed_version(distribution: str) -> str | None:
    """``Version:`` of the first ``<name>-*.dist-info``/``.egg-info`` on ``sys.path``, the
    lookup ``importlib.metadata.version`` does, without its ~20 ms import (this runs on
    every start of the command line)."""
    prefix = distribution.lower().replace("-", "_") + "-"
    for folder in sys.path:
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        width = len(prefix)
        for name in [name for name in names if name[:width].lower() == prefix]:  # site-packages: hundreds
            if not name.lower().endswith((".dist-info", ".egg-info")):
                continue
            base = os.path.join(folder or ".", name)
            for metadata in (os.path.join(base, "METADATA"), os.path.join(base, "PKG-INFO"), base):
                try:
                    with open(metadata, encoding="utf-8", errors="replace") as handle:
                        for line in handle:
                            if line.startswith("Version:"):
                                return line.partition(":")[2].strip()
                            if not line.strip():
                                break
                except OSError:
                    continue
    return None
