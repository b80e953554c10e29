"""The ``solve`` user flow as a script: ``python scripts/solve.py ARGS`` is
``pdbsearch solve ARGS`` (see ``pdbsearch solve --help``)."""

import sys

from pdbsearch.cli import main

if __name__ == "__main__":
    sys.exit(main(["solve", *sys.argv[1:]]))
