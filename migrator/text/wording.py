"""What a TODO in a non-Python file tells its reader, in that file's terms (issue 48).

A TODO above ``SGLANG_ENABLE_SPEC_V2=$MODE`` in a ``.env`` file that says "read
``disable_overlap_schedule`` instead" speaks Python to someone editing settings: there is
no attribute to read there. Each text file type says instead what sets the variable there
(an ``export``, an ``ENV`` entry, a key, a line), where the flag goes instead (the launch
command, the ``CMD``/``ENTRYPOINT``, the launch arguments) and how the variable's value is
used there (``$SGLANG_ENABLE_SPEC_V2``). A Markdown code block is worded as its language;
Python files keep the catalog's messages. The names come from the catalog; only the
nouns are here, one :class:`Terms` per file type (:data:`TERMS`, by
``migrator.text.filetypes`` name; any other type gets :data:`ANY`).
"""

from __future__ import annotations

from migrator import catalog
from migrator.base.records import NamedTuple, record

ENV, FLAG, LAUNCH = catalog.ENV_SPEC_V2, catalog.DISABLE_OVERLAP_FLAG, catalog.LAUNCH_SERVER_MODULE
SINCE = catalog.FIRST_V2_RELEASE


@record
class Terms(NamedTuple):
    """The nouns of one file type: ``setting``, what sets the variable on the TODO's line;
    ``launch``, where ``--disable-overlap-schedule`` goes in such a project; ``use``, a use
    of the variable's value; ``holder``, what names a removed Python API (a value, a command)."""

    setting: str
    launch: str
    use: str
    holder: str


_SHELL_LAUNCH = f"the `{LAUNCH}` command it reaches"
TERMS: dict[str, Terms] = {
    "shell": Terms("this assignment", _SHELL_LAUNCH, f"`${ENV}`", "command"),
    "makefile": Terms("this assignment", _SHELL_LAUNCH, f"`$${ENV}` or `$({ENV})`", "recipe line"),
    "dockerfile": Terms("this `ENV` entry", f"the `CMD` or `ENTRYPOINT` that runs `{LAUNCH}`", f"`${ENV}`",
                        "instruction"),
    "dockerfile-run": Terms("this assignment", f"the `CMD` or `ENTRYPOINT` that runs `{LAUNCH}`", f"`${ENV}`",
                            "command"),
    "dotenv": Terms("this line", f"the `{LAUNCH}` command that loads this file", f"`${{{ENV}}}`", "line"),
    "yaml": Terms("this key", f"the arguments of the `{LAUNCH}` command (its `command:` or `args:`)",
                  "this mention", "value"),
    "toml": Terms("this key", f"the arguments of the `{LAUNCH}` command", "this mention", "value"),
    "jsonfile": Terms("this key", f"the arguments of the `{LAUNCH}` command (its `args`)", "this mention", "value"),
}
ANY = Terms("this setting", f"the `{LAUNCH}` command", f"`{ENV}`", "line")


def terms(kind: str) -> Terms:
    return TERMS.get(kind, ANY)


def kept(kind: str, parsed: bool | None, passed: bool = False) -> str:
    """A setting that stays: falsy (``parsed`` False) with no launch in the file to move the
    flag to, or of a value not known to be true or false. ``passed``: what the setting
    reaches already passes the flag; then deleting the setting is all that is left, whatever
    its value (the flag turns overlap off). No line number: the TODO's own lines move it."""
    words = terms(kind)
    if passed:
        return f"`{ENV}` is ignored from {SINCE} and `{FLAG}` is already in {words.launch}: delete {words.setting}"
    if parsed is False:
        return f"`{ENV}` is ignored from {SINCE}: add `{FLAG}` to {words.launch}, then delete {words.setting}"
    return (f"`{ENV}` is ignored from {SINCE}: if its value can be falsy (`0`, `false`), add `{FLAG}` to "
            f"{words.launch}; then delete {words.setting}")


def used(kind: str) -> str:
    """A use of the variable's value (a test, a copy into another variable)."""
    words = terms(kind)
    return (f"sglang {SINCE}+ ignores `{ENV}`: only `{FLAG}` on {words.launch} turns overlap off; decide "
            f"from that flag, not from {words.use}")


def read_later(kind: str, line: int, why: str = "") -> str:
    """A setting kept because a later line (``line``) reads the variable."""
    return (f"`{ENV}` is read later (line {line}): deleting {terms(kind).setting} would change that read{why}; "
            f"sglang {SINCE}+ ignores the variable")


def removed_api(kind: str, entry: catalog.Entry) -> str:
    """A qualified name of ``entry`` (no V2 counterpart) in a value or a command."""
    return f"{entry.message}; this {terms(kind).holder} names it: change it by hand"
