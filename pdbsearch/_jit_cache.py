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
import sys
from pathlib import Path


def source_fingerprint() -> str:
    """A short hash of every Python source file of the package."""
    root = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


#: Where we note the folder we put in NUMBA_CACHE_DIR, so that a process
#: started by one that imported pdbsearch (and inherited its environment)
#: does not take our folder for the user's own setting.
_OURS = "PDBSEARCH_NUMBA_CACHE_DIR"


def _user_cache_dir() -> str | None:
    """The user's own NUMBA_CACHE_DIR, if any (not one we set)."""
    value = os.environ.get("NUMBA_CACHE_DIR")
    if not value or value == os.environ.get(_OURS):
        return None
    return value


def cache_root() -> Path:
    """The folder holding pdbsearch's numba caches."""
    user = _user_cache_dir()
    if user:
        return Path(user) / "pdbsearch"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "pdbsearch" / "numba"


def configure_jit_cache(version: str) -> Path | None:
    """Point numba's cache at a folder keyed by version and source hash.

    Must run before any jitted function of the package is defined.  When
    numba is not imported yet (the usual case: the package imports it
    lazily), the folder goes into ``NUMBA_CACHE_DIR``, which numba reads
    when it starts (and whenever it reloads its configuration), without
    importing numba here; otherwise numba's live configuration is set.
    Returns the folder, or None when it cannot be created (numba then
    falls back to its default locations).
    """
    folder = cache_root() / f"{version}-{source_fingerprint()}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    os.environ["NUMBA_CACHE_DIR"] = os.environ[_OURS] = str(folder)
    numba = sys.modules.get("numba")
    if numba is not None:
        numba.config.CACHE_DIR = str(folder)
    return folder
