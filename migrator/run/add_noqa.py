"""``lint --add-noqa``: write a suppression comment for every finding, for teams that prefer
comments to a baseline file (ruff's ``--add-noqa``).

Only where a comment provably changes nothing but the suppression:

* Python: ``  # dflash-migrate: ignore[CODE]`` at the end of the finding's line, when
  ``tokenize`` shows that the line ends outside any string and without a backslash
  continuation; an existing directive on that line gets the code added; another comment
  keeps its text and the directive follows it.
* shell, ``.env``, TOML, YAML and Dockerfiles: ``# dflash-migrate: ignore[CODE]`` on its own
  line above the finding's line, with its indentation, when that line starts a statement
  (no continuation ``\\`` above it, no heredoc, YAML block scalar or multi-line string it
  could be inside).
* Markdown, JSON and notebooks, and every line the checks above refuse: nothing is written;
  the findings are counted as left, for ``--write-baseline``.

Files are rewritten atomically (:func:`migrator.base.fileio.write_atomic`), only if
unchanged since they were read, and, as ``fix`` does, only if git holds no uncommitted work
for them (:mod:`migrator.run.uncommitted`) unless ``--allow-dirty``.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import defaultdict
from pathlib import Path

from migrator.base.fileio import SourceError, read_bytes, write_atomic
from migrator.base.model import FileResult
from migrator.text import module_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    from migrator.run.uncommitted import Uncommitted

PREFIX = "dflash-migrate: ignore"
_EXISTING = re.compile(r"dflash-migrate:\s*ignore\[(?P<codes>[^\]]*)\]")
_OWN_LINE_TYPES = {"shell", "dotenv", "toml", "yaml", "dockerfile"}
_STATEMENT_START = {
    "dotenv": re.compile(r"^\s*(export\s+)?[A-Za-z_][A-Za-z0-9_.]*\s*="),
    "toml": re.compile(r"^\s*(\[|[A-Za-z0-9_\"'.-]+\s*=)"),
    "yaml": re.compile(r"^\s*(-\s+)?[^\s#'\"][^:]*:(\s|$)|^\s*-\s"),
    "dockerfile": re.compile(r"^\s*\S"),
    "shell": re.compile(r"^\s*\S"),
}
_BLOCK_SCALAR = re.compile(r"[:-]\s*[|>][-+0-9]*\s*(#.*)?$")


class Added:
    """Counts of an ``--add-noqa`` run."""

    __slots__ = ("comments", "files", "left", "errors")

    def __init__(self) -> None:
        self.comments = 0
        self.files = 0
        self.left = 0
        self.errors: list[str] = []


def directive(codes: set[str]) -> str:
    return f"# {PREFIX}[{', '.join(sorted(codes))}]"


def _codes_of(existing: re.Match[str]) -> set[str]:
    """The codes an existing directive names."""
    return {c.strip() for c in existing.group("codes").split(",") if c.strip()}


def _python_safe_line_ends(data: bytes) -> tuple[set[int], dict[int, tuple[int, str]]] | None:
    """Lines that end outside strings and continuations, and each line's comment (column, text)."""
    ends: set[int] = set()
    comments: dict[int, tuple[int, str]] = {}
    try:
        for token in tokenize.tokenize(io.BytesIO(data).readline):
            if token.type in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER):
                ends.add(token.start[0])
            elif token.type == tokenize.COMMENT:
                comments[token.start[0]] = (token.start[1], token.string)
    except (tokenize.TokenError, SyntaxError):
        return None
    return ends, comments


def _python(data: bytes, wanted: dict[int, set[str]]) -> tuple[bytes, set[int]]:
    scanned = _python_safe_line_ends(data)
    if scanned is None:
        return data, set()
    ends, comments = scanned
    lines = data.splitlines(keepends=True)
    done: set[int] = set()
    for number, codes in wanted.items():
        if number not in ends or number > len(lines):
            continue
        body = lines[number - 1].rstrip(b"\r\n")
        end = lines[number - 1][len(body):]
        text = body.decode("utf-8", "surrogateescape")
        existing = _EXISTING.search(text) if number in comments else None
        if existing is not None:
            merged = codes | _codes_of(existing)
            text = text[:existing.start()] + f"{PREFIX}[{', '.join(sorted(merged))}]" + text[existing.end():]
        else:
            text = text.rstrip() + "  " + directive(codes)
        lines[number - 1] = text.encode("utf-8", "surrogateescape") + (end or b"\n")
        done.add(number)
    return b"".join(lines), done


def _inside_yaml_block(lines: list[str], index: int) -> bool:
    indent = len(lines[index]) - len(lines[index].lstrip())
    for previous in reversed(lines[:index]):
        stripped = previous.strip()
        if not stripped or stripped.startswith("#"):
            continue
        level = len(previous) - len(previous.lstrip())
        if level < indent:
            if _BLOCK_SCALAR.search(previous.rstrip()):
                return True
            indent = level
            if level == 0:
                return False
    return False


def _open_quote(lines: list[str]) -> bool:
    """Whether the shell text before a line may leave a quoted string open (odd quote
    counts outside comment lines): then a new line could land inside the string."""
    code = "".join(line for line in lines if not line.lstrip().startswith("#")).replace("\\\\", "").replace(
        '\\"', "").replace("\\'", "")
    return code.count('"') % 2 == 1 or code.count("'") % 2 == 1


def _own_line_ok(kind: str, lines: list[str], index: int) -> bool:
    line = lines[index]
    if not _STATEMENT_START[kind].match(line):
        return False
    before = lines[:index]
    if before and before[-1].rstrip("\r\n").endswith("\\") and kind != "dockerfile":
        return False
    text_before = "".join(before)
    if kind in ("shell", "dockerfile") and ("<<" in text_before or _open_quote(before)):
        return False
    if kind == "toml" and ('"""' in text_before or "'''" in text_before):
        return False
    if kind == "dotenv" and (text_before.count('"') % 2 or text_before.count("'") % 2):
        return False
    return not (kind == "yaml" and (_inside_yaml_block(lines, index) or "[" in line.split(":", 1)[0]))


def _own_line(kind: str, data: bytes, wanted: dict[int, set[str]]) -> tuple[bytes, set[int]]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data, set()
    from importlib import import_module

    from migrator.base.lines import split_lines

    try:
        reader = import_module(f"migrator.text.{kind}").RULE.reader  # where the file's reader ends lines
    except ImportError:
        reader = "python"
    lines = split_lines(text, reader)
    newline = "\r\n" if "\r\n" in text else "\n"
    done: set[int] = set()
    for number in sorted(wanted, reverse=True):  # bottom up: earlier line numbers stay valid
        index = number - 1
        if index >= len(lines) or not _own_line_ok(kind, lines, index):
            continue
        above = lines[index - 1] if index else ""
        codes = set(wanted[number])
        existing = _EXISTING.search(above) if above.lstrip().startswith("#") else None
        indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
        if existing is not None:
            codes |= _codes_of(existing)
            lines[index - 1] = indent + directive(codes) + newline
        else:
            lines.insert(index, indent + directive(codes) + newline)
        done.add(number)
    return "".join(lines).encode("utf-8"), done


def add(results: list[FileResult], dirty: Uncommitted | None = None) -> Added:
    """Write suppression comments for the findings in ``results``; return the counts.
    ``dirty`` (None with ``--allow-dirty``) refuses files holding uncommitted work."""
    counts = Added()
    for result in results:
        # information is no work to suppress: its old spelling still works on the target
        findings = [f for f in result.findings if not f.informational]
        if not findings:
            continue
        wanted: dict[int, set[str]] = defaultdict(set)
        for finding in findings:
            wanted[finding.line].add(finding.code)
        path = result.path
        kind = "python" if path.endswith((".py", ".pyi")) else module_for(path)
        if kind != "python" and kind not in _OWN_LINE_TYPES:
            counts.left += len(findings)
            continue
        try:
            old = read_bytes(path)
            new, done = _python(old, wanted) if kind == "python" else _own_line(kind, old, wanted)
            refusal = dirty.reason(path, old) if dirty is not None and new != old else None
            if refusal is not None:
                raise SourceError(refusal)
            if new != old:
                write_atomic(Path(path), new, old)
                counts.files += 1
        except (OSError, SourceError) as error:
            counts.errors.append(f"{path}: {error}")
            counts.left += len(findings)
            continue
        counts.comments += len(done)
        counts.left += sum(1 for f in findings if f.line not in done)
    return counts
