#!/usr/bin/python3
"""The Python package partikel (formats/reference/partikel) reads frame k of an indexed stream
through the index, reading that frame's bytes and not the ones before; gives the same frames as
the sequential read; refuses a misplaced index entry; takes the xxhash module when it is there
and decodes the same with the plain-Python XXH64 it falls back to.

usage: check_seek.py FOUR.pks MISPLACED.pks CONCATENATED.pks
  FOUR.pks          an indexed stream of 4 frames (sph-step)
  MISPLACED.pks     FOUR.pks with frame 1's index entry pointing at frame 2 (craft_stream.py)
  CONCATENATED.pks  two streams one after the other (no index a seeking reader may use)
"""
import io
import os
import random
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.environ["PARTIKEL_SOURCE_DIR"], "formats", "reference"))
import partikel  # noqa: E402
from partikel import stream  # noqa: E402

four, misplaced, concatenated = sys.argv[1:4]
errors = []


class CountingFile(io.FileIO):
    """A file that counts the bytes read from it."""
    read_bytes = 0

    def read(self, n=-1):
        data = super().read(n)
        self.read_bytes += len(data)
        return data


def same(a, b):
    if (a["step"], a["time"], a["attributes"]) != (b["step"], b["time"], b["attributes"]):
        return False
    return all(np.array_equal(a["groups"][g][c].values, b["groups"][g][c].values)
               for g in a["groups"] for c in a["groups"][g])


frames = list(partikel.read_stream(open(four, "rb")))
if len(frames) != 4:
    errors.append("%s: %d frames, expected 4" % (four, len(frames)))
size = os.path.getsize(four)
for k in range(-4, 4):
    with CountingFile(four) as f:
        frame = partikel.read_frame(f, k)
        # The preamble and header, the end record, the index and frame k: not the frames before.
        before = stream.stream_index(open(four, "rb"))[k % 4][0]
        if f.read_bytes > size - before + 120:
            errors.append("frame %d: read %d bytes of %d; the frames before it start at byte %d" % (k, f.read_bytes, size, before))
    if not same(frame, frames[k]):
        errors.append("frame %d through the index differs from frame %d read in order" % (k, k))
print("seek: frames -4..3 through the index equal the sequential read")

for k in (3, -1):
    try:
        partikel.read_frame(four, 4 if k == 3 else -5)
        errors.append("frame %d of 4 delivered" % (4 if k == 3 else -5))
    except IndexError:
        pass

try:
    partikel.read_frame(misplaced, 1)
    errors.append("a misplaced index entry delivered a frame")
except partikel.FormatError as e:
    print("misplaced index entry refused: %s" % e)

# Concatenated streams have no usable index: frames are read in order, the same ones.
if stream.stream_index(open(concatenated, "rb")) is not None:
    errors.append("the index of concatenated streams was taken for the file's")
sequence = list(partikel.read_stream(open(concatenated, "rb")))
for k in (0, len(sequence) - 1, -1):
    if not same(partikel.read_frame(concatenated, k), sequence[k]):
        errors.append("concatenated: frame %d differs" % k)

# The XXH64 in use: the xxhash module's when it is installed, agreeing with the plain-Python one.
try:
    import xxhash  # noqa: F401
    if stream.xxh64 is stream.xxh64_python:
        errors.append("the xxhash module is installed but not used")
except ImportError:
    print("no xxhash module: the plain-Python XXH64 in use")
rng = random.Random(1)
for data in [b"", b"abc"] + [bytes(rng.getrandbits(8) for _ in range(n)) for n in (1, 7, 31, 32, 33, 100, 1000)]:
    if stream.xxh64(data) != stream.xxh64_python(data):
        errors.append("xxh64 of %d bytes: %x != %x" % (len(data), stream.xxh64(data), stream.xxh64_python(data)))
if stream.xxh64_python(b"abc") != 0x44BC2CF5AD770999 or stream.xxh64_python(b"") != 0xEF46DB3751D8E999:
    errors.append("the plain-Python XXH64 misses SPEC.md's examples")
fast = stream.xxh64
stream.xxh64 = stream.xxh64_python
try:
    if not all(same(a, b) for a, b in zip(partikel.read_stream(open(four, "rb")), frames)) or not same(partikel.read_frame(four, 2), frames[2]):
        errors.append("the plain-Python XXH64 path reads other frames")
    print("plain-Python XXH64 path: the same frames")
finally:
    stream.xxh64 = fast

if errors:
    print("seek check failed:\n  " + "\n  ".join(errors))
    sys.exit(1)
