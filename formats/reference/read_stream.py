#!/usr/bin/python3
"""The stream reader's command line from the source tree (installed: python3 -m partikel):
the package partikel beside this file, written from formats/SPEC.md alone."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from partikel.stream import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv))
