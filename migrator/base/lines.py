"""Line splitting that agrees with Python's tokenizer (and ``ast`` line numbers), and blanking a
trailing comment out of a line (:func:`strip_comment`).

``str.splitlines`` also breaks on form feeds, ``\\x1c``-``\\x1e``, ``\\x85`` and the
Unicode line separators, which Python source treats as ordinary characters; using it
would shift line numbers and columns on such files. Only ``\\r\\n``, ``\\r`` and ``\\n``
end a line here.

Other readers end lines elsewhere, and a text rule must split a file where the program
that reads it does (``split_lines(text, reader)``, the one helper every text rule uses):
bash (also Dockerfiles, Makefiles, TOML) only at ``\\n``, so a form feed or a lone CR is
an ordinary character inside a command; YAML as PyYAML does (``\\r\\n``, ``\\r``, ``\\n``,
NEL, LS, PS); Markdown (CommonMark) like Python. Text embedded in another file (a YAML
``run: |`` script, a Markdown fence) is split by its container first.
"""

from __future__ import annotations

from migrator.base.patterns import on_first_use

_LINE = on_first_use(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_YAML_LINE = on_first_use("[^\r\n\x85\u2028\u2029]*(?:\r\n|[\r\n\x85\u2028\u2029])|[^\r\n\x85\u2028\u2029]+$")
_YAML_BREAKS = ("\r", "\x85", "\u2028", "\u2029")
#: Which lines each reader sees: "python" (also Markdown), "shell" (LF only), "yaml".
READERS = ("python", "markdown", "shell", "yaml")


def offsets(text: str | bytes, word: str | bytes, limit: int | None = None) -> list[int]:
    """Where ``word`` starts in ``text``, every occurrence (overlapping ones too), in order;
    at most ``limit`` of them. A search in C per occurrence, never a Python test per line."""
    found: list[int] = []
    at = text.find(word)  # type: ignore[arg-type]
    while at != -1 and (limit is None or len(found) < limit):
        found.append(at)
        at = text.find(word, at + 1)  # type: ignore[arg-type]
    return found


def split_lines(text: str, reader: str = "python") -> list[str]:
    """Lines with their endings kept, as ``reader`` (one of ``READERS``) ends them;
    ``"".join(split_lines(t, reader)) == t``."""
    if reader == "yaml" and any(ch in text for ch in _YAML_BREAKS):
        return _YAML_LINE().findall(text)
    if "\r" in text and reader in ("python", "markdown"):
        return _LINE().findall(text)
    # ``splitlines`` (in C) also ends a line at a form feed, NEL, ...: where the count of lines
    # says it ended them only at LF, its answer is this one
    lines = text.splitlines(keepends=True)
    if len(lines) == text.count("\n") + (not text.endswith("\n") and text != ""):
        return lines
    lines = text.split("\n")  # ~10x faster than the pattern on the usual LF-only source
    last = lines.pop()
    lines = [line + "\n" for line in lines]
    if last:
        lines.append(last)
    return lines


def line_ending(line: str, default: str = "\n") -> str:
    if line.endswith("\r\n"):
        return "\r\n"
    if line.endswith(("\n", "\r")):
        return line[-1]
    return default


def strip_comment(line: str, marker: str = "#") -> str:
    """``line`` with a trailing comment blanked out (quotes respected: ``'...'`` without
    escapes, ``"..."`` with backslash escapes, as shell, YAML and TOML read them); positions
    are kept."""
    quote = ""
    escaped = False
    for i, ch in enumerate(line):
        if escaped:  # the character after a backslash in "...": never the closing quote
            escaped = False
        elif quote:
            if ch == quote:
                quote = ""
            elif ch == "\\" and quote == '"':
                escaped = True
        elif ch in "'\"":
            quote = ch
        elif line.startswith(marker, i) and (i == 0 or line[i - 1] in " \t"):
            return line[:i] + " " * (len(line) - i)
    return line


def may_suppress(text: str, python: bool) -> bool:
    """Can ``text`` hold a suppression comment (``migrator.base.suppressions``)? A substring test
    that spares the tokenizer (and the suppressions module's imports) almost every file:
    ``dflash-migrate:``, or in Python a ``noqa`` with one of this tool's codes."""
    return "dflash-migrate:" in text or (python and "DFM" in text and "noqa" in text.lower())
