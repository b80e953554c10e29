"""pdbsearch: sliding-block puzzles and Sokoban solved with pattern databases
and heuristic search (A*, weighted A*, IDA*, BFS) in numba."""

from ._jit_cache import configure_jit_cache

__version__ = "0.1.0"

configure_jit_cache(__version__)
