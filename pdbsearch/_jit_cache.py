"""Where numba keeps compiled kernels between runs, and the note a command
prints when a run has to compile them.

numba's own cache checks only the timestamp of the file a function lives
in; the search engines are compiled together with a domain's kernels, which
live in other files, so editing a kernel would leave a stale engine in the
cache.  Keying the cache folder by a hash of every source file of the
package avoids that: any edit starts a fresh folder.  A user-set
``NUMBA_CACHE_DIR`` is respected (a subfolder with the same key is used).

Each version (and each edit of the sources) leaves a folder of a few tens
of megabytes behind, so the folders no run has used for a week are
removed, past the most recently used ones (:func:`prune_old_caches`).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import re
import shutil
import sys
import threading
import time

#: The most recently used cache folders kept whatever their age.
KEEP_RECENT = 12
#: A folder past those, unused for this long, is removed.
STALE_SECONDS = 7 * 24 * 3600
#: The name of one of our cache folders: ``VERSION-FINGERPRINT``.
_FOLDER_NAME = re.compile(r"^[0-9][0-9A-Za-z.+]*-[0-9a-f]{16}$")


def source_fingerprint() -> str:
    """A short hash of every Python source file of the package: its path,
    size and modification time (any edit changes them; reading the files
    themselves would slow every start of the command down).  Plain ``os``:
    this runs at every import, before anything else."""
    root = os.path.dirname(os.path.abspath(__file__))
    entries = []
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                stat = os.stat(path)
                entries.append(f"{os.path.relpath(path, root)}:{stat.st_size}:"
                               f"{stat.st_mtime_ns};")
    return hashlib.sha256("".join(sorted(entries)).encode()).hexdigest()[:16]


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


def cache_root() -> str:
    """The folder holding pdbsearch's numba caches."""
    user = _user_cache_dir()
    if user:
        return os.path.join(user, "pdbsearch")
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(xdg, "pdbsearch", "numba")


def configure_jit_cache(version: str) -> str | None:
    """Point numba's cache at a folder keyed by version and source hash.

    Must run before any jitted function of the package is defined.  When
    numba is not imported yet (the usual case: the package imports it
    lazily), the folder goes into ``NUMBA_CACHE_DIR``, which numba reads
    when it starts (and whenever it reloads its configuration), without
    importing numba here; otherwise numba's live configuration is set.
    Returns the folder, or None when it cannot be created (numba then
    falls back to its default locations).
    """
    root = cache_root()
    folder = os.path.join(root, f"{version}-{source_fingerprint()}")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError:
        return None
    try:
        os.utime(folder)   # its time says when a run last used it
    except OSError:
        pass               # a read-only cache is still read
    else:
        prune_old_caches(root, folder)
    os.environ["NUMBA_CACHE_DIR"] = os.environ[_OURS] = str(folder)
    numba = sys.modules.get("numba")
    if numba is not None:
        numba.config.CACHE_DIR = str(folder)
    return folder


def prune_old_caches(root: str, current: str, keep: int = KEEP_RECENT,
                     stale_seconds: float = STALE_SECONDS,
                     now: float | None = None) -> list[str]:
    """Remove the cache folders under ``root`` that no run has used for
    ``stale_seconds``, past the ``keep`` most recently used; never
    ``current``, nor anything not named like one of our folders.  Returns
    the folders removed.  Errors (a folder another process is removing, a
    read-only disk) are ignored: pruning is housekeeping."""
    now = time.time() if now is None else now
    try:
        entries = [(entry.stat().st_mtime, entry.path) for entry in os.scandir(root)
                   if entry.is_dir(follow_symlinks=False) and _FOLDER_NAME.match(entry.name)]
    except OSError:
        return []
    entries.sort(reverse=True)
    removed = []
    for used, path in entries[keep:]:
        if now - used > stale_seconds and os.path.abspath(path) != os.path.abspath(current):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


# -- the note on the first compile of a run ------------------------------------------

_notice = {"say": None}
_notice_lock = threading.Lock()


def set_compile_notice(say) -> None:
    """Have ``say(message)`` told, once, when this process starts compiling
    a kernel (a cache miss: a first run of this version, or a kernel never
    run before): the minutes a first ``--algo fess`` spends compiling would
    otherwise pass in silence, like a hang.  None: tell no one.  Plain
    Python, so that a command can ask before numba is imported; the
    listener of :mod:`pdbsearch.compile_time` calls :func:`take_compile_notice`."""
    with _notice_lock:
        _notice["say"] = say


def take_compile_notice() -> None:
    """Tell the note set by :func:`set_compile_notice`, the first time only."""
    with _notice_lock:
        say, _notice["say"] = _notice["say"], None
    if say is not None:
        folder = os.environ.get("NUMBA_CACHE_DIR") or cache_root()
        say("pdbsearch: compiling the search kernels for this machine (once per version: "
            "half a minute to a few minutes, the most for Sokoban's --algo fess); later "
            f"runs load them from {folder}")


def tolerate_unreadable_indexes() -> None:
    """Make a numba cache index that cannot be unpickled a cache miss.

    numba's index of a cached function pickles the types of every signature
    compiled for it.  A generic kernel (a search engine, the struct builder
    of :mod:`pdbsearch.byref`) called once with a class that this process
    cannot import (a test module's, a user's ``__main__``) leaves an index
    that numba fails to read here, with an ImportError from deep inside the
    first call of that kernel.  Treated as a miss, the kernel is compiled
    again and the index rewritten with what this process can read.  Call
    after importing numba; calling again does nothing.
    """
    from numba.core import caching

    cache_file = getattr(caching, "IndexDataCacheFile", None)
    load_index = getattr(cache_file, "_load_index", None)
    if load_index is None or getattr(load_index, "_pdbsearch_tolerant", False):
        return  # a numba without this method: leave it as it is

    def _load_index(self):
        try:
            return load_index(self)
        except (ImportError, AttributeError, EOFError, pickle.UnpicklingError):
            return {}

    _load_index._pdbsearch_tolerant = True
    cache_file._load_index = _load_index
