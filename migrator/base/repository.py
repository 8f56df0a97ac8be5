"""The repository a path belongs to: the nearest folder at or above it that holds ``.git``.

One home for that question (the write path's link check, report locations, fingerprints,
the configuration search, the ``.gitignore`` chain, the uncommitted-work check): ``.git`` is a
folder, a worktree's file, or a link (a dangling one too: the folder is a repository's top
all the same, :func:`holds_git`); git itself is never started, so a scanned repository's
configuration cannot run anything. Each caller says what it falls back to outside one.
"""

from __future__ import annotations

import os
from functools import cache


def repo_root() -> str:
    """Absolute path of the repository holding the current folder (else the current folder)."""
    return root_of(os.path.abspath(os.getcwd()))


@cache
def root_of(here: str) -> str:
    """The nearest folder at or above ``here`` that holds ``.git``, else ``here``."""
    return top_of(here) or here


def holds_git(folder: str | os.PathLike[str]) -> bool:
    """Is ``folder`` a repository's top (does it hold ``.git``)?"""
    return os.path.lexists(os.path.join(folder, ".git"))


@cache
def top_of(folder: str) -> str | None:
    """The nearest folder at or above ``folder`` that holds ``.git``; None if there is none."""
    top = up_to_top(folder)[-1]
    return top if holds_git(top) else None


def up_to_top(folder: str) -> list[str]:
    """``folder`` and its parents up to the repository top (the nearest holding ``.git``,
    last); outside a repository, ``[folder]`` alone."""
    chain = [folder]
    while not holds_git(chain[-1]):
        parent = os.path.dirname(chain[-1])
        if parent == chain[-1]:
            return [folder]
        chain.append(parent)
    return chain
