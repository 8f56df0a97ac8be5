"""Scope-aware name and type resolution on the stdlib ``ast`` (detection only).

Why ``ast`` and not libcst metadata for detection: on the 2-core machines this tool is
measured on, ``ast.parse`` is ~10x faster than ``libcst.parse_module`` and importing
libcst costs ~0.5 s. Detection runs on every candidate file, in lint and in fix mode;
libcst is only loaded to apply edits to files that change (``migrator.edit.splice``). See
BENCHMARKS.md for the measurements.

What is resolved (all statically; the scanned code is never imported or executed):

* imports in every form: ``import a.b.c``, ``import a.b.c as x``, ``from a.b import X as Y``
  and relative imports, resolved against the file's own module name, so a fork of SGLang
  itself is understood;
* attribute chains on imported names (``dflash_info.DFlashDraftInput``);
* per-scope bindings with Python's visibility rules (class bodies are not visible from
  methods; function bodies are analysed after their enclosing scope, like pyflakes);
* known instance types: annotated parameters and assignments (string annotations,
  ``Optional[X]``, ``X | None``), ``x = Cls(...)``, ``self``/``super()`` in classes whose
  bases resolve (also through classes defined in the same file), ``self.attr = Cls()``, and
  a name inside the body of ``if isinstance(name, Cls):`` (alone or in an ``and``);
* version guards: names bound inside ``try: ... except ImportError:`` blocks that import a
  V2 name are marked guarded, and nothing inside such a block is reported.

Cold code (the rules' shortcut, off for ``verify``): a statement or function body in which
no word some rule looks for occurs (``migrator.relevance.words``: member names only
where their class is named, builders only where the variable is a string literal) cannot
hold a finding. Such a statement is not walked; only the names it binds are recorded, with
the types and aliases a walk would give them. A local alias or subclass of a V1 name
found on the way (``import ... dflash_worker as dw``) becomes a hot word itself.
"""

from __future__ import annotations

import ast
import bisect
from contextlib import contextmanager
from functools import cache
from itertools import accumulate
from pathlib import Path

from migrator import catalog
from migrator.base.imports import resolve_relative
from migrator.base.lines import offsets, split_lines
from migrator.base.records import NamedTuple, record
from migrator.python.fallbacks import first_line
from migrator.python.names import MISSING_NAME_ERRORS, TRY_STATEMENTS, all_names, catches, class_ancestors

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Iterator

    from migrator.python.forkindex import ForkView

V2_MARKERS = ("_v2", "V2")
REFLECTION = frozenset(catalog.REFLECTION_CALLS)
#: The compound statements whose bodies a cold statement's bindings come from.
_COMPOUND = (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith, *TRY_STATEMENTS)


class Binding:
    """What a local name refers to. ``qualname`` None means "something we don't track".

    ``kind``: "import" (import a.b.c [as x]), "from" (from m import n), "from-as", "def",
    "alias", "other"; ``guarded``: bound inside a version guard; ``follows_rename``: the
    local name is the last segment of ``qualname`` and would follow a rename; ``types``:
    class qualnames the value is known to be; ``line``: where it is bound; ``via``: for
    kind "fork" (a fork name standing for a V1 object, ``migrator.python.forkindex``), the
    (path, line) of each fork module it came through; ``returns``: for a function, the
    types its return annotation names.
    """

    __slots__ = ("qualname", "kind", "guarded", "follows_rename", "types", "line", "via", "returns")

    def __init__(self, qualname: str | None, kind: str = "other", guarded: bool = False,
                 follows_rename: bool = False, types: frozenset[str] = frozenset(),
                 via: tuple[tuple[str, int], ...] = (), returns: frozenset[str] = frozenset()) -> None:
        self.qualname = qualname
        self.kind = kind
        self.guarded = guarded
        self.follows_rename = follows_rename
        self.types = types
        self.line = 0
        self.via = via
        self.returns = returns

    def __repr__(self) -> str:
        return f"Binding({self.qualname!r}, {self.kind!r}, guarded={self.guarded}, types={set(self.types)})"


class Scope:
    """``kind``: "module", "class" or "function"; ``class_qualname`` for class scopes and
    the function scopes of methods; ``self_name``: a method's first parameter."""

    __slots__ = ("kind", "names", "parent", "class_qualname", "self_name")

    def __init__(self, kind: str, parent: "Scope | None" = None, class_qualname: str | None = None) -> None:
        self.kind = kind
        self.names: dict[str, Binding] = {}
        self.parent = parent
        self.class_qualname = class_qualname
        self.self_name: str | None = None


class ClassInfo:
    """A class defined in the module: its ``bases`` (qualnames) and the types of the
    ``self.<attr>`` values its methods assign."""

    __slots__ = ("qualname", "node", "bases", "attr_types")

    def __init__(self, qualname: str, node: ast.ClassDef, bases: tuple[str, ...]) -> None:
        self.qualname = qualname
        self.node = node
        self.bases = bases
        self.attr_types: dict[str, frozenset[str]] = {}


@record
class ImportedName(NamedTuple):
    """One alias of an import statement: ``qualname`` it refers to, ``name_span`` of the
    name alone (line, col, end_line, end_col; chars, 0-based col), the ``local`` name."""

    statement: ast.Import | ast.ImportFrom
    qualname: str
    name_span: tuple[int, int, int, int]
    local: str
    has_asname: bool
    guarded: bool


@record
class ImportFromInfo(NamedTuple):
    """A ``from`` import: absolute ``module``, ``module_span`` of the dotted module text (or
    None), relative ``level``, its ``names`` (``ImportedName``)."""

    statement: ast.ImportFrom
    module: str
    module_span: tuple[int, int, int, int] | None
    level: int
    names: tuple[ImportedName, ...]
    guarded: bool


def module_name_for(path: Path) -> str | None:
    """Dotted module name of a file from the ``__init__.py`` chain above it.

    Falls back to the path below the last ``sglang`` folder for forks whose packages lack
    ``__init__.py`` files (namespace packages), so relative imports still resolve.
    """
    path = path.resolve() if not path.is_absolute() else path
    parts = [path.stem] if path.name not in ("__init__.py", "__init__.pyi") else []
    folder = path.parent
    while (folder / "__init__.py").exists() and folder != folder.parent:
        parts.append(folder.name)
        folder = folder.parent
    if len(parts) > (0 if path.name.startswith("__init__.") else 1):
        return ".".join(reversed(parts))
    segments = path.with_suffix("").parts
    if "sglang" in segments:
        index = len(segments) - 1 - segments[::-1].index("sglang")
        tail = list(segments[index:])
        if tail[-1] == "__init__":
            tail.pop()
        return ".".join(tail)
    return None


class Analysis(ast.NodeVisitor):
    """Walks one module once and records what the rules need."""

    def __init__(self, tree: ast.Module, source: str, module_name: str | None, is_package: bool,
                 skip_cold_functions: bool = True, fork: ForkView | None = None, hot: HotText | None = None) -> None:
        self.tree = tree
        self.source = source
        #: The fork index as this module sees it; None: the file is analysed on its own.
        self.fork = fork
        #: Names other fork modules import from this one, or that its ``__all__`` lists:
        #: a rename must keep them bound.
        self.exported: frozenset[str] = frozenset(all_names(tree) or ())
        #: Module-level names bound to imported things (the last such binding, even where a
        #: fallback rebinds the name later): what ``migrator.python.forkindex`` summarizes.
        self.module_imports: dict[str, Binding] = {}
        #: id of an attribute node whose type comes from a class of another fork module ->
        #: (path, line) of that class (``self.inner`` of a wrapper defined elsewhere).
        self.fork_origins: dict[int, tuple[str, int]] = {}
        #: qualname of a module-level function or method of a module-level class -> the
        #: types its return annotation names (``def make() -> "DFlashDraftInput"``).
        self.returns: dict[str, frozenset[str]] = {}
        #: Class and function qualnames whose definitions (in other modules) would type a
        #: value a rule could not decide on: the engine has the fork index read them.
        self.wanted: set[str] = set()
        #: id of an attribute node of unknown type -> the types of the value it is read on
        self.undecided: dict[int, frozenset[str]] = {}
        #: Words made hot while walking (aliases and subclasses of V1 names): where one of
        #: them stands on a line ``migrator.python.partial`` blanked, the file is parsed whole.
        self.added_words: list[str] = []
        if skip_cold_functions and fork is None and hot is not None:
            self.lines = hot.lines
            self.is_relevant = hot.is_relevant
            #: Words and lines some rule may look at; None: analyse everything (``verify``).
            self.hot_words: set[str] = set(hot.words)
            self.line_ends = hot.line_ends
            self.hot_lines: list[int] | None = hot.lines_hot
        else:
            self.lines = split_lines(source) or [""]
            self.hot_words = set()
            self.line_ends = []
            self.hot_lines = None
        self.module_name = module_name or "__main__"
        self.is_package = is_package
        self.module_scope = Scope("module")
        self.scope = self.module_scope
        self.classes: dict[str, ClassInfo] = {}
        self.parents: dict[ast.AST, ast.AST] = {}
        self.statement_of: dict[ast.AST, ast.stmt] = {}
        self.guarded_nodes: set[int] = set()
        self.imports: list[ImportedName] = []
        self.import_froms: list[ImportFromInfo] = []
        #: (node, qualname, binding) for every Name/Attribute resolving through an import.
        self.references: list[tuple[ast.expr, str, Binding]] = []
        #: (Attribute node, receiver types) for attribute access on values of known type.
        self.typed_attributes: list[tuple[ast.Attribute, frozenset[str]]] = []
        self.calls: list[ast.Call] = []
        self.callees: dict[int, tuple[str | None, frozenset[str]]] = {}
        #: getattr/hasattr/setattr/delattr (and ``mock.patch.object``) calls with the types of
        #: their first argument.
        self.reflection: list[tuple[ast.Call, frozenset[str]]] = []
        #: Every attribute access by attribute name (for distinctive member names).
        self.attributes_by_name: dict[str, list[ast.Attribute]] = {}
        self.strings: list[ast.Constant] = []
        self.annotation_strings: list[tuple[ast.Constant, Scope]] = []
        self.class_stack: list[ClassInfo] = []
        self.deferred: list[tuple[ast.AST, Scope, list[ClassInfo]]] = []
        self.imports_sglang = False
        self.current_statement: ast.stmt | None = None
        self.guard_depth = 0
        #: Names an ``except ImportError`` handler or the other branch of an ``if`` binds
        #: too (``except ImportError: DFlashWorker = object``): an import of such a name
        #: keeps its local name when renamed (``DFlashWorkerV2 as DFlashWorker``).
        self.alternative_names: set[str] = set()
        self.shared_locals: set[str] = set()

    # ---- entry point ------------------------------------------------------------
    def run(self) -> "Analysis":
        for statement in self.tree.body:
            self._visit_statement(statement)
        while self.deferred:
            node, scope, classes = self.deferred.pop(0)
            if not self._is_hot(node):
                continue  # no word any rule looks for occurs in this function: nothing to find inside
            saved = self.scope, self.class_stack
            self.scope, self.class_stack = scope, classes
            self._visit_function_body(node)  # type: ignore[arg-type]
            self.scope, self.class_stack = saved
        return self

    # ---- positions --------------------------------------------------------------
    def char_col(self, line: int, byte_col: int) -> int:
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        if text.isascii():
            return byte_col
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))

    def span(self, node: ast.AST) -> tuple[int, int, int, int]:
        return (
            node.lineno,  # type: ignore[attr-defined]
            self.char_col(node.lineno, node.col_offset),  # type: ignore[attr-defined]
            node.end_lineno,  # type: ignore[attr-defined]
            self.char_col(node.end_lineno, node.end_col_offset),  # type: ignore[attr-defined]
        )

    def segment(self, node: ast.AST) -> str:
        line, col, end_line, end_col = self.span(node)
        if line == end_line:
            return self.lines[line - 1][col:end_col]
        parts = [self.lines[line - 1][col:]]
        parts.extend(self.lines[line:end_line - 1])
        parts.append(self.lines[end_line - 1][:end_col])
        return "".join(parts)

    def anchor_line(self, node: ast.AST) -> int:
        """First line of the enclosing statement (its first decorator for a definition)."""
        statement = node if isinstance(node, ast.stmt) else self.statement_of.get(node)
        if statement is None:
            return getattr(node, "lineno", 1)
        return first_line(statement)

    def is_guarded(self, node: ast.AST) -> bool:
        statement = node if isinstance(node, ast.stmt) else self.statement_of.get(node)
        return statement is not None and id(statement) in self.guarded_nodes

    # ---- scopes -----------------------------------------------------------------
    def lookup(self, name: str) -> Binding | None:
        scope: Scope | None = self.scope
        first = True
        while scope is not None:
            if scope.kind != "class" or first:
                if name in scope.names:
                    return scope.names[name]
            first = False
            scope = scope.parent
        return None

    def bind(self, name: str, binding: Binding) -> None:
        if self.guard_depth:
            binding.guarded = True
        binding.line = getattr(self.current_statement, "lineno", 0)
        if name in self.shared_locals and binding.kind in ("other", "alias"):
            current = self.scope.names.get(name)
            if current is not None and current.kind in ("import", "from", "from-as"):
                return  # the fallback of an import: the name still means the import where it succeeds
        self.scope.names[name] = binding
        if self.scope is self.module_scope and binding.qualname is not None and binding.kind != "other":
            self.module_imports[name] = binding
        if (self.hot_lines is not None and name not in self.hot_words and binding.qualname is not None
                and binding.kind != "def" and self.is_relevant(binding.qualname, self.hot_words)):
            self._add_hot_word(name)  # an alias of a V1 name: its uses are hot too

    def need_word(self, word: str) -> None:
        """A rule needs the statements holding ``word`` (a base class its decision reads): in
        an analysis with hot lines they become hot, and where a lint's partial parse blanked
        one, the engine parses the whole file and runs the rules again (``added_words``)."""
        if self.hot_lines is not None and word not in self.hot_words:
            self._add_hot_word(word)

    def _add_hot_word(self, word: str) -> None:
        """Make the lines holding ``word`` hot (a local alias of something rules look for)."""
        assert self.hot_lines is not None
        self.hot_words.add(word)
        self.added_words.append(word)
        found = set(self.hot_lines)
        found.update(_lines_holding(self.source, word, self.line_ends))
        self.hot_lines = sorted(found)

    def is_exported(self, name: str) -> bool:
        """Do other fork modules import ``name`` from this one (or does ``__all__`` list it)?"""
        return name in self.exported or (self.fork is not None and self.fork.needed(name))

    # ---- resolution -------------------------------------------------------------
    def qualname(self, node: ast.AST) -> tuple[str, Binding] | None:
        """Qualified name of a Name/Attribute chain rooted in an imported name; a fork name
        that stands for a V1 object (``migrator.python.forkindex``) gives the V1 name and a
        binding of kind "fork"."""
        if isinstance(node, ast.Name):
            binding = self.lookup(node.id)
            if binding is None or binding.qualname is None:
                return None
            return self._through_fork(binding.qualname, binding)
        if isinstance(node, ast.Attribute):
            inner = self.qualname(node.value)
            if inner is None:
                return None
            if inner[1].kind == "fork":
                return f"{inner[0]}.{node.attr}", inner[1]
            return self._through_fork(f"{inner[0]}.{node.attr}", inner[1])
        return None

    def _through_fork(self, qualname: str, binding: Binding) -> tuple[str, Binding]:
        if self.fork is None or binding.kind in ("def", "other", "fork"):
            return qualname, binding
        resolved = self.fork.resolve(qualname)
        if resolved is None:
            return qualname, binding
        return resolved.qualname, Binding(resolved.qualname, "fork", guarded=binding.guarded, via=resolved.via)

    def types_of(self, node: ast.AST) -> frozenset[str]:
        """Class qualnames (with ancestors) the value of ``node`` is known to be."""
        if isinstance(node, ast.Name):
            binding = self.lookup(node.id)
            return binding.types if binding else frozenset()
        if isinstance(node, ast.Attribute) and isinstance(node.value, (ast.Name, ast.Attribute)):
            receiver = self.types_of(node.value)
            for class_name in receiver:
                info = self.classes.get(class_name)
                if info and node.attr in info.attr_types:
                    return info.attr_types[node.attr]
                if self.fork is not None and info is None:
                    types = self.fork.attr_types(class_name, node.attr)
                    if types:
                        defined = self.fork.defined_class(class_name)
                        if defined is not None:
                            self.fork_origins[id(node)] = (defined[1], defined[2])
                        return frozenset().union(*(self.ancestors(t) for t in types))
            if receiver:
                self.undecided[id(node)] = receiver  # classes whose definitions would type it
            return frozenset()
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == "super" and self.class_stack:
                return self.ancestors(self.class_stack[-1].qualname) - {self.class_stack[-1].qualname}
            return self.returned_types(node.func) or self.class_types(node.func)
        return frozenset()

    def returned_types(self, func: ast.AST) -> frozenset[str]:
        """Types the return annotation of the called function or method ``func`` names:
        defined in this file, or (with the fork index) in another module of the fork."""
        if isinstance(func, ast.Name):
            binding = self.lookup(func.id)
            if binding is not None and binding.kind == "def":
                return binding.returns
        elif isinstance(func, ast.Attribute):
            for owner in self.types_of(func.value):  # a method of a value of known type
                method = f"{owner}.{func.attr}"
                if method in self.returns:
                    return self.returns[method]
                if self.fork is not None and owner not in self.classes:
                    found = self.fork.returned_types(method)
                    if found:
                        return frozenset().union(*(self.ancestors(t) for t in found))
        if self.fork is not None:  # a function imported from another module of the fork
            resolved = self.qualname(func)
            if resolved is not None and resolved[1].kind not in ("def", "other"):
                found = self.fork.returned_types(resolved[0])
                return frozenset().union(*(self.ancestors(t) for t in found)) if found else frozenset()
        return frozenset()

    def want_types_of(self, node: ast.AST) -> None:
        """A rule would decide on the type of ``node`` but it is unknown here: note the
        classes (or function) of other modules that would type it (``h.inner``: the classes
        ``h`` was known to be where it was read; ``make()``: the imported ``make``)."""
        if self.fork is not None:
            return  # the index was asked already
        if isinstance(node, ast.Call):
            resolved = self.qualname(node.func)  # module level: the rules run after the walk
            if resolved is not None and resolved[1].kind not in ("def", "other"):
                self.wanted.add(resolved[0])
            return
        if isinstance(node, ast.Attribute):
            self.wanted.update(t for t in self.undecided.get(id(node), ()) if t not in self.classes)

    def class_types(self, node: ast.AST) -> frozenset[str]:
        """Types of an instance of the class expression ``node``."""
        resolved = self.qualname(node)
        if resolved is not None and not resolved[1].guarded:
            return self.ancestors(resolved[0])
        if isinstance(node, ast.Name):
            binding = self.lookup(node.id)
            if binding and binding.kind == "def" and binding.qualname:
                return self.ancestors(binding.qualname)
        return frozenset()

    def ancestors(self, qualname: str) -> frozenset[str]:
        """``qualname`` and its bases, transitively: this file's classes, then the fork's."""
        return class_ancestors(qualname, self._bases)

    def _bases(self, qualname: str) -> tuple[str, ...]:
        info = self.classes.get(qualname)
        if info:
            return info.bases
        return self.fork.bases(qualname) if self.fork is not None else ()

    def annotation_types(self, node: ast.AST | None) -> frozenset[str]:
        if node is None:
            return frozenset()
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                parsed = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return frozenset()
            return self.annotation_types(parsed)
        if isinstance(node, ast.Subscript):  # Optional[X], Union[X, Y], list[X] is not X
            base = self.qualname(node.value)
            base_name = base[0].rpartition(".")[2] if base else getattr(node.value, "id", "")
            if base_name in ("Optional", "Union"):
                inner = node.slice
                items = inner.elts if isinstance(inner, ast.Tuple) else [inner]
                return frozenset().union(*(self.annotation_types(i) for i in items))
            return frozenset()
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return self.annotation_types(node.left) | self.annotation_types(node.right)
        return self.class_types(node)

    # ---- traversal --------------------------------------------------------------
    def _visit_statements(self, body: list[ast.stmt], parent: ast.AST) -> None:
        for statement in body:
            self.parents[statement] = parent
            self._visit_statement(statement)

    def _visit_statement(self, statement: ast.stmt) -> None:
        saved = self.current_statement
        self.current_statement = statement
        if self.hot_lines is not None and not isinstance(statement, (ast.Import, ast.ImportFrom)) and not self._is_hot(statement):
            self._bind_cold(statement)
        else:
            for child in ast.iter_child_nodes(statement):
                self.parents[child] = statement
            self.visit(statement)
        self.current_statement = saved

    def generic_visit(self, node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            self.parents[child] = node
            if isinstance(child, ast.stmt):
                self._visit_statement(child)
            else:
                if self.current_statement is not None:
                    self.statement_of[child] = self.current_statement
                self.visit(child)

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.stmt) and self.guard_depth:
            self.guarded_nodes.add(id(node))
        super().visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            line, col = alias.lineno, self.char_col(alias.lineno, alias.col_offset)
            if alias.asname:
                local = alias.asname
                self.bind(local, Binding(alias.name, "import"))
            else:
                local = alias.name.partition(".")[0]
                self.bind(local, Binding(local, "import"))
            self._note_import_target(alias.name)
            span = (line, col, line, col + len(alias.name))
            self.imports.append(ImportedName(node, alias.name, span, local, bool(alias.asname), bool(self.guard_depth)))

    def _module_span(self, node: ast.ImportFrom) -> tuple[int, int, int, int] | None:
        if not node.module:
            return None
        line = node.lineno
        text = self.lines[line - 1]
        start = self.char_col(line, node.col_offset) + len("from")
        while start < len(text) and text[start] in " \t.":
            start += 1
        if text[start:start + len(node.module)] != node.module:
            return None  # unusual spacing or a continuation line: not rewritten by span
        return (line, start, line, start + len(node.module))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = resolve_relative(node.module, node.level, self.module_name, self.is_package)
        if module is None:  # beyond the top package: Python raises here, nothing is imported
            self._bind_unresolved(node)
            return
        self._note_import_target(module)
        names: list[ImportedName] = []
        for alias in node.names:
            if alias.name == "*":
                continue
            qualname = f"{module}.{alias.name}" if module else alias.name
            local = alias.asname or alias.name
            shared = local in self.alternative_names
            if shared:
                self.shared_locals.add(local)
            keeps_name = shared or (self.scope is self.module_scope and self.is_exported(local))
            self.bind(local, Binding(qualname, "from-as" if alias.asname else "from",
                                     follows_rename=not alias.asname and not keeps_name))
            line, col = alias.lineno, self.char_col(alias.lineno, alias.col_offset)
            names.append(ImportedName(node, qualname, (line, col, line, col + len(alias.name)), local, bool(alias.asname), bool(self.guard_depth)))
        self.import_froms.append(ImportFromInfo(node, module, self._module_span(node), node.level, tuple(names), bool(self.guard_depth)))

    def _bind_unresolved(self, node: ast.ImportFrom) -> None:
        """The names of an import Python refuses are bound (to nothing tracked), never to a
        module: a rule must not find or fix a V1 name on a line that cannot run."""
        for alias in node.names:
            if alias.name != "*":
                self.bind(alias.asname or alias.name, Binding(None, "other"))

    def _note_import_target(self, module: str) -> None:
        if module == "sglang" or module.startswith("sglang."):
            self.imports_sglang = True

    def visit_If(self, node: ast.If) -> None:
        self.alternative_names |= _bound_names(node.body) & _bound_names(node.orelse)
        narrowed = self._narrowed_by(node.test)
        if not narrowed:
            self.generic_visit(node)
            return
        self.parents[node.test] = node
        self._visit_expr(node.test)
        restore = []  # isinstance narrows the name inside the body, as a type checker would
        for name, types in narrowed:
            current = self.lookup(name)
            binding = Binding(None, "other", types=types | (current.types if current is not None else frozenset()))
            restore.append((name, self.scope.names.get(name), binding))
            self.scope.names[name] = binding
        self._visit_statements(node.body, node)
        for name, previous, binding in restore:
            if self.scope.names.get(name) is binding:  # not rebound in the body
                if previous is None:
                    del self.scope.names[name]
                else:
                    self.scope.names[name] = previous
        self._visit_statements(node.orelse, node)

    def _narrowed_by(self, test: ast.expr) -> list[tuple[str, frozenset[str]]]:
        """(name, class types) of each ``isinstance(name, C)`` that ``test`` (alone or in an
        ``and``) asserts, for classes of known type (``C`` or a tuple of classes)."""
        tests = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
        found = []
        for item in tests:
            if not (isinstance(item, ast.Call) and isinstance(item.func, ast.Name) and item.func.id == "isinstance"
                    and len(item.args) == 2 and isinstance(item.args[0], ast.Name)):
                continue
            classes = item.args[1].elts if isinstance(item.args[1], ast.Tuple) else [item.args[1]]
            types = frozenset().union(*(self.class_types(c) for c in classes))
            if types:
                found.append((item.args[0].id, types))
        return found

    def visit_Try(self, node: ast.Try) -> None:
        self.alternative_names |= _bound_names(node.body) & set().union(*(_bound_names(h.body) for h in node.handlers))
        if self._is_version_guard(node):
            self.guard_depth += 1
            self.guarded_nodes.add(id(node))
            self.generic_visit(node)
            self.guard_depth -= 1
        else:
            self.generic_visit(node)

    visit_TryStar = visit_Try

    def _is_version_guard(self, node: ast.Try) -> bool:
        if not any(catches(handler, MISSING_NAME_ERRORS) for handler in node.handlers):
            return False
        for child in ast.walk(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in child.names] + ([child.module] if isinstance(child, ast.ImportFrom) and child.module else [])
                if any(marker in name for name in names for marker in V2_MARKERS):
                    return True
        return False

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for decorator in node.decorator_list:
            self._visit_expr(decorator)
        for base in node.bases:
            self._visit_expr(base)
        for keyword in node.keywords:
            self._visit_expr(keyword.value)
        self._define_class(node, cold=False)

    def _define_class(self, node: ast.ClassDef, cold: bool) -> None:
        qualname = f"{self.module_name}.{node.name}"
        bases = []
        for base in node.bases:
            resolved = self.qualname(base)
            if resolved is not None and not resolved[1].guarded:
                bases.append(resolved[0])
            elif isinstance(base, ast.Name):
                binding = self.lookup(base.id)
                if binding and binding.kind == "def" and binding.qualname:
                    bases.append(binding.qualname)
        info = ClassInfo(qualname, node, tuple(bases))
        self.classes[qualname] = info
        self.bind(node.name, Binding(qualname, "def"))
        if (self.hot_lines is not None and node.name not in self.hot_words
                and any(self.is_relevant(a, self.hot_words) for a in self.ancestors(qualname) - {qualname})):
            self._add_hot_word(node.name)  # a subclass of a V1 class: its uses are hot too
        class_scope = Scope("class", parent=self.scope, class_qualname=qualname)
        saved = self.scope
        self.scope = class_scope
        self.class_stack = [*self.class_stack, info]
        if cold:
            self._bind_cold_body(node.body)
        else:
            self._visit_statements(node.body, node)
        self.class_stack = self.class_stack[:-1]
        self.scope = saved

    def _visit_expr(self, node: ast.AST) -> None:
        if self.current_statement is not None:
            self.statement_of[node] = self.current_statement
        self.visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for decorator in node.decorator_list:
            self._visit_expr(decorator)
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self._visit_expr(default)
        for argument in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs, node.args.vararg, node.args.kwarg]:
            if argument is not None and argument.annotation is not None:
                self._visit_annotation(argument.annotation)
        if node.returns is not None:
            self._visit_annotation(node.returns)
        self._bind_function(node)
        self._defer_body(node)

    def _bind_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        returns = self.annotation_types(node.returns) if node.returns is not None else frozenset()
        if returns and self.scope.kind == "module":
            self.returns[f"{self.module_name}.{node.name}"] = returns
        elif returns and self.scope.kind == "class" and self.class_stack:
            self.returns[f"{self.class_stack[-1].qualname}.{node.name}"] = returns
        self.bind(node.name, Binding(None, "def", returns=returns))

    def _defer_body(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        function_scope = Scope("function", parent=self.scope)
        if self.scope.kind == "class" and self.class_stack:
            function_scope.class_qualname = self.class_stack[-1].qualname
        self.deferred.append((node, function_scope, self.class_stack))

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def _visit_function_body(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
        is_method = self.scope.class_qualname is not None
        decorators = {getattr(d, "id", None) for d in node.decorator_list}
        for index, argument in enumerate(arguments + [a for a in (node.args.vararg, node.args.kwarg) if a]):
            types = self.annotation_types(argument.annotation)
            if index == 0 and is_method and "staticmethod" not in decorators and "classmethod" not in decorators:
                types = self.ancestors(self.scope.class_qualname or "")
                self.scope.self_name = argument.arg
            self.scope.names[argument.arg] = Binding(None, "other", types=types)
        self._visit_statements(node.body, node)

    def _is_hot(self, node: ast.AST) -> bool:
        """Does a line of ``node`` (decorators included) hold a relevant word?"""
        if self.hot_lines is None:
            return True
        index = bisect.bisect_left(self.hot_lines, first_line(node))  # type: ignore[arg-type]
        return index < len(self.hot_lines) and self.hot_lines[index] <= node.end_lineno  # type: ignore[attr-defined]

    # ---- cold statements: bindings only -------------------------------------------
    def _bind_cold(self, statement: ast.stmt) -> None:
        """A statement without any relevant word: nothing in it can be reported, so only
        the names it binds are recorded, with the types and aliases the full visit would
        give them (a later hot line may use them: ``w = self.worker`` then ``w.verify()``)."""
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._bind_function(statement)
            self._defer_body(statement)  # an alias bound later may still make it hot
        elif isinstance(statement, ast.ClassDef):
            self._define_class(statement, cold=True)
        elif isinstance(statement, ast.Assign):
            self._bind_assignment(statement)
        elif isinstance(statement, ast.AnnAssign):
            self._assign_target(statement.target, self.annotation_types(statement.annotation))
        elif isinstance(statement, (ast.For, ast.AsyncFor)):
            self._bind_loop_target(statement.target)
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            for item in statement.items:
                if item.optional_vars is not None:
                    self._bind_loop_target(item.optional_vars)
        elif isinstance(statement, TRY_STATEMENTS):
            for handler in statement.handlers:
                if handler.name:
                    self.bind(handler.name, Binding(None, "other"))
                self._bind_cold_body(handler.body)
        if isinstance(statement, _COMPOUND):
            for body in ("body", "orelse", "finalbody"):
                self._bind_cold_body(getattr(statement, body, ()))
        elif isinstance(statement, ast.Match):
            for case in statement.cases:  # type: ignore[attr-defined]
                self._bind_cold_body(case.body)

    def _bind_cold_body(self, body: list[ast.stmt]) -> None:
        for statement in body:
            if isinstance(statement, (ast.Import, ast.ImportFrom)):
                self._visit_statement(statement)
            else:
                self._bind_cold(statement)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for child in ast.iter_child_nodes(node):
            self.parents[child] = node
        for child in ast.iter_child_nodes(node.args):
            self.parents[child] = node.args
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self._visit_expr(default)
        arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs, node.args.vararg, node.args.kwarg]
        with self._inner_scope({a.arg for a in arguments if a is not None}):
            self._visit_expr(node.body)

    def _visit_comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        """The first iterable is evaluated outside; targets, conditions and the element in
        a scope of their own (so a loop variable shadows an import of the same name)."""
        generators = node.generators
        for child in ast.iter_child_nodes(node):
            self.parents[child] = node
        for generator in generators:
            for child in ast.iter_child_nodes(generator):
                self.parents[child] = generator
        self._visit_expr(generators[0].iter)
        targets = {n.id for g in generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
        with self._inner_scope(targets):
            for index, generator in enumerate(generators):
                if index:
                    self._visit_expr(generator.iter)
                for condition in generator.ifs:
                    self._visit_expr(condition)
            for part in ("elt", "key", "value"):
                if getattr(node, part, None) is not None:
                    self._visit_expr(getattr(node, part))

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _visit_comprehension

    def visit_MatchAs(self, node: ast.AST) -> None:
        self.generic_visit(node)
        if getattr(node, "name", None):  # a capture pattern binds the name
            self.bind(node.name, Binding(None, "other"))  # type: ignore[attr-defined]

    visit_MatchStar = visit_MatchAs  # ``*rest`` in a sequence pattern: no children, a name

    def visit_MatchMapping(self, node: ast.AST) -> None:
        self.generic_visit(node)
        if getattr(node, "rest", None):
            self.bind(node.rest, Binding(None, "other"))  # type: ignore[attr-defined]

    @contextmanager
    def _inner_scope(self, names: set[str]) -> Iterator[None]:
        """A function-like scope binding ``names`` (lambda parameters, comprehension targets)."""
        saved = self.scope
        self.scope = Scope("function", parent=saved, class_qualname=saved.class_qualname if saved.kind == "function" else None)
        self.scope.self_name = saved.self_name if saved.kind == "function" else None
        for name in names:
            self.scope.names[name] = Binding(None, "other")
        try:
            yield
        finally:
            self.scope = saved

    def _visit_annotation(self, node: ast.AST) -> None:
        self._visit_expr(node)
        for child in ast.walk(node):
            if isinstance(child, ast.Constant) and isinstance(child.value, str):
                self.annotation_strings.append((child, self.scope))

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._visit_annotation(node.annotation)
        if node.value is not None:
            self._visit_expr(node.value)
        self._visit_expr(node.target)
        types = self.annotation_types(node.annotation)
        self._assign_target(node.target, types)

    def visit_Assign(self, node: ast.Assign) -> None:
        self._visit_expr(node.value)
        for target in node.targets:
            self._visit_expr(target)
        self._bind_assignment(node)

    def _bind_assignment(self, node: ast.Assign) -> None:
        types = self.types_of(node.value)
        value_binding = None
        if isinstance(node.value, (ast.Name, ast.Attribute)):
            resolved = self.qualname(node.value)
            if resolved is not None:  # alias assignment: Worker = dflash_worker.DFlashWorker
                value_binding = Binding(resolved[0], "alias", guarded=resolved[1].guarded)
        for target in node.targets:
            if value_binding is not None and isinstance(target, ast.Name):
                self.bind(target.id, Binding(value_binding.qualname, "alias", guarded=value_binding.guarded))
            else:
                self._assign_target(target, types)

    def _assign_target(self, target: ast.AST, types: frozenset[str]) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, Binding(None, "other", types=types))
            if self.scope.kind == "class" and self.class_stack and types:  # a class-level or dataclass field
                self.class_stack[-1].attr_types[target.id] = types
        elif (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == self.scope.self_name
            and self.class_stack
            and types
        ):
            self.class_stack[-1].attr_types[target.attr] = types
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._assign_target(element, frozenset())

    def _bind_loop_target(self, target: ast.AST) -> None:
        self._assign_target(target, frozenset())

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self._visit_expr(node.iter)
        self._visit_expr(node.target)
        self._bind_loop_target(node.target)
        self._visit_statements([*node.body, *node.orelse], node)

    visit_AsyncFor = visit_For  # type: ignore[assignment]

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self._visit_expr(item.context_expr)
            if item.optional_vars is not None:
                self._visit_expr(item.optional_vars)
                self._bind_loop_target(item.optional_vars)
        self._visit_statements(node.body, node)

    visit_AsyncWith = visit_With  # type: ignore[assignment]

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self._record_reference(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.parents[node.value] = node
        if self.current_statement is not None:
            self.statement_of[node.value] = self.current_statement
        self.visit(node.value)
        self._record_reference(node)
        self.attributes_by_name.setdefault(node.attr, []).append(node)
        receiver_types = self.types_of(node.value)
        if receiver_types:
            self.typed_attributes.append((node, receiver_types))

    def _record_reference(self, node: ast.Name | ast.Attribute) -> None:
        resolved = self.qualname(node)
        if resolved is not None and resolved[1].kind not in ("def", "other"):
            self.references.append((node, resolved[0], resolved[1]))

    def visit_Call(self, node: ast.Call) -> None:
        self.calls.append(node)
        resolved = self.qualname(node.func)
        callee = resolved[0] if resolved is not None and not resolved[1].guarded else None
        self.callees[id(node)] = (callee, self.class_types(node.func))
        if node.args and ((isinstance(node.func, ast.Name) and node.func.id in REFLECTION) or _is_patch_object(node.func)):
            self.reflection.append((node, self.types_of(node.args[0])))
        self.generic_visit(node)

    def callee(self, call: ast.Call) -> str | None:
        """Qualified name of the called function/class, resolved where the call is."""
        return self.callees.get(id(call), (None, frozenset()))[0]

    def instance_types(self, call: ast.Call) -> frozenset[str]:
        """Types of the instance a call constructs, if the callee is a known class."""
        return self.callees.get(id(call), (None, frozenset()))[1]

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str):
            self.strings.append(node)


def _is_patch_object(func: ast.expr) -> bool:
    """``patch.object`` / ``mock.patch.object`` / ``unittest.mock.patch.object``: a member by name."""
    return (isinstance(func, ast.Attribute) and func.attr == "object"
            and ((isinstance(func.value, ast.Attribute) and func.value.attr == "patch")
                 or (isinstance(func.value, ast.Name) and func.value.id == "patch")))


def _bound_names(body: list[ast.stmt]) -> set[str]:
    """Names the statements of ``body`` bind by assignment, import or definition (not nested)."""
    names: set[str] = set()
    for statement in body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).partition(".")[0] for a in statement.names)
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(statement.name)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


class HotText:
    """A source's lines, the words some rule may look for in it, the lines holding them, and
    ``is_relevant(qualname, words)``: does a name bound to ``qualname`` make its lines hot too
    (``migrator.relevance.words`` makes it from the rules' declarations)."""

    def __init__(self, source: str, words: list[str], is_relevant: Callable[[str, set[str]], bool]) -> None:
        self.lines = split_lines(source) or [""]
        self.words = words
        self.is_relevant = is_relevant
        #: Offset just past each line's end, for the line of a text position.
        self.line_ends = list(accumulate(map(len, self.lines)))
        self.lines_hot = _hot_lines(source, set(self.words), self.line_ends)

    def lines_holding(self, source: str, word: str) -> set[int]:
        return _lines_holding(source, word, self.line_ends)


def _hot_lines(source: str, words: set[str], line_ends: list[int]) -> list[int]:
    """Sorted line numbers holding one of ``words`` (``migrator.relevance.words``).

    A word holding a shorter one (``dflash_worker`` holds ``dflash``) can only stand where
    the shorter one does: it is compared there, not searched for in the whole source (most
    words occur nowhere in a file, and each search of an absent word reads all of it)."""
    found: set[int] = set()
    starts: dict[str, list[int]] = {}
    for word, inner, offset in _search_plan(frozenset(words)):
        if inner is None:
            where = offsets(source, word)
        else:
            where = [at - offset for at in starts[inner] if at >= offset and source.startswith(word, at - offset)]
        starts[word] = where
        found.update(bisect.bisect_right(line_ends, at) + 1 for at in where)
    return sorted(found)


@cache
def _search_plan(words: frozenset[str]) -> tuple[tuple[str, str | None, int], ...]:
    """``words`` shortest first, each with the longest shorter one it holds and where (None:
    searched for)."""
    plan: list[tuple[str, str | None, int]] = []
    for word in sorted(words, key=lambda w: (len(w), w)):
        inner = max((w for w, _, _ in plan if w in word), key=len, default=None)
        plan.append((word, inner, word.find(inner) if inner is not None else 0))
    return tuple(plan)


def _lines_holding(source: str, word: str, line_ends: list[int]) -> set[int]:
    return {bisect.bisect_right(line_ends, at) + 1 for at in offsets(source, word)}


def analyze(tree: ast.Module, source: str, path: Path | None, module_name: str | None = None,
            skip_cold_functions: bool = True, fork: ForkView | None = None, hot: HotText | None = None) -> Analysis:
    """Analyse a module. ``skip_cold_functions`` with ``hot`` (the source's :class:`HotText`,
    ``migrator.relevance.words.hot_text``): the rules' shortcut, cold statements are not
    walked (see ``_hot_lines``); without ``hot``, or for callers that look at every
    reference, like ``verify`` (False), every statement is walked."""
    if module_name is None and path is not None:
        module_name = module_name_for(path)
    is_package = path is not None and path.name in ("__init__.py", "__init__.pyi")
    return Analysis(tree, source, module_name, is_package, skip_cold_functions, fork, hot).run()


def rename_qualname(qualname: str, target: str) -> str:
    """Apply catalog module/class/function renames to the longest matching prefix."""
    entries = catalog.by_name()
    parts = qualname.split(".")
    for cut in range(len(parts), 0, -1):
        prefix = ".".join(parts[:cut])
        entry = entries.get(prefix)
        if entry is None or entry.kind not in ("module", "class", "function") or not entry.fires_for(target):
            continue
        new = entry.replacement_for(target)
        if new is None:
            return qualname
        rest = parts[cut:]
        return ".".join([new, *rest]) if rest else new
    return qualname
