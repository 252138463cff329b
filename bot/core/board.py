"""The public, validated face of the board kernels.

``Board`` checks every argument, raises a ``BoardError`` (a ValueError) with a clear message and
leaves the state unchanged on bad input; only then does it call the private kernels.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Iterable, Iterator

from bot.core import arrays, evaluate, moves, shapes
from bot.core.jit import np
from bot.core.errors import CoordinateError, HistoryError, OccupiedError
from bot.core.state import (
    M_CANDIDATES, M_HEIGHT, M_PLY, M_RULE, M_STRIDE, M_SYMMETRIES, M_VALUED, M_WIDTH, PAD,
    RULE_RENJU, BoardState, cell_index, new_state,
)

Point = tuple[int, int]


class Board:
    """A position on a ``width`` x ``height`` board under a Gomocup rule bit mask."""

    def __init__(self, width: int, height: int | None = None, rule: int = 0,
                 cell_values: np.ndarray | None = None) -> None:
        """``cell_values``: the evaluation's table (bot.config.Config.cell_values; None: every
        position evaluates to 0)."""
        self.state: BoardState = new_state(
            _as_int(width), _as_int(width if height is None else height), _as_int(rule),
            cell_values)
        # The geometry never changes: kept as plain ints, read at every move and cell lookup.
        self._width = int(self.state.meta[M_WIDTH])
        self._height = int(self.state.meta[M_HEIGHT])
        self._stride = int(self.state.meta[M_STRIDE])

    def set_cell_values(self, cell_values: np.ndarray) -> None:
        """Evaluate with another table from now on (the sums are recounted)."""
        arrays.copy_into(self.state.cell_values, cell_values)
        self.state.meta[M_VALUED] = 1
        evaluate.recount_values(self.state)

    # --- geometry ---------------------------------------------------------------------------
    @property
    def width(self) -> int:
        return self._width

    @property
    def height(self) -> int:
        return self._height

    @property
    def rule(self) -> int:
        return int(self.state.meta[M_RULE])

    @property
    def is_renju(self) -> bool:
        return bool(self.rule & RULE_RENJU)

    def cell(self, x: int, y: int) -> int:
        """Padded index of (x, y); CoordinateError if it is off the board."""
        if not (_is_int(x) and _is_int(y) and 0 <= x < self._width and 0 <= y < self._height):
            raise CoordinateError(f"({x},{y}) is off the {self.width}x{self.height} board")
        return cell_index(int(x), int(y), self._stride)

    def point(self, cell: int) -> Point:
        """(x, y) of a padded index."""
        return int(cell) % self._stride - PAD, int(cell) // self._stride - PAD

    # --- position ---------------------------------------------------------------------------
    @property
    def ply(self) -> int:
        return int(self.state.meta[M_PLY])

    def stone(self, x: int, y: int) -> int:
        """EMPTY, BLACK or WHITE at (x, y)."""
        return int(self.state.board[self.cell(x, y)])

    def moves(self) -> list[Point]:
        """Stones in the order they were played."""
        return [self.point(self.state.history[i, 0]) for i in range(self.ply)]

    def side_to_move(self) -> int:
        """BLACK when both colours have as many stones, else WHITE."""
        black = arrays.count_equal(self.state.board, shapes.BLACK)
        white = arrays.count_equal(self.state.board, shapes.WHITE)
        return shapes.BLACK if black == white else shapes.WHITE

    def is_full(self) -> bool:
        return self.ply == self.width * self.height

    def play(self, x: int, y: int, colour: int | None = None) -> bool:
        """Put a stone (of the side to move by default); returns whether it made a winning five."""
        cell = self.cell(x, y)
        colour = self.side_to_move() if colour is None else _colour(colour)
        if self.state.board[cell] != shapes.EMPTY:
            raise OccupiedError(f"({x},{y}) is already occupied")
        won = bool(moves.wins(self.state, cell, colour))
        moves.make(self.state, cell, colour)
        return won

    def undo(self) -> Point:
        """Take back the last stone and return where it was."""
        if self.ply == 0:
            raise HistoryError("there is no stone to take back")
        return self.point(moves.unmake(self.state))

    def remove(self, x: int, y: int) -> None:
        """Take back any stone (TAKEBACK): the last one directly, another by replaying the rest."""
        cell = self.cell(x, y)
        if self.state.board[cell] == shapes.EMPTY:
            raise OccupiedError(f"({x},{y}) holds no stone to take back")
        self.setup([(x, y, self.stone(x, y)) for x, y in self.moves() if self.cell(x, y) != cell])

    def setup(self, stones: Iterable[tuple[int, int, int]]) -> None:
        """Replace the position by ``(x, y, colour)`` stones in that order; all or nothing."""
        stones = [(int(x), int(y), _colour(c)) for x, y, c in stones]
        cells = [self.cell(x, y) for x, y, _ in stones]
        if len(set(cells)) != len(cells):
            raise OccupiedError("two stones on one cell")
        while self.ply:
            moves.unmake(self.state)
        for cell, (_, _, colour) in zip(cells, stones):
            moves.make(self.state, cell, colour)

    # --- threat shapes ----------------------------------------------------------------------
    def shape(self, x: int, y: int, colour: int, direction: int) -> int:
        """Shape (bot.core.shapes) a stone of ``colour`` on empty (x, y) makes along ``direction``
        (0 horizontal, 1 vertical, 2 diagonal ↘, 3 diagonal ↙); NONE on an occupied cell."""
        cell = self.cell(x, y)
        if direction not in range(4):
            raise ValueError(f"direction {direction} is not 0..3")
        if self.state.board[cell] != shapes.EMPTY:
            return shapes.NONE
        return int(moves.shape_at(self.state, cell, _colour(colour), direction))

    def cell_class(self, x: int, y: int, colour: int) -> int:
        """Combined class (bot.core.shapes.C_*) of a ``colour`` stone on empty (x, y)."""
        cell = self.cell(x, y)
        if self.state.board[cell] != shapes.EMPTY:
            return shapes.C_NONE
        return int(self.state.classes[_colour(colour) - 1, cell])

    def wins(self, x: int, y: int, colour: int) -> bool:
        """Whether a ``colour`` stone on empty (x, y) wins now under the rule."""
        cell = self.cell(x, y)
        return self.state.board[cell] == shapes.EMPTY and bool(
            moves.wins(self.state, cell, _colour(colour)))

    def foul(self, x: int, y: int) -> int:
        """Renju foul (moves.FOUL_*) of a black stone on empty (x, y); FOUL_NONE in other rules."""
        cell = self.cell(x, y)
        if not self.is_renju or self.state.board[cell] != shapes.EMPTY:
            return moves.FOUL_NONE
        return int(moves.foul_kind(self.state, cell))

    def is_legal(self, x: int, y: int, colour: int) -> bool:
        """On the board, empty, and not a renju foul for black."""
        cell = self.cell(x, y)
        if self.state.board[cell] != shapes.EMPTY:
            return False
        return not (_colour(colour) == shapes.BLACK and self.foul(x, y))

    def forbidden_points(self) -> list[Point]:
        """Every empty cell where black may not play (renju); empty list in other rules."""
        if not self.is_renju:
            return []
        return [p for p in self.empty_points() if self.foul(*p)]

    def empty_points(self) -> Iterator[Point]:
        for cell in self.empty_cells():
            yield self.point(cell)

    def empty_cells(self) -> list[int]:
        """Padded indices of the empty cells, row by row from (0, 0)."""
        stones = self.state.board.tolist()
        return [cell for cell in _board_cells(self._width, self._height, self._stride)
                if stones[cell] == shapes.EMPTY]

    def legal_cells(self, colour: int) -> list[int]:
        """``empty_cells`` where ``colour`` may play (all of them but black's renju fouls)."""
        cells = self.empty_cells()
        if self.is_renju and _colour(colour) == shapes.BLACK:
            return [cell for cell in cells if not moves.foul_kind(self.state, cell)]
        return cells

    def candidates(self) -> list[Point]:
        """Empty cells within two of a stone, in the kernel's list order."""
        count = int(self.state.meta[M_CANDIDATES])
        return [self.point(self.state.candidates[i]) for i in range(count)]

    # --- keys -------------------------------------------------------------------------------
    @property
    def hash(self) -> int:
        """Zobrist key of the position as it stands."""
        return int(self.state.hashes[0])

    def symmetric_hashes(self) -> list[int]:
        """Zobrist keys of the position's images under each board symmetry (8 square, 4 else)."""
        moves.symmetric_hashes(self.state)
        return [int(self.state.hashes[i]) for i in range(int(self.state.meta[M_SYMMETRIES]))]

    def canonical_key(self) -> tuple[int, int]:
        """(smallest key over the symmetric images, the symmetry index that gives it)."""
        key, sym = moves.canonical_hash(self.state)
        return int(key), int(sym)


@functools.cache
def _board_cells(width: int, height: int, stride: int) -> tuple[int, ...]:
    """Padded indices of every cell of the board, row by row."""
    return tuple(cell_index(x, y, stride) for y in range(height) for x in range(width))


def _is_int(value: object) -> bool:
    """A whole number but not a bool (a plain int first: the ABC check is slow)."""
    return type(value) is int or (
        not isinstance(value, bool) and isinstance(value, numbers.Integral))


def _as_int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{value!r} is not a whole number")
    return int(value)


def _colour(colour: int) -> int:
    if colour not in (shapes.BLACK, shapes.WHITE):
        raise ValueError(f"colour {colour!r} is neither BLACK (1) nor WHITE (2)")
    return int(colour)
