"""Search kernels: zero-window alpha-beta for MTD(f), a transposition table and VCF.

Scores are from the side to move's point of view.  A win in ``n`` plies from the root scores
``MATE - n``; a loss ``-(MATE - n)``; anything beyond ``±MATE_BOUND`` is a proven result.

Transposition table (``SearchState.tt_keys`` / ``tt_data``), one entry per slot, replaced always:
    tt_keys[i]    full 64-bit Zobrist key of the position (0 = empty slot)
    tt_data[i, 0] lower bound, tt_data[i, 1] upper bound (mate scores stored relative to the node)
    tt_data[i, 2] depth << 16 | (best cell + 1)

Control block ``ctrl`` (int64[CTRL_SLOTS]), shared with Python: a timer thread sets
``ctrl[C_STOP]``; the kernels poll it at every node and unwind with meaningless scores, which the
driver then discards.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import types

from bot.core.jit import kernel
from bot.core.moves import foul_kind, make, unmake
from bot.core.shapes import BLACK, C_DOUBLE_FOUR, C_DOUBLE_THREE, C_FIVE, C_FOUR, C_OPEN_FOUR
from bot.core.shapes import OVERLINE
from bot.core.state import M_CANDIDATES, M_RULE, RULE_RENJU, BoardState, state_type

MATE = 30000
MATE_BOUND = MATE - 2000
INFINITY = 32000
MAX_PLY = 128  # deepest ply the move buffers hold (forced-move extensions included)
MAX_MOVES = 1024  # 32 x 32 board

# ctrl[] slots
C_STOP, C_NODES, C_NODE_LIMIT, C_BEST, C_SELDEPTH = range(5)
CTRL_SLOTS = 8

# config[] slots (bot.config fills them; see the comments there for what each trades off)
P_BRANCH, P_VCF_DEPTH, P_LEAF_VCF = range(3)
P_OWN = 3  # 12 weights, one per class, for the side to move
P_OPP = P_OWN + 12  # 12 weights, one per class, for the opponent's cells
CONFIG_SLOTS = P_OPP + 12


class SearchState(NamedTuple):
    """Buffers a search owns; made once per engine and reused for every move."""

    tt_keys: np.ndarray  # uint64[n], n a power of two
    tt_data: np.ndarray  # int64[n, 3]
    ctrl: np.ndarray  # int64[CTRL_SLOTS]
    moves: np.ndarray  # int64[MAX_PLY, MAX_MOVES]: move list per ply
    scores: np.ndarray  # int64[MAX_PLY, MAX_MOVES]: ordering score per move
    config: np.ndarray  # int64[CONFIG_SLOTS]


def new_search_state(tt_entries: int, config: np.ndarray) -> SearchState:
    """Buffers for a transposition table of ``tt_entries`` (rounded down to a power of two)."""
    entries = 1 << max(10, int(tt_entries).bit_length() - 1)
    return SearchState(
        tt_keys=np.zeros(entries, dtype=np.uint64),
        tt_data=np.zeros((entries, 3), dtype=np.int64),
        ctrl=np.zeros(CTRL_SLOTS, dtype=np.int64),
        moves=np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int64),
        scores=np.zeros((MAX_PLY, MAX_MOVES), dtype=np.int64),
        config=np.ascontiguousarray(config, dtype=np.int64),
    )


TT_ENTRY_BYTES = 8 + 3 * 8


def search_state_type():  # -> numba type
    import numba

    sample = SearchState(
        tt_keys=np.zeros(0, np.uint64), tt_data=np.zeros((0, 0), np.int64),
        ctrl=np.zeros(0, np.int64), moves=np.zeros((0, 0), np.int64),
        scores=np.zeros((0, 0), np.int64), config=np.zeros(0, np.int64))
    return numba.typeof(sample)


@kernel(types.boolean(state_type(), types.int64, types.int64))
def is_legal(st: BoardState, cell: int, colour: int) -> bool:
    """An empty cell is legal unless it is a renju foul for black (checked only when possible)."""
    if colour != BLACK or (st.meta[M_RULE] & RULE_RENJU) == 0:
        return True
    if st.classes[0, cell] >= C_DOUBLE_THREE and st.classes[0, cell] != C_FIVE:
        return foul_kind(st, cell) == 0
    word = st.words[0, cell]
    for direction in range(4):
        if ((word >> (4 * direction)) & 15) == OVERLINE:
            return foul_kind(st, cell) == 0
    return True


@kernel()
def scan_threats(st: BoardState, colour: int) -> tuple[int, int, int, int, bool]:
    """(own five cell or -1, opponent five count, an opponent five cell, own winning four cell
    (open four, or double four where legal) or -1, opponent has an open three)."""
    own, opp = colour - 1, 2 - colour
    own_five, opp_fives, opp_five, own_win_four = -1, 0, -1, -1
    opp_three = False
    for i in range(st.meta[M_CANDIDATES]):
        cell = st.candidates[i]
        mine = st.classes[own, cell]
        theirs = st.classes[opp, cell]
        if mine == C_FIVE:
            own_five = cell
        if theirs == C_FIVE:
            opp_fives += 1
            opp_five = cell
        elif theirs == C_OPEN_FOUR:
            opp_three = True
        if (mine == C_OPEN_FOUR or mine == C_DOUBLE_FOUR) and own_win_four < 0:
            if is_legal(st, cell, colour):
                own_win_four = cell
    return own_five, opp_fives, opp_five, own_win_four, opp_three


@kernel()
def evaluate(st: BoardState, colour: int, config: np.ndarray) -> int:
    """Static score for the side to move: class weights summed over the candidate cells."""
    own, opp = colour - 1, 2 - colour
    total = 0
    for i in range(st.meta[M_CANDIDATES]):
        cell = st.candidates[i]
        total += config[P_OWN + st.classes[own, cell]] - config[P_OPP + st.classes[opp, cell]]
    return total


@kernel(types.int64(state_type(), search_state_type(), types.int64, types.int64, types.int64))
def vcf(st: BoardState, ss: SearchState, colour: int, fours_left: int, ply: int) -> int:
    """Plies to a win by continuous fours for ``colour`` to move, or 0 if none is found within
    ``fours_left`` fours.  The defender's only replies are the forced blocks; a block that makes
    a four must be answered by a move that blocks it and is itself a four."""
    ss.ctrl[C_NODES] += 1
    if ss.ctrl[C_STOP] != 0:
        return 0
    own_five, opp_fives, opp_five, own_win_four, _ = scan_threats(st, colour)
    if own_five >= 0:
        return 1
    if opp_fives >= 2:
        return 0
    if opp_fives == 0 and own_win_four >= 0:
        return 3
    if fours_left <= 0:
        return 0
    other = 3 - colour
    for i in range(st.meta[M_CANDIDATES]):
        cell = st.candidates[i]
        if st.classes[colour - 1, cell] < C_FOUR or (opp_fives == 1 and cell != opp_five):
            continue
        if not is_legal(st, cell, colour):
            continue
        make(st, cell, colour)
        block = -1
        completions = 0
        for j in range(st.meta[M_CANDIDATES]):
            if st.classes[colour - 1, st.candidates[j]] == C_FIVE:
                completions += 1
                block = st.candidates[j]
        found = 0
        if completions >= 2 or (completions == 1 and not is_legal(st, block, other)):
            found = 3
        elif completions == 1:
            make(st, block, other)
            rest = vcf(st, ss, colour, fours_left - 1, ply + 2)
            unmake(st)
            if rest > 0:
                found = rest + 2
        unmake(st)
        if found > 0:
            return found
    return 0


@kernel()
def _tt_store(ss: SearchState, key: np.uint64, depth: int, score: int, beta: int, move: int,
              ply: int) -> None:
    slot = key & np.uint64(ss.tt_keys.shape[0] - 1)
    stored = score
    if score > MATE_BOUND:
        stored = score + ply
    elif score < -MATE_BOUND:
        stored = score - ply
    data = ss.tt_data
    if ss.tt_keys[slot] != key or (data[slot, 2] >> 16) != depth:
        ss.tt_keys[slot] = key
        data[slot, 0] = -INFINITY
        data[slot, 1] = INFINITY
    if score >= beta:
        data[slot, 0] = stored
    else:
        data[slot, 1] = stored
    data[slot, 2] = (depth << 16) | (move + 1)


@kernel()
def _from_tt(score: int, ply: int) -> int:
    if score > MATE_BOUND and score < INFINITY:
        return score - ply
    if score < -MATE_BOUND and score > -INFINITY:
        return score + ply
    return score


@kernel()
def order_moves(st: BoardState, ss: SearchState, ply: int, colour: int, tt_move: int,
                 restrict: bool) -> int:
    """Fill ss.moves[ply] with legal candidates, best first, at most config[P_BRANCH] of them.
    With ``restrict`` (the opponent has an open three) only fours and cells on their lines."""
    own, opp = colour - 1, 2 - colour
    config = ss.config
    count = 0
    for i in range(st.meta[M_CANDIDATES]):
        cell = st.candidates[i]
        mine = st.classes[own, cell]
        theirs = st.classes[opp, cell]
        if restrict and mine < C_FOUR and theirs < C_FOUR:
            continue
        if not is_legal(st, cell, colour):
            continue
        score = config[P_OWN + mine] + config[P_OPP + theirs]
        if cell == tt_move:
            score += 1 << 40
        ss.moves[ply, count] = cell
        ss.scores[ply, count] = score
        count += 1
    keep = min(count, config[P_BRANCH])
    for i in range(keep):  # partial selection sort: the best ``keep`` moves, in order
        best = i
        for j in range(i + 1, count):
            if ss.scores[ply, j] > ss.scores[ply, best]:
                best = j
        if best != i:
            cell, score = ss.moves[ply, i], ss.scores[ply, i]
            ss.moves[ply, i], ss.scores[ply, i] = ss.moves[ply, best], ss.scores[ply, best]
            ss.moves[ply, best], ss.scores[ply, best] = cell, score
    return keep


@kernel(types.int64(state_type(), search_state_type(), types.int64, types.int64, types.int64,
                    types.int64))
def alphabeta(st: BoardState, ss: SearchState, depth: int, beta: int, ply: int,
              colour: int) -> int:
    """Zero-window search: returns a score ``>= beta`` (a lower bound) or ``< beta`` (an upper
    bound) for ``colour`` to move.  At ply 0 the move that proved ``>= beta`` goes to
    ctrl[C_BEST].  Forced blocks of a five are searched without using up depth."""
    ctrl = ss.ctrl
    ctrl[C_NODES] += 1
    if ply > ctrl[C_SELDEPTH]:
        ctrl[C_SELDEPTH] = ply
    if ctrl[C_STOP] != 0:
        return 0
    if ctrl[C_NODE_LIMIT] > 0 and ctrl[C_NODES] >= ctrl[C_NODE_LIMIT]:
        ctrl[C_STOP] = 1
        return 0
    if st.meta[M_CANDIDATES] == 0:
        return 0
    own_five, opp_fives, opp_five, own_win_four, opp_three = scan_threats(st, colour)
    if own_five >= 0:
        if ply == 0:
            ctrl[C_BEST] = own_five
        return MATE - ply - 1
    if opp_fives >= 2 or (opp_fives == 1 and not is_legal(st, opp_five, colour)):
        if ply == 0:
            ctrl[C_BEST] = opp_five
        return -(MATE - ply - 2)
    if opp_fives == 0 and own_win_four >= 0:
        if ply == 0:
            ctrl[C_BEST] = own_win_four
        return MATE - ply - 3
    if ply >= MAX_PLY - 1:
        return evaluate(st, colour, ss.config)

    key = st.hashes[0]
    slot = key & np.uint64(ss.tt_keys.shape[0] - 1)
    tt_move = -1
    if ss.tt_keys[slot] == key:
        tt_move = (ss.tt_data[slot, 2] & 0xFFFF) - 1
        if (ss.tt_data[slot, 2] >> 16) >= depth and ply > 0:
            lower = _from_tt(ss.tt_data[slot, 0], ply)
            upper = _from_tt(ss.tt_data[slot, 1], ply)
            if lower >= beta:
                return lower
            if upper < beta:
                return upper

    forced = opp_fives == 1
    if depth <= 0 and not forced:
        if ss.config[P_LEAF_VCF] and ss.config[P_VCF_DEPTH] > 0:
            plies = vcf(st, ss, colour, ss.config[P_VCF_DEPTH], ply)
            if plies > 0:
                return MATE - ply - plies
        return evaluate(st, colour, ss.config)

    if forced:
        ss.moves[ply, 0] = opp_five
        count = 1
    else:
        count = order_moves(st, ss, ply, colour, tt_move, opp_three)
    if count == 0:
        return 0
    best = -INFINITY
    best_move = ss.moves[ply, 0]
    next_depth = depth if forced else depth - 1
    for i in range(count):
        cell = ss.moves[ply, i]
        make(st, cell, colour)
        value = -alphabeta(st, ss, next_depth, 1 - beta, ply + 1, 3 - colour)
        unmake(st)
        if ctrl[C_STOP] != 0:
            return 0
        if value > best:
            best = value
            best_move = cell
            if value >= beta:
                break
    if ply == 0 and best >= beta:
        ctrl[C_BEST] = best_move
    _tt_store(ss, key, depth, best, beta, best_move, ply)
    return best
