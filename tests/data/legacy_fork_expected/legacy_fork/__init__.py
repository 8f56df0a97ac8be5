"""A downstream fork of SGLang written against the DFLASH V1 worker (sglang 0.5.13)."""
