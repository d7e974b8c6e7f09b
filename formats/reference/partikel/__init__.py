"""Partikel's files from Python: the stream format (.pks) into numpy arrays (partikel.stream).

    import partikel
    frame = partikel.read_frame("run.pks", -1)              # the last frame
    position = frame["groups"]["fluid"]["position"].values  # numpy, shape (N, 3)
"""
from .stream import Column, FormatError, read_frame, read_stream, stream_index

__all__ = ["Column", "FormatError", "read_frame", "read_stream", "stream_index"]
