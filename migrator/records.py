"""Immutable records for the types the command's parent process needs before its workers
start, without ``dataclasses``.

Why not dataclasses here: importing ``dataclasses`` (it imports ``inspect``) and the code
it generates for every class cost ~20 ms of a ~270 ms lint of a 2,400-file fork on this
project's 2-core machines, all of it before the first worker can start (BENCHMARKS.md).
A named tuple is built once per class and is a C tuple per instance. ``Record`` adds what
named tuples lack: a record equals (and hashes like) only records of its own type, so
``RemoveStatement(span) != RemoveDictEntry(span)`` although both hold one span.
Everything else is the named tuple API: fields with defaults, ``_replace`` for changed
copies, ordering by fields, pickling for the worker processes.

Use: ``class Position(Record, namedtuple("Position", "line column")): __slots__ = ()``.
Types only the workers or other commands use keep ``dataclasses``.
"""

from __future__ import annotations


class Record:
    """Mixin for a named tuple subclass: equality and hashing by type and fields."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and tuple.__eq__(self, other)  # type: ignore[arg-type]

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash((type(self).__name__, *self))  # type: ignore[misc]
