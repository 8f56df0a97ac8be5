"""``import shims.auto`` activates the runtime shim in this process (same as ``shims.install()``)."""

from __future__ import annotations

try:
    from shims import install
except ImportError as error:  # another distribution's `shims/__init__.py` over ours?
    from shims._owner import diagnose

    message = diagnose(error)
    if message is None:
        raise
    raise ImportError(f"dflash-migrate shim: {message}") from None

STATUS = install()
