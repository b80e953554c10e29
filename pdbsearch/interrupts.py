"""Ctrl-C routing shared by the search driver and the level runner."""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Callable


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
