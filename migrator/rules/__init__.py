"""Python rules. Each module holds one concern, documents what it catches and why, and
exposes ``check(ctx: RuleContext) -> None``. Rule codes, messages and replacements come
from ``migrator.catalog``; rules only decide *where* an entry applies and *how* to edit.
What rules share (:class:`~migrator.rules.context.RuleContext`, ``entry_for_member``,
``through``, ``base_origins``) is in :mod:`.context`.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable

from .context import RuleContext, base_origins, entry_for_member, through

__all__ = ["RuleContext", "all_rules", "base_origins", "entry_for_member", "through"]


def all_rules() -> tuple[Callable[[RuleContext], None], ...]:
    from . import (
        draft_input,
        dynamic_modules,
        embedded_env,
        fork_names,
        imports,
        reflection_names,
        references,
        server_args,
        silent_downgrade,
        spec_v2_env,
        spec_v2_flags,
        string_refs,
        validate_request,
        verify_input,
        worker_subclass,
    )

    return (
        imports.check,
        references.check,
        string_refs.check,
        worker_subclass.check,
        verify_input.check,
        draft_input.check,
        spec_v2_env.check,
        spec_v2_flags.check,
        server_args.check,
        validate_request.check,
        fork_names.check,
        silent_downgrade.check,
        embedded_env.check,
        reflection_names.check,
        dynamic_modules.check,
    )
