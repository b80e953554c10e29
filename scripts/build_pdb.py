"""The ``build`` user flow as a script: ``python scripts/build_pdb.py ARGS`` is
``pdbsearch build ARGS`` (see ``pdbsearch build --help``)."""

import sys

from pdbsearch.cli import main

if __name__ == "__main__":
    sys.exit(main(["build", *sys.argv[1:]]))
