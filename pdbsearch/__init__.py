"""pdbsearch: sliding-block puzzles and Sokoban solved with pattern databases
and heuristic search (A*, weighted A*, IDA*, BFS) in numba."""

import warnings

from numba.core.errors import NumbaIRAssumptionWarning

from ._jit_cache import configure_jit_cache

# Inlining the domain kernels into the engines makes numba's internal
# pedantic SSA check complain about variables it renamed; the code is fine.
warnings.filterwarnings("ignore", category=NumbaIRAssumptionWarning)

__version__ = "0.1.0"

configure_jit_cache(__version__)
