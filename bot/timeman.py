"""Turn budget from timeout_turn / time_left / timeout_match: an optimum and a hard maximum.

Between iterations ``next_iteration_fits`` decides whether to start another one: only if it is
expected to finish within the maximum (each iteration costs a few times the previous one).  The
maximum is enforced by the stop flag.  Everything is in milliseconds of wall-clock time.
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
# Optimum as a share of the maximum: before two iterations have been timed, none starts past it.
OPTIMUM_SHARE = 0.45
# An iteration is expected to cost the last one times the last growth seen, clamped to this
# range: a larger floor starts fewer iterations that the timer would cut (wasted time), a
# smaller one uses more of the turn.
GROWTH_RANGE = (1.5, 8.0)
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


def next_iteration_fits(budget: Budget, elapsed_ms: float, durations_ms: list[float]) -> bool:
    """Whether to start another iteration, ``elapsed_ms`` into the move, after iterations that
    took ``durations_ms``: it must be expected to end by the maximum."""
    if len(durations_ms) < 2:
        return elapsed_ms < budget.optimum_ms
    low, high = GROWTH_RANGE
    growth = min(max(durations_ms[-1] / max(durations_ms[-2], 1e-3), low), high)
    return elapsed_ms + durations_ms[-1] * growth <= budget.maximum_ms
