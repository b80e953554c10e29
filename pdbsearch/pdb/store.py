"""The HDF5 store of pattern databases.

A file holds one dataset, ``distances`` (uint8, one byte per entry), and
attributes saying exactly what it is for: ``format_version``, ``domain``,
``abstraction``, ``parameters`` (JSON: board size, exit, empty cells ...),
``fingerprint`` (a hash of the parameters), ``metric``, ``entries``,
``maximum``, ``histogram`` (entries per value, 255 = unreachable),
``build_seconds``, ``package_version`` and ``sha256`` of the data.

Files are written to a temporary file beside the target and renamed, so a
crash never leaves a half-written database.  Loading checks the attributes
against what the caller expects and verifies the checksum.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import PdbFileError

FORMAT_VERSION = 1


@dataclass
class PdbInfo:
    """What a built table holds (what ``pdbsearch build`` reports)."""

    path: Path
    description: str                  #: what the table encodes
    entries: int
    maximum: int                      #: largest finite value
    unreachable: int                  #: entries whose abstract state cannot reach a goal
    seconds: float                    #: build time (compile excluded)
    compile_seconds: float = 0.0
    histogram: list[int] = field(default_factory=list, repr=False)  #: entries per value 0..255

    @classmethod
    def of(cls, path: str | Path, table: np.ndarray, description: str, seconds: float,
           compile_seconds: float = 0.0) -> "PdbInfo":
        """The figures of ``table``, saved at ``path``."""
        hist = histogram(table)
        finite = np.flatnonzero(hist[:255])
        return cls(Path(path), description, int(table.shape[0]),
                   int(finite[-1]) if finite.size else 0, int(hist[255]), seconds,
                   compile_seconds, [int(v) for v in hist])


@dataclass(frozen=True)
class PdbSpec:
    """What a table is for; files are found and checked by it."""

    domain: str
    abstraction: str
    metric: str
    parameters: dict[str, Any]

    @property
    def fingerprint(self) -> str:
        """A short hash of everything the table depends on."""
        text = json.dumps([self.domain, self.abstraction, self.metric, self.parameters],
                          sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def checksum(table: np.ndarray) -> str:
    """SHA-256 of the table's bytes."""
    return hashlib.sha256(np.ascontiguousarray(table).tobytes()).hexdigest()


def histogram(table: np.ndarray) -> np.ndarray:
    """Entries per value 0..255."""
    return np.bincount(table, minlength=256).astype(np.int64)


def save_pdb(path: str | Path, table: np.ndarray, spec: PdbSpec, build_seconds: float) -> None:
    """Write ``table`` and its metadata atomically to ``path``."""
    import h5py

    from .. import __version__

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    os.chmod(tmp, 0o644)  # mkstemp makes it private; a database is not a secret
    try:
        with h5py.File(tmp, "w") as f:
            f.create_dataset("distances", data=table, dtype=np.uint8)
            reachable = table[table != 255]
            attrs = {
                "format_version": FORMAT_VERSION,
                "domain": spec.domain,
                "abstraction": spec.abstraction,
                "metric": spec.metric,
                "parameters": json.dumps(spec.parameters, sort_keys=True),
                "fingerprint": spec.fingerprint,
                "entries": int(table.shape[0]),
                "maximum": int(reachable.max()) if reachable.size else 0,
                "histogram": histogram(table),
                "build_seconds": float(build_seconds),
                "package_version": __version__,
                "sha256": checksum(table),
            }
            for name, value in attrs.items():
                f.attrs[name] = value
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_attributes(path: str | Path) -> dict[str, Any]:
    """The metadata of a PDB file (PdbFileError when it is not one)."""
    import h5py

    try:
        with h5py.File(path, "r") as f:
            attrs = {k: (v.item() if hasattr(v, "item") and np.ndim(v) == 0 else v)
                     for k, v in f.attrs.items()}
            if "distances" not in f:
                raise PdbFileError(f"{path}: not a pdbsearch PDB (no 'distances' dataset)")
    except FileNotFoundError:
        raise PdbFileError(f"{path}: no such PDB file") from None
    except OSError as exc:
        raise PdbFileError(f"{path}: not a readable HDF5 file ({exc})") from None
    for k, v in attrs.items():
        if isinstance(v, bytes):
            attrs[k] = v.decode()
    return attrs


def load_pdb(path: str | Path, expected: PdbSpec) -> tuple[np.ndarray, dict[str, Any]]:
    """Load a table, refusing a file made for something else or corrupted."""
    import h5py

    attrs = read_attributes(path)
    if attrs.get("format_version") != FORMAT_VERSION:
        raise PdbFileError(f"{path}: format version {attrs.get('format_version')}, "
                           f"this program reads {FORMAT_VERSION}; rebuild it")
    for name in ("domain", "abstraction", "metric"):
        if attrs.get(name) != getattr(expected, name):
            raise PdbFileError(f"{path}: made for {name} {attrs.get(name)!r}, "
                               f"not {getattr(expected, name)!r}")
    params = json.loads(attrs.get("parameters", "{}"))
    wanted = json.loads(json.dumps(expected.parameters))
    if params != wanted:
        # name only what differs: a level fingerprint among ten fields is easy to miss
        keys = [k for k in [*wanted, *(k for k in params if k not in wanted)]
                if params.get(k) != wanted.get(k)]
        made = ", ".join(f"{k} {params.get(k)!r}" for k in keys)
        need = ", ".join(f"{k} {wanted.get(k)!r}" for k in keys)
        raise PdbFileError(f"{path}: made for {made}, not for {need}")
    try:
        with h5py.File(path, "r") as f:
            table = np.asarray(f["distances"][...], dtype=np.uint8)
    except OSError as exc:
        raise PdbFileError(f"{path}: the data cannot be read ({exc}); rebuild it") from None
    if table.shape[0] != attrs.get("entries") or checksum(table) != attrs.get("sha256"):
        raise PdbFileError(f"{path}: the data do not match their checksum; the file is "
                           f"corrupt, rebuild it")
    return table, attrs


def default_db_dir() -> Path:
    """``$PDBSEARCH_DB_DIR``, else ``databases/`` in the current folder."""
    env = os.environ.get("PDBSEARCH_DB_DIR")
    return Path(env) if env else Path("databases")


def log_to_stderr(message: str) -> None:
    """The default logger of :func:`find_or_build`."""
    print(message, file=sys.stderr)


def find_or_build(spec: PdbSpec, filename: str,
                  build: Callable[[], tuple[np.ndarray, float]],
                  db_dir: str | Path | None = None, pdb_path: str | Path | None = None,
                  log: Callable[[str], None] | None = log_to_stderr,
                  what: str = "PDB") -> np.ndarray:
    """The table of ``spec``: from ``pdb_path`` if given (refused if it does
    not match), else ``filename`` in the database folder (``db_dir``, else
    :func:`default_db_dir`), else made by ``build() -> (table, seconds)``
    and saved there.  A file there that does not match is rebuilt.
    ``log`` (None: silent) hears what is built; ``what`` names the table.
    """
    say = log or (lambda message: None)
    if pdb_path is not None:
        table, _ = load_pdb(pdb_path, spec)
        return table
    folder = Path(db_dir) if db_dir is not None else default_db_dir()
    path = folder / filename
    if path.exists():
        try:
            table, _ = load_pdb(path, spec)
            return table
        except PdbFileError as exc:
            say(f"pdbsearch: {exc}; rebuilding it")
    say(f"pdbsearch: building the {what} {path} ...")
    table, seconds = build()
    save_pdb(path, table, spec, seconds)
    say(f"pdbsearch: built {path}: {table.shape[0]:,} entries in {seconds:.2f} s")
    return table
