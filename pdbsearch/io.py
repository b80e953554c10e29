"""Reading puzzle files with clear errors; writing files safely (never a half-written file)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import PuzzleFormatError


def read_text(path: str | Path) -> str:
    """The text of a puzzle file (UTF-8; undecodable bytes become U+FFFD,
    which the parsers then name); a missing or unreadable file is a
    :class:`PuzzleFormatError` naming it."""
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        raise PuzzleFormatError("no such file", str(path)) from None
    except IsADirectoryError:
        raise PuzzleFormatError("is a folder, not a puzzle file", str(path)) from None
    except OSError as exc:
        raise PuzzleFormatError(f"cannot read the file: {exc.strerror or exc}",
                                str(path)) from None


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.chmod(tmp, 0o644)  # mkstemp makes it private; these are ordinary user files
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) atomically; see :func:`atomic_write_bytes`."""
    atomic_write_bytes(path, text.encode("utf-8"))
