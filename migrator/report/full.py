"""``--format full``: ruff's default layout, each finding followed by its source line and a
caret under the span::

    pkg/a.py:1:6: DFM101 module `dflash_worker` was removed in sglang 0.5.14; ... [*]
      |
    1 | from sglang.srt.speculative.dflash_worker import DFlashWorker
      |      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ DFM101
      |

then the problem lines and the summary of ``text``. The source is read again only for the
files that have findings (``sources`` gives the bytes of a file that is not on disk:
standard input). A notebook finding (its line is the notebook's JSON) and a file that can
no longer be read get no snippet. Source lines pass through
:func:`migrator.report.escape.visible`, and the caret is placed under the escaped text.
"""

from __future__ import annotations

from migrator.base.fileio import SourceError, read_bytes
from migrator.base.lines import split_lines
from migrator.base.model import FileResult, Finding, RunSummary
from migrator.report.common import findings_of
from migrator.report.escape import visible
from migrator.report.text import format_finding, human_report


def _lines_of(path: str, sources: dict[str, bytes]) -> list[str] | None:
    if path.endswith(".ipynb"):
        return None
    data = sources.get(path)
    if data is None:
        try:
            data = read_bytes(path)
        except SourceError:
            return None

    return [line.rstrip("\r\n") for line in split_lines(data.decode("utf-8", "replace"))]


def snippet(finding: Finding, lines: list[str] | None) -> list[str]:
    """The source line of ``finding`` with a caret under its span (nothing if unknown)."""
    if lines is None or not 1 <= finding.line <= len(lines):
        return []
    text = lines[finding.line - 1]
    start = min(finding.column, len(text))
    end = finding.span.end.column if finding.span.end.line == finding.line else len(text)
    end = max(min(end, len(text)), start + 1)
    gutter = " " * len(str(finding.line))
    lead = len(visible(text[:start]))
    width = max(1, len(visible(text[start:end])))
    return [f"{gutter} |", f"{finding.line} | {visible(text)}", f"{gutter} | {' ' * lead}{'^' * width} {finding.code}",
            f"{gutter} |"]


def render(results: list[FileResult], summary: RunSummary, subject: str = "V1 reference", config: str | None = None,
           sources: dict[str, bytes] | None = None, target: tuple[tuple[str, ...], str] | None = None) -> str:
    cache: dict[str, list[str] | None] = {}
    out: list[str] = []
    for finding in findings_of(results):
        if finding.path not in cache:
            cache[finding.path] = _lines_of(finding.path, sources or {})
        out.append(format_finding(finding))
        out += snippet(finding, cache[finding.path])
        out.append("")
    return human_report(out, results, summary, subject, config, target)
