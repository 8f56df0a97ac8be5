"""YAML (Kubernetes manifests, Compose files, CI workflows), line-based so bytes are kept.

Catches (DFM201):

- Kubernetes env lists: ``- name: X`` with ``value: "0"`` (either key order, or the flow
  form ``- {name: X, value: "0"}``); ``valueFrom`` gets a TODO;
- mappings such as Compose ``environment:`` / Actions ``env:``: ``X: "0"``; a matrix
  (``X: [0, 1]``) or any non-scalar value gets a TODO;
- Compose list entries ``- X=0``;
- anything else (``run:`` scripts, ``command:`` strings) through the shell rules;

and (DFM203) renamed launch flags. Comments never match; ``X_OTHER`` never matches.

Which launch a setting applies to: the enclosing block of its ``env:`` key (the container,
service or job: the lines at the key's indentation or deeper, plus the list item that
starts it). A falsy setting is removed and ``--disable-overlap-schedule`` added to each
``sglang.launch_server`` in that block (``, "--disable-overlap-schedule"`` in a flow list,
a new ``- --disable-overlap-schedule`` item in a block list); with none there, a TODO. A
list or mapping left empty becomes ``[]``/``{}`` so it stays valid.
"""

from __future__ import annotations

import bisect
import re

import yaml as pyyaml

from migrator import catalog
from migrator.base.model import Finding, Fix, RemoveStatement, Replace, Span
from migrator.text import _core, embedded_python, shell
from migrator.text._shellparse import split
from migrator.text.dotenv import unquote

E = re.escape(_core.ENV)
_Q = r"""["']?"""
_K8S_NAME = re.compile(rf"^(\s*)(-\s+)?name:\s*{_Q}{E}{_Q}\s*$")
_K8S_FLOW = re.compile(rf"^\s*-\s*\{{.*\bname:\s*{_Q}{E}{_Q}\s*(,|\}})")
_MAPPING = re.compile(rf"^(\s*)(-\s+)?{_Q}{E}{_Q}\s*:(\s*)(.*?)\s*$")
_LIST_ITEM = re.compile(rf"^(\s*)-\s+{_Q}{E}=(.*?){_Q}\s*$")
_VALUE = re.compile(r"^\s*(?:-\s+)?value:\s*(.*?)\s*$")
_BLOCK_LAUNCH = re.compile(rf"^(\s*)-\s+(['\"]?){re.escape(_core.LAUNCH)}\2\s*$")
#: A list item that is a mapping (``- run: ...``, ``- name: server``): a step, a container.
_MAPPING_ITEM = re.compile(r"^\s*-\s+[\w.-]+:(\s|$)")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _blank(line: str) -> bool:
    s = line.strip()
    return not s or s.startswith("#")


class _Lines:
    """The lines with what the rules ask of them computed once (linear in the lines, so
    that a file with thousands of settings is read in time linear in its size): each
    line's indentation, the nearest enclosing line before and after it, and the launch
    sites of each block."""

    def __init__(self, lines: list[str], newline: str) -> None:
        self.lines, self.newline = lines, newline
        n = len(lines)
        self.blank = [_blank(line) for line in lines]
        self.indent = [_indent(line) for line in lines]
        self.prev_smaller = [-1] * n  # nearest earlier non-blank line indented less
        self.next_smaller = [n] * n  # nearest later non-blank line indented less
        self.next_not_deeper = [n] * n  # nearest later non-blank line indented no deeper
        self.prev_filled = [-1] * n  # nearest non-blank line at or before
        self.next_filled = [n] * (n + 1)  # nearest non-blank line at or after
        smaller: list[int] = []
        deeper: list[int] = []
        before: list[int] = []
        last = -1
        for i in range(n):
            if not self.blank[i]:
                last = i
                depth = self.indent[i]
                while smaller and self.indent[smaller[-1]] > depth:
                    self.next_smaller[smaller.pop()] = i
                smaller.append(i)
                while deeper and self.indent[deeper[-1]] >= depth:
                    self.next_not_deeper[deeper.pop()] = i
                deeper.append(i)
                while before and self.indent[before[-1]] >= depth:
                    before.pop()
                self.prev_smaller[i] = before[-1] if before else -1
                before.append(i)
            self.prev_filled[i] = last
        for i in range(n - 1, -1, -1):
            self.next_filled[i] = i if not self.blank[i] else self.next_filled[i + 1]
        self._sites: dict[tuple[int, int], tuple[list[Replace], int | None]] = {}

    def parent(self, index: int, indent: int) -> int | None:
        """The nearest line before ``index`` indented less than ``indent``."""
        j = self.prev_filled[index - 1] if index > 0 else -1
        while j >= 0 and self.indent[j] >= indent:
            j = self.prev_smaller[j]
        return j if j >= 0 else None

    def block(self, key: int | None) -> range:
        """Lines the setting under ``lines[key]`` applies to (see the module docstring)."""
        lines = self.lines
        if key is None or not self.indent[key]:
            return range(0, len(lines))
        k = self.indent[key]
        top = self.prev_smaller[key] + 1
        if top > 0 and re.match(r"^\s*-\s+", lines[top - 1]) and _indent(lines[top - 1].replace("-", " ", 1)) == k:
            top -= 1
        return range(top, self.next_smaller[key])

    def only_children(self, key: int, first: int, last: int) -> bool:
        """Whether lines first..last are all the non-blank lines nested under ``key``."""
        end = self.next_not_deeper[key]
        return self.next_filled[key + 1] >= first and self.prev_filled[end - 1] <= last

    def sites(self, block: range) -> tuple[list[Replace], int | None]:
        """Where the flag goes for each launch in ``block``, and the first line (1-based)
        that passes it, if one does."""
        cached = self._sites.get((block.start, block.stop))
        if cached is not None:
            return cached
        edits: list[Replace] = []
        texts = [(i, text) for i in block
                 if "sglang" in (text := _core.strip_comment(self.lines[i].rstrip(_core.BREAKS))) or "--" in text]
        flags = [i for i, text in texts if _core.FLAG in text]  # in order: bisected per launch
        for i, text in texts:
            m = _BLOCK_LAUNCH.match(text)
            if m:
                if not self._launch_passes(i, block, flags):
                    end = len(text.rstrip())
                    edits.append(Replace(Span.of(i + 1, end, i + 1, end), f"{self.newline}{m.group(1)}- {_core.FLAG}"))
                continue
            launch = _core.disable_overlap_edits(i + 1, text)
            if launch and not self._launch_passes(i, block, flags):
                edits += launch
        passed = flags[0] + 1 if flags else None
        self._sites[(block.start, block.stop)] = edits, passed
        return edits, passed

    def _launch_passes(self, index: int, block: range, flags: list[int]) -> bool:
        """Whether the launch on line ``index`` already gets the flag (``flags``: the lines of
        ``block`` passing it): somewhere in its own entry, the nearest list item of mappings
        holding it (a step, a container), else the whole ``block`` (a Compose service: its
        ``entrypoint``, ``command`` and their lines)."""
        start, stop = block.start, block.stop
        j = index
        while j >= block.start:
            if _MAPPING_ITEM.match(self.lines[j]):
                start, stop = j, min(self.next_not_deeper[j], block.stop)
                break
            j = self.prev_smaller[j]
        at = bisect.bisect_left(flags, start)
        return at < len(flags) and flags[at] < stop


def _setting(path: str, index: _Lines, first: int, last: int, col: int, value: str | None,
             key: int | None, empty_marker: str) -> Finding:
    """A finding for the setting on lines first..last (0-based) under parent ``key``."""
    parsed = None if value is None or "$" in value else catalog.sglang_bool(unquote(value))
    removal: list = [RemoveStatement(Span.of(first + 1, 0, last + 1, 0))]
    if key is not None and index.only_children(key, first, last):
        end = len(index.lines[key].rstrip(_core.BREAKS).rstrip())
        removal.append(Replace(Span.of(key + 1, end, key + 1, end), " " + empty_marker))
    line, end = first + 1, col + len(_core.ENV)
    if parsed is True:
        return _core.finding(path, line, col, end, Fix("safe", tuple(removal), ""))
    sites, passed = index.sites(index.block(key))
    if parsed is False and (sites or passed is not None):
        return _core.finding(path, line, col, end, Fix("safe", tuple(removal + sites), _core.FLAG))
    return _core.finding(path, line, col, end, _core.kept_fix(line, parsed, RULE.name, passed))


#: Keys whose literal block (or list of them) is a shell script: GitHub Actions, GitLab CI,
#: Kubernetes containers, Compose services, Taskfile/Drone/Woodpecker steps.
SCRIPT_KEYS = frozenset({"run", "script", "before_script", "after_script", "command", "args", "entrypoint",
                         "cmd", "cmds", "commands", "shell", "steps"})


class _Structure:
    """Where the YAML grammar (PyYAML's composer, node marks) puts the variable's name:
    ``keys``, lines (0-based) where a mapping key spelled like it starts; ``scalars``, lines
    where a one-line scalar holding it starts; ``inside``, lines inside the content of a
    multi-line scalar (``body: |``, a quoted string over several lines), which are text,
    never keys. ``parsed`` is False for text PyYAML rejects (templates): nothing is edited."""

    def __init__(self, text: str) -> None:
        self.keys: set[int] = set()
        self.scalars: set[int] = set()
        self.inside: set[int] = set()
        #: Literal block scalars under a script key (``run: |``, ``args: [|]``): (line of the
        #: indicator, last line), 0-based, by each of their content lines; each is read as
        #: one script.
        self.scripts: dict[int, tuple[int, int]] = {}
        #: Content lines of every literal block under a script key (0-based).
        self.script_lines: set[int] = set()
        #: Literal blocks under a script key, and under a key naming a Python file (a
        #: ConfigMap's ``patch.py: |``): (line of the indicator, last line), 0-based.
        self.script_blocks: list[tuple[int, int]] = []
        self.python_blocks: list[tuple[int, int]] = []
        self.parsed = True
        loader = getattr(pyyaml, "CSafeLoader", pyyaml.SafeLoader)
        try:
            for document in pyyaml.compose_all(text, Loader=loader):
                self._walk(document, pyyaml)
        except (pyyaml.YAMLError, RecursionError):
            self.parsed = False

    def _walk(self, root: object, pyyaml) -> None:  # noqa: ANN001
        seen: set[int] = set()
        stack = [(root, False, "")]
        while stack:
            node, is_key, under = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, pyyaml.ScalarNode):
                self._scalar(node, is_key, under)
            elif isinstance(node, pyyaml.MappingNode):
                for key, value in node.value:
                    name = key.value if isinstance(key, pyyaml.ScalarNode) else ""
                    stack += [(key, True, ""), (value, False, name)]
            elif isinstance(node, pyyaml.SequenceNode):
                stack += [(item, False, under) for item in node.value]

    def _scalar(self, node, is_key: bool, under: str = "") -> None:  # noqa: ANN001
        start, end = node.start_mark, node.end_mark
        last = end.line - 1 if end.column == 0 else end.line
        if last > start.line:
            self.inside.update(range(start.line + 1, last + 1))
            if node.style == "|" and under.endswith(".py"):
                self.python_blocks.append((start.line, last))
            if node.style == "|" and under in SCRIPT_KEYS:
                self.script_blocks.append((start.line, last))
                self.script_lines.update(range(start.line + 1, last + 1))
                if _core.ENV in node.value:
                    self.scripts.update(dict.fromkeys(range(start.line + 1, last + 1), (start.line, last)))
        elif _core.ENV in node.value:
            (self.keys if is_key else self.scalars).add(start.line)


def text_regions(text: str) -> tuple[set[int], set[int]]:
    """(lines inside a multi-line scalar that is text, lines of a script block), 1-based:
    where a ``#`` is no comment at all, and where it is a shell comment."""
    structure = _Structure(text)
    return ({i + 1 for i in structure.inside - structure.script_lines}, {i + 1 for i in structure.script_lines})


def analyze(path: str, text: str, ctx: _core.Ctx) -> list[Finding]:
    found = _analyze(path, text, ctx, structure := _Structure(text))
    found += _embedded_python(path, text, ctx, structure)
    if structure.parsed:
        return found
    return [f._replace(fix=Fix("manual", ())) if f.fix is not None else f for f in found]


def _analyze(path: str, text: str, ctx: _core.Ctx, structure: _Structure) -> list[Finding]:
    lines = _core.split_lines(text, "yaml")
    index: _Lines | None = None  # built at the first setting: most files have none
    out: list[Finding] = []
    scripts_read: set[tuple[int, int]] = set()
    for i, raw in enumerate(lines):
        line = _core.strip_comment(raw.rstrip(_core.BREAKS))
        if "--" in line:
            out += _core.cli_flag_findings(path, i + 1, line, ctx)
        if (mention := _core.ENV_RE.search(line)) is None:
            continue
        col = mention.start()
        if index is None:
            index = _Lines(lines, "\r\n" if "\r\n" in text else "\n")
        structured = not structure.parsed or (i not in structure.inside and (i in structure.keys or i in structure.scalars))
        if not structured:
            pass
        elif m := _K8S_NAME.match(line):
            dash = len(m.group(1))
            item_end = i
            value: str | None = None
            for j in range(i + 1, len(lines)):
                if index.blank[j] or index.indent[j] <= dash:
                    break
                item_end = j
                if v := _VALUE.match(lines[j]):
                    value = v.group(1)
            first = i if m.group(2) else i - 1 if i and _VALUE.match(lines[i - 1]) else i
            if not m.group(2) and first != i:
                value = _VALUE.match(lines[first]).group(1)
            key = index.parent(first + 1, dash)
            out.append(_setting(path, index, first, item_end, col, value, key, "[]"))
        elif _K8S_FLOW.match(line):
            v = re.search(r"\bvalue:\s*([^,}]*)", line)
            key = index.parent(i, _indent(line) + 1)
            out.append(_setting(path, index, i, i, col, v.group(1) if v else None, key, "[]"))
        elif (m := _MAPPING.match(line)) and (i in structure.keys or not structure.parsed):
            value = m.group(4)
            scalar = value if value and not value.startswith(("[", "{", "|", ">", "&", "*")) else None
            key = index.parent(i, len(m.group(1)) + (1 if m.group(2) else 0))
            out.append(_setting(path, index, i, i, col, scalar, key, "{}"))
        elif m := _LIST_ITEM.match(line):
            key = index.parent(i, len(m.group(1)) + 1)
            out.append(_setting(path, index, i, i, col, m.group(2), key, "[]"))
        else:
            structured = False
        if structured:
            continue
        if i in structure.scripts:
            if structure.scripts[i] not in scripts_read:
                scripts_read.add(structure.scripts[i])
                out += _script(path, index, *structure.scripts[i], ctx)
            continue
        masked = re.sub(r"^(\s*)(-\s+)?([\w.-]+:\s+)?[|>]?", lambda g: " " * len(g.group(0)), line)
        masked = masked.replace('"', " ").replace("'", " ") if masked.strip().startswith(("'", '"')) else masked
        extra = _sites_around(index, index.parent(i, _indent(line)), range(i + 1, i + 2))
        out += shell.analyze_commands(path, split([masked], i + 1), lines, ctx, extra)
    return out


def _script(path: str, index: _Lines, key: int, last: int, ctx: _core.Ctx) -> list[Finding]:
    """A literal block scalar (``run: |``, an ``args:`` item ``- |``) read as one shell
    script: split by YAML first, then by the shell; a setting applies to the launches
    after it in the script and to those of the block around its key."""
    heredoc: set[int] = set()
    commands = split(index.lines[key + 1:last + 1], key + 2, heredoc)
    extra = _sites_around(index, key, range(key + 2, last + 2))
    return shell.analyze_commands(path, commands, index.lines, ctx, extra, heredoc_lines=heredoc)


def _embedded_python(path: str, text: str, ctx: _core.Ctx, structure: _Structure) -> list[Finding]:
    """Python in the file's literal blocks: a block under a key naming a Python file, and
    ``python -c`` in a script block (``migrator.text.embedded_python``)."""
    if not (structure.python_blocks or structure.script_blocks):
        return []
    lines = _core.split_lines(text, "yaml")
    out: list[Finding] = []
    for key, last in structure.python_blocks:
        out += embedded_python.block_findings(path, lines, key + 1, last + 1, ctx)
    for key, last in structure.script_blocks:
        block = lines[key + 1:last + 1]
        if embedded_python.might_hold("".join(block)):
            out += embedded_python.python_c_findings(path, split(block, key + 2), ctx, lines)
    return out


def _sites_around(index: _Lines, key: int | None, script: range) -> list[shell.Site]:
    """The launches of the block under ``key`` outside the ``script`` lines (1-based), as
    the extra sites of the script's unit."""
    return [shell.Site(-1, s.span.start.line, s.span.start.column, s.text, False)
            for s in index.sites(index.block(key))[0] if s.span.start.line not in script]


def handle(path: str, data: bytes, ctx: _core.Ctx):
    return _core.run(path, data, ctx, RULE, analyze, regions=text_regions)


RULE = _core.TextRule("yaml", _core.ENV_AND_FLAG_CODES, dotted_names=True,
                      embeds=("shell",),
    examples=_core.Examples(
        invalid=(
            (
                "env:\n"
                '  SGLANG_ENABLE_SPEC_V2: "0"\n'
            ),
        ),
        valid=(
            (
                "env:\n"
                '  SGLANG_ENABLE_TORCH_COMPILE: "0"\n'
            ),
        ),
        path="deploy.yaml",
    ),
)
