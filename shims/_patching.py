"""Reversible attribute patches and a post-import hook on ``sys.meta_path``.

The shim never imports sglang itself: it registers a finder that, when Python imports
one of a few SGLang modules for its own reasons, lets the real loader run and then
calls a patch function on the fresh module. Every attribute the shim sets is recorded
here so ``uninstall()`` can put the original back.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
import types
from collections.abc import Callable, Sequence
from typing import Any

_MISSING = object()
PatchFn = Callable[[types.ModuleType], None]


class PatchLog:
    """Remembers ``(owner, name, previous value)`` for every ``setattr`` the shim makes."""

    def __init__(self) -> None:
        self._entries: list[tuple[Any, str, Any]] = []
        self._lock = threading.RLock()

    def set(self, owner: Any, name: str, value: Any) -> None:
        with self._lock:
            previous = owner.__dict__.get(name, _MISSING) if hasattr(owner, "__dict__") else _MISSING
            self._entries.append((owner, name, previous))
            setattr(owner, name, value)

    def undo_all(self) -> None:
        with self._lock:
            while self._entries:
                owner, name, previous = self._entries.pop()
                if previous is _MISSING:
                    try:
                        delattr(owner, name)
                    except AttributeError:
                        pass
                else:
                    setattr(owner, name, previous)

    def __len__(self) -> int:
        return len(self._entries)


class _PatchingLoader(importlib.abc.Loader):
    """Runs the real loader, then the shim's patch function on the module."""

    def __init__(self, wrapped: importlib.abc.Loader, patch: PatchFn) -> None:
        self._wrapped = wrapped
        self._patch = patch

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self._wrapped.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        self._wrapped.exec_module(module)
        self._patch(module)

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename, is_package, ...
        return getattr(self._wrapped, name)


class ShimFinder(importlib.abc.MetaPathFinder):
    """Meta-path finder: aliases for removed modules, post-import patches for live ones.

    ``aliases`` maps a module name to a factory of ``(loader)`` used only when no real
    module of that name exists (so on sglang <= 0.5.13 the real V1 module wins).
    ``patches`` maps a module name to a function applied right after the real module ran.
    """

    def __init__(self, aliases: dict[str, importlib.abc.Loader], patches: dict[str, PatchFn]) -> None:
        self.aliases = aliases
        self.patches = patches
        self._busy = threading.local()

    def _real_spec(self, fullname: str, path: Sequence[str] | None,
                   target: types.ModuleType | None) -> importlib.machinery.ModuleSpec | None:
        self._busy.active = True
        try:
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(fullname, path, target)
                if spec is not None:
                    return spec
            return None
        finally:
            self._busy.active = False

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: types.ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.aliases and fullname not in self.patches:
            return None
        if getattr(self._busy, "active", False):
            return None
        spec = self._real_spec(fullname, path, target)
        if fullname in self.aliases:
            if spec is not None:
                return None  # a real module exists (sglang <= 0.5.13): leave it alone
            return importlib.machinery.ModuleSpec(fullname, self.aliases[fullname], origin="dflash-migrate shim")
        if spec is None or spec.loader is None:
            return None
        spec.loader = _PatchingLoader(spec.loader, self.patches[fullname])
        return spec
