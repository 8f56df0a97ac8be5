"""Colour for the human formats (``text``, ``concise``, ``full``, and the fix's report lines)
on a terminal, as ruff colours them: the path bold, the code bold red, the fix marker cyan.

On when the output is a terminal (``TERM`` not ``dumb``), or when ``FORCE_COLOR`` is set
(non-empty) whatever the output is; off whenever ``NO_COLOR`` is set (non-empty,
https://no-color.org), which wins. A report written to a file (``--output``) never gets
colour. Colour codes are added around text that was already escaped, so they are the only
escape sequences in the output.
"""

from __future__ import annotations

import os
import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO

BOLD, RED, CYAN, RESET = "\x1b[1m", "\x1b[31m", "\x1b[36m", "\x1b[0m"
#: ``path:line:col: CODE`` at the start of a finding line (text, concise, full), and the fix
#: markers (compiled only when colour is on: every lint imports this module).
_FINDING = r"^(?P<where>[^\n]*?:\d+:\d+:) (?P<code>[A-Z]{2,8}\d{2,4}) "
_MARKER = r"(\[\*\]|\[unsafe fix\]|\[-\]|\[fixed\]|\[fixable\])"


def wanted(stream: TextIO, environ: dict[str, str] | None = None) -> bool:
    environ = os.environ if environ is None else environ  # type: ignore[assignment]
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and environ.get("TERM") != "dumb"


def coloured(report: str) -> str:
    """``report`` (a text, concise or full report) with its finding lines coloured."""
    finding, marker = re.compile(_FINDING), re.compile(_MARKER)
    out = []
    for line in report.splitlines(keepends=True):
        match = finding.match(line)
        if match:
            rest = marker.sub(lambda m: f"{CYAN}{m.group(1)}{RESET}", line[match.end():])
            line = f"{BOLD}{match.group('where')}{RESET} {BOLD}{RED}{match.group('code')}{RESET} {rest}"
        out.append(line)
    return "".join(out)
