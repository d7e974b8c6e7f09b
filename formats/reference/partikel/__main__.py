"""python3 -m partikel FILE [--frame K] [--dump]: a summary of a stream's frames (partikel.stream)."""
import sys

from .stream import main

sys.exit(main(sys.argv))
