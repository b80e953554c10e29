"""Messages between processes of a batch: a length, then a pickle.

The local runner and its job workers (:mod:`.child`), and a Dask worker and
its fork server (:mod:`.forkserver`), talk through pipes one message at a
time in this framing.
"""

from __future__ import annotations

import os
import pickle
import struct

#: The length of the message that follows.
HEADER = struct.Struct("<Q")


def frame(obj) -> bytes:
    """``obj`` pickled, behind its length.  What pickle cannot send (a job
    that a fork server got from Dask by value: a function of a script's
    ``__main__``, which exists nowhere by name) goes by cloudpickle when it
    is installed (Dask brings it); ``pickle.loads`` reads both."""
    try:
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        try:
            import cloudpickle
        except ImportError:
            raise
        data = cloudpickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(data)) + data


def write_all(fd: int, data: bytes) -> None:
    """Write all of ``data`` to the (blocking) descriptor ``fd``."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def send(fd: int, obj) -> None:
    """Write one message (any picklable object) to ``fd``."""
    write_all(fd, frame(obj))


def receive(fd: int):
    """Read one message from ``fd``; None at the end of the file."""
    header = read_exactly(fd, HEADER.size)
    if header is None:
        return None
    data = read_exactly(fd, HEADER.unpack(header)[0])
    return None if data is None else pickle.loads(data)


def complete_message(data: bytearray) -> bytes | None:
    """The pickle of the first message in ``data`` once all of it is there
    (None before): for a reader that gathers a pipe without blocking."""
    if len(data) < HEADER.size:
        return None
    end = HEADER.size + HEADER.unpack_from(data)[0]
    return bytes(data[HEADER.size:end]) if len(data) >= end else None


def read_exactly(fd: int, size: int) -> bytes | None:
    """``size`` bytes from ``fd``; None when the file ends first."""
    parts = bytearray()
    while len(parts) < size:
        try:
            chunk = os.read(fd, min(size - len(parts), 1 << 20))
        except InterruptedError:
            continue
        if not chunk:
            return None
        parts += chunk
    return bytes(parts)
