"""Dead and changed overrides in a fork's subclass of an aliased worker (DFM106-DFM108).

A fork's ``class MetricsWorker(DFlashWorker)`` runs on the real ``DFlashWorkerV2`` under
the shim, but V2 never calls the removed V1 worker methods (``_prepare_for_speculative_
decoding``, ``_append_target_hidden_to_draft_kv``, ...): an override of one silently stops
running. When the alias module hands out the V1 worker name, the shim puts a reversible
``__init_subclass__`` on the real V2 class, so every subclass created after that is
checked once, when its ``class`` statement runs; nothing is added to any method, so the
decode path runs no shim code.

For each worker method in the catalog (entries of kind ``method`` owned by the V1 worker
class) that the new class defines in its own body:

- not defined anywhere on the real V2 class: a dead override. One warning per class and
  method names the class, the method, the rule code, what V2 calls instead and the
  catalog's guidance.
- defined on V2 under the same name with another contract (DFM108,
  ``forward_batch_generation``): one warning, unless the override takes V2's
  ``on_publish`` parameter (written for V2).

With ``DFLASH_MIGRATE_SHIM_STRICT=1`` each warning is raised instead, so the ``class``
statement, and the import of its module, fails.
"""

from __future__ import annotations

import inspect
from functools import cache
from typing import Any

from migrator import catalog
from shims import _switches
from shims._patching import PatchLog

V2_CONTRACT_PARAMETER = "on_publish"  # in every V2 forward_batch_generation (0.5.14-0.5.23)
_MARK = "__dflash_migrate_shim__"


@cache
def worker_method_entries() -> tuple[catalog.Entry, ...]:
    return tuple(e for e in catalog.ENTRIES if e.kind == "method" and e.owner_class == catalog.V1_WORKER_CLASS)


def _short(dotted: str | None) -> str:
    if not dotted:
        return "nothing"
    parts = dotted.split(".")
    return ".".join(parts[-2:]) if parts[-2][:1].isupper() else parts[-1]


def _function(value: Any) -> Any:
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    return inspect.unwrap(value) if callable(value) else value


def _location(cls: type, value: Any) -> tuple[str, int] | None:
    code = getattr(_function(value), "__code__", None)
    if code is not None:
        return code.co_filename, code.co_firstlineno
    return None


def _takes(value: Any, name: str) -> bool:
    try:
        return name in inspect.signature(_function(value)).parameters
    except (TypeError, ValueError):
        return False


def _defined_on(base: type, name: str) -> bool:
    return any(name in klass.__dict__ for klass in base.__mro__)


def dead_or_changed(cls: type, base: type) -> list[tuple[catalog.Entry, str, bool]]:
    """``(entry, member, dead)`` for each catalog worker method ``cls`` defines in its own body."""
    found = []
    for entry in worker_method_entries():
        member = entry.member
        if member not in cls.__dict__:
            continue
        if not _defined_on(base, member):
            found.append((entry, member, True))
        elif not _takes(cls.__dict__[member], V2_CONTRACT_PARAMETER):
            found.append((entry, member, False))
    return found


def message(cls: type, base: type, entry: catalog.Entry, member: str, dead: bool) -> str:
    owner = f"{cls.__module__}.{cls.__qualname__}"
    replacement = _short(entry.replacement_for(catalog.NEWEST_RELEASE))
    if dead:
        detail = (f"class `{owner}` defines `{member}`, which `{base.__name__}` never calls: this override "
                  f"no longer runs; V2 uses `{replacement}` instead. {entry.guidance}")
    else:
        detail = (f"class `{owner}` overrides `{member}`, whose contract changed in `{base.__name__}` "
                  f"(an override written for V2 takes `{V2_CONTRACT_PARAMETER}`). {entry.guidance}")
    return _switches.migration_message(entry, detail)


def check_class(cls: type, base: type) -> None:
    for entry, member, dead in dead_or_changed(cls, base):
        _switches.notify(f"{entry.code}:override:{cls.__module__}.{cls.__qualname__}.{member}",
                         message(cls, base, entry, member, dead), location=_location(cls, cls.__dict__[member]))


def watch_subclasses(base: type, log: PatchLog) -> None:
    """Check every later subclass of ``base`` when it is created (idempotent, undone by ``log``)."""
    current = base.__dict__.get("__init_subclass__")
    if getattr(getattr(current, "__func__", None), _MARK, False):
        return

    def __init_subclass__(cls: type, **kwargs: Any) -> None:
        if current is not None:
            current.__get__(None, cls)(**kwargs)
        else:
            super(base, cls).__init_subclass__(**kwargs)  # type: ignore[misc]
        check_class(cls, base)

    setattr(__init_subclass__, _MARK, True)
    log.set(base, "__init_subclass__", classmethod(__init_subclass__))
