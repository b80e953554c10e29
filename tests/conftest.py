"""Shared fixtures: paths to the repository's and the shared data."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(scope="session")
def repo() -> Path:
    """The repository root."""
    return REPO


@pytest.fixture(scope="session")
def classic_board():
    """The classic 4x5 Hakoiri board (built in)."""
    from pdbsearch.hakoiri.builtin import classic_board
    return classic_board()
