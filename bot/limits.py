"""Small dataclasses that cross the engine's boundary."""

from __future__ import annotations

from dataclasses import dataclass, field

UNLIMITED_MS = 2147483647  # the protocol's "no limit" value for time_left


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
    pv: list[tuple[int, int]] = field(default_factory=list)  # expected line, mover first

    @property
    def nps(self) -> float:
        return self.nodes * 1000.0 / max(self.elapsed_ms, 1e-3)


@dataclass(frozen=True)
class Result:
    """The move chosen and how it was found."""

    move: tuple[int, int]
    score: int
    depth: int
    nodes: int
    elapsed_ms: float
