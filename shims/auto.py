"""``import shims.auto`` activates the runtime shim in this process (same as ``shims.install()``)."""

from __future__ import annotations

from shims import install

STATUS = install()
