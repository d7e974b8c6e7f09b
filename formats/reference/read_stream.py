#!/usr/bin/python3
"""Reference reader of the Partikel stream format, written from formats/SPEC.md alone.

It proves the specification is complete: it decodes every frame of a stream into numpy
arrays, verifying checksums, limits, filters and the end record, without sharing code with
the C++ library. Needs numpy and libzstd (through ctypes).

    read_stream.py FILE            # print a summary of every frame
    read_stream.py FILE --dump     # also print every column's values (for tests)

As a module: `for frame in read_stream(open(path, "rb")): ...`; a frame is a dict with
step, time, dt, time_unit_si, attributes and groups: {name: {column: Column}}.
"""
import ctypes
import ctypes.util
import struct
import sys
from dataclasses import dataclass

import numpy as np

MAGIC = b"\x89PKS\r\n\x1a\n"
MAX_RECORD = 64 << 20
MAX_BLOCK_RAW = 16 << 20
TYPES = {1: np.uint8, 2: np.int32, 3: np.uint32, 4: np.int64, 5: np.uint64, 6: np.float32, 7: np.float64}
TYPE_NAMES = {1: "u8", 2: "i32", 3: "u32", 4: "i64", 5: "u64", 6: "f32", 7: "f64"}
M64 = (1 << 64) - 1
P1, P2, P3, P4, P5 = (0x9E3779B185EBCA87, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9,
                      0x85EBCA77C2B2AE63, 0x27D4EB2F165667C5)


class FormatError(Exception):
    pass


def _rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M64


def _round(acc, lane):
    return (_rotl((acc + lane * P2) & M64, 31) * P1) & M64


def xxh64(data, seed=0):
    """XXH64 (SPEC.md §2.1), in plain Python: slow, but the reference."""
    n = len(data)
    p = 0
    if n >= 32:
        v = [(seed + P1 + P2) & M64, (seed + P2) & M64, seed, (seed - P1) & M64]
        lanes = np.frombuffer(data, dtype="<u8", count=(n // 32) * 4).tolist()
        for i in range(0, len(lanes), 4):
            v = [_round(v[k], lanes[i + k]) for k in range(4)]
        p = (n // 32) * 32
        h = (_rotl(v[0], 1) + _rotl(v[1], 7) + _rotl(v[2], 12) + _rotl(v[3], 18)) & M64
        for x in v:
            h = ((h ^ _round(0, x)) * P1 + P4) & M64
    else:
        h = (seed + P5) & M64
    h = (h + n) & M64
    while p + 8 <= n:
        h ^= _round(0, struct.unpack_from("<Q", data, p)[0])
        h = (_rotl(h, 27) * P1 + P4) & M64
        p += 8
    if p + 4 <= n:
        h ^= (struct.unpack_from("<I", data, p)[0] * P1) & M64
        h = (_rotl(h, 23) * P2 + P3) & M64
        p += 4
    while p < n:
        h ^= (data[p] * P5) & M64
        h = (_rotl(h, 11) * P1) & M64
        p += 1
    h ^= h >> 33
    h = (h * P2) & M64
    h ^= h >> 29
    h = (h * P3) & M64
    h ^= h >> 32
    return h


_zstd = ctypes.CDLL(ctypes.util.find_library("zstd") or "libzstd.so.1")
_zstd.ZSTD_decompress.restype = ctypes.c_size_t
_zstd.ZSTD_decompress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
_zstd.ZSTD_isError.restype = ctypes.c_uint
_zstd.ZSTD_isError.argtypes = [ctypes.c_size_t]


def zstd_decompress(data, raw_size):
    out = ctypes.create_string_buffer(max(raw_size, 1))
    n = _zstd.ZSTD_decompress(out, raw_size, data, len(data))
    if _zstd.ZSTD_isError(n) or n != raw_size:
        raise FormatError("zstd frame does not decode to %d bytes" % raw_size)
    return out.raw[:raw_size]


def compress_bound(raw):
    return raw + (raw >> 8) + (((128 << 10) - raw) >> 11 if raw < (128 << 10) else 0)


@dataclass
class Column:
    name: str
    type: str
    components: int
    unit_dimension: tuple
    unit_si: float
    values: np.ndarray  # shape (N, C), or (N,) when C = 1


class Body:
    """A cursor over one record body (SPEC.md §2.4)."""

    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, n):
        if self.pos + n > len(self.data):
            raise FormatError("record body ends early")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def unpack(self, fmt):
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt)))

    def string(self):
        (n,) = self.unpack("I")
        return self.take(n).decode("utf-8")

    def attributes(self):
        (count,) = self.unpack("I")
        out, previous = {}, None
        for _ in range(count):
            key = self.string()
            if previous is not None and not key.encode() > previous.encode():
                raise FormatError("attribute keys are not unique and sorted")
            previous = key
            (kind,) = self.unpack("B")
            if kind == 1:
                (out[key],) = self.unpack("q")
            elif kind == 2:
                (out[key],) = self.unpack("d")
            elif kind == 3:
                out[key] = self.string()
            elif kind == 4:
                (n,) = self.unpack("I")
                out[key] = list(self.unpack("%dd" % n))
            else:
                raise FormatError("unknown attribute kind %d" % kind)
        return out

    def done(self):
        if self.pos != len(self.data):
            raise FormatError("record body has %d trailing bytes" % (len(self.data) - self.pos))


class Reader:
    def __init__(self, f):
        self.f = f
        self.offset = 0

    def read(self, n, what):
        data = self.f.read(n)
        if len(data) != n:
            raise FormatError("truncated in %s at byte %d" % (what, self.offset + len(data)))
        self.offset += n
        return data

    def record(self):
        tag, length = struct.unpack("<4sI", self.read(8, "record header"))
        if length > MAX_RECORD:
            raise FormatError("record longer than 64 MiB")
        body = self.read(length, "record body")
        (checksum,) = struct.unpack("<Q", self.read(8, "record checksum"))
        if checksum != xxh64(body):
            raise FormatError("checksum mismatch in record %r" % tag)
        return tag.decode("ascii", "replace"), body

    def preamble(self):
        pre = self.read(16, "preamble")
        if pre[:8] != MAGIC:
            raise FormatError("bad magic")
        major, minor, flags = struct.unpack("<HHI", pre[8:])
        if major != 1 or minor != 0 or flags != 0:
            raise FormatError("unsupported version %d.%d or flags %d" % (major, minor, flags))
        tag, body = self.record()
        if tag != "PKHD":
            raise FormatError("expected PKHD")
        b = Body(body)
        b.attributes()
        b.done()


def unshuffle(data, n, width):
    return np.frombuffer(data, dtype=np.uint8).reshape(width, n).T.copy().tobytes()


def undelta(values, components):
    v = values.reshape(-1, components)
    return np.cumsum(v, axis=0, dtype=v.dtype).reshape(-1)  # wraps modulo 2^(8w)


def read_frame(r, body):
    b = Body(body)
    step, time, dt, time_unit_si = b.unpack("qddd")
    frame = {"step": step, "time": time, "dt": dt, "time_unit_si": time_unit_si,
             "attributes": b.attributes(), "groups": {}}
    (group_count,) = b.unpack("I")
    layout = []
    for _ in range(group_count):
        name = b.string()
        count, columns = b.unpack("QI")
        entries = []
        for _ in range(columns):
            cname = b.string()
            code, filt, reserved, comps = b.unpack("BBHI")
            dims = b.unpack("7d")
            (unit_si, rows_per_block) = b.unpack("dQ")
            if code not in TYPES or filt & ~3 or reserved or not 1 <= comps <= 65536:
                raise FormatError("bad column entry %s" % cname)
            width = np.dtype(TYPES[code]).itemsize
            if (filt & 1) and code in (6, 7):
                raise FormatError("delta on floats")
            if rows_per_block < 1 or rows_per_block * comps * width > MAX_BLOCK_RAW:
                raise FormatError("blocks larger than 16 MiB")
            entries.append((cname, code, filt, comps, dims, unit_si, rows_per_block))
        layout.append((name, count, entries))
    b.done()
    for name, count, entries in layout:
        group = frame["groups"].setdefault(name, {})
        for cname, code, filt, comps, dims, unit_si, rows_per_block in entries:
            dtype = np.dtype(TYPES[code]).newbyteorder("<")
            width = dtype.itemsize
            parts = []
            for first in range(0, count, rows_per_block):
                rows = min(rows_per_block, count - first)
                raw = rows * comps * width
                stored, codec, z1, z2, z3, checksum = struct.unpack("<IBBBBQ", r.read(16, "block header"))
                if z1 or z2 or z3 or codec > 1:
                    raise FormatError("bad block header")
                if (codec == 0 and stored != raw) or (codec == 1 and stored > compress_bound(raw)):
                    raise FormatError("bad block size")
                data = r.read(stored, "block")
                if xxh64(data) != checksum:
                    raise FormatError("block checksum mismatch in %s/%s" % (name, cname))
                if codec == 1:
                    data = zstd_decompress(data, raw)
                if filt & 2:
                    data = unshuffle(data, rows, width * comps)
                values = np.frombuffer(data, dtype=dtype)
                if filt & 1:
                    values = undelta(values, comps)
                parts.append(values)
            values = np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
            values = values.reshape(count, comps) if comps > 1 else values
            group[cname] = Column(cname, TYPE_NAMES[code], comps, dims, unit_si, values)
    return frame


def read_stream(f):
    """Yields the frames of a stream (or of concatenated streams)."""
    r = Reader(f)
    r.preamble()
    frames = 0
    while True:
        tag, body = r.record()
        if tag == "PKFR":
            yield read_frame(r, body)
            frames += 1
        elif tag == "PKIX":
            b = Body(body)
            (count,) = b.unpack("Q")
            if count != frames:
                raise FormatError("index lists %d frames, stream has %d" % (count, frames))
            b.unpack("%dQ" % (3 * count))
            b.done()
        elif tag == "PKEN":
            b = Body(body)
            (count, _index_offset) = b.unpack("QQ")
            b.done()
            if count != frames:
                raise FormatError("end record says %d frames, stream has %d" % (count, frames))
            rest = f.read(8)
            if not rest:
                return
            if rest != MAGIC:
                raise FormatError("data after the end record")
            r.offset += 8
            pre = r.read(8, "preamble")
            major, minor, flags = struct.unpack("<HHI", pre)
            if major != 1 or minor != 0 or flags != 0:
                raise FormatError("unsupported version")
            tag, body = r.record()
            if tag != "PKHD":
                raise FormatError("expected PKHD")
            frames = 0
        else:
            raise FormatError("unknown record %r" % tag)


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[0])
        print("usage: read_stream.py FILE [--dump]")
        return 2
    dump = "--dump" in argv[2:]
    try:
        with open(argv[1], "rb") as f:
            for i, frame in enumerate(read_stream(f)):
                print("frame %d step %d time %r dt %r time_unit_si %r" % (i, frame["step"], frame["time"], frame["dt"], frame["time_unit_si"]))
                for key, value in sorted(frame["attributes"].items()):
                    print("  attribute %s = %r" % (key, value))
                for gname, columns in frame["groups"].items():
                    for cname, c in columns.items():
                        print("  %s/%s %s x %d, %d rows, unitSI %r, dims %s" % (gname, cname, c.type, c.components, len(c.values),
                                                                              c.unit_si, list(c.unit_dimension)))
                        if dump:
                            for row in c.values.reshape(len(c.values), -1).tolist():
                                print("    " + " ".join(repr(v) for v in row))
    except FormatError as e:
        print("read_stream.py: error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
