#!/usr/bin/env bash
# ParaView (pvpython, Debian's python3-paraview) opens what particle-convert writes for it: the
# XDMF side file in all three XDMF readers, a .vtk.series, a plain CSV (check_paraview.py); and
# numpy.genfromtxt(names=True) reads the plain CSV by column name.
. "$(dirname "$0")/lib.sh"
if ! command -v pvpython >/dev/null; then
  echo "SKIP: no pvpython (ParaView's Python; scripts/install-deps.sh installs python3-paraview)"
  exit 77
fi
# Three frames at 0.6, 0.605 and 0.61 s, each with the groups fluid and wall (h5py copies fluid).
step=0
for t in 0.6 0.605 0.61; do
  sed -e "s/^# step: 120/# step: $step/" -e "s/^# time: 0.6\$/# time: $t/" "$data/sample.csv" > s$step.csv
  particle-convert s$step.csv s$step.pks
  step=$((step + 1))
done
check "three frames to h5" 0 sh -c 'cat s0.pks s1.pks s2.pks | particle-convert --no-xdmf - fluid.h5'
check "a second group" 0 "$py" -c '
import h5py
with h5py.File("fluid.h5", "a") as f:
    for step in f["data"]:
        f.copy(f"/data/{step}/particles/fluid", f"/data/{step}/particles/wall")'
mkdir -p view
check "h5 with XDMF" 0 particle-convert fluid.h5 view/run.h5
check "vtk series" 0 sh -c 'cat s0.pks s1.pks s2.pks | particle-convert - view/v_%T.vtk'
check "plain csv" 0 particle-convert s0.pks view/plain.csv
# Xdmf3 resolves the HDF5 file against the .xmf name only when that has a directory part (a
# bare "run.xmf" becomes "run.xmfrun.h5"); ParaView's GUI always passes absolute names.
check "ParaView readers" 0 pvpython "$PARTIKEL_SOURCE_DIR/tests/cli/particle-convert/check_paraview.py" \
  view/run.xmf view/v.vtk.series view/plain.csv
cat out
check "numpy.genfromtxt(names=True)" 0 "$py" -c '
import numpy as np
t = np.genfromtxt("view/plain.csv", delimiter=",", names=True)
assert t.dtype.names[:3] == ("position_x", "position_y", "position_z"), t.dtype.names
assert list(t["density"]) == [1000.25, 999.125, 1001.0], t["density"]
assert list(t["stress_yz"]) == [4, -4, 0.0625], t["stress_yz"]'
finish
