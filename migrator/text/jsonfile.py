"""JSON files (devcontainer, VS Code launch configs, task definitions): nothing rewritten.

Catches (DFM201) every ``SGLANG_ENABLE_SPEC_V2`` in a string (as a key such as
``"containerEnv": {"X": "0"}`` or inside ``"-e", "X=0"``) and (DFM203) renamed launch
flags. A removal must mend commas, so nothing is rewritten; the finding says what to do
(``manual``; for a falsy value the replacement names the flag). Where the file's readers
take ``//`` comments (JSON with comments, :func:`takes_comments`: ``.jsonc``, ``tsconfig``,
``jsconfig``, ``devcontainer.json``, VS Code's ``.vscode/*.json``) the TODO is written above
the line in ``//`` form; strict JSON (``package.json``, a model config) has no comments, so
there the finding is reported only.
"""

from __future__ import annotations

import os
import re

from migrator import catalog
from migrator.base.model import Finding, Fix, InsertComment
from migrator.text import _core, wording

_VALUE_AFTER = re.compile(r'''^(?:"\s*:\s*|=)("?)([^",}\]\s]*)''')
#: Whole names of JSON files whose readers (TypeScript, VS Code, the Dev Containers spec)
#: accept ``//`` comments.
_WITH_COMMENTS = frozenset(("tsconfig.json", "jsconfig.json", "devcontainer.json", ".devcontainer.json"))


def takes_comments(path: str) -> bool:
    """Is ``path`` JSON with comments (a ``//`` line above any line keeps it valid)?"""
    name = os.path.basename(path).lower()
    return (name.endswith(".jsonc") or name in _WITH_COMMENTS or name.startswith(("tsconfig.", "jsconfig."))
            or os.path.basename(os.path.dirname(path)).lower() == ".vscode")


def analyze(path: str, text: str, ctx: _core.Ctx) -> list[Finding]:
    todos = takes_comments(path)
    out: list[Finding] = []
    for number, line in enumerate((text_line.rstrip("\r\n") for text_line in _core.split_lines(text)), start=1):
        if todos and line.lstrip().startswith("//"):  # a comment (a TODO written here names what it is about)
            continue
        if "--" in line:
            out += [f._replace(fix=Fix("manual", _todo(number, catalog.todo_comment(catalog.get(f.code))) if todos
                                       else (), f.fix.replacement if f.fix else None))
                    for f in _core.cli_flag_findings(path, number, line, ctx, rewrite=False)]
        for m in _core.ENV_RE.finditer(line):
            v = _VALUE_AFTER.match(line[m.end():])
            parsed = catalog.sglang_bool(v.group(2)) if v else None
            hint = _core.FLAG if parsed is False else "" if parsed is True else None
            todo = catalog.todo_comment(_core.ENV_ENTRY, wording.kept("jsonfile", parsed))
            edits = _todo(number, todo) if todos else ()
            out.append(_core.finding(path, number, m.start(), m.end(), Fix("manual", edits, hint)))
    return out


def _todo(line: int, comment: str) -> tuple[InsertComment]:
    """The ``# TODO`` ``comment`` above ``line`` in ``//`` form."""
    return (InsertComment(line, "//" + comment.removeprefix("#")),)


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
