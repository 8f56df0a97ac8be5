"""Rules for files that are not Python: one module per file type, chosen by file name.

``handler_for(path)`` is the engine's entry point; a handler is
``(path, data, ctx) -> FileResult`` (see :func:`migrator.text._core.run`),
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
``*.json`` (also ``.jsonc``, devcontainer files): :mod:`.jsonfile` (nothing rewritten; `//` TODOs in JSON with comments)
``*.md`` ``*.markdown`` ``*.mdx``: :mod:`.markdown`
``*.ipynb``: :mod:`.notebook`
any other file     :mod:`.fallback` (V1 names in text, report-only; Makefile recipe
                   lines through the shell rules), except Python files and names in
                   ``BINARY_SUFFIXES`` (images, archives, weights)
=================  ==============================================================

Each file type declares itself once in :mod:`.filetypes` (names, comment syntax, quoting,
statement start, Markdown fence languages, write guard); every other table is derived
from those declarations. Modules are imported only when a file of their type is processed.
Discovery decides by name alone (:func:`accepts`): no file is opened before the byte
prefilter reads it.

Each module declares itself with ``RULE = TextRule(...)`` (:class:`._core.TextRule`): the
codes it emits, whether fully qualified removed names are looked for too, the modules whose
rules it runs on embedded text. A file is read by exactly one module, so text modules have
no order among themselves and share codes by design (``DFM201`` in a shell script and in a
YAML file is the same removed thing); inside a module, :func:`._core.run` runs its scanner,
then the fully qualified names, then the suppressions. :func:`text_rules` collects the
declarations (for tests and docs; the engine imports only the module a file needs).

In fixing modes, :func:`._core.run` hands the fixed text to the text-fix guard
(:mod:`._guard`) before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib import import_module

from migrator import catalog
from migrator.text.filetypes import BINARY_SUFFIXES, MODULES, accepts, filetype_for, module_for

TYPE_CHECKING = False
if TYPE_CHECKING:
    from migrator.text._core import TextRule

__all__ = ["BINARY_SUFFIXES", "Handler", "accepts", "emitted_codes", "handler_for", "module_for", "text_rules"]

Handler = Callable[[str, bytes, object, Callable], object]
#: The kinds of entry whose qualified names the text rules look for (``catalog.names.qualified``).
DOTTED_KINDS = ("module", "class", "function", "method", "attribute")


def handler_for(path: str) -> Handler | None:
    """The handler for ``path`` (decided by name, extension or shebang), or None."""
    filetype = filetype_for(path)
    if filetype is None:
        return None
    return import_module(filetype.module).handle


@cache
def text_rules() -> dict[str, TextRule]:
    """Every text-rule module's declaration, by module name."""
    return {name: import_module(f"migrator.text.{name}").RULE for name in MODULES}


@cache
def emitted_codes(name: str) -> frozenset[str]:
    """Every code the module ``name`` may emit: its own, the fully qualified names', and
    those of the rules it runs on embedded text."""
    if name == "python":
        from migrator.python.rules import RULES

        return frozenset(code for rule in RULES for code in rule.emits)
    rule = text_rules()[name]
    codes = set(rule.codes)
    if rule.dotted_names:
        codes.update(catalog.codes_of_kind(*DOTTED_KINDS))
    for embedded in rule.embeds:
        codes |= emitted_codes(embedded)
    return frozenset(codes)
