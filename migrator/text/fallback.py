"""Every other text file: V1 names spelled in it (DFM401-DFM409, report-only).

Files no structured rule reads (JavaScript/TypeScript/JSX/TSX, reStructuredText,
Jinja/Helm templates, Makefiles, INI/CFG, HCL, C/C++/CUDA, plain text, ...) are scanned
line by line for the unambiguous spellings of ``migrator.text.mentions``. Comments
are skipped where the type's comment syntax is known (``COMMENT_STYLES``); in a file of
unknown type every line is scanned. A Makefile's recipe lines (tab-indented) are shell:
each recipe command goes through the rules of :mod:`.shell` (findings, fixes or TODOs,
the text-fix guard's ``bash -n``), the rest of the file is scanned as text. Like every file, it is only read here after the byte
prefilter found a marker in it. A file holding a NUL byte, or that is not UTF-8, is
treated as binary and skipped without a finding or an error.
"""

from __future__ import annotations

import os

from migrator import catalog
from migrator.base.model import FileResult, Finding
from migrator.text import _core, _guard, embedded_python, mentions, shell
from migrator.text._shellparse import split
from migrator.text.filetypes import is_makefile

#: File suffix (or whole lower-case name) -> comment style of ``mentions.STYLES``.
COMMENT_STYLES: dict[str, str] = {
    **dict.fromkeys((".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".svelte"), "js"),
    **dict.fromkeys((".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".cu", ".cuh", ".go", ".rs",
                     ".java", ".kt", ".scala", ".swift", ".cs", ".css", ".scss", ".less", ".proto",
                     ".jsonnet", ".libsonnet"), "c"),
    **dict.fromkeys((".mk", ".make", "makefile", "gnumakefile", ".cmake", "cmakelists.txt", ".pl", ".r",
                     ".rb", ".nix", ".conf", ".properties", ".gitignore", ".dockerignore", ".bzl",
                     ".bazel", "build", "workspace", ".star", ".tf.j2"), "hash"),
    **dict.fromkeys((".ini", ".cfg", ".flake8", ".pylintrc", ".editorconfig", "setup.cfg", "tox.ini"), "ini"),
    **dict.fromkeys((".tf", ".tfvars", ".hcl", ".nomad"), "hcl"),
    **dict.fromkeys((".html", ".htm", ".xml", ".xhtml", ".svg"), "html"),
    **dict.fromkeys((".j2", ".jinja", ".jinja2", ".njk"), "jinja"),
    ".tpl": "helm",
}


def style_for(path: str) -> str | None:
    name = os.path.basename(path).lower()
    if name in COMMENT_STYLES:
        return COMMENT_STYLES[name]
    if name.startswith("makefile") or name.endswith("requirements.txt"):
        return "hash"
    return COMMENT_STYLES.get(os.path.splitext(name)[1])


def analyze(path: str, text: str, ctx: _core.Ctx) -> list[Finding]:
    if is_makefile(path):
        return _makefile(path, text, ctx)
    return mentions.text_findings(path, mentions.blank_comments(text, style_for(path)), ctx)


def recipe_lines(lines: list[str]) -> list[tuple[int, list[str]]]:
    """Each recipe command of a Makefile (tab-indented lines, ``\\`` continuations joined) as
    (first line, the lines as the shell reads them: the tab and ``@``/``-``/``+`` prefixes
    blanked, every other line empty)."""
    out = []
    i = 0
    while i < len(lines):
        if not lines[i].startswith("\t"):
            i += 1
            continue
        first = i
        group = []
        while True:
            text = lines[i].rstrip("\r\n")
            if i == first:
                prefix = len(text) - len(text[1:].lstrip("@-+ \t")) if len(text) > 1 else len(text)
                text = " " * prefix + text[prefix:]
            group.append(text)
            if not text.endswith("\\") or i + 1 >= len(lines):
                break
            i += 1
        out.append((first + 1, group))
        i += 1
    return out


def _makefile(path: str, text: str, ctx: _core.Ctx) -> list[Finding]:
    """Recipe lines through the shell rules (each line runs in a shell of its own, so each
    is one script), the rest of the file as text."""
    lines = _core.split_lines(text, "shell")
    recipes = recipe_lines(lines)
    out: list[Finding] = []
    in_recipe: set[int] = set()
    for first, group in recipes:
        in_recipe.update(range(first, first + len(group)))
        joined = "".join(group)
        if _core.ENV in joined:
            out += shell.analyze_commands(path, split(group, first), lines, ctx, kind="makefile")
        if embedded_python.might_hold(joined):
            out += embedded_python.python_c_findings(path, split(group, first), ctx, lines)
        for offset, line in enumerate(group):
            if "--" in line:
                out += _core.cli_flag_findings(path, first + offset, _core.strip_comment(line), ctx)
    return out + mentions.text_findings(path, mentions.blank_comments(text, "hash"), ctx, skip=in_recipe)


def handle(path: str, data: bytes, ctx: _core.Ctx) -> FileResult:
    if b"\0" in data[:8192]:
        return FileResult(path)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return FileResult(path)
    if is_makefile(path):
        return _core.run(path, data, ctx, RULE, analyze, regions=regions)
    return _core.run(path, data, ctx, RULE, analyze)


def guard(path: str, before: str, after: str) -> str | None:
    """The text-fix guard's check of a Makefile: its recipe lines pass ``bash -n``."""
    def recipes(text: str) -> str:
        return "".join("\n".join(group) + "\n" for _, group in recipe_lines(text.split("\n")))

    return _guard.script(recipes(before), recipes(after), "Makefile recipe")


def regions(text: str) -> tuple[set[int], set[int]]:
    """(no data lines, the recipe lines: their comments are shell comments)."""
    return set(), {number for number, line in enumerate(text.split("\n"), start=1) if line.startswith("\t")}


RULE = _core.TextRule("fallback", catalog.codes_of_kind("text"), embeds=("shell",),
    examples=_core.Examples(
        invalid=(
            "# workers subclass sglang.srt.speculative.dflash_worker.DFlashWorker\n",
        ),
        valid=(
            "# workers subclass sglang.srt.speculative.dflash_worker_v2.DFlashWorkerV2\n",
        ),
        path="notes.txt",
    ),
)
