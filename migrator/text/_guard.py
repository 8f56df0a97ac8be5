"""The text-fix guard: a fix of a non-Python file is written only when the fixed text still
parses the way the file's own reader parses it (``migrator.python.guard`` does this for Python).

Each text-rule module hands its check (``guard(path, before, after) -> reason or None``)
to :func:`migrator.text._core.run`, built from the parsers here (this module imports
no rule module); :func:`verdict` runs it and returns why the result may not be written:

* shell scripts (by suffix, and ``sh``/``bash`` shebangs): ``bash -n`` with an empty
  environment and no start-up files, on stdin, with a timeout; a ``zsh``/``ksh`` script, or
  a machine without bash, has no parser here, so nothing in it is fixed;
* Dockerfiles: every instruction keyword is one Docker knows, exec forms are JSON arrays,
  and the shell of the shell-form ``RUN``/``CMD``/``ENTRYPOINT`` passes ``bash -n``;
* YAML: PyYAML's safe loader (the one the rule reads with) loads it, and the documents
  equal the original except the settings removed, the flag added and the scalars edited;
  an edited string that was a valid script must stay one (``bash -n``);
* TOML: ``tomllib`` loads it, with the same structure rule as YAML;
* notebooks: valid JSON with the same cells, each code cell compiling (magics masked as
  the rules mask them) if it did before, shell cells and ``!`` lines passing ``bash -n``;
* Markdown: each edited fenced block passes the guard of its language;
* Makefiles: the recipe lines pass ``bash -n``.

The original must pass too: when it does not, no fix can be proven, and each becomes a
TODO that says so (``migrator.text._core.run``). Only fixing modes run the guard.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable

import yaml as pyyaml

from migrator import catalog

TIMEOUT_S = 20
_SHEBANG = re.compile(r"^#!\s*(?:\S*/)?(?:env\s+(?:-\S+\s+)*)?(\w+)")
_NO_BASH = ("zsh", "ksh", "mksh", "csh", "tcsh", "fish")


class Unchecked(Exception):
    """No parser can check this text (no bash here, a zsh script, a parser timed out)."""


Check = Callable[[str, str, str], "str | None"]


#: ``bash -n`` runs one verdict may start. Markdown's shell blocks take a few per file
#: (:func:`scripts`), but other scripts one or two each: 4,000 edited ``dockerfile`` fences
#: or ``run:`` strings would start thousands of processes. Beyond it the fix is unchecked,
#: so not written.
MAX_BASH_RUNS = 200


class _Runs:
    """The ``bash -n`` runs left to the verdict in progress (None: no verdict, no limit)."""

    left: int | None = None


def verdict(check: Check | None, path: str, before: str, after: str) -> str | None:
    """Why ``after`` (the fixed text of ``path``) may not be written, by ``check``, or None.
    Never raises."""
    if check is None or before == after:
        return None
    _Runs.left = MAX_BASH_RUNS
    try:
        return check(path, before, after)
    except Unchecked as why:
        return f"{why}, so the fix cannot be checked"
    except (RecursionError, MemoryError):
        return "the file is too deeply nested to check the fix"
    finally:
        _Runs.left = None


def compare(what: str, before_error: str | None, after_error: str | None) -> str | None:
    if before_error is not None:
        return f"the original {what} does not parse ({before_error}), so the fix cannot be checked"
    if after_error is not None:
        return f"the fixed {what} would not parse ({after_error})"
    return None


# ---- shell ----------------------------------------------------------------------------


def bash_error(script: str) -> str | None:
    """``bash -n``'s first complaint about ``script``, or None; :class:`Unchecked` when
    bash is missing or too slow."""
    bash = shutil.which("bash")
    if bash is None:
        raise Unchecked("bash is not installed on this machine")
    if _Runs.left is not None:
        if _Runs.left <= 0:
            raise Unchecked(f"more than {MAX_BASH_RUNS} scripts to parse")
        _Runs.left -= 1
    try:
        done = subprocess.run([bash, "--norc", "--noprofile", "-n"], input=script.encode("utf-8", "surrogateescape"),
                              env={}, capture_output=True, timeout=TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise Unchecked(f"`bash -n` took more than {TIMEOUT_S} s") from None
    except OSError as error:
        raise Unchecked(f"bash could not run ({error.strerror})") from None
    if done.returncode == 0:
        return None
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return re.sub(r"^\S*bash: ", "", lines[0]) if lines else f"bash -n exited with {done.returncode}"


def _dialect(path: str, text: str) -> str:
    suffix = os.path.splitext(path)[1].lower().lstrip(".")
    if suffix in _NO_BASH:
        return suffix
    shebang = _SHEBANG.match(text)
    return shebang.group(1) if shebang and shebang.group(1) in _NO_BASH else "bash"


def shell(path: str, before: str, after: str) -> str | None:
    """The check of a shell script (by its suffix or shebang: bash, else no parser)."""
    dialect = _dialect(path, before)
    if dialect != "bash":
        raise Unchecked(f"no parser for {dialect} scripts here")
    return script(before, after)


def script(before: str, after: str, what: str = "script") -> str | None:
    return compare(what, bash_error(before), bash_error(after))


#: Up to this many edited scripts in one check, each is parsed on its own (two ``bash -n``
#: each). Above it, each side's scripts are parsed together (one ``bash -n`` per side), as
#: a Dockerfile's ``RUN`` lines are, and a side that fails is halved down to the first
#: script that fails: 4,000 edited Markdown blocks were 8,000 processes. Parsed together, a
#: script that only parses with its neighbour (a quote one block opens and the next
#: closes) is not told apart.
SCRIPTS_ONE_BY_ONE = 16
#: Scripts that fail only together, not alone, looked past before the check gives up.
_JOINED_ONLY_FAILURES = 4


def shell_scripts(pairs: list[tuple[str, str, str]]) -> tuple[int, str] | None:
    """:func:`shell` over many (path, original, fixed) scripts: (index, problem) of the
    first that :func:`shell` refuses, else None; :class:`Unchecked` for a script with no
    parser here when none before it is refused."""
    for index, (path, before, _) in enumerate(pairs):
        if (kind := _dialect(path, before)) != "bash":
            found = scripts([(before, after) for _, before, after in pairs[:index]])
            if found is not None:
                return found
            raise Unchecked(f"no parser for {kind} scripts here")
    return scripts([(before, after) for _, before, after in pairs])


def scripts(pairs: list[tuple[str, str]], what: str = "script") -> tuple[int, str] | None:
    """(index, problem) of the first (original, fixed) pair that :func:`script` refuses,
    else None, with few ``bash -n`` processes (:data:`SCRIPTS_ONE_BY_ONE`)."""
    if len(pairs) <= SCRIPTS_ONE_BY_ONE:
        for index, (before, after) in enumerate(pairs):
            if (problem := script(before, after, what)) is not None:
                return index, problem
        return None
    start = 0
    for _ in range(_JOINED_ONLY_FAILURES + 1):
        failing = [index for side in (0, 1)
                   if (index := _first_failing([pair[side] for pair in pairs], start)) is not None]
        if not failing:
            return None
        index = min(failing)
        if (problem := script(*pairs[index], what)) is not None:
            return index, problem
        start = index + 1
    raise Unchecked(f"{len(pairs)} scripts fail to parse only together")


def _first_failing(texts: list[str], start: int) -> int | None:
    """The first of ``texts[start:]`` after which their concatenation stops parsing, by
    halving (1 + log2(n) ``bash -n``), or None when all of it parses."""
    def fails(stop: int) -> bool:
        return bash_error("\n".join(texts[start:stop]) + "\n") is not None

    if start >= len(texts) or not fails(len(texts)):
        return None
    low, high = start + 1, len(texts)  # texts[start:high] fails
    while low < high:
        middle = (low + high) // 2
        if fails(middle):
            high = middle
        else:
            low = middle + 1
    return high - 1


# ---- YAML and TOML: same data except what the fixes touch -------------------------------


def _edited_string(text: str) -> bool:
    return catalog.ENV_SPEC_V2 in text or "sglang" in text or "--" in text


def same(old: object, new: object, where: str = "") -> str | None:
    """Where ``new`` differs from ``old`` beyond what the rules do: remove settings of the
    variable, add the flag, edit strings that hold the variable or a launch."""
    return _Comparison().same(old, new, where)


class _Comparison:
    """One comparison of two loaded documents, memoised by identity: a YAML alias loads as
    one object reached from many places, so a 400-byte alias bomb is 10^9 paths but a few
    dozen objects. A pair of containers found equal, and whether a value mentions the
    variable, are computed once per object (the documents stay alive during the walk, so
    the ids stay theirs)."""

    def __init__(self) -> None:
        self.equal: set[tuple[int, int]] = set()
        self.mentioning: dict[int, bool] = {}

    def mentions(self, value: object) -> bool:
        """Whether ``repr(value)`` would hold the variable's name, without building it."""
        if isinstance(value, str):
            return catalog.ENV_SPEC_V2 in value
        if not isinstance(value, (dict, list)):
            return catalog.ENV_SPEC_V2 in repr(value)
        known = self.mentioning.get(id(value))
        if known is None:
            self.mentioning[id(value)] = False  # a document that contains itself
            parts = value.items() if isinstance(value, dict) else ((item,) for item in value)
            known = any(self.mentions(part) for pair in parts for part in pair)
            self.mentioning[id(value)] = known
        return known

    def same(self, old: object, new: object, where: str = "") -> str | None:
        if isinstance(old, (dict, list)) and (id(old), id(new)) in self.equal:
            return None
        if isinstance(old, dict) and isinstance(new, dict):
            problem = self._mappings(old, new, where)
        elif isinstance(old, list) and isinstance(new, list):
            problem = self._lists(old, new, where)
        else:
            return self._scalars(old, new, where)
        if problem is None:
            self.equal.add((id(old), id(new)))
        return problem

    def _mappings(self, old: dict, new: dict, where: str) -> str | None:
        for key in new:
            if key not in old:
                return f"{where}/{key} appears"
        for key, value in old.items():
            if key not in new:
                if not self.mentions(key):
                    return f"{where}/{key} disappears"
            elif (problem := self.same(value, new[key], f"{where}/{key}")) is not None:
                return problem
        return None

    def _lists(self, old: list, new: list, where: str) -> str | None:
        flag = catalog.DISABLE_OVERLAP_FLAG
        drops = len(old) - len(new) + sum(1 for item in new if item == flag) - sum(1 for item in old if item == flag)
        j = 0
        for index, item in enumerate(old):
            if j < len(new) and new[j] == flag and item != flag:
                j += 1
            if drops > 0 and self.mentions(item) and (
                    j >= len(new) or self.same(item, new[j]) is not None
                    or (index + 1 < len(old) and self.same(old[index + 1], new[j]) is None)):
                drops -= 1
                continue
            if j >= len(new):
                return f"{where}[{index}] disappears"
            if (problem := self.same(item, new[j], f"{where}[{index}]")) is not None:
                return problem
            j += 1
        if any(extra != catalog.DISABLE_OVERLAP_FLAG for extra in new[j:]):
            return f"{where}[{j}] appears"
        return None

    @staticmethod
    def _scalars(old: object, new: object, where: str) -> str | None:
        if type(old) is not type(new):
            return f"{where or 'the document'} turns from {type(old).__name__} into {type(new).__name__}"
        if old != new and not (isinstance(old, str) and _edited_string(old)):
            return f"{where} changes"
        if isinstance(old, str) and old != new and shutil.which("bash"):  # a script (``run:``, ``cmd =``) stays one
            problem = script(old, new, f"script at {where}")
            if problem is not None and not problem.startswith("the original"):
                return problem
        return None


def _yaml_load(text: str) -> tuple[list[object] | None, str | None]:
    loader = getattr(pyyaml, "CSafeLoader", pyyaml.SafeLoader)
    try:
        return list(pyyaml.load_all(text, Loader=loader)), None
    except pyyaml.YAMLError as error:
        return None, " ".join(str(error).split())


def yaml(path: str, before: str, after: str) -> str | None:
    old, old_error = _yaml_load(before)
    new, new_error = _yaml_load(after)
    if (problem := compare("YAML", old_error, new_error)) is not None:
        return problem
    if len(old) != len(new):
        return "the fixed YAML would have another number of documents"
    for index, (a, b) in enumerate(zip(old, new)):
        if (difference := same(a, b, f"document {index + 1}")) is not None:
            return f"the fixed YAML would change its structure: {difference}"
    return None


def _toml_load(text: str) -> tuple[dict | None, str | None]:
    from migrator.base.toml import TOMLDecodeError, loads

    try:
        return loads(text), None
    except TOMLDecodeError as error:
        return None, str(error)


def toml(path: str, before: str, after: str) -> str | None:
    old, old_error = _toml_load(before)
    new, new_error = _toml_load(after)
    if (problem := compare("TOML", old_error, new_error)) is not None:
        return problem
    difference = same(old, new)
    return None if difference is None else f"the fixed TOML would change its structure: {difference}"


def compile_error(source: str) -> str | None:
    """Why Python ``source`` does not compile, or None."""
    try:
        compile(source, "<cell>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as error:
        return f"{type(error).__name__}: {error}"
    return None
