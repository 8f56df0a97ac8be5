from __future__ import annotations

from pathlib import Path

import pytest

from migrator.config import Config, ConfigError, find, load


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
    cfg = load(root / "src" / "deep")  # start need not exist below the root
    assert cfg.select == ("DFM1", "DFM201") and cfg.ignore == ("DFM105",)
    assert cfg.target_version == "0.5.17" and cfg.root == root
    assert cfg.enabled("DFM101") and cfg.enabled("DFM201")
    assert not cfg.enabled("DFM105")  # ignored
    assert not cfg.enabled("DFM203")  # not selected
    assert not cfg.enabled("DFM109", root / "tests" / "unit" / "t.py")
    assert cfg.enabled("DFM109", root / "src" / "t.py")
    assert not cfg.enabled("DFM201", root / "docs" / "guide.md")
    assert cfg.is_excluded(root / "vendor" / "lib.py") and cfg.is_excluded(root / "a" / "b.gen.py")
    assert not cfg.is_excluded(root / "src" / "lib.py")


def test_nearest_table_wins_and_tableless_pyprojects_are_skipped(tmp_path: Path) -> None:
    write(tmp_path, FULL)
    write(tmp_path, "[project]\nname='inner'\n", "pkg")
    write(tmp_path, "[tool.dflash-migrate]\nignore=['DFM201']\n", "pkg/sub")
    assert find(tmp_path / "pkg") == tmp_path / "pyproject.toml"
    assert load(tmp_path / "pkg" / "sub" / "x.py").ignore == ("DFM201",)


def test_cli_overrides(tmp_path: Path) -> None:
    cfg = load(write(tmp_path, FULL))
    over = cfg.with_overrides(select=["DFM203"], ignore=None, target_version="0.5.20")
    assert over.select == ("DFM203",) and over.ignore == ("DFM105",) and over.target_version == "0.5.20"


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
    assert find(fork / "pkg") == tmp_path / "pyproject.toml"


def test_pyproject_without_the_name_is_neither_parsed_nor_an_error(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.dflash-migrate]\nignore = ["DFM2"]\n')
    inner = tmp_path / "inner"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("[project\nname = broken")  # invalid TOML, other tool's file
    assert load(inner).ignore == ("DFM2",)
    (inner / "pyproject.toml").write_text("[project\nname = 'dflash-migrate-user'")  # names it: parsed, error
    with pytest.raises(ConfigError, match="invalid TOML"):
        load(inner)
