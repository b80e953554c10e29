"""Shared fixtures: the repository, its bundled puzzles, a private database folder."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PUZZLES = REPO / "puzzles"


@pytest.fixture(scope="session")
def repo() -> Path:
    """The repository root."""
    return REPO


@pytest.fixture(scope="session")
def classic_board():
    """The classic 4x5 Hakoiri board (built in)."""
    from pdbsearch.hakoiri.builtin import classic_board
    return classic_board()


@pytest.fixture(autouse=True)
def _private_db_dir(tmp_path_factory, monkeypatch):
    """Keep PDBs built by tests out of the repository (one folder per session)."""
    folder = tmp_path_factory.getbasetemp() / "databases"
    monkeypatch.setenv("PDBSEARCH_DB_DIR", str(folder))
    return folder
