"""Lazy imports (an ``import`` inside a function) only at the seams listed here, and no more of
them than :data:`BUDGET` (issue 43: most modules show their dependencies at the top).

A lazy import is a seam where a path that does not need a module must not pay for it: every
run imports ``migrator.cli.main`` and most import the engine, so a module imported at the
top of those costs every command line. Each seam below is an (importing module, imported
module) pair with the reason; ``docs/design/core.md`` ("Lazy imports") says where they are.
A new lazy import fails :func:`test_every_lazy_import_is_a_listed_seam`: move it to the top
of its module, or list it with the path it keeps light (measured: the modules each command
line loads, ``sys.modules`` at exit, and callgrind's instruction count). A seam that is gone
fails :func:`test_no_listed_seam_is_stale`, so the list stays the code's.

A computed import (``import_module``) in a function counts as one too (:data:`COMPUTED`): the
command that runs (``migrator.cli.main.run_command`` imports the run module its declaration
names, :mod:`migrator.cli.runs`), a file type's module, a report format's, the rule modules.

The count was 308 at 4edc429, 111 at f48866b (computed imports not counted) and 84 at c4f55b8
(76 import statements, 8 computed imports); issue 43 asks for 60. It is 59 (52 + 7): a module
that imported one module in several functions imports it once (own releases' specifiers,
Markdown's fence modules, TOML's reader in :mod:`migrator.base.toml`, pathspec in
:mod:`migrator.base.ignore`, the rules' tokenizer in ``rules.context.tokens_of``, the files a
run processes in :mod:`migrator.run.dispatch`); code moved to the module that every caller
imports already (the ruff-style listings into ``report.text``, ``fingerprinted`` into
``report.locations``, ``needs_libcst`` into ``migrator.edit``); ``unicodedata`` (a cheap C
module) at the top. A seam stays wherever moving the import would make a command line load
a module it never uses (checked per command line: ``fix``, ``rules``, ``--version``, ``lint``
of one file, of a tree, ``--format json``), except a cheap standard module. What is left:
fix-only modules, rare options and output formats, the candidate file's analysis (issue 49),
the cache of named files, workers, TOML, packaging and pathspec where a file needs them.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "migrator"

#: Lazy imports allowed in ``migrator/`` (was 308 at 4edc429, 112 at f48866b, 84 at c4f55b8).
BUDGET = 59  # 52 import statements + 7 computed imports

TYPER = "typer and rich: only help, usage errors, completion and progress bars need them, never a plain fix or lint"
REPORT = "one output format or option (--format, --baseline, --add-noqa, --statistics, --output, --report) only"
FIX = "writing runs only (fix): the write, the guard, libcst, pyflakes, the wheel index"
CANDIDATE = ("a file that holds a V1 word: the analysis and the rules; a lint of one file without one never imports "
             "them (issue 49)")
OWN_RELEASE = "a file that is processed, or a repository with pins below its top: own releases and their specifiers"
STDLIB = "a standard module the paths that do not need it never import (measured per command line)"
RARE = "a rare branch: an error, a typo, a file named like an option under pre-commit, a computed module name"
PROCESSED = ("a file that passes the byte prefilter: migrator.run.dispatch and what it imports (own releases, the "
             "analysis, the rules); warmed up before the workers fork")
CACHE = "named files whose fork index reaches beyond them: the summary cache"
WORKERS = "--jobs above 1: worker processes"
TOML = "the TOML reader (migrator.base.toml: tomllib on 3.11+, tomli before): only where a TOML file is read"
DATA = "a large generated table only some findings need"

#: The imported module of a computed import (``import_module(name)``, ``__import__(name)`` in a
#: function): a lazy import too, of the module a declaration names.
COMPUTED = "(computed)"
COMPUTING = ("import_module", "__import__")

SEAMS: dict[tuple[str, str], str] = {
    ("migrator.base.fileio", "shutil"): FIX,
    ("migrator.base.fileio", "tempfile"): FIX,
    ("migrator.base.fileio", "tokenize"): STDLIB,
    ("migrator.base.options", "migrator.base.ignore"): "an --exclude pattern or a .gitignore: pathspec (migrator.base.ignore)",
    ("migrator.catalog.guide", "importlib"): "the installed release's metadata: only where a note needs it",
    ("migrator.catalog.lookups", "migrator.catalog.bare_names"): "the generated bare-name table: only where the triggers are built (not `rules`, `explain`)",
    ("migrator.catalog.target", "packaging.specifiers"): "a pin or a range to read: packaging",
    ("migrator.cli.main", "difflib"): RARE,
    ("migrator.cli.main", "migrator.cli.typer_app"): TYPER,
    ("migrator.cli.main", "migrator.cli.commands.doctor"): "--version answers before any command module is imported",
    ("migrator.cli.main", "migrator.cli.commands.fix"): "--version answers before any command module is imported",
    ("migrator.cli.main", "migrator.cli.commands.lint"): "--version answers before any command module is imported",
    ("migrator.cli.main", "migrator.cli.commands.rules"): "--version answers before any command module is imported",
    ("migrator.cli.main", "migrator.cli.commands.verify"): "--version answers before any command module is imported",
    ("migrator.cli.main", "migrator.run.gitscan"): RARE,
    ("migrator.cli.main", "migrator.report.escape"): RARE,
    ("migrator.cli.main", COMPUTED): "the command that runs: its run module (migrator.cli.runs), named by its declaration",
    ("migrator.cli.runs.common", "migrator.run.report"): REPORT,
    ("migrator.cli.runs.common", "rich.console"): TYPER,
    ("migrator.cli.runs.common", "rich.progress"): TYPER,
    ("migrator.cli.runs.doctor", "shims.doctor"): "the installed shim, whose import may fail where another distribution's shims was installed over ours",
    ("migrator.cli.runs.fix", "migrator.report.diff"): REPORT,
    ("migrator.cli.runs.lint", "migrator.report.baseline"): REPORT,
    ("migrator.cli.runs.lint", "migrator.report.github"): REPORT,
    ("migrator.cli.runs.lint", "migrator.run.add_noqa"): REPORT,
    ("migrator.edit", "migrator.edit.splice"): FIX,
    ("migrator.edit", "migrator.edit.structural"): FIX,
    ("migrator.edit.comments", "textwrap"): FIX,
    ("migrator.python.fallbacks", "migrator.python.version_tests"): CANDIDATE,
    ("migrator.python.guard", "migrator.releases.index"): FIX,
    ("migrator.python.rules", COMPUTED): "the rule modules by name (MODULES), registered where the first candidate is analysed",
    ("migrator.python.rules.context", "tokenize"): "a rule's tokens (type comments, the names a deletion leaves), where its text search found a reason",
    ("migrator.python.rules.imports", "migrator.python.version_tests"): CANDIDATE,
    ("migrator.python.rules.name_comparisons", "migrator.catalog.mentions"): CANDIDATE,
    ("migrator.python.surface", "migrator.releases.surface_index"): DATA,
    ("migrator.report", COMPUTED): "the module of the one --format asked",
    ("migrator.report.locations", "hashlib"): REPORT,
    ("migrator.run.config", "packaging.requirements"): OWN_RELEASE,
    ("migrator.run.config", "migrator.base.toml"): TOML,
    ("migrator.run.dispatch", "migrator.report.own"): RARE,
    ("migrator.run.engine", "migrator.run.repo_map"): CACHE,
    ("migrator.run.engine", "migrator.run.own_release"): OWN_RELEASE,
    ("migrator.run.engine", "migrator.run.summary_cache"): CACHE,
    ("migrator.run.engine", "migrator.run.uncommitted"): FIX,
    ("migrator.run.fork", "migrator.python.summary"): CANDIDATE,
    ("migrator.run.fork", "migrator.run.summary_cache"): CACHE,
    ("migrator.run.fork", "migrator.base.suppressions"): ("a run-level finding (DFM503) in a run that has one: "
                                                          "the suppression comments of the one file it lands on"),
    ("migrator.run.own_release", "packaging.specifiers"): OWN_RELEASE,
    ("migrator.run.pipeline", "migrator.run.dispatch"): PROCESSED,
    ("migrator.run.pipeline", "migrator.run.python_file"): PROCESSED,
    ("migrator.run.pipeline", "tokenize"): WORKERS,
    ("migrator.run.pool", "concurrent.futures"): WORKERS,
    ("migrator.run.pool", "multiprocessing"): WORKERS,
    ("migrator.run.python_file", "migrator.base.suppressions"): "a file with a suppression comment",
    ("migrator.run.python_file", "migrator.python.guard"): FIX,
    ("migrator.run.python_file", "migrator.text._core"): "embedded Python's text rules (notebooks, Markdown)",
    ("migrator.text", COMPUTED): "the module of a file type (migrator.text.filetypes) where a file of that type is read",
    ("migrator.text", "migrator.python.rules"): CANDIDATE,
    ("migrator.text.markdown", COMPUTED): "the file type of a fenced block's language (migrator.text.filetypes)",
    ("migrator.text._core", COMPUTED): "a text rule's check function, named \"module:function\" by its declaration",
    ("migrator.text._guard", "migrator.base.toml"): TOML,
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    """The modules a statement imports: ``from a import b`` is ``a.b`` where that is a module
    of the project, else ``a``."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        package = package[:len(package) - node.level + 1]
        base = ".".join([*package, *([base] if base else [])])
    inner = [f"{base}.{alias.name}" for alias in node.names if _is_module(f"{base}.{alias.name}")]
    return inner or [base]


def _called(call: ast.Call) -> str:
    return call.func.id if isinstance(call.func, ast.Name) else call.func.attr if isinstance(call.func, ast.Attribute) else ""


def lazy_imports() -> list[tuple[str, str, int]]:
    """(importing module, imported module, line) of every import statement inside a function,
    and of every computed import there (:data:`COMPUTED`)."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)

        def walk(node: ast.AST, in_function: bool) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.Import, ast.ImportFrom)) and in_function:
                    found.extend((module, target, child.lineno) for target in _imported(child, module, path.name == "__init__.py"))
                    continue
                if in_function and isinstance(child, ast.Call) and _called(child) in COMPUTING:
                    found.append((module, COMPUTED, child.lineno))
                else:
                    walk(child, in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

        walk(ast.parse(path.read_text(encoding="utf-8")), False)
    return found


def test_the_reader_sees_lazy_imports() -> None:
    """The reader finds an import at any depth of a function, resolves a relative one, and
    leaves the top of a module alone."""
    source = "import os\ndef f():\n    if os:\n        from . import model\n        import json\n"
    tree = ast.parse(source)
    nodes = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    assert _imported(nodes[1], "migrator.base.fileio", False) == ["migrator.base.model"]
    assert _imported(nodes[2], "migrator.base.fileio", False) == ["json"]
    calls = [n for n in ast.walk(ast.parse("def f(m):\n    return importlib.import_module(m), __import__(m), len(m)\n"))
             if isinstance(n, ast.Call)]
    assert [_called(call) in COMPUTING for call in calls] == [True, True, False]


def test_every_lazy_import_is_a_listed_seam() -> None:
    unlisted = sorted({f"{module}:{line} imports {target}" for module, target, line in lazy_imports()
                       if (module, target) not in SEAMS})
    assert unlisted == [], "move these imports to the top of their modules, or list the seam with its reason: " + \
        "; ".join(unlisted)


def test_no_listed_seam_is_stale() -> None:
    present = {(module, target) for module, target, _ in lazy_imports()}
    assert sorted(set(SEAMS) - present) == []


def test_lazy_imports_stay_within_the_budget() -> None:
    statements = Counter((module, line) for module, _, line in lazy_imports())
    assert len(statements) <= BUDGET, f"{len(statements)} lazy import statements, budget {BUDGET}"
