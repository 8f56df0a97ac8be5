"""Compatibility characters: the non-ASCII characters NFKC turns into ASCII letters, digits
or ``_`` (full-width ``Ｄ``, mathematical ``𝐃``, the ligature ``ﬁ``, superscript ``²``...).

Python NFKC-normalises identifiers, so ``ＤFlashWorker`` *is* ``DFlashWorker`` to the
parser, while a byte search for ``DFlashWorker`` misses it. The prefilters therefore give
a file holding one of these characters a second look (``git grep`` by their UTF-8 bytes,
the Python prefilter by its NFKC form). ``RANGES`` is generated from ``unicodedata``
(Unicode 14, Python 3.11) and checked against the running Python by
``tests/test_hostile_prefilter.py``; regenerate it with ``python -m migrator.base.compat``.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

RANGES = (
    (0xAA, 0xAA), (0xB2, 0xB3), (0xB9, 0xBA), (0xBC, 0xBE), (0x132, 0x133), (0x13F, 0x140), (0x149, 0x149),
    (0x17F, 0x17F), (0x1C4, 0x1CC), (0x1F1, 0x1F3), (0x2B0, 0x2B0), (0x2B2, 0x2B3), (0x2B7, 0x2B8),
    (0x2E1, 0x2E3), (0x1D2C, 0x1D2C), (0x1D2E, 0x1D2E), (0x1D30, 0x1D31), (0x1D33, 0x1D3A), (0x1D3C, 0x1D3C),
    (0x1D3E, 0x1D43), (0x1D47, 0x1D49), (0x1D4D, 0x1D4D), (0x1D4F, 0x1D50), (0x1D52, 0x1D52), (0x1D56, 0x1D58),
    (0x1D5B, 0x1D5B), (0x1D62, 0x1D65), (0x1D9C, 0x1D9C), (0x1DA0, 0x1DA0), (0x1DBB, 0x1DBB), (0x1E9A, 0x1E9A),
    (0x2070, 0x2071), (0x2074, 0x2079), (0x207F, 0x2089), (0x2090, 0x2093), (0x2095, 0x209C), (0x20A8, 0x20A8),
    (0x2100, 0x2103), (0x2105, 0x2106), (0x2109, 0x210E), (0x2110, 0x2113), (0x2115, 0x2116), (0x2119, 0x211D),
    (0x2120, 0x2122), (0x2124, 0x2124), (0x2128, 0x2128), (0x212A, 0x212A), (0x212C, 0x212D), (0x212F, 0x2131),
    (0x2133, 0x2134), (0x2139, 0x2139), (0x213B, 0x213B), (0x2145, 0x2149), (0x2150, 0x217F), (0x2189, 0x2189),
    (0x2460, 0x24EA), (0x2C7C, 0x2C7D), (0x3250, 0x325F), (0x32B1, 0x32CF), (0x3358, 0x337A), (0x3380, 0x33FF),
    (0xA7F2, 0xA7F4), (0xFB00, 0xFB06), (0xFE33, 0xFE34), (0xFE4D, 0xFE4F), (0xFF10, 0xFF19), (0xFF21, 0xFF3A),
    (0xFF3F, 0xFF3F), (0xFF41, 0xFF5A), (0x107A5, 0x107A5), (0x1D400, 0x1D454), (0x1D456, 0x1D49C),
    (0x1D49E, 0x1D49F), (0x1D4A2, 0x1D4A2), (0x1D4A5, 0x1D4A6), (0x1D4A9, 0x1D4AC), (0x1D4AE, 0x1D4B9),
    (0x1D4BB, 0x1D4BB), (0x1D4BD, 0x1D4C3), (0x1D4C5, 0x1D505), (0x1D507, 0x1D50A), (0x1D50D, 0x1D514),
    (0x1D516, 0x1D51C), (0x1D51E, 0x1D539), (0x1D53B, 0x1D53E), (0x1D540, 0x1D544), (0x1D546, 0x1D546),
    (0x1D54A, 0x1D550), (0x1D552, 0x1D6A3), (0x1D7CE, 0x1D7FF), (0x1F100, 0x1F10A), (0x1F110, 0x1F12E),
    (0x1F130, 0x1F14F), (0x1F16A, 0x1F16C), (0x1F190, 0x1F190), (0x1FBF0, 0x1FBF9),
)


def computed_ranges() -> tuple[tuple[int, int], ...]:
    """``RANGES`` as the running Python's ``unicodedata`` says (~2 s: for tests and regeneration)."""
    wanted = re.compile(r"[A-Za-z0-9_]")
    points = [c for c in range(0x80, 0x110000)
              if not 0xD800 <= c < 0xE000 and wanted.search(unicodedata.normalize("NFKC", chr(c)))]
    ranges: list[tuple[int, int]] = []
    for point in points:
        if ranges and ranges[-1][1] == point - 1:
            ranges[-1] = (ranges[-1][0], point)
        else:
            ranges.append((point, point))
    return tuple(ranges)


_ASCII = bytes(range(128))


def holds_compatibility_character(data: bytes) -> bool:
    """Does UTF-8 ``data`` hold a compatibility character? Only the non-ASCII characters can
    be one, so those alone are searched (deleting the ASCII bytes keeps every UTF-8
    sequence whole; a C loop, unlike a search of the whole text with this class: ~2 ms a
    file)."""
    if data.isascii():
        return False
    return text_pattern().search(data.translate(None, _ASCII).decode("utf-8", "replace")) is not None


@cache
def text_pattern() -> re.Pattern[str]:
    """Matches one compatibility character in decoded text."""
    return re.compile("[" + "".join(f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in RANGES) + "]")


@cache
def grep_patterns() -> tuple[bytes, ...]:
    """Regular expressions (bytes, for ``LC_ALL=C``; extended and Perl-compatible alike)
    matching the UTF-8 form of one compatibility character, one per two first bytes: pcre2
    finds where a pattern can start with a vectorised scan when that is one of at most two
    bytes, and one byte at a time otherwise; each pattern costs a call per file (``git grep
    -P`` on sglang 0.5.13, CPU: one pattern 30 ms, one per first byte 19 ms, one per two 11 ms,
    one per three 90 ms)."""
    by_prefix: dict[bytes, list[int]] = {}
    for first, last in RANGES:
        for point in range(first, last + 1):
            encoded = chr(point).encode("utf-8")
            by_prefix.setdefault(encoded[:-1], []).append(encoded[-1])
    by_lead: dict[bytes, list[bytes]] = {}
    for prefix, ends in by_prefix.items():
        spans: list[list[int]] = []
        for end in sorted(ends):
            if spans and spans[-1][1] == end - 1:
                spans[-1][1] = end
            else:
                spans.append([end, end])
        body = b"".join(bytes([a]) if a == b else bytes([a, 0x2D, b]) for a, b in spans)
        by_lead.setdefault(prefix[:1], []).append(prefix[1:] + b"[" + body + b"]")
    per_lead = [lead + (rest[0] if len(rest) == 1 else b"(" + b"|".join(rest) + b")")
                for lead, rest in sorted(by_lead.items())]
    return tuple(b"|".join(per_lead[at:at + 2]) for at in range(0, len(per_lead), 2))


def grep_pattern() -> bytes:
    """``grep_patterns`` as one extended regular expression (where a pattern of its own
    costs a pass: ``git grep -E``)."""
    return b"|".join(grep_patterns())


if __name__ == "__main__":
    print(computed_ranges())
