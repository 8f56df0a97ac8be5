"""The renamed draft-window flag (DFM203) and server argument (DFM204) in Python code.

``--speculative-dflash-draft-window-size`` in argv lists or strings becomes
``--speculative-draft-window-size`` (its alias was removed in 0.5.20), also in the
``--flag=value`` form; the keyword ``speculative_dflash_draft_window_size=`` of
``ServerArgs``/``Engine`` and attribute reads of it become ``speculative_draft_window_size``.
Both spellings are distinctive, so no type information is needed. Shell scripts and other
text files are handled by ``migrator.textrules``.
"""

from __future__ import annotations

from . import RuleContext
from .string_refs import literal_with
from .verify_input import rename_attribute, rename_keyword


def check(ctx: RuleContext) -> None:
    analysis = ctx.analysis
    flag = ctx.entry("DFM203")
    if flag is not None:
        new_flag = flag.replacement_for(ctx.target) or ""
        for node in analysis.strings:
            value: str = node.value
            if value == flag.old or value.startswith(flag.old + "="):
                new_value = new_flag + value[len(flag.old):]
                literal = literal_with(analysis.segment(node), value, new_value)
                if literal is None:
                    ctx.todo(node, flag)
                else:
                    ctx.replace(node, literal, flag)
    keyword_entry = ctx.entry("DFM204")
    if keyword_entry is not None:
        for call in analysis.calls:
            for keyword in call.keywords:
                if keyword.arg == keyword_entry.member:
                    rename_keyword(ctx, keyword, keyword_entry)
        for node in analysis.attributes_by_name.get(keyword_entry.member, []):
            rename_attribute(ctx, node, keyword_entry)

