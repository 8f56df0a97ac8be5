"""Python rules: the registry.

Each rule module holds one concern, documents what it catches and why, and declares itself
with ``RULE = Rule(...)`` (:class:`~migrator.python.rules.context.Rule`): the codes it emits
(``owns``; ``shares`` with the reason for codes another rule owns), the catalog entries it
reads without emitting them (``reads``), its ``check(ctx)`` and its ``order``. Codes,
messages and replacements come from ``migrator.catalog``; rules only decide *where* an entry
applies and *how* to edit. What rules share (``RuleContext``, ``entry_for_member``, literal
positions, renames) is in the one public module :mod:`.context`; no rule imports another.

:data:`RULES` is built once, at import, from the declarations of :data:`MODULES`, sorted by
``order``. The order matters in three ways: a node one rule replaces is ``ctx.claimed`` and
later rules leave it alone; findings with the same span, code and message count once (the
first is kept, with its fix); and of two overlapping edits the first one wins. So rules that
edit broad constructs run before those that edit parts of them. The bands:

====  ==========================================================================================
 1xx  import statements (``imports``): first, so later rules see the module's renamed imports;
      then whole blocks deleted as upstream deleted them (``spec_v2_blocks``), which claim
      every node inside before the reference rules see them
 2xx  references by qualified name (``references``, then ``string_refs`` for names spelled
      as strings, ``lazy_pairs`` for (module, name) string pairs); they claim the nodes they replace
 3xx  members and call forms of values of known type, settings and flags (one rule per
      concern: ``worker_subclass``, ``verify_input``, ``draft_input``, ``spec_v2_env``,
      ``spec_v2_flags``, ``server_args``, ``validate_request``, ``v2_era``); independent of one another
 4xx  the fork's own modules (``fork_names``, ``silent_downgrade``, ``fork_uses``): after the
      import fixes they rely on
 5xx  names reached by other means (``embedded_env``, ``reflection_names``,
      ``name_comparisons``, ``dynamic_modules``, then ``unique_names``): last, so that a string
      or chain another rule already renames or reports keeps that finding
====  ==========================================================================================

A new rule takes a free number in its band (two rules with one ``order`` is an error here);
``tests/test_rule_declarations.py`` checks the declarations against what the rules emit.
"""

from __future__ import annotations

from importlib import import_module

from migrator.python.rules.context import Rule, RuleContext, base_origins, entry_for_member, through

__all__ = ["MODULES", "RULES", "Rule", "RuleContext", "all_rules", "base_origins", "entry_for_member", "through"]

#: The rule modules (their run order comes from their declarations, not from this list).
MODULES: tuple[str, ...] = (
    "draft_input", "dynamic_modules", "embedded_env", "filter_batch", "fork_names", "fork_uses", "overlap_guards", "imports", "lazy_pairs", "name_comparisons", "reflection_names",
    "references", "server_args", "silent_downgrade", "spec_v2_blocks", "spec_v2_env", "spec_v2_flags", "string_refs", "unique_names",
    "v2_era", "validate_request", "verify_input", "worker_subclass",
)


def _registry() -> tuple[Rule, ...]:
    rules = sorted((import_module(f"{__name__}.{name}").RULE for name in MODULES), key=lambda rule: rule.order)
    for first, second in zip(rules, rules[1:]):
        if first.order == second.order:
            raise RuntimeError(f"rules {first.name} and {second.name} both declare order {first.order}")
    for rule in rules:
        if rule.shares and not rule.why:
            raise RuntimeError(f"rule {rule.name} shares {', '.join(rule.shares)} without saying why")
    return tuple(rules)


#: Every Python rule, in run order.
RULES: tuple[Rule, ...] = _registry()
_CHECKS = tuple(rule.check for rule in RULES)


def all_rules() -> tuple[Callable[[RuleContext], None], ...]:
    """The rules' ``check`` functions, in run order."""
    return _CHECKS


TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable
