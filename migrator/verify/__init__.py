"""``dflash-migrate verify``: will this fork import and run on the SGLang I deploy?

Statically resolves every ``sglang.*`` reference of a fork (imports, attribute chains,
subclass bases, members of known SGLang instances, overridden methods) against the
source of a target sglang release, and reports what that release lacks, with the
catalog's replacement as a hint where it names one (never a name spelled alike). Neither the
fork nor sglang is imported.

The target is one of:

* ``target_for_version("0.5.17")``: the wheel from PyPI, cached by :mod:`migrator.releases.wheels`;
* ``target_for_tree(DIR)``: a folder holding the ``sglang`` package (or the package);
* ``installed_target()``: the sglang installed here, located with
  ``importlib.util.find_spec`` (which does not import it).

Codes (verify-specific, not catalog entries; see :mod:`migrator.verify.checker`):
``DFM900`` unresolved reference, ``DFM901`` override of a method the base no longer has.
Results are ``FileResult``s so that :mod:`migrator.report` renders them in every format
with lint's exit codes (0 clean, 1 findings, 2 a file could not be processed). Files are
found by the shared discovery (``.gitignore`` and the run's excludes are honoured); the
command itself is :mod:`migrator.cli.runs.verify`.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Iterable

from migrator import catalog
from migrator.base.fileio import SourceError, read_bytes
from migrator.base.model import FileError, FileResult, Finding, Span
from migrator.catalog.target import label
from migrator.releases.index import SglangIndex
from migrator.report.common import target_dict, target_text
from migrator.report.escape import visible
from migrator.report.json import dumps, error_dict, finding_dict
from migrator.report.locations import fingerprinted
from migrator.run.files import discover, is_python
from migrator.run.result import exit_code  # the one exit-code computation (lint's convention), re-exported
from migrator.verify.checker import OVERRIDE_CODE, UNRESOLVED_CODE, VERIFY_CODES, FileChecker, Target

TYPE_CHECKING = False
if TYPE_CHECKING:
    from migrator.base.options import Selection

__all__ = [
    "OVERRIDE_CODE", "UNRESOLVED_CODE", "VERIFY_CODES", "Target", "verify_source", "verify_paths",
    "target_for_version", "target_for_tree", "installed_target", "load_target", "exit_code",
    "acknowledged_by_todo", "drop_acknowledged", "DEFAULT_FROM_VERSION", "verify_releases", "range_report",
]

#: The release a V1 fork was most likely written against; its members tell overrides
#: from a subclass's own methods.
DEFAULT_FROM_VERSION = catalog.V1.last or "0.5.13"


def _baseline(version: str | None) -> SglangIndex | None:
    return SglangIndex.for_version(version) if version else None


def target_for_version(version: str, baseline_version: str | None = None) -> Target:
    """The released wheel of ``sglang==version`` (downloaded once into the cache)."""
    return Target(SglangIndex.for_version(version), version, _baseline(baseline_version))


def _version_near(tree: Path) -> str | None:
    """The release of an sglang folder, from a ``sglang-X.dist-info/METADATA`` beside it."""
    for folder in (tree, tree.parent):
        for meta in sorted(folder.glob("sglang-*.dist-info/METADATA")):
            match = re.search(r"^Version:\s*(\S+)", meta.read_text(errors="replace"), re.M)
            if match:
                return match.group(1)
    return None


def target_for_tree(tree: str | Path, baseline_version: str | None = None) -> Target:
    index = SglangIndex.from_tree(tree)
    root = Path(index.label).parent
    return Target(index, _version_near(root), _baseline(baseline_version))


def installed_target(baseline_version: str | None = None) -> Target:
    index = SglangIndex.installed()
    return Target(index, catalog.installed_version("sglang"), _baseline(baseline_version))


def verify_source(path: str, source: str, target: Target, module_name: str | None = None) -> list[Finding]:
    """Findings for one file's text (raises ``SyntaxError`` when it does not parse)."""
    tree = ast.parse(source, filename=path)
    return FileChecker(path, source, tree, target, module_name).run()


def load_target(sglang: str | None, target_version: str | None, from_version: str | None) -> Target:
    """The sglang to check against: a folder, a released wheel, or the installed one."""
    if sglang and target_version:
        raise ValueError("pass either --sglang DIR or --target-version X.Y.Z, not both")
    if target_version:
        return target_for_version(target_version, from_version)
    if sglang:
        return target_for_tree(sglang, from_version)
    return installed_target(from_version)


def verify_paths(paths: Iterable[str | Path], target: Target, selection: Selection | None = None,
                 skipped: list[tuple[Path, str]] | None = None, left_out: list[int] | None = None) -> list[FileResult]:
    """One ``FileResult`` per Python file under ``paths``, found by the shared discovery
    (errors, not exceptions, for paths that do not exist and files that cannot be read or
    parsed); what discovery skipped (links, special files) is appended to ``skipped``, the
    number of paths it left out (ignore files, excludes) to ``left_out``."""
    found = discover([Path(p) for p in paths], selection, accept=is_python)
    if skipped is not None:
        skipped.extend(found.skipped)
    if left_out is not None:
        left_out.append(found.left_out)
    results = [FileResult(str(p), error=FileError(str(p), "no such file or folder")) for p in found.missing]
    for display in found.files:
        result = FileResult(display)
        try:
            source = read_bytes(display).decode("utf-8-sig")  # its size checked before reading
            result.findings = verify_source(display, source, target)
        except SyntaxError as exc:
            result.error = FileError(display, f"cannot parse: {exc.msg}", exc.lineno, (exc.offset or 1) - 1)
        except SourceError as exc:
            result.error = FileError(display, exc.message)
        except (OSError, UnicodeDecodeError) as exc:
            result.error = FileError(display, f"cannot read: {exc}")
        except Exception as exc:  # noqa: BLE001 - one file's failure (nesting too deep...) is that file's error
            result.error = FileError(display, f"cannot verify ({type(exc).__name__}: {exc})")
        results.append(result)
    return results


def acknowledged_by_todo(finding: Finding, lines: list[str]) -> bool:
    """Whether a ``# TODO(dflash-migrate): ...`` comment sits in the comment block directly
    above the finding's line (where the codemod puts the TODOs it leaves) or on the line."""
    index = finding.line - 1
    if 0 <= index < len(lines) and catalog.TODO_MARKER in lines[index]:
        return True
    index -= 1
    while index >= 0 and lines[index].strip().startswith("#"):
        if catalog.TODO_MARKER in lines[index]:
            return True
        index -= 1
    return False


def _statement_starts(text: str) -> dict[int, int]:
    """line -> first line of the innermost simple statement covering it (the codemod puts
    its TODO above the statement, while a finding may sit on a continuation line)."""
    starts: dict[int, int] = {}
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return starts
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not hasattr(node, "body"):
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                starts[line] = max(starts.get(line, 0), node.lineno)
    return starts


def _at_line(finding: Finding, line: int) -> Finding:
    return finding._replace(span=Span.of(line, 0, line, 0))


def drop_acknowledged(results: list[FileResult]) -> int:
    """Remove findings under a ``TODO(dflash-migrate)`` the codemod left; returns how many."""
    dropped = 0
    for result in results:
        if not result.findings:
            continue
        text = Path(result.path).read_text(encoding="utf-8-sig", errors="replace")
        lines = text.splitlines()
        starts = _statement_starts(text)
        kept = [
            f for f in result.findings
            if not acknowledged_by_todo(f, lines) and not acknowledged_by_todo(_at_line(f, starts.get(f.line, f.line)), lines)
        ]
        dropped += len(result.findings) - len(kept)
        result.suppressed += len(result.findings) - len(kept)
        result.findings = kept
    return dropped


# ---- a range of releases ---------------------------------------------------------------


def verify_releases(paths: Iterable[str | Path], releases: tuple[str, ...], from_version: str | None,
                    selection: Selection | None = None, skipped: list[tuple[Path, str]] | None = None,
                    skip_todos: bool = False) -> dict[str, list[FileResult]]:
    """``verify_paths`` on each release (each wheel downloaded once and cached): release ->
    its results, in the order of ``releases``."""
    matrix: dict[str, list[FileResult]] = {}
    for number, release in enumerate(releases):
        results = verify_paths(paths, target_for_version(release, from_version), selection,
                               skipped if number == 0 else None)
        if skip_todos:
            drop_acknowledged(results)
        matrix[release] = results
    return matrix


def range_report(matrix: dict[str, list[FileResult]], fmt: str, target: tuple[tuple[str, ...], str],
                 config: str | None = None) -> tuple[str, list[FileResult]]:
    """The report of a verify over several releases, and the results every other format
    renders (each finding says its release). ``text``: per file that fails on some release,
    those releases and the first failing name; files that resolve everywhere are counted.
    ``json``: the full release x file matrix."""
    releases = tuple(matrix)
    paths = [result.path for result in next(iter(matrix.values()), [])]
    by_path = {release: {r.path: r for r in results} for release, results in matrix.items()}
    failing: dict[str, dict[str, FileResult]] = {}
    for path in paths:
        bad = {release: by_path[release][path] for release in releases
               if by_path[release][path].findings or by_path[release][path].error is not None}
        if bad:
            failing[path] = bad
    merged = [_merged(path, {release: by_path[release][path] for release in releases}) for path in paths]
    if fmt == "json":
        document = {
            "version": 1, "kind": "verify-range", "target": target_dict(target), "config": config,
            "releases": list(releases),
            "files": [{"path": path, "releases": {release: _cell(by_path[release][path], finding_dict, error_dict,
                                                                 fingerprinted)
                                                  for release in releases}} for path in paths],
            "summary": {"files": len(paths), "failing": len(failing), "releases": len(releases)},
        }
        return dumps(document) + "\n", merged
    if fmt != "text":
        return "", merged
    lines = []
    for path, bad in failing.items():
        first = next(iter(bad.values()))
        name = str(first.error) if first.error is not None else f"line {first.findings[0].line}: {first.findings[0].message}"
        lines.append(f"{path}: fails on sglang {label(tuple(bad))}; first: {name}")
    lines.append(f"{len(paths) - len(failing)} of {len(paths)} files resolve on every release of "
                 f"{target_text(target)}; {len(failing)} fail on some" + (f" (config: {config})" if config else "") + ".")

    return "\n".join(visible(line) for line in lines) + "\n", merged


def _cell(result: FileResult, finding_dict, error_dict, fingerprinted) -> dict[str, object]:  # noqa: ANN001
    return {"resolves": not result.findings and result.error is None,
            "findings": [finding_dict(f, fp) for f, fp in fingerprinted([result])],
            "error": error_dict(result.error) if result.error is not None else None}


def _merged(path: str, cells: dict[str, FileResult]) -> FileResult:
    """One file's findings over every release, each saying its release (same finding on
    several releases: once, naming them all)."""
    merged = FileResult(path)
    seen: dict[tuple, list[str]] = {}
    findings: dict[tuple, Finding] = {}
    for release, result in cells.items():
        if result.error is not None and merged.error is None:
            merged.error = result.error
        for finding in result.findings:
            key = (finding.span, finding.code, finding.message.replace(f"sglang {release}", "sglang {release}"))
            seen.setdefault(key, []).append(release)
            findings.setdefault(key, finding)
    merged.findings = [findings[key]._replace(message=findings[key].message + f" (on sglang {label(tuple(releases))})")
                       for key, releases in seen.items()]
    merged.findings.sort(key=Finding.sort_key)
    return merged
