"""Which files a run looks at.

Every folder below the roots (an explicit stack, no recursion), in deterministic (sorted)
order; honours ``.gitignore`` files (with pathspec's git semantics, including those between
the git top level and the root) for untracked files only (as git does: inside a work tree a
file git tracks is always scanned, whatever a committed ``.gitignore`` says; ``--exclude``
is the visible way to leave it out) and ``--exclude``
patterns (one matcher for every command: :class:`migrator.base.options.Selection`, patterns relative
to the folder they were written for); prunes the usual non-source folders. With
``force_exclude`` the exclude patterns also drop paths given by name (how pre-commit passes
files). Symbolic links are never followed and never
written through: a linked file is either reached directly under the root anyway, or it
points outside the root, where this tool never reads or writes. Each skipped link is
reported, not dropped silently.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from migrator.base.options import compile_ignore, relative_below
from migrator.base.patterns import on_first_use
from migrator.base.repository import up_to_top
from migrator.run.gitscan import tracked_files
from migrator.text import accepts

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Iterable, Sequence

    from migrator.base.options import Selection

#: Version-control folders: left out without being counted (every checkout has one).
_VCS_FOLDERS = frozenset({".git", ".hg", ".svn"})
DEFAULT_EXCLUDES = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "build", "dist", "site-packages",
    "node_modules", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".eggs",
})
PYTHON_SUFFIXES = (".py", ".pyi")
#: how a pin file's name ends (``pyproject.toml``, ``requirements*.txt``): the cheap test over every
#: discovered path before :func:`is_pin_file` looks closer
PIN_FILE_ENDINGS = ("pyproject.toml", ".txt")
#: The report and baseline names the README and the CI examples write inside a checkout:
#: the tool's own outputs, never its inputs (a JUnit or SARIF report quotes every finding,
#: so the next run would report them again). Matched by exact file name here; a report
#: under another name is recognised later, strictly by its content (``migrator.report.own``).
REPORT_NAMES = frozenset({"dflash-migrate-junit.xml", "gl-code-quality-report.json", "dflash-migrate.sarif",
                          "dflash-baseline.json"})
#: The reason given (and counted in the summary) for a file left out as the tool's own output.
OWN_OUTPUT = "the tool's own report or baseline: not scanned"
_UNRESOLVED_LINK = "symbolic link that cannot be resolved (dangling or a loop): skipped"


class Discovered:
    """What a walk found."""

    __slots__ = ("files", "skipped", "missing", "left_out")

    def __init__(self) -> None:
        #: Paths as text (the root as given joined with the names below it): a ``Path``
        #: per file would cost a third of the walk on a 3,000-file fork.
        self.files: list[str] = []
        #: (path, reason) for things deliberately not processed (symlinks, missing paths).
        self.skipped: list[tuple[Path, str]] = []
        #: Paths given on the command line that do not exist.
        self.missing: list[Path] = []
        #: Files and folders left out by an ignore file, an exclude pattern or the default
        #: folder excludes (``.venv``, ``node_modules``...; not ``.git``): a folder counts once.
        self.left_out = 0

    def own_outputs(self) -> int:
        """How many files were left out as the tool's own reports or baselines."""
        return sum(1 for _, reason in self.skipped if reason is OWN_OUTPUT)


def is_python(path: Path | str) -> bool:
    return str(path).endswith(PYTHON_SUFFIXES)


#: History files, by name (``CHANGELOG*``, ``CHANGES*``, ``HISTORY*``, ``NEWS*``,
#: ``RELEASE*NOTES*``, ``*.log``, ``*.patch``/``*.diff`` against upstream, any case), by folder,
#: and prose or logs named after an sglang release (``TESTLOGS/run_sglang-0.5.12_a100.md``): they
#: record what was, so a fix never rewrites them and no TODO is written into them, and their
#: mentions are reported only as DFM490 (``migrator.run.pipeline``). The one definition.
_HISTORY_NAME = on_first_use(r"(?i)^(?:changelog|changes|history|news|release[-_ .]?notes)|\.(?:log|patch|diff)$"
                             r"|^release.*notes")
_HISTORY_FOLDERS = frozenset({"changelog", "changelogs", "changelog.d", "release-notes", "release_notes", "releasenotes"})
#: A log or report of a past run is prose named after the release it ran on; a config file
#: named so (``values-sglang-0.5.13.yaml``) is for that release, not about it (``own_release``).
_RELEASE_NAMED_PROSE = on_first_use(r"(?i)sglang[-_ ]?v?\d+\.\d+\.\d+.*\.(?:md|markdown|txt|rst|log)$")


def is_pin_file(path: str) -> bool:
    """A file that may pin sglang's release (``migrator.run.own_release``)."""
    name = os.path.basename(path)
    return name == "pyproject.toml" or (name.startswith("requirements") and name.endswith(".txt"))


def is_history(path: Path | str) -> bool:
    """Is ``path`` a changelog, release notes, a log or report of a past run, or a patch (code
    is never one)? Decided by name."""
    text = str(path).replace("\\", "/")
    if text.endswith(PYTHON_SUFFIXES):
        return False
    folders, _, name = text.rpartition("/")
    return (bool(_HISTORY_NAME().search(name) or _RELEASE_NAMED_PROSE().search(name))
            or any(part.lower() in _HISTORY_FOLDERS for part in folders.split("/")))


def absolute_path(text: str, here: str) -> str:
    """``os.path.abspath(text)`` with the current folder ``here`` read once by the caller: a
    plain relative path (git's spelling, pre-commit's thousands) is joined without normalising;
    anything else (``.``, ``..``, doubled or trailing separators, an absolute path) is normalised."""
    if (os.sep == "/" and text[:1] != "/" and "./" not in text and "//" not in text
            and not text.endswith(("/", "/.", "/..")) and text not in ("", ".", "..")):
        return here + text if here.endswith("/") else here + "/" + text
    return os.path.normpath(os.path.join(here, text))


def lstat_mode(path: str | Path) -> int | None:
    """The ``lstat`` mode of ``path`` (a link is never followed); None where it cannot be asked."""
    try:
        return os.lstat(path).st_mode
    except (OSError, ValueError):
        return None


def _default_accept(path: str) -> bool:
    if path.endswith(PYTHON_SUFFIXES):
        return True

    return accepts(path)  # decided by name: no file is opened, no handler is imported


class _IgnoreRules:
    """``.gitignore`` files seen so far (folder -> compiled spec) plus the exclude patterns.
    Folders and paths are plain strings: this runs for every file of a 3,000-file fork.

    An ignore file's match is overruled for a path git tracks (a file in the index, or a
    folder holding one): asked of ``tracked`` once per root, only when some ignore file
    matches, so a run whose ignore files match nothing never asks git."""

    def __init__(self, selection: Selection | None, respect_gitignore: bool, root: str,
                 tracked: Callable[[str], frozenset[str] | None] | None) -> None:
        self.respect_gitignore = respect_gitignore
        self.specs: dict[str, object] = {}
        self.selection = selection if selection is not None and selection.exclude else None
        self.root = root
        self.tracked_source = tracked
        self.tracked: tuple[frozenset[str], frozenset[str]] | None = None
        self.asked = False

    def load(self, folder: str) -> None:
        if not self.respect_gitignore or folder in self.specs:
            return
        ignore_file = os.path.join(folder, ".gitignore")
        if os.path.isfile(ignore_file) and not os.path.islink(ignore_file):
            try:
                with open(ignore_file, encoding="utf-8", errors="replace") as handle:
                    lines = handle.read().splitlines()
            except OSError:
                return
            self.specs[folder] = compile_ignore(lines)

    def ignored(self, path: str, absolute: str, absolute_root: str, is_dir: bool) -> bool:
        slash = "/" if is_dir else ""
        if self.selection is not None and self.selection.excluded(absolute, is_dir, absolute_root):
            return True
        for folder, spec in self.specs.items():
            relative = relative_below(path, folder)
            if relative is not None and spec.match_file(relative + slash):  # type: ignore[attr-defined]
                return not self._is_tracked(path, is_dir)
        return False

    def _is_tracked(self, path: str, is_dir: bool) -> bool:
        if not self.asked:
            self.asked = True
            files = self.tracked_source(self.root) if self.tracked_source is not None else None
            if files is not None:
                folders = {parent for file in files for parent in _parents(file)}
                self.tracked = (files, frozenset(folders))
        if self.tracked is None:
            return False
        relative = relative_below(path, self.root)
        return relative is not None and relative in self.tracked[1 if is_dir else 0]


def _parents(relative: str) -> Iterable[str]:
    """``a/b/c.py`` -> ``a/b``, ``a``."""
    end = relative.rfind("/")
    while end > 0:
        yield relative[:end]
        end = relative.rfind("/", 0, end)


def _tracked_files(root: str) -> frozenset[str] | None:
    return tracked_files(root)


def discover(
    paths: Sequence[Path],
    selection: Selection | None = None,
    respect_gitignore: bool = True,
    accept: Callable[[str], bool] = _default_accept,
    force_exclude: bool = False,
    tracked: Callable[[str], frozenset[str] | None] | None = _tracked_files,
    own_outputs: frozenset[str] = frozenset(),
    modes: Sequence[int | None] | None = None,
) -> Discovered:
    """The files under ``paths``. ``tracked``: the paths (relative, with ``/``) git tracks
    under a root folder, None outside a work tree (default: asks ``git ls-files``; the
    engine passes the listing its git scan reads anyway). ``own_outputs``: absolute paths of
    files the run writes (left out, as are the :data:`REPORT_NAMES`). ``modes``: each path's
    ``lstat`` mode (None: it cannot be asked), where the caller asked already."""
    found = Discovered()
    seen: set[str] = set(own_outputs)
    escapes = _LinkCheck()
    here = escapes.here
    for index, given in enumerate(paths):
        text = os.fspath(given)
        # pre-commit names thousands of files: each costs one lstat, and its absolute path is
        # made once, from the current folder read once (`abspath` asks for it every time)
        absolute = absolute_path(text, here)
        mode = modes[index] if modes is not None else lstat_mode(text)
        if force_exclude and selection is not None and selection.exclude and selection.excluded(
                absolute, given.is_dir() if mode is None or stat.S_ISLNK(mode) else stat.S_ISDIR(mode)):
            found.left_out += 1
            continue
        if mode is not None and stat.S_ISLNK(mode):
            found.skipped.append((given, "symbolic link: not followed"))
            continue
        if mode is None:
            found.missing.append(given)
            continue
        if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            found.skipped.append((given, _special_reason(given)))
            continue
        escape = escapes.reason(text, absolute)
        if escape:
            found.skipped.append((given, escape))
            continue
        if stat.S_ISREG(mode):
            key = absolute  # `a/x.py` and `../top/a/x.py` are one file
            if os.path.basename(text) in REPORT_NAMES or key in own_outputs:
                found.skipped.append((given, OWN_OUTPUT))
            elif key not in seen:
                seen.add(key)
                found.files.append(text)
            continue
        root = str(given)
        rules = _IgnoreRules(selection, respect_gitignore, root, tracked)
        resolved = str(given.resolve())
        for folder in reversed(up_to_top(resolved)):  # from the top down: each folder's .gitignore applies
            rules.load(folder if folder != resolved else root)
        _walk(root, rules, accept, found, seen, os.path.abspath(root), own_outputs)
    return found


def _walk(root: str, rules: _IgnoreRules, accept: Callable[[str], bool], found: Discovered,
          seen: set[str], absolute_root: str, own_outputs: frozenset[str]) -> None:
    """Files of each folder (sorted), then its subfolders, depth first: ``os.walk``'s order,
    on ``os.scandir`` entries, whose file types come with the listing: no file costs a
    syscall of its own (the engine asks the size of the few it analyses). An explicit
    stack of folders, not recursion: a tree 1,000 folders deep must not exhaust the
    interpreter's stack."""
    pending = [root]
    while pending:
        folder = pending.pop()
        rules.load(folder)
        try:
            with os.scandir(folder) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except OSError as error:
            found.skipped.append((Path(folder), f"cannot list folder: {error.strerror or error}"))
            continue
        subfolders: list[str] = []
        for entry in entries:
            path = entry.path
            key = absolute_root + path[len(root):]  # the absolute path, without a syscall per file
            is_link = entry.is_symlink()
            try:
                is_dir = entry.is_dir()  # follows links: a link to a folder is reported as one
            except OSError:  # a link loop
                is_dir = False
            if is_dir:
                if entry.name in DEFAULT_EXCLUDES or rules.ignored(path, key, absolute_root, True):
                    found.left_out += entry.name not in _VCS_FOLDERS
                elif is_link:
                    found.skipped.append((Path(path), "symbolic link to a folder: not followed"))
                else:
                    subfolders.append(path)
                continue
            if not accept(path):
                continue
            if rules.ignored(path, key, absolute_root, False):
                found.left_out += 1
                continue
            if is_link:
                found.skipped.append((Path(path), _symlink_reason(Path(path), Path(root))))
                continue
            try:
                regular = entry.is_file(follow_symlinks=False)  # the listing's file type: no syscall
            except OSError as error:
                found.skipped.append((Path(path), f"cannot stat: {error.strerror or error}"))
                continue
            if not regular:
                found.skipped.append((Path(path), _special_reason(Path(path))))
            elif key in own_outputs or (key not in seen and entry.name in REPORT_NAMES):  # own outputs are in seen
                found.skipped.append((Path(path), OWN_OUTPUT))
            elif key not in seen:
                seen.add(key)
                found.files.append(path)
        pending.extend(reversed(subfolders))  # the first subfolder is walked next


class _LinkCheck:
    """A path written under the current folder whose folders include a symbolic link to
    somewhere outside it (``src/linked_folder/deep.py``): never followed, like links met
    while walking. Paths written outside the current folder are the user's explicit choice.
    One check per discovery, in strings (pre-commit names thousands of paths): the current
    folder resolved once, each folder below it once, from its parent's answer and one
    ``lstat`` of its own (resolving each from the root cost an ``lstat`` per component of
    every folder). A file that is no link itself has its folder's answer (a link was
    refused before this check), kept per folder: the files of one folder cost one lookup."""

    __slots__ = ("here", "real_here", "folders", "answers")

    def __init__(self) -> None:
        self.here = os.getcwd()
        self.real_here: str | None = None
        self.folders: dict[str, str | None] = {}
        self.answers: dict[str, str | None] = {}

    def reason(self, text: str, absolute: str) -> str | None:
        """Why the path ``text`` (``absolute``, normalised; a file or a folder, not a link) is not
        read, or None."""
        name = text.rpartition(os.sep)[2]
        if name in ("", ".", "..") or ".." in text and ".." in text.split(os.sep):  # `..` after a link leaves its target
            if not _inside(absolute, self.here):
                return None
            folder = os.path.dirname(text)
            real = self._resolved(text if name in ("", ".", "..") else folder or ".")
            real = real if real is None or name in ("", ".", "..") else os.path.join(real, name)
            return self._answer(real)
        parent = absolute.rpartition(os.sep)[0] or os.sep
        if parent not in self.answers:  # the path is below the current folder where its folder is
            self.answers[parent] = self._answer(self._real_folder(parent)) if _inside(parent, self.here) else None
        return self.answers[parent]

    def _answer(self, real: str | None) -> str | None:
        """The reason for a path under the current folder that resolves to ``real``."""
        if real is None:
            return _UNRESOLVED_LINK
        if not _inside(real, self._real_here()):
            return "reached through a symbolic link to outside the current folder: never read or written"
        return None

    def _real_here(self) -> str:
        if self.real_here is None:
            self.real_here = os.path.realpath(self.here)
        return self.real_here

    def _real_folder(self, folder: str) -> str | None:
        """``folder`` (absolute, normalised) resolved."""
        if folder in self.folders:
            return self.folders[folder]
        if folder == self.here:
            real: str | None = self._real_here()
        elif not _inside(folder, self.here):  # the current folder's parent: a folder named is the current one
            real = self._resolved(folder)
        else:
            parent, name = os.path.split(folder)
            real = self._real_folder(parent)
            try:
                is_link = stat.S_ISLNK(os.lstat(folder).st_mode)
            except (OSError, ValueError):
                is_link = False  # a missing folder keeps its name, as resolving it would
            if real is not None:
                real = self._resolved(folder) if is_link else os.path.join(real, name)
        self.folders[folder] = real
        return real

    @staticmethod
    def _resolved(path: str) -> str | None:
        try:
            return str(Path(path).resolve())
        except (OSError, RuntimeError):
            return None


def _inside(path: str, folder: str) -> bool:
    """Is absolute, normalised ``path`` ``folder`` or below it (``Path.relative_to``'s answer)?"""
    return path == folder or path.startswith(folder if folder.endswith(os.sep) else folder + os.sep)


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
        return _UNRESOLVED_LINK
    try:
        target.relative_to(root.resolve())
    except ValueError:
        return "symbolic link to a file outside the root: never read or written"
    return "symbolic link: its target under the root is processed directly"
