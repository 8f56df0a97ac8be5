"""Check one fork file's ``sglang.*`` references against a target sglang index.

The fork file is read with :mod:`migrator.python.analysis` (the same scope-aware import and
type resolution lint uses); every name is then looked up in a
:class:`~migrator.releases.index.SglangIndex` of the target release. Nothing on either side
is imported.

Checked:

* ``import sglang.a.b`` / ``from sglang.a import b`` (also relative imports inside an
  sglang fork, resolved against the file's own module name);
* attribute chains rooted in imported names (``dflash_info.DFlashVerifyInput.verify``),
  including subclass base expressions;
* attributes and method calls on values whose class is known: ``x = Cls(...)``,
  annotated parameters, ``self``/``super()`` in subclasses of SGLang classes (members the
  subclass defines itself count);
* methods of subclasses of SGLang classes that override a base method which the target
  base no longer has (:data:`OVERRIDE_CODE`).

Not reported: anything the index answers as *dynamic* (open bases such as
``torch.nn.Module``, ``__getattr__``), statements inside version guards
(``try: import ..._v2 except ImportError:``), and assignments to attributes.
"""

from __future__ import annotations

import ast
from pathlib import Path

from migrator import catalog
from migrator.base.model import Finding, Fix, Span
from migrator.base.records import NamedTuple, record
from migrator.python import analysis
from migrator.python.names import MISSING_NAME_ERRORS
from migrator.releases.index import ReleaseClass, SglangIndex, dotted_name, parse_class

#: ``sglang.*`` reference that does not exist in the target release.
UNRESOLVED_CODE = "DFM900"
#: A subclass overrides a method its SGLang base class no longer has (never called).
OVERRIDE_CODE = "DFM901"
#: Verify codes are not catalog entries: they name no removed API, they report whatever
#: the target release lacks. Documented here and in ``dflash-migrate verify --help``.
VERIFY_CODES = {
    UNRESOLVED_CODE: "sglang reference that does not exist in the target release",
    OVERRIDE_CODE: "override of a method the SGLang base class no longer has (silently never called)",
}
_OVERRIDE_DECORATORS = {"override", "typing.override", "typing_extensions.override"}


@record
class Target(NamedTuple):
    """The release checked against; ``version`` (when known) selects catalog hints."""

    index: SglangIndex
    version: str | None
    #: The release the fork was written against, to tell overrides from new methods.
    baseline: SglangIndex | None = None

    @property
    def label(self) -> str:
        return f"sglang {self.version}" if self.version else self.index.label


def _is_sglang(name: str) -> bool:
    return name == "sglang" or name.startswith("sglang.")


class FileChecker:
    def __init__(self, path: str, source: str, tree: ast.Module, target: Target, module_name: str | None = None) -> None:
        self.path = path
        self.target = target
        self.index = target.index
        self.an = analysis.analyze(tree, source, Path(path), module_name, skip_cold_functions=False)
        self.findings: list[Finding] = []
        self._seen: set[tuple[int, int, str]] = set()
        self._optional = self._optional_import_lines()
        #: Fork classes parsed like index classes (members incl. self.x assignments).
        self._fork_classes: dict[str, ReleaseClass] = {
            q: parse_class(info.node, q.rpartition(".")[0]) for q, info in self.an.classes.items()
        }

    # ---- output -----------------------------------------------------------------
    def _span(self, node: ast.AST) -> Span:
        return Span.of(*self.an.span(node))

    def _optional_import_lines(self) -> list[tuple[int, int]]:
        """Line ranges of ``try:`` bodies whose handlers catch import errors: what is
        imported there is optional by design and never reported. Their handlers too where
        every sglang import of the body resolves: no run on this release reaches them (the
        fallback spelling of an older or newer release)."""
        ranges = []
        for node in ast.walk(self.an.tree):
            if isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
                caught = set()
                for handler in node.handlers:  # type: ignore[attr-defined]
                    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
                    caught |= {dotted_name(k).rpartition(".")[2] if k is not None and dotted_name(k) else "*" for k in kinds}
                if caught & {"*", *MISSING_NAME_ERRORS}:
                    body = node.body  # type: ignore[attr-defined]
                    first, last = body[0].lineno, body[-1].end_lineno or body[-1].lineno
                    ranges.append((first, last))
                    if self._body_resolves(first, last):
                        ranges.extend((h.lineno, h.end_lineno or h.lineno) for h in node.handlers)  # type: ignore[attr-defined]
        return ranges

    def _body_resolves(self, first: int, last: int) -> bool:
        """Whether the sglang imports between lines ``first`` and ``last`` (a ``try`` body)
        all resolve on the target (False where there is none)."""
        names = [i.qualname for i in self.an.imports if first <= i.statement.lineno <= last and _is_sglang(i.qualname)]
        for info in self.an.import_froms:
            if first <= info.statement.lineno <= last and _is_sglang(info.module):
                names.extend(name.qualname for name in info.names)
        return bool(names) and not any(self.index.resolve(name).missing for name in names)

    def _report(self, node: ast.AST, code: str, message: str, hint: str | None = None, span: Span | None = None) -> None:
        span = span or self._span(node)
        if code == UNRESOLVED_CODE and any(a <= span.start.line <= b for a, b in self._optional):
            return
        key = (span.start.line, span.start.column, message)
        if key in self._seen:
            return
        self._seen.add(key)
        if hint:
            message += f"; did you mean `{hint}`?"
        fix = Fix("manual", (), replacement=hint) if hint else None
        self.findings.append(Finding(self.path, span, code, message, fix))

    # ---- hints ------------------------------------------------------------------
    def _catalog_hint(self, missing: str) -> tuple[str | None, str | None]:
        """(replacement, rule code) the catalog gives for ``missing`` at this target."""
        entry = catalog.by_name().get(missing)
        owner, _, member = missing.rpartition(".")
        for old in sorted(self._old_names(owner)) if entry is None else ():
            entry = catalog.by_name().get(f"{old}.{member}")
            if entry is not None:
                break
        if entry is None:
            return None, None
        version = self.target.version or catalog.NEWEST_RELEASE
        return entry.replacement_for(version), entry.code

    def _hint(self, missing: str) -> tuple[str | None, str]:
        """(successor, note) for ``missing``: only what the catalog says replaced it. A name
        spelled like the missing one is no successor (``get_attention_tp_rank`` is not
        ``get_attention_dp_rank``), so no "did you mean" comes from spelling."""
        replacement, code = self._catalog_hint(missing)
        if replacement:
            return replacement, f" (see {code})"
        if code:
            return None, f" ({code}: removed with no replacement)"
        return None, ""

    def _missing(self, node: ast.AST, name: str, span: Span | None = None) -> bool:
        """Resolve ``name``; report it when missing. True when reported."""
        res = self.index.resolve(name)
        if not res.missing:
            return False
        missing = res.missing_name or name
        hint, note = self._hint(missing)
        self._report(node, UNRESOLVED_CODE, f"`{missing}` does not exist in {self.target.label}{note}", hint, span)
        return True

    # ---- checks -----------------------------------------------------------------
    def run(self) -> list[Finding]:
        self._check_imports()
        self._check_references()
        self._check_typed_attributes()
        self._check_overrides()
        return sorted(self.findings, key=Finding.sort_key)

    def _check_imports(self) -> None:
        for imported in self.an.imports:
            if imported.guarded or not _is_sglang(imported.qualname):
                continue
            self._missing(imported.statement, imported.qualname, Span.of(*imported.name_span))
        for info in self.an.import_froms:
            if info.guarded or not _is_sglang(info.module):
                continue
            module_span = Span.of(*info.module_span) if info.module_span else None
            res = self.index.resolve(info.module)
            if res.missing:
                self._missing(info.statement, info.module, module_span)
                continue
            for name in info.names:
                self._missing(info.statement, name.qualname, Span.of(*name.name_span))

    def _check_references(self) -> None:
        """Attribute chains rooted in imported names (the longest chain of each)."""
        recorded = {id(node) for node, _, _ in self.an.references}
        for node, qualname, binding in self.an.references:
            if not isinstance(node, ast.Attribute) or not _is_sglang(qualname) or binding.guarded:
                continue
            parent = self.an.parents.get(node)
            if isinstance(parent, ast.Attribute) and id(parent) in recorded and parent.value is node:
                continue  # a longer chain is checked instead
            if not isinstance(node.ctx, ast.Load) or self.an.is_guarded(node):
                continue
            res = self.index.resolve(qualname)
            if not res.missing or res.missing_at is None:
                continue
            # Map the first missing part onto the expression: only parts written here.
            depth = len(qualname.split(".")) - 1 - res.missing_at
            target: ast.AST = node
            for _ in range(depth):
                if not isinstance(target, ast.Attribute):
                    break
                target = target.value
            if not isinstance(target, ast.Attribute):
                continue  # the imported name itself is missing: reported at the import
            self._missing(target, qualname, self._span(target))

    # ---- known instance types -----------------------------------------------------
    def _fork_class_has(self, qualname: str, attr: str) -> bool | None:
        """True: the fork class defines attr. None: its bases include something unknown."""
        info = self._fork_classes.get(qualname)
        if info is None:
            return False
        if attr in info.members:
            return True
        node = self.an.classes[qualname].node
        if len(self.an.classes[qualname].bases) < len(node.bases) or info.dynamic or info.getattr_hook:
            return None  # a base we could not resolve might define it
        return False

    def _receiver_classes(self, types: frozenset[str], attr: str) -> tuple[list[ReleaseClass], bool]:
        """(sglang classes to check ``attr`` on, whether the lookup is decidable)."""
        sglang_classes: list[ReleaseClass] = []
        for qualname in types:
            if qualname in self.an.classes:
                has = self._fork_class_has(qualname, attr)
                if has or has is None:
                    return [], False
            elif _is_sglang(qualname):
                res = self.index.resolve(qualname)
                if not res.found or res.ref is None or res.ref.cls is None:
                    return [], False  # a missing class is reported where it is named
                sglang_classes.append(res.ref.cls)
            else:
                return [], False  # a non-sglang ancestor (torch, ...) might define it
        return sglang_classes, bool(sglang_classes)

    def _check_typed_attributes(self) -> None:
        for node, types in self.an.typed_attributes:
            if not isinstance(node.ctx, ast.Load) or self.an.is_guarded(node):
                continue
            classes, decidable = self._receiver_classes(types, node.attr)
            if not decidable:
                continue
            via_super = isinstance(node.value, ast.Call) and dotted_name(node.value.func) == "super"
            refs = [self.index.member(cls, node.attr, static=via_super) for cls in classes]
            if any(ref is not None and ref.kind != "dynamic" for ref in refs):
                continue
            if self.target.baseline is not None and not any(
                node.attr in self._baseline_members(cls.qualname) for cls in classes
            ):
                # Typed access is only as good as the annotation (duck typing, subclasses):
                # with a baseline, report only members that existed there and are gone now.
                continue
            if any(ref is not None for ref in refs):
                # Dynamic: fine unless only `__getattr__` makes it so and the name was a
                # real member of the class in the baseline (it now goes to the delegate).
                static = [self.index.member(cls, node.attr, static=True) for cls in classes]
                if any(ref is not None for ref in static):
                    continue
                if not any(node.attr in self._baseline_members(cls.qualname) for cls in classes):
                    continue
            owner = classes[0]
            missing = f"{owner.qualname}.{node.attr}"
            hint, note = self._hint(missing)
            line, col, end_line, end_col = self.an.span(node)
            attr_line, attr_col = end_line, end_col - len(node.attr)
            span = Span.of(attr_line, max(attr_col, 0), end_line, end_col)
            self._report(node, UNRESOLVED_CODE,
                         f"`{owner.name}` has no attribute `{node.attr}` in {self.target.label}{note}", hint, span)

    # ---- overrides ----------------------------------------------------------------
    @staticmethod
    def _old_names(base_qualname: str) -> set[str]:
        """The base's name and the old class names the catalog says it replaced."""
        names = {base_qualname}
        for entry in catalog.ENTRIES:
            if entry.kind == "class" and any(r.new == base_qualname for r in entry.replacements):
                names.add(entry.old)
        return names

    def _baseline_members(self, base_qualname: str) -> set[str]:
        """Members the base had in the baseline release: under its own name, or under an
        old name the catalog says it replaced (``DFlashWorkerV2`` <- ``DFlashWorker``)."""
        names = self._old_names(base_qualname)
        members: set[str] = set()
        catalog_members = {n.rpartition(".")[::2] for n in catalog.by_name()}
        for owner, member in catalog_members:
            if owner in names:
                members.add(member)
        if self.target.baseline is not None:
            for name in names:
                cls = self.target.baseline.resolve_class(name)
                if cls is not None:
                    members |= self.target.baseline.members(cls)
        return members

    def _check_overrides(self) -> None:
        for qualname, info in self.an.classes.items():
            if any(self.an.is_guarded(b) for b in info.node.bases):
                continue
            bases: list[tuple[str, ReleaseClass]] = []
            for base in info.bases:
                if _is_sglang(base):
                    res = self.index.resolve(base)
                    if res.found and res.ref is not None and res.ref.cls is not None:
                        bases.append((base, res.ref.cls))
            if not bases:
                continue
            target_members = set().union(*(self.index.members(cls) for _, cls in bases))
            formerly: set[str] = set()
            for base, _ in bases:
                formerly |= self._baseline_members(base)
            for statement in info.node.body:
                if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                name = statement.name
                if name in target_members or (name.startswith("__") and name.endswith("__")):
                    continue
                decorators = {dotted_name(d) for d in statement.decorator_list}
                if name not in formerly and not decorators & _OVERRIDE_DECORATORS:
                    continue  # a method of the fork's own, not an override
                base_name = bases[0][1].name
                line = statement.lineno
                col = self.an.char_col(line, statement.col_offset)
                text = self.an.lines[line - 1]
                start = text.find(name, col)
                span = Span.of(line, start, line, start + len(name)) if start >= 0 else self._span(statement)
                code = next((catalog.by_name()[f"{old}.{name}"].code for base, _ in bases
                             for old in sorted(self._old_names(base)) if f"{old}.{name}" in catalog.by_name()), None)
                note = f" (see {code})" if code else ""
                self._report(statement, OVERRIDE_CODE,
                             f"`{info.node.name}.{name}` overrides a method `{base_name}` no longer has in "
                             f"{self.target.label}: it is never called{note}", span=span)
