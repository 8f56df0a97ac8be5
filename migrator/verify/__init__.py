"""``dflash-migrate verify``: will this fork import and run on the SGLang I deploy?

Statically resolves every ``sglang.*`` reference of a fork (imports, attribute chains,
subclass bases, members of known SGLang instances, overridden methods) against the
source of a target sglang release, and reports what that release lacks, with the nearest
existing name as a hint (the catalog's replacement first, else ``difflib``). Neither the
fork nor sglang is imported.

The target is one of:

* ``target_for_version("0.5.17")``: the wheel from PyPI, cached by :mod:`migrator.wheels`;
* ``target_for_tree(DIR)``: a folder holding the ``sglang`` package (or the package);
* ``installed_target()``: the sglang installed here, located with
  ``importlib.util.find_spec`` (which does not import it).

Codes (verify-specific, not catalog entries; see :mod:`migrator.verify.checker`):
``DFM900`` unresolved reference, ``DFM901`` override of a method the base no longer has.
Results are ``FileResult``s so that :mod:`migrator.report` renders them in every format
with lint's exit codes (0 clean, 1 findings, 2 a file could not be processed).
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path
from typing import Iterable, Iterator

from migrator import catalog
from migrator.model import FileError, FileResult, Finding, RunSummary
from migrator.sglang_index import SglangIndex

from .checker import OVERRIDE_CODE, UNRESOLVED_CODE, VERIFY_CODES, FileChecker, Target

__all__ = [
    "OVERRIDE_CODE", "UNRESOLVED_CODE", "VERIFY_CODES", "Target", "verify_source", "verify_paths",
    "target_for_version", "target_for_tree", "installed_target", "summarize", "exit_code",
    "iter_python_files", "acknowledged_by_todo",
]

_SKIP_DIRS = {".git", "__pycache__", ".venv", "venv", ".tox", "node_modules", "build", "dist", ".mypy_cache"}


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
    from importlib import metadata

    try:
        version: str | None = metadata.version("sglang")
    except metadata.PackageNotFoundError:
        version = None
    return Target(index, version, _baseline(baseline_version))


def iter_python_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    for path in map(Path, paths):
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
                for name in sorted(files):
                    if name.endswith(".py"):
                        yield Path(root) / name
        else:
            yield path


def verify_source(path: str, source: str, target: Target, module_name: str | None = None) -> list[Finding]:
    """Findings for one file's text (raises ``SyntaxError`` when it does not parse)."""
    tree = ast.parse(source, filename=path)
    return FileChecker(path, source, tree, target, module_name).run()


def verify_paths(paths: Iterable[str | Path], target: Target) -> list[FileResult]:
    """One ``FileResult`` per Python file under ``paths`` (errors, not exceptions, for
    files that cannot be read or parsed)."""
    results: list[FileResult] = []
    for file in iter_python_files(paths):
        display = str(file)
        result = FileResult(display)
        try:
            source = file.read_bytes().decode("utf-8-sig")
            result.findings = verify_source(display, source, target)
        except SyntaxError as exc:
            result.error = FileError(display, f"cannot parse: {exc.msg}", exc.lineno, (exc.offset or 1) - 1)
        except (OSError, UnicodeDecodeError) as exc:
            result.error = FileError(display, f"cannot read: {exc}")
        results.append(result)
    return results


def summarize(results: list[FileResult]) -> RunSummary:
    return RunSummary(
        files_scanned=len(results),
        files_with_errors=sum(1 for r in results if r.error is not None),
        findings=sum(len(r.findings) for r in results),
    )


def exit_code(results: list[FileResult]) -> int:
    """lint's convention: 2 a file could not be processed, 1 findings, 0 clean."""
    if any(r.error is not None for r in results):
        return 2
    return 1 if any(r.findings for r in results) else 0


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
