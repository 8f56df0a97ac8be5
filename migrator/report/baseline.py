"""Baselines: adopt the lint on a large fork gradually, failing CI only on new references.

``dflash-migrate lint --write-baseline FILE`` records every finding of the run by its
fingerprint (:mod:`migrator.report.locations`: repository-relative path, code, message and
occurrence number, not the line, so moving code does not invalidate the file).
``--baseline FILE`` drops the findings it lists from the report and the exit code, and
says how many of its entries were not seen again among the files scanned ("fixed": run
``--write-baseline`` again to shrink the file). Entries of files that were not scanned
(pre-commit passes only the changed files) are neither matched nor counted as fixed.

The file is JSON (``version``, then ``findings`` with ``fingerprint`` and, for people
reading a review, ``path``, ``line``, ``code`` and ``message``), sorted, one entry per
line, so that its diffs are readable.
"""

from __future__ import annotations

import json
from pathlib import Path

from migrator.base.fileio import SourceError, create_or_replace, read_bytes, refuse_links
from migrator.base.model import FileResult
from migrator.report.locations import fingerprinted, report_path

VERSION = 1


class BaselineError(Exception):
    """A baseline file that cannot be read or written (the message names it)."""


class Baseline:
    """The entries of a baseline file: fingerprint -> repository-relative path."""

    __slots__ = ("source", "entries")

    def __init__(self, source: str, entries: dict[str, str]) -> None:
        self.source = source
        self.entries = entries

    def apply(self, results: list[FileResult]) -> Applied:
        """Remove this baseline's findings from ``results`` (in place)."""
        seen: set[str] = set()
        keep: dict[int, bool] = {}
        for finding, fingerprint in fingerprinted(results):
            known = fingerprint in self.entries
            keep[id(finding)] = not known
            if known:
                seen.add(fingerprint)
        matched = 0
        for result in results:
            kept = [f for f in result.findings if keep.get(id(f), True)]
            matched += len(result.findings) - len(kept)
            result.findings = kept
        scanned = {report_path(r.path) for r in results}
        fixed = sum(1 for fp, path in self.entries.items() if fp not in seen and path in scanned)
        return Applied(matched, fixed)


class Applied:
    """What :meth:`Baseline.apply` did: findings hidden, entries fixed (among the files scanned)."""

    __slots__ = ("matched", "fixed")

    def __init__(self, matched: int, fixed: int) -> None:
        self.matched = matched
        self.fixed = fixed


def render(results: list[FileResult]) -> str:
    rows = []
    for finding, fingerprint in fingerprinted(results):
        if finding.informational:
            continue  # information, not work to hide: never written to a baseline
        rows.append(json.dumps({"fingerprint": fingerprint, "path": report_path(finding.path), "line": finding.line,
                                "code": finding.code, "message": finding.message}, ensure_ascii=True))
    findings = "[\n    " + ",\n    ".join(rows) + "\n  ]" if rows else "[]"
    return f'{{\n  "version": {VERSION},\n  "tool": "dflash-migrate",\n  "findings": {findings}\n}}\n'


def write(path: Path, results: list[FileResult]) -> int:
    """Write the baseline of ``results`` to ``path`` (:func:`migrator.base.fileio.create_or_replace`:
    atomic, never through a symbolic link); return the entry count."""
    text = render(results)
    try:
        create_or_replace(path, text.encode("ascii"))
    except SourceError as error:
        raise BaselineError(f"{path}: cannot write the baseline: {error.message}") from None
    return text.count('"fingerprint"')


def load(path: Path) -> Baseline:
    """The baseline at ``path``, read as every input is (:func:`migrator.base.fileio.read_bytes`:
    a regular file within the size limit; no symbolic link at it or in a folder of its path
    below the repository top, as for writes): a committed link to ``/dev/zero`` or a
    document nested past the parser's depth is a BaselineError naming the file."""
    try:
        refuse_links(path)
        data = read_bytes(path)
    except SourceError as error:
        raise BaselineError(f"{path}: cannot read the baseline: {error.message}") from None
    try:
        document = json.loads(data.decode("utf-8"))
    except ValueError as error:  # UnicodeDecodeError and JSONDecodeError too
        raise BaselineError(f"{path}: not a dflash-migrate baseline: {error}") from None
    except RecursionError:
        raise BaselineError(f"{path}: not a dflash-migrate baseline: arrays or objects nested too deeply") from None
    if not isinstance(document, dict) or document.get("version") != VERSION or not isinstance(
            document.get("findings"), list):
        raise BaselineError(f"{path}: not a dflash-migrate baseline (version {VERSION} with a findings list)")
    entries: dict[str, str] = {}
    for number, row in enumerate(document["findings"], start=1):
        if not (isinstance(row, dict) and isinstance(row.get("fingerprint"), str) and isinstance(row.get("path"), str)):
            raise BaselineError(f"{path}: entry {number} has no fingerprint and path")
        entries[row["fingerprint"]] = row["path"]
    return Baseline(str(path), entries)
