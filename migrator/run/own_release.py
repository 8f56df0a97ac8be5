"""A file's own release: what the repository says about the one sglang release a file is for.

Repositories keep recipes, images and scripts per release: ``recipes/v0.5.6/model.yaml``,
``deploy/sglang-0.5.12/run.sh``, a Dockerfile ``FROM lmsysorg/sglang:v0.5.6``, a compose
file naming that image. The run's target (a pin, ``--target-version``) speaks for the
repository; such a file speaks for itself, and a V2-era fix in a file for 0.5.6 changes
what it does there (removing ``SGLANG_ENABLE_SPEC_V2: "1"`` turns V2 off on 0.5.6, where it
defaults to off). :func:`own_release` reads it from the file's path (the innermost folder
or file name that is a release: ``v0.5.6``, ``0.5.6``, ``sglang-0.5.12``,
``sglang_v0.5.12``) or, first, from the file itself (an ``lmsysorg/sglang`` image tag, a
Dockerfile ``ARG SGLANG_VERSION=``): one release named there, or none where it names several.

The repository can also say it for a part of the tree (:func:`release_scopes`, read once per
run by ``migrator.run.engine`` from the pin files it discovers, never per file): a
``requirements*.txt`` or a ``pyproject.toml`` ``[project] dependencies`` pin in a folder below
the one the run's own pin is read from covers that folder's files; a pin in an extra
(``[project.optional-dependencies]``) or a dependency group (``[dependency-groups]``) covers the
files of a folder or module named as the group (extra ``legacy``: ``legacy/``, ``legacy.py``).
A range that also allows V1-era releases counts for its V2 releases; a pin of V1-era releases
only marks its files V1-era where the repository pins a V2 release elsewhere (several
releases side by side), since a repository whose every pin is V1 is one being migrated. A
module-level ``SGLANG_VERSION = "0.5.12"`` constant (any ``*SGLANG_VERSION``/``*SGLANG_RELEASE``
name but a bound's, ``MIN_``/``MAX_``...) names the file's release as its image tag does.

``migrator.run.pipeline`` then narrows the file's target to those releases when they are V2
releases the catalog knows (unless ``--target-version`` is given: the flag wins for the
range); a file for a release before the V2 worker gets no V2-era fix, whatever the flag:
its findings stay (a Python file's as TODOs; a text file's TODO-only fixes are written, its
other findings reported), each saying why. Every output lists each such file and what
said so.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePath

from migrator import catalog
from migrator.base.patterns import on_first_use
from migrator.base.records import NamedTuple, record
from migrator.run.config import ConfigError, pin_groups
from migrator.run.files import PIN_FILE_ENDINGS, is_pin_file

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable

    from packaging.specifiers import SpecifierSet

_RELEASE = r"v?(0\.\d+\.\d+)(?:\.post\d+)?"
#: a folder or file stem that is a release: ``v0.5.6``, ``0.5.6``, ``sglang-0.5.12``
_NAMED = on_first_use(r"(?:^|sglang[-_])" + _RELEASE + r"$", re.IGNORECASE)
#: the image a file runs on, in its own text: a Dockerfile's ``FROM`` or ``ARG SGLANG_VERSION=``,
#: an ``image:`` key (compose, Kubernetes, chart values); a mention in prose or a table is not
_IN_TEXT = on_first_use(rb"^[ \t]*(?:FROM[ \t]+(?:--\S+[ \t]+)*|(?:-[ \t]*)?image:[ \t]*[\"']?)lmsysorg/sglang:v?(0\.\d+\.\d+)"
                        rb"|^[ \t]*ARG[ \t]+SGLANG_VERSION[ \t]*=[ \t]*[\"']?v?(0\.\d+\.\d+)", re.MULTILINE)
#: a version constant at the top level (column 0: a module's, a shell script's, a ``.env``'s):
#: ``SGLANG_VERSION = "0.5.12"``, ``export TARGET_SGLANG_VERSION=0.5.12``; group 1 is the name
_CONSTANT = on_first_use(rb"^(?:export[ \t]+)?([A-Z_]*SGLANG_(?:VERSION|RELEASE))(?:[ \t]*:[ \t]*str)?[ \t]*=[ \t]*"
                         rb"([\"']?)v?(0\.\d+\.\d+)(?:\.post\d+)?\2[ \t]*(?:#.*)?\r?$", re.MULTILINE)
_RELEASE_ONLY = on_first_use(r"^0\.\d+\.\d+$")
#: a constant naming a bound or the newest release, not the one the file is for
_BOUND = on_first_use(rb"MIN|MAX|LEAST|LATEST|NEWEST|OLDEST|LOWEST|HIGHEST|FLOOR|CEIL")


@record
class ReleaseScope(NamedTuple):
    """Part of the tree the repository names releases for: the files under ``folder`` (absolute)
    or, with a ``group``, those of them in a folder or module named so; ``releases``: the V2
    releases allowed, or only V1-era ones (the files are V1-era), or none (unknown)."""

    folder: str
    group: str
    releases: tuple[str, ...]
    why: str


def own_release(path: str, data: bytes, scopes: tuple[ReleaseScope, ...] = ()) -> tuple[tuple[str, ...], str] | None:
    """(releases, what says so) for a file that names its sglang release, or that lies in a
    part of the tree the repository pins (``scopes``), else None."""
    named = _named_in_text(data)
    if len(named) == 1:
        release = named.pop()
        return (release,), f"the image, build argument or version constant in the file names sglang {release}"
    if named:
        return None  # several releases in one file: the run's target decides
    parts = PurePath(path).parts if "0." in path else ()  # a release named in the path holds "0."
    for index in range(len(parts) - 1, -1, -1):
        name = parts[index] if index < len(parts) - 1 else PurePath(parts[index]).stem
        match = _NAMED().search(name)
        if match:
            where = "file name" if index == len(parts) - 1 else "folder"
            return (match.group(1),), f"its {where} `{parts[index]}`"
    return _in_scope(path, scopes) if scopes else None


def _named_in_text(data: bytes) -> set[str]:
    named: set[str] = set()
    if b"lmsysorg/sglang:" in data or b"SGLANG_VERSION" in data:
        named = {(m.group(1) or m.group(2)).decode() for m in _IN_TEXT().finditer(data)}
    if b"SGLANG_VERSION" in data or b"SGLANG_RELEASE" in data:
        named |= {m.group(3).decode() for m in _CONSTANT().finditer(data) if not _BOUND().search(m.group(1))}
    return named


def _in_scope(path: str, scopes: tuple[ReleaseScope, ...]) -> tuple[tuple[str, ...], str] | None:
    """The first scope (most specific first, :func:`release_scopes`) that covers ``path``."""
    absolute = os.path.abspath(path)
    for scope in scopes:
        if not absolute.startswith(scope.folder.rstrip(os.sep) + os.sep):
            continue
        if scope.group:
            inside = PurePath(absolute[len(scope.folder.rstrip(os.sep)) + 1:])
            names = [*inside.parent.parts, inside.stem]
            if not any(_normalized(name) == scope.group for name in names):
                continue
        return scope.releases, scope.why
    return None


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def release_scopes(files: Iterable[str], pin_folder: str) -> tuple[ReleaseScope, ...]:
    """The parts of the tree the repository pins (see the module's docstring), most specific
    first: groups before folders, deeper folders first. ``files``: the run's discovered files
    (only pin files are read); ``pin_folder``: where the run's own pin is read from, whose
    ``[project] dependencies`` and ``requirements*.txt`` are the run's target, not a scope."""
    root = os.path.abspath(pin_folder) if pin_folder else ""
    candidates = {os.path.abspath(f) for f in files if f.endswith(PIN_FILE_ENDINGS) and is_pin_file(f)}
    if root and os.path.isfile(os.path.join(root, "pyproject.toml")):
        candidates.add(os.path.join(root, "pyproject.toml"))
    by_key: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
    run_pins: list[str] = []
    for candidate in sorted(candidates):
        folder = os.path.dirname(candidate)
        try:
            groups = pin_groups(Path(candidate))
        except ConfigError:
            continue  # a broken pin file narrows nothing; the run's own reading reports it
        for group, specifier, written in groups:
            if not specifier:
                continue  # `sglang[srt]` (a package's extra naming itself): no release said
            if not group and folder == root:
                run_pins.append(specifier)
            else:
                by_key.setdefault((folder, _normalized(group)), []).append(
                    (specifier, written, os.path.basename(candidate) + (f" [{group}]" if group else "")))
    scopes = [_scope(folder, group, pins) for (folder, group), pins in by_key.items()]
    several = any(_v2_allowed(pin) for pin in run_pins) or any(
        s.releases and not is_v1_era(s.releases[-1]) for s in scopes)
    kept = [s for s in scopes if several or (s.releases and not is_v1_era(s.releases[-1]))]
    return tuple(sorted(kept, key=lambda s: (not s.group, -s.folder.count(os.sep), s.folder, s.group)))


def _scope(folder: str, group: str, pins: list[tuple[str, str, str]]) -> ReleaseScope:
    sets = [s for s in (_specifier_set(specifier) for specifier, _, _ in pins) if s is not None]
    if len(sets) < len(pins):  # a pin that spells no specifier: the scope allows no release
        sets = []
    # the releases the catalog knows, and those a pin names itself (``==0.5.6``: before the catalog)
    named = {s.version.rstrip(".*") for spec in sets for s in spec if _RELEASE_ONLY().match(s.version.rstrip(".*"))}
    allowed = {r for r in {*catalog.RELEASES, *named} if sets and all(s.contains(r, prereleases=True) for s in sets)}
    ordered = tuple(sorted(allowed, key=catalog.parse_version))
    v2 = tuple(r for r in ordered if not is_v1_era(r))
    said = " and ".join(f"`{written}` in {where}" for _, written, where in pins)
    place = f"the {'group' if group else 'folder'} pin {said}"
    if v2 and len(v2) < len(ordered):
        return ReleaseScope(folder, group, v2, f"{place}, its V2 releases")
    return ReleaseScope(folder, group, v2 or ordered, place if ordered else f"{place}, no release the catalog knows")


def _v2_allowed(specifier: str) -> bool:
    parsed = _specifier_set(specifier)
    return parsed is not None and any(parsed.contains(r, prereleases=True) for r in catalog.RELEASES if not is_v1_era(r))


def _specifier_set(specifier: str) -> SpecifierSet | None:
    """The PEP 440 specifier set ``specifier`` spells, or None where it spells none (packaging:
    imported where a pin is read)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    try:
        return SpecifierSet(specifier)
    except InvalidSpecifier:
        return None


def is_v1_era(release: str) -> bool:
    return catalog.parse_version(release) < catalog.parse_version(catalog.FIRST_V2_RELEASE)


def is_known_v2(release: str) -> bool:
    return release in catalog.RELEASES and not is_v1_era(release)
