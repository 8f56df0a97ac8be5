"""One file's bytes to their rules (``migrator.run.pipeline`` reads them and asks here): the
release the file is for (``migrator.run.own_release``: a file for a release before the V2
worker gets its fixes as TODOs), history files (reported as DFM490 only where selected), then
a Python file through ``migrator.run.python_file`` and any other through its text rule's
handler (``migrator.text``, given ``python_file``'s analyser for embedded Python). Imported
by the pipeline where a file passes the byte prefilter: a run that processes none never
imports the analysis, the rules or own releases."""

from __future__ import annotations

import ast

from migrator import catalog
from migrator.base.fileio import SourceError, declared_encoding, decode_python
from migrator.base.model import INFO, FileResult, Fix, InsertComment, RewriteError
from migrator.base.options import Options, enabled_for
from migrator.catalog.target import label
from migrator.edit import applied, apply, chosen_edits
from migrator.python.fallbacks import anchor_lines
from migrator.run.files import is_history, is_python
from migrator.run.own_release import is_known_v2, is_v1_era, own_release
from migrator.run.passes import MAX_ANALYZE_BYTES, Pass
from migrator.run.python_file import process_python, text_context, too_large
from migrator.text import handler_for

#: A notebook is mostly outputs (images), and its code cells go through the Python limit
#: one by one; but the whole JSON is parsed first (~15x its size in memory, ~0.3 s per MB).
MAX_NOTEBOOK_BYTES = 16 * 1024 * 1024


def process(path: str, data: bytes, options: Options, module_name: str | None, this_pass: Pass) -> FileResult:
    """Findings (and, unless linting, the fixed bytes) for one file's content, for the release
    it is for where it names one (``migrator.run.own_release``), else for the run's target;
    ``options`` hold a target already (``migrator.run.pipeline.process_bytes``)."""
    own = own_release(path, data, options.release_scopes)
    if own is None:
        return _process_for_target(path, data, options, module_name, this_pass)
    releases, why = own
    if not releases or is_v1_era(releases[-1]):  # a V2-era fix would change the file on its release
        result = _process_before_v2(path, data, options, module_name, this_pass, releases, why)
    elif options.target_from_flag:  # --target-version wins for a V2 file's range
        return _process_for_target(path, data, options, module_name, this_pass)
    else:
        known = tuple(r for r in releases if is_known_v2(r))
        if not known or known == (options.target_releases or (options.target_version,)):
            return _process_for_target(path, data, options, module_name, this_pass)
        result = _process_for_target(path, data, options._replace(target_version=known[-1], target_releases=known),
                                     module_name, this_pass)
    result.narrowed = (releases, why)
    return result


def _process_before_v2(path: str, data: bytes, options: Options, module_name: str | None, this_pass: Pass,
                       releases: tuple[str, ...], why: str) -> FileResult:
    """Findings for the run's V2 target, but only TODOs written: with a fix among them, the
    file is reported (and a Python file gets each fix as a TODO), not fixed."""
    result = _process_for_target(path, data, options, module_name, this_pass)
    if result.fixes_applied or any(applied(f.fix, True) for f in result.findings):
        result = _process_for_target(path, data, options._replace(mode="lint"), module_name, this_pass)
        note = (f"this file is for sglang {label(releases)} ({why}), before the V2 worker: not fixed for a V2 release"
                if releases else f"this file's sglang release is not known ({why}): not fixed for a V2 release")
        result.findings = [f if f.fix is None or f.fix.applicability == "manual" else f._replace(
            fix=None, message=f"{f.message}; {note}") for f in result.findings]
        if options.fixes and is_python(path) and result.error is None:
            _write_todos(result, data, note)
    return result


def _write_todos(result: FileResult, data: bytes, note: str) -> None:
    """A Python file for a release before the V2 worker: each finding the run would have
    fixed becomes a TODO above its statement (text files keep their findings only: each
    format writes its comments its own way)."""
    if b"coding" in data:
        if declared_encoding(data) != "utf-8":
            return  # python_file._apply's round-trip rule, kept simple here: findings only
    try:
        source = decode_python(data)
        anchors = anchor_lines(ast.parse(source), {f.span.start.line for f in result.findings})
        findings = [f._replace(fix=Fix("manual", (InsertComment(anchors[f.span.start.line], catalog.todo_comment(
            catalog.get(f.code), f.message)),))) if f.fix is None and f.message.endswith(note) else f
            for f in result.findings]
        edits = chosen_edits(findings, False)
        new = apply(data, edits, source)
    except (SourceError, SyntaxError, ValueError, RecursionError, KeyError, RewriteError):
        return  # the findings stay, without TODOs
    result.findings = findings
    if new != data:
        result.new_bytes = new


def _process_for_target(path: str, data: bytes, options: Options, module_name: str | None,
                        this_pass: Pass) -> FileResult:
    if is_history(path):
        return _as_history(_process_file(path, data, options._replace(
            mode="lint", select=None, ignore=frozenset(), per_file_ignores=()), module_name, this_pass), options)
    return _process_file(path, data, options, module_name, this_pass)


def _as_history(result: FileResult, options: Options) -> FileResult:
    """A history file's result: what was stays as it was (no fix, no TODO), and each mention
    becomes an informational DFM490 naming the code that found it, only where DFM490 is
    selected by name (``--select DFM490``, or a prefix of it); otherwise none."""
    code = catalog.HISTORY_CODE
    wanted = options.select is not None and enabled_for(result.path, options)(code)
    result.findings = [f._replace(code=code, message=f"{catalog.get(code).message} ({f.code}: {f.message})", fix=None,
                                  severity=INFO) for f in result.findings] if wanted else []
    result.new_bytes, result.fixes_applied = None, 0
    return result


def _process_file(path: str, data: bytes, options: Options, module_name: str | None, this_pass: Pass) -> FileResult:
    if is_python(path):
        return process_python(path, data, options, module_name, this_pass)

    handler = handler_for(path)
    if handler is None:
        return FileResult(path)
    if data[:64].lstrip()[:1] in (b"{", b"[") and _own_report(data):  # a report starts so; no copy of the file
        result = FileResult(path)
        result.own_report = True
        return result
    limit = MAX_NOTEBOOK_BYTES if path.endswith(".ipynb") else MAX_ANALYZE_BYTES
    if len(data) > limit:
        return too_large(path, data, True, limit)
    return handler(path, data, text_context(path, options))


def _own_report(data: bytes) -> bool:
    from migrator.report.own import is_own_report

    return is_own_report(data)
