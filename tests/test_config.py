from __future__ import annotations

from pathlib import Path

import pytest

from migrator.base.options import selection
from migrator.cli.runs.options import build_options
from migrator.run.config import Config, ConfigError, find, load


def write(tmp_path: Path, body: str, where: str = "") -> Path:
    d = tmp_path / where
    d.mkdir(parents=True, exist_ok=True)
    (d / "pyproject.toml").write_text(body)
    return d


FULL = """
[project]
name = "fork"
[tool.dflash-migrate]
select = ["DFM1", "DFM201"]
ignore = ["dfm105"]
exclude = ["vendor/", "*.gen.py"]
target-version = "0.5.17"
[tool.dflash-migrate.per-file-ignores]
"tests/**" = ["DFM109"]
"docs/*.md" = ["DFM2"]
"""


def test_defaults_when_no_config(tmp_path: Path) -> None:
    write(tmp_path, "[project]\nname='x'\n")
    assert load(tmp_path) == Config()


def test_full_table(tmp_path: Path) -> None:
    root = write(tmp_path, FULL)
    (root / ".git").mkdir()
    (root / "src" / "deep").mkdir(parents=True)
    cfg = load(root / "src" / "deep")
    assert cfg.select == ("DFM1", "DFM201") and cfg.ignore == ("DFM105",)
    assert cfg.target_version == "0.5.17" and cfg.root == root
    options = build_options("lint", [root / "src" / "deep"])
    assert options.config == str(root / "pyproject.toml") and options.target_version == "0.5.17"
    enabled = selection(options).enabled_for
    assert enabled(str(root / "src" / "t.py"))("DFM101") and enabled(str(root / "src" / "t.py"))("DFM201")
    assert not enabled(str(root / "src" / "t.py"))("DFM105")  # ignored
    assert not enabled(str(root / "src" / "t.py"))("DFM203")  # not selected
    assert not enabled(str(root / "tests" / "unit" / "t.py"))("DFM109")
    assert enabled(str(root / "src" / "t.py"))("DFM109")
    assert not enabled(str(root / "docs" / "guide.md"))("DFM201")
    excluded = selection(options).excluded
    assert excluded(str(root / "vendor" / "lib.py")) and excluded(str(root / "a" / "b.gen.py"))
    assert not excluded(str(root / "src" / "lib.py"))


def test_nearest_table_wins_and_tableless_pyprojects_are_skipped(tmp_path: Path) -> None:
    write(tmp_path, FULL)
    (tmp_path / ".git").mkdir()
    write(tmp_path, "[project]\nname='inner'\n", "pkg")
    write(tmp_path, "[tool.dflash-migrate]\nignore=['DFM201']\n", "pkg/sub")
    assert find(tmp_path / "pkg") == tmp_path / "pyproject.toml"
    assert load(tmp_path / "pkg" / "sub" / "x.py").ignore == ("DFM201",)


def test_cli_overrides(tmp_path: Path) -> None:
    root = write(tmp_path, FULL)
    over = build_options("lint", [root], select=["DFM203"], ignore=None, target_version="0.5.20")
    assert over.select == {"DFM203"} and over.ignore == {"DFM105"} and over.target_version == "0.5.20"
    more = build_options("lint", [root], ignore=["DFM301,dfm302"], exclude=["gen/"])
    assert more.ignore == {"DFM105", "DFM301", "DFM302"}
    assert {pattern for _, pattern in more.exclude} == {"gen/", "vendor/", "*.gen.py"}


@pytest.mark.parametrize(
    "body, message",
    [
        ("[tool.dflash-migrate]\nselct=['DFM101']\n", "unknown key"),
        ("[tool.dflash-migrate]\nselect=['DFM999']\n", "unknown rule code"),
        ("[tool.dflash-migrate]\nselect='DFM101'\n", "list of strings"),
        ("[tool.dflash-migrate]\ntarget-version='latest'\n", "target-version"),
        ("[tool.dflash-migrate]\nexclude=[1]\n", "exclude"),
        ("[tool.dflash-migrate\n", "invalid TOML"),
    ],
)
def test_errors_name_the_problem(tmp_path: Path, body: str, message: str) -> None:
    write(tmp_path, body)
    with pytest.raises(ConfigError, match=message):
        load(tmp_path)


def test_search_stops_at_the_repository_top(tmp_path: Path) -> None:
    """A fork checked out inside another project is configured by its own files only."""
    (tmp_path / "pyproject.toml").write_text('[tool.dflash-migrate]\nselect = ["DFM1"]\n')
    fork = tmp_path / "checkouts" / "fork"
    (fork / ".git").mkdir(parents=True)
    (fork / "pkg").mkdir()
    assert find(fork / "pkg") is None and load(fork / "pkg") == Config()
    (fork / ".git").rmdir()
    (tmp_path / ".git").mkdir()
    assert find(fork / "pkg") == tmp_path / "pyproject.toml"


def test_outside_a_repository_only_the_scanned_folder_is_searched(tmp_path: Path) -> None:
    """A ``pyproject.toml`` in a writable parent (no ``.git`` anywhere) must not apply."""
    (tmp_path / "pyproject.toml").write_text('[tool.dflash-migrate]\nignore = ["DFM"]\n')
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    assert find(project) is None and find(project / "pkg") is None
    (project / "pyproject.toml").write_text('[tool.dflash-migrate]\nignore = ["DFM2"]\n')
    assert find(project) == project / "pyproject.toml"


def test_outside_a_repository_the_current_folder_does_not_widen_the_search(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """``cd parent && dflash-migrate lint project``: the parent's ``pyproject.toml`` is above
    the scanned folder, so it does not apply (it did while the search stopped at the current
    folder), and the fork index covers the same folder as the search."""
    from codemod_helpers import project_root  # also the folder the run's fork index covers

    (tmp_path / "pyproject.toml").write_text('[tool.dflash-migrate]\nignore = ["DFM"]\n')
    project = tmp_path / "project"
    (project / "pkg").mkdir(parents=True)
    (project / "pkg" / "m.py").write_text("")
    monkeypatch.chdir(tmp_path)
    assert find(project) is None and find(project / "pkg" / "m.py") is None and load(project) == Config()
    assert project_root(project) == project.resolve()
    assert project_root(project / "pkg" / "m.py") == (project / "pkg").resolve()
    (tmp_path / ".git").mkdir()
    assert find(project / "pkg") == tmp_path / "pyproject.toml"
    assert project_root(project / "pkg") == tmp_path.resolve()


def test_pyproject_without_the_name_is_neither_parsed_nor_an_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.dflash-migrate]\nignore = ["DFM2"]\n')
    (tmp_path / ".git").mkdir()
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[project\nname = broken")  # invalid TOML, other tool's file
    assert load(inner).ignore == ("DFM2",)
    (inner / "pyproject.toml").write_text("[project\nname = 'dflash-migrate-user'")  # names it: parsed, error
    with pytest.raises(ConfigError, match="invalid TOML"):
        load(inner)
