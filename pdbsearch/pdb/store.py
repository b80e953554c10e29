"""The HDF5 store of pattern databases.

A file holds one dataset, ``distances`` (uint8, one byte per entry), and
attributes saying exactly what it is for: ``format_version``, ``domain``,
``abstraction``, ``parameters`` (JSON: board size, exit, empty cells ...),
``fingerprint`` (a hash of the parameters), ``metric``, ``entries``,
``maximum``, ``histogram`` (entries per value, 255 = unreachable),
``build_seconds``, ``package_version`` and ``sha256`` of the data.

The file's first 512 bytes are HDF5's *user block*, which the library
skips: pdbsearch writes there a seal, the SHA-256 of the rest of the file.
The seal is checked before the HDF5 library reads a byte, because a damaged
HDF5 file can send the library into an endless loop (seen in fuzzing:
``H5HG__cache_heap_deserialize``), not only into an error.

Files are written to a temporary file beside the target and renamed, so a
crash never leaves a half-written database.  Loading checks the seal, then
the attributes against what the caller expects, the data's checksum, and
every figure that can be recomputed.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..errors import PdbFileError

FORMAT_VERSION = 2
#: Bytes before the HDF5 data (the user block holding the seal).
USER_BLOCK = 512
#: How the seal starts; the SHA-256 of the bytes after the user block follows.
SEAL_MAGIC = b"pdbsearch PDB sha256 "
#: The value of an entry whose abstract state cannot reach a goal.
UNREACHABLE = 255


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
    from ..io import replacing

    finite = table[table != UNREACHABLE]
    attrs = {
        "format_version": FORMAT_VERSION,
        "domain": spec.domain,
        "abstraction": spec.abstraction,
        "metric": spec.metric,
        "parameters": json.dumps(spec.parameters, sort_keys=True),
        "fingerprint": spec.fingerprint,
        "entries": int(table.shape[0]),
        "maximum": int(finite.max()) if finite.size else 0,
        "histogram": histogram(table),
        "build_seconds": float(build_seconds),
        "package_version": __version__,
        "sha256": checksum(table),
    }
    with replacing(path) as tmp:
        with h5py.File(tmp, "w", userblock_size=USER_BLOCK) as f:
            f.create_dataset("distances", data=table, dtype=np.uint8)
            for name, value in attrs.items():
                f.attrs[name] = value
        seal(tmp)


def _file_digest(path: Path) -> str:
    """SHA-256 of the file's bytes after the user block."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        f.seek(USER_BLOCK)
        while chunk := f.read(1 << 22):
            digest.update(chunk)
    return digest.hexdigest()


def seal(path: str | Path) -> None:
    """Write the seal of a PDB file written with the user block (see the
    module doc); after an edit by other tools, sealing again makes the file
    loadable, and the loader's other checks then judge the edit."""
    path = Path(path)
    header = SEAL_MAGIC + _file_digest(path).encode() + b"\n"
    with open(path, "r+b") as f:
        f.write(header.ljust(USER_BLOCK, b"\0"))


#: The states of a file's seal (see :func:`seal_state`).
SEAL_MATCHING, SEAL_MISMATCH, SEAL_MISSING = "matching", "mismatch", "missing"


def seal_state(path: str | Path) -> str:
    """Whether ``path`` carries a seal that matches its contents
    (:data:`SEAL_MATCHING`), one that does not (:data:`SEAL_MISMATCH`:
    damaged or edited), or none (:data:`SEAL_MISSING`: not a PDB of this
    format); a file that cannot be read raises :class:`PdbFileError`."""
    path = Path(path)
    try:
        with open(path, "rb") as f:
            header = f.read(USER_BLOCK)
    except FileNotFoundError:
        raise PdbFileError(f"{path}: no such PDB file") from None
    except IsADirectoryError:
        raise PdbFileError(f"{path}: is a folder, not a PDB file") from None
    except OSError as exc:
        raise PdbFileError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if not header.startswith(SEAL_MAGIC):
        return SEAL_MISSING
    stored = header[len(SEAL_MAGIC):len(SEAL_MAGIC) + 64]
    if len(header) < USER_BLOCK or stored != _file_digest(path).encode():
        return SEAL_MISMATCH
    return SEAL_MATCHING


def check_seal(path: Path) -> None:
    """Raise :class:`PdbFileError` unless ``path`` carries a seal that
    matches its contents."""
    state = seal_state(path)
    if state == SEAL_MISSING:
        raise PdbFileError(f"{path}: not a pdbsearch PDB of format {FORMAT_VERSION} (no seal; "
                           f"an older version or another program made it); rebuild it")
    if state == SEAL_MISMATCH:
        raise PdbFileError(f"{path}: the file does not match its seal; it is damaged or "
                           f"was edited, rebuild it")


#: The attributes a file must have, and their kinds.
_ATTRIBUTE_KINDS = {"format_version": int, "domain": str, "abstraction": str, "metric": str,
                    "parameters": str, "fingerprint": str, "entries": int, "maximum": int,
                    "histogram": np.ndarray, "sha256": str}


def read_attributes(path: str | Path) -> dict[str, Any]:
    """The metadata of a PDB file, each of the kind it must be; any file
    that is not a readable pdbsearch PDB raises :class:`PdbFileError`."""
    import h5py

    path = Path(path)
    check_seal(path)
    try:
        with h5py.File(path, "r") as f:
            raw = dict(f.attrs.items())
            node = f.get("distances")
            if not isinstance(node, h5py.Dataset):
                raise PdbFileError(f"{path}: not a pdbsearch PDB (no 'distances' dataset)")
            shape, dtype = node.shape, node.dtype
    except PdbFileError:
        raise
    except FileNotFoundError:
        raise PdbFileError(f"{path}: no such PDB file") from None
    except IsADirectoryError:
        raise PdbFileError(f"{path}: is a folder, not a PDB file") from None
    except Exception as exc:  # h5py raises OSError, RuntimeError, KeyError ... on damage
        raise PdbFileError(f"{path}: not a readable HDF5 PDB file ({exc})") from None
    attrs: dict[str, Any] = {}
    for name, kind in _ATTRIBUTE_KINDS.items():
        if name not in raw:
            raise PdbFileError(f"{path}: the attribute {name!r} is missing; rebuild the file")
        attrs[name] = _attribute(path, name, raw[name], kind)
    for name in ("build_seconds", "package_version"):
        if name in raw:
            attrs[name] = raw[name].item() if np.ndim(raw[name]) == 0 and hasattr(
                raw[name], "item") else raw[name]
    if len(shape) != 1 or dtype != np.uint8:
        raise PdbFileError(f"{path}: 'distances' is {dtype} of shape {shape}, not one byte "
                           f"per entry in one row; rebuild the file")
    attrs["shape"] = shape
    return attrs


def _attribute(path: Path, name: str, value: Any, kind: type) -> Any:
    """``value`` as ``kind``, or PdbFileError naming the attribute."""
    if kind is np.ndarray:
        if isinstance(value, np.ndarray) and value.ndim == 1 and value.shape[0] == 256 \
                and np.issubdtype(value.dtype, np.integer):
            return value.astype(np.int64)
    elif kind is int:
        if np.ndim(value) == 0 and isinstance(value, (int, np.integer)) and not isinstance(
                value, bool):
            return int(value)
    elif kind is str:
        if isinstance(value, bytes):
            try:
                value = value.decode()
            except UnicodeDecodeError:
                pass
        if isinstance(value, str):
            return value
    raise PdbFileError(f"{path}: the attribute {name!r} is not a valid {kind.__name__} "
                       f"({_short(value)}); rebuild the file")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "..."


def load_pdb(path: str | Path, expected: PdbSpec,
             verify: Callable[[np.ndarray], str | None] | None = None
             ) -> tuple[np.ndarray, dict[str, Any]]:
    """Load a table, refusing (:class:`PdbFileError`) a file made for
    something else, damaged, or edited.

    Every attribute that can be recomputed is: the entries, the checksum,
    the maximum, the histogram and the fingerprint of the parameters.
    ``verify(table)`` may add a check of the values themselves (the domain's
    sampled consistency test); it returns what is wrong, or None.
    """
    import h5py

    attrs = read_attributes(path)
    if attrs["format_version"] != FORMAT_VERSION:
        raise PdbFileError(f"{path}: format version {attrs['format_version']}, "
                           f"this program reads {FORMAT_VERSION}; rebuild it")
    for name in ("domain", "abstraction", "metric"):
        if attrs[name] != getattr(expected, name):
            raise PdbFileError(f"{path}: made for {name} {attrs[name]!r}, "
                               f"not {getattr(expected, name)!r}")
    try:
        params = json.loads(attrs["parameters"])
    except ValueError:
        params = None
    if not isinstance(params, dict):
        raise PdbFileError(f"{path}: the attribute 'parameters' is not a JSON object; "
                           f"rebuild the file")
    wanted = json.loads(json.dumps(expected.parameters))
    if params != wanted:
        # name only what differs: a level fingerprint among ten fields is easy to miss
        keys = [k for k in [*wanted, *(k for k in params if k not in wanted)]
                if params.get(k) != wanted.get(k)]
        made = ", ".join(f"{k} {params.get(k)!r}" for k in keys)
        need = ", ".join(f"{k} {wanted.get(k)!r}" for k in keys)
        raise PdbFileError(f"{path}: made for {made}, not for {need}")
    if attrs["fingerprint"] != expected.fingerprint:
        raise PdbFileError(f"{path}: its fingerprint does not match its parameters; the "
                           f"file was edited, rebuild it")
    if attrs["shape"][0] != attrs["entries"]:
        raise PdbFileError(f"{path}: {attrs['shape'][0]:,} entries stored, "
                           f"{attrs['entries']:,} declared; rebuild it")
    try:
        with h5py.File(path, "r") as f:
            table = np.asarray(f["distances"][...], dtype=np.uint8)
    except Exception as exc:  # damaged chunks, truncated data
        raise PdbFileError(f"{path}: the data cannot be read ({exc}); rebuild it") from None
    problems = data_problems(attrs, table)
    if problems:
        raise PdbFileError(f"{path}: {problems[0]}, rebuild it")
    problem = verify(table) if verify is not None else None
    if problem:
        raise PdbFileError(f"{path}: {problem}; the file was edited or built wrongly, "
                           f"rebuild it")
    return table, attrs


def data_problems(attrs: dict[str, Any], table: np.ndarray) -> list[str]:
    """What is wrong with ``table`` against the figures stored beside it
    (checksum, histogram, maximum): none for a sound file."""
    problems = []
    if checksum(table) != attrs["sha256"]:
        problems.append("the data do not match their checksum; the file is corrupt")
    hist = histogram(table)
    finite = np.flatnonzero(hist[:UNREACHABLE])
    if not np.array_equal(hist, attrs["histogram"]) or \
            attrs["maximum"] != (int(finite[-1]) if finite.size else 0):
        problems.append("the values do not match the stored histogram and maximum; the "
                        "file was edited")
    return problems


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
                  what: str = "PDB",
                  verify: Callable[[np.ndarray], str | None] | None = None) -> np.ndarray:
    """The table of ``spec``: from ``pdb_path`` if given (refused if it does
    not match), else ``filename`` in the database folder (``db_dir``, else
    :func:`default_db_dir`), else made by ``build() -> (table, seconds)``
    and saved there.  A file there that is refused is moved aside (renamed
    ``NAME.refused-N``, so nothing the user made is lost) and rebuilt.
    ``log`` (None: silent) hears what is built or moved; ``what`` names the
    table; ``verify`` checks the values (see :func:`load_pdb`).
    """
    say = log or (lambda message: None)
    if pdb_path is not None:
        table, _ = load_pdb(pdb_path, spec, verify)
        return table
    folder = Path(db_dir) if db_dir is not None else default_db_dir()
    path = folder / filename
    table = load_or_set_aside(path, spec, verify, say)
    if table is None:
        say(f"pdbsearch: building the {what} {path} ...")
        table, seconds = build()
        save_pdb(path, table, spec, seconds)
        say(f"pdbsearch: built {path}: {table.shape[0]:,} entries in {seconds:.2f} s")
        # Load after write: the table used is the file's, checked as any file
        # is.  Builders racing on one file (Dask workers sharing a folder)
        # each rename a complete file over it, so whichever file is there
        # when this one reads it is whole and valid.
        table, _ = load_pdb(path, spec, verify)
    return table


def load_or_set_aside(path: Path, spec: PdbSpec,
                      verify: Callable[[np.ndarray], str | None] | None,
                      say: Callable[[str], None]) -> np.ndarray | None:
    """The table in ``path`` if the file is there and passes every check;
    None if it is absent, or refused (then it is renamed ``NAME.refused-N``,
    so nothing the user made is lost, and ``say`` hears why)."""
    if not path.exists():
        return None
    try:
        table, _ = load_pdb(path, spec, verify)
        return table
    except PdbFileError as exc:
        aside = _set_aside(path)
        say(f"pdbsearch: {exc}")
        say(f"pdbsearch: moved it to {aside.name}; building a new one")
        return None


def _set_aside(path: Path) -> Path:
    """Rename a refused file to the first free ``NAME.refused-N``."""
    n = 1
    while True:
        aside = path.with_name(f"{path.name}.refused-{n}")
        if not aside.exists():
            try:
                os.replace(path, aside)
            except OSError as exc:
                raise PdbFileError(f"{path}: refused, and it cannot be moved aside "
                                   f"({exc.strerror or exc}); remove it") from None
            return aside
        n += 1
