"""What a downstream fork can touch that changed between two sglang releases, read from
their wheels: the evidence behind the catalog's completeness (issue 14 item 4).

``removals(old, new)`` compares two :class:`~migrator.releases.index.SglangIndex`
trees in the modules of :data:`SCOPE` and lists every

* module that is gone,
* module-level name (class, function, variable, import) that is gone,
* class member (method, property, field, ``self.x`` attribute, nested class) that is gone,
* parameter of a surviving function or method that is gone, or that is new and required
  (no default: every old call now fails, ``validate_dflash_request(req, enable_overlap)``),

whose old definition, or a function of the old tree that refers to it, mentions DFLASH,
spec v1/v2 or ``SGLANG_ENABLE_SPEC_V2`` (:data:`MENTION`). Environment definitions are
``Envs`` class members of ``srt/environ.py`` and come out as members.

The catalog's test (``tests/test_catalog_scope.py``) asks that every item is a catalog
name or in :data:`migrator.catalog.scope.NOT_COVERED`. Run it by hand to see the list:
``python -m migrator.verify.wheel_diff 0.5.13 0.5.14``.

Every release (issue 44): :func:`surface` reads the DFLASH surface of one release
(:data:`SURFACE`, a narrower rule than the mention test: DFLASH modules and names, the
``DFlash*`` classes' members with their bases', the DFLASH ``ServerArgs`` fields and flags,
``SpeculativeAlgorithm``, the DFLASH and spec-v2 ``Envs`` entries and variables) and
:func:`surface_changes` what the next release removes or changes on it (names, and
parameters gone, newly required or made keyword-only). :func:`release_changes` does it for
two released wheels, each read once per process; ``tests/test_release_diffs.py`` asks that
every change of every consecutive pair from 0.5.11 is in the catalog or in
:data:`migrator.catalog.scope.RELEASE_NOTES`.

Nothing is imported from the trees; sources are read with ``ast``.
"""

from __future__ import annotations

import ast
import re
import sys
from functools import cache
from typing import Mapping

from migrator import catalog
from migrator.base.imports import resolve_relative
from migrator.base.records import NamedTuple, record
from migrator.releases.index import FunctionInfo, Import, ReleaseClass, SglangIndex, dotted_name, lines_of

#: The modules compared: a prefix ending in ``.`` covers a package's modules.
SCOPE: tuple[str, ...] = (
    "sglang.srt.speculative.",
    "sglang.srt.managers.schedule_batch",
    "sglang.srt.managers.scheduler",
    "sglang.srt.arg_groups.speculative_hook",
    "sglang.srt.environ",
)
#: What makes a removal in scope: its definition or a caller says DFLASH, spec v1/v2 or the env var.
MENTION = re.compile(r"dflash|spec[_ ]?v[12]|v[12]_spec", re.IGNORECASE)


@record
class Removal(NamedTuple):
    """One removed or changed thing: ``name`` is its dotted path (a parameter is
    ``module.func(param)``), ``kind`` one of module/class/function/variable/import/member/
    parameter/required-parameter, ``evidence`` why it is in scope (``definition`` or the
    caller that mentions it)."""

    name: str
    kind: str
    evidence: str


def in_scope(module: str) -> bool:
    return any(module.startswith(p) if p.endswith(".") else module == p for p in SCOPE)


@record
class _Def(NamedTuple):
    kind: str
    module: str
    name: str  # the last part of the dotted name
    owner: str | None  # for members: the class's name
    text: str  # the definition's source, for the mention test
    function: FunctionInfo | None = None  # for functions and methods: the parameters


def _source(lines: list[str], ranges: list[tuple[int, int]]) -> str:
    """The text of ``lines`` in ``ranges`` (first and last line, counted from 1)."""
    return "\n".join("\n".join(lines[first - 1:last]) for first, last in ranges)


def _definitions(index: SglangIndex, module: str) -> dict[str, _Def]:
    """Every dotted name ``module`` defines (its symbols, class members, nested classes)."""
    source = index.module_source(module)
    info = index.module(module)
    if source is None or info is None or info.error:
        return {}
    lines = source.decode("utf-8", "replace").splitlines()
    found: dict[str, _Def] = {}
    for name, symbol in info.symbols.items():
        text = _source(lines, [symbol.lines])
        qualname = f"{module}.{name}"
        if isinstance(symbol, ReleaseClass):
            found[qualname] = _Def("class", module, name, None, text)
            found.update(_members(lines, symbol, qualname))
        elif isinstance(symbol, FunctionInfo):
            found[qualname] = _Def("function", module, name, None, text, symbol)
        elif isinstance(symbol, Import):
            if symbol.target.startswith("sglang."):  # a re-export of sglang's own; stdlib and torch are no API
                found[qualname] = _Def("import", module, name, None, text)
        else:
            found[qualname] = _Def("variable", module, name, None, text)
    return found


def _members(lines: list[str], cls: ReleaseClass, qualname: str) -> dict[str, _Def]:
    """The members of ``cls`` (and of its nested classes), by dotted name under ``qualname``."""
    found: dict[str, _Def] = {}
    owner = cls.name.rpartition(".")[2]
    for name, kind in cls.members.items():
        method = cls.methods.get(name) if kind == "method" else None
        found[f"{qualname}.{name}"] = _Def("member", cls.module, name, owner, _source(lines, cls.member_lines[name]),
                                           method)
        if kind == "class":
            found.update(_members(lines, cls.nested[name], f"{qualname}.{name}"))
    return found


@record
class _Caller(NamedTuple):
    """A function of the old tree that mentions :data:`MENTION`: what it refers to."""

    label: str  # module:line:name
    module: str
    names: set[str]
    attributes: set[str]
    keywords: set[tuple[str, str]]  # (callee's last name, keyword)
    bases: set[str]  # last names of the enclosing class's bases and the class itself


class _Callers:
    """Who refers to a removed name, among the old tree's functions that mention
    :data:`MENTION`. A reference counts only where it can be the removed thing: in its own
    module, or in a module that imports the name (for a member: its class) from there, or
    (members) in a subclass."""

    def __init__(self, index: SglangIndex, under: str = "sglang.srt") -> None:
        self._index = index
        self._under = under
        self._callers: list[_Caller] | None = None
        #: (defining module, name) -> modules that import it from there
        self._importers: dict[tuple[str, str], set[str]] = {}

    def _build(self) -> list[_Caller]:
        callers: list[_Caller] = []
        pattern = re.compile(MENTION.pattern.encode(), re.IGNORECASE)
        # An import from a compared module spells its last name (or its package's, relatively).
        spelled = {p.rstrip(".").rpartition(".")[2] for p in SCOPE}
        spelled.update(m.rpartition(".")[2] for m in self._index.module_names() if in_scope(m))
        imports = re.compile(rb"\b(" + b"|".join(re.escape(t.encode()) for t in sorted(spelled)) + rb")\b")
        for module, source in self._index.sources_under(self._under):
            mentions = pattern.search(source) is not None
            if not mentions and not imports.search(source):
                continue
            try:
                tree = ast.parse(source)
            except (SyntaxError, ValueError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom):
                    base = resolve_relative(node.module, node.level, module, self._index.is_package(module))
                    for alias in node.names:
                        self._importers.setdefault((base or "", alias.name), set()).add(module)
            if not mentions:
                continue
            lines = source.decode("utf-8", "replace").splitlines()
            for owner in ast.walk(tree):
                if not isinstance(owner, (ast.Module, ast.ClassDef)):
                    continue
                bases = {owner.name, *(n.rpartition(".")[2] for n in map(dotted_name, owner.bases) if n)} \
                    if isinstance(owner, ast.ClassDef) else set()
                for function in owner.body:
                    if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        if MENTION.search(_source(lines, [lines_of(function)])):
                            callers.append(_facts(module, function, bases))
        return callers

    def mentioning(self, module: str, name: str, owner: str | None = None, keyword: str | None = None,
                   own_module: bool = True) -> str | None:
        """The first mentioning function that refers to ``module.name`` (``owner``: the
        member ``name`` of that class of ``module``; ``keyword``: passes ``keyword=`` to a
        call of it), else None."""
        if self._callers is None:
            self._callers = self._build()
        imported = self._importers.get((module, owner or name), set())
        for caller in self._callers:
            here = own_module and caller.module == module
            if not here and caller.module not in imported and not (owner and owner in caller.bases):
                continue
            if keyword is not None:
                hit = (name, keyword) in caller.keywords
            elif owner is not None:
                hit = name in caller.attributes or (name in caller.names and owner in caller.bases)
            else:
                hit = name in caller.names or name in caller.attributes
            if hit:
                return caller.label
        return None


def _facts(module: str, function: ast.FunctionDef | ast.AsyncFunctionDef, bases: set[str]) -> _Caller:
    names: set[str] = set()
    attributes: set[str] = set()
    keywords: set[tuple[str, str]] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            attributes.add(node.attr)
        elif isinstance(node, ast.Call):
            callee = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
            keywords.update((callee, k.arg) for k in node.keywords if callee and k.arg)
    return _Caller(f"{module}:{function.lineno}:{function.name}", module, names, attributes, keywords, bases)


def removals(old: SglangIndex, new: SglangIndex, renames: Mapping[str, str] | None = None) -> list[Removal]:
    """Every in-scope removal or change from ``old`` to ``new``, sorted by name.

    ``renames`` (old dotted name -> new, for modules and classes a migration renames, such
    as the catalog's): the contents of a renamed module or class are compared with its
    replacement's, so a method the V1 class has and the V2 class lacks is a removal of its
    own. The contents of a thing removed without a rename go with it (one item)."""
    renames = dict(renames or {})
    callers = _Callers(old)
    found: list[Removal] = []
    new_definitions: dict[str, dict[str, _Def]] = {}

    def evidence(definition: _Def, qualname: str, keyword: str | None = None) -> str | None:
        own = definition.kind != "import"
        # A name inside a DFLASH module or class is DFLASH's (a removed import is the import line's).
        if MENTION.search(definition.text) or (own and MENTION.search(qualname)):
            return "definition"
        # A removed import matters only as a re-export: a use in another module that imports it from here.
        return callers.mentioning(definition.module, definition.name, definition.owner, keyword, own_module=own)

    for module in sorted(m for m in old.module_names() if in_scope(m)):
        target_module = module if new.has_module(module) else renames.get(module)
        if not new.has_module(module):
            source = old.module_source(module) or b""
            if MENTION.search(module) or MENTION.search(source.decode("utf-8", "replace")):
                found.append(Removal(module, "module", "definition"))
        if target_module is None:
            continue
        gone: list[str] = []  # removed without a rename: their contents go with them
        for name, definition in _definitions(old, module).items():
            if any(name.startswith(prefix + ".") for prefix in gone):
                continue
            renamed = _renamed(name, renames)
            if not new.resolve(renamed).found:
                if (why := evidence(definition, name)) is not None:
                    found.append(Removal(name, definition.kind, why))
                if renamed == name or name in renames:
                    gone.append(name)
                continue
            new_module = target_module if renamed.startswith(target_module + ".") else renamed.rpartition(".")[0]
            if new_module not in new_definitions:
                new_definitions[new_module] = _definitions(new, new_module)
            current = new_definitions[new_module].get(renamed)
            if definition.function is None or current is None or current.function is None:
                continue
            old_params, new_params = definition.function.all_params, current.function.all_params
            for param in old_params:
                if param not in new_params and param not in ("self", "cls"):
                    if (why := evidence(definition, name, param)) is not None:
                        found.append(Removal(f"{name}({param})", "parameter", why))
            for param in new_params:
                if param not in old_params and param not in current.function.optional:
                    if (why := evidence(definition, name)) is not None:
                        found.append(Removal(f"{name}({param})", "required-parameter", why))
    return sorted(found)


def _renamed(name: str, renames: Mapping[str, str]) -> str:
    """``name`` with its longest renamed prefix replaced (``dflash_worker.DFlashWorker.run``
    -> ``dflash_worker_v2.DFlashWorkerV2.run``)."""
    cut = len(name)
    while cut > 0:
        prefix = name[:cut]
        if prefix in renames:
            return renames[prefix] + name[cut:]
        cut = name.rfind(".", 0, cut)
    return name


def catalog_renames(target: str) -> dict[str, str]:
    """The catalog's module and class renames for ``target`` (what the codemod writes)."""
    found: dict[str, str] = {}
    for entry in catalog.entries_of_kind("module", "class", "function"):
        new = entry.replacement_for(target)
        if new is not None and entry.fires_for(target):
            found[entry.old] = new
    return found


def main(argv: list[str]) -> int:
    if argv[:1] == ["--surface"]:  # the DFLASH surface's changes between two releases (issue 44)
        old_version, new_version = argv[1:3]
        for change in release_changes(old_version, new_version):
            print(f"{change.kind:20} {change.name}")
        return 0
    old_version, new_version = argv if len(argv) == 2 else ("0.5.13", "0.5.14")
    old, new = SglangIndex.for_version(old_version), SglangIndex.for_version(new_version)
    for removal in removals(old, new, catalog_renames(new_version)):
        print(f"{removal.kind:20} {removal.name}  [{removal.evidence}]")
    return 0



# ---- the DFLASH surface of one release, and its change from one release to the next --------


@record
class SurfaceRule(NamedTuple):
    """What belongs to the DFLASH surface a fork can touch (issue 44). Every field says why
    in :data:`SURFACE_REASONS`. The rule is narrow on purpose: the speculative package holds
    EAGLE, NGRAM and other algorithms, whose changes are not this tool's to migrate."""

    module_word: str  # a module whose dotted path holds it, and every public name in it
    name_word: str  # a public name holding it (any case) in the packages below
    name_packages: tuple[str, ...]  # the speculative and kernel packages
    class_prefix: str  # every public member of these classes, inherited ones included
    server_args: str  # its fields holding ``name_word``, and the command-line flags holding it
    flag_modules: tuple[str, ...]  # where the flags are declared
    algorithm_enum: str  # every member
    env_class: str  # entries holding one of ``env_words``
    env_words: tuple[str, ...]  # also every string constant naming such a variable, anywhere


SURFACE = SurfaceRule(
    module_word="dflash",
    name_word="dflash",
    name_packages=("sglang.srt.speculative.", "sglang.kernels.", "sglang.jit_kernel."),
    class_prefix="DFlash",
    server_args="sglang.srt.server_args.ServerArgs",
    flag_modules=("sglang.srt.server_args", "sglang.srt.arg_groups."),
    algorithm_enum="sglang.srt.speculative.spec_info.SpeculativeAlgorithm",
    env_class="sglang.srt.environ.Envs",
    env_words=("DFLASH", "SPEC_V2"),
)
SURFACE_REASONS: dict[str, str] = {
    "module_word": "a DFLASH module: a fork imports from it by path",
    "name_word": "a DFLASH helper or kernel outside the DFLASH modules (`spec_info.SpecInputType.DFLASH_VERIFY`)",
    "class_prefix": "a fork subclasses, constructs or calls the DFLASH worker and input classes; a member their "
                    "bases drop is gone from them too",
    "server_args": "the DFLASH settings: a launch script passes the flag, a fork reads the field",
    "algorithm_enum": "a fork compares or builds the algorithm (`SpeculativeAlgorithm.DFLASH`)",
    "env_class": "the DFLASH and spec-v2 switches a deployment sets",
    "private": "private (`_`) names are out, except those the catalog already names: a fork that overrides "
               "them is this tool's business",
    "imports": "a name a module imports counts only where it holds `name_word` (`scheduler.validate_dflash_request`):"
               " a module's other imports are its own use, not its API",
}
#: Wheels of a ``.postN`` release that the catalog treats as its base release (checked by a test).
POST_RELEASES: tuple[str, ...] = ("0.5.12.post1", "0.5.13.post1", "0.5.15.post1")

_ENV_CONSTANT = re.compile(rb"""["'](SGLANG_[A-Z0-9_]*)["']""")
_FLAG_CONSTANT = re.compile(rb"""["'](--[a-z0-9-]+)["']""")


def _signature(function: FunctionInfo) -> tuple[str, ...]:
    """Parameters as text: ``x``, ``x=`` (has a default), ``*x`` (keyword-only), ``*x=``."""
    positional = tuple(p + ("=" if p in function.optional else "") for p in function.params if p not in ("self", "cls"))
    return positional + tuple("*" + p + ("=" if p in function.optional else "") for p in function.kwonly)


def _public(name: str, private_ok: frozenset[str], qualname: str) -> bool:
    return not name.startswith("_") or name == "__init__" or qualname in private_ok


def surface(index: SglangIndex, private_ok: frozenset[str] = frozenset()) -> dict[str, tuple[str, ...]]:
    """The DFLASH surface of one release (:data:`SURFACE`): dotted name -> ``(kind, *parameters)``.

    Kinds: module, class, function, variable, import, member, method (parameters follow, see
    :func:`_signature`), field (a ``ServerArgs`` field), flag (``--x``), env (a variable's
    name). ``private_ok``: private names that count (those the catalog names)."""
    rule = SURFACE
    found: dict[str, tuple[str, ...]] = {}

    def add_class(qualname: str, cls: ReleaseClass, only_word: bool) -> None:
        for klass in index.mro(cls, static=True)[0]:
            for name, kind in klass.members.items():
                member = f"{qualname}.{name}"
                if member in found or not _public(name, private_ok, member):
                    continue
                if only_word and rule.name_word not in name.lower():
                    continue
                method = klass.methods.get(name) if kind == "method" else None
                found[member] = ("method", *_signature(method)) if method else ("member",)

    def add_module(module: str, only_word: bool) -> None:
        info = index.module(module)
        if info is None:
            return
        if not only_word:
            found[module] = ("module",)
        for name, symbol in info.symbols.items():
            qualname = f"{module}.{name}"
            holds = rule.name_word in name.lower()
            if not _public(name, private_ok, qualname):
                continue
            if isinstance(symbol, Import):
                if holds and symbol.target.startswith("sglang."):
                    found[qualname] = ("import",)
                continue
            if isinstance(symbol, ReleaseClass):
                if holds or not only_word:
                    found[qualname] = ("class",)
                add_class(qualname, symbol, only_word and not name.startswith(rule.class_prefix))
            elif holds or not only_word:
                found[qualname] = ("function", *_signature(symbol)) if isinstance(symbol, FunctionInfo) else ("variable",)

    for module in sorted(index.module_names()):
        if rule.module_word in module.lower():
            add_module(module, only_word=False)
        elif any(module.startswith(p) for p in rule.name_packages):
            source = index.module_source(module)
            if source is not None and rule.name_word.encode() in source.lower():
                add_module(module, only_word=True)
    enum = index.resolve_class(rule.algorithm_enum)
    if enum is not None:
        add_class(rule.algorithm_enum, enum, only_word=False)
    envs = index.resolve_class(rule.env_class)
    if envs is not None:
        for name in envs.members:
            if any(word in name for word in rule.env_words):
                found[f"{rule.env_class}.{name}"] = ("member",)
    if index.resolve_class(rule.server_args) is not None:
        for name in index.server_arg_fields():
            if rule.name_word in name.lower():
                found[f"{rule.server_args}.{name}"] = ("field",)
                found["--" + name.replace("_", "-")] = ("flag",)  # every field is a flag of the same name
    words = tuple(w.encode() for w in rule.env_words)
    for module, source in index.sources_under("sglang"):
        if any(w in source for w in words):
            for match in _ENV_CONSTANT.finditer(source):
                if any(w in match.group(1) for w in words):
                    found[match.group(1).decode()] = ("env",)
        if (module in rule.flag_modules or module.startswith(rule.flag_modules[-1])) and b"dflash" in source:
            for match in _FLAG_CONSTANT.finditer(source):
                if b"dflash" in match.group(1):
                    found[match.group(1).decode()] = ("flag",)
    return found


@record
class Change(NamedTuple):
    """One change of the surface from ``old`` to ``new`` (the next release): ``name`` (a
    parameter is ``callable(param)``) is gone, or the parameter ``kind`` says how it changed
    (``parameter``: gone or renamed, ``required-parameter``: new without a default,
    ``keyword-only``: no longer positional)."""

    name: str
    kind: str
    old: str
    new: str


def surface_changes(old: str, new: str, old_surface: Mapping[str, tuple[str, ...]],
                    new_surface: Mapping[str, tuple[str, ...]], new_index: SglangIndex | None = None,
                    renames: Mapping[str, str] | None = None) -> list[Change]:
    """What of ``old_surface`` is gone or changed in ``new_surface`` (``renames``: old dotted
    name -> new, whose members are compared with the new one's). A name that only left the
    surface (``new_index`` still resolves it) is no change; under a module or class that is
    gone only the module or class is reported."""
    renames = dict(renames or {})
    changes: list[Change] = []
    gone: list[str] = []
    for name in sorted(old_surface):
        if any(name.startswith(prefix + ".") for prefix in gone):
            continue
        facts = old_surface[name]
        current_name = _renamed(name, renames)
        current = new_surface.get(current_name)
        if current is None:
            if facts[0] in ("flag", "env") or new_index is None or current_name.startswith("-") \
                    or not new_index.resolve(current_name).found:
                changes.append(Change(name, facts[0], old, new))
                if current_name == name or name in renames:
                    gone.append(name)
            continue
        if facts[0] not in ("function", "method") or current[0] not in ("function", "method"):
            continue
        before = {p.strip("*=").lstrip("*"): p for p in facts[1:]}
        after = {p.strip("*=").lstrip("*"): p for p in current[1:]}
        for param, spelled in before.items():
            if param not in after:
                changes.append(Change(f"{name}({param})", "parameter", old, new))
            elif after[param].startswith("*") and not spelled.startswith("*"):
                changes.append(Change(f"{name}({param})", "keyword-only", old, new))
        for param, spelled in after.items():
            if param not in before and not spelled.endswith("="):
                changes.append(Change(f"{name}({param})", "required-parameter", old, new))
    return changes


@cache
def release_index(version: str) -> SglangIndex:
    """The index of ``sglang==version``'s wheel, one per process (the wheel is cached on disk)."""
    return SglangIndex.for_version(version)


@cache
def release_surface(version: str) -> dict[str, tuple[str, ...]]:
    """:func:`surface` of ``sglang==version``, read once per process; the private names that
    count are those the catalog names."""
    private = frozenset(name for name in catalog.by_name()
                        if any(part.startswith("_") and part != "__init__" for part in name.split(".")))
    return surface(release_index(version), private)


def release_changes(old: str, new: str) -> list[Change]:
    """The DFLASH surface's changes from ``sglang==old`` to ``sglang==new`` (the catalog's
    module and class renames for ``new`` applied)."""
    return surface_changes(old, new, release_surface(old), release_surface(new), release_index(new),
                           catalog_renames(new))


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
