"""Ctrl-C routing shared by the command line, the search driver, the PDB
builder and the level runner.

A KeyboardInterrupt raised inside a ctypes callback is *lost*: Python prints
it as an "ignored" exception and goes on.  numba runs Python in such
callbacks (llvmlite's object cache, while it compiles or loads a cached
kernel), so a Ctrl-C landing there would be forgotten and the command would
run to its end.  A handler that raises therefore first records the request
in a process-wide *note* (:func:`note_interrupt`); the long-running loops
(the search driver, the PDB builder) take it between steps
(:func:`take_interrupt_note`), so that it stops them once, and a later
search in the same process starts afresh.
"""

from __future__ import annotations

import signal
import sys
import threading
from contextlib import contextmanager
from typing import Callable

_note = {"requested": False}


def note_interrupt() -> None:
    """Record that Ctrl-C came (called by the SIGINT handlers that raise)."""
    _note["requested"] = True


def interrupt_noted() -> bool:
    """True when Ctrl-C came since the last :func:`clear_interrupt_note`."""
    return _note["requested"]


def clear_interrupt_note() -> None:
    """Forget an earlier Ctrl-C (a new command starts)."""
    _note["requested"] = False


def take_interrupt_note() -> bool:
    """True (once) when Ctrl-C was noted: the caller acts on it."""
    noted = _note["requested"]
    _note["requested"] = False
    return noted


@contextmanager
def sigint_handler(handler: Callable):
    """Route SIGINT to ``handler(signum, frame)`` inside the block, then
    restore the previous handler.  Only the main thread may set signal
    handlers; in any other thread the block runs with SIGINT unchanged."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def quiet_lost_interrupts():
    """Inside the block, a KeyboardInterrupt that Python cannot raise (in a
    ctypes callback) is not printed as an "ignored exception" traceback: it
    was noted, and the command stops at its next check.  Other unraisable
    exceptions go to the previous hook."""
    previous = sys.unraisablehook

    def hook(unraisable):
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            note_interrupt()
            return
        previous(unraisable)

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = previous
