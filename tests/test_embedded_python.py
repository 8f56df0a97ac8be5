"""Issue 47: Python embedded in another file is analysed as Python, its positions mapped back:
``python -c "..."`` in a shell script, a Makefile recipe, a Dockerfile ``RUN`` and a YAML
script block; a here-document fed to the interpreter; a YAML literal block under a key
naming a Python file (a ConfigMap).

Shapes a repository holds: a one-line import check in CI, a multi-line program in double or
single quotes, interpreter options before ``-c``, a full interpreter path. Negatives: V2
code, another algorithm's ``verify``, a ``-c`` of another program, a program that does not
parse.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from migrator.run.engine import Options, run

W = "sglang.srt.speculative.dflash_worker"


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def _lint(root: Path) -> list[tuple[str, int, int, str]]:
    result = run([root], Options(mode="lint", target_version="0.5.14", jobs=1))
    assert [r.error for r in result.results if r.error] == []
    return sorted((Path(f.path).relative_to(root).as_posix(), f.line, f.column, f.code)
                  for r in result.results for f in r.findings)


FOUND = [
    # (file, text, line, column, code): the column of the name in the file
    ("ci/check.sh", "#!/bin/bash\npython -c 'import sglang.srt.speculative.dflash_info as i; i.DFlashDraftInput'\n",
     2, 59, "DFM103"),
    ("ci/check.sh", f"#!/bin/bash\npython3 -u -W ignore -c \"from {W} import DFlashWorker as W; W.run\"\n",
     2, 30, "DFM101"),
    ("ci/check.sh", f"#!/bin/bash\n/usr/bin/python3.11 -c \"import {W} as w\nw.DFlashWorker._prepare_for_speculative_decoding = 1\n\"\n",
     3, 0, "DFM106"),
    ("ci/check.sh", ("#!/bin/bash\npython -c '\nfrom sglang.srt.managers.schedule_batch import ScheduleBatch\n"
                     "def f(b: ScheduleBatch):\n    return b.is_spec_v2\n'\n"), 5, 11, "DFM206"),
    ("Makefile", "check:\n\tpython -c 'import sglang.srt.speculative.dflash_info as i; i.DFlashDraftInput'\n",
     2, 60, "DFM103"),
    ("Dockerfile", "FROM python:3.11\nRUN python -c 'import sglang.srt.speculative.dflash_info as i; i.DFlashDraftInput'\n",
     2, 63, "DFM103"),
    (".github/workflows/ci.yml", ("jobs:\n  check:\n    steps:\n      - run: |\n          pip install .\n"
                                  "          python -c 'import sglang.srt.speculative.dflash_info as i; i.DFlashDraftInput'\n"),
     6, 69, "DFM103"),
    ("deploy/configmap.yaml", ("apiVersion: v1\nkind: ConfigMap\ndata:\n  patch.py: |\n"
                               "    import sglang.srt.speculative.dflash_info as info\n"
                               "    info.DFlashVerifyInput.verify = None\n"), 6, 4, "DFM105"),
    ("deploy/helm/values.yaml", ("hooks:\n  files:\n    draft.py: |\n      from sglang.srt.speculative import dflash_info\n\n"
                                 "      def f():\n          return dflash_info.DFlashDraftInput\n"), 7, 17, "DFM103"),
    ("scripts/probe.sh", ("#!/bin/bash\npython3 - <<'EOF'\nfrom sglang.srt.speculative import dflash_info\n"
                          "print(dflash_info.DFlashDraftInput)\nEOF\n"), 4, 6, "DFM103"),
    ("scripts/probe.sh", ("#!/bin/bash\nif true; then\n\tpython <<-PY\n\timport sglang.srt.speculative.dflash_info as i\n"
                          "\ti.DFlashDraftInput\n\tPY\nfi\n"), 5, 1, "DFM103"),
    ("Dockerfile", ("FROM python:3.11\nRUN python3 <<EOF\nimport sglang.srt.speculative.dflash_info as i\n"
                    "i.DFlashDraftInput\nEOF\n"), 4, 0, "DFM103"),
]


@pytest.mark.parametrize(("name", "text", "line", "column", "code"), FOUND,
                         ids=[f"{n}:{c}:{l}" for n, _, l, _, c in FOUND])
def test_python_in_a_python_c_is_analysed_at_its_place(tmp_path: Path, name: str, text: str, line: int,
                                                       column: int, code: str) -> None:
    _write(tmp_path, {name: text})
    assert (name, line, column, code) in _lint(tmp_path)


def test_a_finding_in_a_python_c_gets_a_todo_above_its_command(tmp_path: Path) -> None:
    _write(tmp_path, {"ci/check.sh": "#!/bin/bash\nset -e\npython -c 'import sglang.srt.speculative.dflash_info as i; "
                                     "i.DFlashDraftInput'\n"})
    result = run([tmp_path], Options(mode="fix", target_version="0.5.14", jobs=1, allow_dirty=True))
    assert [r.error for r in result.results if r.error] == []
    lines = (tmp_path / "ci/check.sh").read_text().splitlines()
    assert lines[2].startswith("# TODO(dflash-migrate): DFM103") and lines[-1].startswith("python -c 'import")


@pytest.mark.parametrize(("name", "text"), [
    ("ci/check.sh", f"#!/bin/bash\npython -c 'from {W}_v2 import DFlashWorkerV2; print(DFlashWorkerV2)'\n"),
    ("ci/check.sh", ("#!/bin/bash\npython -c 'from sglang.srt.speculative.eagle_info import EagleVerifyInput as V; "
                     "V.verify; x.spec_info.verify()'\n")),
    ("ci/check.sh", "#!/bin/bash\nbash -c 'echo DFlashWorker is gone in v1'\ngcc -c dflash_worker.c\n"),
    ("ci/check.sh", "#!/bin/bash\npython -c 'this is not python: DFlashWorkerV2 ('\n"),
    ("Makefile", "check:\n\tpython -c 'import requests; requests.get(\"https://x/v1/models\", verify=False)'\n"),
    ("deploy/configmap.yaml", ("apiVersion: v1\nkind: ConfigMap\ndata:\n  README.md: |\n    DFlashWorker was removed\n"
                               "  client.py: |\n    import httpx\n    httpx.get('https://x/v1/models', verify=False)\n")),
    ("scripts/probe.sh", "#!/bin/bash\ncat <<EOF > notes.txt\nDFlashWorker was replaced by DFlashWorkerV2\nEOF\n"),
    ("scripts/probe.sh", ("#!/bin/bash\npython3 - <<'EOF'\nfrom sglang.srt.speculative.dflash_worker_v2 import DFlashWorkerV2\n"
                          "print(DFlashWorkerV2)\nEOF\n")),
])
def test_what_is_not_v1_in_a_python_c_is_not_found(tmp_path: Path, name: str, text: str) -> None:
    _write(tmp_path, {name: text})
    assert _lint(tmp_path) == []
