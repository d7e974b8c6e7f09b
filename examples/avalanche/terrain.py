#!/usr/bin/env python3
"""Synthetic terrains for the avalanche and river scenes of sph-init, as 16-bit grey PNG height
maps (standard library only; nothing is downloaded).

  terrain.py hillside hillside.png   # 160 x 60 m: plateau, 35 degree slope, run-out
  terrain.py valley valley.png       # 120 x 40 m: a valley falling 1 in 10 along x

Samples are 0.5 m apart (sph-init --terrain-cell 0.5) and 2 mm per unit (--terrain-scale 0.002,
so 65535 is 131 m); column i of row k is the height at x = 0.5 i, z = 0.5 k.

hillside: along x, a plateau at 70 m, a 35 degree slope from x = 20 m down to the run-out at
0 m (x = 120 m), both bends rounded over 10 m (the slope's angle blends linearly into the flat
parts); across z a shallow gully, 2 m deep in the middle (z = 30 m), so that the slab released
at x 25..75 m, z 15..45 m (sph-init avalanche's default: 50 x 30 m, 35 m of height on the
slope) gathers as it runs.

valley: the floor falls from 14 m at x = 0 to 2 m at x = 120 m; across z a parabola rising
0.04 (z - 20)^2 (16 m at the sides).
"""
import math
import struct
import sys
import zlib

CELL = 0.5
SCALE = 0.002


def hillside_profile(x):
    """Height (m) along the hillside: the integral of a slope that goes from 0 (plateau) to
    tan(35 deg) and back to 0 (run-out), each change spread over 10 m."""
    top, angle, start, bend = 70.0, math.radians(35.0), 20.0, 10.0
    run = top / math.tan(angle)  # horizontal length of the slope: 100 m

    def slope(u):  # the descent per metre at x = u, a trapezoid with ramps of length `bend`
        s = min(max((u - (start - bend / 2)) / bend, 0.0), 1.0)
        e = min(max(((start + run + bend / 2) - u) / bend, 0.0), 1.0)
        return math.tan(angle) * min(s, e)

    # Midpoint integration in 0.05 m steps: the ramps are linear, the error is negligible.
    steps = max(0, int(round(x / 0.05)))
    descent = sum(slope((j + 0.5) * 0.05) for j in range(steps))
    return top - descent * 0.05


def hillside(nx=321, nz=121):
    profile = [max(hillside_profile(i * CELL), 0.0) for i in range(nx)]
    width = (nz - 1) * CELL
    return [[profile[i] - 2.0 * math.cos(math.pi * (k * CELL - width / 2) / width) ** 2 + 2.0
             for i in range(nx)] for k in range(nz)]


def valley(nx=241, nz=81):
    return [[14.0 - 0.1 * (i * CELL) + 0.04 * (k * CELL - 20.0) ** 2 for i in range(nx)] for k in range(nz)]


def write_png16(path, rows):
    """A grey 16-bit PNG (big-endian samples, filter 0 on each row)."""
    height, width = len(rows), len(rows[0])
    raw = bytearray()
    for row in rows:
        raw.append(0)
        for h in row:
            sample = int(round(h / SCALE))
            if not 0 <= sample <= 65535:
                raise ValueError(f"height {h} m does not fit 16 bits at {SCALE} m per unit")
            raw += struct.pack(">H", sample)

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n")
        out.write(chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 16, 0, 0, 0, 0)))
        out.write(chunk(b"IDAT", zlib.compress(bytes(raw), 9)))
        out.write(chunk(b"IEND", b""))


def main(argv):
    kinds = {"hillside": hillside, "valley": valley}
    if len(argv) != 3 or argv[1] not in kinds:
        sys.stderr.write("usage: terrain.py hillside|valley OUTPUT.png\n")
        return 2
    write_png16(argv[2], kinds[argv[1]]())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
