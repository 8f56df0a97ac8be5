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

Import ``NamedTuple`` from here, not from ``typing``: type checkers see ``typing.NamedTuple``;
at run time the class is built by ``collections.namedtuple`` as ``typing`` builds it, minus
the check of each field's annotation. With ``from __future__ import annotations`` every
annotation is a string, and ``typing`` compiles each one into a ``ForwardRef`` (a
``compile()`` per field): 205 fields on the lint path of one file, ~5% of its instructions.
The fields' ``__annotations__`` stay the strings the module wrote (``typing.get_type_hints``
resolves them as it resolves any class's).
"""

from __future__ import annotations

import collections

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple, TypeVar

    R = TypeVar("R", bound=tuple)
else:
    #: what the class body may not set, and what it sets that the named tuple has already
    #: (``typing``'s own two lists)
    _PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults",
                             "_make", "_replace", "_asdict", "_source"})
    _SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})

    class _NamedTupleMeta(type):
        """``typing.NamedTupleMeta`` without ``typing._type_check`` on the annotations."""

        def __new__(cls, typename: str, bases: tuple, ns: dict) -> type:
            if bases != (_NamedTuple,):
                raise TypeError("a record inherits from NamedTuple alone")
            annotations = ns.get("__annotations__", {})
            defaults = [ns[name] for name in annotations if name in ns]
            if any(name in ns for name in list(annotations)[:len(annotations) - len(defaults)]):
                raise TypeError(f"{typename}: a field without a default follows one with a default")
            made = collections.namedtuple(typename, list(annotations), defaults=defaults, module=ns["__module__"])
            made.__annotations__ = made.__new__.__annotations__ = dict(annotations)
            for key, value in ns.items():
                if key in _PROHIBITED:
                    raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
                if key not in _SPECIAL and key not in made._fields:
                    setattr(made, key, value)
            return made

    _NamedTuple = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})

    def NamedTuple(*args: object, **kwargs: object) -> None:  # noqa: N802 (typing's name)
        """Class syntax only: ``class Position(NamedTuple): ...``."""
        raise TypeError("use the class syntax: class Name(NamedTuple)")

    NamedTuple.__mro_entries__ = lambda bases: (_NamedTuple,)


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
