"""``[tool.dflash-migrate]`` in the nearest ``pyproject.toml``; command-line flags override it
(:func:`migrator.cli.runs.options.build_options` merges the two into ``Options``).

::

    [tool.dflash-migrate]
    select = ["DFM1", "DFM201"]          # codes or prefixes; default: every rule
    ignore = ["DFM305"]
    exclude = ["vendor/", "*.generated.py"]          # gitignore-style, relative to this file
    target-version = "0.5.17"           # or "0.5.14..0.5.23", or ">=0.5.16,<0.5.22"
    # ruff's spellings, with ruff's meanings:
    extend-select = ["DFM305"]          # added to `select` (or to --select)
    extend-exclude = ["build/"]         # added to `exclude`
    force-exclude = true                # excludes apply to files named on the command line too
    respect-gitignore = false           # also read files .gitignore names (default true)
    unsafe-fixes = true                 # as --unsafe-fixes (default false)
    cache-dir = ".cache/dflash-migrate" # where a run may keep state, relative to this file
    guide-url = "https://wiki.example.org/dflash-migration"  # where TODOs point (default: MIGRATION.md)
    [tool.dflash-migrate.per-file-ignores]
    "tests/**" = ["DFM105"]
    "docs/*.md" = ["DFM201"]

One config per run: the search starts at the first path of the command line (its folder
for a file), walks up and stops at the first ``pyproject.toml`` that has the table (a
``pyproject.toml`` without it is skipped, like ruff does). It never goes above the top of
the git repository (a folder holding ``.git``): a fork checked out inside another project
is configured by its own files only. Outside any repository only the scanned folder (a
file's folder) is searched, wherever the run starts, so a ``pyproject.toml`` in some
writable parent folder (``/tmp``, a shared home) can never switch rules off. The highest
folder searched is also the one the fork index covers in a repository (outside one,
``migrator.run.fork.index_scope`` bounds it to the named files' packages). Paths in the table
are relative to the file's folder.
Unknown keys and unknown codes are errors, so a typo never silently lints with the wrong
rules.
"""

from __future__ import annotations

from pathlib import Path

from migrator import catalog
from migrator.base.fileio import SourceError, read_bytes
from migrator.base.records import NamedTuple, record
from migrator.base.repository import up_to_top
from migrator.catalog.guide import valid
from migrator.catalog.target import TargetError, parse
from migrator.edit.comments import DEFAULT_LINE_LENGTH

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterable

KEYS = ("select", "ignore", "exclude", "per-file-ignores", "target-version", "extend-select", "extend-exclude",
        "force-exclude", "respect-gitignore", "unsafe-fixes", "cache-dir", "guide-url")


class ConfigError(ValueError):
    """A malformed ``[tool.dflash-migrate]`` table (message names file and key)."""


@record
class Config(NamedTuple):
    """``[tool.dflash-migrate]``: ``select``/``ignore``/``exclude`` (tuples of text),
    ``per_file_ignores`` ((glob, codes) pairs), ``target_version``; ``extend-select`` and
    ``extend-exclude`` are merged into ``select``/``exclude`` where the command line adds
    nothing (:func:`parse_table`); the booleans are None where the table does not set them
    (the command line or the default decides); ``cache_dir`` is absolute; ``root`` is the folder
    relative patterns are anchored at (the pyproject's), ``source`` the file it came from
    (not part of equality, so ``migrator.base.records.record`` is not used)."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    target_version: str | None = None
    extend_select: tuple[str, ...] = ()
    force_exclude: bool | None = None
    respect_gitignore: bool | None = None
    unsafe_fixes: bool | None = None
    cache_dir: str | None = None
    guide_url: str | None = None
    root: Path | None = None
    source: Path | None = None

    def __eq__(self, other: object) -> bool:
        return type(other) is Config and self[:-1] == other[:-1]  # type: ignore[index]

    def __hash__(self) -> int:
        return hash(("Config", *self[:-1]))


def unknown_code(codes: Iterable[str]) -> str | None:
    """The first of ``codes`` that is no rule code nor a prefix of one, or None."""
    known = catalog.by_code()
    for code in codes:
        if not code.startswith("DFM") or not any(k.startswith(code) for k in known):
            return code
    return None


def _strings(value: object, key: str, source: Path) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{source}: [tool.dflash-migrate] {key} must be a list of strings")
    return value


def _flag(table: dict[str, object], key: str, source: Path) -> bool | None:
    value = table.get(key)
    if value is not None and not isinstance(value, bool):
        raise ConfigError(f"{source}: [tool.dflash-migrate] {key} must be true or false")
    return value


def _codes(value: object, key: str, source: Path) -> tuple[str, ...]:
    out = tuple(v.strip().upper() for v in _strings(value, key, source))
    unknown = unknown_code(out)
    if unknown is not None:
        raise ConfigError(f"{source}: [tool.dflash-migrate] {key}: unknown rule code {unknown!r}")
    return out


def parse_table(table: dict[str, object], source: Path) -> Config:
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise ConfigError(f"{source}: unknown key(s) in [tool.dflash-migrate]: {', '.join(unknown)}")
    exclude = _strings(table.get("exclude", []), "exclude", source) + \
        _strings(table.get("extend-exclude", []), "extend-exclude", source)
    cache_dir = table.get("cache-dir")
    if cache_dir is not None and (not isinstance(cache_dir, str) or not cache_dir.strip()):
        raise ConfigError(f"{source}: [tool.dflash-migrate] cache-dir must be a folder name")
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{source}: [tool.dflash-migrate] per-file-ignores must be a table")
    guide_url = table.get("guide-url")
    if guide_url is not None:
        if not isinstance(guide_url, str) or not valid(guide_url.strip()):
            raise ConfigError(f"{source}: [tool.dflash-migrate] guide-url must be an http(s) address without "
                              "spaces, parentheses or '#' (the rule's anchor is added)")
        guide_url = guide_url.strip()
    target = table.get("target-version")
    if target is not None:
        if not isinstance(target, str):
            raise ConfigError(f"{source}: [tool.dflash-migrate] target-version must be a string")

        try:
            parse(target, "target-version")
        except TargetError as exc:
            raise ConfigError(f"{source}: [tool.dflash-migrate] {exc}") from None
        target = target.strip()
    return Config(
        select=_codes(table.get("select", []), "select", source),
        ignore=_codes(table.get("ignore", []), "ignore", source),
        exclude=tuple(exclude),
        per_file_ignores=tuple((pat, _codes(codes, f"per-file-ignores.{pat!r}", source)) for pat, codes in pfi.items()),
        target_version=target,
        extend_select=_codes(table.get("extend-select", []), "extend-select", source),
        force_exclude=_flag(table, "force-exclude", source),
        respect_gitignore=_flag(table, "respect-gitignore", source),
        unsafe_fixes=_flag(table, "unsafe-fixes", source),
        cache_dir=str(source.parent / cache_dir) if cache_dir is not None else None,
        guide_url=guide_url,
        root=source.parent,
        source=source,
    )


def _toml_load(path: Path, data: bytes | None = None) -> dict[str, object]:
    from migrator.base.toml import TOMLDecodeError, loads

    try:
        if data is None:
            try:
                data = read_bytes(path)
            except SourceError as error:
                raise ConfigError(f"{path}: {error.message}") from None
        return loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: not UTF-8 ({exc})") from None
    except TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        raise ConfigError(f"{path}: invalid TOML: arrays or tables nested too deeply to read") from None


def _search_path(start: Path) -> list[Path]:
    """``start``'s folder and its parents up to the repository top; outside a repository,
    ``start``'s folder alone."""
    here = start.resolve()
    return [Path(folder) for folder in up_to_top(str(here if here.is_dir() else here.parent))]


def _read_config(path: Path) -> bytes:
    """A ``pyproject.toml``'s bytes (empty if it cannot be read), its size checked first:
    a sparse 1 GiB one in a downloaded archive is an error, not gigabytes read."""
    try:
        return read_bytes(path)
    except SourceError as error:
        if error.message.startswith("file too large"):
            raise ConfigError(f"{path}: {error.message}") from None
        return b""


def _find(start: Path) -> tuple[Path, dict[str, object]] | None:
    for directory in _search_path(start):
        candidate = directory / "pyproject.toml"
        text = _read_config(candidate) if candidate.is_file() else b""
        # A file that never spells the name cannot hold the table: not parsed (importing
        # tomllib alone costs ~12 ms of a run), and not an error if it is broken.
        if b"dflash-migrate" in text:
            data = _toml_load(candidate, text)
            if isinstance(data.get("tool"), dict) and "dflash-migrate" in data["tool"]:
                return candidate, data
    return None


def find(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` that has ``[tool.dflash-migrate]``,
    looking no higher than the top of the git repository ``start`` is in (outside a
    repository: ``start``'s folder only)."""
    found = _find(start)
    return found[0] if found else None


def load(start: Path) -> Config:
    """Config for a run started at ``start`` (a file or directory); defaults if none found."""
    found = _find(start)
    if found is None:
        return Config()
    source, data = found
    table = data["tool"]["dflash-migrate"]  # type: ignore[index]
    if not isinstance(table, dict):
        raise ConfigError(f"{source}: [tool.dflash-migrate] must be a table")
    return parse_table(table, source)


def load_file(path: Path) -> Config:
    """Config from a file named on the command line (``--config``): a ``pyproject.toml``-style
    file with ``[tool.dflash-migrate]``, or a file whose top level holds the same keys."""
    if not path.is_file():
        raise ConfigError(f"{path}: --config: no such file")
    data = _toml_load(path)
    tool = data.get("tool")
    table = tool.get("dflash-migrate") if isinstance(tool, dict) and "dflash-migrate" in tool else data
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.dflash-migrate] must be a table")
    return parse_table(table, path.resolve())


# ---- the fork's sglang pin ---------------------------------------------------------------


def pin_root(start: Path) -> Path:
    """Where a run without a configuration looks for pins: the nearest folder from ``start``
    up to the repository top (the configuration search) holding a ``pyproject.toml`` or a
    ``requirements*.txt``; ``start``'s folder when none does."""
    chain = _search_path(start)
    for folder in chain:
        if (folder / "pyproject.toml").is_file() or any(folder.glob("requirements*.txt")):
            return folder
    return chain[0]


@record
class Pins(NamedTuple):
    """The sglang requirements of a folder: ``found`` (file, specifier text, requirement as
    written) and ``ignored``, a note for each requirement naming sglang that decides nothing
    (its marker cannot be evaluated)."""

    found: list[tuple[Path, str, str]]
    ignored: tuple[str, ...] = ()


class _Undecidable(Exception):
    """A requirement whose environment marker packaging cannot evaluate."""


def sglang_pins(folder: Path) -> Pins:
    """The sglang requirements in ``folder``'s ``pyproject.toml`` (``[project] dependencies``)
    and ``requirements*.txt``: the fork's own pin, which decides the releases a run
    migrates to when none is given (``migrator.catalog.target``). Raises ConfigError for a
    ``pyproject.toml`` that is not TOML (or too large to read); ``packaging`` is imported
    only where a file mentions sglang."""
    found: list[tuple[Path, str, str]] = []
    ignored: list[str] = []

    def add(path: Path, requirement: str) -> None:
        try:
            spec = _sglang_specifier(requirement)
        except _Undecidable as why:
            ignored.append(f"`{requirement}` in {path.name} ignored: {why}")
            return
        if spec is not None:
            found.append((path, spec, requirement))

    pyproject = folder / "pyproject.toml"
    data = _read(pyproject)
    if data is not None and "sglang" in data:
        project = _toml_load(pyproject, data.encode("utf-8")).get("project")
        dependencies = project.get("dependencies", []) if isinstance(project, dict) else []
        for line in dependencies if isinstance(dependencies, list) else []:
            if isinstance(line, str):
                add(pyproject, line.strip())
    try:
        requirements = sorted(folder.glob("requirements*.txt"))
    except OSError:
        requirements = []
    for path in requirements:
        text = _read(path)
        if text is None or "sglang" not in text:
            continue
        for line in text.splitlines():
            add(path, line.partition(" #")[0].strip())
    return Pins(found, tuple(ignored))


def pin_groups(path: Path) -> list[tuple[str, str, str]]:
    """The sglang requirements of one pin file (``pyproject.toml`` or ``requirements*.txt``) as
    (group, specifier text, requirement as written): group ``""`` for ``[project] dependencies``
    and a requirements file, the extra's or dependency group's name for
    ``[project.optional-dependencies]`` and ``[dependency-groups]`` (PEP 735). Requirements
    whose marker cannot be evaluated are left out; a file that never spells sglang is not parsed."""
    text = _read(path)
    if text is None or "sglang" not in text:
        return []
    found: list[tuple[str, str, str]] = []

    def add(group: str, lines: object) -> None:
        for line in lines if isinstance(lines, list) else []:
            requirement = line.partition(" #")[0].strip() if isinstance(line, str) else ""
            try:
                spec = _sglang_specifier(requirement)
            except _Undecidable:
                continue
            if spec is not None:
                found.append((group, spec, requirement))

    if path.name != "pyproject.toml":
        add("", text.splitlines())
        return found
    data = _toml_load(path, text.encode("utf-8"))
    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    add("", project.get("dependencies"))  # type: ignore[union-attr]
    for table in (project.get("optional-dependencies"), data.get("dependency-groups")):  # type: ignore[union-attr]
        for group, lines in table.items() if isinstance(table, dict) else ():
            add(str(group), lines)
    return found


def _sglang_specifier(line: str) -> str | None:
    """The specifier of requirement ``line`` if it names sglang for this interpreter; raises
    _Undecidable where its marker cannot be evaluated."""
    if not line or line.startswith(("#", "-")) or "sglang" not in line.lower():
        return None
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        requirement = Requirement(line)
    except (InvalidRequirement, RecursionError):  # not a requirement (parentheses nested past the parser's depth)
        return None
    if requirement.name.lower() != "sglang":  # PEP 503's normalised name, for a name without separators
        return None
    try:
        if requirement.marker is not None and not requirement.marker.evaluate():
            return None
    except ValueError as error:  # packaging's UndefinedComparison, UndefinedEnvironmentName, InvalidVersion
        raise _Undecidable(f"its marker cannot be evaluated ({error})") from None
    return str(requirement.specifier)


def _read(path: Path) -> str | None:
    """A pin file's text through the config's read path (regular files only; too large: a
    ConfigError); None where there is none."""
    return _read_config(path).decode("utf-8", errors="replace") if path.is_file() else None


# ---- the project's line length -------------------------------------------------------------

RUFF_CONFIGS = (".ruff.toml", "ruff.toml", "pyproject.toml")  # ruff's own order in one folder


def line_length(start: Path) -> int:
    """ruff's ``line-length`` for the project ``start`` is in: from the nearest folder, from
    ``start`` up to the repository top, holding a ruff configuration (``.ruff.toml``,
    ``ruff.toml``, or a ``pyproject.toml`` with ``[tool.ruff]``); 88 (ruff's and black's
    default) where none sets it. The TODO comments a fix writes are wrapped to it. A file
    that never spells ``line-length`` is not parsed; one that is not TOML is skipped (the
    run's own configuration reports its errors)."""
    for folder in _search_path(start):
        for name in RUFF_CONFIGS:
            candidate = folder / name
            if not candidate.is_file():
                continue
            text = _read_config(candidate)
            if name == "pyproject.toml" and b"tool.ruff" not in text:
                continue  # not ruff's: the search goes on, as ruff's does
            if b"line-length" not in text:
                return DEFAULT_LINE_LENGTH
            try:
                data = _toml_load(candidate, text)
            except ConfigError:
                return DEFAULT_LINE_LENGTH
            table = data.get("tool", {}).get("ruff", {}) if name == "pyproject.toml" else data
            value = table.get("line-length") if isinstance(table, dict) else None
            return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else DEFAULT_LINE_LENGTH
    return DEFAULT_LINE_LENGTH
