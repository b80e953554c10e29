"""A process-wide tally of the seconds spent compiling kernels.

A time limit covers work, not numba compiling (or loading from its cache).
Every compile numba makes is added here as it ends (a listener on numba's
``numba:compile`` event, outermost compiles only: a kernel compiled while
another is counts once), and the PDB builder adds what its first call
spent loading its kernels from the cache.  A caller subtracts two
readings of :func:`compile_seconds_spent` taken around the work: the
driver around the search, :func:`pdbsearch.search.solve` around the
tables' set-up, the pattern tables around each build.

The event comes only when numba compiles, not when it loads from its
cache: the first one of a command also tells the command's note
(:func:`pdbsearch._jit_cache.set_compile_notice`).

Before the listener only the builder's first call was counted, and on a
fresh install the other kernels of the set-up (about 6 s of compiling on
Microban 1) took a whole 2 s limit: ``solve --algo fess-only --time-limit
2`` stopped at its limit with nothing expanded.
"""

from __future__ import annotations

import threading
import time

from numba.core import event

from ._jit_cache import take_compile_notice

_tally = {"seconds": 0.0}
_lock = threading.Lock()


def note_compile_seconds(seconds: float) -> None:
    """Add ``seconds`` of compiling to the tally."""
    with _lock:
        _tally["seconds"] += seconds


class _CompileListener(event.Listener):
    """Adds each outermost compile's seconds to the tally (the nesting
    counted per thread: a portfolio's helper threads may compile too)."""

    def __init__(self):
        self._local = threading.local()

    def on_start(self, ev):
        local = self._local
        depth = getattr(local, "depth", 0)
        if depth == 0:
            take_compile_notice()
            local.started = time.perf_counter()
        local.depth = depth + 1

    def on_end(self, ev):
        local = self._local
        local.depth -= 1
        if local.depth == 0:
            note_compile_seconds(time.perf_counter() - local.started)


_listener = {"on": False}


def listen_for_compiles() -> None:
    """Register the listener (once; importing this module does it): the
    base of every domain calls it, so that a compile is tallied and told
    whichever kernel comes first."""
    with _lock:
        if not _listener["on"]:
            event.register("numba:compile", _CompileListener())
            _listener["on"] = True


listen_for_compiles()


def compile_seconds_spent() -> float:
    """Seconds of compiling noted so far in this process."""
    return _tally["seconds"]
