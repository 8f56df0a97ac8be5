"""Markdown: fenced code blocks by their language, and inline code.

Fenced blocks go through the rules of their language (``bash``/``sh``/``shell``/``zsh``/
``console``, ``dockerfile``, ``yaml``/``yml``, ``toml``, ``env``/``dotenv``), with line
numbers of the Markdown file, and are rewritten the same way; ``console`` prompts
(``$ ``) are skipped. Python blocks and blocks of other or no language, and inline code
(`` `SGLANG_ENABLE_SPEC_V2=0` ``), are reported with a manual fix and never edited: prose
is the author's. Text outside code is not linted (docs may explain the migration).
"""

from __future__ import annotations

import re

from migrator.model import Finding, Fix
from migrator.textrules import _core, dockerfile, dotenv, shell, toml, yaml

_FENCE = re.compile(r"^(\s{0,3})(`{3,}|~{3,})\s*([\w+-]*)")
_INLINE = re.compile(r"(`+)(.+?)\1")
_LANGS: dict[str, _core.Analyzer] = {
    **dict.fromkeys(("bash", "sh", "shell", "zsh", "console", "terminal", "shell-session"), shell.analyze),
    **dict.fromkeys(("dockerfile", "docker", "containerfile"), dockerfile.analyze),
    **dict.fromkeys(("yaml", "yml"), yaml.analyze),
    "toml": toml.analyze,
    **dict.fromkeys(("env", "dotenv"), dotenv.analyze),
}


def _manual(path: str, number: int, line: str, start: int = 0) -> list[Finding]:
    return [_core.finding(path, number, m.start(), m.end(), Fix("manual", ()))
            for m in _core.ENV_RE.finditer(line, start)]


def analyze(path: str, text: str, ctx: _core.Ctx) -> list[Finding]:
    lines = text.splitlines()
    out: list[Finding] = []
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            for m in _INLINE.finditer(lines[i]):
                out += [f for f in _manual(path, i + 1, lines[i]) if m.start() <= f.column < m.end()]
            i += 1
            continue
        marker, lang = fence.group(2), fence.group(3).lower()
        j = i + 1
        while j < len(lines) and not lines[j].lstrip().startswith(marker):
            j += 1
        body = range(i + 1, j)
        analyzer = _LANGS.get(lang)
        if analyzer is None:
            for k in body:
                out += _manual(path, k + 1, lines[k])
        else:
            masked = ["" for _ in lines]
            for k in body:
                line = lines[k]
                if lang in ("console", "terminal", "shell-session"):
                    line = re.sub(r"^(\s*)[$#>] ", lambda g: " " * len(g.group(0)), line) \
                        if re.match(r"^\s*\$ ", line) else " " * len(line)
                masked[k] = line
            out += analyzer(path, "\n".join(masked) + "\n", ctx)
        i = j + 1
    return out


def handle(path: str, data: bytes, options: object):
    return _core.run(path, data, options, analyze)
