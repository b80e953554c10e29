"""Where numba keeps compiled kernels between runs.

numba's own cache checks only the timestamp of the file a function lives
in; the search engines are compiled together with a domain's kernels, which
live in other files, so editing a kernel would leave a stale engine in the
cache.  Keying the cache folder by a hash of every source file of the
package avoids that: any edit starts a fresh folder.  A user-set
``NUMBA_CACHE_DIR`` is respected (a subfolder with the same key is used).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def source_fingerprint() -> str:
    """A short hash of every Python source file of the package."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_root() -> Path:
    """The folder holding pdbsearch's numba caches."""
    base = os.environ.get("NUMBA_CACHE_DIR")
    if base:
        return Path(base) / "pdbsearch"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "pdbsearch" / "numba"


def configure_jit_cache(version: str) -> Path | None:
    """Point numba's cache at a folder keyed by version and source hash.

    Must run before any jitted function of the package is defined.
    Returns the folder, or None when it cannot be created (numba then
    falls back to its default locations).
    """
    import numba

    folder = cache_root() / f"{version}-{source_fingerprint()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    numba.config.CACHE_DIR = str(folder)
    return folder
