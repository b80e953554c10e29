"""The Hakoiri-musume family on the generic :class:`~pdbsearch.puzzle.Puzzle` interface."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import IllegalMoveError
from ..pictures.frame import MAIN, PIECE, Block, Film, Frame, Scene
from ..puzzle import Puzzle, Step, register_kernels
from .bounds import heuristic
from .formats import assign_labels, draw
from .kernels import MOVE_BASE, HakoiriParams, expand, is_goal, scratch_size
from .model import Board, Piece, Shape, describe_move
from .vocabulary import HEURISTICS, METRICS

register_kernels(HakoiriParams, expand=expand, heuristic=heuristic, is_goal=is_goal)

_CODE_OF_SHAPE = {Shape.SINGLE: 1, Shape.HORIZONTAL: 2, Shape.VERTICAL: 3}


def key_words_for(width: int, height: int) -> int:
    """Words of the state key of a width × height board (2 bits a cell)."""
    return (2 * width * height + 63) // 64


def encode(board: Board) -> np.ndarray:
    """The canonical key of a board (plain Python; see :mod:`.kernels`)."""
    key = np.zeros(key_words_for(board.width, board.height), dtype=np.uint64)

    def put(c: int, code: int) -> None:
        key[c >> 5] |= np.uint64(code << (2 * (c & 31)))

    for p in board.pieces:
        c = p.y * board.width + p.x
        if p.shape is Shape.SQUARE:
            put(c, 3)
            put(c + board.width, 3)
        else:
            put(c, _CODE_OF_SHAPE[p.shape])
    return key


def decode_board(key: np.ndarray, like: Board) -> Board:
    """The board a key stands for (geometry and exit taken from ``like``)."""
    width, n = like.width, like.width * like.height
    codes = [int(key[c >> 5] >> np.uint64(2 * (c & 31))) & 3 for c in range(n)]
    covered = [False] * n
    pieces = []
    for c in range(n):
        if covered[c] or codes[c] == 0:
            continue
        if codes[c] == 3 and c + width < n and codes[c + width] == 3:
            shape = Shape.SQUARE
        else:
            shape = {1: Shape.SINGLE, 2: Shape.HORIZONTAL, 3: Shape.VERTICAL}[codes[c]]
        piece = Piece(shape, c % width, c // width)
        for x, y in piece.cells():
            covered[y * width + x] = True
        pieces.append(piece)
    return Board(like.width, like.height, like.exit, tuple(pieces), like.comments)


class HakoiriPuzzle(Puzzle):
    """A Hakoiri board under a move metric, with a chosen heuristic."""

    domain = "hakoiri"

    def __init__(self, board: Board, metric: str | None = None, heuristic: str | None = None,
                 pdb: np.ndarray | None = None, *, db_dir=None, pdb_path=None, log=None,
                 progress: bool = False):
        """``metric`` and ``heuristic`` default to the vocabulary's defaults
        (straight, pdb).  The ``pdb`` heuristic uses the table ``pdb`` if
        given, else the file ``pdb_path``, else finds or builds the board's
        relaxed PDB in ``db_dir`` (see :func:`.database.obtain_pdb`); ``log``
        (None: silent) hears about builds, ``progress`` draws a bar for them."""
        metric = METRICS.check(metric)
        heuristic = HEURISTICS.check(heuristic)
        n_empty = len(board.empty_cells())
        self.board = board
        self.metric = metric
        self.heuristic_name = heuristic
        self.heuristic_admissible = HEURISTICS[heuristic].admissible
        self.key_words = key_words_for(board.width, board.height)
        # A moving piece touches an empty cell: at most 4 per empty cell; it
        # can go at most n_empty cells in each of 4 directions (or reach at
        # most n_empty + 4 anchors under the free metric).
        self.max_successors = min(4 * n_empty, len(board.pieces)) * (4 * n_empty + 4)
        self.pdb = pdb
        self._pdb_source = dict(db_dir=db_dir, pdb_path=pdb_path, log=log, progress=progress)

    def make_params(self, deadline: float | None, memory_limit: int | None) -> HakoiriParams:
        """The kernels' params; the ``pdb`` heuristic's table is found or
        built here (see :meth:`~pdbsearch.puzzle.Puzzle.prepare`)."""
        board, n_empty = self.board, len(self.board.empty_cells())
        if self.heuristic_name != "pdb":
            tables = (np.zeros(1, np.uint8), np.zeros((1, 1), np.int64), np.zeros((1, 1), np.int16))
        else:
            from .abstraction import ranking_tables
            if self.pdb is None:
                from .database import obtain_pdb, relaxed_spec
                spec = relaxed_spec(board.width, board.height, board.exit, n_empty, self.metric)
                self.pdb = obtain_pdb(spec, deadline=deadline, memory_limit=memory_limit,
                                      **self._pdb_source)
            tables = (self.pdb,) + ranking_tables(board.width, board.height, n_empty)
        return HakoiriParams(
            width=board.width, height=board.height,
            exit_anchor=board.exit[1] * board.width + board.exit[0],
            metric=METRICS.code(self.metric), heuristic=HEURISTICS.code(self.heuristic_name),
            n_empty=n_empty, pdb=tables[0], pdb_binom=tables[1], pdb_free_index=tables[2],
            work=np.zeros(scratch_size(board.width * board.height, n_empty), dtype=np.int32))

    def start_is_goal(self) -> bool:
        """True when the 2x2 starts on the exit."""
        return self.board.is_solved()

    def initial_key(self) -> np.ndarray:
        """The key of the start board."""
        return encode(self.board)

    def board_of(self, key: np.ndarray) -> Board:
        """The (unlabelled) board of a key."""
        return decode_board(key, self.board)

    def render(self, key: np.ndarray) -> str:
        """The state as text rows, pieces lettered (touching ones differ)."""
        return "\n".join(draw(assign_labels(self.board_of(key))))

    def check_solution(self, move_codes: Sequence[int]) -> tuple[list[Step], int]:
        """Replay moves on the plain-Python board model (independent of the kernels)."""
        boards, steps = self._replay(move_codes)
        if not boards[-1].is_solved():
            raise IllegalMoveError("the moves do not bring the 2x2 piece to the exit")
        return steps, len(steps)

    def _replay(self, move_codes: Sequence[int]) -> tuple[list[Board], list[Step]]:
        """The boards from the start through every move (labels kept) and
        the moves described, each move checked by :meth:`Board.play`."""
        boards = [self.board]
        steps = []
        for number, code in enumerate(move_codes, start=1):
            board = boards[-1]
            a, b = divmod(int(code), MOVE_BASE)
            w = board.width
            index = board.piece_at(a % w, a // w)
            if index < 0:
                raise IllegalMoveError(f"move {number}: no piece has its corner at "
                                       f"column {a % w}, row {a // w}")
            piece = board.pieces[index]
            boards.append(board.play(index, b % w, b // w, self.metric))
            steps.append(Step(int(code), 1, describe_move(piece, b % w, b // w, self.metric)))
        return boards, steps

    def fess_domain(self, limits):
        """This board on the FESS protocol (:mod:`.fess`)."""
        from .fess import HakoiriFessDomain
        return HakoiriFessDomain(self, limits)

    def render_path(self, keys, steps) -> list[str]:
        """The boards along a solution, with the start file's piece letters."""
        return ["\n".join(draw(b)) for b in self.boards_along(steps)]

    def boards_along(self, steps: Sequence[Step]) -> list[Board]:
        """The boards from the start through every step (labels kept),
        replayed by the checker's rules."""
        return self._replay([step.code for step in steps])[0]

    # -- pictures ---------------------------------------------------------

    def picture(self, key: np.ndarray) -> Film:
        """The state as a one-frame film (pieces lettered, touching ones differ)."""
        board = assign_labels(self.board_of(key))
        return Film(self._scene(), (self._frame(board, "", None),))

    def start_picture(self) -> Film:
        """The start board with the file's letters."""
        return Film(self._scene(), (self._frame(self.board, "start", None),))

    def solution_film(self, steps: Sequence[Step]) -> Film:
        """One frame per move, the moved piece highlighted, each caption
        the move number, the move and the cost so far."""
        boards = self.boards_along(steps)
        total = sum(step.cost for step in steps)
        frames = [self._frame(boards[0], f"start: {len(steps)} moves, cost {total}", None)]
        cost = 0
        for number, step in enumerate(steps, start=1):
            before, after = boards[number - 1], boards[number]
            moved = next(i for i, (p, q) in enumerate(zip(before.pieces, after.pieces)) if p != q)
            cost += step.cost
            frames.append(self._frame(after, f"move {number}/{len(steps)}: {step.text}, "
                                             f"cost {cost}", moved))
        return Film(self._scene(), tuple(frames))

    def _scene(self) -> Scene:
        """The board's cells, the exit marked where the 2x2 must stand."""
        b = self.board
        ex, ey = b.exit
        return Scene(b.width, b.height,
                     floor=frozenset((x, y) for y in range(b.height) for x in range(b.width)),
                     targets=frozenset((ex + i, ey + j) for i in (0, 1) for j in (0, 1)),
                     target_name="exit", title=f"hakoiri {b.width}x{b.height}")

    @staticmethod
    def _frame(board: Board, caption: str, moved: int | None) -> Frame:
        """A board as blocks: piece index as the colour's id, the 2x2 apart."""
        blocks = tuple(Block(i, p.label, tuple(p.cells()),
                             MAIN if p.shape is Shape.SQUARE else PIECE, highlight=i == moved)
                       for i, p in enumerate(board.pieces))
        return Frame(blocks, caption, board.is_solved())

    def describe(self) -> str:
        """One line naming the instance."""
        b = self.board
        return (f"hakoiri {b.width}x{b.height}, {len(b.pieces)} pieces, "
                f"{len(b.empty_cells())} empty cells, {self.metric} metric, "
                f"heuristic {self.heuristic_name}")
