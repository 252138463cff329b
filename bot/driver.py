"""Iterative deepening over MTD(f), as a generator the engine stops when it likes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from bot.core import arrays, tt
from bot.core.alphabeta import alphabeta
from bot.core.board import Board
from bot.core.score import INFINITY, MATE_BOUND
from bot.core.searchstate import C_BEST, C_STOP, SearchState


@dataclass(frozen=True)
class Iteration:
    depth: int
    score: int
    best_cell: int  # padded index, or -1 if no move proved itself
    complete: bool = True  # False: stopped, but a pass had already proved a bound with best_cell


def mtdf(board: Board, ss: SearchState, colour: int, depth: int,
         guess: int) -> tuple[int, int, bool] | None:
    """Converge on the minimax score at ``depth`` with zero-window searches.

    The first window is at ``guess``; each next one just beyond the bound the last pass
    proved, or, while passes keep failing the same way, twice as far each time (a score that
    moves a long way is reached in a few passes, not one pass per point); the bounds still
    meet at the exact score.

    Returns (score, best cell, complete); the cell is the last one that proved a lower bound.
    When stopped: None, unless a pass had already proved a lower bound with a root move (the
    best move known at this depth: it reached the bound, the moves tried before it did not);
    then that bound and move, and complete is False."""
    lower, upper = -INFINITY, INFINITY
    best = -1
    beta, step, trend = guess, 1, 0
    while lower < upper:
        ss.ctrl[C_BEST] = -1
        value = int(alphabeta(board.state, ss, depth, beta, 0, colour))
        if ss.ctrl[C_STOP]:
            if best >= 0:
                return lower, best, False
            return None
        direction = 1 if value >= beta else -1
        step = step * 2 if direction == trend else 1
        trend = direction
        if direction > 0:
            lower = value
            if ss.ctrl[C_BEST] >= 0:
                best = int(ss.ctrl[C_BEST])
            beta = min(value + step, upper)
        else:
            upper = value
            beta = max(value - step + 1, lower + 1)
    return lower, best, True


def iterate(board: Board, ss: SearchState, colour: int,
            max_depth: int) -> Iterator[Iteration]:
    """One Iteration per completed depth, until ``max_depth``, a proven win or a stop (the
    iteration a stop cut short is yielded, incomplete, when a pass had proved a bound with a
    root move).  A proven loss does not stop the deepening: deeper searches look for the
    longest resistance."""
    guess = 0
    for depth in range(1, max_depth + 1):
        found = mtdf(board, ss, colour, depth, guess)
        if found is None:
            return
        guess, best, complete = found
        yield Iteration(depth, guess, best, complete)
        if not complete or guess > MATE_BOUND:
            return


def principal_variation(board: Board, ss: SearchState, first: int, length: int) -> list[int]:
    """The expected line from the transposition table, starting with ``first``."""
    line = arrays.zeros(max(0, length), "int64")
    count = tt.principal_variation(board.state, ss.tt_keys, ss.tt_data, first,
                                   board.side_to_move(), line)
    return [int(line[i]) for i in range(count)]
