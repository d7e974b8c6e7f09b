"""ParaView opens a run as a user would and shows it: the XDMF side file (File > Open picks the
Xdmf3 reader), the VTK series and, where ParaView has its openPMD reader's module, the .pmd
series; each reader's point counts, pressure ranges and position bounds must equal what
particle-info reports for the same frames; the points, coloured by pressure, are saved as PNG
at the first and the last time. Run by pvpython (ParaView's Python) under a display (xvfb-run);
scripts/interop-screenshots.sh runs it.

usage: pvpython paraview_screenshots.py INFO.json OUT_DIR RUN.xmf FLUID.vtk.series RUN.pmd

INFO.json is `particle-info --json` of the run (every group in the XDMF and openPMD files; the
VTK series holds the group fluid). Prints what it checked and "FAIL ..." lines; exits 1 on any.
"""
import json
import os
import sys

from paraview import servermanager as sm
from paraview import simple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paraview_blocks import blocks, time_values  # noqa: E402

info_path, out_dir, xmf, series, pmd = sys.argv[1:6]
with open(info_path) as f:
    info = json.load(f)
frames = info["frames"]
errors = []


def expect(cond, what):
    if not cond:
        errors.append(what)


def close(a, b):
    """Equal up to float's rounding (particle-info prints the float values as doubles)."""
    return abs(a - b) <= 1e-6 * max(abs(a), abs(b), 1e-30)


def column(group, name):
    return next(c for c in group["columns"] if c["name"] == name)


def seconds(frame):
    return frame["time"] * frame["time_unit_si"]


def check_block(label, ds, group):
    """ParaView's dataset `ds` against particle-info's `group`."""
    n = ds.GetNumberOfPoints()
    expect(n == group["count"], f"{label}: {n} points, particle-info {group['count']}")
    # ParaView draws cells, not points: points without vertex cells show nothing.
    expect(ds.GetNumberOfCells() == n, f"{label}: {ds.GetNumberOfCells()} cells for {n} points")
    pressure = ds.GetPointData().GetArray("pressure")
    expect(pressure is not None, f"{label}: no pressure array")
    if pressure is not None and n:
        low, high = pressure.GetRange(0)
        stats = column(group, "pressure")["stats"][0]
        expect(close(low, stats["min"]) and close(high, stats["max"]),
               f"{label}: pressure {low} to {high} Pa, particle-info {stats['min']} to {stats['max']}")
    if n:
        bounds = ds.GetBounds()
        position = column(group, "position")["stats"]
        for k, axis in enumerate("xyz"):
            expect(close(bounds[2 * k], position[k]["min"]) and close(bounds[2 * k + 1], position[k]["max"]),
                   f"{label}: {axis} from {bounds[2 * k]} to {bounds[2 * k + 1]} m, particle-info "
                   f"{position[k]['min']} to {position[k]['max']}")
    return n


def check_reader(name, reader, groups_of):
    """Every frame's blocks against particle-info; `groups_of(frame)`: the groups the file holds."""
    times = time_values(reader)
    expect(len(times) == len(frames) and all(close(t, seconds(f)) for t, f in zip(times, frames)),
           f"{name}: times {times}, particle-info {[seconds(f) for f in frames]} s")
    for frame in frames:
        t = seconds(frame)
        reader.UpdatePipeline(t)
        found = [ds for _, ds in blocks(sm.Fetch(reader)) if ds is not None]
        groups = groups_of(frame)
        expect(len(found) == len(groups), f"{name} at {t} s: {len(found)} blocks, {len(groups)} groups")
        points = sum(check_block(f"{name} at {t} s, {g['name']}", ds, g) for ds, g in zip(found, groups))
        print(f"{name} at {t:g} s: {len(found)} blocks, {points} points")


pressure_low = min(column(g, "pressure")["stats"][0]["min"] for f in frames for g in f["groups"] if g["count"])
pressure_high = max(column(g, "pressure")["stats"][0]["max"] for f in frames for g in f["groups"] if g["count"])


def screenshot(name, reader, png_stem):
    """The reader's points coloured by pressure at the first and the last time."""
    view = simple.CreateView("RenderView")
    view.ViewSize = [640, 360]
    view.OrientationAxesVisibility = 0
    view.Background = [1, 1, 1]
    if hasattr(view, "UseColorPaletteForBackground"):
        view.UseColorPaletteForBackground = 0
    display = simple.Show(reader, view)
    display.SetRepresentationType("Points")
    display.PointSize = 4
    simple.ColorBy(display, ("POINTS", "pressure"))
    lut = simple.GetColorTransferFunction("pressure")
    lut.ApplyPreset("Viridis (matplotlib)", True)
    lut.RescaleTransferFunction(pressure_low, pressure_high)
    display.SetScalarBarVisibility(view, True)
    bar = simple.GetScalarBar(lut, view)
    bar.Title = "pressure (Pa)"
    bar.ComponentTitle = ""
    bar.TitleColor = bar.LabelColor = [0, 0, 0]
    view.ViewTime = seconds(frames[-1])
    simple.ResetCamera(view)
    camera = view.GetActiveCamera()
    camera.Azimuth(-30)
    camera.Elevation(25)
    simple.ResetCamera(view)
    for label, frame in [("first", frames[0]), ("last", frames[-1])]:
        view.ViewTime = seconds(frame)
        path = os.path.join(out_dir, f"{png_stem}-{label}.png")
        simple.SaveScreenshot(path, view, ImageResolution=[640, 360])
        print(f"{name}: wrote {path} ({seconds(frame):g} s)")
    simple.Delete(view)


# The XDMF side file in the reader File > Open picks (Xdmf3ReaderS), every group a block.
xdmf = simple.OpenDataFile(xmf)
check_reader("XDMF (" + xdmf.GetXMLName() + ")", xdmf, lambda frame: frame["groups"])
screenshot("XDMF", xdmf, "paraview-xdmf")

vtk = simple.OpenDataFile(series)
check_reader("VTK series", vtk, lambda frame: [g for g in frame["groups"] if g["name"] == "fluid"])
screenshot("VTK series", vtk, "paraview-vtk")

# ParaView's openPMD reader is Python, on the openpmd_api module (pip install openpmd-api;
# Debian and Ubuntu package none).
try:
    import openpmd_api  # noqa: F401
except ImportError:
    print(f"openPMD ({pmd}): not opened: ParaView's openPMD reader needs the Python module openpmd_api, "
          "which is not installed (pip install openpmd-api)")
else:
    # (Not run here: its block layout is the reader's own, so only the totals are compared.)
    pmd_reader = simple.OpenDataFile(pmd)
    for frame in frames:
        pmd_reader.UpdatePipeline(seconds(frame))
        points = sum(ds.GetNumberOfPoints() for _, ds in blocks(sm.Fetch(pmd_reader)) if ds is not None)
        expected = sum(g["count"] for g in frame["groups"])
        expect(points == expected, f"openPMD at {seconds(frame)} s: {points} points, particle-info {expected}")
        print(f"openPMD at {seconds(frame):g} s: {points} points")

for e in errors:
    print("FAIL " + e)
print(f"paraview: {len(errors)} errors")
sys.exit(1 if errors else 0)
