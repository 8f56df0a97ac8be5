from __future__ import annotations

from migrator.base.model import Finding, Span
from migrator.base.suppressions import filter_findings, parse


def f(line: int, code: str = "DFM101") -> Finding:
    return Finding("x.py", Span.of(line, 0, line, 3), code, "msg")


def test_trailing_directive_suppresses_its_line_only() -> None:
    text = "a  # dflash-migrate: ignore[DFM101]\nb\n"
    kept, n, unused = filter_findings(text, [f(1), f(2)])
    assert kept == [f(2)] and n == 1 and unused == []


def test_own_line_directive_suppresses_next_line() -> None:
    text = "# dflash-migrate: ignore[DFM101]\nimport old\nimport old\n"
    kept, n, _ = filter_findings(text, [f(2), f(3)])
    assert kept == [f(3)] and n == 1


def test_code_must_match() -> None:
    text = "a  # dflash-migrate: ignore[DFM105]\n"
    kept, n, unused = filter_findings(text, [f(1)])
    assert kept == [f(1)] and n == 0 and unused == [(1, ("DFM105",))]


def test_several_codes_and_spacing_and_case() -> None:
    text = "a  #dflash-migrate:ignore[dfm201 , DFM101]\n"
    kept, n, unused = filter_findings(text, [f(1, "DFM101"), f(1, "DFM201"), f(1, "DFM105")])
    assert [k.code for k in kept] == ["DFM105"] and n == 2 and unused == []


def test_bare_ignore_suppresses_every_code() -> None:
    kept, n, _ = filter_findings("a  # dflash-migrate: ignore\n", [f(1, "DFM101"), f(1, "DFM203")])
    assert kept == [] and n == 2


def test_file_level() -> None:
    text = "x\n# dflash-migrate: ignore-file[DFM201]\n"
    kept, n, unused = filter_findings(text, [f(1, "DFM201"), f(9, "DFM201"), f(9, "DFM101")])
    assert [k.code for k in kept] == ["DFM101"] and n == 2 and unused == []


def test_unused_directives_are_reported() -> None:
    text = "# dflash-migrate: ignore-file[DFM303]\nok\nok  # dflash-migrate: ignore\n"
    kept, n, unused = filter_findings(text, [])
    assert unused == [(1, ("DFM303",)), (3, ())]


def test_other_comment_syntaxes() -> None:
    md = "<!-- dflash-migrate: ignore[DFM201] -->\n`SGLANG_ENABLE_SPEC_V2=0`\n"
    assert filter_findings(md, [f(2, "DFM201")], "markdown")[0] == []
    js = "x // dflash-migrate: ignore[DFM201]\n"
    assert filter_findings(js, [f(1, "DFM201")], "json")[0] == []


def test_notebook_cell_directive_counts_as_own_line() -> None:
    import json

    from migrator.run.engine import Options
    from migrator.run.python_file import text_context
    from migrator.text import handler_for

    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
            "source": ["# dflash-migrate: ignore[DFM201]\n", "!SGLANG_ENABLE_SPEC_V2=0 x\n"]}
    nb = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    result = handler_for("n.ipynb")("n.ipynb", nb.encode(), text_context("n.ipynb", Options(mode="lint")))
    assert result.error is None and result.findings == [] and result.suppressed == 1


def test_lookalikes_are_not_directives() -> None:
    assert parse("# dflash-migrate: ignored\n# dflash-migrate ignore[DFM101]\n") == []
    assert parse("no marker at all") == []
