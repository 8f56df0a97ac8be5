"""Every other text file: V1 names spelled in it (DFM401-DFM409, report-only).

Files no structured rule reads (JavaScript/TypeScript/JSX/TSX, reStructuredText,
Jinja/Helm templates, Makefiles, INI/CFG, HCL, C/C++/CUDA, plain text, ...) are scanned
line by line for the unambiguous spellings of ``migrator.textrules.mentions``. Comments
are skipped where the type's comment syntax is known (``COMMENT_STYLES``); in a file of
unknown type every line is scanned. Like every file, it is only read here after the byte
prefilter found a marker in it. A file holding a NUL byte, or that is not UTF-8, is
treated as binary and skipped without a finding or an error.
"""

from __future__ import annotations

import os

from migrator import catalog
from migrator.model import FileResult, Finding
from migrator.textrules import _core, mentions

#: File suffix (or whole lower-case name) -> comment style of ``mentions.STYLES``.
COMMENT_STYLES: dict[str, str] = {
    **dict.fromkeys((".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".svelte",
                     ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".cu", ".cuh", ".go", ".rs",
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
    return mentions.text_findings(path, mentions.blank_comments(text, style_for(path)), ctx)


def handle(path: str, data: bytes, options: object, python: _core.PythonAnalyser) -> FileResult:
    if b"\0" in data[:8192]:
        return FileResult(path)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return FileResult(path)
    return _core.run(path, data, options, RULE, analyze, python)


RULE = _core.TextRule("fallback", catalog.codes_of_kind("text"))
