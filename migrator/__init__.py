"""dflash-migrate: carry code from SGLang's removed DFLASH V1 path to the V2 worker."""

__version__ = "0.1.0"
#: dflash-migrate's own package, not another distribution's `migrator` (shims/_pth.py: MARKER)
__dflash_migrate__ = True
