"""Reading puzzle files with clear errors; writing files safely (never a half-written file)."""

from __future__ import annotations

import codecs
import os
import re
import socket
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from .errors import OutputFileError, PuzzleFormatError


#: The file name that means the standard input, as for most command-line tools.
STDIN = "-"


def source_name(path: str | Path) -> str:
    """How messages name a puzzle file: its path, or ``<stdin>`` for ``-``."""
    return "<stdin>" if str(path) == STDIN else str(path)


def read_text(path: str | Path) -> str:
    """The text of a puzzle file (see :func:`decode_text`), or of the
    standard input for ``-``; a missing or unreadable file is a
    :class:`PuzzleFormatError` naming it."""
    if str(path) == STDIN:
        return decode_text(sys.stdin.buffer.read())
    try:
        return decode_text(Path(path).read_bytes())
    except FileNotFoundError:
        raise PuzzleFormatError("no such file", str(path)) from None
    except IsADirectoryError:
        raise PuzzleFormatError("is a folder, not a puzzle file", str(path)) from None
    except OSError as exc:
        raise PuzzleFormatError(f"cannot read the file: {exc.strerror or exc}",
                                str(path)) from None


def decode_text(data: bytes) -> str:
    """The text of a puzzle file's bytes: UTF-16 when it starts with that
    byte-order mark (Windows editors save "Unicode" so), else UTF-8 (a
    leading byte-order mark dropped), else Windows-1252, the encoding of
    many older level collections, so that their titles and authors read
    right.  Bytes an encoding does not define become U+FFFD; in a board,
    that character or any other outside the legend is an error the parsers
    name with its line and column."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", errors="replace")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


#: A temporary file of ours: ``.NAME.HOST-PID.RANDOM.tmp``.
_TEMP = re.compile(r"^\.(?P<name>.+)\.(?P<host>[^.]*)-(?P<pid>\d+)\.[A-Za-z0-9_]+\.tmp$")
#: A temporary file whose writer cannot be told apart is stale after this long.
STALE_SECONDS = 3600


@contextmanager
def replacing(path: str | Path):
    """Yield a temporary path beside ``path``; when the block ends without
    an error, rename it over ``path`` (an atomic step: readers see the old
    file or the new one, never half of it); on an error, remove it.

    The temporary name carries this host and process id, so that leftovers
    of a writer that was killed are removed by the next write in the same
    folder (:func:`remove_stale_temporaries`).
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_temporaries(path.parent)
        host = socket.gethostname().replace(".", "_").replace("-", "_")
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{host}-{os.getpid()}.",
                                   suffix=".tmp", dir=path.parent)
        os.close(fd)
        os.chmod(tmp, 0o644)  # mkstemp makes it private; these are ordinary user files
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if isinstance(exc, (FileExistsError, NotADirectoryError)):
            reason = "a file stands where the folder should be"
        raise OutputFileError(f"{path}: cannot write in the folder {path.parent}: "
                              f"{reason}") from None
    try:
        yield Path(tmp)
        try:
            os.replace(tmp, path)
        except OSError as exc:
            raise OutputFileError(f"{path}: cannot write it: {exc.strerror or exc}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def remove_stale_temporaries(folder: str | Path) -> list[Path]:
    """Remove the temporary files a killed writer left in ``folder``: ours
    whose process (on this host) is gone, and any ``.*.tmp`` older than
    :data:`STALE_SECONDS`; returns what was removed."""
    removed = []
    host = socket.gethostname().replace(".", "_").replace("-", "_")
    try:
        entries = list(Path(folder).glob(".*.tmp"))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        match = _TEMP.match(entry.name)
        try:
            if match and match["host"] == host:
                stale = not _process_alive(int(match["pid"]))
            else:
                stale = now - entry.stat().st_mtime > STALE_SECONDS
            if stale:
                entry.unlink()
                removed.append(entry)
        except OSError:
            continue  # gone already, or not ours to remove
    return removed


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it."""
    with replacing(path) as tmp:
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) atomically; see :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode("utf-8"))
