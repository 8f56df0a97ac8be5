"""``.env`` files (``.env``, ``.env.*``, ``*.env``): ``X=0``, ``export X=0``, quoted values.

A ``.env`` file only holds settings, never the launch command, so: a truthy setting (the
default from 0.5.14) is removed; a falsy or unrecognised one stays with a TODO saying to
pass ``--disable-overlap-schedule`` where the server is launched. Other mentions (e.g.
``B=${X}``) get a TODO. Comment lines and look-alike names never match.
"""

from __future__ import annotations

import re

from migrator import catalog
from migrator.base.model import Finding, Fix, RemoveStatement, Span
from migrator.text import _core

_SETTING = re.compile(rf"^\s*(?:export\s+)?({re.escape(_core.ENV)})\s*=\s*(.*?)\s*$")


def unquote(value: str) -> str:
    value = value.strip()
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"" else value


def setting_finding(path: str, line_no: int, col: int, value: str | None) -> Finding:
    parsed = None if value is None or "$" in value else catalog.sglang_bool(unquote(value))
    end = col + len(_core.ENV)
    if parsed is True:
        return _core.finding(path, line_no, col, end, Fix("safe", (RemoveStatement(Span.of(line_no, 0, line_no, 0)),), ""))
    return _core.finding(path, line_no, col, end, _core.kept_fix(line_no, parsed, RULE.name))


def analyze(path: str, text: str, ctx: _core.Ctx) -> list[Finding]:
    out: list[Finding] = []
    for number, raw in enumerate((line.rstrip("\r\n") for line in _core.split_lines(text)), start=1):
        line = _core.strip_comment(raw)  # a comment line is blank now
        if not _core.ENV_RE.search(line):
            continue
        if m := _SETTING.match(line):
            out.append(setting_finding(path, number, m.start(1), m.group(2)))
            continue
        out += _core.env_findings(path, number, line, _core.use_fix(number, RULE.name))
    return out


def handle(path: str, data: bytes, ctx: _core.Ctx):
    return _core.run(path, data, ctx, RULE, analyze)


RULE = _core.TextRule("dotenv", (_core.ENV_ENTRY.code,), dotted_names=True,
    examples=_core.Examples(
        invalid=(
            "SGLANG_ENABLE_SPEC_V2=0\n",
        ),
        valid=(
            "SGLANG_ENABLE_TORCH_COMPILE=0\n",
        ),
        path=".env",
    ),
)
