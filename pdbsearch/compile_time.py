"""A process-wide tally of the seconds spent compiling kernels while the
tables a search needs are built.

A time limit covers work, not numba compiling (or loading from its cache):
the search driver times its own kernels apart, and the PDB builder notes
here what its first call compiled, so that :func:`pdbsearch.search.solve`
can leave that out of the time the tables took.  A caller subtracts two
readings of :func:`compile_seconds_spent` taken around the work.
"""

from __future__ import annotations

_tally = {"seconds": 0.0}


def note_compile_seconds(seconds: float) -> None:
    """Add ``seconds`` of compiling to the tally."""
    _tally["seconds"] += seconds


def compile_seconds_spent() -> float:
    """Seconds of compiling noted so far in this process."""
    return _tally["seconds"]
