"""The byte-level prefilter every file goes through first: can any rule possibly fire on
these bytes? (:func:`might_match`). A module below the engine, so that what the engine
uses (the fork index's second step) can ask too without importing the engine.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from migrator import catalog
from migrator.base.compat import holds_compatibility_character
from migrator.base.fileio import SourceError, declared_encoding, decode_python
from migrator.base.lines import offsets

#: Every trigger token, lower-cased, contains one of these, or every cue it needs does
#: (``num_correct_drafts_per_req_cpu`` matters only beside ``DFlashWorker``); checked by a
#: test. One lower() and four scans reject almost every file before the exact token scans.
COARSE_MARKERS = (b"dflash", b"spec_v2", b"keep_slots", b"filter_batch", b"hidden_to_draft")


def might_match(data: bytes) -> bool:
    """Cheap byte-level prefilter: can any rule possibly fire on this file?

    Python reads identifiers NFKC-normalised (``ＤFlashWorker`` is ``DFlashWorker``), so a
    file that fails the byte check but holds non-ASCII bytes gets a second look in its
    NFKC form, if it holds a character NFKC turns into ASCII (``migrator.base.compat``; only
    those files: ``isascii`` is a C loop over the bytes).
    """
    if _matches_bytes(data):
        return True

    if not holds_compatibility_character(data):
        return False
    text = data.decode("utf-8", "replace")
    return _matches_bytes(unicodedata.normalize("NFKC", text).encode("utf-8", "replace"))


#: A Perl-compatible pattern (``git grep -P -i``) every coding cookie naming an encoding
#: other than UTF-8 matches (PEP 263: a comment holding ``coding[:=]``, blanks, a name): such
#: a file is read by the Python prefilter (``migrator.run.gitscan``), which looks at its first
#: two lines. Starting at ``#`` (one byte, which pcre2 finds with a vectorised scan), it
#: costs git no more than a fixed string, and leaves out ``encoding="utf-8"``,
#: ``encoding: str`` and ``# -*- coding: utf-8 -*-``: 5 of sglang 0.5.13's 2,409 files
#: match, where the fixed strings below send 115 to Python.
COOKIE_PCRE = r"#.*coding[:=][ \t]*(?!utf[-_]?8)[-\w.]"
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

    try:
        if declared_encoding(data) in ("utf-8", "utf-8-sig"):
            return False
        text = decode_python(data)
    except SourceError:
        return True
    return might_match(text.encode("utf-8", "surrogatepass"))


#: Past this many occurrences of a marker, its tokens are searched in the whole file.
_MAX_MARKER_POSITIONS = 64


def _matches_bytes(data: bytes) -> bool:
    """A token can only stand where its marker does, spelled as the token spells it
    (``DFlash`` in ``DFlashWorker``): a file is searched once for each spelling of a marker
    the tokens use (a dozen searches cost less than lower-casing the file), and each token
    is compared at the places its spelling was found, not searched for in the whole file
    (21 tokens hold ``dflash``)."""
    for spelling, groups in _groups_by_spelling():
        positions: list[int] | None = offsets(data, spelling, _MAX_MARKER_POSITIONS + 1)
        if not positions:
            continue
        if len(positions) > _MAX_MARKER_POSITIONS:
            positions = None
        for token, offset, cues, patterns in groups:
            if offset is None or positions is None:
                present = token in data
            else:
                present = any(data.startswith(token, where - offset) for where in positions if where >= offset)
            if present and (not cues or any(cue in data for cue in cues)) and (
                    not patterns or any(p.search(data) for p in patterns)):
                return True
    return False


Group = tuple[bytes, tuple[bytes, ...], tuple[re.Pattern[bytes], ...]]


@cache
def _groups() -> tuple[Group, ...]:
    """(token, cues, compiled patterns) from ``catalog.trigger_groups``, and the TODO marker."""
    return tuple((token, cues, tuple(re.compile(p) for p in patterns))
                 for token, cues, patterns in (*catalog.trigger_groups(), (catalog.TODO_MARKER.encode(), (), ())))


def markers_of(token: bytes, cues: tuple[bytes, ...]) -> tuple[bytes, ...]:
    """The coarse markers a file holding ``token`` (and one of its ``cues``, if any) must
    hold: the token's own, else those of its cues where every cue holds one (else none:
    the token is not covered, which a test forbids)."""
    own = tuple(marker for marker in COARSE_MARKERS if marker in token.lower())
    if own or not cues:
        return own
    by_cue = [tuple(marker for marker in COARSE_MARKERS if marker in cue.lower()) for cue in cues]
    return tuple(sorted({m for markers in by_cue for m in markers})) if all(by_cue) else ()


TokenGroup = tuple[bytes, int | None, tuple[bytes, ...], tuple[re.Pattern[bytes], ...]]


@cache
def _groups_by_marker() -> tuple[tuple[bytes, tuple[TokenGroup, ...]], ...]:
    """Each coarse marker with the token groups that need it (``markers_of``), each token
    with where the marker starts in it (None: the token holds no marker, its cues do): a
    file is scanned only for the tokens its markers allow (most files with a marker hold
    no token)."""
    return tuple((marker, tuple((token, token.lower().find(marker) if marker in token.lower() else None, cues, patterns)
                                for token, cues, patterns in _groups() if marker in markers_of(token, cues)))
                 for marker in COARSE_MARKERS)


@cache
def _groups_by_spelling() -> tuple[tuple[bytes, tuple[TokenGroup, ...]], ...]:
    """:func:`_groups_by_marker` by the spellings of each marker: a token under the one it
    holds (``DFlash`` for ``DFlashWorker``, at the same offset), a token without a marker
    under each spelling its cues hold (a file holding the token and a cue holds that
    spelling). Exact: a token present in a file stands where its own spelling does."""
    by_spelling: dict[bytes, list[TokenGroup]] = {}
    for marker, groups in _groups_by_marker():
        for group in groups:
            token, offset, cues = group[0], group[1], group[2]
            spelled = [token[offset:offset + len(marker)]] if offset is not None else [
                cue[at:at + len(marker)] for cue in cues for at in offsets(cue.lower(), marker)]
            for spelling in dict.fromkeys(spelled):
                if group not in by_spelling.setdefault(spelling, []):
                    by_spelling[spelling].append(group)
    return tuple((spelling, tuple(groups)) for spelling, groups in by_spelling.items())


def _tokens() -> tuple[bytes, ...]:
    return (*catalog.trigger_tokens(), catalog.TODO_MARKER.encode())
