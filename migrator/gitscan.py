"""The byte prefilter, done by ``git grep`` where a folder is a git work tree.

The Python prefilter reads every byte of every file (33 MB for sglang 0.5.13's tree:
~0.17 s of CPU on this project's 2-core machines); ``git grep -F`` does the same scan
on all cores in ~0.04 s while Python discovers the files. It only narrows the set of
files the Python prefilter then looks at, so it never decides a result on its own:

* markers: every trigger token contains one of ``GREP_MARKERS`` (checked by a test),
  so a file without any marker cannot match; files with one go through the exact
  Python prefilter and the analysis as before;
* coverage: ``git ls-files --cached --others --exclude-standard`` says which files
  ``git grep`` searched (tracked ones). Files it did not search (untracked, ignored only
  by ``.git/info/exclude``, inside a submodule, marked assume-unchanged or skip-worktree,
  whose search might read the index instead of the file) are prefiltered in Python;
* anything unusual (no git, not a work tree, ``GIT_DIR`` and friends set by a hook, git
  failing) turns it off: ``finish`` returns None and every file is prefiltered in Python.

The scanned files are read by git, never executed; git's own config cannot make ``-F``
match differently (``-F`` overrides ``grep.patternType``).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from . import catalog

#: Exact-case substrings one of which every trigger token (and the TODO marker) holds.
GREP_MARKERS = ("DFlash", "dflash", "SPEC_V2", "spec_v2", "keep_slots")
_GIT_ENV = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR")
#: ``ls-files -t -v`` tag of the files ``git grep`` reads from the work tree: tracked,
#: neither assume-unchanged nor skip-worktree (untracked files, tag ``?``, are left to the
#: Python prefilter: searching them too makes git walk the folder, ~10 ms, for the few a
#: checkout has).
_SEARCHED_TAGS = (b"H ",)


def uncovered_tokens() -> list[str]:
    """Trigger tokens holding no marker (must be empty; a test checks)."""
    tokens = [t.decode() for t in catalog.trigger_tokens()] + [catalog.TODO_MARKER]
    return [t for t in tokens if not any(m in t for m in GREP_MARKERS)]


class GitScan:
    """The two git commands running on one root folder (as given)."""

    __slots__ = ("root", "grep", "listing")

    def __init__(self, root: str, grep: subprocess.Popen, listing: subprocess.Popen) -> None:
        self.root = root
        self.grep = grep
        self.listing = listing


def start(root: Path) -> GitScan | None:
    """Launch ``git grep`` and ``git ls-files`` on folder ``root`` (they run while the
    caller walks the folder); None where git cannot be used."""
    if any(os.environ.get(name) for name in _GIT_ENV):
        return None
    folder = str(root)
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
    patterns = [arg for marker in GREP_MARKERS for arg in ("-e", marker)]
    common = {"cwd": folder, "env": env, "stdout": subprocess.PIPE, "stderr": subprocess.DEVNULL, "stdin": subprocess.DEVNULL}
    try:
        grep = subprocess.Popen(["git", "-c", "core.quotePath=false", "grep", "--no-textconv",
                                 "-l", "-z", "-F", "-a", *patterns, "--", "."], **common)
        listing = subprocess.Popen(["git", "ls-files", "-z", "-t", "-v", "--cached", "--others",
                                    "--exclude-standard", "--", "."], **common)
    except OSError:  # no git on PATH
        return None
    return GitScan(folder, grep, listing)


def finish(scan: GitScan) -> tuple[set[str], set[str]] | None:
    """(files git searched, files holding a marker), as paths relative to the root with
    ``os.sep`` separators; None if either command failed."""
    try:
        listed, _ = scan.listing.communicate(timeout=120)
        grepped, _ = scan.grep.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        scan.listing.kill()
        scan.grep.kill()
        return None
    if scan.listing.returncode != 0 or scan.grep.returncode not in (0, 1):
        return None
    decode = os.fsdecode
    searched = {decode(record[2:]) for record in listed.split(b"\0") if record[:2] in _SEARCHED_TAGS}
    hits = {decode(record) for record in grepped.split(b"\0") if record}
    if os.sep != "/":
        searched = {path.replace("/", os.sep) for path in searched}
        hits = {path.replace("/", os.sep) for path in hits}
    return searched, hits
