"""The exported book: a small read-only file the engine probes (no numpy, no database).

Layout (little-endian): the 8-byte magic ``SENTEBK1``; rule (u8), board side (u8), two
reserved bytes, the entry count ``n`` (u32); then ``n`` canonical keys (u64, ascending); then
``n`` moves (u16, ``y * side + x`` in the canonical frame).  A probe finds the position's
canonical key by binary search and maps the move back through the symmetry that gave the key,
so any move order and any of the 8 symmetric images of a stored position is found.
"""

from __future__ import annotations

import bisect
import struct
from pathlib import Path

from bot.core.board import Board, Point
from opening_book.keys import from_canonical

MAGIC = b"SENTEBK1"
HEADER = struct.Struct("<8sBBHI")
DATA = Path(__file__).resolve().parent / "data"


def shipped_path(rule: int, size: int) -> Path:
    return DATA / f"book-rule{rule}-{size}x{size}.bin"


class Book:
    """A loaded book; ``probe(board)`` gives the stored move for the position, or None."""

    def __init__(self, path: Path) -> None:
        data = path.read_bytes()
        magic, self.rule, self.size, _, count = HEADER.unpack_from(data)
        if magic != MAGIC:
            raise ValueError(f"{path} is not a Sente book")
        start = HEADER.size
        self.keys = memoryview(data)[start: start + 8 * count].cast("Q")
        self.moves = memoryview(data)[start + 8 * count: start + 10 * count].cast("H")

    def __len__(self) -> int:
        return len(self.keys)

    def probe(self, board: Board) -> Point | None:
        if board.rule != self.rule or board.width != self.size or board.height != self.size:
            return None
        key, sym = board.canonical_key()
        index = bisect.bisect_left(self.keys, key)
        if index == len(self.keys) or self.keys[index] != key:
            return None
        x, y = from_canonical(board, sym, self.moves[index])
        if board.stone(x, y) or not board.is_legal(x, y, board.side_to_move()):
            return None  # a key collision: never play a wrong move from the book
        return x, y


def load_shipped(rule: int, size: int) -> Book | None:
    path = shipped_path(rule, size)
    return Book(path) if path.exists() else None
