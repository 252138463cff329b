"""Positions by their canonical key, and moves in the canonical frame.

Board.canonical_key gives the smallest Zobrist key over the board's symmetric images and the
symmetry ``sym`` whose image has it (the key a position is stored under).  A move is stored as
it appears in that image (the canonical frame), so every position that is a mirror or rotation
of another, reached in any move order, shares one record; ``to_canonical``/``from_canonical``
map a cell between the board's own frame and the canonical one.
"""

from __future__ import annotations

from bot.core.board import Board
from bot.core.state import symmetry_image

# The symmetry that undoes each one (state.symmetry_image): the two quarter turns undo each
# other, every other symmetry undoes itself.
INVERSE = (0, 1, 2, 3, 4, 6, 5, 7)


def to_canonical(board: Board, sym: int, x: int, y: int) -> int:
    """The cell (x, y) of ``board`` as ``y * width + x`` in the canonical frame ``sym``."""
    cx, cy = symmetry_image(sym, x, y, board.width, board.height)
    return cy * board.width + cx


def from_canonical(board: Board, sym: int, cell: int) -> tuple[int, int]:
    """The board's own (x, y) of a canonical-frame cell (the inverse of ``to_canonical``)."""
    return symmetry_image(INVERSE[sym], cell % board.width, cell // board.width, board.width,
                          board.height)
