"""Reader of the Partikel stream format (.pks), written from formats/SPEC.md alone.

It proves the specification is complete: it decodes the frames of a stream into numpy arrays,
verifying checksums, limits, filters, the index and the end record, without sharing code with
the C++ library. Needs numpy and libzstd (through ctypes); uses the xxhash module
(python3-xxhash) for the checksums when it is there, plain Python otherwise (20 times slower).

    python3 -m partikel FILE              # print a summary of every frame ('-': stdin)
    python3 -m partikel FILE --frame K    # only frame K (negative: from the end)
    python3 -m partikel FILE --dump       # also print every column's values

As a module:

    frame = partikel.read_frame("run.pks", -1)              # the last frame, through the index
    position = frame["groups"]["fluid"]["position"].values  # numpy, shape (N, 3)
    for frame in partikel.read_stream(open("run.pks", "rb")): ...

A frame is a dict with step, time, dt, time_unit_si, attributes and groups:
{name: {column: Column}}.
"""
import collections
import contextlib
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


def xxh64_python(data, seed=0):
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


try:
    import xxhash

    def xxh64(data):
        """XXH64 with seed 0, by the xxhash module (Yann Collet's C library)."""
        return xxhash.xxh64_intdigest(data)
except ImportError:
    xxh64 = xxh64_python


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


def read_frame_record(r, body):
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


def stream_index(f):
    """The index of a seekable stream file (SPEC.md §2.7, §2.8, §2.9a): a list of (offset, step,
    time) per frame, or None when the file has no index that a seeking reader may use (none, a
    damaged one, or the last of concatenated streams). Leaves the file's position anywhere."""
    if not f.seekable():
        return None
    size = f.seek(0, 2)
    if size < 16 + 3 * 32:
        return None
    f.seek(size - 32)
    end = f.read(32)
    if end[:8] != b"PKEN\x10\x00\x00\x00" or struct.unpack_from("<Q", end, 24)[0] != xxh64(end[8:24]):
        return None
    frames, offset = struct.unpack_from("<QQ", end, 8)
    # The index must end where the end record begins: offsets count from the preamble of the
    # last stream, so in concatenated streams they point elsewhere and the index is not used.
    if offset < 16 or frames > size // 24 or offset + 16 + 8 + 24 * frames != size - 32:
        return None
    f.seek(offset)
    r = Reader(f)
    try:
        tag, body = r.record()
    except FormatError:
        return None
    if tag != "PKIX" or len(body) != 8 + 24 * frames or struct.unpack_from("<Q", body)[0] != frames:
        return None
    entries = [struct.unpack_from("<Qqd", body, 8 + 24 * i) for i in range(frames)]
    if any(b[0] <= a[0] for a, b in zip(entries, entries[1:])) or (entries and entries[-1][0] >= offset):
        return None
    return entries


def read_frame(source, k):
    """Frame k (negative: counted from the end) of a stream file (a path or a binary file):
    through the index when the file has one, reading only that frame, else by reading every
    frame before it. The frame found through the index must have the step and time the index
    lists for it (a damaged index never delivers another frame)."""
    if isinstance(source, (str, bytes)) or hasattr(source, "__fspath__"):
        with open(source, "rb") as f:
            return read_frame(f, k)
    entries = stream_index(source)
    if entries is None:
        if source.seekable():
            source.seek(0)
        last = collections.deque(maxlen=max(-k, 1))  # frame k, or the last -k frames
        count = 0
        for count, frame in enumerate(read_stream(source), 1):
            if count == k + 1:
                return frame
            last.append(frame)
        if k >= 0 or -k > count:
            raise IndexError("frame %d of a stream of %d frames" % (k, count))
        return last[0]
    if not -len(entries) <= k < len(entries):
        raise IndexError("frame %d of a stream of %d frames" % (k, len(entries)))
    offset, step, time = entries[k]
    source.seek(0)
    r = Reader(source)
    r.preamble()
    source.seek(offset)
    r.offset = offset
    tag, body = r.record()
    if tag != "PKFR":
        raise FormatError("the index points to a %r record for frame %d: a damaged index" % (tag, k))
    frame = read_frame_record(r, body)
    if (frame["step"], frame["time"]) != (step, time):
        raise FormatError("the index lists step %d, time %r for frame %d; the frame there has step %d, time %r: "
                          "a damaged index" % (step, time, k, frame["step"], frame["time"]))
    return frame


def read_stream(f):
    """Yields the frames of a stream (or of concatenated streams), checking the index, where
    there is one, against the frames read (SPEC.md §2.7)."""
    r = Reader(f)
    r.preamble()
    start = 0     # of the current stream, in the file
    seen = []     # (offset from start, step, time) of each frame of the current stream
    while True:
        offset = r.offset - start
        tag, body = r.record()
        if tag == "PKFR":
            frame = read_frame_record(r, body)
            seen.append((offset, frame["step"], frame["time"]))
            yield frame
        elif tag == "PKIX":
            b = Body(body)
            (count,) = b.unpack("Q")
            if count != len(seen):
                raise FormatError("index lists %d frames, stream has %d" % (count, len(seen)))
            for i, (listed, found) in enumerate(zip((b.unpack("Qqd") for _ in range(count)), seen)):
                if listed != found:
                    raise FormatError("the index's entry for frame %d (byte %d, step %d, time %r) does not match the "
                                      "frame read (byte %d, step %d, time %r): a damaged index" % ((i,) + listed + found))
            b.done()
        elif tag == "PKEN":
            b = Body(body)
            (count, _index_offset) = b.unpack("QQ")
            b.done()
            if count != len(seen):
                raise FormatError("end record says %d frames, stream has %d" % (count, len(seen)))
            rest = f.read(8)
            if not rest:
                return
            if rest != MAGIC:
                raise FormatError("data after the end record")
            start = r.offset
            r.offset += 8
            pre = r.read(8, "preamble")
            major, minor, flags = struct.unpack("<HHI", pre)
            if major != 1 or minor != 0 or flags != 0:
                raise FormatError("unsupported version")
            tag, body = r.record()
            if tag != "PKHD":
                raise FormatError("expected PKHD")
            seen = []
        else:
            raise FormatError("unknown record %r" % tag)


def main(argv):
    args = argv[1:]
    dump = "--dump" in args
    args = [a for a in args if a != "--dump"]
    k = None
    if len(args) == 3 and args[1] == "--frame":
        try:
            k = int(args[2])
        except ValueError:
            args = []
        args = args[:1]
    if len(args) != 1:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: python3 -m partikel FILE [--frame K] [--dump]", file=sys.stderr)
        return 2
    try:
        with (contextlib.nullcontext(sys.stdin.buffer) if args[0] == "-" else open(args[0], "rb")) as f:
            if k is None:
                frames = enumerate(read_stream(f))
            else:
                frame = read_frame(f, k)
                frames = [(k, frame)]
            for i, frame in frames:
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
    except (OSError, FormatError, IndexError) as e:
        print("partikel: error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
