"""Turn budget from timeout_turn / time_left / timeout_match: an optimum and a hard maximum.

The optimum is checked between iterations (do not start another one past it); the maximum is
enforced by the stop flag.  Everything is in milliseconds of wall-clock time.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.limits import UNLIMITED_MS, Limits

# Reserved on every move for process overhead and the pipe: larger is safer, smaller thinks longer.
SAFETY_MS = 60.0
# Share of the per-move limit kept back for scheduling noise on a busy machine.
SAFETY_SHARE = 0.08
# Moves we expect still to play when only match time is known: larger spends less per move.
MOVES_TO_GO = 25.0
# Optimum as a share of the maximum: iterations rarely finish past it, so stopping early saves
# time.  (Starting an iteration whenever it was predicted to end by the maximum lost its SPRT:
# -13 Elo [-44, +17] at 200 ms per move.)
OPTIMUM_SHARE = 0.45
# "Play fast" (timeout_turn 0) still searches this long.
FAST_MS = 60.0


@dataclass(frozen=True)
class Budget:
    optimum_ms: float
    maximum_ms: float


def budget(limits: Limits) -> Budget:
    """Milliseconds this move may use, start-up already spent (``limits.startup_ms``) deducted."""
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
    return Budget(optimum_ms=maximum * OPTIMUM_SHARE, maximum_ms=maximum)

