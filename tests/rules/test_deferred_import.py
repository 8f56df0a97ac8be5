"""Valid/invalid cases for migrator/python/deferred_import.py: a module-level import of a
removed name without replacement (DFM104) moves into the functions that use it, as an
unsafe fix, only where every use provably moves with it."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from codemod_helpers import migrate, unwrapped, write_tree
from flakes import new_flakes

from migrator import catalog, edit
from migrator.edit import chosen_edits
from migrator.run import engine
from migrator.run.engine import Options
from migrator.run.pipeline import process_bytes

INFO = "sglang.srt.speculative.dflash_info"
TODO = catalog.todo_comment(catalog.get("DFM104"))
IMPORT = f"from {INFO} import _compute_paged_keep_slots"


def moved(source: str, **kwargs: object) -> str:
    """The unsafe output, after checking that it is pyflakes-clean and that the default
    mode still only adds the TODO above the module-level import."""
    before = textwrap.dedent(source)
    after, findings = migrate(before, unsafe=True, **kwargs)  # type: ignore[arg-type]
    assert new_flakes(before, after) == []
    default, _ = migrate(before, **kwargs)  # type: ignore[arg-type]
    assert f"{TODO}\nfrom {INFO} import " in unwrapped(default)
    assert any(f.fix and f.fix.applicability == "unsafe" and f.code == "DFM104" for f in findings)
    return after


def indented_imports(text: str, statement: str = IMPORT) -> int:
    return sum(1 for line in text.splitlines() if line.startswith(" ") and line.strip() == statement)


def kept(source: str, **kwargs: object) -> None:
    """No move is offered: with --unsafe-fixes the output is the default mode's (TODO above the import)."""
    before = textwrap.dedent(source)
    unsafe, findings = migrate(before, unsafe=True, **kwargs)  # type: ignore[arg-type]
    default, _ = migrate(before, **kwargs)  # type: ignore[arg-type]
    assert unsafe == default
    assert not any(f.fix and f.fix.applicability == "unsafe" and f.code == "DFM104" for f in findings)
    assert f"{TODO}\n" in unwrapped(unsafe)


def test_one_function_gets_the_import_and_keeps_both_todos() -> None:
    after = moved(f'''\
        """Bookkeeping."""

        {IMPORT}


        def keep_slots(draft, page_size):
            """Slots kept after verify."""
            return _compute_paged_keep_slots(prefix_lens=draft, page_size=page_size)
        ''')
    assert unwrapped(after) == textwrap.dedent(f'''\
        """Bookkeeping."""


        def keep_slots(draft, page_size):
            """Slots kept after verify."""
            {TODO}
            {IMPORT}

            {TODO}
            return _compute_paged_keep_slots(prefix_lens=draft, page_size=page_size)
        ''')


def test_several_functions_and_a_method_each_get_the_import() -> None:
    after = moved(f'''\
        {IMPORT}


        def first(x):
            if x:
                return _compute_paged_keep_slots(x)
            return None


        class Worker:
            def hook(self, batch):
                # explains the call
                keep = _compute_paged_keep_slots(batch)
                return keep

            def unrelated(self):
                return 1
        ''')
    assert indented_imports(after) == 2 and not after.startswith(IMPORT)
    assert f"    # explains the call\n        {TODO}\n        {IMPORT}\n        {TODO}\n        keep =" in unwrapped(after).replace(f"{IMPORT}\n\n", f"{IMPORT}\n")
    assert f"def first(x):\n    {TODO}\n    {IMPORT}\n    if x:" in unwrapped(after).replace(f"{IMPORT}\n\n", f"{IMPORT}\n")
    assert "def unrelated(self):\n        return 1" in after


def test_an_alias_moves_with_its_name() -> None:
    after = moved(f'''\
        from {INFO} import _compute_paged_keep_slots as keep_fn


        def slots(x):
            return keep_fn(x)
        ''')
    assert f"    from {INFO} import _compute_paged_keep_slots as keep_fn\n" in after


def test_a_nested_function_or_lambda_uses_the_import_of_its_function() -> None:
    after = moved(f'''\
        {IMPORT}


        def outer(xs):
            def inner(x):
                return _compute_paged_keep_slots(x)
            pick = lambda x: _compute_paged_keep_slots(x)
            return [inner(x) for x in xs], pick
        ''')
    assert indented_imports(after) == 2  # in inner and in outer (for the lambda)


def test_a_neighbour_in_the_statement_stays_on_both_rewrite_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    source = textwrap.dedent(f'''\
        from {INFO} import _compute_paged_keep_slots, DFlashVerifyInput  # why


        def verify(x) -> DFlashVerifyInput:
            return _compute_paged_keep_slots(x)
        ''')
    after = moved(source)
    assert after.startswith(f"from {INFO} import DFlashVerifyInput  # why\n")
    options = Options(mode="fix", target_version="0.5.17", unsafe_fixes=True)
    edits = chosen_edits(process_bytes("fork_module.py", source.encode(), options).findings, options.unsafe_fixes)
    spliced = edit.apply(source.encode(), edits)
    monkeypatch.setenv("DFLASH_MIGRATE_ALWAYS_LIBCST", "1")
    assert edit.apply(source.encode(), edits) == spliced == after.encode()


def test_a_name_on_its_own_line_of_a_parenthesised_import_goes_with_its_line() -> None:
    after = moved(f'''\
        from {INFO} import (
            DFlashVerifyInput,
            _compute_paged_keep_slots,  # the V1 helper
        )


        def verify(x) -> DFlashVerifyInput:
            return _compute_paged_keep_slots(x)
        ''')
    assert after.startswith(f"from {INFO} import (\n    DFlashVerifyInput,\n)\n")


def test_a_neighbour_that_moves_to_another_module_is_split_out_and_the_statement_goes() -> None:
    after = moved(f'''\
        from {INFO} import DFlashDraftInput, _compute_paged_keep_slots


        def f(x: DFlashDraftInput):
            return _compute_paged_keep_slots(x)
        ''')
    # the import goes without a tombstone inside the import block (black and isort would move it)
    assert after.startswith("from sglang.srt.speculative.dflash_info_v2 import DFlashDraftInputV2\n")
    assert indented_imports(after) == 1


@pytest.mark.parametrize("case", [
    "use at module level",
    "use in a class body",
    "use in a decorator",
    "use in a default value",
    "use in a signature annotation",
    "re-exported in __all__",
    "rebound in a function",
    "declared global",
    "a parameter of that name",
    "spelled in a string (mock.patch)",
    "globals()",
    "one-line function",
    "form feed before the first statement",
    "import inside try",
    "import inside if",
    "no use at all",
])
def test_no_move_where_a_use_might_not_follow(case: str) -> None:
    body = {
        "use at module level": "KEEP = _compute_paged_keep_slots\n",
        "use in a class body": "class W:\n    keep = _compute_paged_keep_slots\n",
        "use in a decorator": "@_compute_paged_keep_slots\ndef f():\n    pass\n",
        "use in a default value": "def f(fn=_compute_paged_keep_slots):\n    return fn()\n",
        "use in a signature annotation": "def f(x: _compute_paged_keep_slots):\n    return x\n",
        "re-exported in __all__": "__all__ = ['_compute_paged_keep_slots']\ndef f():\n    return _compute_paged_keep_slots()\n",
        "rebound in a function": "def f():\n    return _compute_paged_keep_slots()\ndef g():\n    _compute_paged_keep_slots = None\n    return _compute_paged_keep_slots\n",
        "declared global": "def f():\n    global _compute_paged_keep_slots\n    return _compute_paged_keep_slots()\n",
        "a parameter of that name": "def f(_compute_paged_keep_slots=None):\n    return _compute_paged_keep_slots\ndef g():\n    return _compute_paged_keep_slots()\n",
        "spelled in a string (mock.patch)": "def f():\n    return _compute_paged_keep_slots()\nTARGET = 'fork_module._compute_paged_keep_slots'\n",
        "globals()": "def f():\n    return globals()['_compute' + '_paged_keep_slots']()\ndef g():\n    return _compute_paged_keep_slots()\n",
        "one-line function": "def f(): return _compute_paged_keep_slots()\n",
        "form feed before the first statement": "def f():\n\x0c    return _compute_paged_keep_slots()\n",
        "no use at all": "def f():\n    return 1\n",
    }
    if case == "import inside try":
        source = f"try:\n    {IMPORT}\nexcept ValueError:\n    pass\ndef f():\n    return _compute_paged_keep_slots()\n"
    elif case == "import inside if":
        source = f"if True:\n    {IMPORT}\ndef f():\n    return _compute_paged_keep_slots()\n"
    else:
        source = f"{IMPORT}\n{body[case]}"
    kept(source)


def test_tab_indentation_is_copied() -> None:
    after = moved(f"{IMPORT}\n\n\ndef f(x):\n\tif x:\n\t\treturn _compute_paged_keep_slots(x)\n")
    assert f"def f(x):\n\t{TODO}\n\t{IMPORT}\n\tif x:\n" in unwrapped(after).replace(f"{IMPORT}\n\n", f"{IMPORT}\n")


def test_a_moved_import_is_left_alone_by_the_next_run() -> None:
    """The output of the move is a fixed point in both modes (``migrate`` runs each twice)."""
    after = moved(f"{IMPORT}\n\n\ndef f(x):\n    return _compute_paged_keep_slots(x)\n")
    assert migrate(after, unsafe=True)[0] == after and migrate(after)[0] == after


def test_a_name_another_fork_module_imports_stays_at_module_level(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/kv.py": f"{IMPORT}\n\n\ndef keep(x):\n    return _compute_paged_keep_slots(x)\n",
        "pkg/other.py": "from .kv import _compute_paged_keep_slots\n\n\ndef g(x):\n    return _compute_paged_keep_slots(x)\n",
        "pkg/alone.py": f"{IMPORT}\n\n\ndef keep(x):\n    return _compute_paged_keep_slots(x)\n",
    })
    options = engine.Options(mode="fix", target_version="0.5.17", unsafe_fixes=True, allow_dirty=True, jobs=1)
    outcome = engine.run([tmp_path], options)
    assert not any(r.error for r in outcome.results)
    kv = (tmp_path / "pkg" / "kv.py").read_text()
    assert unwrapped(kv).startswith(f"{TODO}\n{IMPORT}\n") and indented_imports(kv) == 0  # other.py needs it there
    alone = (tmp_path / "pkg" / "alone.py").read_text()
    assert not alone.startswith(IMPORT) and indented_imports(alone) == 1  # nobody imports it from here: moved
