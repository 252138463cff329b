"""Small dataclasses that cross the engine's boundary."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from bot.core.board import Point

UNLIMITED_MS = 2147483647  # the protocol's "no limit" value for time_left

# Why a search ended:
#   depth     the depth limit (Limits.max_depth, or the engine's own ceiling) was reached
#   nodes     the node limit (Limits.max_nodes) was reached
#   time      the hard time budget ran out (the timer stopped the search)
#   optimum   the soft time budget was spent: another iteration would not have finished
#   request   Engine.stop was called (YXSTOP, END), before or during the search
#   proven    the score is a proven win
#   forced    one move alone stops the opponent's win by fours: played without search
#   no_search the move needed no search (the first stone of the game)
#   book      the opening book had the position: played without search
StopCause = Literal["depth", "nodes", "time", "optimum", "request", "proven", "forced",
                    "no_search", "book"]


@dataclass(frozen=True)
class Limits:
    """What a manager allows for one move."""

    timeout_turn_ms: int = 5000  # per-move limit; 0 means "play fast"
    timeout_match_ms: int = 0  # per-game limit; 0 means none
    time_left_ms: int = UNLIMITED_MS  # time left in the game as the manager says
    time_increment_ms: int = 0  # added to time_left after each move
    max_depth: int = 0  # 0: no depth limit
    max_nodes: int = 0  # 0: no node limit
    startup_ms: float = 0.0  # already spent on this move before thinking (process start-up)


@dataclass(frozen=True)
class SearchInfo:
    """Progress after one completed iteration."""

    depth: int  # nominal depth of the iteration
    seldepth: int  # deepest ply reached, forced extensions included
    score: int  # from the mover's point of view; beyond ±28000 a proven win or loss
    nodes: int  # nodes searched so far for this move
    elapsed_ms: float  # since the search started
    pv: list[Point] = field(default_factory=list)  # expected line, mover first

    @property
    def nps(self) -> float:
        return self.nodes * 1000.0 / max(self.elapsed_ms, 1e-3)


@dataclass(frozen=True)
class Result:
    """The move chosen and how it was found."""

    move: Point
    score: int  # from the mover's point of view, as in SearchInfo
    depth: int  # last iteration that proved a move (0: none, the move is the ordering's best)
    nodes: int
    elapsed_ms: float
    stopped_by: StopCause


@dataclass(frozen=True)
class Swap2Answer:
    """A swap2 decision: take the other colour, or the stones placed (already on the board)."""

    swap: bool
    stones: tuple[Point, ...] = ()
