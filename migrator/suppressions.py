"""Inline suppression comments, and the report of those that no longer suppress anything.

Forms (any comment syntax: ``#``, ``//``, ``<!-- -->``; codes are optional, comma-separated)::

    x = old()  # dflash-migrate: ignore[DFM101]      <- this line
    # dflash-migrate: ignore[DFM101, DFM105]         <- a comment on its own line: the next line
    # dflash-migrate: ignore-file[DFM201]            <- anywhere in the file: the whole file

A bare ``ignore`` / ``ignore-file`` (no brackets) suppresses every code. A directive that
hid no finding is returned as unused so ``lint`` can report stale suppressions (as ruff's
RUF100 does). In notebooks the directive is found on the JSON line of the cell source line,
which is also where notebook findings are reported, so the same rules apply.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from migrator.model import Finding

_DIRECTIVE = re.compile(
    r"(?P<marker>#|//|<!--)\s*dflash-migrate:\s*(?P<kind>ignore-file|ignore)\b(?:\[(?P<codes>[^\]]*)\])?"
)
#: What may precede the comment marker for the directive to count as "on its own line"
#: (whitespace, and the opening quote of a notebook's JSON-encoded source line).
_OWN_LINE_PREFIX = re.compile(r'^[\s"]*$')


@dataclass
class Directive:
    line: int
    codes: tuple[str, ...]  # empty: every code
    file_level: bool
    own_line: bool
    used: bool = field(default=False)

    def covers(self, finding: Finding) -> bool:
        if self.codes and finding.code not in self.codes:
            return False
        if self.file_level:
            return True
        return finding.line == self.line or (self.own_line and finding.line == self.line + 1)


def parse(text: str) -> list[Directive]:
    """All suppression directives in ``text`` (cheap: skipped unless the marker occurs)."""
    if "dflash-migrate:" not in text:
        return []
    directives = []
    for number, line in enumerate(text.splitlines(), start=1):
        if "dflash-migrate:" not in line:
            continue
        for match in _DIRECTIVE.finditer(line):
            raw = match.group("codes")
            codes = tuple(sorted({c.strip().upper() for c in raw.split(",") if c.strip()})) if raw else ()
            own = bool(_OWN_LINE_PREFIX.match(line[: match.start()]))
            directives.append(Directive(number, codes, match.group("kind") == "ignore-file", own))
    return directives


def filter_findings(
    text: str, findings: list[Finding], comment_prefix: str = "#"
) -> tuple[list[Finding], int, list[tuple[int, tuple[str, ...]]]]:
    """Split ``findings`` by the directives in ``text``.

    Returns (kept findings, number suppressed, unused directives as ``(line, codes)``).
    ``comment_prefix`` is accepted for callers that know the file's syntax; every
    supported marker is recognised regardless, so a Markdown ``<!-- -->`` works too.
    """
    directives = parse(text)
    if not directives:
        return list(findings), 0, []
    kept: list[Finding] = []
    suppressed = 0
    for finding in findings:
        hits = [d for d in directives if d.covers(finding)]
        if hits:
            suppressed += 1
            for d in hits:
                d.used = True
        else:
            kept.append(finding)
    unused = [(d.line, d.codes) for d in directives if not d.used]
    return kept, suppressed, unused
