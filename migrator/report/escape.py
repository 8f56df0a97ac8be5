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

Both also neutralise CI log commands, in every format: GitHub's runner obeys the legacy
``##[command]`` and Azure's agent ``##vso[...]`` anywhere in a line (a file named
``z##[stop-commands]X`` would silence every later annotation), so their ``[`` is written
as an escape (``\x5b``; in JSON ``\u005b``, which reads back as ``[``). :func:`visible`
also escapes the first ``:`` of a ``::`` that starts a line after whitespace (``\x3a``):
GitHub runs ``::command::`` there, and a finding line or a note begins with a path as
given (``::error title=...::x.py``). The tool's own commands (``--format github``, the
``--diff`` guard) are built outside these functions; text inside one of them never
begins a line (``starts_line=False``: a ``::`` there stays, so an annotation's ``file``
still names a file called ``::x.py``).
"""

from __future__ import annotations

import re

from migrator.base.patterns import on_first_use

#: What a terminal, a CI log or an XML parser must never receive raw.
#: Each class compiled on first use: ~0.4 ms a class (a bitmap over the Basic Multilingual
#: Plane), and a run needs one or two of the three.
_UNSAFE = on_first_use("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]")
_UNSAFE_KEEP_NEWLINE = on_first_use("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"
                                    "\ud800-\udfff\ufffe\uffff]")
#: What ``json.dumps(..., ensure_ascii=False)`` leaves raw but should not.
_JSON_UNSAFE = on_first_use("[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _shown(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: the undecodable byte itself
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


#: A CI log command that runs anywhere in a line: the ``[`` after ``##`` or ``##vso``.
_LOG_COMMAND = on_first_use(r"(?i)(##(?:vso)?)\[")
#: A ``::`` starting a line after whitespace: a GitHub workflow command.
_LINE_COMMAND = on_first_use(r"(?m)^(\s*):(?=:)")


def holds_log_command(data: bytes) -> bool:
    """Does ``data`` hold ``##[`` or ``##vso[`` (for text written as bytes: ``--diff`` headers)?"""
    return b"##" in data and re.search(rb"(?i)##(?:vso)?\[", data) is not None


def visible(text: str, keep_newlines: bool = False, starts_line: bool = True) -> str:
    """``text`` with every unsafe character shown as an escape, and no CI log command
    (see the module docstring). ``starts_line=False``: the text never begins a log line
    (a workflow command's property or message), so a leading ``::`` stays."""
    pattern = (_UNSAFE_KEEP_NEWLINE if keep_newlines else _UNSAFE)()
    if pattern.search(text):
        text = pattern.sub(_shown, text)
    if "##" in text:
        text = _LOG_COMMAND().sub(r"\1\\x5b", text)
    if starts_line and "::" in text:
        text = _LINE_COMMAND().sub(r"\1\\x3a", text)
    return text


def json_text(document: str) -> str:
    """A ``json.dumps(..., ensure_ascii=False)`` result made safe UTF-8 (escapes only
    ever land inside JSON strings: these characters cannot occur outside them), with no
    CI log command (``##[`` cannot occur outside a string either)."""
    if "##" in document:
        document = _LOG_COMMAND().sub(r"\1\\u005b", document)
    pattern = _JSON_UNSAFE()
    if not pattern.search(document):
        return document
    return pattern.sub(lambda m: f"\\u{ord(m.group()):04x}", document)
