"""Small solved puzzles shared by the picture tests (solved once a session)."""

from __future__ import annotations

import pytest

import pdbsearch


@pytest.fixture(scope="session")
def classic(repo, tmp_path_factory):
    """The classic Hakoiri board and its optimal 90-move solution."""
    puzzle = pdbsearch.load(repo / "puzzles/hakoiri/classic.txt",
                            db_dir=tmp_path_factory.mktemp("classic-db"))
    return puzzle, pdbsearch.solve(puzzle)


@pytest.fixture(scope="session")
def microban(repo, tmp_path_factory):
    """Microban level 3 (2 boxes) and its push-optimal solution."""
    puzzle = pdbsearch.load(repo / "puzzles/sokoban/microban.txt", level=3,
                            db_dir=tmp_path_factory.mktemp("microban-db"))
    return puzzle, pdbsearch.solve(puzzle)


@pytest.fixture(scope="session")
def solved(classic, microban):
    """Both, by domain name."""
    return {"hakoiri": classic, "sokoban": microban}
