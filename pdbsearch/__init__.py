"""pdbsearch: sliding-block puzzles and Sokoban solved with pattern databases
and heuristic search (A*, weighted A*, IDA*, BFS) in numba."""

__version__ = "0.1.0"
