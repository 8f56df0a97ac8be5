"""The lookups over the catalog's entries: by code and by name, the qualified spellings of
a removed name, the byte triggers and relevance words the rules' prefilter derives from the
entries, and the meanings of ``SGLANG_ENABLE_SPEC_V2``.
"""

from __future__ import annotations

from functools import cache

from migrator.catalog.entries import (
    ENTRIES,
    ENV_SPEC_V2_MEANING,
    SGLANG_MEANING_CODES,
    SGLANG_MEANING_PARAMETER_CODES,
)
from migrator.catalog.model import (
    BEHAVIOUR_KIND,
    FORK_KIND,
    HISTORY_KIND,
    SPELLING_KINDS,
    TEXT_KIND,
    Entry,
    Kind,
)

#: Behaviour rules look at code that names DFLASH (``_handle_dflash``, ``"DFLASH ..."``
#: messages, ``is_dflash()``); with the entries' cues these are their byte triggers.
BEHAVIOUR_TOKENS = ("DFLASH", "dflash")


def _name_entries() -> tuple[Entry, ...]:
    """The entries that name a removed thing (the text codes only mirror them)."""
    return tuple(entry for entry in ENTRIES if entry.kind not in (TEXT_KIND, FORK_KIND, BEHAVIOUR_KIND, HISTORY_KIND))


@cache
def by_code() -> dict[str, Entry]:
    table = {entry.code: entry for entry in ENTRIES}
    assert len(table) == len(ENTRIES), "duplicate rule code"
    return table


def get(code: str) -> Entry:
    try:
        return by_code()[code.upper()]
    except KeyError:
        raise KeyError(f"unknown rule code {code!r}; see `dflash-migrate rules`") from None



@cache
def sglang_meaning_members() -> frozenset[str]:
    """The member names of :data:`SGLANG_MEANING_CODES` (``is_spec_v2``, ``supports_spec_v2``)."""
    return frozenset(get(code).member for code in SGLANG_MEANING_CODES)




@cache
def sglang_meaning_parameters() -> frozenset[str]:
    """The keywords of :data:`SGLANG_MEANING_PARAMETER_CODES` (``v1_spec_info_filtered``)."""
    return frozenset(cue for code in SGLANG_MEANING_PARAMETER_CODES for cue in get(code).cues)


@cache
def by_name() -> dict[str, Entry]:
    """Every old name (``old`` and ``also``) -> its entry."""
    return {name: entry for entry in _name_entries() for name in entry.names}


@cache
def _leaves() -> frozenset[str]:
    """The last dotted part of every entry name (a name can only match an entry if one of
    its parts is one of these)."""
    return frozenset(name.rpartition(".")[2] for name in by_name())


@cache  # asked for the same names file after file
def matching_entry(qualname: str) -> Entry | None:
    """The entry naming the longest dotted prefix of ``qualname`` among removed modules,
    classes and functions (``a.dflash_worker.DFlashWorker.run`` -> DFM102), or None."""
    names = by_name()
    parts = qualname.split(".")
    if _leaves().isdisjoint(parts):  # asked for every name a module binds: most hold no entry's last part
        return None
    for cut in range(len(parts), 0, -1):
        entry = names.get(".".join(parts[:cut]))
        if entry is not None and entry.kind in ("module", "class", "function"):
            return entry
    return None


#: What a loader writes between a module and the object inside it (``pkg.mod:Class``: entry
#: points, plugin registries, ``logging.config`` factories, Hydra ``_target_`` in YAML).
OBJECT_SEPARATOR = ":"


def dotted(spelling: str) -> str:
    """``pkg.mod:Class.member`` -> ``pkg.mod.Class.member`` (a dotted name is returned as it is)."""
    return spelling.replace(OBJECT_SEPARATOR, ".", 1)


def respelled(new_dotted: str, old_spelling: str) -> str:
    """``new_dotted`` written as ``old_spelling`` was: with the colon before as many trailing
    parts as the old spelling had after it (a rename maps part to part)."""
    if OBJECT_SEPARATOR not in old_spelling:
        return new_dotted
    after = old_spelling.partition(OBJECT_SEPARATOR)[2].count(".") + 1
    parts = new_dotted.split(".")
    if after >= len(parts):
        return new_dotted
    return ".".join(parts[:-after]) + OBJECT_SEPARATOR + ".".join(parts[-after:])


def qualified_entry(spelling: str) -> Entry | None:
    """The entry a qualified reference (dotted or ``module:attr``) names: the removed module,
    class or function it starts with (:func:`matching_entry`), else the member of a class
    that still exists (``...dflash_info.DFlashVerifyInput.verify``)."""
    name = dotted(spelling)
    entry = matching_entry(name)
    if entry is not None:
        return entry
    member = by_name().get(name)
    return member if member is not None and member.kind in SPELLING_KINDS else None


def entries_of_kind(*kinds: Kind) -> tuple[Entry, ...]:
    return tuple(e for e in ENTRIES if e.kind in kinds)


def codes_of_kind(*kinds: Kind) -> tuple[str, ...]:
    """The codes of every entry of ``kinds`` (rules keyed on qualified names declare these)."""
    return tuple(e.code for e in ENTRIES if e.kind in kinds)


def _unique_bare() -> frozenset[str]:
    """The name table's unique bare spellings (generated data, ``catalog.bare_names``; not
    imported by the command lines that never build the triggers, ``rules`` and ``explain``)."""
    from migrator.catalog.bare_names import UNIQUE_BARE

    return UNIQUE_BARE


def _entry_tokens(entry: Entry) -> frozenset[str]:
    """The byte triggers of one entry: for members of a class the class name (a `.verify(`
    alone proves nothing) unless the member is ``distinctive``, and the member too where its
    name is unique in sglang (the name table's bare spellings); for behaviour entries
    ``BEHAVIOUR_TOKENS``; for everything else the last dotted component. A kwarg spelled with
    underscores is the same flag as its dashed CLI form."""
    if entry.kind == BEHAVIOUR_KIND:
        return frozenset(BEHAVIOUR_TOKENS)
    tokens: set[str] = set()
    for name in entry.names:
        if entry.kind in ("env", "cli-flag"):
            tokens.add(name.lstrip("-"))
            continue
        owner_last = name.rpartition(".")[0].rpartition(".")[2]
        if entry.kind in ("method", "attribute", "call-form") and owner_last[:1].isupper() and not entry.distinctive:
            tokens.add(owner_last)
            if entry.kind != "call-form" and name.rpartition(".")[2] in _unique_bare():
                tokens.add(name.rpartition(".")[2])  # held as data without its class (issue 47)
        else:
            tokens.add(name.rpartition(".")[2])
    return frozenset({*tokens, *(t.replace("-", "_") for t in tokens if "-" in t)})


def _triggering_entries() -> tuple[Entry, ...]:
    return tuple(entry for entry in ENTRIES if entry.kind not in (TEXT_KIND, FORK_KIND, HISTORY_KIND))


@cache
def trigger_tokens() -> tuple[bytes, ...]:
    """Byte strings at least one of which must occur in a file for any rule to match."""
    return tuple(sorted({token.encode() for entry in _triggering_entries() for token in _entry_tokens(entry)}))


@cache
def trigger_groups() -> tuple[tuple[bytes, tuple[bytes, ...], tuple[bytes, ...]], ...]:
    """(token, cues, patterns): a file can match a rule only if it holds a token and, where
    cues are given, one of the cues (``DFlashVerifyInput`` still exists; only its removed
    members matter) and, where patterns are given, matches one of them. A token shared by
    several entries is cued (or patterned) only if every one of them is, with the union of
    theirs: a superset of what each entry needs."""
    sharing: dict[str, list[Entry]] = {}
    for entry in _triggering_entries():
        for token in _entry_tokens(entry):
            sharing.setdefault(token, []).append(entry)

    def union(token: str, field: str) -> tuple[bytes, ...]:
        entries = sharing[token]
        if not all(getattr(e, field) for e in entries):
            return ()
        return tuple(sorted({value.encode() for e in entries for value in getattr(e, field)}))

    return tuple((token, union(token.decode(), "cues"), union(token.decode(), "patterns")) for token in trigger_tokens())


@cache
def name_word_groups() -> tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]:
    """(preconditions, words): the words the catalog's own names give the rules to look for,
    each group relevant only in a source holding one of its preconditions (empty: always);
    the rules declare the rest (``migrator.relevance.words`` joins them).

    * trigger tokens and distinctive names: always;
    * members of a class (``verify``, ``ctx_lens``): only where the class is named, since a
      value is known to be an instance only through its class's name (constructor,
      annotation, base class or import alias, all of which spell it).
    """
    always = {token.decode() for token in trigger_tokens()}
    by_owner: dict[str, set[str]] = {}
    for entry in _name_entries():
        for name in entry.names:
            owner, _, member = name.rpartition(".")
            if entry.owner_class is None or member in always:
                always.add(member)
            else:
                by_owner.setdefault(owner.rpartition(".")[2], set()).add(member)
    groups: list[tuple[tuple[str, ...], tuple[str, ...]]] = [((), tuple(sorted(always)))]
    groups.extend(((owner,), tuple(sorted(words))) for owner, words in sorted(by_owner.items()))
    return tuple(groups)


@cache
def followed_names() -> frozenset[str]:
    """The qualified names of the catalog (and their owner classes) whose aliases and
    subclasses the rules follow; the rules declare the rest."""
    names = {name for entry in _name_entries() for name in entry.names}
    names.update(entry.owner_class for entry in _name_entries() if entry.owner_class)
    return frozenset(names)



def sglang_bool(value: str) -> bool | None:
    """SGLang's EnvBool parsing: True/False for recognised spellings, None otherwise."""
    lowered = value.strip().lower()
    if lowered in ("true", "1", "yes", "y"):
        return True
    if lowered in ("false", "0", "no", "n"):
        return False
    return None


def env_meaning(version: str) -> str:
    for item in ENV_SPEC_V2_MEANING:
        if version in item.versions:
            return item.meaning
    return "sglang has no DFLASH before 0.5.11"
