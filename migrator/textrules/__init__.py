"""Rules for files that are not Python: one module per file type, chosen by file name.

``handler_for(path)`` is the engine's entry point; a handler is
``(path, data, options, python) -> FileResult`` (see :func:`migrator.textrules._core.run`),
where ``python`` is the engine's analyser for embedded Python (Markdown blocks, notebook
cells), passed in so that no text rule imports the engine. Which module reads which file:
:mod:`.filetypes`.

=================  ==============================================================
file               module
=================  ==============================================================
``*.sh`` ``*.bash`` ``*.zsh`` ``*.ksh``, ``.envrc``, extensionless files with a
                   ``sh``/``bash``/``zsh`` shebang: :mod:`.shell`
``Dockerfile``, ``Dockerfile.*``, ``*.dockerfile``, ``Containerfile``: :mod:`.dockerfile`
``*.yaml`` ``*.yml``: :mod:`.yaml`
``.env``, ``.env.*``, ``*.env``: :mod:`.dotenv`
``*.toml``: :mod:`.toml`
``*.json`` (also ``.jsonc``, devcontainer files): :mod:`.jsonfile` (report only)
``*.md`` ``*.markdown`` ``*.mdx``: :mod:`.markdown`
``*.ipynb``: :mod:`.notebook`
any other file     :mod:`.fallback` (V1 names in text, report-only), except Python
                   files and names in ``BINARY_SUFFIXES`` (images, archives, weights)
=================  ==============================================================

Modules are imported only when a file of their type is processed. Discovery decides by
name alone (:func:`accepts`): no file is opened before the byte prefilter reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from .filetypes import BINARY_SUFFIXES, accepts, module_for

__all__ = ["BINARY_SUFFIXES", "Handler", "accepts", "handler_for", "module_for"]

Handler = Callable[[str, bytes, object, Callable], object]


def handler_for(path: str) -> Handler | None:
    """The handler for ``path`` (decided by name, extension or shebang), or None."""
    module = module_for(path)
    if module is None:
        return None
    return import_module(f"migrator.textrules.{module}").handle
