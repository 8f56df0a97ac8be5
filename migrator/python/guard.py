"""The write guard: a fix is written only if its output is at least as correct as its input.

Before the engine keeps a file's fixed text (in every fixing mode: ``fix``, ``--diff``
and ``--check`` give the same outcome), ``problems`` compares the text before and after:

* the fixed text must parse;
* it must not use a name that no scope binds where the original did not (free names,
  from the stdlib ``symtable``'s scope analysis: lambdas, comprehensions, class bodies
  and ``global`` declarations behave as Python resolves them);
* it must not use more names that are bound only on some paths at module level (one
  branch of an ``if``/``else`` or of a ``try``/``except``) than the original did;
* a star import must not change (the names it provides cannot be checked);
* a name other modules of the fork import from this one (``migrator.python.forkindex``) or that
  ``__all__`` lists must stay bound on every path it was bound on;
* a name the fix uses more often must not be one the original binds itself other than
  by an import (a fork's own ``class DFlashWorkerV2(DFlashWorker)`` would capture every
  renamed ``DFlashWorker()`` call), a method's receiver excepted (DFM307 passes
  ``self.enable_overlap`` on purpose);
* names in ``__all__``, ``del`` and ``global`` must stay bound at module level;
* it must not add a pyflakes message of a kind the checks above do not cover (an unused
  local, a redefinition, an unused import that was used, an import shadowed by a loop
  variable, ...: :func:`added_flakes`), nor an ``import X as X`` the original did not have;
* every ``sglang.*`` import it adds or changes (and ``getattr(module, "Name")`` on an
  imported sglang module) must exist in the target release: from a
  verify index of a wheel already in the cache (``migrator.releases.wheels``), else from the
  catalog (a name some entry says exists there). The guard never downloads anything.

When the fixed text fails, ``refuse`` turns the fixes to blame into TODO comments that
say why (``settle`` drives the retries). Never raises for bad input.
"""

from __future__ import annotations

import ast
import builtins
import re
import symtable
from collections import Counter
from difflib import SequenceMatcher
from functools import cache

from pyflakes.checker import Checker

from migrator import catalog
from migrator.base.fileio import SourceError, decode_python
from migrator.base.imports import resolve_relative
from migrator.base.model import Finding, Fix, InsertComment
from migrator.catalog.target import label
from migrator.edit import applied as is_applied
from migrator.edit import apply, chosen_edits
from migrator.edit.comments import DEFAULT_LINE_LENGTH, normalized
from migrator.python.fallbacks import anchor_lines, branch_at, branches, catalog_names
from migrator.python.names import TRY_STATEMENTS, all_assignments
from migrator.python.surface import on_surface

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterator

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

MODULE_NAMES = frozenset({"__name__", "__file__", "__doc__", "__spec__", "__loader__", "__package__",
                          "__builtins__", "__path__", "__annotations__", "__dict__", "__cached__",
                          "__debug__", "__class__", "__qualname__", "__module__"})
BUILTIN_NAMES = frozenset(dir(builtins)) | MODULE_NAMES


class Problem:
    """Why a fixed text is refused: ``reason`` for users, ``names`` (local names or dotted
    imports) and ``lines`` (lines of the fixed text) to find the fixes to blame."""

    __slots__ = ("reason", "names", "lines")

    def __init__(self, reason: str, names: frozenset[str] = frozenset(), lines: frozenset[int] = frozenset()) -> None:
        self.reason = reason
        self.names = names
        self.lines = lines

    def __repr__(self) -> str:
        return f"Problem({self.reason!r})"


def problems(before: str, after: str, target: str | tuple[str, ...], module_name: str | None = None,
             is_package: bool = False, exported: frozenset[str] = frozenset(),
             before_tree: ast.Module | None = None) -> list[Problem]:
    """What is wrong with ``after`` that was not wrong with ``before`` (empty: write it).
    ``target``: the release, or the releases oldest first (``migrator.catalog.target``).
    ``exported``: names other modules of the fork import from this one (``migrator.python.forkindex``)
    or its ``__all__`` lists; each must stay bound on every path it was bound on.
    ``before_tree``: ``before``'s tree where the caller parsed it (read, never changed)."""
    try:
        new = parsed(after)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        return [Problem(f"the fixed code would not parse ({error})")]
    try:
        old = parsed(before, before_tree)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []  # nothing to compare with: the engine reports the original's syntax error
    old_tree, old_table, new_tree, new_table = old.tree, old.table, new.tree, new.table
    found: list[Problem] = []
    new_free = free_names(new_table) - free_names(old_table)
    if new_free:
        found.append(Problem("it would leave undefined " + _names(new_free), frozenset(new_free)))
    old_partly, new_partly = partly_bound_used(old_tree, old_table), partly_bound_used(new_tree, new_table)
    if len(new_partly - old_partly) > len(old_partly - new_partly):
        added = new_partly - old_partly
        found.append(Problem("it would use " + _names(added) + " bound on only some paths", frozenset(added)))
    old_stars, new_stars = star_imports(old, module_name, is_package), star_imports(new, module_name, is_package)
    if old_stars != new_stars:
        lines = frozenset(line for module, line in new_stars.items() if old_stars.get(module) is None)
        found.append(Problem("it changes a star import, whose names cannot be checked", lines=lines))
    if exported:
        kept = definitely_bound(new_tree.body)
        lost = frozenset((exported & definitely_bound(old_tree.body)) - kept)
        if lost:
            found.append(Problem("other modules of the fork import " + _names(lost) + " from this one, which it "
                                 "would no longer bind on every path", lost))
    captured = captured_names(old, new)
    if captured:
        found.append(Problem("a renamed reference would mean the " + _names(captured) + " this file defines itself",
                             frozenset(captured)))
    old_bound, new_bound = old.module_bindings | old.global_bindings, new.module_bindings | new.global_bindings
    old_own, new_own = old.module_bindings, new.module_bindings
    for verb, old_names, new_names, old_set, new_set in (
            ("exports", ever_exported(old_tree), ever_exported(new_tree), old_bound, new_bound),
            ("deletes or declares global", deleted_or_global(old), deleted_or_global(new), old_own, new_own)):
        lost = (new_names - new_set) - (old_names - old_set)
        if lost:
            found.append(Problem(f"it {verb} " + _names(lost) + ", which it would no longer bind", frozenset(lost)))
    if not (expressions_only(old, new) or renames_only(before, after)):
        found.extend(added_flakes(old, new))
    old_imports = set(imported_names(old, module_name, is_package)) | set(reflected_names(old, module_name, is_package))
    new_imports = {**imported_names(new, module_name, is_package), **reflected_names(new, module_name, is_package)}
    releases = (target,) if isinstance(target, str) else target
    fallbacks = None
    for dotted, line in new_imports.items():
        if dotted in old_imports or not (dotted == "sglang" or dotted.startswith("sglang.")):
            continue
        if len(releases) == 1:
            missing = _missing_in(dotted, releases[0])
        else:
            if fallbacks is None:
                fallbacks = branches(new_tree, releases)
            missing = _missing_over(dotted, line, releases, fallbacks)
        if missing:
            found.append(Problem(missing, frozenset({dotted}), frozenset({line})))
    return found


def _names(names: set[str] | frozenset[str]) -> str:
    shown = ", ".join(f"`{name}`" for name in sorted(names))
    return ("name " if len(names) == 1 else "names ") + shown


class Parsed:
    """One text's tree and symbol table, and what the checks read from the tree, gathered
    in one walk: sglang's ``server_args.py`` has ~100k nodes, and a walk per check cost
    seconds per file. The original text is the same in every round of ``settle``, so its
    ``Parsed`` is kept (``parsed``)."""

    __slots__ = ("tree", "table", "loads", "stores", "defined", "declared_global", "imports", "reflecting_calls",
                 "module_bindings", "global_bindings", "census", "names", "identifiers", "attributes", "strings",
                 "classes", "_flakes")

    def __init__(self, text: str, label: str, tree: ast.Module | None = None) -> None:
        self.tree = tree if tree is not None else ast.parse(text)
        self.table = symtable.symtable(text, label, "exec")
        #: how often each name is read; names written or deleted; names of defs and classes
        self.loads: Counter = Counter()
        self.stores: set[str] = set()
        self.defined: set[str] = set()
        self.declared_global: set[str] = set()
        self.imports: list[ast.Import | ast.ImportFrom] = []
        #: ``getattr(name, "Attr")`` / ``hasattr(name, "Attr")`` calls
        self.reflecting_calls: list[ast.Call] = []
        #: names the module scope binds itself (``del`` does not bind), and through ``global``
        self.module_bindings: set[str] = set()
        self.global_bindings: set[str] = set()
        #: how many nodes of each type; each name with its context's type; attribute names;
        #: string and bytes constants (:func:`expressions_only` compares them)
        self.census: Counter = Counter()
        self.names: Counter = Counter()
        #: every other identifier a statement spells: imported names and aliases, modules,
        #: definitions, parameters, ``global``/``nonlocal`` names
        self.identifiers: Counter = Counter()
        self.attributes: Counter = Counter()
        self.strings: Counter = Counter()
        #: every class statement, nested ones too
        self.classes: list[ast.ClassDef] = []
        self._flakes: dict[str, Counter] | None = None
        self._walk()

    def flakes(self) -> dict[str, Counter]:
        """pyflakes' messages of this text: kind -> how often each name (its first
        argument) is reported. Computed once, only when the guard compares texts."""
        if self._flakes is None:
            self._flakes = flake_messages(self.tree)
        return self._flakes

    def _walk(self) -> None:
        # One pass, carrying for each node whether it runs in the module scope and which
        # outermost function, class or lambda holds it (its ``global`` declarations and
        # stores bind module names). A comprehension's first iterable runs in the enclosing
        # scope; the rest is the comprehension's own.
        scopes: dict[int, tuple[set[str], set[str]]] = {}  # owner -> (declared global, stored)
        stack: list[tuple[ast.AST, bool, int]] = [(node, True, 0) for node in reversed(self.tree.body)]
        module_scope_names = self.module_bindings
        while stack:
            node, at_module, owner = stack.pop()
            kind = type(node)
            self.census[kind] += 1
            if kind is ast.Name:
                self.names[(node.id, type(node.ctx))] += 1
                if isinstance(node.ctx, ast.Load):
                    self.loads[node.id] += 1
                else:
                    self.stores.add(node.id)
                    if isinstance(node.ctx, ast.Store):
                        if at_module:
                            module_scope_names.add(node.id)
                        elif owner:
                            scopes[owner][1].add(node.id)
                continue
            if kind is ast.Import or kind is ast.ImportFrom:
                self.imports.append(node)
                if kind is ast.ImportFrom:
                    self.identifiers[(kind, node.module, node.level)] += 1
                if at_module:
                    module_scope_names.update((a.asname or a.name).partition(".")[0] for a in node.names if a.name != "*")
            elif kind is ast.Call:
                if (isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr") and len(node.args) >= 2
                        and isinstance(node.args[0], ast.Name) and isinstance(node.args[1], ast.Constant)
                        and isinstance(node.args[1].value, str)):
                    self.reflecting_calls.append(node)
            elif kind is ast.Attribute:
                self.attributes[node.attr] += 1
            elif kind in _IDENTIFIER_FIELDS:
                self.identifiers[(kind, *(getattr(node, field) for field in _IDENTIFIER_FIELDS[kind]))] += 1
            elif kind is ast.Constant and isinstance(node.value, (str, bytes)):
                self.strings[node.value] += 1
            elif kind is ast.Global or kind is ast.Nonlocal:
                self.identifiers[(kind, *node.names)] += 1
            if kind is ast.Global:
                self.declared_global.update(node.names)
                if owner:
                    scopes[owner][0].update(node.names)
            inner = at_module
            if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef or kind is ast.Lambda:
                if kind is ast.ClassDef:
                    self.classes.append(node)
                if kind is not ast.Lambda:
                    self.defined.add(node.name)
                    self.identifiers[(kind, node.name)] += 1
                    if at_module:
                        module_scope_names.add(node.name)
                if at_module:
                    owner = id(node)
                    scopes[owner] = (set(), set())
                inner = False
            elif at_module and (kind is ast.ListComp or kind is ast.SetComp or kind is ast.GeneratorExp or kind is ast.DictComp):
                first = node.generators[0].iter
                stack.append((first, True, owner))
                stack.extend((child, False, owner) for child in ast.iter_child_nodes(node) if child is not node.generators[0])
                generator = node.generators[0]
                stack.extend((child, False, owner) for child in ast.iter_child_nodes(generator) if child is not first)
                continue
            for field in node._fields:
                value = getattr(node, field, None)
                if isinstance(value, ast.AST):
                    stack.append((value, inner, owner))
                elif isinstance(value, list):
                    stack.extend((item, inner, owner) for item in value if isinstance(item, ast.AST))
        for declared, stored in scopes.values():
            self.global_bindings |= stored & declared
        self.global_bindings -= module_scope_names


_PARSED: dict[str, Parsed] = {}  # the two texts parsed last, least recently used first


def parsed(text: str, tree: ast.Module | None = None) -> Parsed:
    """``text``'s ``Parsed`` (``tree``: its tree where the caller has one), kept for the two
    texts used last: the original and the latest fixed text of a ``settle``."""
    found = _PARSED.pop(text, None)
    if found is None:
        found = Parsed(text, "<source>", tree)
        while len(_PARSED) >= 2:
            del _PARSED[next(iter(_PARSED))]
    _PARSED[text] = found
    return found


parsed.cache_clear = _PARSED.clear  # type: ignore[attr-defined]  # as functools' caches offer


# ---- pyflakes parity ----------------------------------------------------------------

#: Kinds the guard checks with its own, stricter scope analysis above (free names on every
#: path, exports, star imports): counted twice, they would only repeat a reason.
OWN_KINDS = frozenset({"UndefinedName", "UndefinedExport", "UndefinedLocal", "ImportStarUsed", "ImportStarUsage",
                       "ImportStarNotPermitted"})


def flake_messages(tree: ast.Module) -> dict[str, Counter]:
    """pyflakes' messages on ``tree`` (kind -> Counter of first arguments), without the
    kinds in :data:`OWN_KINDS`, plus ``RedundantAlias`` for each ``import X as X``.

    pyflakes (pure Python, no dependencies, maintained by PyCQA) is a dependency of the
    fix path only: this module is imported only where a fix is written
    (``migrator.run.python_file``), never by lint. Reusing it rather than growing
    the guard's own scope analysis gives every message kind pyflakes knows, each with
    pyflakes' long-tested scope rules (loops, comprehensions, ``__all__``, conditionals)."""
    found: dict[str, Counter] = {}
    for message in Checker(tree, withDoctest=False).messages:
        kind = type(message).__name__
        if kind not in OWN_KINDS:
            name = str(message.message_args[0]) if message.message_args else ""
            found.setdefault(kind, Counter())[name] += 1
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.asname is not None and alias.asname == alias.name.rpartition(".")[2] and (
                        isinstance(node, ast.ImportFrom) or alias.asname == alias.name):
                    found.setdefault("RedundantAlias", Counter())[alias.asname] += 1
    return found


_FLAKE_WORDS = {
    "UnusedImport": "an unused import", "UnusedVariable": "a local variable nothing reads",
    "RedefinedWhileUnused": "a redefinition of a name nothing used", "ImportShadowedByLoopVar":
    "an import shadowed by a loop variable", "RedundantAlias": "an `import X as X` alias",
    "UnusedIndirectAssignment": "a `global`/`nonlocal` binding nothing reads", "UnusedAnnotation":
    "an annotation of a local nothing reads", "DuplicateArgument": "a duplicate argument",
}


_TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\S")


#: The identifier fields of the nodes that spell names other than ``Name`` reads and writes.
_IDENTIFIER_FIELDS: dict[type, tuple[str, ...]] = {ast.alias: ("name", "asname"), ast.arg: ("arg",),
                                                   ast.ExceptHandler: ("name",), ast.MatchAs: ("name",),
                                                   ast.MatchStar: ("name",), ast.MatchMapping: ("rest",)}
#: Node types a fix may add to expressions, and remove, with pyflakes' messages unchanged
#: (:func:`expressions_only`).
_ADDED_IN_EXPRESSIONS = frozenset({ast.Attribute, ast.Call, ast.UnaryOp, ast.Not, ast.Load})
_REMOVED_FROM_EXPRESSIONS = _ADDED_IN_EXPRESSIONS | {ast.keyword, ast.Constant}


def expressions_only(old: Parsed, new: Parsed) -> bool:
    """Does the fix only rewrite expressions around the names they already read (issue 46's
    ``X.is_spec_v2`` -> ``not X.spec_algorithm.is_none()``, ``filter_batch(v1_...=True)`` ->
    ``filter_batch()``, ``validate_dflash_request(req, self.enable_overlap)``)? Every name is
    bound as often as before and read at least as often (a new read can only make an unused
    binding used; an undefined one is the guard's own check), no statement, scope,
    string or other literal form is added, only attribute reads, calls and ``not``; a
    keyword argument or a non-string constant may go. pyflakes' messages are about names and
    their bindings (the counts are equal), statements and scopes (none added or removed) and
    literal forms (string formats, ``is`` comparisons, tuples, f-strings: none added; a new
    ``.format`` attribute is refused), so it reports the same messages; the guard skips its
    two passes there (on sglang 0.5.13's tree they were most of a fix's time)."""
    if old.strings != new.strings or old.identifiers != new.identifiers or old.names - new.names or any(
            context is not ast.Load for _, context in new.names - old.names):
        return False
    added, removed = new.census - old.census, old.census - new.census
    return (added.keys() <= _ADDED_IN_EXPRESSIONS | {ast.Name} and removed.keys() <= _REMOVED_FROM_EXPRESSIONS
            and "format" not in new.attributes - old.attributes)


def renames_only(before: str, after: str) -> bool:
    """Is ``after`` ``before`` with some identifiers renamed, one to one, to names
    ``before`` never spells, everywhere (``DFlashWorker`` -> ``DFlashWorkerV2`` on the import
    and every use), every changed line keeping its other tokens, comment lines aside?
    pyflakes reports such a text as it reports the original, modulo the renames, so the
    guard skips its two passes there (they cost about as much as parsing the file twice;
    most fixes of sglang 0.5.13's tree in the default mode only add TODO lines)."""
    # lines holding only a comment (the TODOs a fix writes) are nothing to pyflakes
    old_lines = [line for line in before.splitlines() if not line.lstrip().startswith("#")]
    new_lines = [line for line in after.splitlines() if not line.lstrip().startswith("#")]
    renamed: dict[str, str] = {}
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old_lines, new_lines).get_opcodes():
        if tag == "equal":
            continue
        if tag != "replace" or i2 - i1 != j2 - j1:
            return False
        for old_line, new_line in zip(old_lines[i1:i2], new_lines[j1:j2]):
            old_tokens, new_tokens = _TOKEN.findall(old_line), _TOKEN.findall(new_line)
            if len(old_tokens) != len(new_tokens):
                return False
            for old_token, new_token in zip(old_tokens, new_tokens):
                if old_token == new_token:
                    continue
                if not (_IDENTIFIER.fullmatch(old_token) and _IDENTIFIER.fullmatch(new_token)):
                    return False
                if renamed.setdefault(old_token, new_token) != new_token:
                    return False
    if len(set(renamed.values())) != len(renamed):
        return False
    kept = "\n".join(new_lines)  # an old name left anywhere (a second binding of it) can leave a new message
    return not any(re.search(r"\b" + re.escape(name) + r"\b", text)
                   for names, text in ((renamed.values(), before), (renamed, kept)) for name in names)


def added_flakes(old: Parsed, new: Parsed) -> list[Problem]:
    """A problem naming each pyflakes message kind that the fixed text reports more often
    than the original. Counted per kind, so a fix's own renames (an unused ``DFlashWorker``
    import becoming an unused ``DFlashWorkerV2`` one) are the same message; the names are
    those reported only after the fix, to name it and to find the fixes to blame.

    Unused imports count only among the import statements the fix wrote or removed: an
    import it left as it was runs as before, used or not (the ``import os`` a removed
    ``os.environ[...] = "0"`` leaves unused changes nothing at run time), while an import
    it *adds* that nothing uses says the fix binds a name no code reads (a monkeypatch
    turned into a dead local)."""
    old_imports, new_imports = import_statements(old), import_statements(new)
    after = dict(new.flakes())
    after["UnusedImport"] = Counter({name: n for name, n in after.get("UnusedImport", Counter()).items()
                                     if name in new_imports - old_imports})
    if not any(after.values()):  # nothing to add: the original's messages need not be computed (half the cost)
        return []
    before = dict(old.flakes())
    before["UnusedImport"] = Counter({name: n for name, n in before.get("UnusedImport", Counter()).items()
                                      if name in old_imports - new_imports})
    parts: list[str] = []
    blamed: set[str] = set()
    for kind in sorted(after):
        if sum(after[kind].values()) <= sum(before.get(kind, Counter()).values()):
            continue
        names = set((after[kind] - before.get(kind, Counter())).keys()) or set(after[kind])
        blamed |= names
        what = _FLAKE_WORDS.get(kind, f"pyflakes' `{kind}`")
        parts.append(f"{what} ({', '.join(f'`{name}`' for name in sorted(names))})")
    if not parts:
        return []
    return [Problem("it would add " + "; ".join(parts) + ", which the original does not have: the fix could change "
                    "what the code does", frozenset(blamed))]


def import_statements(facts: Parsed) -> frozenset[str]:
    """Each imported name as pyflakes names it in an unused-import message (``os``,
    ``a.b.C``, ``a.b.C as D``, ``.mod.C``)."""
    names: set[str] = set()
    for node in facts.imports:
        for alias in node.names:
            if isinstance(node, ast.Import):
                full = alias.name
            else:
                full = "." * node.level + (f"{node.module}." if node.module else "") + alias.name
            names.add(f"{full} as {alias.asname}" if alias.asname and alias.asname != full.rpartition(".")[2] or (
                alias.asname and isinstance(node, ast.Import) and alias.asname != alias.name) else full)
    return frozenset(names)


# ---- scopes -------------------------------------------------------------------------


def _tables(table: symtable.SymbolTable) -> Iterator[symtable.SymbolTable]:
    stack = [table]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(current.get_children())


def free_names(module: symtable.SymbolTable) -> set[str]:
    """Names used somewhere that resolve to the module scope, which never binds them."""
    bound = {s.get_name() for s in module.get_symbols() if s.is_assigned() or s.is_imported() or s.is_namespace()}
    for table in _tables(module):  # ``global x`` then ``x = ...`` in a function binds a module name
        bound.update(s.get_name() for s in table.get_symbols() if s.is_declared_global() and s.is_assigned())
    free: set[str] = set()
    for table in _tables(module):
        for symbol in table.get_symbols():
            name = symbol.get_name()
            if not symbol.is_referenced() or name in bound or name in BUILTIN_NAMES:
                continue
            if table.get_type() == "module" or symbol.is_global():
                free.add(name)
    return free


def partly_bound_used(tree: ast.Module, module: symtable.SymbolTable) -> frozenset[str]:
    """Module names used somewhere but bound on only some paths of the module body."""
    used = {s.get_name() for table in _tables(module) for s in table.get_symbols()
            if s.is_referenced() and (table.get_type() == "module" or s.is_global())}
    bound_somewhere = {s.get_name() for s in module.get_symbols() if s.is_assigned() or s.is_imported()}
    return frozenset((used & bound_somewhere) - definitely_bound(tree.body))


def definitely_bound(body: list[ast.stmt]) -> set[str]:
    """Names every path through ``body`` that falls through binds."""
    return _through(body)[0]


def _through(body: list[ast.stmt]) -> tuple[set[str], bool]:
    """(names bound on every path, whether some path falls through to the end)."""
    bound: set[str] = set()
    for statement in body:
        if isinstance(statement, ast.If):
            paths = [statement.body, statement.orelse]
        elif isinstance(statement, TRY_STATEMENTS):
            paths = [statement.body + statement.orelse, *(handler.body for handler in statement.handlers)]
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            paths = [statement.body]
            bound |= {n for item in statement.items if item.optional_vars for n in _target_names(item.optional_vars)}
        elif isinstance(statement, (ast.Raise, ast.Return)):
            return bound, False
        elif isinstance(statement, (ast.For, ast.AsyncFor, ast.While, ast.Match)):
            continue  # a loop body may not run; a match may have no matching case
        else:
            bound |= _bound_by(statement)
            continue
        met: set[str] | None = None
        for path in paths:
            names, falls = _through(path)
            if falls:
                met = set(names) if met is None else met & names
        if met is None:
            return bound, False
        bound |= met
        if isinstance(statement, TRY_STATEMENTS):
            bound |= _through(statement.finalbody)[0]
    return bound, True


def _bound_by(statement: ast.stmt) -> set[str]:
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).partition(".")[0] for alias in statement.names if alias.name != "*"}
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {statement.name}
    if isinstance(statement, ast.Assign):
        return {name for target in statement.targets for name in _target_names(target)}
    if isinstance(statement, (ast.AugAssign, ast.AnnAssign)) and getattr(statement, "value", None) is not None:
        return _target_names(statement.target)
    return set()


def _target_names(target: ast.AST) -> set[str]:
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return {name for element in target.elts for name in _target_names(element)}
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    return set()


def captured_names(old: Parsed, new: Parsed) -> set[str]:
    """Names the fix uses more often that the original binds other than by an import (its
    own ``class DFlashWorkerV2(DFlashWorker)``, a parameter, a loop variable): a renamed
    reference would resolve to that binding, not to the renamed import."""
    grown = {name for name, count in new.loads.items() if count > old.loads.get(name, 0)}
    if not grown:
        return set()
    own: set[str] = set()
    for table in _tables(old.table):
        for symbol in table.get_symbols():
            if symbol.get_name() in grown and (symbol.is_parameter() or symbol.is_assigned() or symbol.is_namespace()):
                own.add(symbol.get_name())
    imported = {(a.asname or a.name).partition(".")[0] for node in old.imports for a in node.names}
    if own:
        own -= receivers(old)
    return {name for name in own if name not in imported or name in old.stores or name in old.defined}


def receivers(facts: Parsed) -> set[str]:
    """The first parameters of instance methods (``self``): a fix that uses one more often
    means the instance on purpose (DFM307 passes ``self.enable_overlap``); no rename of an
    imported name is spelled like a method's receiver."""
    found = set()
    for cls in facts.classes:
        for method in cls.body:
            if (isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.args.args
                    and not any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")
                                for d in method.decorator_list)):
                found.add(method.args.args[0].arg)
    return found


def ever_exported(tree: ast.Module) -> set[str]:
    """Every name any assignment to ``__all__`` lists (the safe reading for the guard: a name
    that was ever exported must stay bound)."""
    return {name for _, strings in all_assignments(tree) for name in strings}


def deleted_or_global(facts: Parsed) -> set[str]:
    """Module names a ``del`` at module level or a ``global`` declaration names."""
    names = set(facts.declared_global)
    for statement in facts.tree.body:
        for node in ast.walk(statement) if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else ():
            if isinstance(node, ast.Delete):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def reflected_names(facts: Parsed, module_name: str | None, is_package: bool) -> dict[str, int]:
    """``getattr(module, "Name")`` / ``hasattr`` on an imported module -> ``module.Name``."""
    if not facts.reflecting_calls:
        return {}
    modules: dict[str, str] = {}
    for node in facts.imports:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    modules[alias.asname] = alias.name
        else:
            base = resolve_relative(node.module, node.level, module_name, is_package)
            if base:
                for alias in node.names:
                    modules[alias.asname or alias.name] = f"{base}.{alias.name}"
    found: dict[str, int] = {}
    for node in facts.reflecting_calls:
        if node.args[0].id in modules:  # type: ignore[attr-defined]
            found.setdefault(f"{modules[node.args[0].id]}.{node.args[1].value}", node.lineno)  # type: ignore[attr-defined]
    return found


# ---- imports ------------------------------------------------------------------------


def imported_names(facts: Parsed, module_name: str | None, is_package: bool) -> dict[str, int]:
    """Every dotted name an import statement reaches (``from m import n``: ``m.n``) -> line."""
    found: dict[str, int] = {}
    for node in facts.imports:
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.setdefault(alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            module = resolve_relative(node.module, node.level, module_name, is_package)
            if module is None:
                continue
            for alias in node.names:
                found.setdefault(module if alias.name == "*" else f"{module}.{alias.name}", node.lineno)
    return found


def star_imports(facts: Parsed, module_name: str | None, is_package: bool) -> dict[str | None, int]:
    return {resolve_relative(node.module, node.level, module_name, is_package): node.lineno for node in facts.imports
            if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)}


def _missing_in(dotted: str, target: str) -> str | None:
    """Why ``dotted`` cannot be shown to exist in sglang ``target`` (None: it exists)."""
    index = cached_index(target)
    if index is not None:
        if not index.resolve(dotted).missing:
            return None
        return f"`{dotted}` does not exist in sglang {target}"
    if _shown(dotted, target):
        return None
    return (f"nothing shows that `{dotted}` exists in sglang {target} "
            "(no cached wheel, not in the catalog or the surface index)")


def _shown(dotted: str, release: str) -> bool:
    """The catalog or the shipped surface index (``migrator.python.surface``) shows
    ``dotted`` on ``release``."""
    return dotted in catalog_names(release) or on_surface(dotted, release)


def _missing_over(dotted: str, line: int, releases: tuple[str, ...], fallbacks: list) -> str | None:
    """Why ``dotted`` (imported at ``line``) cannot be shown to exist on the releases that
    line runs on, from the catalog and the shipped surface index alone (the same answer on
    every machine): inside the body of a ``try`` guarding imports, on one of ``releases``;
    in a handler, on each release it serves; elsewhere on each of ``releases``."""
    branch = branch_at(fallbacks, line)
    if branch is not None and branch.is_body:
        if any(_shown(dotted, release) for release in releases):
            return None
        return f"nothing shows that `{dotted}` exists in a release of sglang {label(releases)} (catalog, surface index)"
    scope = releases if branch is None else branch.releases
    lacking = tuple(release for release in scope if not _shown(dotted, release))
    if not lacking:
        return None
    return f"nothing shows that `{dotted}` exists in sglang {label(lacking)} (catalog, surface index)"


@cache
def cached_index(target: str):  # noqa: ANN201 - SglangIndex | None (imported lazily: it is large)
    """The verify index of sglang ``target``'s wheel if it is already cached, else None (bytes
    that are not the release's count as not cached: the fix is refused)."""
    from migrator.releases.index import SglangIndex

    return SglangIndex.cached(target)


# ---- refusing fixes -----------------------------------------------------------------

MAX_ROUNDS = 4  # blamed fixes refused per round; after that every fix of the file is refused


def settle(findings: list[Finding], data: bytes, source: str, target: str | tuple[str, ...],
           unsafe: bool, module_name: str | None = None, is_package: bool = False,
           exported: frozenset[str] = frozenset(), width: int = DEFAULT_LINE_LENGTH,
           written_first: bytes | None = None, tree: ast.Module | None = None) -> tuple[list[Finding], bytes]:
    """The findings with every fix the guard refuses turned into a TODO that says why, and
    the bytes those findings give (``data``, whose text is ``source``, with their edits). A
    fix is refused when the text with it has a problem the original has not; the fixes whose
    replacement text names what is wrong are refused first, then all of them.
    ``written_first``: the bytes all of ``findings``' edits give, where the caller has them;
    ``tree``: ``source``'s whole tree, where the caller has it."""
    def written(chosen: list[Finding]) -> bytes:
        return apply(data, chosen_edits(chosen, unsafe), source, width)

    if written_first is not None and not any(is_applied(f.fix, unsafe) for f in findings):
        return findings, written_first  # only TODOs are written: whatever is found, no fix is there to refuse

    current = findings
    for round_number in range(MAX_ROUNDS + 1):
        new = written_first if round_number == 0 and written_first is not None else written(current)
        try:
            text = decode_python(new)
        except SourceError as error:
            text = f"<{error.message}>"  # does not parse: refused like any text that does not
        found = problems(source, text, target, module_name, is_package, exported, tree)
        if not found:
            return current, new
        applied = [f for f in current if is_applied(f.fix, unsafe)]
        blamed = _blamed(applied, found) if round_number < MAX_ROUNDS else set()
        if not blamed:
            blamed = {id(f) for f in applied}
        if not blamed:
            return current, new  # nothing left to refuse: only comments change
        current = _refuse(current, blamed, found, source)
    return current, written(current)


def _blamed(applied: list[Finding], found: list[Problem]) -> set[int]:
    words: set[str] = set()
    for problem in found:
        for name in problem.names:
            parts = name.split(".")
            words.update(parts[-2:])
    blamed: set[int] = set()
    for finding in applied:
        for edit in finding.fix.edits:
            text = getattr(edit, "text", None) or " ".join(str(v) for v in edit if isinstance(v, str))
            if words & set(_IDENTIFIER.findall(text)):
                blamed.add(id(finding))
    return blamed


def _refuse(findings: list[Finding], blamed: set[int], found: list[Problem], source: str) -> list[Finding]:
    reason = "; ".join(dict.fromkeys(problem.reason for problem in found))
    try:
        anchors = anchor_lines(parsed(source).tree, {f.span.start.line for f in findings if id(f) in blamed})
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        anchors = {}
    refused: list[Finding] = []
    comments: set[str] = set()
    for finding in findings:
        if id(finding) not in blamed:
            refused.append(finding)
            continue
        entry = catalog.get(finding.code)
        comment = catalog.todo_comment(entry, f"{finding.message}; not fixed automatically: {reason}")
        comments.add(_leftover_message(finding.code, comment))
        fix = Fix("manual", (InsertComment(anchors.get(finding.span.start.line, finding.span.start.line), comment),))
        refused.append(finding._replace(fix=fix))
    # A TODO this refusal wrote on an earlier run is the refused finding itself, not a leftover.
    return [f for f in refused if not (f.fix is None and f.message in comments)]


def _leftover_message(code: str, comment: str) -> str:
    return "unresolved migration TODO: " + normalized(comment.split(code, 1)[1])
