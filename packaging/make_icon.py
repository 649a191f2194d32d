"""Draw resources/litlens.png (a magnifying lens over lines of text) with the standard library only."""

from __future__ import annotations

import struct
import sys
import zlib
from pathlib import Path

SIZE = 128


def pixel(x: float, y: float) -> tuple[int, int, int, int]:
    cx, cy, r = 56.0, 56.0, 34.0
    d = ((x - cx) ** 2 + (y - cy) ** 2) ** 0.5
    if r - 7 <= d <= r:  # the lens rim
        return (40, 62, 110, 255)
    if d < r - 7:  # glass: pale blue with three lines of "text"
        for line_y in (44, 56, 68):
            if abs(y - line_y) < 2.5 and 36 <= x <= 78:
                return (200, 120, 40, 255)
        return (214, 232, 250, 255)
    # the handle, a thick stroke from the rim towards the bottom right
    t = ((x - cx) + (y - cy)) / 2
    off = abs((x - cx) - (y - cy)) / 2 ** 0.5
    if 28 <= t <= 62 and off <= 7:
        return (40, 62, 110, 255)
    return (0, 0, 0, 0)


def png(size: int = SIZE) -> bytes:
    rows = b"".join(b"\x00" + b"".join(bytes(pixel(x + 0.5, y + 0.5)) for x in range(size)) for y in range(size))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "resources" / "litlens.png"
    out.write_bytes(png())
    print(out)
