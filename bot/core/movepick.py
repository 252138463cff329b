"""Move generation and ordering for the main search."""

from __future__ import annotations

from bot.core.jit import kernel, np
from bot.core.moves import make, unmake
from bot.core.searchstate import (
    C_ROOT_FILTER, C_STOP, P_BRANCH, P_HISTORY, P_KILLERS, SearchState,
)
from bot.core.shapes import C_FOUR
from bot.core.state import M_CANDIDATES, BoardState
from bot.core.threats import is_legal, scan_threats, vct_plies

# An ordering score is the cell's ordering values (ss.order_values for the mover's and the
# opponent's shape word there) shifted left by CLASS_SHIFT, so the killer bonus and the history
# (capped below the killer bonus) only order moves whose ordering values are equal.
CLASS_SHIFT = 22
KILLER_BONUS = 1 << 21  # the newest killer gets twice this, the older one this
HISTORY_CAP = (1 << 21) - 1
TT_MOVE_BONUS = 1 << 50  # above every other score: the table's move is tried first


@kernel("int64(state, search, int64, int64, int64, boolean)")
def generate_moves(st: BoardState, ss: SearchState, ply: int, colour: int, tt_move: int,
                   restrict: bool) -> int:
    """Fill ss.moves[ply] and ss.scores[ply] with the legal candidates and their ordering
    scores, unsorted; returns how many.  With ``restrict`` (the opponent has an open three)
    only fours and cells on their lines are generated; at ply 0 under ctrl[C_ROOT_FILTER] only
    the cells of ss.root_mask.  Score: the table's move first, then the ordering values; among
    equal values killers, then history."""
    own, opp = np.uint64(colour - 1), np.uint64(2 - colour)  # (unsigned indices: no
    row = np.uint64(ply)  # negative-index wraparound, as in moves._refresh_shapes)
    config = ss.config
    use_history = config[P_HISTORY] != 0
    use_killers = config[P_KILLERS] != 0
    filtered = ply == 0 and ss.ctrl[C_ROOT_FILTER] != 0
    count = 0
    for i in range(st.meta[M_CANDIDATES]):
        cell = st.candidates[i]
        at = np.uint64(cell)
        mine = st.classes[own, at]
        theirs = st.classes[opp, at]
        if restrict and mine < C_FOUR and theirs < C_FOUR:
            continue
        if filtered and ss.root_mask[at] == 0:
            continue
        if not is_legal(st, cell, colour):
            continue
        score = np.int64(ss.order_values[0, st.words[own, at]]
                         + ss.order_values[1, st.words[opp, at]]) << CLASS_SHIFT
        if cell == tt_move:
            score += TT_MOVE_BONUS
        if use_killers:
            if cell == ss.killers[row, 0]:
                score += 2 * KILLER_BONUS
            elif cell == ss.killers[row, 1]:
                score += KILLER_BONUS
        if use_history:
            score += min(ss.history[own, at], HISTORY_CAP)
        ss.moves[row, np.uint64(count)] = cell
        ss.scores[row, np.uint64(count)] = score
        count += 1
    return count


@kernel("int64(int64[:, ::1], int64[:, ::1], int64, int64, int64)")
def select_move(moves: np.ndarray, scores: np.ndarray, ply: int, index: int, count: int) -> int:
    """One step of selection sort over ss.moves[ply] and ss.scores[ply] (passed as ``moves``
    and ``scores``, not the whole search state, which would cost a hundred arguments a call):
    move the best-scored of entries ``index..count-1`` to ``index`` and return it (the first of
    equal scores wins).  Picking moves one at a time costs nothing for the moves a cutoff never
    reaches."""
    row = np.uint64(ply)  # (unsigned indices, as in generate_moves)
    best = index
    for j in range(index + 1, count):
        if scores[row, np.uint64(j)] > scores[row, np.uint64(best)]:
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


@kernel("int64(state, search, int64, int64, int64, int64)")
def refute_root_moves(st: BoardState, ss: SearchState, colour: int, checked: int,
                      threats: int, node_limit: int) -> int:
    """Take out of the root the moves after which the opponent wins by continuous threats
    (``vct_plies``, fours and open threes, within ``threats`` threats and ``node_limit`` nodes
    a move), trying the first ``checked`` moves of the root's order: ss.root_mask marks every
    other legal candidate, ctrl[C_ROOT_FILTER] is set, and the number of moves taken out is
    returned.  A move taken out loses for sure (the VCT proves each win it finds), so only a
    longer defence is lost, and only when every candidate loses, which then keeps them all
    (returns 0, no filter).  Nothing is tried (0) when either side has a five to play or a
    win by an open four: the search settles those at once."""
    own_five, opp_fives, _, own_win_four, opp_three = scan_threats(st, colour, True)
    if own_five >= 0 or opp_fives > 0 or own_win_four >= 0:
        return 0
    count = generate_moves(st, ss, 0, colour, -1, opp_three)
    ss.root_mask[:] = 0
    for i in range(count):
        ss.root_mask[ss.moves[0, i]] = 1
    losing = 0
    for i in range(min(count, checked)):
        cell = select_move(ss.moves, ss.scores, 0, i, count)
        make(st, cell, colour)
        lost = vct_plies(st, ss, 3 - colour, threats, node_limit, 0, 1) > 0
        unmake(st)
        if ss.ctrl[C_STOP] != 0:
            break
        if lost:
            ss.root_mask[cell] = 0
            losing += 1
    if losing == 0 or losing == count:
        return 0
    ss.ctrl[C_ROOT_FILTER] = 1
    return losing
