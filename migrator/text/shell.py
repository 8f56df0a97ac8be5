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

Never removed, with a TODO saying why (removing could change what the script does): a
setting that runs only on some paths (inside ``if``/``case``/a loop/a function/``{ }``,
after ``&&``/``||``; a prefix ``X=1 cmd`` there reaches only ``cmd`` and is fixed), one whose variable the same script reads later (``$X``, ``${X:-..}``:
unbound under ``set -u``), and an ``export``/``declare -x`` that also gets an expansion
(``$EXTRA``, ``"$@"``), which may be empty and leave a bare ``export`` printing every
variable. Redirections are no arguments: ``export X=1 2>/dev/null`` goes whole. Here-
document bodies are data (reported, not edited). Lines end at LF only, as in bash.
"""

from __future__ import annotations

import bisect
import re

from migrator import catalog
from migrator.base.model import Finding, Fix, InsertComment, RemoveStatement, Replace, Span
from migrator.base.records import NamedTuple, record
from migrator.text import _core, embedded_python, wording
from migrator.text._shellparse import ShellCommand, Word, split

_ASSIGN = re.compile(rf"^{re.escape(_core.ENV)}=(.*)$", re.S)
_DECLARERS = {"export", "declare", "typeset", "readonly", "local"}
_CONTAINER_TOOLS = {"docker", "podman", "nerdctl"}
#: A read of the variable: ``$X``, ``${X}``, ``${X:-...}``, ``${#X}``, ``${!X}``.
_READ = re.compile(rf"\$(?:\{{[#!]?)?{re.escape(_core.ENV)}(?![A-Za-z0-9_])")


@record
class Site(NamedTuple):
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


def launch_sites(commands: list[ShellCommand]) -> list[Site]:
    sites = []
    for index, cmd in enumerate(commands):
        has_flag = any(_core.FLAG in w.raw for w in cmd.words)
        container = bool(cmd.words) and cmd.words[0].value in _CONTAINER_TOOLS
        for w in cmd.words:
            m = _core.LAUNCH_RE.search(w.raw)
            if m and w.line == w.end_line:
                sites.append(Site(index, w.line, w.start + m.end(), " " + _core.FLAG, has_flag, container))
    return sites


def _removal(cmd: ShellCommand, words: list[Word], lines: list[str]) -> list:
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


_REDIRECT = re.compile(r"^(?:\d*|&)(?:<|>)")
_REDIRECT_ALONE = re.compile(r"^(?:\d*|&)(?:[<>]{1,2}|<>|>\||[<>]&)$")


def _left_empty(cmd: ShellCommand, removed: list[Word], start: int = 0) -> bool | str:
    """Whether ``cmd`` without ``removed`` does nothing but print: no words, or a bare
    ``export``/``declare -x``/``readonly``/``local``/``unset`` (a bare ``export`` prints
    every exported variable, secrets included, into a CI log). Redirections (``2>/dev/null``,
    ``> f``, ``>&2``) and options are no arguments. An expansion (``$EXTRA``, ``"$@"``) may
    be empty: the removal cannot be proven, and its raw text is returned instead."""
    rest = [w for w in cmd.words[start:] if all(w is not r for r in removed)]
    if not rest:
        return True
    if rest[0].value not in _DECLARERS | {"unset"}:
        return False
    skip_next = False
    expansions = []
    for w in rest[1:]:
        if skip_next:
            skip_next = False
        elif _REDIRECT_ALONE.match(w.raw):
            skip_next = True
        elif _REDIRECT.match(w.raw) or w.value.startswith(("-", "+")):
            continue
        elif "$" in w.raw or "`" in w.raw:
            expansions.append(w.raw)
        else:
            return False
    return expansions[0] if expansions else True


class _Unit:
    """The commands of one script (a file, a ``RUN``, a ``run:`` block) and what each fix
    needs to know about all of them, computed once: which commands share a line, where
    the variable is read, which commands run only on some paths."""

    def __init__(self, commands: list[ShellCommand], lines: list[str], whole_line: bool,
                 heredoc_lines: frozenset[int] | set[int] = frozenset(), kind: str = "shell") -> None:
        self.commands, self.lines, self.whole_line, self.kind = commands, lines, whole_line, kind
        self.starts, self.conditions = _structure(commands)
        self._sharing: dict[int, int] | None = None
        self.reads = sorted(self._reads(heredoc_lines))

    def _reads(self, heredoc_lines: frozenset[int] | set[int]):  # noqa: ANN202
        for cmd in self.commands:
            for w in cmd.words:
                if "$" in w.raw and _READ.search(w.raw):
                    yield (w.line, w.start)
        for number in heredoc_lines:
            if number <= len(self.lines) and _READ.search(self.lines[number - 1]):
                yield (number, 0)

    def read_after(self, word: Word) -> int | None:
        """The line of the first read of the variable after ``word``, or None."""
        at = bisect.bisect_left(self.reads, (word.end_line, word.end))
        return self.reads[at][0] if at < len(self.reads) else None

    def alone(self, index: int) -> bool:
        """Whether no other command has a word on the lines of ``commands[index]``."""
        if self._sharing is None:
            self._sharing = {}
            for cmd in self.commands:
                for number in {n for w in cmd.words for n in (w.line, w.end_line)}:
                    self._sharing[number] = self._sharing.get(number, 0) + 1
        cmd = self.commands[index]
        own = {n for w in cmd.words for n in (w.line, w.end_line)}
        return all(self._sharing.get(n, 0) <= (1 if n in own else 0)
                   for n in range(cmd.words[0].line, cmd.words[-1].end_line + 1))


#: Words that open or close a compound command, and those that only lead into a body.
_OPENERS = {"if": "if", "while": "while", "until": "until", "case": "case", "for": "for", "select": "select"}
_CLOSERS = {"fi", "done", "esac", "}"}
_LEADERS = {"then", "else", "elif", "do", "!", "time"}


def _structure(commands: list[ShellCommand]) -> tuple[list[int], list[str | None]]:
    """For each command: the index of its first word after compound keywords (``then``,
    ``do``, ``{``, a ``case`` pattern), and why it runs only on some paths (inside an
    ``if``/``case``/loop/function, after ``&&``/``||``), or None when it always runs."""
    stack: list[str] = []
    function_next = False
    starts: list[int] = []
    conditions: list[str | None] = []
    for cmd in commands:
        words = cmd.words
        i = 0
        while i < len(words):
            value = words[i].value
            if value in _OPENERS:
                stack.append(_OPENERS[value])
                if value in ("case", "for", "select"):
                    i = len(words)  # the words up to ``in``/``do`` are not a command
                    break
            elif value in _LEADERS:
                pass
            elif value == "{":
                stack.append("a function" if function_next else "a `{ }` group")
                function_next = False
            elif value in _CLOSERS:
                if stack:
                    stack.pop()
            elif value == "function" or (value.endswith("()") and len(value) > 2):
                function_next = True
                if value == "function":
                    i += 1
            elif i + 1 < len(words) and words[i + 1].value == "()":  # ``name () {``
                function_next = True
                i += 1
            elif stack and stack[-1] == "case" and value.endswith(")"):
                pass  # a pattern of the case
            else:
                break
            i += 1
        starts.append(i)
        if stack:
            where = stack[-1]
            conditions.append(where if " " in where else f"inside `{where}`")
        elif cmd.before is not None and cmd.before.text in ("&&", "||"):
            conditions.append(f"after `{cmd.before.text}`")
        else:
            conditions.append(None)
    return starts, conditions


def _remove_command(index: int, unit: _Unit) -> list:
    """Edits that remove ``commands[index]`` with the operator joining it to its list.

    ``a && X=1 && b`` becomes ``a && b``, ``cd x; export X=1`` becomes ``cd x``; where
    dropping the command would change what its neighbours do (``a || export X=1``,
    pipes, background jobs) it becomes ``true``, which does what the setting did.
    """
    commands, lines = unit.commands, unit.lines
    cmd = commands[index]
    prev = commands[index - 1] if index and cmd.before is not None and commands[index - 1].after is cmd.before else None
    nxt = (commands[index + 1] if index + 1 < len(commands) and cmd.after is not None
           and commands[index + 1].before is cmd.after else None)
    first, last = cmd.words[0], cmd.words[-1]
    if prev is None and nxt is None and unit.alone(index):
        text = lines[first.line - 1] if first.line - 1 < len(lines) else ""
        if unit.whole_line or not text[: first.start].strip():
            return [RemoveStatement(Span.of(first.line, 0, last.end_line, 0))]
    elif nxt is not None and cmd.after.text in ("&&", ";") and (prev is None or cmd.before.text in (";", "&&", "&")):
        return [Replace(Span.of(first.line, first.start, nxt.words[0].line, nxt.words[0].start), "")]
    elif prev is not None and cmd.before.text in (";", "&&") and (cmd.after is None or cmd.after.text == ";"):
        if nxt is None:
            end = prev.words[-1]
            return [Replace(Span.of(end.end_line, end.end, last.end_line, last.end), "")]
    return [Replace(Span.of(first.line, first.start, last.end_line, last.end), "true")]


def _without(index: int, unit: _Unit, words: list[Word], scope: str = "after") -> list | str:
    """Edits removing ``words`` from ``commands[index]``, or why that cannot be proven.
    ``scope``: "after" when the setting sets the shell's variable (later reads see it),
    "command" when it only reaches one command's environment (``X=1 cmd``, ``env``, ``-e``)."""
    cmd = unit.commands[index]
    # A prefix (``if X=1 cmd; then``) reaches only its own command, whatever path runs it:
    # removing it (and, for ``=0``, passing the flag to that command) is the whole fix.
    if unit.conditions[index] is not None and scope == "after":
        return (f"`{_core.ENV}` is set or unset here only on some paths ({unit.conditions[index]}); sglang "
                f"{catalog.FIRST_V2_RELEASE}+ ignores it and runs the overlap scheduler unless `{_core.FLAG}` is "
                "passed: keep that choice on the launch by hand, then drop this line")
    read = unit.read_after(words[-1]) if scope == "after" else None
    if read is not None:
        return wording.read_later(unit.kind, read, " (an unbound variable under `set -u`)")
    empty = _left_empty(cmd, words, unit.starts[index])
    if isinstance(empty, str):
        return (f"`{cmd.words[unit.starts[index]].value}` also gets `{empty}`, which may expand to nothing: "
                f"without `{_core.ENV}` it could be a bare `{cmd.words[unit.starts[index]].value}` that prints every "
                "exported variable; remove the setting by hand")
    if empty:
        return _remove_command(index, unit)
    return _removal(cmd, words, unit.lines)


def _settings_of(words: list[Word], start: int) -> tuple[list[tuple[list[Word], Word, str]], str, list[Word]]:
    """The variable settings of the command ``words[start:]``, each (words to remove, the word
    naming the variable, scope as :func:`_without` takes it), with the command's name and
    arguments: prefix assignments, ``export``-like declarers, ``env``, a container tool's ``-e``."""
    head = start
    while head < len(words) and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[head].value):
        head += 1
    settings: list[tuple[list[Word], Word, str]] = []
    for w in words[start:head]:
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
    return settings, name, rest


def analyze_commands(path: str, commands: list[ShellCommand], lines: list[str], ctx: _core.Ctx,
                     extra_sites: list[Site] = (), *, whole_line: bool = False,
                     heredoc_lines: frozenset[int] | set[int] = frozenset(), kind: str = "shell") -> list[Finding]:
    """DFM201/DFM203 findings for ``commands`` (``lines`` are the text they came from).

    ``whole_line``: a command alone on its line may take text before it along (a
    Dockerfile ``RUN``); otherwise such text (a YAML ``run:`` key) stays, and the command
    becomes ``true``. A setting that runs only on some paths (inside ``if``/``case``/a
    loop/a function, after ``&&``/``||``), whose variable is read later, or whose command
    also gets an expansion that may be empty is never removed: it gets a TODO saying why.
    ``heredoc_lines``: lines of here-document bodies (data: reported, never edited).
    ``kind``: whose words the TODOs use (:mod:`migrator.text.wording`; a Dockerfile's ``RUN``).
    """
    sites = launch_sites(commands)
    unit = _Unit(commands, lines, whole_line, heredoc_lines, kind)
    by_command: dict[int, list[Site]] = {}
    for site in sites:
        by_command.setdefault(site.command, []).append(site)
    hosts = [s for s in sites if not s.in_container]
    out: list[Finding] = []
    for index, cmd in enumerate(commands):
        handled: set[int] = set()
        words = cmd.words
        settings, name, rest = _settings_of(words, unit.starts[index])
        if name == "unset":
            for w in rest:
                if w.value == _core.ENV:
                    handled.add(id(w))
                    removal = _without(index, unit, [w])
                    fix = (_core.todo_fix(cmd.first_line or w.line, removal) if isinstance(removal, str)
                           else _anchored(Fix("safe", tuple(removal), ""), cmd.first_line or w.line))
                    out.append(_core.finding(path, w.line, w.start, w.end, fix))
        for remove, word, scope in settings:
            m = _ASSIGN.match(word.value.removeprefix("--env="))
            if not m:
                continue
            handled.add(id(word))
            line, col = _position_in(word, word.raw.find(_core.ENV), lines)
            span_end = col + len(_core.ENV)
            value = catalog.sglang_bool(m.group(1)) if "$" not in m.group(1) else None
            anchor = cmd.first_line or word.line
            removal = _without(index, unit, remove, scope) if value is not None else []
            if isinstance(removal, str):
                out.append(_core.finding(path, line, col, span_end, _core.todo_fix(anchor, removal)))
                continue
            if value is True and removal:
                out.append(_core.finding(path, line, col, span_end, _anchored(Fix("safe", tuple(removal), ""), anchor)))
                continue
            if scope == "command":
                scoped = by_command.get(index, [])
            else:
                scoped = [s for s in hosts if s.command > index] + list(extra_sites)
            if value is False and removal and scoped:
                edits = removal + [s.edit() for s in scoped if not s.satisfied]
                fix = _anchored(Fix("safe", tuple(edits), _core.FLAG), anchor)
                out.append(_core.finding(path, line, col, span_end, fix))
                continue
            # a setting that cannot be cut out of its line is reported as of an unknown value
            kept = _core.kept_fix(anchor, value if removal else None, kind, _passed(unit, index, scope, scoped))
            out.append(_core.finding(path, line, col, span_end, kept))
        for w in words:
            if id(w) in handled:
                continue
            for m in _core.ENV_RE.finditer(w.raw):
                line, col = _position_in(w, m.start(), lines)
                out.append(_core.finding(path, line, col, col + len(_core.ENV),
                                         _core.use_fix(cmd.first_line or w.line, kind)))
    for number in sorted(heredoc_lines):
        if number <= len(lines):  # text a script writes somewhere: reported, never edited
            out += _core.env_findings(path, number, lines[number - 1], Fix("manual", ()))
    return out


def _passed(unit: _Unit, index: int, scope: str, scoped: list[Site]) -> int | None:
    """The line where what the setting of ``commands[index]`` reaches already passes the
    flag: no launch it reaches (``scoped``) lacks it, and a command it reaches holds it (its
    own for ``scope`` "command"; for "after", a later one on this host, not in a container)."""
    if any(not site.satisfied for site in scoped):
        return None
    reached = unit.commands[index:index + 1] if scope == "command" else unit.commands[index + 1:]
    for cmd in reached:
        if scope == "after" and cmd.words and cmd.words[0].value in _CONTAINER_TOOLS:
            continue
        line = next((w.line for w in cmd.words if _core.FLAG in w.raw), None)
        if line is not None:
            return line
    return None


def _anchored(fix: Fix, line: int) -> Fix:
    """``fix`` with the TODO it becomes when not applied (``fallback``): above the first line
    of its command, where the text-fix guard puts its TODO should it refuse the fix."""
    return fix._replace(fallback=(InsertComment(line, catalog.todo_comment(_core.ENV_ENTRY)),))


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
    lines = _core.split_lines(text, "shell")
    findings: list[Finding] = []
    if _core.ENV in text or embedded_python.might_hold(text):
        heredoc: set[int] = set()
        commands = split(lines, 1, heredoc)
        if _core.ENV in text:
            findings += analyze_commands(path, commands, lines, ctx, heredoc_lines=heredoc)
        findings += embedded_python.python_c_findings(path, commands, ctx, lines)
    if "<<" in text:
        findings += embedded_python.heredoc_findings(path, lines, ctx)
    for number, line in enumerate(lines, start=1):
        if "--" in line:
            findings += _core.cli_flag_findings(path, number, _core.strip_comment(line), ctx)
    return findings


def regions(text: str) -> tuple[set[int], set[int]]:
    """(lines of here-documents and of strings over several lines: data, no comments; no
    embedded language) for ``migrator.base.suppressions``."""
    data: set[int] = set()
    split(_core.split_lines(text, "shell"), 1, data, data)
    return data, set()


def handle(path: str, data: bytes, ctx: _core.Ctx):
    return _core.run(path, data, ctx, RULE, analyze, regions=regions)


RULE = _core.TextRule("shell", _core.ENV_AND_FLAG_CODES, dotted_names=True, embeds=("python",),
    examples=_core.Examples(
        invalid=(
            "python -m sglang.launch_server --speculative-dflash-draft-window-size 8\n",
        ),
        valid=(
            "python -m sglang.launch_server --speculative-draft-window-size 8\n",
        ),
        path="serve.sh",
    ),
)
