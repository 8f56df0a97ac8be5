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

import re

from migrator import catalog
from migrator.model import Finding, Fix, RemoveStatement, Replace, Span
from migrator.textrules import _core, shell
from migrator.textrules._shellparse import split

E = re.escape(_core.ENV)
_Q = r"""["']?"""
_K8S_NAME = re.compile(rf"^(\s*)(-\s+)?name:\s*{_Q}{E}{_Q}\s*$")
_K8S_FLOW = re.compile(rf"^\s*-\s*\{{.*\bname:\s*{_Q}{E}{_Q}\s*(,|\}})")
_MAPPING = re.compile(rf"^(\s*)(-\s+)?{_Q}{E}{_Q}\s*:(\s*)(.*?)\s*$")
_LIST_ITEM = re.compile(rf"^(\s*)-\s+{_Q}{E}=(.*?){_Q}\s*$")
_VALUE = re.compile(r"^\s*(?:-\s+)?value:\s*(.*?)\s*$")
_BLOCK_LAUNCH = re.compile(rf"^(\s*)-\s+(['\"]?){re.escape(_core.LAUNCH)}\2\s*$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _blank(line: str) -> bool:
    s = line.strip()
    return not s or s.startswith("#")


def _unquote(value: str) -> str:
    value = value.strip()
    return value[1:-1] if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"" else value


def _parent(lines: list[str], index: int, indent: int) -> int | None:
    for j in range(index - 1, -1, -1):
        if not _blank(lines[j]) and _indent(lines[j]) < indent:
            return j
        if lines[j].startswith("---"):
            return None
    return None


def _block(lines: list[str], key: int | None) -> range:
    """Lines the setting under ``lines[key]`` applies to (see the module docstring)."""
    if key is None:
        return range(0, len(lines))
    k = _indent(lines[key])
    top = key
    while top > 0 and (_blank(lines[top - 1]) or _indent(lines[top - 1]) >= k) and not lines[top - 1].startswith("---"):
        top -= 1
    if top > 0 and re.match(r"^\s*-\s+", lines[top - 1]) and _indent(lines[top - 1].replace("-", " ", 1)) == k:
        top -= 1
    bottom = key + 1
    while bottom < len(lines) and (_blank(lines[bottom]) or _indent(lines[bottom]) >= k) \
            and not lines[bottom].startswith("---"):
        bottom += 1
    return range(top if k else 0, bottom if k else len(lines))


def _sites(lines: list[str], block: range, newline: str) -> tuple[list[Replace], bool]:
    edits: list[Replace] = []
    satisfied = False
    for i in block:
        text = _core.strip_comment(lines[i].rstrip("\r\n"))
        satisfied |= _core.FLAG in text
        m = _BLOCK_LAUNCH.match(text)
        if m:
            end = len(text.rstrip())
            edits.append(Replace(Span.of(i + 1, end, i + 1, end), f"{newline}{m.group(1)}- {_core.FLAG}"))
            continue
        edits += _core.disable_overlap_edits(i + 1, text)
    return edits, satisfied


def _setting(path: str, lines: list[str], first: int, last: int, col: int, value: str | None,
             key: int | None, newline: str, empty_marker: str) -> Finding:
    """A finding for the setting on lines first..last (0-based) under parent ``key``."""
    parsed = None if value is None or "$" in value else catalog.sglang_bool(_unquote(value))
    removal: list = [RemoveStatement(Span.of(first + 1, 0, last + 1, 0))]
    if key is not None:
        children = [i for i in range(key + 1, len(lines)) if not _blank(lines[i])]
        siblings = []
        for i in children:
            if _indent(lines[i]) <= _indent(lines[key]):
                break
            siblings.append(i)
        if all(first <= i <= last for i in siblings):
            end = len(lines[key].rstrip("\r\n").rstrip())
            removal.append(Replace(Span.of(key + 1, end, key + 1, end), " " + empty_marker))
    line, end = first + 1, col + len(_core.ENV)
    if parsed is True:
        return _core.finding(path, line, col, end, Fix("safe", tuple(removal), ""))
    if parsed is False:
        sites, satisfied = _sites(lines, _block(lines, key), newline)
        if sites or satisfied:
            return _core.finding(path, line, col, end, Fix("safe", tuple(removal + sites), _core.FLAG))
    detail = _core.FALSY_NO_LAUNCH if parsed is False else _core.UNKNOWN_VALUE
    return _core.finding(path, line, col, end, _core.todo_fix(first + 1, detail))


class _Structure:
    """Where the YAML grammar (PyYAML's composer, node marks) puts the variable's name:
    ``keys``, lines (0-based) where a mapping key spelled like it starts; ``scalars``, lines
    where a one-line scalar holding it starts; ``inside``, lines inside the content of a
    multi-line scalar (``body: |``, a quoted string over several lines), which are text,
    never keys. ``parsed`` is False for text PyYAML rejects (templates): nothing is edited."""

    def __init__(self, text: str) -> None:
        import yaml as pyyaml

        self.keys: set[int] = set()
        self.scalars: set[int] = set()
        self.inside: set[int] = set()
        self.parsed = True
        loader = getattr(pyyaml, "CSafeLoader", pyyaml.SafeLoader)
        try:
            for document in pyyaml.compose_all(text, Loader=loader):
                self._walk(document, pyyaml)
        except (pyyaml.YAMLError, RecursionError):
            self.parsed = False

    def _walk(self, root: object, pyyaml) -> None:  # noqa: ANN001
        seen: set[int] = set()
        stack = [(root, False)]
        while stack:
            node, is_key = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, pyyaml.ScalarNode):
                self._scalar(node, is_key)
            elif isinstance(node, pyyaml.MappingNode):
                for key, value in node.value:
                    stack += [(key, True), (value, False)]
            elif isinstance(node, pyyaml.SequenceNode):
                stack += [(item, False) for item in node.value]

    def _scalar(self, node, is_key: bool) -> None:  # noqa: ANN001
        start, end = node.start_mark, node.end_mark
        last = end.line - 1 if end.column == 0 else end.line
        if last > start.line:
            self.inside.update(range(start.line + 1, last + 1))
        elif _core.ENV in node.value:
            (self.keys if is_key else self.scalars).add(start.line)


def analyze(path: str, text: str, ctx: _core.Ctx) -> list[Finding]:
    found = _analyze(path, text, ctx, structure := _Structure(text))
    if structure.parsed:
        return found
    return [f._replace(fix=Fix("manual", ())) if f.fix is not None else f for f in found]


def _analyze(path: str, text: str, ctx: _core.Ctx, structure: _Structure) -> list[Finding]:
    lines = text.splitlines(keepends=True)
    newline = "\r\n" if "\r\n" in text else "\n"
    out: list[Finding] = []
    for i, raw in enumerate(lines):
        line = _core.strip_comment(raw.rstrip("\r\n"))
        if "--" in line:
            out += _core.cli_flag_findings(path, i + 1, line, ctx)
        if not _core.ENV_RE.search(line):
            continue
        col = _core.ENV_RE.search(line).start()
        structured = not structure.parsed or (i not in structure.inside and i in structure.keys | structure.scalars)
        if not structured:
            pass
        elif m := _K8S_NAME.match(line):
            dash = len(m.group(1))
            item_end = i
            value: str | None = None
            for j in range(i + 1, len(lines)):
                if _blank(lines[j]) or _indent(lines[j]) <= dash:
                    break
                item_end = j
                if v := _VALUE.match(lines[j]):
                    value = v.group(1)
            first = i if m.group(2) else i - 1 if i and _VALUE.match(lines[i - 1]) else i
            if not m.group(2) and first != i:
                value = _VALUE.match(lines[first]).group(1)
            key = _parent(lines, first + 1, dash)
            out.append(_setting(path, lines, first, item_end, col, value, key, newline, "[]"))
        elif _K8S_FLOW.match(line):
            v = re.search(r"\bvalue:\s*([^,}]*)", line)
            key = _parent(lines, i, _indent(line) + 1)
            out.append(_setting(path, lines, i, i, col, v.group(1) if v else None, key, newline, "[]"))
        elif (m := _MAPPING.match(line)) and (i in structure.keys or not structure.parsed):
            value = m.group(4)
            scalar = value if value and not value.startswith(("[", "{", "|", ">", "&", "*")) else None
            key = _parent(lines, i, len(m.group(1)) + (1 if m.group(2) else 0))
            out.append(_setting(path, lines, i, i, col, scalar, key, newline, "{}"))
        elif m := _LIST_ITEM.match(line):
            key = _parent(lines, i, len(m.group(1)) + 1)
            out.append(_setting(path, lines, i, i, col, m.group(2), key, newline, "[]"))
        else:
            structured = False
        if not structured:
            masked = re.sub(r"^(\s*)(-\s+)?([\w.-]+:\s+)?[|>]?", lambda g: " " * len(g.group(0)), line)
            masked = masked.replace('"', " ").replace("'", " ") if masked.strip().startswith(("'", '"')) else masked
            commands = split([masked], i + 1)
            block = _block(lines, _parent(lines, i, _indent(line)))
            extra = [shell.Site(-1, s.span.start.line, s.span.start.column, s.text, False)
                     for s in _sites(lines, block, newline)[0] if s.span.start.line != i + 1]
            out += shell.analyze_commands(path, commands, lines, ctx, extra)
    return out


def handle(path: str, data: bytes, options: object, python: _core.PythonAnalyser):
    return _core.run(path, data, options, RULE, analyze, python)


RULE = _core.TextRule("yaml", (_core.ENV_ENTRY.code, *catalog.codes_of_kind("cli-flag")), dotted_names=True, embeds=("shell",))
