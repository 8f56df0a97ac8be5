"""The renamed draft-window flag (DFM203) and server argument (DFM204) in Python code.

``--speculative-dflash-draft-window-size`` in argv lists or strings becomes
``--speculative-draft-window-size`` (its alias was removed in 0.5.20), also in the
``--flag=value`` form, except in the ``add_argument(...)`` call that registers the alias
(SGLang's own ``server_args.py`` up to 0.5.19): renaming it would register the new flag
twice (argparse: ``conflicting option string``), so it is reported; the keyword ``speculative_dflash_draft_window_size=`` of
``ServerArgs``/``Engine`` and attribute reads of it become ``speculative_draft_window_size``.
Both spellings are distinctive, so no type information is needed. Shell scripts and other
text files are handled by ``migrator.text``.
"""

from __future__ import annotations

import ast

from migrator.python.rules.context import Examples, Rule, RuleContext, literal_with, rename_attribute, rename_keyword


def _registers_flag(analysis, node: ast.Constant) -> bool:  # noqa: ANN001 - Analysis
    """Is the string an argument of an ``add_argument(...)`` call (argparse declaring it)?"""
    parent = analysis.parents.get(node)
    if not isinstance(parent, ast.Call) or node not in parent.args:
        return False
    func = parent.func
    return (func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)) == "add_argument"


def check(ctx: RuleContext) -> None:
    analysis = ctx.analysis
    flag = ctx.entry("DFM203")
    if flag is not None:
        new_flag = flag.replacement_for(ctx.target) or ""
        for node in analysis.strings:
            value: str = node.value
            if value == flag.old or value.startswith(flag.old + "="):
                if _registers_flag(analysis, node):
                    ctx.todo(node, flag, f"this `add_argument` registers the deprecated alias `{flag.old}`: "
                             f"keep it while older command lines must work, remove it for 0.5.20+ "
                             f"(renaming it would register `{new_flag}` twice)")
                    continue
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


RULE = Rule("server_args", 350, check, owns=("DFM203", "DFM204"),
    examples=Examples(
        invalid=(
            'argv = ["--speculative-dflash-draft-window-size", "8"]\n',
        ),
        valid=(
            'argv = ["--speculative-draft-window-size", "8"]\n',
        ),
    ),
)
