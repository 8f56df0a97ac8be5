"""V1 names spelled in free text (DFM401-DFM409, report-only), line by line.

Used by the fallback scanner (every text file no structured rule reads), by Markdown
prose and by notebook Markdown cells. Only spellings that cannot mean anything else are
reported on their own; the patterns are derived from ``catalog.TEXT_MIRRORS`` (which names
which entry, and how it is spelled unambiguously), so no removed name is spelled here (the patterns: :mod:`migrator.catalog.mentions`):

* "module": the dotted module path not followed by more of a name (``dflash_worker_v2``
  does not match), or its file path (``speculative/dflash_worker.py``); a name of another
  package that merely ends the same way (``myport.sglang.srt...``) does not match;
* "word": ``DFlashDraftInput``, ``_compute_paged_keep_slots``, ``SGLANG_ENABLE_SPEC_V2`` as
  whole words (``DFlashDraftInputV2``, ``SGLANG_ENABLE_SPEC_V2_SETTING`` do not match);
* "member": ``DFlashVerifyInput.verify`` (``DFlashVerifyInput`` alone still exists);
* "context": names that other workers share (``DFlashWorker`` in other packages,
  ``forward_batch_generation``, ``_prepare_for_speculative_decoding``) only on a line that
  also holds one of the spellings above.

Comments are blanked before scanning by :func:`blank_comments` where the file type's
comment syntax is known; positions are kept (blanked text becomes spaces).
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Container

from migrator import catalog
from migrator.base.model import Finding, Fix, Position, Span
from migrator.catalog.mentions import MARKERS, patterns, spelling_start


def line_findings(path: str, number: int, line: str, ctx) -> list[Finding]:  # noqa: ANN001 - _core.Ctx
    """Findings on one line (comments already blanked), at the token's line and column."""
    if not any(marker in line for marker in MARKERS):
        return []
    plain, context = patterns()
    out: list[Finding] = []
    for group in (plain, context):
        if group is context and not out:
            break
        for code, pattern, packages in group:
            if not ctx.fires(code):
                continue
            for match in pattern.finditer(line):
                start = spelling_start(match, packages)
                if start is not None:
                    out.append(manual_finding(path, number, start, match.end(), code))
    return out


def text_findings(path: str, text: str, ctx, skip: Container[int] = frozenset()) -> list[Finding]:  # noqa: ANN001
    """Findings in ``text`` (comments already blanked), except on the lines (1-based) in ``skip``."""
    return [f for number, line in enumerate(text.split("\n"), start=1) if number not in skip
            for f in line_findings(path, number, line.rstrip("\r"), ctx)]


def without_covered(findings: list[Finding]) -> list[Finding]:
    """``findings`` less the text findings that start inside another rule's finding (the
    variable in inline code is already a DFM201 finding). Each line's other spans are
    sorted once and each text finding looked up by halving: one line can hold thousands of
    both."""
    text_codes = {mirror.code for mirror in catalog.TEXT_MIRRORS}
    by_line: dict[int, list[Span]] = {}  # each other finding's span, by the lines it covers (indexed once)
    for f in findings:
        if f.code not in text_codes:
            for line in range(f.span.start.line, f.span.end.line + 1):
                by_line.setdefault(line, []).append(f.span)
    if not by_line:
        return findings
    covering = {line: _Covering(spans) for line, spans in by_line.items()}
    return [f for f in findings if f.code not in text_codes
            or (cover := covering.get(f.span.start.line)) is None or not cover.covers(f.span.start)]


class _Covering:
    """Spans, asked whether any starts at a position or holds it (``start <= p < end``)."""

    __slots__ = ("exact", "furthest", "starts")

    def __init__(self, spans: list[Span]) -> None:
        ordered = sorted(spans, key=lambda span: span.start)
        self.starts = [span.start for span in ordered]
        self.furthest = list(itertools.accumulate((span.end for span in ordered), max))
        self.exact = set(self.starts)

    def covers(self, position: Position) -> bool:
        k = bisect.bisect_right(self.starts, position) - 1
        return position in self.exact or (k >= 0 and position < self.furthest[k])


def manual_finding(path: str, number: int, start: int, end: int, code: str, message: str | None = None) -> Finding:
    """A report-only finding of ``code`` on line ``number``, with the catalog's message unless ``message``."""
    return Finding(path, Span.of(number, start, number, end), code, message or catalog.get(code).message,
                   Fix("manual", ()))


# ---- comments -----------------------------------------------------------------------

#: Comment syntaxes by name: line-comment openers, and (open, close) block pairs.
STYLES: dict[str, tuple[tuple[str, ...], tuple[tuple[str, str], ...]]] = {
    "c": (("//",), (("/*", "*/"),)),  # C/C++/CUDA, Go, Rust, Java, CSS-ish
    "js": (("//",), (("/*", "*/"),)),  # JavaScript/TypeScript/JSX/TSX (:func:`_blank_script`)
    "hash": (("#",), ()),  # Makefile, INI/CFG (also ;), requirements, .gitignore-like files, Perl, R
    "ini": (("#", ";"), ()),
    "hcl": (("#", "//"), (("/*", "*/"),)),
    "html": ((), (("<!--", "-->"),)),  # Markdown, HTML, XML, Vue
    "mdx": ((), (("<!--", "-->"), ("{/*", "*/}"))),
    "jinja": ((), (("{#", "#}"),)),
    "helm": (("#",), (("{{/*", "*/}}"), ("{{- /*", "*/ -}}"))),
}


def blank_comments(text: str, style: str | None) -> str:
    """``text`` with the comments of ``style`` replaced by spaces (newlines kept, so every
    position stays). Quotes are respected for styles with line comments: ``"http://x"``
    is a string, not a comment. ``None``: unknown type, nothing is blanked."""
    if style is None or style not in STYLES:
        return text
    line_openers, blocks = STYLES[style]
    if not any(opener in text for opener in line_openers) and not any(pair[0] in text for pair in blocks):
        return text  # no comment at all (most Markdown): skip the character walk
    if style == "js":
        return _blank_script(text)
    quotes = "\"'`" if style in ("c", "hcl") else ""
    out = list(text)
    i, n = 0, len(text)
    quote = ""
    line_start = True
    while i < n:
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote or (ch == "\n" and quote != "`"):
                quote = ""
            i += 1
            continue
        block = next((pair for pair in blocks if text.startswith(pair[0], i)), None)
        if block is not None:
            end = text.find(block[1], i + len(block[0]))
            end = n if end == -1 else end + len(block[1])
            _blank(out, i, end)
            i = end
            continue
        opener = next((o for o in line_openers if text.startswith(o, i)), None)
        if opener is not None and (style not in ("hash", "ini") or line_start
                                   or (style == "hash" and text[i - 1] in " \t")):
            end = text.find("\n", i)
            end = n if end == -1 else end
            _blank(out, i, end)
            i = end
            continue
        if ch in quotes:
            quote = ch
        if ch == "\n":
            line_start = True
        elif ch not in " \t":
            line_start = False
        i += 1
    return "".join(out)


#: After these characters (or none) an expression starts: a ``/`` there opens a regex
#: literal, a ``<`` a JSX tag; after others they divide and compare.
_EXPRESSION_AFTER = frozenset("(,=:[!&|?{};+-*%<>~^")
_EXPRESSION_KEYWORDS = frozenset(("return", "typeof", "case", "do", "else", "in", "of", "void", "yield", "await",
                                  "delete", "throw", "new", "instanceof"))
_WORD_BEFORE = re.compile(r"[A-Za-z_$][\w$]*$")


def _expression_may_start(text: str, at: int, last: str) -> bool:
    if not last or last in _EXPRESSION_AFTER:
        return True
    word = _WORD_BEFORE.search(text, max(0, at - 16), at) if last.isalpha() else None
    return word is not None and word.group(0) in _EXPRESSION_KEYWORDS and not text[at - 1].isalnum()


def _regex_end(text: str, at: int) -> int | None:
    """The end of the regex literal opening at ``at`` (flags included), or None when its
    line holds no closing ``/`` (then it was no regex)."""
    i, in_class = at + 1, False
    while i < len(text) and text[i] != "\n":
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "/" and not in_class:
            i += 1
            while i < len(text) and (text[i].isalnum() or text[i] == "_"):
                i += 1
            return i
        in_class = (in_class or ch == "[") and ch != "]"
        i += 1
    return None


_CODE_ELEMENT = re.compile(r"(?:script|style)\b", re.IGNORECASE)


def _blank_script(text: str) -> str:
    """``blank_comments`` of JavaScript/TypeScript with JSX: strings, template literals and
    regex literals (``/\\/*$/``) are no comment, and neither is JSX text (``<p>/* note</p>``):
    a tag opened where an expression may start makes what follows its ``>`` text, up to an
    expression container ``{...}`` or the next tag; the closing tag of the outermost
    element makes it code again (and so does a ``<script>``/``<style>`` element of Vue or
    Svelte). A ``/*`` never closed hides nothing. Where this cannot tell, it leaves the text
    unblanked: a mention in a comment is reported rather than a mention in code hidden."""
    out = list(text)
    n = len(text)
    mode = "code"  # or "text" (JSX children) or "tag" (inside ``<...>``)
    depth = 0  # open JSX elements in this expression
    closing = False  # the tag being read is a closing one (``</p>``)
    tag = 0  # where it starts
    stack: list[tuple[str, int]] = []  # (mode, depth) around each ``{``
    last = ""  # the last character of code (outside strings and comments)
    no_regex_before = 0
    i = 0
    while i < n:
        ch = text[i]
        if mode == "text":
            if ch == "{":
                stack.append((mode, depth))
                mode, depth, last = "code", 0, "{"
            elif ch == "<":
                mode, closing, last = "tag", text.startswith("/", i + 1), "<"
            i += 1
            continue
        if ch in "\"'`":
            i = _string_end(text, i)
            last = ch
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            _blank(out, i, end)
            i = end
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:  # never closed: a syntax error, or no comment at all; hide nothing
                i += 2
                continue
            _blank(out, i, end + 2)
            i = end + 2
            continue
        if mode == "code" and ch == "/" and i >= no_regex_before and _expression_may_start(text, i, last):
            end = _regex_end(text, i)
            if end is not None:
                i, last = end, "/"
                continue
            no_regex_before = _line_end(text, i)  # none closes on this line: try no other (linear time)
        if mode == "code" and ch == "<" and _expression_may_start(text, i, last) and i + 1 < n \
                and (text[i + 1].isalpha() or text[i + 1] in ">/"):
            mode, closing, tag = "tag", text[i + 1] == "/", i
        elif mode == "tag" and ch == ">":
            if closing:
                depth = max(depth - 1, 0)
            elif last != "/":
                depth += 1
            code_inside = not closing and _CODE_ELEMENT.match(text, tag + 1) is not None  # Vue, Svelte
            mode = "text" if depth and not code_inside else "code"
        elif ch == "{":
            stack.append((mode, depth))
            mode, depth = "code", 0
        elif ch == "}" and stack:
            mode, depth = stack.pop()
        if ch not in " \t\r\n":
            last = ch
        i += 1
    return "".join(out)


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def _string_end(text: str, at: int) -> int:
    """Past the string opened at ``at``; a quote ends at its line's end, a template literal
    runs on (its ``${...}`` read as text: no comment is blanked inside)."""
    quote, i, n = text[at], at + 1, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == quote or (ch == "\n" and quote != "`"):
            return i + 1
        i += 1
    return n


def _blank(out: list[str], start: int, end: int) -> None:
    for k in range(start, end):
        if out[k] not in "\r\n":
            out[k] = " "
