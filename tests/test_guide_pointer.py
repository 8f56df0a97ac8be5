"""Where TODOs and tombstones point (issue 48): the relative ``MIGRATION.md#anchor`` by
default (the project has no public address); a configured ``guide-url``, else the
installed package's ``Migration guide`` ``Project-URL``, where one is set. At 8ed1b04 the
pointer was always ``MIGRATION.md``, which a fork does not have, and no key set it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from codemod_helpers import todo_lines

from migrator.catalog import guide

URL = "https://wiki.example.org/dflash-migration"
SOURCE = '''\
import os

from sglang.srt.managers.scheduler import validate_dflash_request


def check(req):
    os.environ["SGLANG_ENABLE_SPEC_V2"] = "1"
    validate_dflash_request(req)
'''


def _fix(tree: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "migrator", *extra, str(tree), "--allow-dirty", "--target-version",
                           "0.5.17"], capture_output=True, text=True, cwd=tree, check=False)


def _project(tmp_path: Path, table: str) -> Path:
    (tmp_path / "pyproject.toml").write_text(f"[tool.dflash-migrate]\n{table}")
    module = tmp_path / "serve.py"
    module.write_text(SOURCE)
    return module


def _comments(text: str) -> str:
    """The comment lines of ``text`` as one line of words (a wrapped comment joined again)."""
    lines = [line.strip().lstrip("#").strip() for line in text.splitlines() if line.lstrip().startswith("#")]
    return " ".join(" ".join(lines).split())


def test_by_default_todos_point_at_the_relative_guide(tmp_path: Path) -> None:
    module = _project(tmp_path, "")
    _fix(tmp_path)
    after = module.read_text()
    assert todo_lines(after) and all(line.endswith("(MIGRATION.md#dfm307)") for line in todo_lines(after)), after
    assert "# dflash-migrate: removed `os.environ[\"SGLANG_ENABLE_SPEC_V2\"] = \"1\"` (DFM201)\n" in after


def test_a_configured_guide_url_is_what_todos_and_tombstones_name_and_a_second_run_changes_nothing(
        tmp_path: Path) -> None:
    module = _project(tmp_path, f'guide-url = "{URL}"\n')
    done = _fix(tmp_path)
    assert done.returncode in (0, 1), done.stderr
    after = module.read_text()
    todos = todo_lines(after)
    assert todos and all(line.endswith(f"({URL}#dfm307)") for line in todos), after
    assert "MIGRATION.md" not in after
    assert f"(DFM201; {URL}#dfm201)" in _comments(after)
    again = _fix(tmp_path)
    assert module.read_text() == after, "a TODO pointing at the configured guide was written again"
    assert "unresolved migration TODO" not in again.stdout, again.stdout


@pytest.mark.parametrize("line_length", [88, 120])
def test_a_tombstone_naming_the_guide_url_fits_the_line_length(tmp_path: Path, line_length: int) -> None:
    """At 1549b23 the tombstone was one line, 124 characters with this address."""
    module = _project(tmp_path, f'guide-url = "{URL}"\n[tool.ruff]\nline-length = {line_length}\n')
    module.write_text(SOURCE.replace("check(req):", "check(req):\n    if req:").replace("\n    os.environ", "\n        os.environ"))
    _fix(tmp_path)
    after = module.read_text()
    assert f'removed `os.environ["SGLANG_ENABLE_SPEC_V2"] = "1"` (DFM201; {URL}#dfm201)' in _comments(after), after
    assert max(map(len, after.splitlines())) <= line_length, after
    again = _fix(tmp_path)
    assert module.read_text() == after and "unresolved" not in again.stdout, again.stdout


def test_a_todo_written_before_the_guide_url_was_set_is_the_same_todo(tmp_path: Path) -> None:
    module = _project(tmp_path, "")
    _fix(tmp_path)
    before = module.read_text()
    (tmp_path / "pyproject.toml").write_text(f'[tool.dflash-migrate]\nguide-url = "{URL}"\n')
    again = _fix(tmp_path)
    assert module.read_text() == before, "the TODO was written again with the new address"
    lint = _fix(tmp_path, "lint")
    assert "DFM307" in lint.stdout, lint.stderr  # the finding itself, once
    assert "unresolved migration TODO" not in again.stdout + lint.stdout


def test_text_files_point_at_the_configured_guide_too(tmp_path: Path) -> None:
    _project(tmp_path, f'guide-url = "{URL}"\n')
    script = tmp_path / "serve.sh"
    script.write_text("export SGLANG_ENABLE_SPEC_V2=$MODE\n")
    _fix(tmp_path)
    assert todo_lines(script.read_text())[0].endswith(f"({URL}#dfm201)"), script.read_text()


@pytest.mark.parametrize("value", ['"wiki.example.org/guide"', f'"{URL}#top"', '"https://x.org/a b"', "3"])
def test_a_guide_url_that_is_not_an_address_is_a_config_error_naming_file_and_key(tmp_path: Path, value: str) -> None:
    module = _project(tmp_path, f"guide-url = {value}\n")
    done = _fix(tmp_path)
    assert done.returncode == 2
    assert "pyproject.toml" in done.stderr and "guide-url" in done.stderr, done.stderr
    assert module.read_text() == SOURCE


def test_the_package_metadata_gives_the_address_when_it_has_a_migration_guide_url(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real distribution's metadata, read by importlib.metadata from a folder on the path."""
    info = tmp_path / "site" / "fork_tools-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fork-tools\nVersion: 1.0\n"
                                   "Project-URL: Source, https://git.example.org/fork-tools\n"
                                   f"Project-URL: Migration guide, {URL}\n")
    bare = tmp_path / "site" / "bare_tools-1.0.dist-info"
    bare.mkdir()
    (bare / "METADATA").write_text("Metadata-Version: 2.1\nName: bare-tools\nVersion: 1.0\n"
                                   "Project-URL: Documentation, https://docs.example.org/\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert guide.from_metadata("fork-tools") == URL
    assert guide.from_metadata("bare-tools") == ""  # another label is not the guide
    assert guide.from_metadata("no-such-distribution-here") == ""


def test_without_a_guide_url_a_fix_run_reads_the_installed_packages_migration_guide_url(tmp_path: Path) -> None:
    """A build of dflash-migrate whose metadata names its guide (here a dist-info ahead of
    the installed one on the path: importlib.metadata finds it first)."""
    site = tmp_path / "site"
    info = site / "dflash_migrate-99.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: dflash-migrate\nVersion: 99.0\n"
                                   f"Project-URL: Migration guide, {URL}\n")
    tree = tmp_path / "fork"
    tree.mkdir()
    module = _project(tree, "")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(site), os.environ.get("PYTHONPATH"))))}
    done = subprocess.run([sys.executable, "-m", "migrator", str(tree), "--allow-dirty", "--target-version", "0.5.17"],
                          capture_output=True, text=True, cwd=tree, env=env, check=False)
    assert done.returncode in (0, 1), done.stderr
    assert all(line.endswith(f"({URL}#dfm307)") for line in todo_lines(module.read_text())), module.read_text()
    lint = subprocess.run([sys.executable, "-m", "migrator", "lint", str(tree)], capture_output=True, text=True,
                          cwd=tree, env=env, check=False)
    assert "unresolved migration TODO" not in lint.stdout, lint.stdout


def test_the_pointer_is_set_per_run_and_read_back_by_the_todo_parser() -> None:
    from migrator import catalog

    entry = catalog.get("DFM307")
    try:
        guide.use(URL)
        comment = catalog.todo_comment(entry, "say it")
        assert comment.endswith(f"({URL}#{entry.anchor})")
        assert catalog.todo_detail(entry, comment) == "say it"
    finally:
        guide.use("")
    assert catalog.todo_comment(entry, "say it").endswith(f"(MIGRATION.md#{entry.anchor})")


def _explain(cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run([sys.executable, "-m", "migrator", "explain", "DFM307"], capture_output=True, text=True,
                          cwd=cwd, env=env, check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_explain_points_where_the_todos_point(tmp_path: Path) -> None:
    """At 1549b23 `explain` said `See MIGRATION.md#dfm307` whatever `guide-url` the project set."""
    bare = tmp_path / "bare"
    bare.mkdir()
    assert "See MIGRATION.md#dfm307" in _explain(bare)
    configured = tmp_path / "configured"
    configured.mkdir()
    _project(configured, f'guide-url = "{URL}"\n')
    out = _explain(configured)
    assert f"See {URL}#dfm307\n" in out and "MIGRATION.md" not in out, out


def test_explain_reads_the_installed_packages_migration_guide_url(tmp_path: Path) -> None:
    site = tmp_path / "site"
    info = site / "dflash_migrate-99.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: dflash-migrate\nVersion: 99.0\n"
                                   f"Project-URL: Migration guide, {URL}\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(site), os.environ.get("PYTHONPATH"))))}
    assert f"See {URL}#dfm307\n" in _explain(tmp_path, env)
