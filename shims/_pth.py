"""Target of the ``dflash_migrate_shim.pth`` line: install the shim when ``DFLASH_MIGRATE_SHIM`` is truthy.

The ``.pth`` line only imports this module when the variable is set at all, so a process
that has not opted in pays for one ``os.environ`` lookup. SGLang starts its scheduler
and detokenizer in spawned subprocesses that import user code too; the variable is
inherited, so they get the shim before anything imports sglang. A failure here must
never break interpreter start-up: it is reported and swallowed.
"""

from __future__ import annotations


def activate_from_environment() -> bool:
    """Install the shim if ``DFLASH_MIGRATE_SHIM`` is truthy; True when it did."""
    from shims._switches import ENV_ACTIVATE, env_flag

    if not env_flag(ENV_ACTIVATE):
        return False
    try:
        from shims import install

        install()
    except Exception as exc:  # noqa: BLE001 - start-up must go on
        import sys

        print(f"dflash-migrate shim: could not install from {ENV_ACTIVATE}: {exc!r}", file=sys.stderr)
        return False
    return True


activate_from_environment()
