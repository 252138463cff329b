"""The zero-window alpha-beta search that MTD(f) drives (bot.driver)."""

from __future__ import annotations

import math

from bot.core import tt
from bot.core.evaluate import evaluate
from bot.core.jit import kernel
from bot.core.moves import make, unmake
from bot.core.movepick import generate_moves, select_move
from bot.core.score import INFINITY, MATE, MATE_BOUND
from bot.core.searchstate import (
    C_BEST, C_GENERATION, C_NODE_LIMIT, C_NODES, C_SELDEPTH, C_STOP, MAX_PLY, P_BRANCH,
    P_FUTILITY_DEPTH, P_FUTILITY_MARGIN, P_HISTORY, P_INTERIOR_VCT_DEPTH, P_INTERIOR_VCT_NODES,
    P_INTERIOR_VCT_THREATS, P_KILLERS, P_LEAF_DOUBLE_THREE, P_LEAF_VCF, P_LEAF_VCF_NODES,
    P_LMR_LOG, P_LMR_MOVES, P_MOVE_COUNT, P_RAZOR_DEPTH, P_RAZOR_MARGIN, P_SINGULAR_DEPTH,
    P_SINGULAR_MARGIN, P_THREE_EXTENSION, P_VCF_DEPTH, SearchState,
)
from bot.core.shapes import C_OPEN_THREE
from bot.core.state import M_CANDIDATES, BoardState
from bot.core.threats import (
    cells_of_class, double_three_win, is_legal, leaf_vcf, scan_threats, vct_plies,
)


@kernel()
def _remember_cutoff(ss: SearchState, ply: int, colour: int, cell: int, depth: int) -> None:
    """A move refuted the opponent here: credit it in the history, make it this ply's killer."""
    if ss.config[P_HISTORY]:
        ss.history[colour - 1, cell] += depth * depth
    if ss.config[P_KILLERS] and ss.killers[ply, 0] != cell:
        ss.killers[ply, 1] = ss.killers[ply, 0]
        ss.killers[ply, 0] = cell


@kernel()
def _leaf(st: BoardState, ss: SearchState, colour: int, beta: int, ply: int, static: int
          ) -> int:
    """The score of a node searched no deeper: ``static`` (the static score for ``colour`` to
    move), or a mate when it does not hold ``beta`` and the mover wins by fours or (with
    config[P_LEAF_DOUBLE_THREE]) by a double open three."""
    if static >= beta:
        return static
    if ss.config[P_LEAF_VCF] and ss.config[P_VCF_DEPTH] > 0:
        plies = leaf_vcf(st, ss, colour, ss.config[P_VCF_DEPTH], ss.config[P_LEAF_VCF_NODES])
        if plies > 0:
            return MATE - ply - plies
    if ss.config[P_LEAF_DOUBLE_THREE] and double_three_win(st, colour):
        return MATE - ply - 5
    return static


@kernel()
def _interior_vct(st: BoardState, ss: SearchState, colour: int, depth: int, beta: int,
                  ply: int, static: int) -> int:
    """Plies to ``colour``'s win by continuous threats (it is to move and has no threat to
    answer), sought inside the search as config[P_INTERIOR_VCT_*] say, or 0: none found, or
    not sought (off, too few plies left, the static score holds beta, no open three or four
    to make).  The VCT uses the move buffers from ``ply`` on: this node's list is not made
    yet."""
    nodes = ss.config[P_INTERIOR_VCT_NODES]
    if (nodes <= 0 or depth < ss.config[P_INTERIOR_VCT_DEPTH] or static >= beta
            or cells_of_class(st, colour, C_OPEN_THREE) == 0):
        return 0
    return vct_plies(st, ss, colour, ss.config[P_INTERIOR_VCT_THREATS], nodes, 0, ply)


@kernel("int64(state, search, int64, int64, int64, int64)")
def alphabeta(st: BoardState, ss: SearchState, depth: int, beta: int, ply: int,
              colour: int) -> int:
    """Zero-window search: returns a score ``>= beta`` (a lower bound) or ``< beta`` (an upper
    bound) for ``colour`` to move.  At ply 0 the move that proved ``>= beta`` goes to
    ctrl[C_BEST].  Forced blocks of a five are searched without using up depth, and
    (config[P_SINGULAR_DEPTH]) a singular table move one ply deeper.

    A score beyond ``±MATE_BOUND`` is a proof: a loss is only claimed where every move was
    searched (a forced block, or a move list the branching cap did not cut; move-count pruning
    waits for a move that does not lose, reverse futility never runs on mate bounds).  Where
    the cap cut the list, the moves left out count as one more move worth ``-MATE_BOUND``, so
    such a node scores at least that: a likely loss, never a proven one."""
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
    own_five, opp_fives, opp_five, own_win_four, opp_three = scan_threats(st, colour, True)
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
        return evaluate(st, colour)

    key = st.hashes[0]
    tt_move, tt_score, cut = tt.probe(ss.tt_keys, ss.tt_data, key, depth, beta, ply)
    if cut and ply > 0:
        return tt_score

    forced = opp_fives == 1
    if depth <= 0 and not forced:
        return _leaf(st, ss, colour, beta, ply, evaluate(st, colour))

    if ply > 0 and not forced and not opp_three and -MATE_BOUND < beta < MATE_BOUND:
        static = evaluate(st, colour)
        plies = _interior_vct(st, ss, colour, depth, beta, ply, static)
        if plies > 0:
            return MATE - ply - plies
        margin = ss.config[P_FUTILITY_MARGIN]
        if margin > 0 and depth <= ss.config[P_FUTILITY_DEPTH] and static - margin * depth >= beta:
            return static
        margin = ss.config[P_RAZOR_MARGIN]
        if margin > 0 and depth <= ss.config[P_RAZOR_DEPTH] and static + margin * depth < beta:
            return _leaf(st, ss, colour, beta, ply, static)

    if forced:
        ss.moves[ply, 0] = opp_five
        generated = 1
    else:
        generated = generate_moves(st, ss, ply, colour, tt_move, opp_three)
    if generated == 0:
        return 0
    count = min(generated, ss.config[P_BRANCH])
    # move-count pruning: quiet moves after the first few, once one move does not lose
    pruning = ss.config[P_MOVE_COUNT] > 0 and not forced and not opp_three and ply > 0
    kept = ss.config[P_MOVE_COUNT] + int(depth ** 1.32) if pruning else count
    # (a root cut down to the defences of a threat is complete: every move left out loses to
    # a VCF, see threats.threat_defences)
    complete = count == generated
    best = -INFINITY if complete else -MATE_BOUND
    first = select_move(ss.moves, ss.scores, ply, 0, generated)
    best_move = first
    if best >= beta:  # the moves left out already hold the bound
        return best
    extended = forced or (opp_three and ss.config[P_THREE_EXTENSION] != 0)
    next_depth = depth if extended else depth - 1
    # singular extension: the table move proved a lower bound L not far shallower, and every
    # other move searched to half the depth stays below L - margin x depth
    singular_move = -1
    if (ss.config[P_SINGULAR_DEPTH] > 0 and depth >= ss.config[P_SINGULAR_DEPTH] and ply > 0
            and not forced and tt_move == first and count > 1 and 2 * ply < MAX_PLY):
        entry_depth, lower = tt.lower_bound(ss.tt_keys, ss.tt_data, key, ply)
        if entry_depth >= depth - 3 and -MATE_BOUND < lower < MATE_BOUND:
            bound = lower - ss.config[P_SINGULAR_MARGIN] * depth
            singular_move = tt_move
            for i in range(1, count):
                cell = select_move(ss.moves, ss.scores, ply, i, generated)
                make(st, cell, colour)
                value = -alphabeta(st, ss, (depth - 1) // 2, 1 - bound, ply + 1, 3 - colour)
                unmake(st)
                if ctrl[C_STOP] != 0:
                    return 0
                if value >= bound:
                    singular_move = -1
                    break
    lmr_moves = ss.config[P_LMR_MOVES]
    lmr_log = ss.config[P_LMR_LOG]
    reducible = lmr_moves > 0 and not forced and not opp_three and depth >= 2
    for i in range(count):
        cell = first if i == 0 else select_move(ss.moves, ss.scores, ply, i, generated)
        quiet = (st.classes[colour - 1, cell] < C_OPEN_THREE
                 and st.classes[2 - colour, cell] < C_OPEN_THREE)
        if i >= kept and quiet and best > -MATE_BOUND:
            continue
        reduction = 0
        if reducible and i >= lmr_moves and quiet:
            if lmr_log > 0:
                reduction = min(int(math.log(depth) * math.log(i + 1) * lmr_log / 100),
                                next_depth - 1)
            else:
                reduction = 2 if i >= 3 * lmr_moves and depth >= 4 else 1
        if cell == singular_move:
            reduction = -1  # one ply deeper
        make(st, cell, colour)
        value = -alphabeta(st, ss, next_depth - reduction, 1 - beta, ply + 1, 3 - colour)
        if reduction > 0 and value >= beta and ctrl[C_STOP] == 0:
            value = -alphabeta(st, ss, next_depth, 1 - beta, ply + 1, 3 - colour)
        unmake(st)
        if ctrl[C_STOP] != 0:
            return 0
        if value > best:
            best = value
            best_move = cell
            if value >= beta:
                if not forced:
                    _remember_cutoff(ss, ply, colour, cell, depth)
                break
    if ply == 0 and best >= beta:
        ctrl[C_BEST] = best_move
    tt.store(ss.tt_keys, ss.tt_data, key, depth, best, beta, best_move, ply,
             ctrl[C_GENERATION])
    return best
