"""ACME's DFLASH extensions: a metrics worker, debug snapshots and a worker registry."""

__version__ = "1.4.0"
