"""The one name table (issue 47): every spelling of every removed or changed name, derived
from the catalog's entries, so that a name is still spelled once (in its entry).

Each row is one spelling of one entry's name:

* ``dotted`` (``sglang.srt.speculative.dflash_worker.DFlashWorker``) and ``module:attr``
  (``sglang.srt.speculative.dflash_info:DFlashDraftInput``, what a loader resolves) for
  modules, classes, functions, methods and fields: :func:`qualified`;
* ``path`` (``sglang/srt/speculative/dflash_worker.py``) for modules;
* ``member``: a removed method or field after its class's name (``DFlashVerifyInput.verify``):
  the class proves the receiver, so an ambiguous member name counts there;
* ``bare``: the last name (``DFlashDraftInput``, ``draft_seq_lens``), ``unique`` where no
  other class, function, module, attribute or parameter of any release is spelled so
  (generated from the wheels into ``migrator.catalog.bare_names`` by ``scripts/name_table.py``);
  an ambiguous bare spelling (``verify``) counts only where the context proves the receiver;
* ``flag`` (``--speculative-dflash-draft-window-size``) and ``key``, the same server argument
  spelled as a config key a launcher turns into a flag (``speculative_dflash_draft_window_size:``,
  ``speculative-dflash-draft-window-size =``);
* ``env`` (``SGLANG_ENABLE_SPEC_V2``).

Its ``kind`` says what the name is (module, class, function, method, field, parameter, flag,
env var) and ``breaks_on`` the releases where using it breaks (the entry fires there).
Signature changes (``call-form`` entries) are not in it: their names still resolve.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache

from migrator import catalog
from migrator.base.patterns import on_first_use
from migrator.base.records import NamedTuple, record
from migrator.catalog.bare_names import UNIQUE_BARE

#: Catalog kind -> the table's kind.
KINDS = {"module": "module", "class": "class", "function": "function", "method": "method",
         "attribute": "field", "server-arg": "parameter", "cli-flag": "flag", "env": "env var"}
#: Kinds whose names are qualified Python names (``catalog._SPELLING_KINDS`` plus server arguments).
_PYTHON_KINDS = ("module", "class", "function", "method", "attribute", "server-arg")


@record
class Name(NamedTuple):
    spelling: str
    code: str
    kind: str
    form: str  # dotted, module:attr, path, member, bare, flag, key, env
    breaks_on: tuple[str, ...]
    unique: bool = True  # False only for an ambiguous bare spelling

    @property
    def entry(self) -> catalog.Entry:
        return catalog.get(self.code)


def shaped_like_a_name(word: str) -> bool:
    """A plain lower-case word (``verify``) is never a unique spelling, whatever the wheels
    say: other code spells English words; an identifier with ``_``, a capital or a digit is
    what the wheels can decide."""
    return not word.isalpha() or not word.islower()


def _module_of(entry: catalog.Entry, name: str) -> str | None:
    """Where the module part of ``name`` ends (None where it cannot be known: an attribute
    of a module-level object)."""
    if entry.kind in ("class", "function"):
        return name.rpartition(".")[0]
    owner = name.rpartition(".")[0]
    if not owner.rpartition(".")[2][:1].isupper():
        return None
    return owner.rpartition(".")[0]


def _rows(entry: catalog.Entry) -> list[Name]:
    kind = KINDS[entry.kind]
    breaks = tuple(r for r in catalog.RELEASES if entry.fires_for(r))
    rows: list[Name] = []
    for name in entry.names:
        if entry.kind == "env":
            rows.append(Name(name, entry.code, kind, "env", breaks))
            continue
        if entry.kind == "cli-flag":
            key = name.lstrip("-")
            rows += [Name(name, entry.code, kind, "flag", breaks), Name(key, entry.code, kind, "key", breaks),
                     Name(key.replace("-", "_"), entry.code, kind, "key", breaks)]
            continue
        leaf = name.rpartition(".")[2]
        rows.append(Name(leaf, entry.code, kind, "bare", breaks, leaf in UNIQUE_BARE))
        owner = name.rpartition(".")[0].rpartition(".")[2]
        if entry.kind in ("method", "attribute") and owner[:1].isupper():  # the class proves the receiver
            rows.append(Name(f"{owner}.{leaf}", entry.code, kind, "member", breaks))
        if entry.kind == "server-arg":
            continue
        rows.append(Name(name, entry.code, kind, "dotted", breaks))
        if entry.kind == "module":
            rows.append(Name(name.replace(".", "/") + ".py", entry.code, kind, "path", breaks))
            continue
        module = _module_of(entry, name)
        if module is not None:
            rows.append(Name(module + catalog.OBJECT_SEPARATOR + name[len(module) + 1:], entry.code, kind,
                             "module:attr", breaks))
    return rows


@cache
def table() -> tuple[Name, ...]:
    """Every row, in catalog order."""
    return tuple(row for entry in catalog.ENTRIES if entry.kind in KINDS for row in _rows(entry))


@cache
def lookup() -> dict[str, tuple[Name, ...]]:
    """Spelling -> its rows (one dict lookup per token)."""
    out: dict[str, list[Name]] = {}
    for row in table():
        out.setdefault(row.spelling, []).append(row)
    return {spelling: tuple(rows) for spelling, rows in out.items()}


@cache
def _longest() -> int:
    """The longest spelling: a lookup never needs to look further into a token."""
    return max(map(len, lookup()))


@cache
def bare_entries(*kinds: str) -> dict[str, tuple[catalog.Entry, ...]]:
    """Bare spelling -> the entries of the table ``kinds`` whose names end in it, in catalog
    order (the first is the name's own home: DFM103's ``DFlashDraftInput``, not DFM314's
    re-export), unique or not."""
    out: dict[str, list[catalog.Entry]] = {}
    for row in table():
        if row.form == "bare" and row.kind in kinds:
            out.setdefault(row.spelling, []).append(row.entry)
    return {spelling: tuple(entries) for spelling, entries in out.items()}


@cache
def qualified() -> tuple[str, ...]:
    """The dotted and ``module:attr`` spellings of removed modules, classes, functions,
    methods and fields, longest first (what ``catalog.qualified_spellings`` was: the table's
    qualified rows, not a second table)."""
    spellings = {row.spelling for row in table()
                 if row.form in ("dotted", "module:attr") and row.kind != "parameter"}
    return tuple(sorted(spellings, key=lambda s: (-len(s), s)))


@cache
def leaves() -> dict[str, set[str]]:
    """Last name -> the catalog's qualified names ending in it (what ``scripts/name_table.py``
    checks the wheels' definitions against)."""
    out: dict[str, set[str]] = {}
    for entry in catalog.ENTRIES:
        if entry.kind in _PYTHON_KINDS:
            for name in entry.names:
                out.setdefault(name.rpartition(".")[2], set()).add(name)
    return out


# ---- the occurrence search: one token scan, one dict lookup per token ----------------------

#: A token: a flag, a name, a dotted or ``module:attr`` path, a file path, absolute too (not
#: started inside another token).
_TOKEN = on_first_use(r"(?<![\w.:/-])(?:/+|-{0,2})[A-Za-z_][\w.:/-]*")
#: The members a qualified spelling may be followed by (``...DFlashWorker.run``).
_MEMBERS = on_first_use(r"(?:\.[A-Za-z_]\w*)*")
_QUALIFIED_FORMS = ("dotted", "module:attr")
#: Where every module's file path starts.
_PATH_ROOT = "sglang/"


@record
class Occurrence(NamedTuple):
    start: int
    end: int
    spelled: str  # what stands in the text (a qualified spelling with the members after it)
    rows: tuple[Name, ...]


def _qualified_prefix(token: str, table: dict[str, tuple[Name, ...]]) -> tuple[str, tuple[Name, ...]] | None:
    """The longest qualified spelling ``token`` starts with, followed only by ``.member``
    parts and then no word character, with what stands there (spelling and members)."""
    longest = _longest()
    cuts = [i for i, char in enumerate(token[:longest + 1]) if char in ".:"]  # no spelling is longer
    for cut in reversed(cuts):
        rows = table.get(token[:cut])
        if rows is None or not any(row.form in _QUALIFIED_FORMS for row in rows):
            continue
        members = _MEMBERS().match(token, cut)
        end = members.end() if members else cut
        if end == len(token) or not (token[end].isalnum() or token[end] == "_"):
            return token[:end], rows
    return None


def _path_suffix(token: str, table: dict[str, tuple[Name, ...]]) -> tuple[int, tuple[Name, ...]] | None:
    """Where in ``token`` a module's file path starts (at the token's start or after a ``/``)."""
    at = token.find(_PATH_ROOT, max(0, len(token) - _longest()))  # the path ends the token
    while at >= 0:
        if at == 0 or token[at - 1] == "/":
            rows = table.get(token[at:])
            if rows is not None:
                return at, rows
        at = token.find(_PATH_ROOT, at + 1)
    return None


def occurrences(line: str) -> Iterator[Occurrence]:
    """Every spelling of the table in ``line``: each token is looked up whole, a path by its
    suffix from ``sglang/``, and a dotted or ``module:attr`` token by its qualified prefixes
    (one dict lookup per separator)."""
    table = lookup()
    for match in _TOKEN().finditer(line):
        token, start = match.group(0), match.start()
        if token.startswith("-"):  # a flag ends where a name cannot go on (``--flag:512``, ``--flag/``)
            token = re.split(r"[.:/]", token, maxsplit=1)[0]
        token = token.rstrip(".:/-")
        if "/" in token:  # a file path ending in a module's path (``python/sglang/srt/.../dflash_worker.py``)
            found = None if "://" in token else _path_suffix(token, table)  # a URL names a release's source
            if found is not None:
                yield Occurrence(start, start + len(token), token, found[1])  # the path as written
                continue
            bare = token.lstrip("/")
            if "/" in bare:
                continue
            token, start = bare, start + len(token) - len(bare)
        rows = table.get(token)
        if rows is not None:
            yield Occurrence(start, start + len(token), token, rows)
        elif "." in token or ":" in token:
            found = _qualified_prefix(token, table)
            if found is not None:
                spelled, rows = found
                yield Occurrence(start, start + len(spelled), spelled, rows)
