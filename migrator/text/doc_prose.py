"""Documentation prose (Markdown, MDX) that keeps teaching the V1 API as current.

``mentions`` reports a V1 name where its spelling is unambiguous; two shapes of docs slip
through it and still send readers the wrong way on V2:

* a flags table (a ``|`` row) documenting a removed or renamed ``launch_server`` flag as
  current (``| --speculative-dflash-draft-window-size | 512 | ... |``): the flag's own code;
  a row that says the flag is deprecated, removed or an alias is history, not advice;
* prose telling readers to override, profile, patch or wrap a V1-only worker method
  (``override `_prepare_for_speculative_decoding` in your subclass``): V2 never calls it.
  Reported with the text code mirroring the method's (DFM406, DFM407) even where the line
  names nothing else V1 (``mentions`` asks for that context, since the bare name proves
  nothing; an instruction to hook it does).

Report-only, like every prose finding: the sentence is the writer's to rework.
"""

from __future__ import annotations

import re
from functools import cache

from migrator import catalog
from migrator.base.model import Finding
from migrator.text.mentions import manual_finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from migrator.text._core import Ctx

_HISTORY = re.compile(r"\b(deprecat\w*|removed|renamed|alias\w*|legacy|no longer)\b", re.IGNORECASE)
_INSTRUCTION = re.compile(r"\b(overrid\w*|profil\w*|subclass\w*|hook\w*|patch\w*|wrap\w*|instrument\w*|"
                          r"customi[sz]\w*|extend\w*|redefin\w*|implement\w*)\b", re.IGNORECASE)


@cache
def _v1_only_methods() -> tuple[tuple[str, str, catalog.Entry], ...]:
    """(method name, text code, mirrored entry) of each removed private worker hook whose name
    V2 does not keep (``forward_batch_generation`` is V2's too, ``verify`` EAGLE's and NGRAM's)."""
    found = []
    for mirror in catalog.TEXT_MIRRORS:
        source = catalog.get(mirror.mirrors)
        new = source.replacement_for(catalog.NEWEST_RELEASE) or ""
        if (source.kind == "method" and source.owner_class and source.member.startswith("_")
                and new.rpartition(".")[2] != source.member):
            found.append((source.member, mirror.code, source))
    return tuple(found)


def line_findings(path: str, number: int, line: str, ctx: Ctx, already: list[Finding]) -> list[Finding]:
    """Findings on one prose line (comments blanked); ``already``: what ``mentions`` found there."""
    taken = {(f.code, f.column) for f in already}
    out: list[Finding] = []
    if line.lstrip().startswith("|") and not _HISTORY.search(line):
        for entry in catalog.entries_of_kind("cli-flag"):
            if ctx.fires(entry.code):
                for match in re.finditer(rf"(?<![\w-]){re.escape(entry.old)}(?![\w-])", line):
                    out.append(manual_finding(path, number, match.start(), match.end(), entry.code,
                                              f"a flags table documents `{entry.old}` as current: {entry.message}"))
    verb = _INSTRUCTION.search(line)
    if verb is not None:
        for method, code, source in _v1_only_methods():
            if not ctx.fires(code):
                continue
            for match in re.finditer(rf"(?<!\w){re.escape(method)}(?!\w)", line):
                if (code, match.start()) not in taken:
                    out.append(manual_finding(path, number, match.start(), match.end(), code, f"the text tells "
                                              f"readers to act on `{method}` ({verb.group(0).lower()}): "
                                              f"{source.code}: {source.message}"))
    return out

