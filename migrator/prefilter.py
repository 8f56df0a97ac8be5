"""The byte-level prefilter every file goes through first: can any rule possibly fire on
these bytes? (:func:`might_match`). A module below the engine, so that what the engine
uses (the fork index's second step) can ask too without importing the engine.
"""

from __future__ import annotations

import re
from functools import cache

from . import catalog


#: Every trigger token, lower-cased, contains one of these (checked by a test); one
#: lower() and three scans reject almost every file before the exact token scans run.
COARSE_MARKERS = (b"dflash", b"spec_v2", b"keep_slots", b"filter_batch", b"num_correct_drafts")


def might_match(data: bytes) -> bool:
    """Cheap byte-level prefilter: can any rule possibly fire on this file?

    Python reads identifiers NFKC-normalised (``ＤFlashWorker`` is ``DFlashWorker``), so a
    file that fails the byte check but holds non-ASCII bytes gets a second look in its
    NFKC form, if it holds a character NFKC turns into ASCII (``migrator.compat``; only
    those files: ``isascii`` is a C loop over the bytes).
    """
    if _matches_bytes(data):
        return True
    if data.isascii():
        return False
    from .compat import text_pattern

    # Only the non-ASCII characters can be compatibility characters: search those alone
    # (deleting ASCII bytes keeps every UTF-8 sequence whole; a C loop, unlike the search).
    if not text_pattern().search(data.translate(None, _ASCII).decode("utf-8", "replace")):
        return False
    import unicodedata

    text = data.decode("utf-8", "replace")
    return _matches_bytes(unicodedata.normalize("NFKC", text).encode("utf-8", "replace"))


_ASCII = bytes(range(128))


#: A Perl-compatible pattern (``git grep -P -i``) every coding cookie naming an encoding
#: other than UTF-8 matches (PEP 263: ``coding[:=]``, blanks, a name): such a file is read by
#: the Python prefilter (``migrator.gitscan``), which looks at its first two lines. It costs
#: git no more than fixed strings (pcre2 runs it per line from the literal ``coding``) and
#: leaves out ``encoding="utf-8"`` and ``# -*- coding: utf-8 -*-``, which hold two of every
#: three files the fixed strings sent to Python (113 of sglang 0.5.13's 2,409).
COOKIE_PCRE = r"coding[:=][ \t]*(?!utf[-_]?8)[-\w.]"
#: Fixed strings one of which every coding cookie holds: the same search where git has no
#: Perl-compatible regular expressions (``git grep -P`` is a build option).
COOKIE_GREP = ("coding:", "coding=")


def might_match_python(data: bytes) -> bool:
    """``might_match`` for Python source, which the interpreter decodes by its coding
    cookie first: ``# coding: utf-7`` makes ``+AGQ-flash_worker`` read ``dflash_worker``.
    Where the first two lines declare an encoding other than UTF-8, the decoded text is
    searched; a file that cannot be decoded so is a candidate (its analysis says why)."""
    if might_match(data):
        return True
    from .fileio import SourceError, declared_encoding, decode_python

    try:
        if declared_encoding(data) in ("utf-8", "utf-8-sig"):
            return False
        text = decode_python(data)
    except SourceError:
        return True
    return might_match(text.encode("utf-8", "surrogatepass"))


def _matches_bytes(data: bytes) -> bool:
    lowered = data.lower()
    for marker, groups in _groups_by_marker():
        if marker in lowered and any(token in data and (not cues or any(cue in data for cue in cues))
                                     and (not patterns or any(p.search(data) for p in patterns))
                                     for token, cues, patterns in groups):
            return True
    return False


Group = tuple[bytes, tuple[bytes, ...], tuple[re.Pattern[bytes], ...]]


@cache
def _groups() -> tuple[Group, ...]:
    """(token, cues, compiled patterns) from ``catalog.trigger_groups``, and the TODO marker."""
    return tuple((token, cues, tuple(re.compile(p) for p in patterns))
                 for token, cues, patterns in (*catalog.trigger_groups(), (catalog.TODO_MARKER.encode(), (), ())))


@cache
def _groups_by_marker() -> tuple[tuple[bytes, tuple[Group, ...]], ...]:
    """Each coarse marker with the token groups whose token holds it: a file is scanned
    only for the tokens its markers allow (most files that pass a marker hold no token)."""
    return tuple((marker, tuple(g for g in _groups() if marker in g[0].lower())) for marker in COARSE_MARKERS)


def _tokens() -> tuple[bytes, ...]:
    return (*catalog.trigger_tokens(), catalog.TODO_MARKER.encode())
