"""Dockerfiles and Containerfiles: ``ENV``/``ARG`` settings, ``RUN``/``CMD``/``ENTRYPOINT``.

Catches (DFM201) ``ENV X=0``, ``ENV A=1 X=0`` (also over continuation lines), the legacy
``ENV X 0`` and ``ARG X=0``; inside shell-form ``RUN``/``CMD``/``ENTRYPOINT`` every shell
pattern of :mod:`migrator.text.shell`; and (DFM203) renamed launch flags. Comment
lines never match.

Safe rewrite of a falsy ``ENV``: drop the pair (or the instruction, when it was the only
one) and add ``--disable-overlap-schedule`` to every later ``sglang.launch_server`` in the
same build stage, in shell form (`` --disable-overlap-schedule``) or exec form
(``, "--disable-overlap-schedule"``). Without such a launch the ``ENV`` stays with a TODO.
"""

from __future__ import annotations

import bisect
import json
import re

from migrator import catalog
from migrator.base.model import Finding, Fix, RemoveStatement, Span
from migrator.base.records import NamedTuple, record
from migrator.text import _core, _guard, embedded_python, shell, wording
from migrator.text._shellparse import split

_INSTRUCTION = re.compile(r"^(\s*)([A-Za-z]+)(\s|$)")
_EXEC_LAUNCH = re.compile(rf'"{re.escape(_core.LAUNCH)}"')


@record
class Instruction(NamedTuple):
    keyword: str
    first: int  # 1-based lines, inclusive
    last: int
    masked: list[str]  # lines first..last with the keyword (and comment lines) blanked


def instructions(lines: list[str]) -> list[Instruction]:
    out: list[Instruction] = []
    i = 0
    while i < len(lines):
        text = lines[i].rstrip("\r\n")
        m = _INSTRUCTION.match(text)
        if not m:  # a blank or comment line
            i += 1
            continue
        masked = [" " * m.end(2) + text[m.end(2):]]
        first = i
        while masked[-1].rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            nxt = lines[i].rstrip("\r\n")
            masked.append(" " * len(nxt) + "\\" if nxt.lstrip().startswith("#") else nxt)
        out.append(Instruction(m.group(2).upper(), first + 1, i + 1, masked))
        i += 1
    return out


def _sites(ins: Instruction) -> list[shell.Site]:
    if ins.keyword not in ("RUN", "CMD", "ENTRYPOINT"):
        return []
    body = "\n".join(ins.masked)
    if body.lstrip().startswith("["):
        sites = []
        for offset, line in enumerate(ins.masked):
            for m in _EXEC_LAUNCH.finditer(line):
                sites.append(shell.Site(-1, ins.first + offset, m.end(), f', "{_core.FLAG}"', _core.FLAG in body))
        return sites
    return shell.launch_sites(split(ins.masked, ins.first))


class _Launches:
    """Where a falsy setting puts the flag: the launch sites after an instruction in its
    build stage. Indexed once per file, at the first falsy setting (linear in the file)."""

    def __init__(self, program: list[Instruction]) -> None:
        self.program = program
        self._indices: list[int] | None = None

    def after(self, n: int) -> list[shell.Site]:
        if self._indices is None:
            self._sites = [_sites(ins) for ins in self.program]
            self._indices = [i for i, sites in enumerate(self._sites) if sites]
            self._stage_end = [len(self.program)] * len(self.program)
            end = len(self.program)
            for i in range(len(self.program) - 1, -1, -1):
                self._stage_end[i] = end
                if self.program[i].keyword == "FROM":
                    end = i
        first = bisect.bisect_right(self._indices, n)
        last = bisect.bisect_left(self._indices, self._stage_end[n])
        return [site for i in self._indices[first:last] for site in self._sites[i]]

    def passed(self, n: int) -> int | None:
        """The line of the first ``RUN``/``CMD``/``ENTRYPOINT`` after instruction ``n`` in its
        build stage that passes the flag (a ``CMD`` of arguments to the image's own launch
        too), where no launch there lacks it."""
        if any(not site.satisfied for site in self.after(n)):
            return None
        for ins in self.program[n + 1:self._stage_end[n]]:
            if ins.keyword in ("RUN", "CMD", "ENTRYPOINT"):
                for offset, line in enumerate(ins.masked):
                    if _core.FLAG in line:
                        return ins.first + offset
        return None


def analyze(path: str, text: str, ctx: _core.Ctx) -> list[Finding]:
    lines = _core.split_lines(text, "shell")
    found: list[Finding] = []
    program = instructions(lines)
    launches = _Launches(program)
    reads = [ins.first for ins in program if shell._READ.search("".join(ins.masked))]  # in order
    if "<<" in text:
        found += embedded_python.heredoc_findings(path, lines, ctx)
    for n, ins in enumerate(program):
        for offset, line in enumerate(ins.masked):
            if "--" in line:
                found += _core.cli_flag_findings(path, ins.first + offset, line, ctx)
        body = "".join(ins.masked)
        if ins.keyword == "RUN" and embedded_python.might_hold(body):
            found += embedded_python.python_c_findings(path, split(ins.masked, ins.first), ctx, lines)
        if _core.ENV not in body:
            continue
        commands = split(ins.masked, ins.first)
        if ins.keyword in ("RUN", "CMD", "ENTRYPOINT") and not body.lstrip().startswith("["):
            found += shell.analyze_commands(path, commands, lines, ctx, whole_line=True,
                                            kind="dockerfile-run")
            continue
        if ins.keyword not in ("ENV", "ARG") or not commands:
            for offset, line in enumerate(ins.masked):
                found += _core.env_findings(path, ins.first + offset, line, _core.use_fix(ins.first, RULE.name))
            continue
        words = [w for c in commands for w in c.words]
        legacy = "=" not in words[0].value
        for w in words[:1] if legacy else words:
            name, _, value = w.value.partition("=")
            if name != _core.ENV:  # e.g. ENV B=$SGLANG_ENABLE_SPEC_V2
                found += _core.env_findings(path, w.line, w.raw, _core.use_fix(ins.first, RULE.name), w.start)
                continue
            if legacy:
                value = " ".join(x.value for x in words[1:])
            col = w.start + w.raw.find(_core.ENV)
            parsed = catalog.sglang_bool(value) if "$" not in value else None
            if len(words) == 1 or legacy:
                removal = [RemoveStatement(Span.of(ins.first, 0, ins.last, 0))]
            else:
                removal = shell._removal(commands[0], [w], lines)
            at = bisect.bisect_right(reads, ins.first)
            read = reads[at] if removal and at < len(reads) else None
            if read is not None:
                fix = _core.todo_fix(ins.first, wording.read_later(RULE.name, read))
            elif parsed is True and removal:
                fix = Fix("safe", tuple(removal), "")
            elif parsed is False and removal and (later := launches.after(n)):
                fix = Fix("safe", tuple(removal + [s.edit() for s in later if not s.satisfied]), _core.FLAG)
            else:
                fix = _core.kept_fix(ins.first, parsed, RULE.name, launches.passed(n) if removal else None)
            found.append(_core.finding(path, w.line, col, col + len(_core.ENV), fix))
    return found


_KEYWORDS = frozenset({"FROM", "RUN", "CMD", "LABEL", "MAINTAINER", "EXPOSE", "ENV", "ADD", "COPY", "ENTRYPOINT",
                       "VOLUME", "USER", "WORKDIR", "ARG", "ONBUILD", "STOPSIGNAL", "HEALTHCHECK", "SHELL"})
_HEREDOC_OPEN = re.compile(r"<<-?\s*[\"']?([A-Za-z_]\w*)")


def _problems(text: str) -> str | None:
    """Why Docker would not read ``text``: an unknown instruction, or shell that ``bash -n``
    rejects in a shell-form ``RUN``/``CMD``/``ENTRYPOINT`` (here-documents skipped)."""
    lines = _core.split_lines(text, "shell")
    scripts: list[str] = []
    heredoc: str | None = None
    for ins in instructions(lines):
        if heredoc is not None:
            if any(line.strip() == heredoc for line in lines[ins.first - 1:ins.last]):
                heredoc = None
            continue
        if ins.keyword not in _KEYWORDS:
            return f"line {ins.first}: unknown instruction {ins.keyword}"
        body = "\n".join(ins.masked).strip()
        if opened := _HEREDOC_OPEN.search(body):
            heredoc = opened.group(1)
            continue
        if ins.keyword not in ("RUN", "CMD", "ENTRYPOINT"):
            continue
        if body.startswith("["):
            try:
                json.loads(body.replace("\\\n", ""))
            except ValueError:
                scripts.append(body)  # not an exec form: Docker runs it as a shell command
            continue
        scripts.append("\n".join(ins.masked))
    error = _guard.bash_error("\n".join(scripts) + "\n") if scripts else None
    return None if error is None else f"shell of RUN/CMD/ENTRYPOINT: {error}"


def guard(path: str, before: str, after: str) -> str | None:
    """The text-fix guard's check of a Dockerfile (``migrator.text._guard``)."""
    return _guard.compare("Dockerfile", _problems(before), _problems(after))


def regions(text: str) -> tuple[set[int], set[int]]:
    """(no data lines, lines of instructions continued over lines or running shell): where
    a comment is the embedded shell's, not the Dockerfile's (``migrator.base.suppressions``)."""
    embedded: set[int] = set()
    for ins in instructions(_core.split_lines(text, "shell")):
        embedded.update(range(ins.first + 1, ins.last + 1))
        if ins.keyword in ("RUN", "CMD", "ENTRYPOINT"):
            embedded.add(ins.first)
    return set(), embedded


def handle(path: str, data: bytes, ctx: _core.Ctx):
    return _core.run(path, data, ctx, RULE, analyze, regions=regions)


RULE = _core.TextRule("dockerfile", _core.ENV_AND_FLAG_CODES, dotted_names=True,
                      embeds=("shell",),
    examples=_core.Examples(
        invalid=(
            (
                "FROM python:3.11\n"
                "ENV SGLANG_ENABLE_SPEC_V2=0\n"
            ),
        ),
        valid=(
            (
                "FROM python:3.11\n"
                "ENV SGLANG_ENABLE_TORCH_COMPILE=0\n"
            ),
        ),
        path="Dockerfile",
    ),
)
