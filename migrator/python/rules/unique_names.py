"""The removed API reached by its unique names on receivers nothing resolves, or held as data.

A module object handed around as a value (``def install(module): cls = module.DFlashWorker``)
or a package the file imports without the fork index knowing it has no static type, yet some
attribute names say V1 whatever the receiver: no other library names a class
``DFlashWorker``/``DFlashDraftInput`` or a function ``_compute_paged_keep_slots``. So:

* ``<anything>.DFlashWorker`` (the last name of a removed class or function whose
  replacement is named otherwise, or that has none): that name's code, as a TODO (how the fix
  treats such chains belongs to the release-range rules; this rule finds them);
* a removed member read or assigned on such a chain (``module.DFlashVerifyInput.verify =
  patched``) or on a local name the same function (or module) assigned one
  (``cls = module.DFlashWorker`` then ``cls._prepare_for_speculative_decoding = ...``): the
  member's code.

* a whole string that is one of the name table's unique bare names, a removed member after its
  class's name (``"DFlashVerifyInput.verify"``) or a removed flag's config key
  (``{"speculative_dflash_draft_window_size": 512}``): data another module resolves
  (``getattr``, ``patch.object``, a registry, a launcher), a TODO (issue 47).

Chains that resolve to a V1 name are the reference and fork rules'; V2 names
(``.DFlashWorkerV2``) and the team's own classes spelled otherwise never match.
"""

from __future__ import annotations

import ast
from functools import cache

from migrator import catalog
from migrator.catalog import names
from migrator.python.rules.context import Examples, Rule, RuleContext, assigned_values, removed_members


@cache
def _unique_names() -> dict[str, catalog.Entry]:
    """Unique bare name of a removed class or function (the name table's, from the wheels)
    that no replacement keeps -> its first entry."""
    table: dict[str, catalog.Entry] = {}
    for row in names.table():
        if row.form == "bare" and row.unique and row.kind in ("class", "function"):
            entry = row.entry
            if (entry.replacement_for(catalog.NEWEST_RELEASE) or "").rpartition(".")[2] != row.spelling:
                table.setdefault(row.spelling, entry)
    return table


@cache
def _owners() -> dict[str, str]:
    """Last name of a class with removed members -> its qualname."""
    return {entry.owner_class.rpartition(".")[2]: entry.owner_class
            for entries in removed_members().values() for entry in entries if entry.owner_class}


def check(ctx: RuleContext) -> None:
    by_name = ctx.analysis.attributes_by_name
    # what another rule reported (``dynamic_modules`` follows ``import_module`` results into
    # the functions they are passed to): one finding of a code per line
    seen = {(f.line, f.code) for f in ctx.findings}
    for name, entry in _unique_names().items():
        for node in by_name.get(name, ()):
            if _unknown_root(ctx, node) and ctx.entry(entry.code) is not None and (node.lineno, entry.code) not in seen:
                ctx.todo(node, entry, f"`.{name}` on a receiver of unknown type is the V1 `{name}`: {entry.message}")
    _held_as_data(ctx, seen)
    owners = _owners()
    for member, entries in removed_members().items():
        for node in by_name.get(member, ()):
            owner = _owner_of(ctx, node.value, owners)
            entry = next((e for e in entries if e.owner_class == owner), None)
            if (entry is not None and ctx.entry(entry.code) is not None and id(node) not in ctx.claimed
                    and (node.lineno, entry.code) not in seen):
                ctx.todo(node, ctx.entry(entry.code), f"`{ctx.analysis.segment(node)}`: {entry.message}")


@cache
def _bare_strings() -> dict[str, catalog.Entry]:
    """Unique bare name of a removed class, function, method or field, or a removed member
    after its class's name (``"DFlashVerifyInput.verify"``), or a removed flag as the config
    key a launcher turns into it (``{"speculative_dflash_draft_window_size": 512}``; the name
    table's) -> its first entry: such a name held as a whole string is data some other code resolves
    (a hook list fed to ``getattr``/``patch.object``, a registry of class names)."""
    table: dict[str, catalog.Entry] = {}
    for row in names.table():
        if (row.form == "bare" and row.unique and row.kind in ("class", "function", "method", "field")
                or row.form in ("member", "key")):
            table.setdefault(row.spelling, row.entry)
    return table


def _held_as_data(ctx: RuleContext, seen: set[tuple[int, str]]) -> None:
    """Whole strings that are a unique bare name: a TODO (what resolves them is not known
    here). Not: a name the module binds itself and keeps bound (:func:`_bound_here`), a part
    of a built string (``"DFlashWorker" + "V2"``), a comparison, a lazy ``(module, name)``
    pair (another package's ``DFlashWorker``), one side of a ``{"old": "new"}`` map (the other
    side spells it with more), a probe (``hasattr``, ``getattr`` with a default), a line where another rule reported the same code."""
    table = _bare_strings()
    for node in ctx.analysis.strings:
        entry = table.get(node.value)
        if entry is None or ctx.entry(entry.code) is None or (node.lineno, entry.code) in seen or (
                entry.kind == "cli-flag" and any(line == node.lineno for line, _ in seen)):
            continue
        if _bound_here(ctx, node.value, entry) or _mapped_or_probed(ctx, node):
            continue
        ctx.todo(node, ctx.entry(entry.code), f"`\"{node.value}\"` held as a string: {entry.message}")


def _bound_here(ctx: RuleContext, name: str, entry: catalog.Entry) -> bool:
    """Does the module bind ``name`` itself, and keep it bound once fixed? Its own class, a
    name imported from elsewhere, or the V1 import itself where the fix keeps its local name
    (``DFlashWorkerV2 as DFlashWorker``: exported, imported by other fork modules, shared with
    a fallback, guarded). A V1 import the fix renames leaves the string naming nothing of
    this module: data some other code resolves, a TODO from the first run on (else a second
    run would find what the first one left)."""
    binding = ctx.analysis.module_scope.names.get(name)
    if binding is None:
        return False
    if binding.kind != "from" or binding.guarded or binding.qualname != entry.old:
        return True
    return name in ctx.analysis.shared_locals or ctx.analysis.is_exported(name)


def _mapped_or_probed(ctx: RuleContext, node: ast.Constant) -> bool:
    parent = ctx.analysis.parents.get(node)
    if isinstance(parent, (ast.BinOp, ast.JoinedStr, ast.Compare)):
        return True  # a part of a built string; a comparison is ``name_comparisons``' to decide
    if isinstance(parent, ast.Tuple) and len(parent.elts) == 2 and "." not in node.value and any(
            isinstance(e, ast.Constant) and isinstance(e.value, str) and "." in e.value for e in parent.elts):
        return True  # a ``(module, name)`` pair: ``lazy_pairs`` knows which module it names
    if isinstance(parent, ast.Dict):  # {"DFlashWorker": "DFlashWorkerV2"} (either way round)
        pairs = list(zip(parent.keys, parent.values))
        other = next((v if k is node else k for k, v in pairs if node is k or node is v), None)
        return (isinstance(other, ast.Constant) and isinstance(other.value, str)
                and node.value in other.value and other.value != node.value)
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name):
        return parent.func.id == "hasattr" or (parent.func.id == "getattr" and len(parent.args) == 3)
    return False


def _unknown_root(ctx: RuleContext, node: ast.expr) -> bool:
    """Is the root of the chain ``node`` a name nothing here binds to a known value (a
    parameter, a global set elsewhere)? An import is the reference and fork rules' (or another
    package's: sgl_jax has a ``DFlashWorker`` of its own), a local assigned a value (a module
    ``import_module`` returned) ``dynamic_modules``'."""
    root = node
    while isinstance(root, ast.Attribute):
        root = root.value
    return (isinstance(root, ast.Name) and ctx.analysis.qualname(root) is None
            and root.id not in ctx.analysis.module_scope.names and not assigned_values(ctx, root))


def _owner_of(ctx: RuleContext, receiver: ast.expr, owners: dict[str, str]) -> str | None:
    """The owner class ``receiver`` is by its unique name where no qualified-name rule sees
    it: ``x.DFlashVerifyInput`` on an unknown ``x``, a name the file imports from its own
    package when the fork index does not carry it (``from .compat import DFlashVerifyInput``),
    or a local name assigned such a chain in the enclosing function or module."""
    if isinstance(receiver, ast.Attribute):
        return owners.get(receiver.attr) if _unknown_root(ctx, receiver) else None
    if not isinstance(receiver, ast.Name):
        return None
    binding = ctx.analysis.module_scope.names.get(receiver.id)
    if binding is not None and binding.kind in ("from", "from-as") and binding.qualname and _own_package(ctx, receiver):
        return owners.get(binding.qualname.rpartition(".")[2])
    for value in assigned_values(ctx, receiver):
        if isinstance(value, ast.Attribute) and value.attr in owners and _unknown_root(ctx, value):
            return owners[value.attr]
    return None


def _own_package(ctx: RuleContext, name: ast.Name) -> bool:
    """Does ``name`` resolve to a name of the file's own top package, not through the fork index?"""
    resolved = ctx.analysis.qualname(name)
    own = ctx.analysis.module_name.partition(".")[0]
    return resolved is not None and resolved[1].kind != "fork" and resolved[0].partition(".")[0] == own


RULE = Rule(
    "unique_names", 530, check,
    shares=catalog.codes_of_kind("class", "function", "method", "attribute", "cli-flag"),
    why="removed classes, functions and members reached by their unique names on receivers of unknown "
    "type, or held as whole strings (with a removed flag's config key); each name's own code, as the "
    "rules that resolve them use",
    examples=Examples(
        invalid=(
            (
                "def install(module):\n"
                "    return module.DFlashWorker\n"
            ),
            (  # the import's fix renames the binding: the string names nothing of this module
                "from sglang.srt.speculative.dflash_info import DFlashDraftInput\n"
                "draft = getattr(module, 'DFlashDraftInput')\n"
            ),
        ),
        valid=(
            (
                "def install(module):\n"
                "    return module.DFlashWorkerV2\n"
            ),
            (  # the fix keeps the exported name bound (``DFlashDraftInputV2 as DFlashDraftInput``)
                "from sglang.srt.speculative.dflash_info_v2 import DFlashDraftInputV2 as DFlashDraftInput\n"
                "__all__ = ['DFlashDraftInput']\n"
            ),
        ),
    ),
)
