"""A TODO in a non-Python file says what to do in that file's terms (issue 48): the
``export`` or assignment of a script, a Dockerfile's ``ENV`` entry and its ``CMD`` or
``ENTRYPOINT``, the line of a ``.env`` file and the command that loads it, a YAML or TOML
key and the launch command's arguments, a shell block of a Markdown file as a script.
At 8ed1b04 (and until this change) each said it in Python's terms ("read
``disable_overlap_schedule`` instead", an attribute no script has) or named no place
at all ("where this applies")."""

from __future__ import annotations

import textwrap

import pytest
from codemod_helpers import todo_lines

from migrator.run.engine import Options
from migrator.run.pipeline import process_bytes

#: (file, text, what its TODO must say); each TODO also must not speak Python.
CASES = [
    ("run.sh", "export SGLANG_ENABLE_SPEC_V2=$MODE\npython -m sglang.launch_server\n",
     ("if its value can be falsy", "to the `sglang.launch_server` command it reaches", "then delete this assignment")),
    ("run.sh", 'if [ "$SGLANG_ENABLE_SPEC_V2" = 1 ]; then echo v2; fi\n',
     ("only `--disable-overlap-schedule` on the `sglang.launch_server` command it reaches",
      "not from `$SGLANG_ENABLE_SPEC_V2`")),
    ("run.sh", "export SGLANG_ENABLE_SPEC_V2=0\necho \"$SGLANG_ENABLE_SPEC_V2\"\n",
     ("is read later (line 2): deleting this assignment would change that read",)),
    ("Dockerfile", "FROM python:3.11\nENV SGLANG_ENABLE_SPEC_V2=0\n",
     ("add `--disable-overlap-schedule` to the `CMD` or `ENTRYPOINT` that runs `sglang.launch_server`",
      "then delete this `ENV` entry")),
    ("Dockerfile", "FROM python:3.11\nENV SGLANG_ENABLE_SPEC_V2=0\nRUN echo $SGLANG_ENABLE_SPEC_V2\n",
     ("deleting this `ENV` entry would change that read",)),
    ("Dockerfile", "FROM python:3.11\nRUN test \"$SGLANG_ENABLE_SPEC_V2\" = 1 && echo v2\n",
     ("on the `CMD` or `ENTRYPOINT` that runs `sglang.launch_server`", "not from `$SGLANG_ENABLE_SPEC_V2`")),
    (".env", "SGLANG_ENABLE_SPEC_V2=0\n",
     ("to the `sglang.launch_server` command that loads this file", "then delete this line")),
    (".env", "MODE=${SGLANG_ENABLE_SPEC_V2}\n", ("not from `${SGLANG_ENABLE_SPEC_V2}`",)),
    ("deploy.yaml", 'env:\n  SGLANG_ENABLE_SPEC_V2: "0"\n  OTHER: x\n',
     ("to the arguments of the `sglang.launch_server` command (its `command:` or `args:`)", "then delete this key")),
    ("deploy.yaml", "hook: sglang.srt.speculative.dflash_info.DFlashVerifyInput.verify\n",
     ("DFM105", "this value names it: change it by hand")),
    ("pyproject.toml", '[tool.serve.env]\nSGLANG_ENABLE_SPEC_V2 = "${MODE}"\n',
     ("if its value can be falsy", "to the arguments of the `sglang.launch_server` command",
      "then delete this key")),
    ("serve.toml", 'args = ["SGLANG_ENABLE_SPEC_V2=0"]\n', ("not from this mention",)),
    ("README.md", "# Serve\n\n```bash\nexport SGLANG_ENABLE_SPEC_V2=$MODE\n```\n",
     ("to the `sglang.launch_server` command it reaches", "then delete this assignment")),
    ("Makefile", "serve:\n\techo $$SGLANG_ENABLE_SPEC_V2\n", ("not from `$$SGLANG_ENABLE_SPEC_V2`",)),
]
#: What a TODO outside Python must not say: Python's terms, or no place at all.
PYTHON_TERMS = ("read `disable_overlap_schedule`", "where this applies", "use `--disable-overlap-schedule`")


def _todos(path: str, text: str) -> list[str]:
    result = process_bytes(path, text.encode(), Options(mode="fix", target_version="0.5.17"))
    assert result.error is None, result.error
    assert result.new_bytes is not None, f"{path}: nothing written"
    return todo_lines(result.new_bytes.decode())


@pytest.mark.parametrize(("path", "text", "says"), CASES, ids=[f"{c[0]}:{c[1].splitlines()[-1][:30]}" for c in CASES])
def test_a_todo_outside_python_says_what_to_do_in_the_files_terms(path: str, text: str, says: tuple[str, ...]) -> None:
    todos = _todos(path, text)
    assert todos, f"{path}: no TODO"
    said = " ".join(todos)
    for words in says:
        assert words in said, f"{path}: {words!r} not in {said!r}"
    for words in PYTHON_TERMS:
        assert words not in said, f"{path}: {words!r} in {said!r}"


def test_a_python_file_keeps_the_catalogs_words() -> None:
    """The Python rules' TODOs are not reworded: a read of the variable in Python keeps
    the catalog's message (the attribute is gone from ``Envs``)."""
    source = textwrap.dedent("""
        from sglang.srt.environ import envs

        def step():
            return envs.SGLANG_ENABLE_SPEC_V2.get()
        """)
    result = process_bytes("worker.py", source.encode(), Options(mode="fix", target_version="0.5.17"))
    said = " ".join(todo_lines(result.new_bytes.decode()))
    assert "`envs.SGLANG_ENABLE_SPEC_V2` was removed from `Envs`" in said
    assert not any(words in said for words in ("`CMD`", "this key", "this assignment", "this line")), said


#: (file, text): the setting stays (a value not known, or no launch the tool can edit), but
#: what it reaches already passes the flag.
ALREADY_PASSED = [
    ("run.sh", "export SGLANG_ENABLE_SPEC_V2=$MODE\npython -m sglang.launch_server --disable-overlap-schedule\n"),
    ("run.sh", "export SGLANG_ENABLE_SPEC_V2=0\nexec ./serve --disable-overlap-schedule\n"),
    ("run.sh", "SGLANG_ENABLE_SPEC_V2=$MODE ./serve --model m --disable-overlap-schedule\n"),
    ("Dockerfile", "FROM lmsysorg/sglang\nENV SGLANG_ENABLE_SPEC_V2=0\nCMD [\"--disable-overlap-schedule\"]\n"),
    ("Dockerfile", "FROM lmsysorg/sglang\nARG MODE\nENV SGLANG_ENABLE_SPEC_V2=$MODE\n"
                   "CMD [\"python\", \"-m\", \"sglang.launch_server\", \"--disable-overlap-schedule\"]\n"),
    ("docker-compose.yml", "services:\n  s:\n    environment:\n      - SGLANG_ENABLE_SPEC_V2=${V2:-0}\n"
                           "    command: python -m sglang.launch_server --disable-overlap-schedule\n"),
    ("pyproject.toml", '[tool.serve]\nargs = ["sglang.launch_server", "--disable-overlap-schedule"]\n'
                       '[tool.serve.env]\nSGLANG_ENABLE_SPEC_V2 = "${MODE}"\n'),
]
#: The same shapes where the flag does not reach the setting's launch: still "add it".
NOT_PASSED = [
    ("run.sh", "export SGLANG_ENABLE_SPEC_V2=$MODE\npython -m sglang.launch_server\n"),
    ("run.sh", "export SGLANG_ENABLE_SPEC_V2=$MODE\npython -m sglang.launch_server\n"
               "docker run img python -m sglang.launch_server --disable-overlap-schedule\n"),
    ("run.sh", "./other --disable-overlap-schedule\nSGLANG_ENABLE_SPEC_V2=$MODE ./serve --model m\n"),
    ("Dockerfile", "FROM lmsysorg/sglang\nCMD [\"--disable-overlap-schedule\"]\nFROM lmsysorg/sglang\n"
                   "ENV SGLANG_ENABLE_SPEC_V2=0\n"),
    ("docker-compose.yml", "services:\n  s:\n    environment:\n      - SGLANG_ENABLE_SPEC_V2=${V2:-0}\n"
                           "    command: python -m sglang.launch_server\n"
                           "  t:\n    command: python -m sglang.launch_server --disable-overlap-schedule\n"),
]


@pytest.mark.parametrize(("path", "text"), ALREADY_PASSED, ids=[f"{c[0]}:{c[1].splitlines()[-1][:30]}" for c in ALREADY_PASSED])
def test_a_todo_never_asks_to_add_the_flag_what_the_setting_reaches_passes(path: str, text: str) -> None:
    said = " ".join(_todos(path, text))
    assert "`--disable-overlap-schedule` is already in" in said, said
    assert "add `--disable-overlap-schedule`" not in said


@pytest.mark.parametrize(("path", "text"), NOT_PASSED, ids=[f"{c[0]}:{c[1].splitlines()[-1][:30]}" for c in NOT_PASSED])
def test_a_flag_elsewhere_does_not_count(path: str, text: str) -> None:
    said = " ".join(_todos(path, text))
    assert "add `--disable-overlap-schedule`" in said, said
    assert "already" not in said
