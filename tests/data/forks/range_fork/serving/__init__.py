"""A serving team's package on top of sglang's DFLASH worker (written against 0.5.13)."""
