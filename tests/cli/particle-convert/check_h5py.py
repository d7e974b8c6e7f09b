#!/usr/bin/python3
"""h5py (an independent HDF5 reader) sees our openPMD file as the CSV it came from.

usage: check_h5py.py FILE.h5 SAMPLE.csv
"""
import sys

import h5py
import numpy as np

path, csv = sys.argv[1], sys.argv[2]
names = None
rows = []
for line in open(csv):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    if names is None:
        names = [n.split(":")[0] for n in line.split(",")]
        continue
    rows.append(line.split(","))
table = {n: [r[i] for r in rows] for i, n in enumerate(names)}

f = h5py.File(path, "r")
errors = []


def expect(cond, what):
    if not cond:
        errors.append(what)


expect(f.attrs["openPMD"] == b"1.1.0", "openPMD version")
expect(f.attrs["basePath"] == b"/data/%T/", "basePath")
expect(f.attrs["iterationEncoding"] == b"groupBased", "iterationEncoding")
it = f["/data/120"]
expect(it.attrs["time"] == 0.6 and it.attrs["dt"] == 0.005 and it.attrs["timeUnitSI"] == 1.0, "iteration time attributes")
fluid = it["particles/fluid"]
for comp in "xyz":
    x = fluid["position/" + comp]
    expect(x.dtype == np.float32, "position dtype")
    expect(np.array_equal(x[()], np.array(table["position_" + comp], dtype=np.float32)), "position/" + comp + " values")
    expect(x.attrs["unitSI"] == 1.0, "position unitSI")
    expect(fluid["positionOffset/" + comp].attrs["value"] == 0.0, "positionOffset value")
    expect(list(fluid["positionOffset/" + comp].attrs["shape"]) == [3], "positionOffset shape")
expect(list(fluid["position"].attrs["unitDimension"]) == [1, 0, 0, 0, 0, 0, 0], "position unitDimension")
expect(list(fluid["velocity"].attrs["unitDimension"]) == [1, 0, -1, 0, 0, 0, 0], "velocity unitDimension")
vx = np.array(table["velocity_x"], dtype=np.float32)
expect(np.array_equal(fluid["velocity/x"][()], vx, equal_nan=True), "velocity/x values (with NaN)")
expect(list(fluid["pressure"].attrs["unitDimension"]) == [-1, 1, -2, 0, 0, 0, 0], "pressure unitDimension")
expect(fluid["id"].dtype == np.uint64, "id dtype")
expect(fluid["id"][()].tolist() == [int(v) for v in table["id"]], "id values")
expect(fluid["kind"].dtype == np.uint8, "kind dtype")
expect(fluid["serial"].dtype == np.int64 and fluid["serial"][()].tolist() == [int(v) for v in table["serial"]], "serial i64")
expect(fluid["temperature"].dtype == np.float64 and
       np.array_equal(fluid["temperature"][()], np.array(table["temperature"], dtype=np.float64)), "temperature f64")
expect(sorted(fluid["stress"].keys()) == sorted(["xx", "yy", "zz", "yz", "xz", "xy"]), "stress components")
expect(np.array_equal(fluid["stress/yz"][()], np.array(table["stress_yz"], dtype=np.float32)), "stress/yz values")
expect(fluid["velocity/x"].compression == "gzip" and fluid["velocity/x"].shuffle, "gzip + shuffle")
expect(fluid["velocity/x"].chunks is not None, "chunked")
# The XDMF side file points at datasets that exist, with the sizes it claims.
import os
import xml.etree.ElementTree as ET
xmf = os.path.splitext(path)[0] + ".xmf"
items = ET.parse(xmf).getroot().iter("DataItem")
checked = 0
for item in items:
    if item.get("Format") != "HDF":
        continue
    name, dataset = item.text.strip().split(":", 1)
    expect(name == os.path.basename(path), "XDMF file name " + name)
    expect(dataset in f, "XDMF dataset " + dataset)
    if dataset in f:
        expect(f[dataset].shape == tuple(int(d) for d in item.get("Dimensions").split()), "XDMF dimensions of " + dataset)
    checked += 1
expect(checked >= 11, "XDMF lists the records (%d items)" % checked)
# Vectors and tensors reach XDMF as N x C virtual datasets over the component datasets, in
# XDMF's component order (Tensor6: xx xy xz yy yz zz), so they equal the CSV's columns.
joined = f["/xdmf/120/fluid/stress"]
expect(joined.is_virtual, "the joined stress is a virtual dataset")
for k, c in enumerate(["xx", "xy", "xz", "yy", "yz", "zz"]):
    expect(np.array_equal(joined[:, k], np.array(table["stress_" + c], dtype=np.float32)), "joined stress column " + c)
position = f["/xdmf/120/fluid/position"]
for k, c in enumerate("xyz"):
    expect(np.array_equal(position[:, k], fluid["position/" + c][()]), "joined position column " + c)
# openPMD particlePatches: one patch of all particles, a box holding every position.
patches = fluid["particlePatches"]
expect(list(patches["numParticles"][()]) == [3] and list(patches["numParticlesOffset"][()]) == [0], "patch counts")
expect(patches["numParticles"].dtype == np.uint64, "numParticles is uint64")
for c in "xyz":
    x = fluid["position/" + c][()].astype(np.float64)
    x = x[~np.isnan(x)]
    low, size = patches["offset/" + c][0], patches["extent/" + c][0]
    expect(low == x.min() and low + size > x.max() and size <= (x.max() - x.min()) * (1 + 1e-15) + 1e-300,
           "patch box " + c)

if errors:
    print("h5py check failed: " + "; ".join(errors))
    sys.exit(1)
print("h5py sees the same values")
