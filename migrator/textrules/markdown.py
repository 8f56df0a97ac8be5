"""Markdown (and MDX): fenced code blocks by their language, inline code, and prose.

Fenced blocks go through the rules of their language (``bash``/``sh``/``shell``/``zsh``/
``console``, ``dockerfile``, ``yaml``/``yml``, ``toml``, ``env``/``dotenv``), with line
numbers of the Markdown file, and are rewritten the same way; ``console`` prompts
(``$ ``) are skipped. ``python`` blocks (also ``py``, ``python3``, ``pycon``/``>>>``
prompts) go through the Python rules and are reported, never edited: a document may show
old code on purpose. Prose, inline code and blocks of other or no language are scanned for
V1 names (``migrator.textrules.mentions``, DFM401-DFM409, report-only; ``<!-- -->`` and
MDX ``{/* */}`` comments skipped); the variable in inline code (`` `SGLANG_ENABLE_SPEC_V2=0` ``)
is a manual DFM201 finding. Flags tables and instructions to hook V1-only methods:
:mod:`.doc_prose`.
"""

from __future__ import annotations

import re

from migrator import catalog
from migrator.model import Finding, Fix, Span
from migrator.textrules import _core, doc_prose, dockerfile, dotenv, mentions, shell, toml, yaml

_FENCE = re.compile(r"^(\s{0,3})(`{3,}|~{3,})\s*([\w+-]*)")
_INLINE = re.compile(r"(`+)(.+?)\1")
_LANGS: dict[str, _core.Analyzer] = {
    **dict.fromkeys(("bash", "sh", "shell", "zsh", "console", "terminal", "shell-session"), shell.analyze),
    **dict.fromkeys(("dockerfile", "docker", "containerfile"), dockerfile.analyze),
    **dict.fromkeys(("yaml", "yml"), yaml.analyze),
    "toml": toml.analyze,
    **dict.fromkeys(("env", "dotenv"), dotenv.analyze),
}
_PYTHON = frozenset(("python", "py", "python3", "pycon", "ipython"))
_PROMPT = re.compile(r"^(\s*)(>>>|\.\.\.)( |$)")


def _manual(path: str, number: int, line: str, start: int = 0) -> list[Finding]:
    return [_core.finding(path, number, m.start(), m.end(), Fix("manual", ()))
            for m in _core.ENV_RE.finditer(line, start)]


def analyze(path: str, text: str, ctx: _core.Ctx) -> list[Finding]:
    lines = text.splitlines()
    style = "mdx" if path.lower().endswith(".mdx") else "html"
    prose = mentions.blank_comments(text, style).splitlines()
    out: list[Finding] = []
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            for m in _INLINE.finditer(lines[i]):
                out += [f for f in _manual(path, i + 1, lines[i]) if m.start() <= f.column < m.end()]
            said = mentions.line_findings(path, i + 1, prose[i] if i < len(prose) else lines[i], ctx)
            out += said + doc_prose.line_findings(path, i + 1, prose[i] if i < len(prose) else lines[i], ctx, said)
            i += 1
            continue
        marker, lang = fence.group(2), fence.group(3).lower()
        j = i + 1
        while j < len(lines) and not lines[j].lstrip().startswith(marker):
            j += 1
        body = range(i + 1, j)
        analyzer = _LANGS.get(lang)
        if lang in _PYTHON:
            out += _python_block(path, lines, body, ctx)
        elif analyzer is None:
            for k in body:
                out += _manual(path, k + 1, lines[k])
                out += mentions.line_findings(path, k + 1, lines[k], ctx)
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
    return mentions.without_covered(out)


def _python_block(path: str, lines: list[str], body: range, ctx: _core.Ctx) -> list[Finding]:
    """A Python block through the Python rules, at the Markdown file's lines and columns;
    report-only. ``>>>``/``...`` prompts and the block's common indentation (a block in a
    list item) are cut before parsing and added back to the columns. A block that does not
    parse (a fragment, pseudo-code) is scanned as text."""
    from migrator.fileio import SourceError
    from migrator.options import Options

    prompted = any(_PROMPT.match(lines[k]) for k in body)
    cut: dict[int, int] = {}
    for k in body:
        prompt = _PROMPT.match(lines[k])
        if prompted:
            cut[k] = prompt.end() if prompt else len(lines[k])  # output lines of a session are not code
        else:
            cut[k] = min((len(lines[j]) - len(lines[j].lstrip()) for j in body if lines[j].strip()), default=0)
    masked = ["" for _ in lines]
    for k in body:
        masked[k] = lines[k][cut[k]:]
    try:
        found, _ = ctx.python("\n".join(masked) + "\n", path, Options(mode="lint", target_version=ctx.target))
    except SourceError:
        return [f for k in body for f in mentions.line_findings(path, k + 1, lines[k], ctx)]
    out = []
    for f in found:
        start, end = f.span
        shift_start, shift_end = cut.get(start.line - 1, 0), cut.get(end.line - 1, 0)
        span = Span.of(start.line, start.column + shift_start, end.line, end.column + shift_end)
        out.append(f._replace(span=span, fix=Fix("manual", ())))
    return out


def handle(path: str, data: bytes, options: object, python: _core.PythonAnalyser):
    return _core.run(path, data, options, RULE, analyze, python)


RULE = _core.TextRule("markdown", (_core.ENV_ENTRY.code, *catalog.codes_of_kind("text", "cli-flag")),
                        embeds=("python", "shell", "dockerfile", "dotenv", "toml", "yaml"))
