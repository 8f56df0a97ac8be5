"""One home per concept (issue 29): a concept merged into one module fails this test if a
second copy comes back, under its old name or another.

Each check reads the code with ``ast`` (nothing is imported), so a copy is found in any
module of ``migrator/`` or ``shims/``, at any depth.
"""

from __future__ import annotations

import ast
import os
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _modules() -> dict[str, ast.Module]:
    return {str(path.relative_to(ROOT)): ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for folder in ("migrator", "shims") for path in sorted((ROOT / folder).rglob("*.py"))}


def _string_sets(tree: ast.Module) -> list[tuple[int, set[str]]]:
    """(line, strings) of every set, tuple or list literal of string constants."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Set, ast.Tuple, ast.List)) and node.elts and all(
                isinstance(element, ast.Constant) and isinstance(element.value, str) for element in node.elts):
            found.append((node.lineno, {element.value for element in node.elts}))  # type: ignore[attr-defined]
    return found


def test_the_import_error_names_are_spelled_once() -> None:
    """``IMPORT_ERRORS`` (what catches a failed import) lives in ``migrator.python.names`` only:
    at 9c817bf ``forkindex`` had its own copy, which disagreed about ``AttributeError``."""
    copies = [f"{path}:{line}" for path, tree in _modules().items() for line, strings in _string_sets(tree)
              if {"ImportError", "ModuleNotFoundError"} <= strings]
    assert len(copies) == 1 and copies[0].startswith("migrator/python/names.py:"), copies


def test_a_failed_import_is_not_caught_by_attribute_error() -> None:
    """The decision kept in that one home: ``AttributeError`` does not catch a failed import
    statement (``from m import Name`` raises ImportError), so a fallback in an ``except
    AttributeError`` branch is not what the module binds where a V1 import fails; a reference
    ``module.Name`` to a removed name raises it, so a version guard counts it."""
    from migrator.python import names
    from migrator.python.forkindex import v1_try_fallbacks

    def fallbacks(caught: str) -> list[str]:
        source = f"try:\n    from sglang.srt.speculative.dflash_worker import DFlashWorker\nexcept {caught}:\n    DFlashWorker = None\n"
        statement = ast.parse(source).body[0]
        assert isinstance(statement, ast.Try)
        return [name for name, _ in v1_try_fallbacks(statement)]

    assert fallbacks("ImportError") == fallbacks("(ModuleNotFoundError, AttributeError)") == ["DFlashWorker"]
    assert fallbacks("AttributeError") == []
    assert names.MISSING_NAME_ERRORS == names.IMPORT_ERRORS | {"AttributeError"}
    try:
        from json import no_such_name  # type: ignore[attr-defined]  # noqa: F401
    except ImportError:
        pass


def _uses_level(node: ast.AST) -> bool:
    return any((isinstance(n, ast.Name) and n.id == "level") or (isinstance(n, ast.Attribute) and n.attr == "level")
               for n in ast.walk(node))


def _resolves_a_level(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Arithmetic on an import's ``level`` (``level - 1``, ``len(parts) - level``,
    ``parts[:-level]``, ``range(level)``): what resolving relative dots takes. Spelling the
    dots back (``"." * level``) is not resolving."""
    for node in ast.walk(function):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and _uses_level(node):
            return True
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and _uses_level(node.operand):
            return True
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range"
                and any(_uses_level(argument) for argument in node.args)):
            return True
    return False


def test_relative_imports_are_resolved_in_one_function() -> None:
    """``migrator.base.imports.resolve_relative`` is the one resolver of ``from <dots>x import y``:
    at c1cdd20 there were four (``Analysis._resolve_relative``, ``forkindex._absolute``,
    ``guard._absolute``, ``verify.sglang_index.resolve_relative``), with three answers for
    too many dots. A second function doing arithmetic on ``level`` fails this test."""
    resolvers = [f"{path}:{node.name}" for path, tree in _modules().items() for node in ast.walk(tree)
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _resolves_a_level(node)]
    assert resolvers == ["migrator/base/imports.py:resolve_relative"], resolvers


def _record_classes(tree: ast.Module) -> list[tuple[ast.ClassDef, bool]]:
    """(class, decorated with ``@record``) for every tuple-based class: a ``NamedTuple`` or
    a ``collections.namedtuple(...)`` base."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            bases = [ast.unparse(base) for base in node.bases]
            if any(base.endswith("NamedTuple") or base.startswith(("namedtuple(", "collections.namedtuple("))
                   for base in bases):
                found.append((node, any(ast.unparse(d) == "record" for d in node.decorator_list)))
    return found


def test_one_record_style() -> None:
    """Records are named tuples with ``@record`` (``migrator.base.records``); a record that must
    change as a run goes is a ``__slots__`` class. No ``dataclasses`` (its import and
    generated code cost start-up time on every worker that needs one) and no named tuple
    without ``@record`` (it would equal any tuple, or a record of another type, holding
    the same values). ``shims/`` is left as it is: it wraps sglang's own dataclasses."""
    dataclass_users, bare = [], []
    for path, tree in _modules().items():
        if not path.startswith("migrator/"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                if "dataclasses" in names:
                    dataclass_users.append(f"{path}:{node.lineno}")
        bare += [f"{path}:{cls.lineno} {cls.name}" for cls, decorated in _record_classes(tree) if not decorated]
    assert dataclass_users == [], dataclass_users
    assert bare == [], bare


def test_records_take_named_tuple_from_the_records_module() -> None:
    """``typing.NamedTuple`` compiles every field's string annotation (a ``compile()`` per
    field, ~5% of a one-file lint's instructions); ``migrator.base.records.NamedTuple`` builds
    the same class without it. A module that takes it from ``typing`` again fails here."""
    from_typing = [f"{path}:{node.lineno}" for path, tree in _modules().items() if path.startswith("migrator/")
                   for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module == "typing"
                   and any(alias.name == "NamedTuple" for alias in node.names) and not _under_type_checking(tree, node)]
    assert from_typing == [], from_typing


def _under_type_checking(tree: ast.Module, node: ast.AST) -> bool:
    return any(isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING" and node in ast.walk(block)
               for block in tree.body)


def test_a_record_is_the_class_typing_would_build() -> None:
    """The records module's ``NamedTuple`` against ``typing``'s on one class body: the same
    fields, defaults, methods, docstring, pickling and errors; the annotations stay strings."""
    import pickle
    import typing

    from migrator.base import records

    ours = records.record(types.new_class("Span", (records.NamedTuple,), exec_body=lambda ns: ns.update(
        {"__module__": __name__, "__doc__": "A span.", "__annotations__": {"start": "int", "end": "int"}, "end": 0,
         "width": lambda self: self.end - self.start})))
    theirs = types.new_class("Span", (typing.NamedTuple,), exec_body=lambda ns: ns.update(
        {"__module__": __name__, "__doc__": "A span.", "__annotations__": {"start": "int", "end": "int"}, "end": 0,
         "width": lambda self: self.end - self.start}))
    for made in (ours, theirs):
        assert made._fields == ("start", "end") and made._field_defaults == {"end": 0}
        assert made(2, 5).width() == 3 and tuple(made(2)) == (2, 0) and made.__doc__ == "A span."
        assert made.__mro__[1:] == (tuple, object) and made.__module__ == __name__
    assert ours.__annotations__ == {"start": "int", "end": "int"}
    assert ours(1, 2) != theirs(1, 2) and ours(1, 2) == ours(1, 2)
    globals()["Span"] = ours  # pickled by module and name, as the workers pickle results
    try:
        assert pickle.loads(pickle.dumps(ours(1, 2))) == ours(1, 2)
    finally:
        del globals()["Span"]
    with pytest.raises(TypeError):  # a field without a default after one with a default
        types.new_class("Bad", (records.NamedTuple,), exec_body=lambda ns: ns.update(
            {"__module__": __name__, "__annotations__": {"a": "int", "b": "int"}, "a": 1}))
    with pytest.raises(AttributeError):
        types.new_class("Bad", (records.NamedTuple,), exec_body=lambda ns: ns.update(
            {"__module__": __name__, "__annotations__": {"a": "int"}, "_replace": None}))


def test_records_equal_only_records_of_their_own_type() -> None:
    """What ``@record`` gives each of the converted stragglers: two records of different
    types holding the same values differ, and a record differs from a plain tuple."""
    from migrator.base.options import Options
    from migrator.cli.commands.params import Command, Param
    from migrator.run.config import Config

    param = Param("jobs", ("--jobs",), "int", "N", "Worker processes.")
    assert param != tuple(param) and param == param._replace()
    assert Command("x", None, (), "h") != ("x", None, (), "h", False, ())
    assert Options() == Options() and Options() != tuple(Options())
    assert Config() != tuple(Config())


def test_one_spelling_in_identifiers() -> None:
    """Names are spelled one way, American (``analyze``, ``summarize``: the public
    ``analyze``, ``Analysis`` and ``summarize`` already were); prose may keep either. At
    9c817bf ``analyse_path``, ``_analyse``, ``MAX_ANALYSE_BYTES``, ``PythonAnalyser`` and
    ``RunResult.summarise`` stood beside ``analyze_python`` and ``summarize``."""
    import re

    british = re.compile(r"(?i)analys(?:e|er|ed|ing)(?![a-z])|summaris|normalis|initialis")
    names = []
    for path, tree in _modules().items():
        for node in ast.walk(tree):
            name = getattr(node, "name", None) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) \
                else node.id if isinstance(node, ast.Name) else node.arg if isinstance(node, ast.arg) \
                else node.attr if isinstance(node, ast.Attribute) else None
            if name and british.search(name):
                names.append(f"{path}:{node.lineno} {name}")
    assert names == [], names


def test_the_run_summary_is_counted_in_one_function() -> None:
    """Three builders counted a run's results (the run, lint's stdin path and ``verify``),
    each with its own fields; ``migrator.run.result.summarize`` is the one now. Elsewhere a
    ``RunSummary`` may hold only what the walk knows (files scanned, left out, own outputs)."""
    counted_from_results = {"files_changed", "fixes_applied", "todos_left", "files_with_errors", "findings",
                            "suppressed", "fixes_refused"}
    builders = [f"{path}:{node.lineno}" for path, tree in _modules().items() for node in ast.walk(tree)
                if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "RunSummary"
                and ({k.arg for k in node.keywords} & counted_from_results or node.args)]
    assert len(builders) == 1 and builders[0].startswith("migrator/run/result.py:"), builders


def _calls(tree: ast.Module) -> list[ast.Call]:
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)]


def test_all_is_read_in_one_function() -> None:
    """``__all__`` was read twice, with two answers for ``__all__ = ["A"]; __all__ = ["B"]``;
    ``migrator.python.names.all_assignments`` reads it, each caller combines."""
    readers = [f"{path}:{node.name}" for path, tree in _modules().items() if path.startswith("migrator/")
               for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
               and any(isinstance(n, ast.Compare) and any(isinstance(c, ast.Constant) and c.value == "__all__"
                                                          for c in (n.left, *n.comparators)) for n in ast.walk(node))]
    assert readers == ["migrator/python/names.py:all_assignments"], readers
    from migrator.python.guard import ever_exported
    from migrator.python.names import all_names

    tree = ast.parse('__all__ = ["A"]\n__all__ = ["B"]\n__all__ += ("C",)\n')
    assert all_names(tree) == ("B", "C") and ever_exported(tree) == {"A", "B", "C"}


def test_a_repository_top_is_recognised_by_one_rule() -> None:
    """Four ways found the repository top (``exists`` or ``lexists`` of ``.git``); a dangling
    ``.git`` link gave two answers. ``migrator.base.repository.holds_git`` is the one test."""
    testers = [f"{path}:{call.lineno}" for path, tree in _modules().items() if path.startswith("migrator/")
               for call in _calls(tree) if getattr(call.func, "attr", getattr(call.func, "id", "")) in ("exists", "lexists")
               and (any(isinstance(n, ast.Constant) and n.value == ".git" for a in call.args for n in ast.walk(a))
                    or any(isinstance(n, ast.Constant) and n.value == ".git" for n in ast.walk(call.func)))]
    assert len(testers) == 1 and testers[0].startswith("migrator/base/repository.py:"), testers


def test_the_installed_release_is_read_in_one_function() -> None:
    """``verify`` asked ``importlib.metadata`` where the command line asks
    ``catalog.installed_version``; one function now (the runtime shims keep their own: they
    run inside the serving process, where ``importlib.metadata`` is already loaded)."""
    askers = [f"{path}:{call.lineno}" for path, tree in _modules().items() if path.startswith("migrator/")
              for call in _calls(tree) if getattr(call.func, "attr", "") == "version"
              and any(isinstance(a, ast.Constant) and a.value == "sglang" for a in call.args)]
    assert askers == [], askers


def test_the_way_up_to_a_repository_top_is_walked_in_one_function() -> None:
    """The configuration search, the ``.gitignore`` chain and the uncommitted-work check each
    walked up to the repository top in a loop of their own (the last one recursively: a
    folder 1,000 deep exhausted the stack); ``migrator.base.repository.up_to_top`` is the
    one walk, and ``holds_git`` is asked nowhere else."""
    askers = [f"{path}:{call.lineno}" for path, tree in _modules().items() if path != "migrator/base/repository.py"
              for call in _calls(tree) if getattr(call.func, "id", getattr(call.func, "attr", "")) == "holds_git"]
    assert askers == [], askers


def test_a_repository_top_is_found_from_a_folder_deeper_than_the_stack(tmp_path: Path) -> None:
    from migrator.base.repository import top_of, up_to_top
    from migrator.run.uncommitted import Uncommitted

    import subprocess

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    deep = os.path.join(str(tmp_path), *["d"] * 1200)
    assert top_of(deep) == str(tmp_path)
    assert up_to_top(deep)[0] == deep and up_to_top(deep)[-1] == str(tmp_path) and len(up_to_top(deep)) == 1201
    assert Uncommitted().reason(os.path.join(deep, "x.py"), b"") is not None  # not committed: refused, no RecursionError


def test_the_line_a_todo_goes_above_is_found_in_one_function() -> None:
    """The write guard, the release fit and the analysis each found "the first line of the
    statement, its first decorator for a definition" themselves (the guard by a class that
    walked every statement of the file again); ``migrator.python.fallbacks.first_line`` is
    the one reading of a statement's decorators for that line."""
    readers = [f"{path}:{function.lineno}" for path, tree in _modules().items() for function in ast.walk(tree)
               if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
               and any(isinstance(n, ast.Attribute) and n.attr == "decorator_list"
                       or isinstance(n, ast.Constant) and n.value == "decorator_list" for n in ast.walk(function))
               and any(isinstance(call, ast.Call) and getattr(call.func, "id", "") == "min"
                       and any(isinstance(n, ast.Attribute) and n.attr == "lineno" for a in call.args for n in ast.walk(a))
                       for call in ast.walk(function))]
    assert len(readers) == 1 and readers[0].startswith("migrator/python/fallbacks.py:"), readers


def test_the_default_target_is_set_in_one_function() -> None:
    """Three places gave a run without a target one (``engine.run`` and ``process_bytes``: the
    newest release; the text rules' context: the installed sglang, a third answer it never
    reached). ``migrator.run.target.with_target`` is the one: no other function in ``run/``
    tests for a missing target or reads ``NEWEST_RELEASE`` (the command line names a target
    where it builds the options, ``choose_target``)."""
    setters = sorted({f"{path}:{function.name}" for path, tree in _modules().items() if path.startswith("migrator/run/")
                      for function in ast.walk(tree) if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
                      for node in ast.walk(function)
                      if (isinstance(node, ast.Attribute) and node.attr == "NEWEST_RELEASE")
                      or (isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or)
                          and isinstance(node.values[0], ast.Attribute) and node.values[0].attr == "target_version")})
    assert setters == ["migrator/run/target.py:with_target"], setters


def test_a_run_without_a_target_is_a_run_for_the_newest_release(tmp_path: Path) -> None:
    """The library entries give ``Options()`` the newest release: the same findings as naming it,
    in Python and in a text file with embedded Python (the text rules' context included)."""
    from migrator.base.options import Options
    from migrator.catalog import NEWEST_RELEASE
    from migrator.run import engine
    from migrator.run.pipeline import process_bytes

    (tmp_path / "m.py").write_text("from sglang.srt.speculative.dflash_worker import DFlashWorker\n")
    (tmp_path / "n.md").write_text("```python\nfrom sglang.srt.speculative.dflash_worker import DFlashWorker\n```\n")

    def found(options: Options) -> list[tuple[str, int, str]]:
        outcome = engine.run([tmp_path], options)
        by_bytes = [f for name in ("m.py", "n.md") for f in process_bytes(str(tmp_path / name), (tmp_path / name).read_bytes(),
                                                                           options).findings]
        return sorted((Path(f.path).name, f.line, f.code) for f in [*by_bytes, *(f for r in outcome.results for f in r.findings)])

    named = found(Options(mode="lint", jobs=1, target_version=NEWEST_RELEASE))
    assert found(Options(mode="lint", jobs=1)) == named and {name for name, _, _ in named} == {"m.py", "n.md"}


def test_a_signatures_parameter_names_are_listed_in_one_function() -> None:
    """``(*posonlyargs, *args, *kwonlyargs)`` read as names was written in ``summary``,
    ``rules/filter_batch``, ``probes`` and ``rules/overlap_guards``;
    ``migrator.python.names.parameter_names`` lists them."""
    def spelled(node: ast.AST) -> bool:
        return (isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp))
                and isinstance(node.elt, ast.Attribute) and node.elt.attr == "arg"
                and any(isinstance(s, ast.Starred) and getattr(s.value, "attr", None) == "posonlyargs"
                        for g in node.generators for s in getattr(g.iter, "elts", ())))

    spellings = [f"{path}:{function.name}" for path, tree in _modules().items()
                 for function in ast.walk(tree) if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
                 for statement in function.body for node in ast.walk(statement) if spelled(node)]
    assert spellings == ["migrator/python/names.py:parameter_names"], spellings


def test_function_definitions_come_in_ast_walks_order() -> None:
    """``rules/filter_batch`` named a fork's own definitions in ``ast.walk``'s order in its TODO;
    it now asks ``names.function_definitions``, which must keep that order (nested ones after
    every definition one level up) so the TODO text stays the same."""
    from migrator.python.names import function_definitions

    tree = ast.parse(
        "def a(x):\n    def b(x):\n        def c(x): pass\n\n"
        "class K:\n    def d(self, x):\n        if x:\n            def e(x): pass\n"
        "    async def f(self, x): pass\n\n"
        "try:\n    def g(x): pass\nexcept ImportError:\n    def h(x): pass\nelse:\n    def i(x): pass\n"
        "finally:\n    def j(x): pass\n"
        "for _ in x:\n    def k(x): pass\nelse:\n    def l(x): pass\n"
        "with x:\n    def m(x): pass\n"
        "match x:\n    case 1:\n        def n(x): pass\n")
    walked = [node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    assert [node.name for node in function_definitions(tree)] == walked
    assert walked.index("c") > walked.index("m")  # breadth first: not the order of the lines
