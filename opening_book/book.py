"""The exported book: a small read-only file the engine probes (no numpy, no database).

Layout (little-endian): the 8-byte magic ``SENTEBK2``; rule, board side and stone budget (u8
each), a reserved byte; the entry count ``n``, then the proof-tree nodes and the threat-search
nodes of the *reproof* (u32 each); then ``n`` canonical keys (u64, ascending); then ``n`` moves
(u16, ``y * side + x`` in the canonical frame).  A probe finds the position's canonical key by
binary search and maps the move back through the symmetry that gave the key, so any move order
and any of the 8 symmetric images of a stored position is found.

The book leaves out the proved positions a small proof search finds again from scratch (the
reproof: ``export`` checks each with those limits, graph.py): in a game that follows the book, a
position missing from it is proved again by the prover (with more tree nodes than the check, for
a margin), and the proof tree found is then followed move by move (``probe``).  A reproof node
count of 0: every proved position is stored, and none is proved again.
"""

from __future__ import annotations

import bisect
import struct
from dataclasses import dataclass
from pathlib import Path

from bot.core.board import Board, Point
from opening_book.keys import from_canonical
from opening_book.prover import Node, Prover, ProverLimits

MAGIC = b"SENTEBK2"
HEADER = struct.Struct("<8sBBBBIII")
DATA = Path(__file__).resolve().parent / "data"
# Proof-tree nodes of a reproof in a game, per node of the export's check: more is a wider
# margin for a position reached in another move order or orientation than the check's (its move
# ordering breaks ties differently), within the time the engine gives the probe anyway.
REPROOF_MARGIN = 4


def shipped_path(rule: int, size: int) -> Path:
    return DATA / f"book-rule{rule}-{size}x{size}.bin"


@dataclass(frozen=True)
class Reproof:
    """The limits of the proof search a position left out of the book must pass (0 nodes: no
    position was left out)."""

    proof_nodes: int = 1000
    threat_nodes: int = 5000

    def limits(self, seconds: float = 0.0, margin: int = 1) -> ProverLimits:
        return ProverLimits(max_nodes=self.proof_nodes * margin, threat_nodes=self.threat_nodes,
                            max_seconds=seconds)


class Book:
    """A loaded book; ``probe(board)`` gives the move for the position, or None."""

    def __init__(self, path: Path) -> None:
        data = path.read_bytes()
        magic, self.rule, self.size, self.budget, _, count, proof_nodes, threat_nodes = \
            HEADER.unpack_from(data)
        if magic != MAGIC:
            raise ValueError(f"{path} is not a Sente book (version 2)")
        self.reproof = Reproof(proof_nodes, threat_nodes)
        start = HEADER.size
        self.keys = memoryview(data)[start: start + 8 * count].cast("Q")
        self.moves = memoryview(data)[start + 8 * count: start + 10 * count].cast("H")
        self._answered: list[Point] = []  # the moves up to and with the last move given
        # The proof tree being followed: its node at the defender's turn after the last move
        # given (so it is only ever read when the game follows the book).
        self._followed: Node | None = None

    def __len__(self) -> int:
        return len(self.keys)

    def probe(self, board: Board, seconds: float = 0.0) -> Point | None:
        """The book's move for the side to move, or None.  A position the book leaves out,
        reached by following it (the book gave the move before the last one), is proved again
        within ``seconds`` (0: it is not)."""
        if board.rule != self.rule or board.width != self.size or board.height != self.size:
            return None
        move = self._stored(board)
        if move is None and self._follows(board):
            move = self._from_tree(board)
            if move is None and seconds > 0 and self.reproof.proof_nodes > 0:
                move = self._reprove(board, seconds)
        if move is not None:
            self._answered = board.moves() + [move]
        return move

    def _stored(self, board: Board) -> Point | None:
        key, sym = board.canonical_key()
        index = bisect.bisect_left(self.keys, key)
        if index == len(self.keys) or self.keys[index] != key:
            return None
        self._followed = None
        x, y = from_canonical(board, sym, self.moves[index])
        if board.stone(x, y) or not board.is_legal(x, y, board.side_to_move()):
            return None  # a key collision: never play a wrong move from the book
        return x, y

    def _follows(self, board: Board) -> bool:
        """The book gave the move before the last one of this game."""
        moves = board.moves()
        return bool(self._answered) and moves[:-1] == self._answered

    def _from_tree(self, board: Board) -> Point | None:
        """The next move of the proof tree being followed, after the defender's last move."""
        followed = self._followed
        self._followed = None
        if followed is None:
            return None
        reply = board.cell(*board.moves()[-1])
        node = next((c for c in followed.children or [] if c.cell == reply), None)
        if node is None or not node.proved:
            return None
        return self._play_from(board, node)

    def _reprove(self, board: Board, seconds: float) -> Point | None:
        prover = Prover(board, self.reproof.limits(seconds, REPROOF_MARGIN))
        root = prover.prove_tree(self.budget)
        return self._play_from(board, root) if root.proved else None

    def _play_from(self, board: Board, node: Node) -> Point | None:
        """The move of a proved attacker node; its tree is followed from there."""
        cell = Prover.first_move(node)
        if cell < 0:
            return None
        move = board.point(cell)
        self._followed = node.best
        return move


def load_shipped(rule: int, size: int) -> Book | None:
    path = shipped_path(rule, size)
    return Book(path) if path.exists() else None
