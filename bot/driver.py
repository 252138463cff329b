"""Iterative deepening over MTD(f), as a generator the engine stops when it likes."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from bot.core import search
from bot.core.board import Board
from bot.core.moves import make, unmake


@dataclass(frozen=True)
class Iteration:
    depth: int
    score: int
    best_cell: int  # padded index, or -1 if no move proved itself


def mtdf(board: Board, ss: search.SearchState, colour: int, depth: int,
         guess: int) -> tuple[int, int] | None:
    """Converge on the minimax score at ``depth`` with zero-window searches; None if stopped.
    Returns (score, best cell); the cell is the last one that proved a lower bound."""
    lower, upper = -search.INFINITY, search.INFINITY
    score, best = guess, -1
    while lower < upper:
        beta = score + 1 if score == lower else score
        ss.ctrl[search.C_BEST] = -1
        value = int(search.alphabeta(board.state, ss, depth, beta, 0, colour))
        if ss.ctrl[search.C_STOP]:
            return None
        if value >= beta:
            lower = value
            if ss.ctrl[search.C_BEST] >= 0:
                best = int(ss.ctrl[search.C_BEST])
        else:
            upper = value
        score = value
    return score, best


def iterate(board: Board, ss: search.SearchState, colour: int,
            max_depth: int) -> Iterator[Iteration]:
    """One Iteration per completed depth, until ``max_depth``, a proven result or a stop."""
    guess = 0
    for depth in range(1, max_depth + 1):
        found = mtdf(board, ss, colour, depth, guess)
        if found is None:
            return
        guess, best = found
        yield Iteration(depth, guess, best)
        if abs(guess) > search.MATE_BOUND:
            return


def principal_variation(board: Board, ss: search.SearchState, first: int,
                        length: int) -> list[int]:
    """The expected line from the transposition table, starting with ``first``."""
    line: list[int] = []
    cell = first
    colour = board.side_to_move()
    while cell >= 0 and len(line) < length and board.state.board[cell] == 0:
        line.append(cell)
        make(board.state, cell, colour)
        colour = 3 - colour
        key = board.state.hashes[0]
        slot = int(key) & (ss.tt_keys.shape[0] - 1)
        cell = int(ss.tt_data[slot, 2] & 0xFFFF) - 1 if ss.tt_keys[slot] == key else -1
    for _ in line:
        unmake(board.state)
    return line
