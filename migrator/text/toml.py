"""TOML files (task runners, tool configs): ``X = "0"`` keys and launch commands in strings.

Catches (DFM201) a key ``SGLANG_ENABLE_SPEC_V2 = ...`` (bare or quoted) in any table, and
other mentions (inline tables, ``"X=0"`` strings) with a TODO; (DFM203) renamed launch
flags in strings. A truthy key is removed. A falsy key is removed and
``--disable-overlap-schedule`` added after every ``sglang.launch_server`` in the file
(``, "--disable-overlap-schedule"`` in an array, `` --disable-overlap-schedule`` in a
string) when there is one; otherwise it stays with a TODO.
"""

from __future__ import annotations

import re

from migrator import catalog
from migrator.base.model import Finding, Fix, RemoveStatement, Replace, Span
from migrator.text import _core
from migrator.text.dotenv import unquote

_KEY = re.compile(rf"""^\s*(["']?)({re.escape(_core.ENV)})\1\s*=\s*(.*?)\s*$""")


def launch_edits(lines: list[str]) -> tuple[list[Replace], int | None]:
    """Where the flag goes for each launch of the file, and the first line (1-based) that
    passes it, if one does."""
    edits: list[Replace] = []
    passed: int | None = None
    for i, raw in enumerate(lines):
        line = _core.strip_comment(raw)
        if passed is None and _core.FLAG in line:
            passed = i + 1
        edits += _core.disable_overlap_edits(i + 1, line)
    return edits, passed


_TOKEN = re.compile(r'''"""|\'\'\'|"(?:[^"\\\n]|\\.)*"?|'[^'\n]*'?|#[^\n]*''')
_MULTILINE_END = {'"""': re.compile(r'(?:[^\\]|\\.)*?"""("{0,2})', re.S), "'''": re.compile(r"[\s\S]*?'''('{0,2})")}


def inside_multiline_strings(text: str) -> set[int]:
    """Line numbers (1-based) that start inside a multi-line string (``\"\"\"...\"\"\"`` or
    ``'''...'''``): their text is the string's content, never a key. A small tokenizer
    that knows TOML's strings and comments (a ``\"\"\"`` inside ``'...'`` or after ``#`` opens
    nothing)."""
    inside: set[int] = set()
    pos = 0
    while (m := _TOKEN.search(text, pos)) is not None:
        token = m.group(0)
        if token not in _MULTILINE_END:
            pos = m.end()
            continue
        end = _MULTILINE_END[token].match(text, m.end())
        stop = end.end() if end else len(text)
        first = text.count("\n", 0, m.start()) + 1
        inside.update(range(first + 1, first + text.count("\n", m.start(), stop) + 1))
        pos = stop
    return inside


def analyze(path: str, text: str, ctx: _core.Ctx) -> list[Finding]:
    lines = [line.rstrip("\r\n") for line in _core.split_lines(text, "shell")]
    out: list[Finding] = []
    inside = inside_multiline_strings(text) if '""' in text or "''" in text else set()
    launches: tuple[list[Replace], int | None] | None = None
    for number, raw in enumerate(lines, start=1):
        line = raw if number in inside else _core.strip_comment(raw)
        if "--" in line:
            out += _core.cli_flag_findings(path, number, line, ctx)
        if not _core.ENV_RE.search(line):
            continue
        if number in inside:  # text of a string (a script, a message): reported, never edited as a key
            out += _core.env_findings(path, number, line, Fix("manual", ()))
            continue
        m = _KEY.match(line)
        if not m:
            out += _core.env_findings(path, number, line, _core.use_fix(number, RULE.name))
            continue
        value = m.group(3)
        parsed = catalog.sglang_bool(unquote(value)) if not value.startswith(("[", "{")) else None
        col, end = m.start(2), m.end(2)
        removal = RemoveStatement(Span.of(number, 0, number, 0))
        if parsed is True:
            out.append(_core.finding(path, number, col, end, Fix("safe", (removal,), "")))
            continue
        if launches is None:
            launches = launch_edits(lines)  # once per file: the same for every key that is not truthy
        sites, passed = launches
        if parsed is False and (sites or passed is not None):
            out.append(_core.finding(path, number, col, end, Fix("safe", (removal, *sites), _core.FLAG)))
        else:
            out.append(_core.finding(path, number, col, end, _core.kept_fix(number, parsed, RULE.name, passed)))
    return out


def regions(text: str) -> tuple[set[int], set[int]]:
    """(lines inside multi-line strings: data, no comments; no embedded language)."""
    return inside_multiline_strings(text), set()


def handle(path: str, data: bytes, ctx: _core.Ctx):
    return _core.run(path, data, ctx, RULE, analyze, regions=regions)


RULE = _core.TextRule("toml", _core.ENV_AND_FLAG_CODES, dotted_names=True,
    examples=_core.Examples(
        invalid=(
            (
                "[env]\n"
                'SGLANG_ENABLE_SPEC_V2 = "0"\n'
            ),
        ),
        valid=(
            (
                "[env]\n"
                'SGLANG_ENABLE_TORCH_COMPILE = "0"\n'
            ),
        ),
        path="pyproject.toml",
    ),
)
