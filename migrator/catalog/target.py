"""Which sglang releases a run migrates to: a set of releases, not one.

sglang's DFLASH names move and vanish inside the V2 era (DFM301, DFM302, DFM305), so a
fix that is right for the newest release can break a fork on the release its users run.
A run's target is therefore a set of releases, oldest first, and where it came from:

* ``--target-version`` or ``target-version`` in ``[tool.dflash-migrate]``: one release
  (``0.5.17``), a range (``0.5.14..0.5.23``) or a PEP 440 specifier (``>=0.5.16,<0.5.22``);
* else the fork's own pin on sglang (``[project] dependencies`` of ``pyproject.toml`` and
  every ``requirements*.txt`` in the configuration root; several pins are intersected),
  intersected with the V2 releases the catalog knows;
* else (no pin, or a pin that allows no V2 release, such as ``==0.5.13``): every V2
  release the catalog knows.

An installed sglang never narrows the range; the summary says when it lies outside.
``packaging`` is imported only where a range or a pin is parsed: a run with neither
starts no slower.
"""

from __future__ import annotations

from pathlib import Path

from migrator import catalog
from migrator.base.patterns import on_first_use
from migrator.base.records import NamedTuple, record

_RANGE = on_first_use(r"^\s*([^.\s][^\s]*?)\s*\.\.\s*([^\s]+)\s*$")
_SPECIFIER_CHARS = set("<>=!~,")


class TargetError(ValueError):
    """A target the user wrote (or pinned) that names no release to migrate to."""


@record
class Target(NamedTuple):
    """``releases`` (oldest first), ``source`` (where they came from, for the summary) and
    ``notes`` (what the user should know about the choice)."""

    releases: tuple[str, ...]
    source: str
    notes: tuple[str, ...] = ()

    @property
    def newest(self) -> str:
        return self.releases[-1]

    @property
    def label(self) -> str:
        return label(self.releases)


def label(releases: tuple[str, ...]) -> str:
    """``0.5.14..0.5.23`` for releases that follow each other in the catalog, else a list."""
    if len(releases) == 1:
        return releases[0]
    known = catalog.RELEASES
    if all(r in known for r in releases):
        first, last = known.index(releases[0]), known.index(releases[-1])
        if known[first:last + 1] == releases:
            return f"{releases[0]}..{releases[-1]}"
    return ", ".join(releases)


def v2_releases() -> tuple[str, ...]:
    first = catalog.parse_version(catalog.FIRST_V2_RELEASE)
    return tuple(r for r in catalog.RELEASES if catalog.parse_version(r) >= first)


def parse(text: str, where: str) -> Target:
    """``text`` (one release, ``A..B`` or a PEP 440 specifier) as a target; ``where`` names
    the flag or file for the summary and for errors (TargetError)."""
    match = _RANGE().match(text)
    if match:
        first, last = (_release(part, where) for part in match.groups())
        if catalog.parse_version(first) > catalog.parse_version(last):
            raise TargetError(f"{where}: {text!r}: the range ends before it starts")
        low, high = catalog.parse_version(first), catalog.parse_version(last)
        releases = tuple(r for r in catalog.RELEASES if low <= catalog.parse_version(r) <= high)
        releases = tuple(dict.fromkeys((first, *releases, last)))  # ends the catalog does not know yet
        return Target(tuple(sorted(releases, key=catalog.parse_version)), f"{where} {text.strip()}")
    if _SPECIFIER_CHARS & set(text):
        specifier = _specifier(text, where)
        releases = tuple(r for r in v2_releases() if specifier.contains(r, prereleases=True))
        if not releases:
            raise TargetError(f"{where}: {text!r} allows no V2 release the catalog knows "
                              f"({catalog.FIRST_V2_RELEASE} to {catalog.NEWEST_RELEASE})")
        return Target(releases, f"{where} {text.strip()}")
    return Target((_release(text, where),), f"{where} {text.strip()}")


def _release(text: str, where: str) -> str:
    try:
        return catalog.target_release(text)
    except ValueError as error:
        raise TargetError(f"{where}: {error}") from None


def _specifier(text: str, where: str):  # -> packaging.specifiers.SpecifierSet
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return SpecifierSet(text.strip())
    except InvalidSpecifier as error:
        raise TargetError(f"{where}: {text!r} is neither a release, a range (A..B) nor a PEP 440 specifier ({error})") \
            from None


# ---- the fork's own pin ------------------------------------------------------------------


def pinned(pins: list[tuple[Path, str, str]]) -> Target:
    """The target of a run without ``--target-version`` or ``target-version``: the sglang
    pins (file, specifier text, requirement as written; ``migrator.run.config.sglang_pins``)
    intersected with the known V2 releases."""
    everything = v2_releases()
    if not pins:
        return Target(everything, "no sglang pin found: every V2 release the catalog knows")
    allowed = set(catalog.RELEASES)
    kept: list[tuple[Path, str]] = []
    for path, text, written in pins:
        specifier = _specifier(text, str(path))
        narrowed = allowed & {r for r in catalog.RELEASES if specifier.contains(r, prereleases=True)}
        if kept and not narrowed:
            shown = " and ".join(f"`{w}` in {p}" for p, w in (*kept, (path, written)))
            raise TargetError(f"the sglang pins {shown} allow no common release")
        allowed = narrowed
        kept.append((path, written))
    releases = tuple(r for r in everything if r in allowed)
    named = "; ".join(f"{written} in {path.name}" for path, written in kept)
    if not releases:
        return Target(everything, f"{named} allows no V2 release: every V2 release the catalog knows")
    return Target(releases, named)


def installed_note(target: Target) -> tuple[str, ...]:
    """A note when the installed sglang (V2) lies outside the target: it no longer narrows it."""
    installed = catalog.installed_version("sglang")
    if installed is None:
        return ()
    try:
        parsed = catalog.parse_version(installed)
    except ValueError:
        return ()
    if parsed < catalog.parse_version(catalog.FIRST_V2_RELEASE):
        return ()
    release = ".".join(str(p) for p in parsed[:3])
    if release in target.releases:
        return ()
    return (f"the installed sglang {installed} lies outside the target",)

