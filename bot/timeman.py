"""Turn budget from timeout_turn / time_left / timeout_match: an optimum and a hard maximum.

The optimum is checked between iterations (do not start another one past it); the maximum is
enforced by the stop flag.  Everything is in milliseconds of wall-clock time.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.config import Config
from bot.limits import UNLIMITED_MS, Limits

# Reserved on every move for process overhead and the pipe: larger is safer, smaller thinks longer.
SAFETY_MS = 60.0
# Share of the per-move limit kept back for scheduling noise on a busy machine.
SAFETY_SHARE = 0.08
# Moves we expect still to play when only match time is known: larger spends less per move.
MOVES_TO_GO = 25.0
# "Play fast" (timeout_turn 0) still searches this long.
FAST_MS = 60.0


# Pacing (Config.pacing): the optimum is scaled by how unsettled the search is.  Each change of
# the best move adds CHANGE_WEIGHT to the instability, which halves every iteration; a score that
# drops by more than SCORE_DROP adds DROP_WEIGHT.  The optimum is multiplied by
# SETTLED_SCALE + instability, capped at UNSETTLED_CAP: a larger range moves more time from
# quiet moves to sharp ones, at the risk of starting iterations that the hard stop cuts.
CHANGE_WEIGHT = 0.6
SCORE_DROP = 120
DROP_WEIGHT = 0.5
SETTLED_SCALE = 0.7
UNSETTLED_CAP = 1.8


@dataclass(frozen=True)
class Budget:
    optimum_ms: float
    maximum_ms: float


class Pacing:
    """The optimum of one move, adjusted after each iteration by how settled the search is."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget
        self.instability = 0.0
        self.best = -1
        self.score: int | None = None

    def update(self, best: int, score: int) -> None:
        """Record a completed iteration's best move and score."""
        self.instability *= 0.5
        if self.best >= 0 and best != self.best:
            self.instability += CHANGE_WEIGHT
        if self.score is not None and score < self.score - SCORE_DROP:
            self.instability += DROP_WEIGHT
        self.best, self.score = best, score

    @property
    def optimum_ms(self) -> float:
        scale = min(SETTLED_SCALE + self.instability, UNSETTLED_CAP)
        return min(self.budget.optimum_ms * scale, self.budget.maximum_ms)


def budget(limits: Limits, optimum_percent: int = Config.optimum_percent) -> Budget:
    """Milliseconds this move may use, start-up already spent (``limits.startup_ms``) deducted;
    no iteration starts past ``optimum_percent`` of it (Config.optimum_percent)."""
    ceiling = float(limits.timeout_turn_ms) if limits.timeout_turn_ms > 0 else FAST_MS
    if limits.time_left_ms < UNLIMITED_MS:
        left = float(limits.time_left_ms)  # trusted over timeout_match
    elif limits.timeout_match_ms > 0:
        left = float(limits.timeout_match_ms)
    else:
        left = float("inf")
    if left != float("inf"):
        ceiling = min(ceiling, left / MOVES_TO_GO + limits.time_increment_ms, left * 0.5)
    maximum = ceiling * (1.0 - SAFETY_SHARE) - SAFETY_MS - limits.startup_ms
    maximum = max(maximum, 5.0)
    return Budget(optimum_ms=maximum * optimum_percent / 100, maximum_ms=maximum)

