"""JSON files (devcontainer, VS Code launch configs, task definitions): report only.

Catches (DFM201) every ``SGLANG_ENABLE_SPEC_V2`` in a string (as a key such as
``"containerEnv": {"X": "0"}`` or inside ``"-e", "X=0"``) and (DFM203) renamed launch
flags. JSON has no comments and a removal must mend commas, so nothing is rewritten; the
finding says what to do (``manual``; for a falsy value the replacement names the flag).
"""

from __future__ import annotations

import re

from migrator import catalog
from migrator.base.model import Finding, Fix
from migrator.text import _core

_VALUE_AFTER = re.compile(r'''^(?:"\s*:\s*|=)("?)([^",}\]\s]*)''')


def analyze(path: str, text: str, ctx: _core.Ctx) -> list[Finding]:
    out: list[Finding] = []
    for number, line in enumerate((text_line.rstrip("\r\n") for text_line in _core.split_lines(text)), start=1):
        if "--" in line:
            out += [f._replace(fix=Fix("manual", (), f.fix.replacement if f.fix else None))
                    for f in _core.cli_flag_findings(path, number, line, ctx, rewrite=False)]
        for m in _core.ENV_RE.finditer(line):
            v = _VALUE_AFTER.match(line[m.end():])
            parsed = catalog.sglang_bool(v.group(2)) if v else None
            hint = _core.FLAG if parsed is False else "" if parsed is True else None
            out.append(_core.finding(path, number, m.start(), m.end(), Fix("manual", (), hint)))
    return out


def handle(path: str, data: bytes, ctx: _core.Ctx):
    return _core.run(path, data, ctx, RULE, analyze)


RULE = _core.TextRule("jsonfile", _core.ENV_AND_FLAG_CODES, dotted_names=True, fixes=False,
    examples=_core.Examples(
        invalid=(
            '{"env": {"SGLANG_ENABLE_SPEC_V2": "0"}}\n',
        ),
        valid=(
            '{"env": {"SGLANG_ENABLE_TORCH_COMPILE": "0"}}\n',
        ),
        path="config.json",
    ),
)
