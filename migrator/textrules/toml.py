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
from migrator.model import Finding, Fix, RemoveStatement, Replace, Span
from migrator.textrules import _core
from migrator.textrules.dotenv import unquote

_KEY = re.compile(rf"""^\s*(["']?)({re.escape(_core.ENV)})\1\s*=\s*(.*?)\s*$""")
_ARRAY_LAUNCH = re.compile(rf"(['\"]){re.escape(_core.LAUNCH)}\1(?=\s*[,\]])")


def launch_edits(lines: list[str]) -> tuple[list[Replace], bool]:
    edits: list[Replace] = []
    satisfied = False
    for i, raw in enumerate(lines):
        line = _core.strip_comment(raw)
        satisfied |= _core.FLAG in line
        arr = list(_ARRAY_LAUNCH.finditer(line))
        for m in arr:
            edits.append(Replace(Span.of(i + 1, m.end(), i + 1, m.end()), f", {m.group(1)}{_core.FLAG}{m.group(1)}"))
        if not arr:
            for m in _core.LAUNCH_RE.finditer(line):
                edits.append(Replace(Span.of(i + 1, m.end(), i + 1, m.end()), " " + _core.FLAG))
    return edits, satisfied


def analyze(path: str, text: str, ctx: _core.Ctx) -> list[Finding]:
    lines = text.splitlines()
    out: list[Finding] = []
    for number, raw in enumerate(lines, start=1):
        line = _core.strip_comment(raw)
        if "--" in line:
            out += _core.cli_flag_findings(path, number, line, ctx)
        if not _core.ENV_RE.search(line):
            continue
        m = _KEY.match(line)
        if not m:
            for r in _core.ENV_RE.finditer(line):
                out.append(_core.finding(path, number, r.start(), r.end(), _core.todo_fix(number, _core.UNKNOWN_VALUE)))
            continue
        value = m.group(3)
        parsed = catalog.sglang_bool(unquote(value)) if not value.startswith(("[", "{")) else None
        col, end = m.start(2), m.end(2)
        removal = RemoveStatement(Span.of(number, 0, number, 0))
        if parsed is True:
            out.append(_core.finding(path, number, col, end, Fix("safe", (removal,), "")))
            continue
        sites, satisfied = launch_edits(lines) if parsed is False else ([], False)
        if sites or satisfied:
            out.append(_core.finding(path, number, col, end, Fix("safe", (removal, *sites), _core.FLAG)))
        else:
            detail = _core.FALSY_NO_LAUNCH if parsed is False else _core.UNKNOWN_VALUE
            out.append(_core.finding(path, number, col, end, _core.todo_fix(number, detail)))
    return out


def handle(path: str, data: bytes, options: object):
    return _core.run(path, data, options, analyze)
