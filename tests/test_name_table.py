"""Issue 47: the one name table (``migrator.catalog.names``), derived from the catalog.

Every removed or changed name has its qualified spellings (dotted, ``module:attr``, the
module's file path), its bare spelling (unique or not, from the wheels), its flag and config
key spellings, its kind and the releases where it breaks; the qualified spellings
(``names.qualified``, formerly ``catalog.qualified_spellings``) are the table's qualified rows,
not a second table.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from migrator import catalog
from migrator.catalog import names
from migrator.catalog.bare_names import UNIQUE_BARE

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "name_table.py"


def _rows(spelling: str) -> set[tuple[str, str, str]]:
    return {(row.code, row.kind, row.form) for row in names.lookup().get(spelling, ())}


def test_every_name_of_every_removed_entry_has_its_spellings() -> None:
    for entry in catalog.ENTRIES:
        if entry.kind not in names.KINDS:
            continue
        for name in entry.names:
            if entry.kind in ("module", "class", "function", "method", "attribute"):
                assert (entry.code, names.KINDS[entry.kind], "dotted") in _rows(name), name
                assert (entry.code, names.KINDS[entry.kind], "bare") in _rows(name.rpartition(".")[2]), name
            if entry.kind == "module":
                assert (entry.code, "module", "path") in _rows(name.replace(".", "/") + ".py")


def test_module_attr_puts_the_colon_after_the_module() -> None:
    assert _rows("sglang.srt.speculative.dflash_info:DFlashDraftInput") == {("DFM103", "class", "module:attr")}
    assert ("DFM106", "method", "module:attr") in _rows(
        "sglang.srt.speculative.dflash_worker:DFlashWorker._prepare_for_speculative_decoding")


def test_a_flag_is_also_its_config_keys() -> None:
    flag = catalog.entries_of_kind("cli-flag")[0]
    key = flag.old.lstrip("-")
    assert _rows(flag.old) == {(flag.code, "flag", "flag")}
    assert (flag.code, "flag", "key") in _rows(key)
    assert (flag.code, "flag", "key") in _rows(key.replace("-", "_"))


def test_the_env_var_is_its_own_spelling() -> None:
    assert ("DFM201", "env var", "env") in _rows("SGLANG_ENABLE_SPEC_V2")


def test_each_row_breaks_where_its_entry_fires() -> None:
    for row in names.table():
        assert row.breaks_on == tuple(r for r in catalog.RELEASES if row.entry.fires_for(r)), row
    assert "0.5.14" in names.lookup()["DFlashWorker"][0].breaks_on
    assert "0.5.13" not in names.lookup()["DFlashWorker"][0].breaks_on


def test_qualified_spellings_are_the_tables_qualified_rows() -> None:
    assert not hasattr(catalog, "qualified_spellings")  # one home
    assert set(names.qualified()) == {row.spelling for row in names.table() if row.form in ("dotted", "module:attr")}


def test_a_plain_word_is_never_a_unique_bare_spelling() -> None:
    assert not names.shaped_like_a_name("verify")
    assert names.shaped_like_a_name("draft_seq_lens") and names.shaped_like_a_name("DFlashWorker")
    assert all(not row.unique for row in names.lookup()["verify"])


def test_unique_bare_spellings_are_last_names_of_catalog_names() -> None:
    assert UNIQUE_BARE <= set(names.leaves())
    for leaf in names.leaves():
        for row in names.lookup().get(leaf, ()):
            if row.form == "bare":
                assert row.unique == (leaf in UNIQUE_BARE)


@pytest.mark.slow
def test_the_shipped_bare_names_are_what_the_wheels_say() -> None:
    """Generated data: reads every release's wheel (cached by the tests' wheel cache)."""
    spec = importlib.util.spec_from_file_location("name_table_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.TARGET.read_text() == script.render(), "run: python scripts/name_table.py"
    # what the wheels decide, not the shape rule: V2 classes keep these field names
    assert "draft_seq_lens" not in UNIQUE_BARE and "DFlashWorker" in UNIQUE_BARE


@pytest.mark.parametrize("name", ["name_table", "surface_index"])
def test_a_generating_script_writes_or_checks_through_the_one_helper(
        name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 43's duplicate: both scripts had the same ``--check``/write ``main``; they share
    ``scripts/generated_file.py``, imported as a sibling both when a script runs and when a
    test loads it by its path, as here."""
    spec = importlib.util.spec_from_file_location(f"{name}_script", SCRIPT.with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    import generated_file

    assert script.write_or_check is generated_file.write_or_check
    target = tmp_path / "generated.py"
    monkeypatch.setattr(script, "TARGET", target)
    monkeypatch.setattr(script, "render", lambda: "fresh\n")
    assert script.main([]) == 0 and target.read_text() == "fresh\n"
    assert script.main(["--check"]) == 0
    target.write_text("stale\n")
    assert script.main(["--check"]) == 1 and target.read_text() == "stale\n"
    assert f"{target} is out of date: run python scripts/{name}.py" in capsys.readouterr().err
