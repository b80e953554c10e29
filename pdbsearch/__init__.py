"""pdbsearch: sliding-block puzzles and Sokoban solved with pattern databases
and heuristic search (A*, weighted A*, IDA*, BFS) in numba.

    >>> import pdbsearch
    >>> puzzle = pdbsearch.load()              # the classic Hakoiri board
    >>> result = pdbsearch.solve(puzzle)        # A* with the relaxed-problem PDB
    >>> result.cost, result.optimal
    (90, True)

The API (:func:`load`, :func:`solve`, :func:`compare`, :func:`build_pdb`,
:func:`animate`, :func:`show`, :func:`pdb_info`) is documented in
``docs/api.md``.  Importing the package is quick: numba and
the kernels (and Pillow, matplotlib) load on first use.
"""

from ._jit_cache import configure_jit_cache

__version__ = "0.1.0"

# Before any jitted module is imported, so numba's cache goes to our folder.
configure_jit_cache(__version__)

from .api import animate, build_pdb, compare, load, pdb_info, show, solve  # noqa: E402
from .errors import (IllegalMoveError, InternalError, PdbFileError, PdbsearchError,  # noqa: E402
                     PuzzleFormatError)

__all__ = ["IllegalMoveError", "InternalError", "PdbFileError", "PdbsearchError",
           "PuzzleFormatError", "__version__", "animate", "build_pdb", "compare", "load",
           "pdb_info", "show", "solve"]
