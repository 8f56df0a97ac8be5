import importlib


def _has_module(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


#: True only where sglang still ships the V1 DFLASH worker (0.5.11-0.5.13).
LEGACY_DFLASH = _has_module("sglang.srt.speculative.dflash_worker")
