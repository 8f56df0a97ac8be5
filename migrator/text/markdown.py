"""Markdown (and MDX): fenced code blocks by their language, inline code, and prose.

Fenced blocks go through the rules of their language (``bash``/``sh``/``shell``/``zsh``/
``console``, ``dockerfile``, ``yaml``/``yml``, ``toml``, ``env``/``dotenv``), with line
numbers of the Markdown file, and are rewritten the same way; ``console`` prompts
(``$ ``) are skipped. ``python`` blocks (also ``py``, ``python3``, ``pycon``/``>>>``
prompts) go through the Python rules and are reported, never edited: a document may show
old code on purpose. Prose, inline code and blocks of other or no language are scanned for
V1 names (``migrator.text.mentions``, DFM401-DFM409, report-only; ``<!-- -->`` and
MDX ``{/* */}`` comments skipped); the variable in inline code (`` `SGLANG_ENABLE_SPEC_V2=0` ``)
is a manual DFM201 finding. Flags tables and instructions to hook V1-only methods:
:mod:`.doc_prose`.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from importlib import import_module

from migrator import catalog
from migrator.base.fileio import SourceError
from migrator.base.model import Finding, Fix, InsertComment, Span
from migrator.text import _core, _guard, doc_prose, mentions
from migrator.text.filetypes import fence_type

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

_FENCE = re.compile(r"^(\s{0,3})(`{3,}|~{3,})\s*([\w+-]*)")
_INLINE = re.compile(r"(`+)(.+?)\1")
_PYTHON = frozenset(("python", "py", "python3", "pycon", "ipython"))
_PROMPT = re.compile(r"^(\s*)(>>>|\.\.\.)( |$)")


_CONSOLE = ("console", "terminal", "shell-session")


def _fence_module(lang: str) -> ModuleType | None:
    """The module of the file type that declares the fence language ``lang``
    (``migrator.text.filetypes``): its rules (``analyze``) and its declaration (``RULE``); or None."""
    filetype = fence_type(lang)
    return None if filetype is None else import_module(filetype.module)


def fences(lines: list[str]) -> Iterator[tuple[str, range]]:
    """(language, body lines as 0-based indices) of each fenced block of ``lines``."""
    i = 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        marker, lang = fence.group(2), fence.group(3).lower()
        j = i + 1
        while j < len(lines) and not lines[j].lstrip().startswith(marker):
            j += 1
        yield lang, range(i + 1, j)
        i = j + 1


def _unprompt(lang: str, line: str) -> str:
    """A line of a ``console`` session as a shell reads it: the command after ``$ ``, or
    blank (output)."""
    if lang not in _CONSOLE:
        return line
    return re.sub(r"^(\s*)[$#>] ", lambda g: " " * len(g.group(0)), line) if re.match(r"^\s*\$ ", line) else " " * len(line)


def unprompted(lang: str, text: str) -> str:
    return "\n".join(_unprompt(lang, line) for line in text.split("\n"))


def analyze(path: str, text: str, ctx: _core.Ctx) -> list[Finding]:
    lines = [line.rstrip("\r\n") for line in _core.split_lines(text, "markdown")]
    style = "mdx" if path.lower().endswith(".mdx") else "html"
    prose = [line.rstrip("\r\n") for line in _core.split_lines(mentions.blank_comments(text, style), "markdown")]
    out: list[Finding] = []
    in_fence: set[int] = set()
    for lang, body in fences(lines):
        in_fence.update(range(body.start - 1, body.stop + 1))
        module = _fence_module(lang)
        if lang in _PYTHON:
            out += _python_block(path, lines, body, ctx)
        elif module is None:
            for k in body:
                out += _core.env_findings(path, k + 1, lines[k], Fix("manual", ()))
                out += mentions.line_findings(path, k + 1, lines[k], ctx)
        else:  # the block alone, then moved to the file's lines (linear in the number of blocks)
            block = "\n".join(_unprompt(lang, lines[k]) for k in body) + "\n"
            out += [_moved(f, body.start) for f in _fence_findings(path, lang, block, module, ctx)]
    for i, line in enumerate(lines):
        if i in in_fence:
            continue
        if "`" in line:
            out += _in_inline_code(line, _core.env_findings(path, i + 1, line, Fix("manual", ())))
        text_of_line = prose[i] if i < len(prose) else line
        said = mentions.line_findings(path, i + 1, text_of_line, ctx)
        out += said + doc_prose.line_findings(path, i + 1, text_of_line, ctx, said)
    return mentions.without_covered(out)


def _fence_findings(path: str, lang: str, block: str, module: ModuleType, ctx: _core.Ctx) -> list[Finding]:
    """A fence's own rules (``module``: its file type's, :func:`_fence_module`), and the name
    table's occurrence search where its file type has it (``worker: sglang...:DFlashWorker`` in
    a ``yaml`` fence), report-only; one finding per place and code."""
    found = module.analyze(path, block, ctx)
    filetype = fence_type(lang)
    rule = module.RULE
    if not rule.dotted_names:
        return found
    named = _core.dotted_name_findings(path, block, ctx, rewrite=False, reader=filetype.reader, handler=rule.name)
    places = {(f.line, f.column, f.code) for f in named}
    return [f for f in found if (f.line, f.column, f.code) not in places] + named


def _in_inline_code(line: str, found: list[Finding]) -> list[Finding]:
    """The findings of ``line`` (in column order) that start inside inline code: the line
    and each code span are scanned once (a 100 KB line of 4,000 spans was 24 s)."""
    if not found:
        return []
    starts, ends = [], []
    for m in _INLINE.finditer(line):
        starts.append(m.start())
        ends.append(m.end())
    return [f for f in found if (k := bisect.bisect_right(starts, f.column) - 1) >= 0 and f.column < ends[k]]


def _moved(finding: Finding, lines: int) -> Finding:
    """``finding`` (and its fix) ``lines`` lines further down."""
    def span(old: Span) -> Span:
        return Span.of(old.start.line + lines, old.start.column, old.end.line + lines, old.end.column)

    def edit(old):  # noqa: ANN001, ANN202 - an Edit
        return old._replace(line=old.line + lines) if isinstance(old, InsertComment) else old._replace(span=span(old.span))

    fix = finding.fix
    if fix is not None:
        fix = fix._replace(edits=tuple(map(edit, fix.edits)), fallback=tuple(map(edit, fix.fallback)))
    return finding._replace(span=span(finding.span), fix=fix)


def _python_block(path: str, lines: list[str], body: range, ctx: _core.Ctx) -> list[Finding]:
    """A Python block through the Python rules, at the Markdown file's lines and columns;
    report-only. ``>>>``/``...`` prompts and the block's common indentation (a block in a
    list item) are cut before parsing and added back to the columns. A block that does not
    parse (a fragment, pseudo-code) is scanned as text."""
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
        found, _ = ctx.python("\n".join(masked) + "\n", path, report_only=True)
    except SourceError:
        return [f for k in body for f in mentions.line_findings(path, k + 1, lines[k], ctx)]
    out = []
    for f in found:
        start, end = f.span
        shift_start, shift_end = cut.get(start.line - 1, 0), cut.get(end.line - 1, 0)
        span = Span.of(start.line, start.column + shift_start, end.line, end.column + shift_end)
        out.append(f._replace(span=span, fix=Fix("manual", ())))
    return out


def _fences(text: str) -> list[tuple[str, str]]:
    lines = [line.rstrip("\r\n") for line in _core.split_lines(text, "markdown")]
    return [(lang, "\n".join(lines[k] for k in body) + "\n") for lang, body in fences(lines)]


def guard(path: str, before: str, after: str) -> str | None:
    """The text-fix guard's check of Markdown: each edited fenced block passes the check of
    its language (``migrator.text._guard``); the shell blocks are parsed together, a few
    ``bash -n`` for any number of them (``_guard.shell_scripts``)."""
    old, new = _fences(before), _fences(after)
    if len(old) != len(new):
        return "the fixed Markdown would have another number of code blocks"
    shell: list[tuple[str, str, str]] = []
    shell_langs: list[str] = []
    problem = None
    for (lang, a), (_, b) in zip(old, new):
        filetype = fence_type(lang)
        check = None if filetype is None else _core.guard_of(filetype)
        if a == b or check is None:
            continue
        if check is _guard.shell:
            shell.append((f"block.{lang}", unprompted(lang, a), unprompted(lang, b)))
            shell_langs.append(lang)
        elif (problem := check(f"block.{lang}", unprompted(lang, a), unprompted(lang, b))) is not None:
            problem = f"in a `{lang}` block: {problem}"
            break  # the shell blocks before it come first
    if (found := _guard.shell_scripts(shell)) is not None:
        index, why = found
        return f"in a `{shell_langs[index]}` block: {why}"
    return problem


def handle(path: str, data: bytes, ctx: _core.Ctx):
    return _core.run(path, data, ctx, RULE, analyze)


RULE = _core.TextRule("markdown", (_core.ENV_ENTRY.code, *catalog.codes_of_kind("text", "cli-flag")),
                        embeds=("python", "shell", "dockerfile", "dotenv", "toml", "yaml"),
    examples=_core.Examples(
        invalid=(
            "Workers subclass `sglang.srt.speculative.dflash_worker.DFlashWorker`.\n",
        ),
        valid=(
            "Workers subclass `sglang.srt.speculative.dflash_worker_v2.DFlashWorkerV2`.\n",
        ),
        path="README.md",
    ),
)
