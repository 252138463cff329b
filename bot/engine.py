"""The engine facade: the only thing the protocol layer talks to.

new_game / play / remove / setup / think / stop.  Errors are ``BoardError`` (ValueError)
subclasses with clear messages; the position is unchanged when one is raised.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable

from bot import driver, timeman
from bot.config import Config
from bot.core import search
from bot.core.board import Board, Point
from bot.core.errors import BoardError
from bot.limits import Limits, Result, SearchInfo

DEFAULT_TT_MIB = 64  # transposition table when no memory limit is given
MIN_TT_MIB = 1
MAX_DEPTH = 60  # iterative deepening stops here even with time left


class Engine:
    """One game at a time; ``think`` may be stopped from another thread with ``stop``."""

    def __init__(self, config: Config | None = None, book: object | None = None) -> None:
        self.config = config or Config()
        self.book = book
        self.board: Board | None = None
        self._search = search.new_search_state(
            DEFAULT_TT_MIB * 2**20 // search.TT_ENTRY_BYTES, self.config.as_array())
        self._stop_requested = False

    # --- game state ---------------------------------------------------------------------------
    def new_game(self, width: int, height: int, rule: int) -> None:
        """Start an empty board; raises SizeError / RuleError and keeps the old game if refused."""
        self.board = Board(width, height, rule)

    def require_board(self) -> Board:
        if self.board is None:
            raise BoardError("no game: send START first")
        return self.board

    def play(self, x: int, y: int, colour: int | None = None) -> bool:
        """Place a stone; returns whether it won."""
        return self.require_board().play(x, y, colour)

    def remove(self, x: int, y: int) -> None:
        self.require_board().remove(x, y)

    def setup(self, stones: Iterable[tuple[int, int, int]]) -> None:
        self.require_board().setup(stones)

    # --- memory -------------------------------------------------------------------------------
    def resize_table(self, mebibytes: float) -> None:
        """Transposition table of about ``mebibytes`` (at least MIN_TT_MIB); cleared."""
        entries = int(max(MIN_TT_MIB, mebibytes) * 2**20) // search.TT_ENTRY_BYTES
        self._search = search.new_search_state(entries, self._search.config)

    def table_bytes(self) -> int:
        return int(self._search.tt_keys.nbytes + self._search.tt_data.nbytes)

    def clear_hash(self) -> None:
        self._search.tt_keys[:] = 0

    # --- thinking -----------------------------------------------------------------------------
    def stop(self) -> None:
        """Ask a running ``think`` to return its best move now (thread-safe)."""
        self._stop_requested = True
        self._search.ctrl[search.C_STOP] = 1

    def evaluate(self) -> int:
        """Static score for the side to move (no search)."""
        board = self.require_board()
        return int(search.evaluate(board.state, board.side_to_move(), self._search.config))

    def think(self, limits: Limits, on_info: Callable[[SearchInfo], None] | None = None
              ) -> Result:
        """Choose a legal move for the side to move within the limits."""
        board = self.require_board()
        start = time.perf_counter()
        if board.is_full():
            raise BoardError("the board is full")
        colour = board.side_to_move()
        fallback = self._fallback_move(board, colour)
        ss = self._search
        ss.ctrl[:] = 0
        ss.ctrl[search.C_NODE_LIMIT] = limits.max_nodes
        self._stop_requested = False
        if board.ply == 0:
            return Result(fallback, 0, 0, 0, _ms_since(start))
        budget = timeman.budget(limits)
        timer = threading.Timer(budget.maximum_ms / 1000.0, self.stop)
        timer.daemon = True
        timer.start()
        best_cell, score, depth = board.cell(*fallback), 0, 0
        try:
            max_depth = limits.max_depth or MAX_DEPTH
            for iteration in driver.iterate(board, ss, colour, max_depth):
                depth, score = iteration.depth, iteration.score
                if iteration.best_cell >= 0:
                    best_cell = iteration.best_cell
                if on_info is not None:
                    pv = driver.principal_variation(board, ss, best_cell, depth)
                    on_info(SearchInfo(depth, int(ss.ctrl[search.C_SELDEPTH]), score,
                                       int(ss.ctrl[search.C_NODES]), _ms_since(start),
                                       [board.point(c) for c in pv]))
                if _ms_since(start) > budget.optimum_ms or self._stop_requested:
                    break
        finally:
            timer.cancel()
        move = board.point(best_cell)
        if not board.is_legal(*move, colour):
            move = fallback
        return Result(move, score, depth, int(ss.ctrl[search.C_NODES]), _ms_since(start))

    def _fallback_move(self, board: Board, colour: int) -> Point:
        """A legal move without search: the best-ordered candidate, else the most central cell."""
        count = search.order_moves(board.state, self._search, 0, colour, -1, False)
        if count:
            return board.point(int(self._search.moves[0, 0]))
        cx, cy = board.width // 2, board.height // 2
        empty = sorted(board.empty_points(), key=lambda p: (p[0] - cx) ** 2 + (p[1] - cy) ** 2)
        for point in empty:
            if board.is_legal(*point, colour):
                return point
        return empty[0]  # renju black with only fouls left: any empty cell (it loses anyway)


def _ms_since(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0


