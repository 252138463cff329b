"""Threat kernels: legality under renju, the threat scan, and VCF (victory by continuous fours)."""

from __future__ import annotations

from numba import types

from bot.core.jit import kernel
from bot.core.moves import foul_kind, make, unmake
from bot.core.searchstate import C_NODES, C_STOP, SearchState, search_state_type
from bot.core.shapes import BLACK, C_DOUBLE_FOUR, C_DOUBLE_THREE, C_FIVE, C_FOUR, C_OPEN_FOUR
from bot.core.shapes import OVERLINE
from bot.core.state import M_CANDIDATES, M_RULE, RULE_RENJU, BoardState, state_type


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
    (open four, or double four where legal) or -1, opponent has an open three: a cell where
    it makes an open four and may legally play, so a renju three whose four-points are all
    fouls for black is no threat)."""
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
        elif theirs == C_OPEN_FOUR and not opp_three:
            opp_three = is_legal(st, cell, 3 - colour)
        if (mine == C_OPEN_FOUR or mine == C_DOUBLE_FOUR) and own_win_four < 0:
            if is_legal(st, cell, colour):
                own_win_four = cell
    return own_five, opp_fives, opp_five, own_win_four, opp_three


@kernel(types.int64(state_type(), search_state_type(), types.int64, types.int64))
def vcf(st: BoardState, ss: SearchState, colour: int, fours_left: int) -> int:
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
            rest = vcf(st, ss, colour, fours_left - 1)
            unmake(st)
            if rest > 0:
                found = rest + 2
        unmake(st)
        if found > 0:
            return found
    return 0
