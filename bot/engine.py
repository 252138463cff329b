"""The engine facade: the only thing the protocol layer talks to.

new_game / set_rule / play / remove / setup / set_memory / think / stop / swap2.  Errors are
``BoardError`` (ValueError) subclasses with clear messages; the position is unchanged when one
is raised.  The engine owns every policy the protocol layer must not: how big the transposition
table is, which search a stop request is for, and the swap2 decisions.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

import psutil

from bot import driver, timeman
from bot.config import Config
from bot.core import arrays, tt
from bot.core.board import Board, Point
from bot.core.errors import BoardError
from bot.core.evaluate import evaluate
from bot.core.movepick import order_moves, refute_root_moves
from bot.core.proofnumber import (
    BOOK_QUIET_FOURS, dfpn_line, dfpn_vct, dfpn_vct_within, new_table,
)
from bot.core.threats import leaf_vcf, threat_defences, vcf_first_move, vct
from bot.core.score import MATE, MATE_BOUND
from bot.core.searchstate import (
    C_GENERATION, C_NODE_LIMIT, C_NODES, C_ROOT_FILTER, C_SELDEPTH, C_STOP, C_TSS_NODES, MAX_PLY,
    SearchState, forget_heuristics, forget_threats, new_search_state, reset_control,
)
from bot.limits import Limits, Result, SearchInfo, StopCause, Swap2Answer

if TYPE_CHECKING:
    from numpy import ndarray

MIB = 2**20
# Table size when hash_size asks for none (max_memory can only shrink it): 2^20 entries hold a
# 5 s search (~1.5 M nodes) and keep the whole brain near 60 MiB, well under the 100 MB a
# tournament brain should stay under; more helps only longer searches (INFO hash_size).
DEFAULT_TT_MIB = 32
# Kept free under max_memory for what the table sizing cannot see: Python objects, thread
# stacks, input lines, numpy temporaries.  Larger is safer, smaller leaves a bigger table.
MEMORY_HEADROOM = 48 * MIB
# Never take more than this share of the machine's free memory for the table, whatever asked.
AVAILABLE_SHARE = 0.5
MAX_DEPTH = 60  # iterative deepening stops here even with time left
# swap2: each of the (up to two) searches gets this share of the turn; |score| below
# SWAP2_MARGIN counts as balanced.  A larger margin swaps less and proposes more.
SWAP2_SHARE = 0.3
SWAP2_MARGIN = 150
# Depth of the search that scores each candidate opening of the first swap2 stage: deeper judges
# the openings better and needs more of the turn.
SWAP2_OPENING_DEPTH = 6


# After a book move, positions that leave the book are won by threats (the book's proof closes
# them that way), so the threat search then gets this many nodes and threats, whatever the
# settings say: enough for the proofs' threat lines, bounded by the turn's hard stop anyway.
BOOK_VCT_NODES = 300_000
BOOK_VCT_THREATS = 16
# ... and where that finds none, the df-pn with the book's quiet threats, as the book's prover
# closes replies with it (within 20000 nodes, 500000 in a sweep: first bounded by the moves
# the book's budget leaves, then unbounded, dfpn_vct_within) gets up to this many nodes, and
# this many a millisecond of half the turn's hard maximum (about half the speed of the native
# kernels: more finds longer proofs, and leaves less of the turn to the search when it finds
# none), half to each of its two searches, in a table of this many entries (made at its first
# use: 5 MiB).
BOOK_DFPN_NODES = 1_000_000
BOOK_DFPN_NODES_PER_MS = 600
BOOK_DFPN_ENTRIES = 1 << 17
# Share of the turn's hard maximum the book may spend proving a position it leaves out, in a
# game that follows it: more proves more of them, less leaves more of the turn to the search
# when the proof fails.
BOOK_PROOF_SHARE = 0.4


class BookProbe(Protocol):
    """What the engine asks of an opening book (opening_book.book.Book)."""

    budget: int  # stones on the board at the end of the book's longest line

    def probe(self, board: Board, seconds: float = 0.0) -> Point | None:
        """The book's move for the side to move, or None when the position is not in it; it
        may spend up to ``seconds`` proving a position it leaves out (opening_book.book)."""


class Engine:
    """One game at a time; ``think`` may be stopped from another thread with ``stop``."""

    def __init__(self, config: Config | None = None, book: BookProbe | None = None) -> None:
        self.config = config or Config()
        self.book = book  # the strategy-graph book, probed before every search
        self._book_line = False  # a book move was played in this game
        self.board: Board | None = None
        self._search: SearchState = new_search_state(
            tt.MIN_ENTRIES, self.config.as_array(), self.config.order_values)
        self._dfpn_table: tuple[ndarray, ndarray] | None = None  # made at first use
        self._book_dfpn_table: tuple[ndarray, ndarray] | None = None  # ... and this one too
        self._memory = (0, 0)  # (max_memory bytes, hash_size MiB) the table was last sized for
        self._table_sized = False
        self._table_used = False  # a search has written to the table since it was cleared
        self._kernels_loaded = False
        self._lock = threading.Lock()  # guards the stop bookkeeping below
        self._searches = 0  # searches started so far (each timer knows its own)
        self._running: int | None = None  # request number of the running search
        self._running_search = 0
        self._stop_before = 0  # searches for requests numbered below this are stopped
        self._stop_cause: StopCause | None = None

    # --- game state ---------------------------------------------------------------------------
    def new_game(self, width: int, height: int, rule: int) -> None:
        """Start an empty board; raises SizeError / RuleError and keeps the old game if refused.
        The table is cleared: entries of another game would only mislead."""
        self.board = Board(width, height, rule, self.config.cell_values)
        self._book_line = False
        self.clear_hash()

    def set_rule(self, rule: int) -> None:
        """Play on under another rule: the same stones, a cleared table (RuleError if refused)."""
        board = self.board
        if board is None or board.rule == rule:
            return
        replayed = Board(board.width, board.height, rule, self.config.cell_values)
        replayed.setup([(x, y, board.stone(x, y)) for x, y in board.moves()])
        self.board = replayed
        self.clear_hash()

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
    def set_memory(self, max_memory: int = 0, hash_mib: int = 0) -> None:
        """Ask for a table of ``hash_mib`` MiB (0: DEFAULT_TT_MIB), shrunk so the whole process
        stays under ``max_memory`` bytes (0: no limit).  It is built before the next search."""
        if (max_memory, hash_mib) != self._memory:
            self._memory = (max(0, max_memory), max(0, hash_mib))
            self._table_sized = False

    def table_bytes(self) -> int:
        """Size of the transposition table (sized now if a request is pending)."""
        self._size_table()
        return tt.table_bytes(self._search.tt_keys, self._search.tt_data)

    def clear_hash(self) -> None:
        if self._table_used:  # an unused table is clear, and clearing would touch every page
            tt.clear(self._search.tt_keys)
            forget_threats(self._search)
            self._table_used = False

    def _size_table(self) -> None:
        """Build the table the last ``set_memory`` asked for, never more than the machine has
        free.  Under max_memory the old table is released first and the kernels are loaded
        before the process is measured, so what is measured is what the process will use
        besides the table; the new table is then made resident at once (tt.new_table), so a
        full table costs no more than an empty one."""
        if self._table_sized:
            return
        max_memory, hash_mib = self._memory
        keys, data = tt.new_table(tt.MIN_ENTRIES)  # the old table goes before measuring
        self._search = self._search._replace(tt_keys=keys, tt_data=data)
        self._table_sized = True  # the small table stands if sizing fails
        self._table_used = False
        wanted = (hash_mib or DEFAULT_TT_MIB) * MIB
        if max_memory > 0:
            self._load_kernels()
            wanted = min(wanted, max_memory - _process_bytes() - MEMORY_HEADROOM)
        wanted = min(wanted, int(psutil.virtual_memory().available * AVAILABLE_SHARE))
        entries = wanted // tt.ENTRY_BYTES
        while entries > tt.MIN_ENTRIES:
            try:
                keys, data = tt.new_table(entries, resident=max_memory > 0)
                break
            except MemoryError:  # the largest table that fits
                entries //= 2
        self._search = self._search._replace(tt_keys=keys, tt_data=data)

    def _load_kernels(self) -> None:
        """Run every search kernel once on a small board, so their machine code is loaded (or
        compiled) before memory is measured rather than during the first real search."""
        if self._kernels_loaded:
            return
        board = Board(7, 7, 0, self.config.cell_values)
        board.setup([(3, 3, 1), (3, 4, 2), (4, 4, 1)])
        scratch = new_search_state(tt.MIN_ENTRIES, self.config.as_array(),
                                   self.config.order_values)
        for _ in driver.iterate(board, scratch, board.side_to_move(), 2):
            pass
        driver.principal_variation(board, scratch, board.cell(2, 2), 2)
        self._kernels_loaded = True

    # --- thinking -----------------------------------------------------------------------------
    def stop(self, issued_at: int | None = None) -> None:
        """Ask for a move now (thread-safe).  With ``issued_at``, the number of the request that
        asks (the brain numbers its input lines), every search for an earlier request stops,
        the running one and one that has not started yet; without it, the running search."""
        with self._lock:
            if issued_at is not None:
                self._stop_before = max(self._stop_before, issued_at)
            if self._running is not None and (issued_at is None or self._running < issued_at):
                self._stop_cause = "request"
                self._search.ctrl[C_STOP] = 1

    def _time_up(self, search: int) -> None:
        with self._lock:
            if self._running is not None and self._running_search == search:
                self._stop_cause = self._stop_cause or "time"
                self._search.ctrl[C_STOP] = 1

    def evaluate(self) -> int:
        """Static score for the side to move (no search)."""
        board = self.require_board()
        return int(evaluate(board.state, board.side_to_move()))

    def think(self, limits: Limits, on_info: Callable[[SearchInfo], None] | None = None,
              request: int | None = None) -> Result:
        """Choose a legal move for the side to move within the limits.  ``request`` numbers the
        request this search answers (see ``stop``); None: a request after every stop so far."""
        board = self.require_board()
        start = time.perf_counter()
        if board.is_full():
            raise BoardError("the board is full")
        self._size_table()
        colour = board.side_to_move()
        fallback = self.fallback_move()
        ss = self._search
        with self._lock:
            self._searches += 1
            search = self._searches
            self._running = self._stop_before if request is None else request
            self._running_search = search
            self._stop_cause = None
            self._table_used = True
            reset_control(ss)
            ss.ctrl[C_NODE_LIMIT] = limits.max_nodes
            ss.ctrl[C_GENERATION] = search & tt.GENERATION_MASK
            forget_heuristics(ss)
            if self._stop_before > self._running:
                self._stop_cause = "request"
                ss.ctrl[C_STOP] = 1
        try:
            if self.book is not None:
                maximum_ms = timeman.budget(limits, self.config.optimum_percent).maximum_ms
                booked = self.book.probe(board, maximum_ms * BOOK_PROOF_SHARE / 1000)
                if booked is not None:
                    self._book_line = True
                    return Result(booked, 0, 0, 0, _ms_since(start), "book")
                limits = dataclasses.replace(limits,
                                             startup_ms=limits.startup_ms + _ms_since(start))
            if board.ply == 0:
                return Result(fallback, 0, 0, 0, _ms_since(start), "no_search")
            return self._deepen(board, colour, limits, on_info, fallback, search, start)
        finally:
            with self._lock:
                self._running = None

    def _deepen(self, board: Board, colour: int, limits: Limits,
                on_info: Callable[[SearchInfo], None] | None, fallback: Point, search: int,
                start: float) -> Result:
        ss = self._search
        budget = timeman.budget(limits, self.config.optimum_percent)
        timer = threading.Timer(budget.maximum_ms / 1000.0, self._time_up, (search,))
        timer.daemon = True
        timer.start()
        won = self._threat_win(board, colour, budget.maximum_ms)
        if won is not None:
            timer.cancel()
            plies, line = won
            nodes = int(ss.ctrl[C_NODES])
            if on_info is not None:
                on_info(SearchInfo(0, plies, MATE - plies, nodes, _ms_since(start),
                                   [board.point(cell) for cell in line]))
            return Result(board.point(line[0]), MATE - plies, 0, nodes, _ms_since(start),
                          "proven")
        defences = self._root_defences(board, colour, budget.maximum_ms)
        if defences == 1:  # one move stops the opponent's win by fours: nothing to search
            timer.cancel()
            cell = arrays.first_nonzero(ss.root_mask)
            return Result(board.point(cell), 0, 0, int(ss.ctrl[C_NODES]), _ms_since(start),
                          "forced")
        settings = self.config
        if defences <= 0 and settings.root_vct_defence_nodes > 0:
            refute_root_moves(board.state, ss, colour, settings.branch,
                              settings.root_vct_defence_threats, settings.root_vct_defence_nodes)
        best_cell, score, depth = board.cell(*fallback), 0, 0
        max_depth = min(limits.max_depth or MAX_DEPTH, MAX_DEPTH)
        cause: StopCause | None = None
        pacing = timeman.Pacing(budget) if self.config.pacing else None
        try:
            for iteration in driver.iterate(board, ss, colour, max_depth):
                depth, score = iteration.depth, iteration.score
                if iteration.best_cell >= 0:
                    best_cell = iteration.best_cell
                optimum_ms = budget.optimum_ms
                if pacing is not None:
                    pacing.update(best_cell, score)
                    optimum_ms = pacing.optimum_ms
                if on_info is not None:
                    pv = driver.principal_variation(board, ss, best_cell, depth)
                    on_info(SearchInfo(depth, int(ss.ctrl[C_SELDEPTH]), score,
                                       int(ss.ctrl[C_NODES]), _ms_since(start),
                                       [board.point(c) for c in pv]))
                if _ms_since(start) > optimum_ms and depth < max_depth:
                    cause = "optimum"
                    break
        finally:
            timer.cancel()
        if cause is None:
            with self._lock:
                stopped, requested = bool(ss.ctrl[C_STOP]), self._stop_cause
            if stopped:
                cause = requested or "nodes"
            elif score > MATE_BOUND and depth < max_depth:
                cause = "proven"
            else:
                cause = "depth"
        move = board.point(best_cell)
        if not board.is_legal(*move, colour):
            move = fallback
        return Result(move, score, depth, int(ss.ctrl[C_NODES]), _ms_since(start), cause)

    def _root_defences(self, board: Board, colour: int, budget_ms: float) -> int:
        """With config.root_defence, when the opponent would win by fours were it its turn:
        limit the root to the moves that stop it (ctrl[C_ROOT_FILTER]) and return how many
        there are; -1 without such a threat, with a win by fours of our own, or with the switch
        off; 0 when nothing stops it (the root then keeps every move)."""
        ss = self._search
        fours = self.config.vcf_depth
        if not self.config.root_defence or fours <= 0:
            return -1
        nodes = max(1, int(budget_ms * self.config.defence_nodes_per_ms))
        if leaf_vcf(board.state, ss, colour, fours, nodes) > 0:
            return -1  # a win of our own comes first; the search finds it
        count = int(threat_defences(board.state, ss, colour, fours, nodes, ss.root_mask))
        if count > 0:
            ss.ctrl[C_ROOT_FILTER] = 1
        return count

    def _threat_win(self, board: Board, colour: int,
                    budget_ms: float) -> tuple[int, list[int]] | None:
        """(plies, cells) of a win by continuous fours (of up to root_vcf_fours fours), or
        else by continuous threats, found within the configured share of the turn (in a game
        that has followed the book, by the df-pn with the book's quiet threats where that finds
        none); or None.  The cells are its first move or, from the df-pn of ``vct_dfpn_entries``,
        the whole line (``dfpn_line``)."""
        settings = self.config
        ctrl = self._search.ctrl
        if settings.root_vcf_fours > 0:
            nodes = max(1, int(budget_ms * settings.defence_nodes_per_ms))
            line = arrays.zeros(2 * settings.root_vcf_fours + 10, "int64")
            plies, cell = vcf_first_move(board.state, self._search, colour,
                                         settings.root_vcf_fours, nodes, line)
            if plies > 0 and board.is_legal(*board.point(cell), colour):
                return plies, [cell]
        nodes = min(int(budget_ms * settings.vct_nodes_per_ms), settings.vct_max_nodes)
        threats = settings.vct_threats
        if self._book_line:
            nodes, threats = max(nodes, BOOK_VCT_NODES), max(threats, BOOK_VCT_THREATS)
        if nodes <= 0 or threats <= 0:
            return None
        before = int(ctrl[C_NODES])
        if settings.vct_dfpn_entries > 0:
            if (self._dfpn_table is None
                    or self._dfpn_table[0].shape[0] != settings.vct_dfpn_entries):
                self._dfpn_table = new_table(settings.vct_dfpn_entries)
            plies, cell = dfpn_vct(board.state, self._search, *self._dfpn_table, colour, nodes,
                                   settings.vct_quiet_fours, 0)
        else:
            plies, cell = vct(board.state, self._search, colour, threats, nodes,
                              settings.vct_quiet_fours)
            if plies == 0 and self._book_line:
                ctrl[C_NODES] = before + ctrl[C_TSS_NODES]
                before = int(ctrl[C_NODES])
                if self._book_dfpn_table is None:
                    self._book_dfpn_table = new_table(BOOK_DFPN_ENTRIES)
                dfpn_nodes = min(BOOK_DFPN_NODES, int(budget_ms / 2 * BOOK_DFPN_NODES_PER_MS))
                plies, cell = dfpn_vct_within(
                    board.state, self._search, *self._book_dfpn_table, colour, dfpn_nodes // 2,
                    BOOK_QUIET_FOURS, self.book.budget - board.ply if self.book else 0)
        ctrl[C_NODES] = before + ctrl[C_TSS_NODES]  # its VCF probes are counted there too
        if plies == 0 or cell < 0 or not board.is_legal(*board.point(cell), colour):
            return None
        if settings.vct_dfpn_entries > 0 and self._dfpn_table is not None:
            line = arrays.zeros(2 * MAX_PLY, "int64")
            length = dfpn_line(board.state, self._search, *self._dfpn_table, colour,
                               settings.vct_quiet_fours, nodes, line)
            if length > 0 and line[0] == cell:
                return plies, [int(line[i]) for i in range(length)]
        return plies, [cell]

    def fallback_move(self) -> Point:
        """A legal move without search: the best-ordered candidate, else the most central
        legal cell (BoardError on a full board)."""
        board = self.require_board()
        colour = board.side_to_move()
        count, _ = order_moves(board.state, self._search, 0, colour, -1, False)
        if count:
            return board.point(int(self._search.moves[0, 0]))
        cx, cy = board.width // 2, board.height // 2
        empty = sorted(board.empty_points(), key=lambda p: (p[0] - cx) ** 2 + (p[1] - cy) ** 2)
        if not empty:
            raise BoardError("the board is full")
        for point in empty:
            if board.is_legal(*point, colour):
                return point
        return empty[0]  # renju black with only fouls left: any empty cell (it loses anyway)

    # --- swap2 --------------------------------------------------------------------------------
    def swap2(self, limits: Limits, request: int | None = None) -> Swap2Answer:
        """Our turn in the swap2 opening; the board holds the stones placed so far (black,
        white, black, ...), and the stones we place are played on it.

        0 stones: we propose the three (black, white, black) around the centre that a short
        search finds most balanced (``balanced_opening``).
        3 stones: we are white by default.  Black clearly better: SWAP (we take black); white
        clearly better: play white's move; balanced: add a white and a black stone and let the
        opponent choose.  5 stones: SWAP when white to move is worse, else play white's move."""
        board = self.require_board()
        stones = board.ply
        if stones not in (0, 3, 5):
            raise BoardError(f"swap2 with {stones} stones (0, 3 or 5 expected)")
        if stones == 0:
            opening, _ = self.balanced_opening(limits, request)
            self.setup([(x, y, colour) for (x, y), colour in zip(opening, (1, 2, 1))])
            return Swap2Answer(False, opening)
        share = dataclasses.replace(limits,
                                    timeout_turn_ms=int(limits.timeout_turn_ms * SWAP2_SHARE))
        white = self.think(share, request=request)  # white to move
        margin = 0 if stones == 5 else SWAP2_MARGIN
        if white.score < -margin:
            return Swap2Answer(True)
        self.play(*white.move)
        if stones == 5 or white.score > margin:
            return Swap2Answer(False, (white.move,))
        black = self.think(share, request=request)
        self.play(*black.move)
        return Swap2Answer(False, (white.move, black.move))


    def balanced_opening(self, limits: Limits, request: int | None = None
                         ) -> tuple[tuple[Point, Point, Point], int]:
        """The three-stone opening (black on the centre, white beside it, black within two
        cells) whose searched score for white to move is nearest 0, and that score.  Every
        such opening up to symmetry (the 26 of renju's tradition on a square board) gets a
        search of at most SWAP2_OPENING_DEPTH plies and an equal share of SWAP2_SHARE of the
        turn; the board is left empty."""
        board = self.require_board()
        cx, cy = board.width // 2, board.height // 2
        centre = (cx, cy)
        candidates: list[tuple[Point, Point, Point]] = []
        seen: set[int] = set()
        for white in ((cx + 1, cy), (cx + 1, cy - 1)):
            for dy in range(-2, 3):
                for dx in range(-2, 3):
                    black = (cx + dx, cy + dy)
                    if black in (centre, white):
                        continue
                    self.setup([(*centre, 1), (*white, 2), (*black, 1)])
                    key = board.canonical_key()[0]
                    if key not in seen:
                        seen.add(key)
                        candidates.append((centre, white, black))
        share = int(limits.timeout_turn_ms * SWAP2_SHARE / len(candidates))
        depth = min(limits.max_depth or SWAP2_OPENING_DEPTH, SWAP2_OPENING_DEPTH)
        each = dataclasses.replace(limits, timeout_turn_ms=max(share, 1), max_depth=depth)
        best, best_score = candidates[0], None
        for opening in candidates:
            self.setup([(x, y, colour) for (x, y), colour in zip(opening, (1, 2, 1))])
            score = self.think(each, request=request).score
            if best_score is None or abs(score) < abs(best_score):
                best, best_score = opening, score
        self.setup([])
        return best, int(best_score or 0)


def _process_bytes() -> int:
    """Resident memory of this process."""
    return int(psutil.Process().memory_info().rss)


def _ms_since(start: float) -> float:
    return (time.perf_counter() - start) * 1000.0
