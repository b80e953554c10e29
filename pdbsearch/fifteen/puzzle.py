"""The sliding-tile puzzle on the generic :class:`~pdbsearch.puzzle.Puzzle` interface."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import IllegalMoveError
from ..puzzle import Puzzle, Step, register_kernels
from .bounds import heuristic
from .formats import format_board
from .kernels import FifteenParams, expand, is_goal, key_layout, step_table
from .frame import korf_frame
from .model import Board, describe_move
from .vocabulary import HEURISTICS, METRICS

register_kernels(FifteenParams, expand=expand, heuristic=heuristic, is_goal=is_goal)


def encode(board: Board) -> np.ndarray:
    """The key of a board (plain Python; see :mod:`.kernels`)."""
    bits, per_word, words = key_layout(board.cells)
    key = [0] * words
    for cell, tile in enumerate(board.tiles):
        key[tile // per_word] |= cell << (bits * (tile % per_word))
    return np.array(key, dtype=np.uint64)


def decode(key: np.ndarray, width: int, height: int) -> Board:
    """The board a key stands for."""
    n = width * height
    bits, per_word, _ = key_layout(n)
    tiles = [0] * n
    for tile in range(n):
        cell = (int(key[tile // per_word]) >> (bits * (tile % per_word))) & ((1 << bits) - 1)
        tiles[cell] = tile
    return Board(width, height, tuple(tiles))


def reflection(width: int) -> tuple[np.ndarray, np.ndarray]:
    """(tile map, cell map) of the reflection about the main diagonal of a
    square board: cell (x, y) goes to (y, x), and tile t to the tile whose
    goal cell is t's goal cell reflected (the goal maps onto itself)."""
    cells = np.array([(c % width) * width + c // width for c in range(width * width)],
                     dtype=np.int64)
    return cells.copy(), cells


class FifteenPuzzle(Puzzle):
    """A sliding-tile board, with a chosen heuristic.

    The goal is the board's (:attr:`.model.Board.goal`, Korf's by default).
    A goal with the blank in a corner is searched in Korf's frame
    (:mod:`.frame`), so that the pattern databases serve it; any other goal
    is searched as it is, with the Manhattan distance (the default then) or
    no heuristic.  States and move codes are the kernels', in that frame;
    what the puzzle shows and replays is in the board's own.

    ``partition`` (the ``pdb`` heuristic): groups of the board's own tiles,
    default :func:`.database.default_partition` (kept in Korf's frame as
    ``self.partition``); ``reflect`` (default: on square
    boards) also bounds the state reflected about the main diagonal;
    ``nibbles`` (default on) stores 4-bit entries."""

    domain = "fifteen"

    def __init__(self, board: Board, metric: str | None = None, heuristic: str | None = None,
                 *, partition=None, reflect: bool | None = None, nibbles: bool = True,
                 db_dir=None, pdb_path=None, log=None, progress: bool = False,
                 name: str | None = None):
        from .database import default_partition
        self.metric = METRICS.check(metric)
        self.board = board
        #: the mirror and renaming to Korf's goal, None when the goal's blank
        #: is not in a corner (then ``inner`` is the board itself)
        self.frame = korf_frame(board)
        self.inner = self.frame.korf_board(board) if self.frame else board
        if self.frame is None and heuristic is None:
            heuristic = "manhattan"
        self.heuristic_name = HEURISTICS.check(heuristic)
        if self.frame is None and self.heuristic_name == "pdb":
            from ..errors import PdbsearchError
            x, y = board.target.index(0) % board.width, board.target.index(0) // board.width
            raise PdbsearchError(f"the pattern databases serve goals with the blank in a "
                                 f"corner; this goal has it at column {x + 1}, row {y + 1}: "
                                 f"use --heuristic manhattan")
        self.heuristic_admissible = True
        self.name = name
        self.key_words = key_layout(board.cells)[2]
        self.max_successors = 4
        if partition and self.frame:
            # the groups name the board's own tiles: the tables are Korf's frame's
            partition = [[self.frame.to_korf[t] for t in g] for g in partition]
        self.partition = tuple(tuple(sorted(g)) for g in (
            partition or default_partition(board.width, board.height)))
        square = board.width == board.height
        if reflect and not square:
            from ..errors import PdbsearchError
            raise PdbsearchError("the reflection about the main diagonal needs a square board")
        self.reflect = (square if reflect is None else bool(reflect)) and self.frame is not None
        self.nibbles = nibbles
        self._pdb_source = dict(db_dir=db_dir, pdb_path=pdb_path, log=log, progress=progress)

    def make_params(self, deadline: float | None, memory_limit: int | None) -> FifteenParams:
        """The kernels' params; the ``pdb`` heuristic's tables are found or
        built here (see :meth:`~pdbsearch.puzzle.Puzzle.prepare`)."""
        from .database import manhattan_table, obtain_tables
        b = self.inner
        n = b.cells
        bits, per_word, _ = key_layout(n)
        groups = self.partition if self.heuristic_name == "pdb" else ()
        if groups:
            tables = obtain_tables(b.width, b.height, groups, self.nibbles,
                                   deadline=deadline, memory_limit=memory_limit,
                                   **self._pdb_source)
            offsets = np.cumsum([0] + [t.shape[0] for t in tables[:-1]]).astype(np.int64)
            # one array for the kernels: a copy of the tables (several hundred MB for
            # 7-8 but made once a process: the puzzles of a collection share it)
            pdb = _joined(tables)
        else:
            pdb, offsets = np.zeros(1, np.uint8), np.zeros(0, np.int64)
        kmax = max([len(g) for g in groups] + [1])
        group_tiles = np.full((len(groups), kmax), -1, dtype=np.int64)
        for i, g in enumerate(groups):
            group_tiles[i, :len(g)] = g
        if self.reflect:
            refl_tile, refl_cell = reflection(b.width)
        else:
            refl_tile = refl_cell = np.arange(n, dtype=np.int64)
        tiles = np.arange(n)
        return FifteenParams(
            width=b.width, height=b.height, ncells=n, bits=bits,
            tile_word=(tiles // per_word).astype(np.int64),
            tile_shift=(bits * (tiles % per_word)).astype(np.uint64),
            step=step_table(b.width, b.height),
            goal=encode(Board(b.width, b.height, b.target)),
            heuristic=HEURISTICS.code(self.heuristic_name),
            md=manhattan_table(b.width, b.height, b.goal_cells()),
            pdb=pdb, group_offset=offsets, group_tiles=group_tiles,
            group_size=np.array([len(g) for g in groups], dtype=np.int64),
            nibbles=bool(self.nibbles), reflect=bool(self.reflect and groups),
            refl_tile=refl_tile, refl_cell=refl_cell,
            work=np.zeros(4 + kmax, dtype=np.int64))

    def start_is_goal(self) -> bool:
        """True when the board starts solved."""
        return self.board.is_solved()

    def initial_key(self) -> np.ndarray:
        """The key of the start board (in Korf's frame when there is one)."""
        return encode(self.inner)

    def own_board(self, key: np.ndarray) -> Board:
        """The board a key stands for, in the board's own frame."""
        board = decode(key, self.board.width, self.board.height)
        if self.frame is None:
            return Board(board.width, board.height, board.tiles, goal=self.board.goal)
        return self.frame.own_board(board, self.board.goal)

    def own_move(self, code: int) -> tuple[int, int]:
        """(tile, direction) of a kernel's move code, in the board's own frame."""
        tile, direction = divmod(int(code), 4)
        return self.frame.own_move(tile, direction) if self.frame else (tile, direction)

    def render(self, key: np.ndarray) -> str:
        """The state as rows of numbers (0 the blank)."""
        board = self.own_board(key)
        return format_board(Board(board.width, board.height, board.tiles)).rstrip("\n")

    def check_solution(self, move_codes: Sequence[int]) -> tuple[list[Step], int]:
        """Replay moves on the plain-Python board model (independent of the kernels)."""
        steps, _ = self._replay(move_codes)
        return steps, len(steps)

    def _replay(self, move_codes: Sequence[int]) -> tuple[list[Step], list[Board]]:
        """The steps of ``move_codes`` and every board along them, from the
        start, by the plain-Python rules in the board's own frame (the codes
        read back through the frame); IllegalMoveError on an illegal move or
        when the last board is not the goal."""
        board = Board(self.board.width, self.board.height, self.board.tiles,
                      goal=self.board.goal)
        steps, boards = [], [board]
        for number, code in enumerate(move_codes, start=1):
            tile, direction = self.own_move(code)
            try:
                board = board.play(tile, direction)
            except IllegalMoveError as exc:
                raise IllegalMoveError(f"move {number}: {exc}") from None
            steps.append(Step(int(code), 1, describe_move(tile, direction)))
            boards.append(board)
        if not board.is_solved():
            raise IllegalMoveError("the moves do not reach the goal" + (
                " (blank top-left, tiles in order)" if board.goal is None else ""))
        return steps, boards

    # -- pictures --

    def picture(self, key: np.ndarray):
        """The state as a one-frame film: each tile a block with its number."""
        from ..pictures.frame import Film
        return Film(self._scene(), (self._frame(self.own_board(key), "", None),))

    def solution_film(self, steps: Sequence[Step]):
        """One frame per move, replayed by the plain-Python rules, the moved
        tile highlighted; each caption the move number and the move."""
        from ..pictures.frame import Film
        _, boards = self._replay([s.code for s in steps])
        frames = [self._frame(boards[0], f"start: {len(steps)} moves", None)]
        for number, step in enumerate(steps, start=1):
            moved = self.own_move(step.code)[0]
            frames.append(self._frame(boards[number], f"move {number}/{len(steps)}: "
                                                      f"{step.text}, cost {number}", moved))
        return Film(self._scene(), tuple(frames))

    def _scene(self):
        """Every cell floor; the blank's goal cell the target."""
        from ..pictures.frame import Scene
        b = self.board
        home = b.target.index(0)
        return Scene(b.width, b.height,
                     floor=frozenset((x, y) for y in range(b.height) for x in range(b.width)),
                     targets=frozenset({(home % b.width, home // b.width)}),
                     target_name="blank's goal",
                     title=f"sliding tiles {b.width}x{b.height}")

    @staticmethod
    def _frame(board: Board, caption: str, moved: int | None):
        """A board as blocks: tile t has colour id t and label t."""
        from ..pictures.frame import PIECE, Block, Frame
        w = board.width
        blocks = tuple(Block(t, str(t), ((c % w, c // w),), PIECE, highlight=t == moved)
                       for c, t in enumerate(board.tiles) if t)
        return Frame(blocks, caption, board.is_solved())

    def describe(self) -> str:
        """One line naming the instance."""
        b = self.board
        h = self.heuristic_name
        if h == "pdb":
            h += " " + "-".join(str(len(g)) for g in self.partition) + \
                (" + reflection" if self.reflect else "")
        name = f" {self.name}" if self.name else ""
        goal = "" if b.goal is None else \
            f", goal {' '.join(map(str, b.goal))}" + (" (searched mirrored)" if self.frame and
                                                      (self.frame.mirror_x or
                                                       self.frame.mirror_y) else "")
        return (f"fifteen {b.width}x{b.height}{name}{goal}, {self.metric} metric, "
                f"heuristic {h}")


_JOINED: dict[tuple[int, ...], np.ndarray] = {}


def _joined(tables: list[np.ndarray]) -> np.ndarray:
    """The tables end to end in one array, made once per set of tables."""
    ident = tuple(id(t) for t in tables)
    if ident not in _JOINED:
        _JOINED[ident] = tables[0] if len(tables) == 1 else np.concatenate(tables)
    return _JOINED[ident]
