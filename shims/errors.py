"""Errors raised for removed V1 things that have no V2 equivalent.

Each error names the rule code, the catalog's message and what to do instead, so a
plugin that calls a removed API fails with instructions rather than a bare
``AttributeError``. The concrete classes also derive from the built-in exception the
Python machinery expects at that spot:

- :class:`RemovedNameError` (an ``ImportError``) for a removed module-level name:
  ``from m import name`` swallows ``AttributeError`` and would replace our message
  with "cannot import name", but lets an ``ImportError`` through unchanged.
- :class:`RemovedAttributeError` (an ``AttributeError``) for a removed class member,
  so ``hasattr(obj, "verify")`` stays False and V1/V2-probing code takes the V2 branch.
- :class:`RemovedCallFormError` (a ``TypeError``) for a V1 call form of a surviving name.
"""

from __future__ import annotations

from migrator import catalog


class ShimRemovedAPIError(Exception):
    """A removed DFLASH V1 API was used; ``code`` is its rule code in ``migrator.catalog``."""

    def __init__(self, code: str, detail: str = "", where: str = "") -> None:
        entry = catalog.get(code)
        self.code = entry.code
        self.entry = entry
        self.where = where
        instead = detail or entry.guidance
        place = f" ({where})" if where else ""
        text = (f"{entry.code}: {entry.message}{place}. Instead: {instead} "
                f"`dflash-migrate lint` reports every use as {entry.code} (see {catalog.DOC}#{entry.anchor})")
        super().__init__(text)

    def __str__(self) -> str:  # ImportError/AttributeError would otherwise format their own way
        return str(self.args[0]) if self.args else self.code


class RemovedNameError(ShimRemovedAPIError, ImportError):
    """A removed module-level name (e.g. ``dflash_info._compute_paged_keep_slots``).

    By default it is raised where the name is imported. The message names that place and,
    for teams whose only use sits on a V1-only code path, the switch that defers it.
    """

    def __init__(self, code: str, where: str = "", *, on_call: bool = False) -> None:
        super().__init__(code, where=where)
        if not on_call:  # the import failed: say how to keep starting
            from shims._switches import ENV_DEFER_REMOVED

            self.args = (f"{self.args[0]}. If only a V1-only code path uses it, {ENV_DEFER_REMOVED}=1 makes it "
                         "import as a stand-in that raises this error when called",)


class RemovedAttributeError(ShimRemovedAPIError, AttributeError):
    """A removed class member (e.g. ``DFlashVerifyInput.verify``)."""


class RemovedCallFormError(ShimRemovedAPIError, TypeError):
    """A V1 call form of a name that survived with another signature (``prepare_for_verify``)."""
