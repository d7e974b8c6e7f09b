"""ParaView's own readers open what particle-convert writes: the XDMF side file in all three of
ParaView's XDMF readers (XDMF 2's "XDMF Reader", Xdmf3ReaderS, Xdmf3ReaderT), the .vtk.series
of a VTK series, and a plain CSV. Run by pvpython (ParaView's Python).

usage: pvpython check_paraview.py RUN.xmf V.vtk.series PLAIN.csv

RUN.xmf holds the groups fluid and wall of tests/cli/particle-convert/data/sample.csv at the
times 0.6, 0.605 and 0.61 s; the VTK series and the CSV hold fluid alone.
"""
import os
import sys

from paraview import servermanager as sm
from paraview import simple
from vtkmodules.numpy_interface import dataset_adapter as dsa

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts", "interop"))
from paraview_blocks import blocks, time_values  # noqa: E402

xmf, series, csv = sys.argv[1:4]
times = [0.6, 0.605, 0.61]
errors = []


def expect(cond, what):
    if not cond:
        errors.append(what)


# Row 0 of sample.csv: position (0.1, 0.2, 0.3), stress xx..xy = 1..6 in SPEC.md's order
# xx yy zz yz xz xy, ids 1, 2 and 2^64 - 1.
def check_grid(label, ds, stress_components):
    pd = ds.GetPointData()
    expect(ds.GetNumberOfPoints() == 3, f"{label}: {ds.GetNumberOfPoints()} points, not 3")
    # ParaView draws cells: points without vertex cells show nothing (Xdmf3 makes none of a
    # Polyvertex topology without connectivity).
    expect(ds.GetNumberOfCells() == 3 and ds.GetCellType(0) == 2, f"{label}: {ds.GetNumberOfCells()} cells, not 3 vertices")
    p = ds.GetPoint(0)
    expect(abs(p[0] - 0.1) < 1e-7 and abs(p[1] - 0.2) < 1e-7 and abs(p[2] - 0.3) < 1e-7, f"{label}: point 0 is {p}")
    names = [pd.GetArrayName(i) for i in range(pd.GetNumberOfArrays())]
    for name in ["velocity", "density", "pressure", "id", "kind", "stress", "temperature", "cell_x", "cell_y", "tag", "serial"]:
        expect(name in names, f"{label}: no array {name} (has {names})")
    if not {"velocity", "id", "stress"} <= set(names):
        return
    expect(pd.GetArray("velocity").GetNumberOfComponents() == 3, f"{label}: velocity is not a vector")
    ids = pd.GetArray("id")
    # XDMF readers know no unsigned 64-bit type ("UInt" of Precision 8 arrives as 32-bit and
    # clips); the side file declares ids signed 64-bit, exact below 2^63.
    expect(ids.GetDataTypeSize() == 8 and ids.GetDataTypeAsString() in ("long", "long long", "idtype"),
           f"{label}: id arrives as {ids.GetDataTypeAsString()}")
    values = [int(dsa.vtkDataArrayToVTKArray(ids)[i]) for i in range(3)]
    # HDF5 converts the u64 2^64 - 1 to the largest i64 (clips, never wraps).
    expect(values == [1, 2, 2**63 - 1], f"{label}: ids {values}")
    stress = pd.GetArray("stress")
    expect(stress.GetNumberOfComponents() == len(stress_components), f"{label}: stress has {stress.GetNumberOfComponents()} components")
    row = list(stress.GetTuple(0))
    expect(row == stress_components, f"{label}: stress row 0 is {row}, not {stress_components}")


# XDMF 2 expands Tensor6 to the full symmetric 3x3 tensor; Xdmf3 keeps XDMF's Tensor6 order
# xx xy xz yy yz zz.
full = [1.0, 6.0, 5.0, 6.0, 2.0, 4.0, 5.0, 4.0, 3.0]
tensor6 = [1.0, 6.0, 5.0, 2.0, 4.0, 3.0]
for reader_name, stress_components, named in [("XDMFReader", full, True), ("Xdmf3ReaderS", tensor6, False),
                                              ("Xdmf3ReaderT", tensor6, False)]:
    make = getattr(simple, reader_name)
    try:
        reader = make(FileName=xmf)
    except AttributeError:
        reader = make(FileNames=[xmf])
    expect(time_values(reader) == times, f"{reader_name}: times {time_values(reader)}, not {times}")
    for t in times:
        reader.UpdatePipeline(t)
        found = blocks(sm.Fetch(reader))
        label = f"{reader_name} at {t} s"
        expect(len(found) == 2, f"{label}: {len(found)} blocks, not 2 (fluid, wall)")
        # The XDMF 2 reader names the blocks by group at every time; the Xdmf3 readers leave
        # the blocks of a spatial collection unnamed (their order is the groups' order).
        if named:
            expect([n for n, _ in found] == ["fluid", "wall"], f"{label}: block names {[n for n, _ in found]}")
        for k, (_, ds) in enumerate(found):
            check_grid(f"{label}, block {k}", ds, stress_components)
    simple.Delete(reader)

reader = simple.OpenDataFile(series)
expect(time_values(reader) == times, f"{series}: times {time_values(reader)}, not {times}")
reader.UpdatePipeline(times[-1])
data = sm.Fetch(reader)
expect(data.GetNumberOfPoints() == 3, f"{series}: {data.GetNumberOfPoints()} points")

reader = simple.CSVReader(FileName=[csv])
reader.UpdatePipeline()
table = dsa.WrapDataObject(sm.Fetch(reader))
columns = list(table.RowData.keys())
expect(columns[:3] == ["position_x", "position_y", "position_z"] and "id" in columns and "temperature" in columns,
       f"{csv}: ParaView's CSV reader sees the columns {columns}")
if "density" in columns:
    expect(list(table.RowData["density"]) == [1000.25, 999.125, 1001.0], f"{csv}: density {list(table.RowData['density'])}")

for e in errors:
    print("FAIL " + e)
print(f"paraview: {len(errors)} errors")
sys.exit(1 if errors else 0)
