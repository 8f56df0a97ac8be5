"""A static, lazily built index of one sglang source tree: what names exist where.

``verify`` and the catalog truth test ask questions such as "does
``sglang.srt.speculative.dflash_info.DFlashVerifyInput.prepare_for_verify`` exist in
0.5.14, and which parameters does it take?" without importing sglang (which needs a
GPU stack) and without importing anything from the tree. The tree is read with the
stdlib ``ast`` module; a module is parsed only when a question reaches it, so checking
a handful of names in a 4,700-file wheel parses a few dozen files.

Sources: a folder that holds the ``sglang`` package (an unpacked wheel, a checkout's
``python/`` folder, an installed site-packages), the ``sglang`` package folder itself,
or a wheel file read straight from the zip archive (nothing is unpacked).

What counts as "exists" is what an ``import``/attribute access would find at runtime:
module-level definitions and assignments (also inside ``if``/``try``/``with``, except
``if TYPE_CHECKING:`` bodies), names a module imports (``from x import y`` in ``m`` makes
``m.y`` resolve to ``x.y``), star imports, submodules, and for classes: methods,
properties, class-level assignments and annotations (dataclass fields), ``self.x = ...``
assignments in any method, nested classes, and everything inherited from base classes
inside the tree. Anything the tree cannot answer statically (a base class from torch, a
module-level ``__getattr__``, a class's ``__getattr__`` for its instances (never for the
class object: ``Cls.missing`` is missing), an attribute of an untyped value, a compiled
extension module) resolves as *dynamic*: neither found nor missing, so it is never
reported.
"""

from __future__ import annotations

import ast
import importlib.util
import re
import zipfile
from pathlib import Path
from typing import Iterable, Iterator, Literal, Union

from migrator.base.imports import resolve_relative
from migrator.base.records import NamedTuple, record
from migrator.releases import wheels

ROOT_PACKAGE = "sglang"

#: External base classes whose members are known well enough to treat a subclass as
#: closed (a missing member really is missing). Everything else external is open.
_CLOSED_EXTERNAL_BASES = frozenset({
    "builtins.object", "abc.ABC", "typing.Generic", "typing.Protocol", "typing.NamedTuple",
    "typing_extensions.Protocol", "enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag",
    "enum.IntFlag", "builtins.Exception", "builtins.ValueError", "builtins.RuntimeError",
})
#: Members every closed class has (object/Enum basics) even though the tree does not define them.
_IMPLICIT_MEMBERS = frozenset({
    "__init__", "__new__", "__repr__", "__str__", "__eq__", "__ne__", "__hash__", "__class__",
    "__dict__", "__doc__", "__module__", "__init_subclass__", "__setattr__", "__getattribute__",
    "__delattr__", "__dir__", "__reduce__", "__reduce_ex__", "__sizeof__", "__format__",
    "__subclasshook__", "__post_init__", "__dataclass_fields__", "__annotations__", "__name__",
    "__qualname__", "__slots__", "__weakref__", "__lt__", "__le__", "__gt__", "__ge__",
    "name", "value", "_value_", "_name_", "__members__",  # Enum
    "args", "with_traceback",  # exceptions
})

_TRANSPARENT_CLASS_DECORATORS = frozenset({
    "dataclass", "dataclasses.dataclass", "functools.total_ordering", "total_ordering", "final",
    "typing.final", "unique", "enum.unique", "runtime_checkable", "typing.runtime_checkable",
})
#: Attributes every module object has at runtime.
_MODULE_IMPLICIT = frozenset({
    "__file__", "__name__", "__path__", "__spec__", "__doc__", "__loader__", "__package__",
    "__dict__", "__all__", "__builtins__", "__cached__",
})


# ---- parsed facts ------------------------------------------------------------------


@record
class FunctionInfo(NamedTuple):
    """A ``def``: parameter names in order (``self``/``cls`` included), those with a default,
    varargs flags."""

    name: str
    params: tuple[str, ...]
    kwonly: tuple[str, ...]
    vararg: bool
    kwarg: bool
    lines: tuple[int, int]
    decorators: tuple[str, ...] = ()
    optional: frozenset[str] = frozenset()

    @property
    def all_params(self) -> tuple[str, ...]:
        return self.params + self.kwonly

    @classmethod
    def of(cls, node: ast.FunctionDef | ast.AsyncFunctionDef) -> "FunctionInfo":
        a = node.args
        positional = (*a.posonlyargs, *a.args)
        defaulted = positional[len(positional) - len(a.defaults):]
        return cls(
            name=node.name,
            params=tuple(p.arg for p in positional),
            kwonly=tuple(p.arg for p in a.kwonlyargs),
            vararg=a.vararg is not None,
            kwarg=a.kwarg is not None,
            lines=lines_of(node),
            decorators=tuple(d for d in (dotted_name(_strip_call(x)) for x in node.decorator_list) if d),
            optional=frozenset(p.arg for p in defaulted).union(
                p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None),
        )


MemberKind = Literal["method", "property", "field", "attribute", "class"]


class ReleaseClass:
    """A class of the release tree, filled in as ``parse_class`` reads its body."""

    __slots__ = ("module", "name", "lines", "bases", "members", "methods", "nested", "dynamic", "getattr_hook",
                 "fields", "field_sources", "member_lines")

    def __init__(self, module: str, name: str, lines: tuple[int, int], bases: tuple[str, ...]) -> None:
        self.module = module
        self.name = name
        self.lines = lines
        #: Base class expressions as dotted names, resolved lazily in ``module``'s namespace.
        self.bases = bases
        self.members: dict[str, MemberKind] = {}
        self.methods: dict[str, FunctionInfo] = {}
        self.nested: dict[str, ReleaseClass] = {}
        #: A decorator that may replace the class: any attribute may resolve, on the class and its instances.
        self.dynamic = False
        #: Defines ``__getattr__``: any attribute of an *instance* may resolve at runtime (a class
        #: attribute lookup never calls it).
        self.getattr_hook = False
        #: Class-level annotated fields in order (dataclass/msgspec fields).
        self.fields: tuple[str, ...] = ()
        #: Dotted names (in ``module``) of the classes whose fields the module assembles into this
        #: one (``ServerArgs = msgspec.defstruct(...)`` from 0.5.20): their fields are its fields.
        self.field_sources: tuple[str, ...] = ()
        #: Member -> the line ranges of the statements that bind it (its definition's source).
        self.member_lines: dict[str, list[tuple[int, int]]] = {}

    @property
    def qualname(self) -> str:
        return f"{self.module}.{self.name}"

    def bind(self, name: str, kind: MemberKind, statement: ast.AST, replace: bool = False) -> None:
        """Record ``statement`` as a binding of member ``name``, of ``kind`` if ``replace`` or it is new."""
        if replace or name not in self.members:
            self.members[name] = kind
        self.member_lines.setdefault(name, []).append(lines_of(statement))


@record
class Var(NamedTuple):
    """A module-level assignment; ``value`` is the dotted callee/alias expression when the
    value is ``Name``/``Attribute`` (alias) or a call of one (instance of a class)."""

    lines: tuple[int, int]
    value: str | None = None
    is_call: bool = False


@record
class Import(NamedTuple):
    """``from x import y`` / ``import x.y as z``: the absolute dotted target."""

    target: str
    lines: tuple[int, int]


#: A module-level name; its ``lines`` are the first and last line of the statement that binds it.
Symbol = Union[ReleaseClass, FunctionInfo, Var, Import]


class ModuleInfo:
    """A module of the release tree, filled in as ``parse_module`` reads it."""

    __slots__ = ("name", "is_package", "symbols", "star_imports", "dynamic", "error")

    def __init__(self, name: str, is_package: bool, dynamic: bool = False) -> None:
        self.name = name
        self.is_package = is_package
        self.symbols: dict[str, Symbol] = {}
        self.star_imports: list[str] = []
        #: Module-level ``__getattr__`` or a compiled extension: any attribute may exist.
        self.dynamic = dynamic
        self.error: str | None = None


# ---- resolution results ------------------------------------------------------------


@record
class Ref(NamedTuple):
    """What a dotted name resolved to.

    kind: ``module`` (qualname), ``class`` (info), ``function`` (info; ``owner`` set for
    methods), ``member`` (a non-method class member; ``owner`` set),
    ``value`` (a module-level variable; ``instance_of`` when its class is known),
    ``external`` (a name outside the tree; ``qualname`` is its dotted path), ``dynamic``.
    """

    kind: Literal["module", "class", "function", "member", "value", "external", "dynamic"]
    qualname: str
    cls: ReleaseClass | None = None
    func: FunctionInfo | None = None
    owner: ReleaseClass | None = None
    instance_of: ReleaseClass | None = None


@record
class Resolution(NamedTuple):
    """``status`` is ``found``, ``missing`` (``missing_at`` indexes the first part that does
    not exist, ``parent`` is what it was looked up on) or ``dynamic``."""

    name: str
    status: Literal["found", "missing", "dynamic"]
    ref: Ref | None = None
    missing_at: int | None = None
    parent: Ref | None = None

    @property
    def found(self) -> bool:
        return self.status == "found"

    @property
    def missing(self) -> bool:
        return self.status == "missing"

    @property
    def missing_name(self) -> str | None:
        if self.missing_at is None:
            return None
        return ".".join(self.name.split(".")[: self.missing_at + 1])


# ---- helpers -----------------------------------------------------------------------


def _strip_call(node: ast.expr) -> ast.expr:
    return node.func if isinstance(node, ast.Call) else node


def dotted_name(node: ast.AST | None) -> str | None:
    """``a.b.c`` for Name/Attribute chains (subscripts stripped: ``G[T]`` -> ``G``)."""
    if isinstance(node, ast.Subscript):
        node = node.value
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def lines_of(node: ast.AST) -> tuple[int, int]:
    """The first and last line of a statement or expression."""
    return node.lineno, node.end_lineno or node.lineno  # type: ignore[attr-defined]


def _is_type_checking(test: ast.expr) -> bool:
    name = dotted_name(test)
    return name in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def _assign_targets(node: ast.stmt) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        return [node.target]
    return []


def _flatten_targets(targets: Iterable[ast.expr]) -> Iterator[ast.expr]:
    for target in targets:
        if isinstance(target, (ast.Tuple, ast.List)):
            yield from _flatten_targets(target.elts)
        elif isinstance(target, ast.Starred):
            yield from _flatten_targets([target.value])
        else:
            yield target


def runtime_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements that run at import time of a block, descending into if/try/with
    (but not into ``if TYPE_CHECKING:`` bodies, which never run)."""
    for node in body:
        if isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                yield from runtime_statements(node.body)
            yield from runtime_statements(node.orelse)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            yield from runtime_statements(node.body)  # type: ignore[attr-defined]
            for handler in node.handlers:  # type: ignore[attr-defined]
                yield from runtime_statements(handler.body)
            yield from runtime_statements(node.orelse)  # type: ignore[attr-defined]
            yield from runtime_statements(node.finalbody)  # type: ignore[attr-defined]
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            yield from runtime_statements(node.body)
        else:
            yield node


def parse_class(node: ast.ClassDef, module: str, prefix: str = "") -> ReleaseClass:
    """The class ``node`` of ``module`` (``prefix``: the enclosing classes' names, dotted)."""
    info = ReleaseClass(
        module=module,
        name=prefix + node.name,
        lines=lines_of(node),
        bases=tuple(b for b in (dotted_name(x) for x in node.bases) if b),
    )
    # A class decorator other than the known transparent ones may replace the class
    # (``@ray.remote`` adds ``.options``): treat its attributes as dynamic.
    decorators = {dotted_name(_strip_call(d)) for d in node.decorator_list}
    if decorators - _TRANSPARENT_CLASS_DECORATORS:
        info.dynamic = True
    fields: list[str] = []
    for stmt in runtime_statements(node.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            decorators = {dotted_name(_strip_call(d)) for d in stmt.decorator_list}
            is_prop = bool(decorators & {"property", "functools.cached_property", "cached_property"}) or any(
                d and (d.endswith(".setter") or d.endswith(".getter") or d.endswith(".deleter")) for d in decorators
            )
            info.bind(stmt.name, "property" if is_prop else "method", stmt, replace=not is_prop)
            if not is_prop:
                info.methods[stmt.name] = FunctionInfo.of(stmt)
            if stmt.name == "__getattr__":
                info.getattr_hook = True
            _collect_self_attributes(stmt, info)
        elif isinstance(stmt, ast.ClassDef):
            nested = parse_class(stmt, module, prefix=f"{info.name}.")
            info.nested[stmt.name] = nested
            info.bind(stmt.name, "class", stmt, replace=True)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            info.bind(stmt.target.id, "field", stmt)
            fields.append(stmt.target.id)
        else:
            for target in _flatten_targets(_assign_targets(stmt)):
                if isinstance(target, ast.Name):
                    info.bind(target.id, "attribute", stmt)
    info.fields = tuple(fields)
    return info


def _collect_self_attributes(func: ast.FunctionDef | ast.AsyncFunctionDef, info: ReleaseClass) -> None:
    """``self.x = ...`` (or ``cls.x`` in classmethods) anywhere in a method body."""
    args = [*func.args.posonlyargs, *func.args.args]
    if not args:
        return
    receiver = args[0].arg
    for node in ast.walk(func):
        targets: list[ast.expr] = []
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = _assign_targets(node)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            targets = [node.target]
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            targets = [item.optional_vars for item in node.items if item.optional_vars is not None]
        elif isinstance(node, ast.NamedExpr):
            targets = [node.target]
        elif isinstance(node, ast.Call) and dotted_name(node.func) == "setattr" and len(node.args) >= 2:
            obj, attr = node.args[0], node.args[1]
            if isinstance(obj, ast.Name) and obj.id == receiver and isinstance(attr, ast.Constant) and isinstance(attr.value, str):
                info.bind(attr.value, "attribute", node)
            continue
        for target in _flatten_targets(targets):
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == receiver:
                info.bind(target.attr, "attribute", node)


def parse_module(name: str, source: bytes | str, is_package: bool) -> ModuleInfo:
    info = ModuleInfo(name=name, is_package=is_package)
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError) as exc:
        info.error = f"{type(exc).__name__}: {exc}"
        info.dynamic = True
        return info
    for stmt in runtime_statements(tree.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            info.symbols[stmt.name] = FunctionInfo.of(stmt)
            if stmt.name == "__getattr__":
                info.dynamic = True
        elif isinstance(stmt, ast.ClassDef):
            info.symbols[stmt.name] = parse_class(stmt, name)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    info.symbols[alias.asname] = Import(alias.name, lines_of(stmt))
                else:
                    top = alias.name.split(".")[0]
                    info.symbols[top] = Import(top, lines_of(stmt))
        elif isinstance(stmt, ast.ImportFrom):
            base = resolve_relative(stmt.module, stmt.level, name, is_package)
            if base is None:
                continue
            for alias in stmt.names:
                if alias.name == "*":
                    info.star_imports.append(base)
                else:
                    info.symbols[alias.asname or alias.name] = Import(f"{base}.{alias.name}", lines_of(stmt))
        else:
            value = getattr(stmt, "value", None)
            expr = dotted_name(_strip_call(value)) if value is not None else None
            var = Var(lines_of(stmt), expr, isinstance(value, ast.Call))
            for target in _flatten_targets(_assign_targets(stmt)):
                if isinstance(target, ast.Name):
                    existing = info.symbols.get(target.id)
                    # A later `X = None` fallback must not hide an earlier class/def/import.
                    if existing is None or isinstance(existing, Var):
                        info.symbols[target.id] = var
    if b"defstruct" in (source if isinstance(source, bytes) else source.encode()):
        _assembled_classes(list(runtime_statements(tree.body)), info)
    return info


def _assembled_classes(statements: list[ast.stmt], info: ModuleInfo) -> None:
    """Find the classes a module assembles with ``msgspec.defstruct`` from other classes' fields.

    sglang 0.5.20 builds ``ServerArgs`` so: ``_annotations, ... = collect_input_fields(_INPUT_NAMESPACES)``,
    ``ServerArgs.__annotations__ = {**_annotations, **ServerArgs.__annotations__}``, then
    ``ServerArgs = msgspec.defstruct("ServerArgs", ...)``. Every field of the classes listed in
    ``_INPUT_NAMESPACES`` is then a field of ``ServerArgs``; without this, ``verify`` reported
    ``tp_size`` missing on 0.5.20 and later. The shape is read, not the names: a list literal
    (or a name bound to one) given to the call whose results are spread into ``X.__annotations__``,
    and ``X`` rebound by a ``*.defstruct(...)`` call."""
    lists: dict[str, list[str]] = {}  # name -> the dotted elements of the list literal bound to it
    spread_from: dict[str, list[str]] = {}  # name bound from a call -> the classes listed in its arguments
    annotated: dict[str, list[str]] = {}  # class -> names spread into its __annotations__
    rebuilt: set[str] = set()  # classes rebound by a defstruct call

    def listed(node: ast.expr) -> list[str]:
        if isinstance(node, (ast.List, ast.Tuple)):
            return [name for name in map(dotted_name, node.elts) if name]
        return lists.get(node.id, []) if isinstance(node, ast.Name) else []

    for stmt in statements:
        if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
            continue
        target, value = stmt.targets[0], stmt.value
        if isinstance(target, ast.Name) and isinstance(value, (ast.List, ast.Tuple)):
            lists[target.id] = listed(value)
        elif isinstance(value, ast.Call) and isinstance(target, (ast.Name, ast.Tuple)):
            callee = dotted_name(value.func) or ""
            if isinstance(target, ast.Name) and callee.rpartition(".")[2] == "defstruct":
                rebuilt.add(target.id)
                continue
            sources = [name for arg in value.args for name in listed(arg)]
            for name in _flatten_targets([target]):
                if isinstance(name, ast.Name) and sources:
                    spread_from[name.id] = sources
        elif (isinstance(target, ast.Attribute) and target.attr == "__annotations__"
              and isinstance(target.value, ast.Name) and isinstance(value, ast.Dict)):
            annotated.setdefault(target.value.id, []).extend(
                v.id for k, v in zip(value.keys, value.values) if k is None and isinstance(v, ast.Name))
    for name, spreads in annotated.items():
        cls = info.symbols.get(name)
        if isinstance(cls, ReleaseClass) and name in rebuilt:
            cls.field_sources = tuple(dict.fromkeys(s for spread in spreads for s in spread_from.get(spread, ())))


# ---- sources -----------------------------------------------------------------------


class _Source:
    """Maps module qualnames to source text; subclasses read a folder or a zip."""

    #: qualname -> (key to read, is_package); key None = namespace package, "" = compiled.
    modules: dict[str, tuple[str | None, bool]]

    def read(self, key: str) -> bytes:
        raise NotImplementedError

    def _register(self, relpath: str) -> None:
        """Register ``sglang/a/b.py`` (and its parent packages) by relative path."""
        parts = relpath.split("/")
        filename = parts[-1]
        stem, _, ext = filename.partition(".")
        dirs = parts[:-1]
        for i in range(1, len(dirs) + 1):
            self.modules.setdefault(".".join(dirs[:i]), (None, True))
        if ext == "py":
            if stem == "__init__":
                self.modules[".".join(dirs)] = (relpath, True)
            elif stem.isidentifier():
                self.modules[".".join([*dirs, stem])] = (relpath, False)
        elif ext.endswith("so") or ext.endswith("pyd"):
            if stem.isidentifier():
                self.modules.setdefault(".".join([*dirs, stem]), ("", False))


class _FolderSource(_Source):
    def __init__(self, root: Path) -> None:
        self.root = root
        self.modules = {}
        package = root / ROOT_PACKAGE
        for path in sorted(package.rglob("*")):
            if path.is_file() and (path.suffix in (".py", ".so", ".pyd")):
                rel = path.relative_to(root).as_posix()
                if "__pycache__" not in rel:
                    self._register(rel)

    def read(self, key: str) -> bytes:
        return (self.root / key).read_bytes()


class _ZipSource(_Source):
    def __init__(self, wheel: Path) -> None:
        self.archive = zipfile.ZipFile(wheel)
        self.modules = {}
        for name in self.archive.namelist():
            if name.startswith(f"{ROOT_PACKAGE}/") and not name.endswith("/"):
                if name.endswith((".py", ".so", ".pyd")):
                    self._register(name)

    def read(self, key: str) -> bytes:
        return self.archive.read(key)


# ---- the index ---------------------------------------------------------------------


class SglangIndex:
    """Answers "does this dotted sglang name exist here, and what is it?" for one tree."""

    def __init__(self, source: _Source, label: str) -> None:
        self._source = source
        self.label = label
        self._parsed: dict[str, ModuleInfo] = {}

    # construction
    @classmethod
    def from_tree(cls, path: str | Path) -> "SglangIndex":
        """``path`` is the folder holding the ``sglang`` package, or that package itself."""
        path = Path(path).resolve()
        if (path / ROOT_PACKAGE).is_dir():
            root = path
        elif path.name == ROOT_PACKAGE and path.is_dir():
            root = path.parent
        else:
            raise FileNotFoundError(f"no `{ROOT_PACKAGE}` package in {path}")
        return cls(_FolderSource(root), str(root / ROOT_PACKAGE))

    @classmethod
    def from_wheel(cls, wheel: str | Path) -> "SglangIndex":
        return cls(_ZipSource(Path(wheel)), Path(wheel).name)

    @classmethod
    def for_version(cls, version: str) -> "SglangIndex":
        """The released wheel of ``sglang==version`` from PyPI (downloaded once, cached)."""
        return cls.from_wheel(wheels.download_wheel(version))

    @classmethod
    def cached(cls, version: str) -> "SglangIndex | None":
        """The released wheel of ``sglang==version`` if it is already cached (nothing is
        downloaded), else None; None too where the cached bytes are not the release's or
        cannot be read."""
        try:
            wheel = wheels.cached_wheel(version)
        except wheels.WheelError:
            return None
        if wheel is None:
            return None
        try:
            return cls.from_wheel(wheel)
        except (OSError, ValueError):
            return None

    @classmethod
    def installed(cls) -> "SglangIndex":
        """The sglang importable in this environment, located without importing it."""
        spec = importlib.util.find_spec(ROOT_PACKAGE)
        if spec is None or not spec.submodule_search_locations:
            raise FileNotFoundError("sglang is not installed here; pass --sglang DIR or --target-version X.Y.Z")
        return cls.from_tree(Path(next(iter(spec.submodule_search_locations))))

    # modules
    def has_module(self, qualname: str) -> bool:
        return qualname in self._source.modules

    def module_names(self) -> Iterable[str]:
        return self._source.modules.keys()

    def is_package(self, qualname: str) -> bool:
        entry = self._source.modules.get(qualname)
        return bool(entry and entry[1])

    def module(self, qualname: str) -> ModuleInfo | None:
        if qualname in self._parsed:
            return self._parsed[qualname]
        entry = self._source.modules.get(qualname)
        if entry is None:
            return None
        key, is_package = entry
        if key is None:
            info = ModuleInfo(qualname, True)
        elif key == "":
            info = ModuleInfo(qualname, False, dynamic=True)
        else:
            info = parse_module(qualname, self._source.read(key), is_package)
        self._parsed[qualname] = info
        return info

    def module_source(self, qualname: str) -> bytes | None:
        entry = self._source.modules.get(qualname)
        if not entry or not entry[0]:
            return None
        return self._source.read(entry[0])

    def sources_under(self, package: str) -> Iterator[tuple[str, bytes]]:
        """(module, source) of every module of ``package`` or below it that has a source file, by name."""
        for module in sorted(self.module_names()):
            source = self.module_source(module) if module == package or module.startswith(package + ".") else None
            if source is not None:
                yield module, source

    # resolution
    def resolve(self, dotted: str) -> Resolution:
        """Resolve an absolute dotted name, following re-exports, aliases and inheritance."""
        parts = dotted.split(".")
        if parts[0] != ROOT_PACKAGE:
            return Resolution(dotted, "dynamic", Ref("external", dotted))
        if not self.has_module(ROOT_PACKAGE):
            return Resolution(dotted, "missing", missing_at=0)
        ref = Ref("module", ROOT_PACKAGE)
        return self._walk(dotted, ref, parts, 1, frozenset())

    def _walk(self, dotted: str, ref: Ref, parts: list[str], start: int, seen: frozenset) -> Resolution:
        for i in range(start, len(parts)):
            step = self._attribute(ref, parts[i], seen)
            if step is None:
                return Resolution(dotted, "missing", missing_at=i, parent=ref)
            if step.kind in ("dynamic", "external"):
                return Resolution(dotted, "dynamic", step, parent=ref)
            ref = step
        return Resolution(dotted, "found", ref)

    def _attribute(self, ref: Ref, name: str, seen: frozenset) -> Ref | None:
        """``ref.name`` as a Ref; None when it certainly does not exist."""
        if ref.kind == "module":
            return self._module_attribute(ref.qualname, name, seen)
        if ref.kind == "class" and ref.cls is not None:
            return self.member(ref.cls, name, on_class=True)
        if ref.kind == "value" and ref.instance_of is not None:
            return self.member(ref.instance_of, name)
        return Ref("dynamic", f"{ref.qualname}.{name}")

    def _module_attribute(self, module: str, name: str, seen: frozenset) -> Ref | None:
        key = (module, name)
        if key in seen:
            return Ref("dynamic", f"{module}.{name}")
        seen = seen | {key}
        info = self.module(module)
        if info is None:
            return None
        symbol = info.symbols.get(name)
        if symbol is not None:
            return self._symbol_ref(info, name, symbol, seen)
        if self.has_module(f"{module}.{name}"):
            return Ref("module", f"{module}.{name}")
        for star in info.star_imports:
            if name.startswith("_"):
                break
            if star.split(".")[0] != ROOT_PACKAGE:
                return Ref("dynamic", f"{module}.{name}")
            found = self._module_attribute(star, name, seen) if self.has_module(star) else None
            if found is not None:
                return found
        if info.dynamic or name in _MODULE_IMPLICIT:
            return Ref("dynamic", f"{module}.{name}")
        return None

    def _symbol_ref(self, info: ModuleInfo, name: str, symbol: Symbol, seen: frozenset) -> Ref:
        qualname = f"{info.name}.{name}"
        if isinstance(symbol, ReleaseClass):
            return Ref("class", symbol.qualname, cls=symbol)
        if isinstance(symbol, FunctionInfo):
            return Ref("function", qualname, func=symbol)
        if isinstance(symbol, Import):
            return self._absolute(symbol.target, seen)
        # a variable: an alias of another name, or an instance of a known class
        if symbol.value:
            target = self.resolve_in_module(info.name, symbol.value, seen)
            if target is not None:
                if not symbol.is_call and target.kind in ("class", "function", "module"):
                    return target
                if symbol.is_call and target.kind == "class":
                    return Ref("value", qualname, instance_of=target.cls)
        return Ref("value", qualname)

    def _absolute(self, target: str, seen: frozenset) -> Ref:
        """An imported absolute name; names outside the tree are external."""
        parts = target.split(".")
        if parts[0] != ROOT_PACKAGE:
            return Ref("external", target)
        if self.has_module(target):
            return Ref("module", target)
        res = self._walk(target, Ref("module", ROOT_PACKAGE), parts, 1, seen)
        if res.ref is not None and res.found:
            return res.ref
        # Dynamic, or the import itself is broken in this tree (not our finding).
        return Ref("dynamic", target)

    def resolve_in_module(self, module: str, expr: str, seen: frozenset = frozenset()) -> Ref | None:
        """A dotted expression as written inside ``module`` (its globals, then builtins)."""
        parts = expr.split(".")
        info = self.module(module)
        if info is None:
            return None
        head = parts[0]
        symbol = info.symbols.get(head)
        if symbol is not None:
            ref = self._symbol_ref(info, head, symbol, seen | {(module, head)})
        else:
            star = self._module_attribute(module, head, seen) if info.star_imports else None
            if star is not None:
                ref = star
            else:
                return Ref("external", f"builtins.{expr}")
        if ref.kind == "external":
            return Ref("external", ".".join([ref.qualname, *parts[1:]]))
        res = self._walk(expr, ref, parts, 1, seen)
        return res.ref if res.found else (Ref("dynamic", expr) if res.status == "dynamic" else None)

    # classes
    def base_refs(self, cls: ReleaseClass) -> list[Ref]:
        refs = []
        for base in cls.bases:
            ref = self.resolve_in_module(cls.module, base)
            refs.append(ref if ref is not None else Ref("dynamic", base))
        return refs

    def mro(self, cls: ReleaseClass, *, static: bool = False,
            on_class: bool = False) -> tuple[list[ReleaseClass], bool]:
        """Classes in lookup order inside the tree, and whether the class is closed (every
        ancestor is in the tree or a known stdlib base, and, unless ``static``, none has
        ``__getattr__`` or a decorator that may replace it). ``static`` answers for lookups
        that bypass both: ``super().x`` and "is it really defined on the class". ``on_class``
        answers for an attribute of the class object itself (``Cls.x``): an instance's
        ``__getattr__`` is never called there, a replacing decorator still counts."""
        order: list[ReleaseClass] = []
        closed = True
        stack = [cls]
        seen: set[str] = set()
        while stack:
            current = stack.pop(0)
            if current.qualname in seen:
                continue
            seen.add(current.qualname)
            order.append(current)
            if not static and (current.dynamic or (current.getattr_hook and not on_class)):
                closed = False
            for ref in self.base_refs(current):
                if ref.kind == "class" and ref.cls is not None:
                    stack.append(ref.cls)
                elif ref.kind == "external" and ref.qualname in _CLOSED_EXTERNAL_BASES:
                    continue
                else:
                    closed = False
        return order, closed

    def member(self, cls: ReleaseClass, name: str, *, static: bool = False, on_class: bool = False) -> Ref | None:
        """``cls.name`` (own or inherited); dynamic when an open ancestor could define it
        (``static``: ignoring ``__getattr__``, as ``super()`` lookups do; ``on_class``: the
        attribute of the class object, see :meth:`mro`)."""
        order, closed = self.mro(cls, static=static, on_class=on_class)
        for klass in order:
            kind = klass.members.get(name)
            if kind is None:
                if klass.field_sources and (source := self._assembled_fields(klass).get(name)) is not None:
                    return Ref("member", f"{klass.qualname}.{name}", owner=source)
                continue
            qualname = f"{klass.qualname}.{name}"
            if kind == "method":
                return Ref("function", qualname, func=klass.methods.get(name), owner=klass)
            if kind == "class":
                nested = klass.nested[name]
                return Ref("class", nested.qualname, cls=nested)
            if kind == "attribute" and not name.startswith("_") and self.is_enum(klass):
                return Ref("value", qualname, instance_of=klass)  # an Enum member
            return Ref("member", qualname, owner=klass)
        if name in _IMPLICIT_MEMBERS or not closed:
            return Ref("dynamic", f"{cls.qualname}.{name}")
        return None

    def is_enum(self, cls: ReleaseClass) -> bool:
        order, _ = self.mro(cls, static=True)
        return any(
            ref.kind == "external" and ref.qualname.startswith("enum.")
            for klass in order for ref in self.base_refs(klass)
        )

    def members(self, cls: ReleaseClass) -> set[str]:
        """Every member name defined on the class or its in-tree ancestors."""
        order, _ = self.mro(cls)
        return {name for klass in order for name in klass.members}

    def resolve_class(self, qualname: str) -> ReleaseClass | None:
        res = self.resolve(qualname)
        return res.ref.cls if res.found and res.ref is not None and res.ref.kind == "class" else None

    # whole-tree text questions (env vars, CLI flags)
    def mentions(self, token: str, under: str = ROOT_PACKAGE) -> list[tuple[str, int]]:
        """(module, line) where ``token`` occurs as an exact string constant or an identifier
        (name, attribute, assignment target, keyword) in modules under ``under``."""
        pattern = re.compile(rb"\b" + re.escape(token.encode()) + rb"\b") if token[:1].isalnum() or token[:1] == "_" else None
        raw = token.encode()
        hits: list[tuple[str, int]] = []
        for qualname, data in self.sources_under(under):
            if raw not in data or (pattern is not None and not pattern.search(data)):
                continue
            try:
                tree = ast.parse(data)
            except (SyntaxError, ValueError):
                continue
            for node in ast.walk(tree):
                if (
                    (isinstance(node, ast.Constant) and node.value == token)
                    or (isinstance(node, ast.Name) and node.id == token)
                    or (isinstance(node, ast.Attribute) and node.attr == token)
                    or (isinstance(node, ast.keyword) and node.arg == token)
                ):
                    hits.append((qualname, getattr(node, "lineno", 0)))
        return hits

    def server_arg_fields(self) -> set[str]:
        """Every keyword ``ServerArgs`` accepts.

        Up to 0.5.19 these are the class's own annotated fields. From 0.5.20 the fields
        live in namespace classes (``arg_groups/fields/*``) that ``server_args.py``
        assembles into the record with ``msgspec.defstruct`` (``ReleaseClass.field_sources``);
        their annotated fields count as well.
        """
        cls = self.resolve_class("sglang.srt.server_args.ServerArgs")
        if cls is None:
            return set()
        return {n for n, kind in cls.members.items() if kind == "field"} | set(self._assembled_fields(cls))

    def _assembled_fields(self, cls: ReleaseClass) -> dict[str, ReleaseClass]:
        """field -> the namespace class declaring it, for a class assembled from others' fields."""
        found: dict[str, ReleaseClass] = {}
        for source in cls.field_sources:
            ref = self.resolve_in_module(cls.module, source)
            if ref is not None and ref.kind == "class" and ref.cls is not None:
                for klass in self.mro(ref.cls)[0]:
                    for field in klass.fields:
                        found.setdefault(field, klass)
        return found
