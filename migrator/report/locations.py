"""Where findings are, for CI systems: repository-relative paths and stable fingerprints.

CI systems attach results to files by their path from the repository's top (GitHub
annotations and code scanning, GitLab Code Quality), whatever folder the tool ran in.
:func:`repo_root` is the nearest folder above the current one that holds ``.git`` (a
folder or a worktree's file; git itself is never started, so a scanned repository's
config cannot run anything), else the current folder.

A fingerprint identifies a finding across runs while lines move: it is the SHA-256 of the
repository-relative path (its bytes), the rule code, the message (without a notebook's
``[cell N, line M]`` position) and the occurrence number among findings with the same
three, counted in line order. Line and column are not part of it. Baselines, SARIF
``partialFingerprints``, GitLab Code Quality and JUnit test names all use it.
"""

from __future__ import annotations

import os

from migrator.base.patterns import on_first_use
from migrator.base.repository import repo_root, root_of
from migrator.base.repository import top_of as _top_of
from migrator.report.common import findings_of

__all__ = ["fingerprinted", "fingerprints", "repo_relative", "repo_root", "report_path", "root_of"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

    from migrator.base.model import FileResult, Finding

_CELL_POSITION = on_first_use(r" \[cell \d+, line \d+\]$")


def _below(absolute: str, root: str) -> str | None:
    if absolute != root and not absolute.startswith(root.rstrip(os.sep) + os.sep):
        return None
    return os.path.relpath(absolute, root).replace(os.sep, "/")


def repo_relative(path: str, anchored: bool = False) -> str | None:
    """``path`` relative to its repository's top with ``/`` separators, however it was
    named: :func:`repo_root` where the file lies in it (also through a symbolic link to
    it), else the repository holding the file (a run started outside it); None when the
    file is in no repository and outside the current folder. A fingerprint, and the
    ``through`` part of a message, are then the same for ``lint .``, ``lint FILE``,
    ``lint /abs/FILE`` and a run from another folder (outside any repository: the path
    relative to the current folder, as before). ``anchored``: relative to
    :func:`repo_root` only, else None (SARIF's ``%SRCROOT%`` names that folder)."""
    absolute = os.path.abspath(path)
    here = repo_root()
    relative = _below(absolute, here)
    if relative is not None and (anchored or _top_of(here) is not None):
        return relative
    real = os.path.realpath(absolute)
    if anchored:
        return _below(real, os.path.realpath(here))
    top = _top_of(os.path.dirname(real))
    if top is not None:
        return _below(real, top)
    return relative  # in no repository: relative to the current folder where it is below it


def report_path(path: str) -> str:
    """The repository-relative path where there is one, else the path as given (no ``./``)."""
    relative = repo_relative(path)
    if relative is not None:
        return relative
    return path[2:] if path.startswith("./") else path


def fingerprints(findings: Iterable[Finding]) -> list[str]:
    """One fingerprint per finding (hex SHA-256), in the order given (which should be the
    reports' path/line order, so that occurrence numbers count in line order)."""
    import hashlib  # here: OpenSSL's start-up (~10 ms) only for the formats that fingerprint

    seen: dict[tuple[str, str, str], int] = {}
    out = []
    for finding in findings:
        key = (report_path(finding.path), finding.code, _CELL_POSITION().sub("", finding.message))
        occurrence = seen.get(key, 0)
        seen[key] = occurrence + 1
        digest = hashlib.sha256()
        for part in (*(text.encode("utf-8", "surrogatepass") for text in key), str(occurrence).encode()):
            digest.update(len(part).to_bytes(4, "big") + part)
        out.append(digest.hexdigest())
    return out


def fingerprinted(results: list[FileResult]) -> list[tuple[Finding, str]]:
    """Every finding in report order (:func:`migrator.report.common.findings_of`) with its
    fingerprint."""
    findings = list(findings_of(results))
    return list(zip(findings, fingerprints(findings)))
