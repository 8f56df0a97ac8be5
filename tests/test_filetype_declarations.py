"""Issue 43: a file type declares itself once (``migrator.text.filetypes.FileType``).

Discovery, suppression comments, ``--add-noqa`` and Markdown's fences all read the
declarations, so a new type is one module plus its declaration: a toy type registered from
a temporary module gets findings, suppressions and ``--add-noqa`` with no other change. A
declaration that lacks a field, or names a value no table knows, fails here instead of
falling back to ``#`` comments.
"""

from __future__ import annotations

import importlib
import re
import textwrap
from pathlib import Path

import pytest

from migrator.base.lines import READERS
from migrator.run import add_noqa
from migrator.run.engine import Options, run
from migrator.text import _core, filetypes, handler_for, module_for
from migrator.text.filetypes import FileType
from migrator.text.quoting import READINGS

ENV = "SGLANG_ENABLE_SPEC_V2"


def test_a_declaration_cannot_leave_a_field_out() -> None:
    assert FileType._field_defaults == {}
    complete = filetypes.of_module("toml")._asdict()
    for field in FileType._fields:
        partial = {name: value for name, value in complete.items() if name != field}
        with pytest.raises(TypeError):
            FileType(**partial)


@pytest.mark.parametrize("filetype", tuple(filetypes.DECLARATIONS), ids=lambda f: f.name)
def test_each_declaration_names_values_every_table_knows(filetype: FileType) -> None:
    module = importlib.import_module(filetype.module)
    assert callable(module.handle)
    if filetype.fence_languages:  # Markdown runs the type's rules on its fences
        assert callable(module.analyze)
    assert module.RULE.name == filetype.module.rsplit(".", 1)[-1]
    assert filetype.comments in ("hash", "json", "markdown", "python")
    assert filetype.quoting in READINGS
    assert filetype.reader in READERS
    assert all(s.startswith(".") and s == s.lower() for s in filetype.suffixes)
    assert all(n == n.lower() for n in (*filetype.names, *filetype.prefixes))
    if filetype.statement_start is not None:
        re.compile(filetype.statement_start)
        assert filetype.quoting == "shell" or filetype.quoting in add_noqa._INSIDE_TEXT
    if filetype.guard is not None:
        assert callable(_core.guard_of(filetype))
    if filetype.comments == "hash":
        assert filetype.quoting != "none", "a # comment needs its quoting to say where it starts"


def test_fence_languages_and_suffixes_belong_to_one_type_each() -> None:
    languages = [lang for f in tuple(filetypes.DECLARATIONS) for lang in f.fence_languages]
    suffixes = [s for f in tuple(filetypes.DECLARATIONS) for s in f.suffixes]
    assert len(languages) == len(set(languages)) and len(suffixes) == len(set(suffixes))
    for filetype in tuple(filetypes.DECLARATIONS):
        for language in filetype.fence_languages:
            assert filetypes.fence_type(language) == filetype
            assert filetypes.fence_quoting(language) == filetype.quoting


TOY_MODULE = '''
"""A toy file type: ``NAME = value`` lines, ``#`` comments, shell-like quoting."""
from migrator.base.model import Fix
from migrator.text import _core
from migrator.text.filetypes import FileType


def analyze(path, text, ctx):
    found = []
    for number, line in enumerate(_core.split_lines(text, "shell"), start=1):
        found += _core.env_findings(path, number, _core.strip_comment(line), Fix("manual", ()))
    return found


def handle(path, data, ctx):
    return _core.run(path, data, ctx, RULE, analyze)


RULE = _core.TextRule("toy_settings_rules", (_core.ENV_ENTRY.code,))
FILETYPE = FileType(
    name="toysettings", module="toy_settings_rules", suffixes=(".toysettings",), names=(), prefixes=(),
    prefix_unless=(), shebang=False, late=False, comments="hash", quoting="shell", reader="shell",
    statement_start=r"^\\s*[A-Za-z_]", comment_in_continuation=False, fence_languages=("toysettings",), guard=None,
)
'''


@pytest.fixture
def toy(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """The toy type's module, written into a temporary folder on ``sys.path``, registered."""
    folder = tmp_path_factory.mktemp("toy")
    (folder / "toy_settings_rules.py").write_text(textwrap.dedent(TOY_MODULE))
    monkeypatch.syspath_prepend(str(folder))
    module = importlib.import_module("toy_settings_rules")
    filetypes.register(module.FILETYPE)
    try:
        yield module
    finally:
        filetypes.unregister("toysettings")


def test_a_toy_file_type_works_everywhere_from_its_declaration(repo: Path, toy) -> None:
    assert module_for("a.toysettings") == "toy_settings_rules" and handler_for("a.toysettings") is toy.handle
    (repo / "a.toysettings").write_text(f"# settings\n{ENV} = 1\n")
    (repo / "kept.toysettings").write_text(f"{ENV} = 1  # dflash-migrate: ignore[DFM201]\n")
    (repo / "whole.toysettings").write_text(f"# dflash-migrate: ignore-file\nA = 2\n{ENV} = 1\n")
    (repo / "quoted.toysettings").write_text(f'A = "\\" # dflash-migrate: ignore-file"\n{ENV} = 1\n')
    (repo / "README.md").write_text(f"```toysettings\n{ENV} = 1  # dflash-migrate: ignore[DFM201]\n{ENV} = 1\n```\n")

    def lint() -> dict[str, list[int]]:
        results = run([Path(".")], Options(mode="lint", jobs=1)).results
        return {Path(r.path).name: [f.line for f in r.findings] for r in results if r.findings}

    before = lint()
    # findings (also in a Markdown fence of the type's language); suppressions by its own comment
    # syntax, on a line and for the whole file; a directive inside a string silences nothing
    assert before == {"a.toysettings": [2], "quoted.toysettings": [2], "README.md": [3]}

    results = run([Path(".")], Options(mode="lint", jobs=1)).results
    counts = add_noqa.add(results)
    assert counts.comments == 2 and counts.left == 1  # Markdown gets no comment written
    assert (repo / "a.toysettings").read_text() == f"# settings\n# dflash-migrate: ignore[DFM201]\n{ENV} = 1\n"
    assert lint() == {"README.md": [3]}


def test_unregistered_the_toy_type_is_plain_text_again(toy) -> None:
    filetypes.unregister("toysettings")
    assert module_for("a.toysettings") == "fallback"
    filetypes.register(toy.FILETYPE)
