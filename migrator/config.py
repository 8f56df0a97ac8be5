"""``[tool.dflash-migrate]`` in the nearest ``pyproject.toml``; CLI flags override it.

::

    [tool.dflash-migrate]
    select = ["DFM1", "DFM201"]          # codes or prefixes; default: every rule
    ignore = ["DFM305"]
    exclude = ["vendor/", "*.generated.py"]          # gitignore-style, relative to this file
    target-version = "0.5.17"
    [tool.dflash-migrate.per-file-ignores]
    "tests/**" = ["DFM105"]
    "docs/*.md" = ["DFM201"]

The search walks up from ``start`` and stops at the first ``pyproject.toml`` that has the
table (a ``pyproject.toml`` without it is skipped, like ruff does), and never above the top
of the git repository (a folder holding ``.git``): a fork checked out inside another
project is configured by its own files only. Unknown keys and unknown codes are errors,
so a typo never silently lints with the wrong rules.
"""

from __future__ import annotations

import sys
from pathlib import Path, PurePosixPath
from typing import NamedTuple

from migrator import catalog

KEYS = ("select", "ignore", "exclude", "per-file-ignores", "target-version")


class ConfigError(ValueError):
    """A malformed ``[tool.dflash-migrate]`` table (message names file and key)."""


class Config(NamedTuple):
    """``[tool.dflash-migrate]``: ``select``/``ignore``/``exclude`` (tuples of text),
    ``per_file_ignores`` ((glob, codes) pairs), ``target_version``; ``root`` is the folder
    relative patterns are anchored at (the pyproject's), ``source`` the file it came from
    (not part of equality, so ``migrator.records.record`` is not used)."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    target_version: str | None = None
    root: Path | None = None
    source: Path | None = None

    def __eq__(self, other: object) -> bool:
        return type(other) is Config and self[:-1] == other[:-1]  # type: ignore[index]

    def __hash__(self) -> int:
        return hash(("Config", *self[:-1]))

    def with_overrides(self, **flags: object) -> "Config":
        """CLI flags win; a flag left at None/empty keeps the configured value."""
        changes = {k: (tuple(v) if isinstance(v, (list, tuple)) else v) for k, v in flags.items() if v}
        return self._replace(**changes)

    def _relative(self, path: str | Path) -> str:
        p = Path(path)
        if self.root is not None:
            try:
                p = p.resolve().relative_to(self.root.resolve())
            except ValueError:
                pass
        return PurePosixPath(*p.parts).as_posix() if p.parts else "."

    def is_excluded(self, path: str | Path) -> bool:
        if not self.exclude:
            return False
        return _spec(self.exclude).match_file(self._relative(path))

    def enabled(self, code: str, path: str | Path | None = None) -> bool:
        """Whether ``code`` is reported for ``path`` (select, ignore, per-file-ignores)."""
        if self.select and not any(code.startswith(p) for p in self.select):
            return False
        if any(code.startswith(p) for p in self.ignore):
            return False
        if path is not None and self.per_file_ignores:
            rel = self._relative(path)
            for pattern, codes in self.per_file_ignores:
                if _spec((pattern,)).match_file(rel) and any(code.startswith(c) for c in codes):
                    return False
        return True


def _spec(patterns: tuple[str, ...]):  # -> pathspec.PathSpec (imported lazily)
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(patterns)


def _codes(value: object, key: str, source: Path) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{source}: [tool.dflash-migrate] {key} must be a list of strings")
    known = catalog.by_code()
    out = tuple(v.strip().upper() for v in value)
    for code in out:
        if not code.startswith("DFM") or not any(k.startswith(code) for k in known):
            raise ConfigError(f"{source}: [tool.dflash-migrate] {key}: unknown rule code {code!r}")
    return out


def parse_table(table: dict[str, object], source: Path) -> Config:
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise ConfigError(f"{source}: unknown key(s) in [tool.dflash-migrate]: {', '.join(unknown)}")
    exclude = table.get("exclude", [])
    if not isinstance(exclude, list) or not all(isinstance(v, str) for v in exclude):
        raise ConfigError(f"{source}: [tool.dflash-migrate] exclude must be a list of strings")
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise ConfigError(f"{source}: [tool.dflash-migrate] per-file-ignores must be a table")
    target = table.get("target-version")
    if target is not None:
        if not isinstance(target, str):
            raise ConfigError(f"{source}: [tool.dflash-migrate] target-version must be a string")
        try:
            catalog.parse_version(target)
        except ValueError as exc:
            raise ConfigError(f"{source}: [tool.dflash-migrate] target-version: {exc}") from None
    return Config(
        select=_codes(table.get("select", []), "select", source),
        ignore=_codes(table.get("ignore", []), "ignore", source),
        exclude=tuple(exclude),
        per_file_ignores=tuple((pat, _codes(codes, f"per-file-ignores.{pat!r}", source)) for pat, codes in pfi.items()),
        target_version=target,
        root=source.parent,
        source=source,
    )


def _toml_load(path: Path, data: bytes | None = None) -> dict[str, object]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - exercised on 3.10 only
        import tomli as tomllib
    try:
        if data is None:
            data = path.read_bytes()
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: not UTF-8 ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None


def _find(start: Path) -> tuple[Path, dict[str, object]] | None:
    here = start.resolve()
    if here.is_file():
        here = here.parent
    for directory in (here, *here.parents):
        candidate = directory / "pyproject.toml"
        try:
            text = candidate.read_bytes() if candidate.is_file() else b""
        except OSError:
            text = b""
        # A file that never spells the name cannot hold the table: not parsed (importing
        # tomllib alone costs ~12 ms of a run), and not an error if it is broken.
        if b"dflash-migrate" in text:
            data = _toml_load(candidate, text)
            if isinstance(data.get("tool"), dict) and "dflash-migrate" in data["tool"]:
                return candidate, data
        if (directory / ".git").exists():
            break  # a repository's settings never come from a folder above it
    return None


def find(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` that has ``[tool.dflash-migrate]``,
    looking no higher than the top of the git repository ``start`` is in."""
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
