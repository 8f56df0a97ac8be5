"""Issue 12 item 3: what CI systems and terminals read cannot be forged or broken by a
scanned repository's file names or comments (every format, stdout, stderr and ``-o``)."""

from __future__ import annotations

import io
import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from migrator.cli.runs.lint import run as lint

V1 = b"from sglang.srt.speculative.dflash_worker import DFlashWorker\n"
#: A leftover TODO comment whose text sets the terminal title (OSC) and moves the cursor (CSI).
HOSTILE_TODO = "# TODO(dflash-migrate): DFM101 \x1b]0;pwned\x07\x1b[2J\x9b1m gone\n".encode()


def run_lint(root: Path, fmt: str, *paths: str, output: Path | None = None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = lint([Path(p) for p in (paths or (".",))], fmt=fmt, output=output, jobs=1, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_github_mode_escapes_skipped_lines_on_stderr(repo: Path) -> None:
    (repo / "a.py").write_bytes(V1)
    os.symlink("/etc/hostname", repo / "x\n::stop-commands::tok\n.py")
    code, out, err = run_lint(repo, "github")
    assert code == 1 and "skipped" in err
    for line in (out + err).splitlines():
        assert not line.startswith("::") or line.startswith(("::error ", "::warning ", "::notice ")), line
    assert "::stop-commands::" not in err.replace("%0A", "\n").splitlines()[0][:2]
    assert "x%0A%3A%3Astop-commands%3A%3Atok%0A.py" in err or "x%0A::stop-commands::tok%0A.py" in err


def test_text_output_shows_control_characters_escaped(repo: Path) -> None:
    (repo / "t.py").write_bytes(HOSTILE_TODO)
    os.symlink("/etc/hostname", repo / "evil\x1b]0;title\x07.py")
    code, out, err = run_lint(repo, "text")
    assert code == 1
    for text in (out, err):
        assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text
    assert "\\x1b]0;pwned\\x07" in out
    assert "evil\\x1b]0;title\\x07.py" in err


@pytest.mark.parametrize("fmt", ["text", "concise", "github"])
def test_newline_in_a_path_cannot_forge_a_line(repo: Path, fmt: str) -> None:
    (repo / "a\nFAKE.py:1:1: DFM999 forged.py").write_bytes(V1)
    code, out, _ = run_lint(repo, fmt)
    assert code == 1
    assert not any(line.startswith("FAKE.py") for line in out.splitlines())


def test_junit_is_well_formed_with_control_characters(repo: Path) -> None:
    (repo / "t\x01\x1b.py").write_bytes(HOSTILE_TODO)
    code, out, _ = run_lint(repo, "junit")
    assert code == 1
    root = ET.fromstring(out)  # raises on a control character
    case = next(root.iter("testcase"))
    assert case.get("classname") == "t\\x01\\x1b.py"
    assert "\\x1b]0;pwned" in case.find("failure").get("message")


NON_UTF8 = b"caf\xe9.py"


@pytest.mark.parametrize("fmt", ["json", "json-lines", "sarif", "gitlab", "junit", "text", "github"])
def test_non_utf8_file_name_is_reported_not_fatal(repo: Path, fmt: str) -> None:
    os.close(os.open(os.fsencode(repo) + b"/" + NON_UTF8, os.O_CREAT | os.O_WRONLY))
    with open(os.fsencode(repo) + b"/" + NON_UTF8, "wb") as handle:
        handle.write(V1)
    code, out, _ = run_lint(repo, fmt)
    assert code == 1
    out.encode("utf-8")  # valid UTF-8 on stdout: no lone surrogate
    report = repo / "report.out"
    assert run_lint(repo, fmt, output=report)[0] == 1
    assert report.read_bytes().decode("utf-8") == out


def test_json_path_of_an_undecodable_byte_is_a_udc_escape(repo: Path) -> None:
    with open(os.fsencode(repo) + b"/" + NON_UTF8, "wb") as handle:
        handle.write(V1)
    _, out, _ = run_lint(repo, "json")
    assert '"path": "./caf\\udce9.py"' in out or '"path": "caf\\udce9.py"' in out
    finding = json.loads(out)["findings"][0]
    assert os.fsencode(finding["path"]).endswith(NON_UTF8)  # the original bytes, back


def test_sarif_uri_is_percent_encoded_from_the_bytes(repo: Path) -> None:
    with open(os.fsencode(repo) + b"/" + NON_UTF8, "wb") as handle:
        handle.write(V1)
    (repo / "sp ace#%.py").write_bytes(V1)
    _, out, _ = run_lint(repo, "sarif")
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for r in json.loads(out)["runs"][0]["results"]}
    assert uris == {"caf%E9.py", "sp%20ace%23%25.py"}


def test_json_escapes_c1_controls_and_bidi_overrides(repo: Path) -> None:
    (repo / "t.py").write_bytes(HOSTILE_TODO.replace(b"gone", "\u202egone".encode()))
    _, out, _ = run_lint(repo, "json")
    assert "\x9b" not in out and "\u202e" not in out and "\x1b" not in out
    assert "\\u009b" in out and "\\u202e" in out
    assert "\u202e" in json.loads(out)["findings"][0]["message"]  # the text itself is kept


def test_fix_command_output_is_escaped_too(repo: Path) -> None:
    import subprocess
    import sys

    (repo / "t.py").write_bytes(HOSTILE_TODO)
    os.symlink("/etc/hostname", repo / "evil\x1b]0;title\x07.py")
    done = subprocess.run([sys.executable, "-m", "migrator", "--check", "."], cwd=repo, capture_output=True, timeout=120)
    assert b"\x1b" not in done.stdout + done.stderr and b"\x07" not in done.stdout + done.stderr
    assert b"\\x1b]0;pwned" in done.stdout + done.stderr
