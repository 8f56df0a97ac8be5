"""The fork index: which of the fork's own modules carry V1 objects, and under which names.

A team's package often imports the V1 classes once (``compat.py``) and the rest of it
imports them from there, under the same or another name. Each file is still analysed on
its own (``migrator.python.analysis``); this module joins what those analyses say about module
level, so that the rules see through the fork's own modules:

* per module (``ModuleSummary``, made by ``summarize`` in the worker that analysed the
  file): the names it binds at module level to imported things (``from x import y [as z]``,
  ``import x as y``, ``Y = mod.X``), its classes with their bases and annotated attributes
  (class-level and dataclass annotations, string annotations, ``self.x = ...`` in methods),
  the return annotations of its functions and methods,
  its ``__all__``, its star imports, the names it binds in an ``except ImportError`` branch
  of a ``try`` that imports V1 names (on a V2 release that branch is what runs), and the
  names it imports from other modules;
* ``ForkIndex.resolve(qualname)``: the V1 qualified name a fork name stands for, following
  re-exports, aliases, chains and star imports (cycles end: each module is entered once
  per lookup), with the files it went through;
* ``ForkIndex.bases`` / ``attr_types`` / ``returned_types``: classes and functions of other
  files, for subclass chains, typed wrappers and return annotations;
* ``ForkIndex.needed(module)``: the names other fork modules import from it (a fix must keep
  them bound);
* ``ModuleSummary.wanted``: classes and functions of other modules whose definitions would
  decide a finding (NGRAM's ``verify(batch=..., ...)`` on ``holder.spec``); the engine reads
  those modules into the index even when they hold no V1 word;
* ``ForkIndex.words``: names bound to V1 objects, of V1 subclasses and of wrappers holding
  V1 values that have no V1 word in them (``BaseWorker``): the engine's second byte-level
  pass looks for them in files not yet parsed.

Modules are keyed by their package root (the folder above the top ``__init__.py``), so two
copies of one package in a tree stay apart; an import resolves in its own root first.
Dynamic imports (``importlib.import_module``, ``__import__``, ``getattr(module, name)``)
are not followed: a documented limit.
"""

from __future__ import annotations

import ast
import os
from functools import lru_cache
from pathlib import Path

from migrator import catalog
from migrator.base.imports import resolve_relative
from migrator.base.records import NamedTuple, record
from migrator.python.names import IMPORT_ERRORS, catches, class_ancestors

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


@record
class ModuleSummary(NamedTuple):
    """What one analysed module binds at module level (see the module docstring)."""

    path: str
    root: str
    module: str
    #: local name -> (qualname it is bound to, line)
    binds: dict[str, tuple[str, int]]
    #: class qualname -> (base qualnames, line)
    classes: dict[str, tuple[tuple[str, ...], int]]
    #: class qualname -> attribute -> type qualnames
    attributes: dict[str, dict[str, frozenset[str]]]
    star_imports: tuple[str, ...]
    all_names: tuple[str, ...] | None
    #: name -> line of the ``except ImportError`` assignment that binds it on V2 releases
    fallbacks: dict[str, int]
    #: (module, name) pairs this module imports (``from module import name``)
    imported: tuple[tuple[str, str], ...]
    #: function or method qualname -> the types its return annotation names
    returns: dict[str, frozenset[str]]
    #: qualnames of other modules' classes and functions that would decide a finding here
    #: (``Analysis.wanted``): the engine reads their modules into the index
    wanted: tuple[str, ...] = ()
    #: False: made from a masked parse (``migrator.python.partial``), so it holds every V1-bound
    #: name of the module but not its statements that name nothing V1; where the index
    #: needs those, the engine summarizes the whole file
    complete: bool = True
    #: (member, class qualname, line) of each method or property a class of this module
    #: defines under a name of ``catalog.sglang_meaning_members()``, and (keyword, function,
    #: line) of each function taking a keyword of ``catalog.sglang_meaning_parameters()``: the
    #: fork's own meaning
    own_members: tuple[tuple[str, str, int], ...] = ()
    #: names of ``catalog.sglang_meaning_members()`` this module reads as attributes, keywords
    #: of ``catalog.sglang_meaning_parameters()`` it spells
    member_uses: tuple[str, ...] = ()


@record
class Resolved(NamedTuple):
    """A fork name that stands for the V1 object ``qualname``; ``via``: (path, line) of each
    fork module it went through, nearest first; ``fallback``: (path, line) where the
    carrying module binds something else on V2 releases (its ``except ImportError`` branch)."""

    qualname: str
    via: tuple[tuple[str, int], ...]
    fallback: tuple[str, int] | None = None


def package_root(path: Path, module: str | None) -> str:
    """The folder above the top package holding ``path`` (its module name's first part)."""
    depth = module.count(".") + 1 if module else 1
    if path.name in ("__init__.py", "__init__.pyi"):
        depth += 1
    folder = path.parent
    for _ in range(depth - 1):
        folder = folder.parent
    return str(folder)


def _package_folder(path: str, module: str) -> str:
    """The folder of ``module``'s top package, spelled as ``path`` is (relative stays relative)."""
    folder = os.path.dirname(path)
    levels = module.count(".") - (0 if os.path.basename(path) in ("__init__.py", "__init__.pyi") else 1)
    for _ in range(levels):
        folder = os.path.dirname(folder)
    return folder


@lru_cache(maxsize=1 << 16)  # asked for every bound name and attribute type of every summary
def is_v1(qualname: str) -> bool:
    """Does ``qualname`` name a removed/renamed catalog module, class or function (or a
    member of one)?"""
    return catalog.matching_entry(qualname) is not None


def v1_try_fallbacks(statement: ast.Try) -> list[tuple[str, ast.stmt]]:
    """(name, assignment) bound in the ``except ImportError`` branches of ``statement``."""
    found: list[tuple[str, ast.stmt]] = []
    for handler in statement.handlers:
        if not catches(handler, IMPORT_ERRORS):
            continue
        for child in handler.body:
            if isinstance(child, (ast.Assign, ast.AnnAssign)):
                for target in (child.targets if isinstance(child, ast.Assign) else [child.target]):
                    if isinstance(target, ast.Name):
                        found.append((target.id, child))
    return found


def v1_imports(statement: ast.Try, module_name: str, is_package: bool) -> list[tuple[ast.stmt, str]]:
    """(import statement, qualname) of V1 names imported in the body of ``statement``."""
    found: list[tuple[ast.stmt, str]] = []
    for node in statement.body:  # the imports the try is about: its own statements
        if isinstance(node, ast.Import):
            found.extend((node, alias.name) for alias in node.names if is_v1(alias.name))
        elif isinstance(node, ast.ImportFrom):
            module = resolve_relative(node.module, node.level, module_name, is_package)
            if module is None:
                continue  # beyond the top package: Python raises, whatever the release
            found.extend((node, f"{module}.{alias.name}") for alias in node.names
                         if alias.name != "*" and is_v1(f"{module}.{alias.name}"))
    return found


def _fallbacks(tree: ast.Module) -> dict[str, int]:
    """Names bound in the ``except ImportError`` branch of a module-level ``try`` that
    imports something: what the module binds where that import fails."""
    found: dict[str, int] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Try) and any(isinstance(n, (ast.Import, ast.ImportFrom)) for n in statement.body):
            for name, assignment in v1_try_fallbacks(statement):
                found.setdefault(name, assignment.lineno)
    return found


_UNKNOWN = object()


def _flat(via: tuple) -> tuple[tuple[str, int], ...]:
    """The hops of a backwards linked list ``(earlier, hop)``, nearest first."""
    hops: list[tuple[str, int]] = []
    while via:
        via, hop = via
        hops.append(hop)
    return tuple(reversed(hops))


class ForkIndex:
    """The summaries of a run's modules, joined (see the module docstring)."""

    def __init__(self, summaries: list[ModuleSummary], already_found: Callable[[bytes], bool]) -> None:
        """``already_found``: the byte prefilter, which finds a file that names a V1 word
        without the index (:attr:`words` holds only the names it misses)."""
        self.by_key: dict[tuple[str, str], ModuleSummary] = {(s.root, s.module): s for s in summaries}
        self.by_module: dict[str, list[ModuleSummary]] = {}
        for summary in summaries:
            self.by_module.setdefault(summary.module, []).append(summary)
        self._resolved: dict[tuple[str, str | None], Resolved | None] = {}
        self._needed: dict[tuple[str, str], set[str]] = {}
        for summary in summaries:
            for module, name in summary.imported:
                target = self.find(module, summary.root)
                if target is not None:
                    self._needed.setdefault((target.root, target.module), set()).add(name)
        #: member -> (class qualname, path, line) of the fork's own definitions (outside ``sglang.*``)
        self.own_definitions: dict[str, list[tuple[str, str, int]]] = {}
        #: the same facts of a vendored ``sglang`` package's modules (not the fork's own meaning:
        #: the release they will be merged to replaces them), by that package's folder
        #: (``migrator.run.fork`` reports them once per package, ``catalog.VENDORED_CODE``)
        self.vendored_definitions: dict[str, list[tuple[str, str, str, int]]] = {}
        for summary in summaries:
            if summary.module == "sglang" or summary.module.startswith("sglang."):
                if summary.own_members:
                    package = _package_folder(summary.path, summary.module)
                    self.vendored_definitions.setdefault(package, []).extend(
                        (member, owner, summary.path, line) for member, owner, line in summary.own_members)
                continue
            for member, owner, line in summary.own_members:
                self.own_definitions.setdefault(member, []).append((owner, summary.path, line))
        self._v1_ancestor: dict[tuple[str, str | None], bool] = {}
        self._carriers = self._find_carriers()
        self.words: frozenset[str] = frozenset(self._words(already_found))

    # ---- lookups ------------------------------------------------------------------
    def find(self, module: str, root: str | None) -> ModuleSummary | None:
        """The module named ``module``: in ``root`` first, else the only one of that name."""
        candidates = self.by_module.get(module)
        if candidates is None:  # most names: not a module of the index
            return None
        return self.by_key.get((root, module)) or (candidates[0] if len(candidates) == 1 else None)

    def _split(self, qualname: str, root: str | None) -> tuple[ModuleSummary, str, str] | None:
        """(module summary, first name inside it, rest) for the longest module prefix."""
        # asked for every bound name of every summary, most of them outside the index: the
        # prefixes are cut in place and looked up in ``by_module`` before ``find``
        end = len(qualname)
        while (dot := qualname.rfind(".", 0, end)) > 0:
            module = qualname[:dot]
            summary = self.find(module, root) if module in self.by_module else None
            if summary is not None:
                name, _, rest = qualname[dot + 1:].partition(".")
                return summary, name, rest
            end = dot
        return None

    def resolve(self, qualname: str, root: str | None = None) -> Resolved | None:
        """The V1 object a fork name stands for (None: not a fork name carrying one)."""
        key = (qualname, root)
        if key not in self._resolved:  # asked for every name of every analysed statement
            self._resolved[key] = self._resolve(qualname, root, set())
        return self._resolved[key]

    def _resolve(self, qualname: str, root: str | None, seen: set[tuple[str, str]]) -> Resolved | None:
        """Follow re-exports (and star imports, first match wins) to a V1 name. An explicit
        stack, not recursion: a hostile chain of 1,000 re-exporting modules must not
        exhaust the interpreter's stack. Each entry carries the way there (``via``, a
        linked list built backwards: one tuple per hop, flattened once at the end, and its
        length) and the innermost ``try``/``except ImportError`` fallback met so far.

        Memoised along the way: a step taken when no other way is pending decides this
        walk's answer, so the answer from there on is recorded for it too, and a later
        walk reaching it stops there (each module of a 1,000-module chain asks once, not
        once per module above it)."""
        Via = tuple  # (earlier hops, (path, line)) or ()
        pending: list[tuple[str, str | None, Via, int, tuple[str, int] | None]] = [(qualname, root, (), 0, None)]
        trail: list[tuple[tuple[str, str | None], int, tuple[str, int] | None]] = []
        found: Resolved | None = None
        while pending:
            qualname, root, via, depth, fallback = pending.pop()
            if not pending:  # the only way left: what follows from here is this walk's answer
                if trail and (known := self._resolved.get((qualname, root), _UNKNOWN)) is not _UNKNOWN:
                    if known is not None:
                        found = Resolved(known.qualname, _flat(via) + known.via, known.fallback or fallback)
                    break
                trail.append(((qualname, root), depth, fallback))
            split = self._split(qualname, root)
            if split is None:
                continue
            summary, name, rest = split
            key = (summary.root, f"{summary.module}.{name}")
            if key in seen:
                continue  # an import cycle
            seen.add(key)
            bound = summary.binds.get(name)
            if bound is None:
                stars = [star for star in summary.star_imports if (target := self.find(star, summary.root)) is not None
                         and (target.all_names is None or name in target.all_names)]
                # reversed: the first star import is searched first, as written
                pending.extend((f"{star}.{name}", summary.root, (via, (summary.path, 1)), depth + 1, fallback)
                               for star in reversed(stars))
                continue
            target, line = bound
            if target == qualname.rpartition(".")[0] + "." + name and not rest:
                continue
            full = f"{target}.{rest}" if rest else target
            here = (summary.path, summary.fallbacks[name]) if name in summary.fallbacks else None
            via, inner = (via, (summary.path, line)), here or fallback
            if is_v1(full):
                found = Resolved(full, _flat(via), inner)
                break
            pending.append((full, summary.root, via, depth + 1, inner))
        for step, (key, depth, fallback) in enumerate(trail):
            if step and found is not None:  # the first is the caller's, recorded by ``resolve``
                self._resolved[key] = Resolved(found.qualname, found.via[depth:],
                                               found.fallback if found.fallback is not fallback else None)
            elif step:
                self._resolved[key] = None
        return found

    def bases(self, class_qualname: str, root: str | None = None) -> tuple[str, ...]:
        """The bases of a class another fork module defines, resolved through the index."""
        split = self._split(class_qualname, root)
        if split is None or split[2]:
            return ()
        summary, name, _ = split
        found = summary.classes.get(f"{summary.module}.{name}")
        if found is None:
            resolved = self.resolve(class_qualname, root)
            return (resolved.qualname,) if resolved is not None else ()
        return tuple((self.resolve(base, summary.root) or Resolved(base, ())).qualname for base in found[0])

    def defined_class(self, qualname: str, root: str | None = None) -> tuple[str, str, int] | None:
        """(qualname where defined, path, line) of a fork class ``qualname`` names."""
        seen: set[str] = set()
        while qualname not in seen:
            seen.add(qualname)
            split = self._split(qualname, root)
            if split is None or split[2]:
                return None
            summary, name, _ = split
            defined = f"{summary.module}.{name}"
            if defined in summary.classes:
                return defined, summary.path, summary.classes[defined][1]
            bound = summary.binds.get(name)
            if bound is None:
                return None
            qualname, root = bound[0], summary.root
        return None

    def attr_types(self, class_qualname: str, attribute: str, root: str | None = None) -> frozenset[str]:
        defined = self.defined_class(class_qualname, root)
        if defined is None:
            return frozenset()
        summary = self._split(defined[0], root)
        if summary is None:
            return frozenset()
        types = summary[0].attributes.get(defined[0], {}).get(attribute, frozenset())
        return frozenset((self.resolve(t, summary[0].root) or Resolved(t, ())).qualname for t in types)

    def returned_types(self, qualname: str, root: str | None = None) -> frozenset[str]:
        """The types the return annotation of a fork function or method names (``qualname``
        as the importing module spells it: re-exports and re-exported classes followed)."""
        seen: set[str] = set()
        while qualname not in seen:
            seen.add(qualname)
            split = self._split(qualname, root)
            if split is None:
                return frozenset()
            summary, name, rest = split
            types = summary.returns.get(f"{summary.module}.{name}" + (f".{rest}" if rest else ""))
            if types is not None:  # defined here
                return frozenset((self.resolve(t, summary.root) or Resolved(t, ())).qualname for t in types)
            bound = summary.binds.get(name)
            if bound is None:
                return frozenset()
            qualname, root = (f"{bound[0]}.{rest}" if rest else bound[0]), summary.root
        return frozenset()

    def _returns_v1(self, qualname: str, summary: ModuleSummary) -> bool:
        return any(is_v1(t) or self.resolve(t, summary.root) is not None for t in summary.returns.get(qualname, ()))

    def needed(self, module: str, root: str | None) -> frozenset[str]:
        """Names other fork modules import from ``module``."""
        summary = self.find(module, root)
        if summary is None:
            return frozenset()
        return frozenset(self._needed.get((summary.root, summary.module), ()))

    def carriers(self) -> frozenset[tuple[str, str]]:
        """(root, module) of every module binding a name that resolves to a V1 object
        through the fork, or defining a class with a V1 ancestor or V1-typed attributes."""
        return self._carriers

    def _find_carriers(self) -> frozenset[tuple[str, str]]:
        found: set[tuple[str, str]] = set()
        for key, summary in self.by_key.items():
            for name, (target, _) in summary.binds.items():
                # resolving needs the target to be V1 or inside a module of the index: most
                # bound names (a module's imports from outside the fork) are neither
                if (is_v1(target) or self._split(target, summary.root) is not None) and self.resolve(
                        f"{summary.module}.{name}", summary.root) is not None:
                    found.add(key)
                    break
            else:
                if any(self.has_v1_ancestor(q, summary.root) or self.holds_v1(q, summary) for q in summary.classes) or any(
                        self._returns_v1(q, summary) for q in summary.returns if q.count(".") == summary.module.count(".") + 1):
                    found.add(key)
        return frozenset(found)

    def _carries(self, summary: ModuleSummary, name: str) -> bool:
        """Does importing ``name`` from this module bring in something only the index sees: a
        V1 object under a fork name, or a class with a V1 ancestor or V1-typed attributes? (A
        V1 name imported from the module that defines it is seen without the index.)"""
        qualname = f"{summary.module}.{name}"
        if name == "*" or self.resolve(qualname, summary.root) is not None or self._returns_v1(qualname, summary):
            return True
        return qualname in summary.classes and bool(
            self.has_v1_ancestor(qualname, summary.root) or self.holds_v1(qualname, summary))

    def holds_v1(self, class_qualname: str, summary: ModuleSummary) -> bool:
        """Is an attribute of the class annotated or assigned with a V1 type, or does one of
        its methods return one (a wrapper)?"""
        for types in summary.attributes.get(class_qualname, {}).values():
            for qualname in types:
                if is_v1(qualname) or self.resolve(qualname, summary.root) is not None:
                    return True
        prefix = class_qualname + "."
        return any(self._returns_v1(q, summary) for q in summary.returns if q.startswith(prefix) and "." not in q[len(prefix):])

    def has_v1_ancestor(self, class_qualname: str, root: str | None) -> bool:
        key = (class_qualname, root)
        if key not in self._v1_ancestor:
            ancestors = class_ancestors(class_qualname, lambda current: self.bases(current, root))
            self._v1_ancestor[key] = any(is_v1(a) for a in ancestors - {class_qualname})
        return self._v1_ancestor[key]

    def _words(self, might_match: Callable[[bytes], bool]) -> set[str]:
        """Names bound to V1 objects (or V1 subclasses) without a V1 word in them."""
        words: set[str] = set()
        for summary in (self.by_key[key] for key in self._carriers):  # only carriers bind such names
            for name in summary.binds:
                if not might_match(name.encode()) and self.resolve(f"{summary.module}.{name}", summary.root):
                    words.add(name)
            for qualname in summary.classes:
                name = qualname.rpartition(".")[2]
                if not might_match(name.encode()) and (self.has_v1_ancestor(qualname, summary.root)
                                                       or self.holds_v1(qualname, summary)):
                    words.add(name)
            for qualname in summary.returns:  # functions returning V1 values (``make()``)
                module, _, name = qualname.rpartition(".")
                if module == summary.module and not might_match(name.encode()) and self._returns_v1(qualname, summary):
                    words.add(name)
        return words

    def mentions(self, data: bytes) -> bool:
        """Does a file's content hold one of ``words`` (the second byte-level pass)?"""
        return any(word.encode() in data for word in self.words)

    def touches(self, summary: ModuleSummary | None, carriers: frozenset[tuple[str, str]]) -> bool:
        """Must this module be analysed again with the index: it imports from a carrier, or
        it is one whose names other modules import."""
        if summary is None:
            return False
        if any(member in self.own_definitions for member in summary.member_uses):
            return True  # its rewrite of a member depends on the fork's own definition of it
        if any(self._split(wanted, summary.root) is not None for wanted in summary.wanted):
            return True  # the index now holds a module that decides one of its findings
        if (summary.root, summary.module) in carriers and any(
                self.resolve(f"{summary.module}.{name}", summary.root) is not None
                for name in self.needed(summary.module, summary.root)):
            return True  # another module imports a V1 object from it under a fork name
        for module, name in summary.imported:
            target = self.find(module, summary.root)
            if target is not None and (target.root, target.module) in carriers and self._carries(target, name):
                return True
            carrier = self.find(f"{module}.{name}", summary.root) if target is not None else None
            if carrier is not None and (carrier.root, carrier.module) in carriers:
                return True  # ``from pkg import worker``: reaches go through the carrier's names
        for qualname, _ in summary.binds.values():
            carrier = self.find(qualname, summary.root)
            if carrier is not None and (carrier.root, carrier.module) in carriers:
                return True  # ``import pkg.worker as w``
            split = self._split(qualname, summary.root)
            if split is not None and (split[0].root, split[0].module) in carriers and self._carries(split[0], split[1]):
                return True
        return False


class ForkView:
    """The index as one module sees it (what ``migrator.python.analysis`` asks)."""

    __slots__ = ("index", "root", "module", "_needed")

    def __init__(self, index: ForkIndex, root: str, module: str) -> None:
        self.index = index
        self.root = root
        self.module = module
        self._needed = index.needed(module, root)

    def resolve(self, qualname: str) -> Resolved | None:
        if qualname.startswith(self.module + ".") and qualname.count(".") == self.module.count(".") + 1:
            return None  # this module's own names: the file's analysis knows them
        return self.index.resolve(qualname, self.root)

    def bases(self, class_qualname: str) -> tuple[str, ...]:
        return self.index.bases(class_qualname, self.root)

    def attr_types(self, class_qualname: str, attribute: str) -> frozenset[str]:
        return self.index.attr_types(class_qualname, attribute, self.root)

    def defined_class(self, qualname: str) -> tuple[str, str, int] | None:
        return self.index.defined_class(qualname, self.root)

    def returned_types(self, qualname: str) -> frozenset[str]:
        return self.index.returned_types(qualname, self.root)

    def needed(self, name: str) -> bool:
        return name in self._needed


def module_files(qualname: str, root: str) -> list[str]:
    """The files that could hold the module defining ``qualname`` (a module, or a name
    inside one) below the package root ``root``, longest module name first."""
    parts = qualname.split(".")
    found = []
    for cut in range(len(parts), 0, -1):
        folder = os.path.join(root, *parts[:cut])
        found += [folder + ".py", os.path.join(folder, "__init__.py")]
    return found
