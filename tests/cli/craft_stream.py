#!/usr/bin/python3
"""Writes hostile Partikel streams for the reader tests (tests/cli/abuse_readers.sh): files that
are valid by every checksum and length of formats/SPEC.md §2 but carry what a reader must
refuse or bound. It rewrites the frames of IN (read by the reference reader,
formats/reference/partikel) with the changes asked for, storing every block raw:

    craft_stream.py IN OUT [--time X] [--dt X] [--time-unit-si X]
                           [--attribute KEY=JSON] ... [--remove-attribute KEY] ...
                           [--empty-group NAME:COUNT] [--wide-group NAME:COLUMNS]
                           [--group-count N] [--swap-index] [--misplace-index]

  --attribute sph.h=1e400       sets (or adds) a frame attribute: a JSON number (integers
                                are i64), string or list of numbers
  --empty-group ghost:4611686018427387904
                                adds a group of COUNT particles and no columns
  --wide-group wide:40000       adds a group of one particle and COLUMNS f32 columns
  --group-count N               adds N groups of one particle and no columns
  --swap-index                  swaps the index offsets of frames 0 and 1 (their steps and
                                times stay): checksums valid, offsets wrong
  --misplace-index              points the index entry of frame 1 at frame 2 (and frame 2's 8
                                bytes further): offsets still increasing, checksums valid
"""
import argparse
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "formats", "reference"))
from partikel.stream import MAGIC, read_stream, xxh64  # noqa: E402

CODES = {"u8": 1, "i32": 2, "u32": 3, "i64": 4, "u64": 5, "f32": 6, "f64": 7}


def string(text):
    data = text.encode()
    return struct.pack("<I", len(data)) + data


def attributes(attrs):
    out = struct.pack("<I", len(attrs))
    for key in sorted(attrs, key=lambda k: k.encode()):
        value = attrs[key]
        out += string(key)
        if isinstance(value, bool) or isinstance(value, int):
            out += struct.pack("<Bq", 1, int(value))
        elif isinstance(value, float):
            out += struct.pack("<Bd", 2, value)
        elif isinstance(value, str):
            out += struct.pack("<B", 3) + string(value)
        else:
            out += struct.pack("<BI", 4, len(value)) + struct.pack("<%dd" % len(value), *value)
    return out


def record(tag, body):
    return tag + struct.pack("<I", len(body)) + body + struct.pack("<Q", xxh64(body))


def frame_bytes(frame):
    """The PKFR record and its blocks. frame["groups"]: [(name, count, [(column, code, C,
    dims, unit_si, raw bytes)])]."""
    body = [struct.pack("<qddd", frame["step"], frame["time"], frame["dt"], frame["time_unit_si"]),
            attributes(frame["attributes"]), struct.pack("<I", len(frame["groups"]))]
    blocks = []
    for name, count, columns in frame["groups"]:
        body.append(string(name) + struct.pack("<QI", count, len(columns)))
        for cname, code, comps, dims, unit_si, raw in columns:
            body.append(string(cname) + struct.pack("<BBHI", code, 0, 0, comps) + struct.pack("<7d", *dims) +
                        struct.pack("<dQ", unit_si, max(count, 1)))
            if count:
                blocks.append(struct.pack("<IBBBBQ", len(raw), 0, 0, 0, 0, xxh64(raw)) + raw)
    return record(b"PKFR", b"".join(body)), b"".join(blocks)


def parse_number(text):
    """JSON, and the non-finite values JSON lacks: nan, inf, -inf, 1e400."""
    try:
        value = json.loads(text)
    except ValueError:
        return float(text)
    if isinstance(value, float) and not math.isfinite(value):
        return value
    return value


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    p.add_argument("input")
    p.add_argument("output")
    p.add_argument("--time", type=float)
    p.add_argument("--dt", type=float)
    p.add_argument("--time-unit-si", type=float)
    p.add_argument("--attribute", action="append", default=[])
    p.add_argument("--remove-attribute", action="append", default=[])
    p.add_argument("--empty-group", action="append", default=[])
    p.add_argument("--wide-group")
    p.add_argument("--group-count", type=int, default=0)
    p.add_argument("--swap-index", action="store_true")
    p.add_argument("--misplace-index", action="store_true")
    a = p.parse_args(argv[1:])

    frames = []
    with open(a.input, "rb") as f:
        for source in read_stream(f):
            frame = {k: source[k] for k in ("step", "time", "dt", "time_unit_si", "attributes")}
            frame["groups"] = []
            for gname, columns in source["groups"].items():
                entries, count = [], 0
                for c in columns.values():
                    count = len(c.values)
                    raw = c.values.astype(c.values.dtype.newbyteorder("<")).tobytes()
                    entries.append((c.name, CODES[c.type], c.components, c.unit_dimension, c.unit_si, raw))
                frame["groups"].append((gname, count, entries))
            frames.append(frame)
    for frame in frames:
        for key in ("time", "dt", "time_unit_si"):
            value = getattr(a, key)
            if value is not None:
                frame[key] = value
        for item in a.attribute:
            key, _, text = item.partition("=")
            value = parse_number(text)
            frame["attributes"][key] = value
        for key in a.remove_attribute:
            frame["attributes"].pop(key, None)
        for item in a.empty_group:
            name, _, count = item.partition(":")
            frame["groups"].append((name, int(count), []))
        if a.wide_group:
            name, _, columns = a.wide_group.partition(":")
            one = struct.pack("<f", 1.0)
            frame["groups"].append((name, 1, [("c%d" % i, 6, 1, (0.0,) * 7, 1.0, one) for i in range(int(columns))]))
        for g in range(a.group_count):
            frame["groups"].append(("g%d" % g, 1, []))

    parts = [MAGIC + struct.pack("<HHI", 1, 0, 0) + record(b"PKHD", attributes({}))]
    size = len(parts[0])
    index = []
    for frame in frames:
        index.append([size, frame["step"], frame["time"]])
        directory, blocks = frame_bytes(frame)
        parts += [directory, blocks]
        size += len(directory) + len(blocks)
    out = b"".join(parts)
    if a.swap_index and len(index) > 1:
        index[0][0], index[1][0] = index[1][0], index[0][0]
    if a.misplace_index and len(index) > 2:
        index[1][0], index[2][0] = index[2][0], index[2][0] + 8
    index_offset = len(out)
    body = struct.pack("<Q", len(index)) + b"".join(struct.pack("<Qqd", *entry) for entry in index)
    out += record(b"PKIX", body)
    out += record(b"PKEN", struct.pack("<QQ", len(frames), index_offset))
    with open(a.output, "wb") as f:
        f.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
