"""Runtime shim for code that still uses SGLang's removed DFLASH V1 names (issue 4)."""
