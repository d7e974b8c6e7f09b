"""What ParaView's readers give, for the scripts run by pvpython (ParaView's Python):
tests/cli/particle-convert/check_paraview.py and scripts/interop/paraview_screenshots.py."""


def blocks(data):
    """(name, dataset) of every leaf of a composite dataset, or the dataset itself."""
    if not data.IsA("vtkCompositeDataSet"):
        return [(None, data)]
    out = []
    it = data.NewIterator()
    it.InitTraversal()
    while not it.IsDoneWithTraversal():
        meta = it.GetCurrentMetaData()
        name = meta.Get(data.NAME()) if meta.Has(data.NAME()) else None
        out.append((name, it.GetCurrentDataObject()))
        it.GoToNextItem()
    return out


def time_values(reader):
    """The times a reader offers, as a list (ParaView gives a scalar for one time)."""
    tv = reader.TimestepValues
    return list(tv) if hasattr(tv, "__len__") else [tv]
