"""Move generation and ordering for the main search."""

from __future__ import annotations

from bot.core.jit import kernel, np
from bot.core.searchstate import (
    C_ROOT_FILTER, P_BRANCH, P_HISTORY, P_KILLERS, SearchState,
)
from bot.core.shapes import C_FOUR
from bot.core.state import M_CANDIDATES, BoardState
from bot.core.threats import is_legal

# An ordering score is the cell's ordering values (ss.order_values for the mover's and the
# opponent's shape word there) shifted left by CLASS_SHIFT, so the killer bonus and the history
# (capped below the killer bonus) only order moves whose ordering values are equal.
CLASS_SHIFT = 22
KILLER_BONUS = 1 << 21  # the newest killer gets twice this, the older one this
HISTORY_CAP = (1 << 21) - 1
TT_MOVE_BONUS = 1 << 50  # above every other score: the table's move is tried first


@kernel()
def generate_moves(st: BoardState, ss: SearchState, ply: int, colour: int, tt_move: int,
                   restrict: bool) -> int:
    """Fill ss.moves[ply] and ss.scores[ply] with the legal candidates and their ordering
    scores, unsorted; returns how many.  With ``restrict`` (the opponent has an open three)
    only fours and cells on their lines are generated; at ply 0 under ctrl[C_ROOT_FILTER] only
    the cells of ss.root_mask.  Score: the table's move first, then the ordering values; among
    equal values killers, then history."""
    own, opp = colour - 1, 2 - colour
    config = ss.config
    use_history = config[P_HISTORY] != 0
    use_killers = config[P_KILLERS] != 0
    filtered = ply == 0 and ss.ctrl[C_ROOT_FILTER] != 0
    count = 0
    for i in range(st.meta[M_CANDIDATES]):
        cell = st.candidates[i]
        mine = st.classes[own, cell]
        theirs = st.classes[opp, cell]
        if restrict and mine < C_FOUR and theirs < C_FOUR:
            continue
        if filtered and ss.root_mask[cell] == 0:
            continue
        if not is_legal(st, cell, colour):
            continue
        score = np.int64(ss.order_values[0, st.words[own, cell]]
                         + ss.order_values[1, st.words[opp, cell]]) << CLASS_SHIFT
        if cell == tt_move:
            score += TT_MOVE_BONUS
        if use_killers:
            if cell == ss.killers[ply, 0]:
                score += 2 * KILLER_BONUS
            elif cell == ss.killers[ply, 1]:
                score += KILLER_BONUS
        if use_history:
            score += min(ss.history[own, cell], HISTORY_CAP)
        ss.moves[ply, count] = cell
        ss.scores[ply, count] = score
        count += 1
    return count


@kernel("int64(int64[:, ::1], int64[:, ::1], int64, int64, int64)")
def select_move(moves: np.ndarray, scores: np.ndarray, ply: int, index: int, count: int) -> int:
    """One step of selection sort over ss.moves[ply] and ss.scores[ply] (passed as ``moves``
    and ``scores``, not the whole search state, which would cost a hundred arguments a call):
    move the best-scored of entries ``index..count-1`` to ``index`` and return it (the first of
    equal scores wins).  Picking moves one at a time costs nothing for the moves a cutoff never
    reaches."""
    best = index
    for j in range(index + 1, count):
        if scores[ply, j] > scores[ply, best]:
            best = j
    cell = moves[ply, best]
    if best != index:
        score = scores[ply, best]
        moves[ply, best], scores[ply, best] = moves[ply, index], scores[ply, index]
        moves[ply, index], scores[ply, index] = cell, score
    return int(cell)


@kernel()
def order_moves(st: BoardState, ss: SearchState, ply: int, colour: int, tt_move: int,
                restrict: bool) -> tuple[int, bool]:
    """``generate_moves``, then the best config[P_BRANCH] of them sorted to the front of
    ss.moves[ply]; returns (moves kept, whether they are all the moves generated)."""
    count = generate_moves(st, ss, ply, colour, tt_move, restrict)
    keep = min(count, ss.config[P_BRANCH])
    for i in range(keep):
        select_move(ss.moves, ss.scores, ply, i, count)
    return int(keep), keep == count
