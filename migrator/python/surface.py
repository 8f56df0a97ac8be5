"""What the shipped surface index (``migrator/releases/surface_index.py``, generated from
the wheels by ``scripts/surface_index.py``) says exists on a release: the write guard's
answer where no wheel is cached, the same on every machine. Imported lazily, only by the
guard."""

from __future__ import annotations

from functools import cache

from migrator import catalog


@cache
def _names_on(release: str) -> frozenset[str]:
    """Every surface name of ``release`` and the packages and classes above it."""
    from migrator.releases.surface_index import SURFACE_INDEX

    order = catalog.RELEASES
    if release not in order:
        return frozenset()
    position = order.index(release)
    names: set[str] = set()
    for name, spans in SURFACE_INDEX.items():
        for span in spans.split(","):
            first, _, last = span.partition("..")
            if order.index(first) <= position <= order.index(last or first):
                while name and name not in names:
                    names.add(name)
                    name = name.rpartition(".")[0]
                break
    return frozenset(names)


def on_surface(dotted: str, release: str) -> bool:
    """Whether the wheels show ``dotted`` on the DFLASH surface of ``release`` (a release
    the index does not know: False, so the caller's other evidence decides)."""
    return dotted in _names_on(catalog_release(release))


def catalog_release(release: str) -> str:
    """``0.5.15.post1`` -> ``0.5.15``: the catalog treats a post release as its base."""
    return ".".join(map(str, catalog.parse_version(release)[:3]))
