"""The one record style: ``typing.NamedTuple`` classes with typed fields, decorated with
``@record``.

Why named tuples and not dataclasses: on this project's 2-core machines, ``dataclasses``
(it imports ``inspect``) and the code it generates per class cost ~40 ms before the first
worker can start, against ~8 ms for ``typing`` and ~20 named tuple classes (BENCHMARKS.md,
"Records"). ``@record`` adds the one thing named tuples lack: a record equals (and hashes
like) only records of its own type, so ``RemoveStatement(span) != RemoveDictEntry(span)``
although both hold one span. Everything else is the named tuple API: typed fields with
defaults, ``_replace`` for changed copies, ordering by fields, pickling for the workers.

Use::

    @record
    class Position(NamedTuple):
        line: int
        column: int

Objects filled in as a run goes (``model.FileResult``, the run's ``result.RunResult``, a
suppression comment's ``Directive``, the libcst applier's plan, the uncommitted-work scan)
are mutable accumulators, not records: plain classes with ``__slots__``. The command-line
declarations (``commands.params``) are ``collections.namedtuple`` classes with ``@record``,
because every command line imports them and ``typing`` is not loaded on the fastest paths.
``tests/test_one_home.py`` fails on a ``dataclasses`` import or a named tuple without
``@record`` anywhere in ``migrator/`` or ``shims/``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeVar

    R = TypeVar("R", bound=tuple)


def _equal(self: tuple, other: object) -> bool:
    return type(self) is type(other) and tuple.__eq__(self, other)  # type: ignore[arg-type]


def _not_equal(self: tuple, other: object) -> bool:
    return not _equal(self, other)


def _hash(self: tuple) -> int:
    return hash((type(self).__name__, *self))


def record(cls: type[R]) -> type[R]:
    """Equality and hashing by type and fields for a ``typing.NamedTuple`` class."""
    cls.__eq__ = _equal  # type: ignore[method-assign, assignment]
    cls.__ne__ = _not_equal  # type: ignore[method-assign, assignment]
    cls.__hash__ = _hash  # type: ignore[method-assign, assignment]
    return cls
