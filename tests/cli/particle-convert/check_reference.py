#!/usr/bin/python3
"""The reference reader (formats/reference/read_stream.py, written from SPEC.md alone)
decodes our streams to the values of the source CSV, and rejects damaged ones.

usage: check_reference.py SAMPLE.csv STREAM.pks [STREAM.pks ...]
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.environ["PARTIKEL_SOURCE_DIR"], "formats", "reference"))
from partikel import stream  # noqa: E402

DTYPES = {"f32": np.float32, "f64": np.float64, "u8": np.uint8, "i32": np.int32, "u32": np.uint32,
          "i64": np.int64, "u64": np.uint64}

csv = sys.argv[1]
fields, rows = None, []
for line in open(csv):
    line = line.strip()
    if line and not line.startswith("#"):
        if fields is None:
            fields = [f.split(":")[0] for f in line.split(",")]
        else:
            rows.append(line.split(","))
table = {f: [r[i] for r in rows] for i, f in enumerate(fields)}
components = {1: [""], 3: ["_x", "_y", "_z"], 2: ["_x", "_y"], 6: ["_xx", "_yy", "_zz", "_yz", "_xz", "_xy"]}
errors = []
for path in sys.argv[2:]:
    with open(path, "rb") as f:
        frames = list(stream.read_stream(f))
    for frame in frames:
        if frame["time"] != 0.6 or frame["dt"] != 0.005:
            errors.append(path + ": time/dt")
        columns = frame["groups"]["fluid"]
        for name, c in columns.items():
            values = c.values.reshape(len(c.values), -1)
            for k, suffix in enumerate(components[c.components]):
                text = table[name + suffix]
                dtype = DTYPES[c.type]
                if np.issubdtype(dtype, np.integer):
                    expected = np.array([int(v) for v in text], dtype=dtype)
                else:
                    expected = np.array(text, dtype=np.float64).astype(dtype)
                if not np.array_equal(values[:, k], expected, equal_nan=not np.issubdtype(dtype, np.integer)):
                    errors.append("%s: %s%s: %s != %s" % (path, name, suffix, values[:, k], expected))
        if columns["density"].unit_dimension != (-3.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0):
            errors.append(path + ": density unit")
    print("%s: %d frames decoded" % (path, len(frames)))

# Damage: a flipped byte in the last block must be a FormatError, not wrong values.
data = bytearray(open(sys.argv[2], "rb").read())
data[-200] ^= 0x10
open("damaged.pks", "wb").write(bytes(data))
try:
    with open("damaged.pks", "rb") as f:
        list(stream.read_stream(f))
    errors.append("damaged stream accepted")
except stream.FormatError as e:
    print("damaged stream rejected: %s" % e)

if errors:
    print("reference reader check failed:\n  " + "\n  ".join(errors))
    sys.exit(1)
