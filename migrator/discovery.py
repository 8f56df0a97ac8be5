"""Which files a run looks at.

Recursive, deterministic (sorted) order; honours ``.gitignore`` files (with pathspec's
git semantics, including those between the git top level and the root) and ``--exclude``
globs; prunes the usual non-source folders. Symbolic links are never followed and never
written through: a linked file is either reached directly under the root anyway, or it
points outside the root, where this tool never reads or writes. Each skipped link is
reported, not dropped silently.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

DEFAULT_EXCLUDES = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "build", "dist", "site-packages",
    "node_modules", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".eggs",
})
PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass
class Discovered:
    files: list[Path] = field(default_factory=list)
    #: (path, reason) for things deliberately not processed (symlinks, missing paths).
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    #: Paths given on the command line that do not exist.
    missing: list[Path] = field(default_factory=list)


def is_python(path: Path | str) -> bool:
    return str(path).endswith(PYTHON_SUFFIXES)


def _default_accept(path: Path) -> bool:
    if is_python(path):
        return True
    try:
        from .textrules import handler_for
    except ImportError:
        return False
    return handler_for(str(path)) is not None


class _IgnoreRules:
    """``.gitignore`` files seen so far (folder -> compiled spec) plus ``--exclude`` globs."""

    def __init__(self, exclude: Sequence[str], respect_gitignore: bool) -> None:
        self.respect_gitignore = respect_gitignore
        self.specs: dict[Path, object] = {}
        self.exclude = None
        if exclude:
            import pathspec

            self.exclude = pathspec.GitIgnoreSpec.from_lines(exclude)

    def load(self, folder: Path) -> None:
        if not self.respect_gitignore or folder in self.specs:
            return
        ignore_file = folder / ".gitignore"
        if ignore_file.is_file() and not ignore_file.is_symlink():
            import pathspec

            try:
                lines = ignore_file.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                return
            self.specs[folder] = pathspec.GitIgnoreSpec.from_lines(lines)

    def ignored(self, path: Path, root: Path, is_dir: bool) -> bool:
        if self.exclude is not None:
            relative = path.relative_to(root).as_posix() + ("/" if is_dir else "")
            if self.exclude.match_file(relative) or self.exclude.match_file(path.name + ("/" if is_dir else "")):
                return True
        for folder, spec in self.specs.items():
            try:
                relative = path.relative_to(folder).as_posix()
            except ValueError:
                continue
            if spec.match_file(relative + ("/" if is_dir else "")):  # type: ignore[attr-defined]
                return True
        return False


def _git_ancestors(root: Path) -> Iterable[Path]:
    """Folders from the git top level down to ``root`` (their .gitignore files apply)."""
    chain = [root, *root.parents]
    for index, folder in enumerate(chain):
        if (folder / ".git").exists():
            return reversed(chain[: index + 1])
    return [root]


def discover(
    paths: Sequence[Path],
    exclude: Sequence[str] = (),
    respect_gitignore: bool = True,
    accept: Callable[[Path], bool] = _default_accept,
) -> Discovered:
    found = Discovered()
    seen: set[Path] = set()
    for given in paths:
        if given.is_symlink():
            found.skipped.append((given, "symbolic link: not followed"))
            continue
        if not given.exists():
            found.missing.append(given)
            continue
        if not given.is_file() and not given.is_dir():
            found.skipped.append((given, _special_reason(given)))
            continue
        if given.is_file() or given.is_dir():
            escape = _escapes_through_link(given)
            if escape:
                found.skipped.append((given, escape))
                continue
        if given.is_file():
            if given not in seen:
                seen.add(given)
                found.files.append(given)
            continue
        root = given
        rules = _IgnoreRules(exclude, respect_gitignore)
        for folder in _git_ancestors(root.resolve()):
            rules.load(folder if folder != root.resolve() else root)
        for current, folders, files in os.walk(root, followlinks=False):
            here = Path(current)
            rules.load(here)
            kept = []
            for name in sorted(folders):
                child = here / name
                if name in DEFAULT_EXCLUDES or rules.ignored(child, root, True):
                    continue
                if child.is_symlink():
                    found.skipped.append((child, "symbolic link to a folder: not followed"))
                    continue
                kept.append(name)
            folders[:] = kept
            for name in sorted(files):
                child = here / name
                if rules.ignored(child, root, False) or not accept(child):
                    continue
                try:
                    mode = child.lstat().st_mode
                except OSError as error:
                    found.skipped.append((child, f"cannot stat: {error.strerror or error}"))
                    continue
                if stat.S_ISLNK(mode):
                    found.skipped.append((child, _symlink_reason(child, root)))
                    continue
                if not stat.S_ISREG(mode):
                    found.skipped.append((child, _special_reason(child)))
                    continue
                if child not in seen:
                    seen.add(child)
                    found.files.append(child)
    return found


def _escapes_through_link(path: Path) -> str | None:
    """A path written under the current folder whose folders include a symbolic link to
    somewhere outside it (``src/linked_folder/deep.py``): never followed, like links met
    while walking. Paths written outside the current folder are the user's explicit choice."""
    here = Path.cwd()
    absolute = Path(os.path.abspath(path))
    try:
        absolute.relative_to(here)
    except ValueError:
        return None
    try:
        path.resolve().relative_to(here.resolve())
    except ValueError:
        return "reached through a symbolic link to outside the current folder: never read or written"
    except (OSError, RuntimeError):
        return "symbolic link that cannot be resolved (dangling or a loop): skipped"
    return None


def _special_reason(path: Path) -> str:
    """Why a FIFO, socket or device is skipped (reading a FIFO would block forever)."""
    try:
        mode = path.lstat().st_mode
    except OSError:
        return "not a regular file: skipped"
    kind = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file"
    return f"{kind}, not a regular file: never read"


def _symlink_reason(link: Path, root: Path) -> str:
    try:
        target = link.resolve(strict=True)
    except (OSError, RuntimeError):
        return "symbolic link that cannot be resolved (dangling or a loop): skipped"
    try:
        target.relative_to(root.resolve())
    except ValueError:
        return "symbolic link to a file outside the root: never read or written"
    return "symbolic link: its target under the root is processed directly"
