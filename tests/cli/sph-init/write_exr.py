#!/usr/bin/env python3
"""write_exr.py FILE WIDTH HEIGHT CHANNEL VALUE...: an uncompressed scanline OpenEXR image of
one 32-bit float channel, VALUEs row by row from the top ("nan" and "inf" allowed).

Written by hand from the file layout (openexr.com, "OpenEXR File Layout"): magic and version,
the header's required attributes, one offset per scan line, then the lines. Independent of
the OpenEXR library that sph-init reads it with."""
import struct
import sys

path, width, height, channel = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
values = [float(v) for v in sys.argv[5:]]
assert len(values) == width * height, "need WIDTH x HEIGHT values"


def attribute(name, kind, value):
    return name.encode() + b"\0" + kind.encode() + b"\0" + struct.pack("<i", len(value)) + value


FLOAT = 2  # pixel type; then pLinear, 3 reserved bytes, x and y sampling
window = struct.pack("<4i", 0, 0, width - 1, height - 1)
header = b"".join([
    attribute("channels", "chlist", channel.encode() + b"\0" + struct.pack("<iB3xii", FLOAT, 0, 1, 1) + b"\0"),
    attribute("compression", "compression", b"\0"),
    attribute("dataWindow", "box2i", window),
    attribute("displayWindow", "box2i", window),
    attribute("lineOrder", "lineOrder", b"\0"),
    attribute("pixelAspectRatio", "float", struct.pack("<f", 1.0)),
    attribute("screenWindowCenter", "v2f", struct.pack("<2f", 0.0, 0.0)),
    attribute("screenWindowWidth", "float", struct.pack("<f", 1.0)),
]) + b"\0"
first_line = 8 + len(header) + 8 * height
line_bytes = 8 + 4 * width  # y, byte count, samples
offsets = struct.pack(f"<{height}Q", *(first_line + y * line_bytes for y in range(height)))
lines = b"".join(struct.pack(f"<ii{width}f", y, 4 * width, *values[y * width:(y + 1) * width])
                 for y in range(height))
with open(path, "wb") as out:
    out.write(b"\x76\x2f\x31\x01" + struct.pack("<i", 2) + header + offsets + lines)
