"""``--format github``: GitHub Actions workflow commands, shown as PR annotations.

``::error file=P,line=L,col=C,endLine=..,endColumn=..,title=CODE::message``:

* ``file`` is relative to the repository's top, without ``./``, so the annotation attaches
  to the pull request's diff whatever folder the tool ran in;
* ``col``/``endColumn`` are sent only when the span is on one line (the runner drops
  columns of multi-line annotations);
* GitHub shows at most 10 error annotations per step, so when there are more findings a
  ``::notice`` line says how many there are in all.

Every line the tool prints in this mode, the stderr lines included (:func:`line`), is
escaped: text first through :func:`migrator.report.escape.visible` (no raw control
character), then as the Actions toolkit does (``%25``, ``%0D``, ``%0A``; plus ``%3A`` and
``%2C`` in properties), so a path or message cannot start a workflow command of its own.
"""

from __future__ import annotations

from migrator.base.model import FileResult, RunSummary
from migrator.report.common import errors_of, findings_of, unused_suppressions_of
from migrator.report.escape import visible
from migrator.report.locations import report_path

#: Error annotations GitHub displays per step; past this a summary notice is added.
SHOWN_PER_STEP = 10


def escape_data(text: str) -> str:
    """A command's message or property text (inside the command's line: no line start)."""
    return visible(text, keep_newlines=True, starts_line=False).replace("%", "%25").replace("\r", "%0D").replace(
        "\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def command(level: str, message: str, **props: object) -> str:
    rendered = ",".join(f"{key}={escape_property(str(value))}" for key, value in props.items() if value is not None)
    return f"::{level} {rendered}::{escape_data(message)}" if rendered else f"::{level}::{escape_data(message)}"


def line(text: str) -> str:
    """A plain log line (stderr messages in this mode), escaped like a command's message."""
    escaped = escape_data(text)
    return escaped if not escaped.lstrip().startswith("::") else "%3A%3A" + escaped.lstrip()[2:]


def render(results: list[FileResult], summary: RunSummary) -> str:
    lines = []
    findings = list(findings_of(results))
    for f in findings:
        fix = f" (fix: {f.fix.applicability})" if f.fix is not None else ""
        one_line = f.span.start.line == f.span.end.line
        lines.append(
            command(
                "notice" if f.informational else "error",
                f"{f.code} {f.message}{fix}",
                file=report_path(f.path),
                line=f.span.start.line,
                col=f.span.start.column + 1 if one_line else None,
                endLine=f.span.end.line,
                endColumn=f.span.end.column + 1 if one_line else None,
                title=f"dflash-migrate {f.code}",
            )
        )
    errors = errors_of(results)
    for e in errors:
        lines.append(command("error", f"could not be processed: {e.message}", file=report_path(e.path), line=e.line,
                             title="dflash-migrate error"))
    for path, at, codes in unused_suppressions_of(results):
        lines.append(command("warning", f"unused suppression ignore[{','.join(codes) or '*'}]", file=report_path(path),
                             line=at, title="dflash-migrate unused suppression"))
    shown = len(findings) + len(errors)
    if shown > SHOWN_PER_STEP:
        files = len({f.path for f in findings})
        lines.append(command(
            "notice",
            f"{len(findings)} DFLASH V1 reference{'s' if len(findings) != 1 else ''} in {files} "
            f"file{'s' if files != 1 else ''}{f' and {len(errors)} unprocessable files' if errors else ''}; "
            f"GitHub shows only {SHOWN_PER_STEP} annotations per step: the job log and the code-scanning "
            "(SARIF) results list them all",
            title="dflash-migrate summary",
        ))
    return "".join(text + "\n" for text in lines)
