"""A third-party package with its own dflash_worker module (must not be flagged)."""
