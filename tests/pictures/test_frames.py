"""The frames of a solution: one per move (Sokoban: per player step), from
the start to a goal, the last one the checker's final position."""

from __future__ import annotations

import pytest

import pdbsearch
from pdbsearch.hakoiri.model import Shape
from pdbsearch.pictures.animate import solution_film
from pdbsearch.pictures.frame import BOX, MAIN, PLAYER
from pdbsearch.sokoban.checker import replay_lurd


def test_hakoiri_one_frame_per_move_ending_on_the_checkers_board(classic):
    puzzle, result = classic
    film = solution_film(puzzle, result)
    assert len(film.frames) == len(result.moves) + 1 == 91
    assert not film.frames[0].solved and film.frames[-1].solved
    # The last frame is the board the model's own rules reach.
    board = puzzle.board
    for step in result.steps:
        a, b = divmod(step.code, 4096)
        index = board.piece_at(a % board.width, a // board.width)
        board = board.play(index, b % board.width, b // board.width, puzzle.metric)
    assert board.is_solved()
    drawn = {(blk.label, blk.cells) for blk in film.frames[-1].blocks}
    assert drawn == {(p.label, tuple(p.cells())) for p in board.pieces}
    main = [blk for blk in film.frames[-1].blocks if blk.kind == MAIN]
    assert len(main) == 1 and set(main[0].cells) == set(film.scene.targets)
    assert film.scene.target_name == "exit"


def test_hakoiri_frames_highlight_the_moved_piece_and_count_the_cost(classic):
    puzzle, result = classic
    film = solution_film(puzzle, result)
    for number, frame in enumerate(film.frames[1:], start=1):
        moved = [blk for blk in frame.blocks if blk.highlight]
        assert len(moved) == 1
        assert moved[0].label == result.moves[number - 1].split()[0]
        assert frame.caption.startswith(f"move {number}/90: {result.moves[number - 1]}")
        assert frame.caption.endswith(f"cost {number}")
    # every piece keeps its colour id and letter from frame to frame
    first = {blk.ident: blk.label for blk in film.frames[0].blocks}
    assert all({blk.ident: blk.label for blk in f.blocks} == first for f in film.frames)
    assert sum(blk.kind == MAIN for blk in film.frames[0].blocks) == 1
    assert puzzle.board.count(Shape.SQUARE) == 1


def test_sokoban_one_frame_per_step_ending_on_the_checkers_position(microban):
    puzzle, result = microban
    lurd = result.extra["lurd"]
    film = solution_film(puzzle, result)
    assert len(film.frames) == len(lurd) + 1 == result.extra["steps"] + 1
    boxes, player, _, _ = replay_lurd(puzzle.level, lurd)
    w = puzzle.level.width
    last = film.frames[-1]
    assert last.solved
    assert {blk.cells[0] for blk in last.blocks if blk.kind == BOX} == \
        {(c % w, c // w) for c in boxes}
    assert [blk.cells[0] for blk in last.blocks if blk.kind == PLAYER] == [(player % w, player // w)]
    assert film.scene.targets == {(c % w, c // w) for c in puzzle.level.goals}


def test_sokoban_pushes_are_highlighted(microban):
    puzzle, result = microban
    lurd = result.extra["lurd"]
    film = solution_film(puzzle, result)
    for move, frame in zip(lurd, film.frames[1:]):
        pushed = [blk for blk in frame.blocks if blk.kind == BOX and blk.highlight]
        assert len(pushed) == (1 if move.isupper() else 0)
        assert ("push" in frame.caption.split(",")[0]) == move.isupper()
    assert film.frames[-1].caption.startswith(f"step {len(lurd)}/{len(lurd)}: push")
    assert f"pushes {result.cost}/{result.cost}" in film.frames[-1].caption


def test_an_unsolved_result_has_nothing_to_animate(classic):
    import pdbsearch
    puzzle, _ = classic
    stopped = pdbsearch.solve(puzzle, algo="bfs", node_limit=10)
    with pytest.raises(pdbsearch.PdbsearchError, match="nothing to animate"):
        solution_film(puzzle, stopped)


def test_a_solution_that_does_not_replay_is_a_bug(classic):
    import dataclasses

    from pdbsearch.errors import InternalError
    puzzle, result = classic
    broken = dataclasses.replace(result, steps=result.steps[:-1])
    with pytest.raises(InternalError, match="not solved"):
        solution_film(puzzle, broken)
    swapped = dataclasses.replace(result, steps=result.steps[1:])
    with pytest.raises(InternalError, match="does not replay"):
        solution_film(puzzle, swapped)


def test_start_pictures(classic, microban):
    hakoiri, _ = classic
    film = hakoiri.start_picture()
    assert len(film.frames) == 1
    assert {blk.label for blk in film.frames[0].blocks} == set("ABCDEFGHIJ")
    sokoban, _ = microban
    level = sokoban.level
    frame = sokoban.start_picture().frames[0]
    # the level's own player cell, not the key's normalised one
    assert [blk.cells[0] for blk in frame.blocks if blk.kind == PLAYER] == \
        [(level.player % level.width, level.player // level.width)]
    assert len(sokoban.start_picture().scene.walls) == int(level.walls.sum())


def test_sliding_tiles_one_frame_per_move_ending_on_the_goal(tmp_path):
    from pdbsearch.fifteen.model import Board
    board = tmp_path / "eight.txt"
    board.write_text("1 2 5\n3 0 4\n6 7 8\n")
    puzzle = pdbsearch.load(board, heuristic="manhattan")
    result = pdbsearch.solve(puzzle)
    film = solution_film(puzzle, result)
    assert len(film.frames) == len(result.moves) + 1
    assert not film.frames[0].solved and film.frames[-1].solved
    # The last frame is the goal the model's rules reach: tile t on cell t.
    tiles = Board(3, 3, tuple(int(v) for v in board.read_text().split())).tiles
    replayed = Board(3, 3, tiles)
    for step in result.steps:
        replayed = replayed.play(*divmod(step.code, 4))
    assert replayed.is_solved()
    assert {(blk.label, blk.cells) for blk in film.frames[-1].blocks} == \
        {(str(t), ((c % 3, c // 3),)) for c, t in enumerate(replayed.tiles) if t}
    for number, frame in enumerate(film.frames[1:], start=1):
        moved = [blk.label for blk in frame.blocks if blk.highlight]
        assert moved == [result.moves[number - 1].split()[0]]
