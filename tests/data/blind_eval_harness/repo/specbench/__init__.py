"""specbench: offline evaluation harness and serving gateway for DFLASH speculative decoding.

Built against sglang 0.5.13.
"""

__version__ = "0.6.2"

SGLANG_VERSION = "0.5.13"
