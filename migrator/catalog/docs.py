"""MIGRATION.md's generated parts: the rule table, one section per rule, and the
``SGLANG_ENABLE_SPEC_V2`` meaning per release, what changed in each release of the V2 era,
all rendered from ``migrator.catalog``.

``python -m migrator.catalog.docs --write`` refreshes MIGRATION.md; ``tests/test_catalog_docs.py``
fails when the committed file differs from what the catalog renders (drift).
"""

from __future__ import annotations

import sys
from pathlib import Path

from migrator import catalog
from migrator.base.fileio import create_or_replace
from migrator.catalog.scope import DIFF_FROM, DIFF_TO, RELEASE_NOTES, SCOPE_NOTES
from migrator.catalog.target import v2_releases

BEGIN = "<!-- BEGIN GENERATED FROM migrator/catalog/__init__.py: python -m migrator.catalog.docs --write -->"
END = "<!-- END GENERATED -->"
DOC_PATH = Path(__file__).resolve().parents[2] / "MIGRATION.md"


def _short(qualname: str | None) -> str:
    if qualname is None:
        return "— (removed)"
    return f"`{qualname.replace('sglang.srt.', '')}`"


def _replacements(entry: catalog.Entry) -> str:
    parts = [f"{r.targets}: {_short(r.new)}" for r in entry.replacements]
    return "<br>".join(parts)


def rule_table() -> str:
    lines = [
        "| Code | Old name | Kind | Exists in | Replacement (by target) | Fix | Message |",
        "|---|---|---|---|---|---|---|",
    ]
    for entry in catalog.ENTRIES:
        names = "<br>".join(_short(name) for name in entry.names)
        lines.append(
            f"| [{entry.code}](#{entry.anchor}) | {names} | {entry.kind} | {entry.exists} | "
            f"{_replacements(entry)} | {entry.fix} | {entry.message} |"
        )
    return "\n".join(lines)


_FENCES = {"py": "python", "sh": "bash"}


def rule_sections() -> str:
    blocks = []
    for entry in catalog.ENTRIES:
        fence = _FENCES.get(entry.example_file.rpartition(".")[2], "text")
        blocks.append(
            "\n".join([
                f'<a id="{entry.anchor}"></a>',
                f"### {entry.code}: {entry.message}",
                "",
                f"- Old: {', '.join(_short(n) for n in entry.names)} ({entry.kind}; exists in sglang {entry.exists})",
                f"- Fires for target versions {entry.first_target} and newer; fix: **{entry.fix}**",
                f"- Replacement: {_replacements(entry) or 'none'}",
                "",
                entry.guidance,
                *(["", "Before:", f"```{fence}", entry.before, "```", "After:", f"```{fence}", entry.after, "```"]
                  if entry.before else []),  # an entry with no example (DFM490) says so in its guidance
            ])
        )
    return "\n\n".join(blocks)


def env_table() -> str:
    lines = ["| sglang | `SGLANG_ENABLE_SPEC_V2` |", "|---|---|"]
    for item in catalog.ENV_SPEC_V2_MEANING:
        lines.append(f"| {item.versions} | {item.meaning} |")
    return "\n".join(lines)


def scope_table() -> str:
    lines = [
        f"Removals in the {DIFF_FROM} -> {DIFF_TO} wheel diff (`python -m migrator.verify.wheel_diff`) that are not "
        "catalog names: handled by a rule under another spelling, or not covered, and why.",
        "",
        "| Name | Handled by | Why |",
        "|---|---|---|",
    ]
    for note in SCOPE_NOTES:
        handled = f"[{note.code}](#{note.code.lower()})" if note.code else "not covered"
        lines.append(f"| {_short(note.name)} | {handled} | {note.reason} |")
    return "\n".join(lines)


def release_table() -> str:
    """What changed in each release of the V2 era: the entries whose old spelling is gone
    from it, or whose replacement changes there, and the notes of that release's wheel diff
    (``catalog.scope.RELEASE_NOTES``). A fork going from one release to another reads the
    rows after its own."""
    lines = [
        "Each row: what a fork on the release before it meets there. Entries link to their rule; "
        "\"also changed\" lists the wheel diff's other changes of that release (`migrator/catalog/scope.py` "
        "says why each is not a rule; `dflash-migrate verify --target-version` reports a use).",
        "",
        "| sglang | Rules | Also changed |",
        "|---|---|---|",
    ]
    for release in v2_releases():
        codes = [
            f"[{entry.code}](#{entry.anchor})" for entry in catalog.ENTRIES
            if (entry.exists.last is not None and catalog.next_release(entry.exists.last) == release)
            or any(r.targets.first == release for r in entry.replacements)
        ]
        notes = [_short(note.name) for note in RELEASE_NOTES if note.release == release]
        lines.append(f"| {release} | {', '.join(codes) or '—'} | {', '.join(notes) or '—'} |")
    return "\n".join(lines)


def generated() -> str:
    return "\n\n".join([
        BEGIN,
        "## `SGLANG_ENABLE_SPEC_V2` per release",
        env_table(),
        "## What changed in each release",
        release_table(),
        "## Rule table",
        rule_table(),
        "## Rules",
        rule_sections(),
        "## Not covered: the rest of the wheel diff",
        scope_table(),
        END,
    ])


def render(document: str) -> str:
    """``document`` with its generated block replaced by the catalog's current rendering."""
    start = document.index(BEGIN)
    end = document.index(END) + len(END)
    return document[:start] + generated() + document[end:]


def main(argv: list[str]) -> int:
    text = DOC_PATH.read_text(encoding="utf-8")
    fresh = render(text)
    if "--write" in argv:
        create_or_replace(DOC_PATH, fresh.encode("utf-8"))
        return 0
    if fresh != text:
        print("MIGRATION.md is out of date with migrator/catalog/entries.py; run: python -m migrator.catalog.docs --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
