"""The numba cache folders: old ones removed, the recent and the current kept."""

from __future__ import annotations

import os

from pdbsearch._jit_cache import prune_old_caches

DAY = 24 * 3600


def _folder(root, name: str, age_days: float, now: float) -> str:
    path = root / name
    path.mkdir()
    (path / "kernel.nbi").write_bytes(b"x" * 100)
    os.utime(path, (now - age_days * DAY, now - age_days * DAY))
    return str(path)


def test_old_folders_past_the_recent_ones_are_removed(tmp_path):
    now = 1_800_000_000.0
    ages = [0.1, 1, 3, 8, 9, 30, 60]   # days since a run last used each
    folders = [_folder(tmp_path, f"0.1.0-{i:016x}", age, now) for i, age in enumerate(ages)]
    current = folders[-1]              # the oldest, but this run's own
    other = tmp_path / "notes"         # not one of our folders
    other.mkdir()
    (tmp_path / "0.1.0-0000000000000009").write_text("a file, not a folder")
    removed = prune_old_caches(str(tmp_path), current, keep=4, stale_seconds=7 * DAY, now=now)
    # The 4 most recent stay; of the others, those unused for 7 days go, not the current one.
    assert sorted(removed) == sorted([folders[4], folders[5]])
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == sorted([os.path.basename(f) for f in folders[:4]] + [
        os.path.basename(current), "notes", "0.1.0-0000000000000009"])


def test_recent_folders_stay_however_many(tmp_path):
    now = 1_800_000_000.0
    folders = [_folder(tmp_path, f"0.2.0-{i:016x}", 0.5, now) for i in range(20)]
    assert prune_old_caches(str(tmp_path), folders[0], keep=3, stale_seconds=7 * DAY,
                            now=now) == []
    assert len(list(tmp_path.iterdir())) == 20


def test_a_missing_root_is_no_error(tmp_path):
    assert prune_old_caches(str(tmp_path / "nowhere"), str(tmp_path / "x")) == []
