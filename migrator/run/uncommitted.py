"""Which files hold work that git has not committed (``fix`` refuses to write them
without ``--allow-dirty``).

A file is committed when the innermost git repository holding it (a nested repository
or a submodule counts as its own) tracks it, has no staged change for it, and its bytes
are the blob the index records. Everything else in a repository is refused: untracked
files (ignored ones too), changed files, staged changes, merge conflicts, and every file
of a repository git cannot read (say, one git refuses as owned by someone else). Files
in no repository are written (nothing to compare with).

Git is asked only for the index (``ls-files -s``) and the staged paths
(``diff-index --cached HEAD``), under ``gitscan``'s fixed environment; the file's bytes
are hashed here. So git never reads a work-tree file, and a hostile ``.git/config``
(``core.fsmonitor``, a ``filter.<x>.clean`` command that ``git status`` would run on a
stat-dirty file) has nothing to run; no git command may start a transport, and a partial
clone (whose missing objects git would fetch through the repository's own transport) is not
handed to git: its files are refused (``gitscan.is_partial_clone``). A file git converts on checkout (a filter, or
line endings other than CRLF vs LF) reads as changed: refused, the safe side.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from migrator.base.records import NamedTuple, record
from migrator.base.repository import top_of
from migrator.run.gitscan import is_partial_clone, run_git


@record
class _Repository(NamedTuple):
    index: dict[str, tuple[str, str]]  # path relative to the top, "/" separated -> (blob id, stage)
    staged: frozenset[str]
    error: str | None = None  # git could not read it: every file is refused
    partial_clone: bool = False  # git is not asked: every file is refused


class Uncommitted:
    """Each repository's index, read by ``reason`` the first time a file of it is asked
    about (or ahead, for a list of files, by ``scan``), in the process that writes."""

    __slots__ = ("repositories",)

    def __init__(self) -> None:
        self.repositories: dict[str, _Repository | None] = {}  # repository top -> its index; None: a stray .git

    def scan(self, files: list[str]) -> "Uncommitted":
        for path in files:
            top = top_of(os.path.dirname(os.path.realpath(path)))
            if top is not None:
                self._repository(top)
        return self

    def _repository(self, top: str) -> _Repository | None:
        if top not in self.repositories:
            self.repositories[top] = _read_repository(top)
        return self.repositories[top]

    def reason(self, path: str, data: bytes) -> str | None:
        """Why ``path`` (whose bytes are ``data``) must not be written; None: it may be."""
        real = os.path.realpath(path)
        top = top_of(os.path.dirname(real))
        repository = self._repository(top) if top is not None else None
        if repository is None:
            return None
        if repository.partial_clone:
            return (f"is in a partial clone ({top} declares extensions.partialClone or a promisor remote): git would "
                    "fetch its missing objects by running the repository's own transport, so it is not asked; "
                    "pass --allow-dirty to write it")
        if repository.error is not None:
            return f"is in a git repository that git cannot read ({repository.error}); pass --allow-dirty to write it"
        relative = Path(os.path.relpath(real, top)).as_posix()
        entry = repository.index.get(relative)
        if entry is None:
            return f"is not committed (untracked in the git repository {top}); commit it first or pass --allow-dirty"
        blob, stage = entry
        if stage != "0" or relative in repository.staged or not _same_blob(blob, data):
            return "has uncommitted changes; commit them first or pass --allow-dirty"
        return None


def _same_blob(blob: str, data: bytes) -> bool:
    def blob_id(content: bytes) -> str:
        digest = hashlib.sha256() if len(blob) == 64 else hashlib.sha1()
        digest.update(b"blob %d\0" % len(content))
        digest.update(content)
        return digest.hexdigest()

    # ``text=auto`` / ``core.autocrlf`` keep LF in the index for a CRLF work-tree file.
    return blob_id(data) == blob or (b"\r\n" in data and blob_id(data.replace(b"\r\n", b"\n")) == blob)


def _read_repository(top: str) -> _Repository | None:
    where = ["--git-dir", os.path.join(top, ".git"), "--work-tree", top]
    if is_partial_clone(top, where):
        return _Repository({}, frozenset(), partial_clone=True)
    try:
        listing = run_git([*where, "ls-files", "-s", "-z"], top, 120)
        if listing.returncode != 0:
            message = os.fsdecode(listing.stderr).strip().splitlines()
            if message and "not a git repository" in message[0]:
                return None  # a stray ``.git`` folder: no repository here
            return _Repository({}, frozenset(), (message[0] if message else "git failed").removeprefix("fatal: "))
        staged = run_git([*where, "diff-index", "--cached", "--name-only", "-z", "--no-renames", "--no-ext-diff",
                          "--no-textconv", "HEAD", "--"], top, 120)
    except (OSError, subprocess.TimeoutExpired) as error:
        return _Repository({}, frozenset(), str(error))
    index: dict[str, tuple[str, str]] = {}
    for entry in listing.stdout.split(b"\0"):
        meta, tab, name = entry.partition(b"\t")
        parts = meta.split()
        if tab and len(parts) == 3:
            index[os.fsdecode(name)] = (parts[1].decode("ascii", "replace"), parts[2].decode("ascii", "replace"))
    if staged.returncode == 0:
        changed = frozenset(os.fsdecode(name) for name in staged.stdout.split(b"\0") if name)
    else:  # no commit yet: everything in the index is uncommitted
        changed = frozenset(index)
    return _Repository(index, changed)
