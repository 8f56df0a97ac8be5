"""Shared helpers for the rule tests: run the real engine on source text."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from migrator.base.model import Finding
from migrator.catalog import NEWEST_RELEASE
from migrator.run.engine import Options
from migrator.run.pipeline import process_bytes


def migrate(source: str, *, target: str = "0.5.17", path: str = "fork_module.py", unsafe: bool = False,
            module_name: str | None = None, mode: str = "fix", releases: tuple[str, ...] = ()) -> tuple[str, list[Finding]]:
    """(new source, findings) for dedented ``source``; the output must always parse.
    ``releases``: a target of several releases (oldest first; ``target`` is then the newest)."""
    data = textwrap.dedent(source).encode()
    if releases:
        target = releases[-1]
    options = Options(mode=mode, target_version=target, target_releases=releases, unsafe_fixes=unsafe)
    result = process_bytes(path, data, options, module_name)
    assert result.error is None, result.error
    new = result.new_bytes.decode() if result.new_bytes is not None else data.decode()
    ast.parse(new)
    if result.new_bytes is not None:  # idempotent: a second run changes nothing
        again = process_bytes(path, result.new_bytes, options._replace(mode="fix"), module_name)
        assert again.new_bytes is None, "second run changed the file"
    return new, result.findings


def codes(findings: list[Finding]) -> list[str]:
    return sorted(f.code for f in findings)


def todo_lines(source: str) -> list[str]:
    """Each TODO comment of ``source``, stripped, a wrapped one joined into one line."""
    from migrator.edit.comments import logical

    lines = source.splitlines()
    return [logical(lines, index)[0] for index, line in enumerate(lines) if "TODO(dflash-migrate)" in line]


def unwrapped(text: str) -> str:
    """``text`` with each wrapped TODO comment on one line again (``migrator.edit.comments``):
    for tests that read what a TODO says, not how it is wrapped."""
    import re

    return re.sub(r"\n[ \t]*#   ", " ", text)


def write_tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))


def assert_shortcut_changes_nothing(tree: Path, disable_shortcut, mode: str = "check") -> list[Path]:  # noqa: ANN001
    """Findings and rewrites of every candidate file under ``tree`` are the same after
    ``disable_shortcut()`` turns a speed shortcut off; returns the candidates. ``mode``:
    "lint" for the shortcuts only the lint takes (``migrator.python.partial``)."""
    from migrator.relevance.prefilter import might_match

    options = Options(mode=mode, target_version=NEWEST_RELEASE)
    candidates = [p for p in sorted(tree.rglob("*.py")) if might_match(p.read_bytes())]
    fast = {p: process_bytes(str(p), p.read_bytes(), options) for p in candidates}
    disable_shortcut()
    for path in candidates:
        slow = process_bytes(str(path), path.read_bytes(), options)
        assert (fast[path].findings, fast[path].new_bytes) == (slow.findings, slow.new_bytes), path
    return candidates


def project_root(start: Path) -> Path:
    """The highest folder the configuration search looks at from ``start``: the repository
    top, or outside a repository the scanned folder (``start``, a file's folder). In a
    repository the fork index (``migrator.run.fork.index_scope``) covers the same folder."""
    from migrator.run.config import _search_path

    return _search_path(start)[-1]


def comments_written(text: str, edits: list, reader: str = "python") -> int:
    """How many comment lines applying ``edits`` to ``text`` adds (a TODO already present
    in the comment block above its line is not written again)."""
    from migrator.base.lines import split_lines
    from migrator.edit import new_comments

    return len(new_comments([line.rstrip("\r\n") for line in split_lines(text, reader)], edits))
