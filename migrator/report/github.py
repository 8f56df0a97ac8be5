"""``--format github``: GitHub Actions workflow commands, shown as PR annotations.

``::error file=P,line=L,col=C,endLine=..,endColumn=..,title=CODE::message``. Property
values and messages are escaped as the Actions toolkit does (``%``, CR, LF; plus ``:``
and ``,`` in properties), so a path or message with those characters cannot break the
command.
"""

from __future__ import annotations

from migrator.model import FileResult, RunSummary
from migrator.report import errors_of, findings_of, unused_suppressions_of


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _command(level: str, message: str, **props: object) -> str:
    rendered = ",".join(f"{key}={escape_property(str(value))}" for key, value in props.items() if value is not None)
    return f"::{level} {rendered}::{escape_data(message)}"


def render(results: list[FileResult], summary: RunSummary) -> str:
    lines = []
    for f in findings_of(results):
        fix = f" (fix: {f.fix.applicability})" if f.fix is not None else ""
        lines.append(
            _command(
                "error",
                f"{f.code} {f.message}{fix}",
                file=f.path,
                line=f.span.start.line,
                col=f.span.start.column + 1,
                endLine=f.span.end.line,
                endColumn=f.span.end.column + 1,
                title=f"dflash-migrate {f.code}",
            )
        )
    for e in errors_of(results):
        lines.append(_command("error", f"could not be processed: {e.message}", file=e.path, line=e.line,
                              title="dflash-migrate error"))
    for path, line, codes in unused_suppressions_of(results):
        lines.append(_command("warning", f"unused suppression ignore[{','.join(codes) or '*'}]", file=path, line=line,
                              title="dflash-migrate unused suppression"))
    return "".join(line + "\n" for line in lines)
