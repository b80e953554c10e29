"""The ``compare`` user flow as a script: ``python scripts/compare.py ARGS`` is
``pdbsearch compare ARGS`` (see ``pdbsearch compare --help``)."""

import sys

from pdbsearch.cli import main

if __name__ == "__main__":
    sys.exit(main(["compare", *sys.argv[1:]]))
