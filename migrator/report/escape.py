"""Escaping of paths and echoed text, per output format.

A scanned repository is hostile input: a file name or a leftover TODO comment may hold
newlines, terminal escape sequences (ESC/OSC/CSI: window title, cursor movement), bidi
overrides, bytes that are not UTF-8, or a GitHub workflow command. Every format prints
such text only through one of these functions:

* :func:`visible` (text, concise, JUnit, and every stderr line): control characters
  (C0, DEL, C1), bidi/line-separator format characters and the characters XML 1.0 forbids
  are shown as ``\\xNN`` / ``\\uNNNN``; a byte that was not valid UTF-8 in a file name
  (kept by Python as a surrogate, ``\\udcNN``) is shown as ``\\xNN``, the byte itself.
* :func:`json_text` (json, json-lines, sarif, gitlab): JSON escapes every C0 control
  already; this also escapes C1 controls, bidi/line-separator characters and lone
  surrogates, so the document is valid UTF-8. An undecodable file-name byte ``0xNN``
  appears as the JSON escape ``\\udcNN`` (Python's ``surrogateescape``:
  ``os.fsencode(json.loads(...)["path"])`` gives back the original bytes).
* GitHub workflow commands: :mod:`migrator.report.github` applies :func:`visible` and
  then the Actions toolkit's ``%25``/``%0D``/``%0A`` (and ``%3A``/``%2C`` in properties).
"""

from __future__ import annotations

import re
from functools import cache

#: What a terminal, a CI log or an XML parser must never receive raw.
_UNSAFE = "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]"
_UNSAFE_KEEP_NEWLINE = ("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"
                        "\ud800-\udfff\ufffe\uffff]")
#: What ``json.dumps(..., ensure_ascii=False)`` leaves raw but should not.
_JSON_UNSAFE = "[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]"
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """Compiled on first use: each of these classes costs ~0.4 ms to compile (a bitmap
    over the Basic Multilingual Plane), and a run needs one or two of the three."""
    return re.compile(pattern)


def _shown(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: the undecodable byte itself
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, keep_newlines: bool = False) -> str:
    """``text`` with every unsafe character shown as an escape (see the module docstring)."""
    pattern = _compiled(_UNSAFE_KEEP_NEWLINE if keep_newlines else _UNSAFE)
    return pattern.sub(_shown, text) if pattern.search(text) else text


def json_text(document: str) -> str:
    """A ``json.dumps(..., ensure_ascii=False)`` result made safe UTF-8 (escapes only
    ever land inside JSON strings: these characters cannot occur outside them)."""
    pattern = _compiled(_JSON_UNSAFE)
    if not pattern.search(document):
        return document
    return pattern.sub(lambda m: f"\\u{ord(m.group()):04x}", document)
