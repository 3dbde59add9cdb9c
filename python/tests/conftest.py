import pathlib
import sys

VECTORS = pathlib.Path(__file__).resolve().parents[2] / "vectors"
sys.setrecursionlimit(10000)

from hypothesis import settings  # noqa: E402

# No example database in the working tree; CI runs stay reproducible.
settings.register_profile("xbf", database=None, print_blob=True)
settings.load_profile("xbf")
