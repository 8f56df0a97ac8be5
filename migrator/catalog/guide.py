"""Where a TODO and a tombstone point the reader (issue 48): the migration guide's address.

The project has no public address, so by default the pointer is the relative
``MIGRATION.md#dfm201``, the guide shipped beside the code. A team that publishes the
guide (an internal wiki, a fork's documentation site) sets its address, and every TODO
a fix writes names it instead (``https://docs.example.org/migration#dfm201``), from, in
this order:

* ``guide-url = "https://..."`` in ``[tool.dflash-migrate]`` (``migrator.run.config``);
* the installed dflash-migrate's package metadata: a ``Project-URL`` labelled
  ``Migration guide`` (a build that sets ``[project.urls] "Migration guide" = "..."``).

One run, one address: :func:`use` sets it for the files a process handles (each file's
pipeline sets it from ``Options.guide``, so every worker of the pool writes the same),
and :func:`pointer` is what :func:`migrator.catalog.todo_comment` writes and
:func:`migrator.catalog.todo_detail` reads back. The metadata is read only when a fix run
has no ``guide-url`` and writes a TODO (:data:`FROM_METADATA`): importing
``importlib.metadata`` costs ~50 ms, which a run that writes nothing should not pay.
"""

from __future__ import annotations

from migrator.base.patterns import on_first_use

DOC = "MIGRATION.md"
#: The ``Project-URL`` label read from the package metadata (compared case-insensitively).
METADATA_LABEL = "migration guide"
#: ``Options.guide`` of a fix run without ``guide-url``: the package metadata's address, else DOC.
FROM_METADATA = "package metadata"
_ADDRESS = on_first_use(r"^https?://[^\s#()]+$")
_current = DOC
_found: dict[str, str] = {}  # FROM_METADATA -> the address read once in this process


def valid(address: str) -> bool:
    """An ``http(s)`` address with no space, fragment or parenthesis (a TODO ends with it)."""
    return _ADDRESS().match(address) is not None


def use(address: str) -> None:
    """Point TODOs at ``address`` from now on in this process ("": the relative guide;
    :data:`FROM_METADATA`: the package metadata's, read when first needed)."""
    global _current
    _current = address or DOC


def pointer() -> str:
    if _current != FROM_METADATA:
        return _current
    if FROM_METADATA not in _found:
        _found[FROM_METADATA] = from_metadata() or DOC
    return _found[FROM_METADATA]


def from_metadata(distribution: str = "dflash-migrate") -> str:
    """The ``Migration guide`` ``Project-URL`` of the installed ``distribution``, or ""."""
    from importlib import metadata

    try:
        urls = metadata.metadata(distribution).get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return ""
    for item in urls:
        label, _, address = item.partition(",")
        if label.strip().lower() == METADATA_LABEL and valid(address.strip()):
            return address.strip()
    return ""
