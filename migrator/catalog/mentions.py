"""Where a removed name is spelled in free text: the patterns derived from
``catalog.TEXT_MIRRORS`` (which names which entry, and how it is spelled unambiguously).

The text rules report these spellings (``migrator.text.mentions``); a Python rule looks for a
removed module's file path inside a string (``migrator.python.rules.name_comparisons``).
"""

from __future__ import annotations

import re
from functools import cache

from migrator import catalog

#: Fast check before any regex: every spelling holds one of these.
MARKERS = ("dflash", "DFlash", "SPEC_V2", "keep_slots", "forward_batch_generation", "_prepare_for_spec")


Pattern = tuple[str, "re.Pattern[str]", tuple[str, ...]]


@cache
def patterns() -> tuple[tuple[Pattern, ...], tuple[Pattern, ...]]:
    """(unambiguous, context-only) (code, pattern, package folders) triples, from the
    catalog. Package folders are set for a file path: the folders written before the
    module's own folder must be the module's packages (``sglang/srt/``), a suffix of them,
    or nothing, so another package's ``speculative/dflash_worker.py`` does not match."""
    plain: list[Pattern] = []
    context: list[Pattern] = []
    for mirror in catalog.TEXT_MIRRORS:
        old = catalog.get(mirror.mirrors).old
        parts = old.split(".")
        if mirror.style == "module":
            plain.append((mirror.code, re.compile(rf"(?<![\w.]){re.escape(old)}(?![\w])"), ()))
            path = re.escape("/".join(parts[-2:]) + ".py")
            plain.append((mirror.code, re.compile(rf"(?<![\w.-])((?:[\w.-]+/)*){path}(?![\w])"), tuple(parts[:-2])))
            continue
        spelled = ".".join(parts[-2:]) if mirror.style == "member" else parts[-1]
        pattern = (mirror.code, re.compile(rf"(?<![\w]){re.escape(spelled)}(?![\w])"), ())
        (context if mirror.style == "context" else plain).append(pattern)
    return tuple(plain), tuple(context)


def spelling_start(match: re.Match[str], packages: tuple[str, ...]) -> int | None:
    """Column where the spelling starts, or None when a file path is another package's."""
    if not packages:
        return match.start()
    folders = match.group(1).split("/")[:-1]
    shared = list(zip(reversed(folders), reversed(packages)))
    if any(written != package for written, package in shared):
        return None
    return match.start(1) + sum(len(f) + 1 for f in folders[: len(folders) - len(shared)])


def module_path_offsets(text: str) -> list[tuple[int, int]]:
    """(start, end) of each file path of a removed module in ``text`` (see :func:`spelling_start`)."""
    plain, _ = patterns()
    found = []
    for _, pattern, packages in plain:
        if packages:
            for match in pattern.finditer(text):
                start = spelling_start(match, packages)
                if start is not None:
                    found.append((start, match.end()))
    return found
