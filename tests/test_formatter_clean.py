"""Formatter-clean output (issue 48): a fork that runs black and ruff in pre-commit passes
after the fix where it passed before. On every fast corpus of ``scripts/snapshot_findings.py``
(the forks of ``tests/data/forks``, the bundled example and its migrated tree, the hostile
files, relative imports), with and without ``--unsafe-fixes``: each Python file that
``black --check``, ``ruff check --select I,W`` or ``ruff format --check`` accepts before the
fix, the same tool accepts after it. At 8ed1b04 an emptied dict left a whitespace-only line
(W293), and a removed import left a tombstone comment inside the import block, which black
separates and ruff's isort re-sorts."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "snapshot_findings.py"
HAVE_TOOLS = all(importlib.util.find_spec(name) is not None for name in ("black", "ruff"))
pytestmark = pytest.mark.skipif(not HAVE_TOOLS, reason="black and ruff are in the test extra: pip install -e '.[test]'")
#: tool -> (command, how its output names a file it rejects); each takes the files after it,
#: with no configuration file of the corpus or of this repository (``--isolated``,
#: ``--config`` keep this checkout's own settings out).
TOOLS = {
    "black": ((sys.executable, "-m", "black", "--check", "--config", os.devnull),
              re.compile(r"^(?:would reformat|error: cannot format) (.+?)(?::\s.*)?$", re.M)),
    "ruff check --select I,W": ((sys.executable, "-m", "ruff", "check", "--isolated", "--select", "I,W",
                                 "--output-format", "concise", "--no-cache"),
                                re.compile(r"^(.+?\.py):(?:\d+:\d+:)? ", re.M)),
    "ruff format --check": ((sys.executable, "-m", "ruff", "format", "--isolated", "--check", "--no-cache"),
                            re.compile(r"^(?:Would reformat: |error: Failed to \w+ )(.+?\.py)\b", re.M)),
}


def _snapshot_module():  # noqa: ANN202 - the script as a module, for its corpora
    spec = importlib.util.spec_from_file_location("snapshot_findings_for_formatters", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SNAPSHOT = _snapshot_module()
CORPORA = sorted(name for name in SNAPSHOT.corpora() if name not in SNAPSHOT.SLOW)


#: Exit codes after which the output names every rejected file (black: 123 where it cannot
#: parse a file; ruff: 2 where it cannot read one); any other is a crash.
REPORTED = (0, 1, 2, 123)


def _accepted(tool: str, root: Path, files: list[Path]) -> set[Path]:
    """The files ``tool`` accepts: one run over all of them, the rejected ones read from its
    output (a file it cannot read, or one it crashes on, counts as rejected)."""
    if not files:
        return set()
    command, rejected = TOOLS[tool]
    done = subprocess.run([*command, *(str(path.relative_to(root)) for path in files)], cwd=root,
                          capture_output=True, text=True, errors="replace", check=False)
    if done.returncode not in REPORTED and len(files) > 1:  # it crashed (ruff overflows its stack on the
        half = len(files) // 2  # deepest hostile file): the halves on their own, down to the file
        return _accepted(tool, root, files[:half]) | _accepted(tool, root, files[half:])
    if done.returncode not in REPORTED:
        return set()
    named = {(root / name.strip()).resolve() for name in rejected.findall(done.stdout + done.stderr)}
    return {path for path in files if path.resolve() not in named}


@pytest.mark.parametrize("corpus", CORPORA)
def test_a_file_the_formatters_accept_before_the_fix_they_accept_after(corpus: str, tmp_path: Path) -> None:
    original = tmp_path / "original"
    original.mkdir()
    SNAPSHOT.corpora()[corpus](original)
    files = sorted(path.relative_to(original) for path in original.rglob("*.py") if path.is_file() and not path.is_symlink())
    before = {tool: {path.relative_to(original) for path in _accepted(tool, original, [original / f for f in files])}
              for tool in TOOLS}
    assert any(before.values()), "no file is formatter-clean before: the test would prove nothing"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    broken, changed_any = [], False
    for mode in ((), ("--unsafe-fixes",)):
        root = tmp_path / ("unsafe" if mode else "safe")
        shutil.copytree(original, root, symlinks=True)
        subprocess.run([sys.executable, "-m", "migrator", ".", "--target-version", SNAPSHOT.TARGET, *mode],
                       cwd=root, env=env, capture_output=True, check=False)
        changed = [f for f in files if (root / f).read_bytes() != (original / f).read_bytes()]
        changed_any = changed_any or bool(changed)
        for tool in TOOLS:
            candidates = [root / f for f in changed if f in before[tool]]
            accepted = _accepted(tool, root, candidates)
            broken += [f"{path.relative_to(root)} ({' '.join(mode) or 'safe fixes'}): {tool}"
                       for path in candidates if path not in accepted]
    if not changed_any:
        pytest.skip(f"the fix changes no Python file of {corpus}: nothing to check")
    assert not broken, "formatter-clean before the fix, not after:\n" + "\n".join(broken)


def test_an_emptied_or_shortened_dict_leaves_no_whitespace_only_line() -> None:
    from codemod_helpers import migrate

    new, _ = migrate('''
        import os
        import subprocess

        ENV = {
            "SGLANG_ENABLE_SPEC_V2": "1",
        }


        def launch():
            env = {
                **os.environ,
                "SGLANG_ENABLE_SPEC_V2": "1",
            }
            subprocess.run(["python", "-m", "sglang.launch_server"], env=env)
        ''')
    assert "ENV = {}\n" in new
    assert "        **os.environ,\n    }\n" in new
    assert not [line for line in new.splitlines() if line and not line.strip()], new


def test_a_removed_statement_is_named_by_its_rule_and_a_removed_import_leaves_no_comment() -> None:
    from codemod_helpers import migrate

    new, _ = migrate('''
        import os

        from sglang.srt.speculative import dflash_info as di

        os.environ["SGLANG_ENABLE_SPEC_V2"] = "1"


        def f(x: di.DFlashDraftInput):
            return x
        ''')
    assert '# dflash-migrate: removed `os.environ["SGLANG_ENABLE_SPEC_V2"] = "1"` (DFM201)\n' in new
    assert "MIGRATION.md)" not in new and "removed `from" not in new
