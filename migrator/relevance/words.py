"""The words each rule looks for, in one place: the catalog's names
(``catalog.name_word_groups``, ``catalog.followed_names``) and what each rule declares beyond
them (``Rule.words``, ``Rule.follows``). The hot lines of a source (the statements the
analysis walks, the lines partial parsing keeps) and the test of which bound names make
more lines hot are derived from them here; ``tests/test_shortcuts.py`` proves that a run
with these shortcuts finds what a run without any finds.
"""

from __future__ import annotations

from functools import cache

from migrator import catalog
from migrator.python.analysis import HotText
from migrator.python import rules

Group = tuple[tuple[str, ...], tuple[str, ...]]


@cache
def word_groups() -> tuple[Group, ...]:
    """(preconditions, words): the catalog's groups, then each rule's declared ones."""
    return (*catalog.name_word_groups(), *(group for rule in rules.RULES for group in rule.words))


@cache
def _followed() -> frozenset[str]:
    return catalog.followed_names() | {name for rule in rules.RULES for name in rule.follows}


def is_relevant_qualname(qualname: str, words: set[str] | frozenset[str] | None = None) -> bool:
    """Is ``qualname`` a name rules follow, or something inside one (a module's member)?
    A local alias of such a name is as relevant as the words themselves. ``words``: the
    source's relevant words; a name whose last part is not among them (``ServerArgs`` where
    no builder can be edited) is not followed there."""
    names = _followed()
    cut = len(qualname)
    while cut > 0:
        prefix = qualname[:cut]
        if prefix in names and (words is None or prefix.rpartition(".")[2] in words):
            return True
        cut = qualname.rfind(".", 0, cut)
    return False


def words_for(source: str) -> list[str]:
    """The relevant words whose preconditions ``source`` meets."""
    words: list[str] = []
    for preconditions, group in _searched_preconditions():
        # The reflection calls are builtins: no alias or subclass brings them in unspelled,
        # so where none is written the group adds nothing, and its many quoted names (a
        # scan of the whole source each) need not be looked for.
        if group is catalog.REFLECTION_CALLS and not any(call in source for call in group):
            continue
        if not preconditions or any(_holds(source, core, quotes) for core, quotes in preconditions):
            words.extend(group)
    return words


def hot_text(source: str) -> HotText:
    """``source``'s lines, its relevant words and the lines holding them."""
    return HotText(source, words_for(source), is_relevant_qualname)


_QUOTES = ("'", '"')


@cache
def _searched_preconditions() -> tuple[tuple[tuple[tuple[str, frozenset[str] | None], ...], tuple[str, ...]], ...]:
    """``word_groups`` with each quoted precondition (``"name"``, ``'name'``) as its name and
    its quote characters: a quote is one of the commonest characters of a source, which
    makes ``'"name"' in source`` ~5 times slower to scan for than ``name``, so the name is
    searched and the characters around each occurrence compared."""
    searched = []
    for preconditions, words in word_groups():
        quotes: dict[str, set[str]] = {}
        for text in preconditions:
            quoted = len(text) > 2 and text[0] in _QUOTES and text[-1] == text[0]
            quotes.setdefault(text[1:-1] if quoted else text, set()).add(text[0] if quoted else "")
        searched.append((tuple((core, None if "" in marks else frozenset(marks)) for core, marks in quotes.items()),
                         words))
    return tuple(searched)


def _holds(source: str, core: str, quotes: frozenset[str] | None) -> bool:
    """``core`` occurs in ``source``, between two of the same ``quotes`` where given."""
    if quotes is None:
        return core in source
    size = len(core)
    at = source.find(core)
    while at != -1:
        before = source[at - 1:at]
        if before in quotes and source[at + size:at + size + 1] == before:
            return True
        at = source.find(core, at + size)
    return False
