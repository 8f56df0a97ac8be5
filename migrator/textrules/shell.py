"""Shell scripts: ``SGLANG_ENABLE_SPEC_V2`` settings and reads, renamed launch flags.

Catches (DFM201) ``export X=0`` / ``declare -x X=0`` / bare ``X=0``, prefix assignments
``X=0 cmd`` and ``env X=0 cmd``, ``-e X=0`` / ``--env X=0`` / ``--env=X=0`` in
``docker|podman run`` lines, ``unset X``, and reads such as ``$X`` or ``${X:+...}``; and
(DFM203) renamed ``sglang.launch_server`` flags. Look-alikes (``X_OTHER``) and
commented-out lines never match.

Why: from 0.5.14 sglang ignores the variable, so a script that set it to ``0`` silently
switches to overlap scheduling. Safe rewrite: a truthy setting (the default now) is
removed; a falsy one is removed and ``--disable-overlap-schedule`` is added to the
``sglang.launch_server`` command it applies to (the same command for prefix/``-e``
forms; every later command for ``export``), when that command is in the same file.
Otherwise the setting stays and a TODO comment is added above it. Reads get a TODO.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from migrator import catalog
from migrator.model import Finding, Fix, RemoveStatement, Replace, Span
from migrator.textrules import _core
from migrator.textrules._shellparse import Command, Word, split

_ASSIGN = re.compile(rf"^{re.escape(_core.ENV)}=(.*)$", re.S)
_DECLARERS = {"export", "declare", "typeset", "readonly", "local"}
_CONTAINER_TOOLS = {"docker", "podman", "nerdctl"}


@dataclass(frozen=True)
class Site:
    """Where ``--disable-overlap-schedule`` goes for one launch of ``sglang.launch_server``."""

    command: int  # index into the unit's commands (sites of extra units use -1)
    line: int
    column: int
    text: str  # what to insert
    satisfied: bool  # the launch already passes the flag
    #: Inside ``docker run``: an ``export`` on the host does not reach it.
    in_container: bool = False

    def edit(self) -> Replace:
        return Replace(Span.of(self.line, self.column, self.line, self.column), self.text)


def launch_sites(commands: list[Command]) -> list[Site]:
    sites = []
    for index, cmd in enumerate(commands):
        has_flag = any(_core.FLAG in w.raw for w in cmd.words)
        container = bool(cmd.words) and cmd.words[0].value in _CONTAINER_TOOLS
        for w in cmd.words:
            m = _core.LAUNCH_RE.search(w.raw)
            if m and w.line == w.end_line:
                sites.append(Site(index, w.line, w.start + m.end(), " " + _core.FLAG, has_flag, container))
    return sites


def _removal(cmd: Command, words: list[Word], lines: list[str]) -> list:
    """Edits that remove ``words`` (a setting and its ``-e`` flag, if any) from ``cmd``,
    which has other words left (see ``_remove_command`` for the whole command)."""
    first, last = words[0], words[-1]
    if first.line != last.end_line:
        return []
    text = lines[first.line - 1].rstrip("\r\n") if first.line - 1 < len(lines) else ""
    own_line = not text[: first.start].strip() and text[last.end:].strip() == "\\"
    if own_line and first.line > cmd.words[0].line:  # a middle continuation line of its own
        return [RemoveStatement(Span.of(first.line, 0, first.line, 0))]
    end = last.end
    while end < len(text) and text[end] in " \t":
        end += 1
    start = first.start
    if end >= len(text) or text[end] == "\\":  # last on its line: eat the space before instead
        end = last.end
        while start > 0 and text[start - 1] in " \t":
            start -= 1
    return [Replace(Span.of(first.line, start, first.line, end), "")]


def _alone(cmd: Command, others: list[Command]) -> bool:
    lines = set(range(cmd.words[0].line, cmd.words[-1].end_line + 1))
    return not any(w.line in lines or w.end_line in lines for o in others if o is not cmd for w in o.words)


def _left_empty(cmd: Command, removed: list[Word]) -> bool:
    """Whether ``cmd`` without ``removed`` does nothing but print: no words, or a bare
    ``export``/``declare -x``/``readonly``/``local``/``unset`` (a bare ``export`` prints
    every exported variable, secrets included, into a CI log)."""
    rest = [w for w in cmd.words if all(w is not r for r in removed)]
    return not rest or (rest[0].value in _DECLARERS | {"unset"}
                        and all(w.value.startswith(("-", "+")) for w in rest[1:]))


def _remove_command(index: int, commands: list[Command], lines: list[str], whole_line: bool) -> list:
    """Edits that remove ``commands[index]`` with the operator joining it to its list.

    ``a && X=1 && b`` becomes ``a && b``, ``cd x; export X=1`` becomes ``cd x``; where
    dropping the command would change what its neighbours do (``a || export X=1``,
    pipes, background jobs) it becomes ``true``, which does what the setting did.
    """
    cmd = commands[index]
    prev = commands[index - 1] if index and cmd.before is not None and commands[index - 1].after is cmd.before else None
    nxt = (commands[index + 1] if index + 1 < len(commands) and cmd.after is not None
           and commands[index + 1].before is cmd.after else None)
    first, last = cmd.words[0], cmd.words[-1]
    if prev is None and nxt is None and _alone(cmd, commands):
        text = lines[first.line - 1] if first.line - 1 < len(lines) else ""
        if whole_line or not text[: first.start].strip():
            return [RemoveStatement(Span.of(first.line, 0, last.end_line, 0))]
    elif nxt is not None and cmd.after.text in ("&&", ";") and (prev is None or cmd.before.text in (";", "&&", "&")):
        return [Replace(Span.of(first.line, first.start, nxt.words[0].line, nxt.words[0].start), "")]
    elif prev is not None and cmd.before.text in (";", "&&") and (cmd.after is None or cmd.after.text == ";"):
        if nxt is None:
            end = prev.words[-1]
            return [Replace(Span.of(end.end_line, end.end, last.end_line, last.end), "")]
    return [Replace(Span.of(first.line, first.start, last.end_line, last.end), "true")]


def _without(index: int, commands: list[Command], words: list[Word], lines: list[str], whole_line: bool) -> list:
    if _left_empty(commands[index], words):
        return _remove_command(index, commands, lines, whole_line)
    return _removal(commands[index], words, lines)


def analyze_commands(path: str, commands: list[Command], lines: list[str], ctx: _core.Ctx,
                     extra_sites: list[Site] = (), *, whole_line: bool = False) -> list[Finding]:
    """DFM201/DFM203 findings for ``commands`` (``lines`` are the text they came from).

    ``whole_line``: a command alone on its line may take text before it along (a
    Dockerfile ``RUN``); otherwise such text (a YAML ``run:`` key) stays, and the command
    becomes ``true``.
    """
    sites = launch_sites(commands)
    out: list[Finding] = []
    for index, cmd in enumerate(commands):
        handled: set[int] = set()
        words = cmd.words
        head = 0
        while head < len(words) and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[head].value):
            head += 1
        settings: list[tuple[list[Word], Word, str]] = []  # (words to remove, name word, scope)
        for w in words[:head]:
            settings.append(([w], w, "after" if head == len(words) else "command"))
        name = words[head].value if head < len(words) else ""
        rest = words[head + 1:]
        if name in _DECLARERS:
            settings += [([w], w, "after") for w in rest if _ASSIGN.match(w.value)]
        elif name == "env":
            settings += [([w], w, "command") for w in rest if _ASSIGN.match(w.value)]
        elif name in _CONTAINER_TOOLS:
            for i, w in enumerate(rest):
                if w.value in ("-e", "--env") and i + 1 < len(rest) and _ASSIGN.match(rest[i + 1].value):
                    settings.append(([w, rest[i + 1]], rest[i + 1], "command"))
                elif w.value.startswith("--env=") and _ASSIGN.match(w.value[6:]):
                    settings.append(([w], w, "command"))
        elif name == "unset":
            for w in rest:
                if w.value == _core.ENV:
                    handled.add(id(w))
                    fix = Fix("safe", tuple(_without(index, commands, [w], lines, whole_line)), "")
                    out.append(_core.finding(path, w.line, w.start, w.end, fix))
        for remove, word, scope in settings:
            m = _ASSIGN.match(word.value.removeprefix("--env="))
            if not m:
                continue
            handled.add(id(word))
            line, col = _position_in(word, word.raw.find(_core.ENV), lines)
            span_end = col + len(_core.ENV)
            value = catalog.sglang_bool(m.group(1)) if "$" not in m.group(1) else None
            removal = _without(index, commands, remove, lines, whole_line)
            if value is True and removal:
                out.append(_core.finding(path, line, col, span_end, Fix("safe", tuple(removal), "")))
                continue
            if value is False and removal:
                scoped = [s for s in sites if (s.command == index if scope == "command"
                                               else s.command > index and not s.in_container)]
                if scope == "after":
                    scoped += list(extra_sites)
                if scoped:
                    edits = removal + [s.edit() for s in scoped if not s.satisfied]
                    out.append(_core.finding(path, line, col, span_end, Fix("safe", tuple(edits), _core.FLAG)))
                    continue
                detail = _core.FALSY_NO_LAUNCH
            else:
                detail = _core.UNKNOWN_VALUE
            fix = _core.todo_fix(cmd.first_line or word.line, detail)
            out.append(_core.finding(path, line, col, span_end, fix))
        for w in words:
            if id(w) in handled:
                continue
            for m in _core.ENV_RE.finditer(w.raw):
                line, col = _position_in(w, m.start(), lines)
                out.append(_core.finding(path, line, col, col + len(_core.ENV),
                                         _core.todo_fix(cmd.first_line or w.line, _core.READ_REF)))
    return out


def _position_in(word: Word, offset: int, lines: list[str]) -> tuple[int, int]:
    """Line and column of the variable's name at ``word.raw[offset]``. A quoted word may
    span lines (its raw text has them joined): the k-th name in it is the k-th name on the
    physical lines the word covers."""
    if word.end_line == word.line:
        return word.line, word.start + offset
    nth = len(_core.ENV_RE.findall(word.raw, 0, offset))
    for number in range(word.line, word.end_line + 1):
        if not 0 < number <= len(lines):
            break
        text = lines[number - 1].rstrip("\r\n")
        begin = word.start if number == word.line else 0
        stop = word.end if number == word.end_line else len(text)
        for match in _core.ENV_RE.finditer(text, begin, stop):
            if nth == 0:
                return number, match.start()
            nth -= 1
    return word.line, word.start + offset


def analyze(path: str, text: str, ctx: _core.Ctx) -> list[Finding]:
    lines = text.splitlines(keepends=True)
    findings: list[Finding] = []
    if _core.ENV in text:
        findings += analyze_commands(path, split(lines), lines, ctx)
    for number, line in enumerate(lines, start=1):
        if "--" in line:
            findings += _core.cli_flag_findings(path, number, _core.strip_comment(line), ctx)
    return findings


def handle(path: str, data: bytes, options: object, python: _core.PythonAnalyser):
    return _core.run(path, data, options, RULE, analyze, python)


RULE = _core.TextRule("shell", (_core.ENV_ENTRY.code, *catalog.codes_of_kind("cli-flag")), dotted_names=True)
