"""Issue 12 item 8 (console-script part): ``dflash-migrate`` runs the installed
``migrator``, never a same-named package of the scanned repository that ``PYTHONPATH``
or the current folder puts first. (The ``.pth`` hook part: tests/test_shim*.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).with_name("dflash-migrate")
V1 = "from sglang.srt.speculative.dflash_worker import DFlashWorker\n"


@pytest.mark.skipif(not SCRIPT.exists(), reason="the console script is not installed next to this Python "
                                                "(pip install -e . puts it there)")
@pytest.mark.parametrize("pythonpath", [".", "{repo}", "{repo}" + os.pathsep + "/nonexistent"])
@pytest.mark.parametrize("args", [("lint", "a.py"), ("--version",), ("rules",)])
def test_console_script_never_imports_the_scanned_repos_migrator(tmp_path: Path, pythonpath: str,
                                                                 args: tuple[str, ...]) -> None:
    repo = tmp_path / "repo"
    (repo / "migrator").mkdir(parents=True)
    marker = tmp_path / "hostile-migrator-ran"
    (repo / "migrator" / "__init__.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    (repo / "migrator" / "cli.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\ndef main(): return 0\n")
    (repo / "a.py").write_text(V1)
    env = {**os.environ, "PYTHONPATH": pythonpath.format(repo=repo)}
    env.pop("DFLASH_MIGRATE_SHIM", None)
    result = subprocess.run([str(SCRIPT), *args], cwd=repo, env=env, capture_output=True, text=True, timeout=120)
    assert not marker.exists(), "the scanned repository's migrator package ran"
    assert result.returncode in (0, 1), result.stderr
    if args[0] == "lint":
        assert "a.py:1:" in result.stdout and "DFM101" in result.stdout
