"""The score scale shared by every search kernel.

Scores are from the side to move's point of view.  A win in ``n`` plies from the root scores
``MATE - n``, a loss ``-(MATE - n)``; anything beyond ``±MATE_BOUND`` is a proven result.  In the
transposition table mate scores are stored relative to the node (plies counted from it), so an
entry means the same whichever root it is probed from.
"""

from __future__ import annotations

from bot.core.jit import kernel

MATE = 30000
MATE_BOUND = MATE - 2000
INFINITY = 32000  # beyond every score: the bounds of an unknown entry, and MTD(f)'s window


@kernel()
def to_node(score: int, ply: int) -> int:
    """A score from the root's count to the count of a node ``ply`` plies below it."""
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


@kernel()
def to_root(score: int, ply: int) -> int:
    """The inverse of ``to_node``; the unknown-entry bounds ``±INFINITY`` are kept as they are."""
    if score > MATE_BOUND and score < INFINITY:
        return score - ply
    if score < -MATE_BOUND and score > -INFINITY:
        return score + ply
    return score
