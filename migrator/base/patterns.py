"""Regular expressions compiled at their first use, not when their module is imported.

``re.compile`` runs the pure-Python ``sre`` compiler: tens of microseconds a pattern, and a
lint of a large tree imports ~40 of them, most for files it never meets (shell, history,
pins) or for modes it is not in. ``pattern = on_first_use(r"...")``, then ``pattern()``
gives the compiled pattern, built once per process.
"""

from __future__ import annotations

import re
from functools import cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import AnyStr, Callable


def on_first_use(pattern: AnyStr, flags: int = 0) -> Callable[[], re.Pattern[AnyStr]]:
    return cache(lambda: re.compile(pattern, flags))
