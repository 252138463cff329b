"""The threat solver: depth-first proof-number search (df-pn) for a win by continuous threats.

It plays the game of the VCT in bot.core.threats (the attacker's fours, open threes and, when
asked, quiet threats; the defender's forced blocks, its answers to an open three or to a quiet
threat, its own fives, open fours and VCF) with no bound on the number of threats, or with one
deepened a threat at a time (``dfpn_vct``'s ``max_threats``): proof and
disproof numbers lead it to the attacker's move nearest a proof and the defender's reply nearest
a refutation (Nagai's df-pn, with Pawlewicz and Lew's 1 + epsilon thresholds).  A threat
sequence only adds stones, so positions never repeat along a line and the search graph has no
cycles.  Its numbers live in a table of its own (``new_table``), keyed by the position, the
attacker, the side to move and the quiet threats' fours.
"""

from __future__ import annotations

from bot.core import arrays
from bot.core.jit import int64, kernel, np
from bot.core.moves import make, resume_values, suspend_values, unmake
from bot.core.searchstate import C_TSS_LIMIT, C_TSS_MOVE, C_TSS_NODES, MAX_PLY, SearchState
from bot.core.shapes import C_FIVE, C_FOUR
from bot.core.state import M_CANDIDATES, BoardState
from bot.core.threats import (
    CELL_MASK, DEFENDER_VCF_FOURS, QUIET_KEY, VCT_KEY, attacker_moves, cells_of_class,
    count_vcf_node, defender_replies, is_legal, keep_relevant, out_of_budget, relevance_zone,
    scan_threats, three_answers, vcf, vcf_key, vcf_line, winning_four_cells, wins_by_four_after,
)

INFINITE = 1 << 40  # the proof (disproof) number of a node proved lost (won) for the attacker
# Table entry: proof number, disproof number, plies to the win of a proved node, the nodes its
# latest search took (the replacement keeps the entry that cost more), and, for a disproved
# node, the most threats left under which the disproof holds (UNLIMITED: under any number).
PN, DN, PLIES, WORK, LIMIT = range(5)
DATA_SLOTS = 5
UNLIMITED = INFINITE  # threats left of a search with no bound on its attacker's moves
WAYS = 2  # entries per bucket: a new entry takes the empty one or the one that cost less
# 1 + 1 / EPSILON_DIVISOR: a child is searched until its number passes the second best one's by
# this factor.  Smaller divisors switch less between siblings (fewer re-expansions) but follow a
# worse child longer.
EPSILON_DIVISOR = 8
# The proof number an attacker's move starts with, by the class it makes (about the defender's
# replies it leaves): a four has one, an open three a few, a quiet threat many.  Higher numbers
# for the slower threats search the forcing moves first; too high and a needed quiet threat
# waits long.
INITIAL_PN = (6, 6, 6, 6, 6, 3, 2, 1, 1, 1, 1, 1)
# The fours of the attacker's VCF sought at an attacker node's first visit (before its moves
# are listed).  Its longer wins by fours are found by the df-pn's own four moves (a four starts
# with the least proof number): a deeper probe at every node cost more than it saved (quintet
# puzzles 14, 15 and 17: 2-3x the nodes with 12 fours).
ATTACKER_VCF_FOURS = int64(2)
# The fours of the defender's VCF whose relevance zone narrows an attacker node's moves that are
# no four (``keep_relevant``): a zone found is sound whatever its length, so fewer fours only
# prune less; the search for a long one failed at most nodes and cost more than it pruned.
RELEVANCE_FOURS = int64(2)
NO_FOURS = int64(0)  # a VCF of no fours: a five or an open four only
# The fours of the VCF that makes a quiet move a threat in the df-pn the book's prover runs at
# its leaves (opening_book.prover) and the engine runs in a game that has left the book: one
# value, so that the engine finds the wins by which the book's proofs close replies.
BOOK_QUIET_FOURS = 3
DFPN_KEY = 0xA0761D6478BD642F  # xor-ed into every key: the table is not the VCF memo's
DEFENDING_KEY = 0xE7037ED1A0B428DB  # ... and into the keys of defender nodes
PROVED = int64(1)
DISPROVED = int64(-1)
OPEN = int64(0)
ATTACKING = int64(1)
DEFENDING = int64(0)
ROOT_PLY = int64(0)
NO_BOUND = int64(0)  # dfpn_vct's max_threats for a search with no bound on the threats


def new_table(entries: int) -> tuple[np.ndarray, np.ndarray]:
    """(keys, data) of a df-pn table of ``entries`` entries (a power of two, at least WAYS;
    6 x 8 bytes each)."""
    if entries < WAYS or entries & (entries - 1):
        raise ValueError(f"df-pn table entries must be a power of two >= {WAYS}: {entries}")
    return arrays.zeros(entries, "uint64"), arrays.zeros((entries, DATA_SLOTS), "int64")


@kernel("int64(uint64[::1], uint64)")
def _slot(keys: np.ndarray, key: np.uint64) -> int:
    """The table index holding ``key``, or -1."""
    first = int(np.int64(key & np.uint64(len(keys) - WAYS)))
    for index in range(first, first + WAYS):
        if keys[index] == key:
            return index
    return -1


@kernel("UniTuple(int64, 4)(uint64[::1], int64[:, ::1], uint64)")
def _probe(keys: np.ndarray, data: np.ndarray, key: np.uint64) -> tuple[int, int, int, int]:
    """(proof number, disproof number, plies, threats limit) stored for ``key``;
    (-1, 1, 0, UNLIMITED) when absent."""
    index = _slot(keys, key)
    if index < 0:
        return -1, 1, 0, UNLIMITED
    return data[index, PN], data[index, DN], data[index, PLIES], data[index, LIMIT]


@kernel("void(uint64[::1], int64[:, ::1], uint64, int64, int64, int64, int64, int64)")
def _store(keys: np.ndarray, data: np.ndarray, key: np.uint64, pn: int, dn: int, plies: int,
           work: int, limit: int) -> None:
    """Store a node's numbers (``limit``: the most threats left under which its disproof
    holds): over its own entry, else over the bucket's empty entry or the one whose search took
    the fewest nodes."""
    index = _slot(keys, key)
    if index < 0:
        first = int(np.int64(key & np.uint64(len(keys) - WAYS)))
        index = first
        for other in range(first, first + WAYS):
            if keys[other] == 0:
                index = other
                break
            if data[other, WORK] < data[index, WORK]:
                index = other
    keys[index] = key
    data[index, PN] = pn
    data[index, DN] = dn
    data[index, PLIES] = plies
    data[index, WORK] = work
    data[index, LIMIT] = limit


@kernel("UniTuple(int64, 2)(state, search, int64, int64, int64, int64, boolean, boolean)")
def _expand(st: BoardState, ss: SearchState, attacker: int, attacking: int, quiet: int,
            ply: int, seen: bool, frontier: bool) -> tuple[int, int]:
    """Decide the node or list its children: (PROVED, plies to the attacker's win),
    (DISPROVED, 0) or (OPEN, how many moves were written to ss.moves[ply], each the cell with
    a rank above CELL_MASK).

    Attacker to move: its five, an open four with no five of the defender to block, or a VCF
    (of ATTACKER_VCF_FOURS fours) proves it; two fives of the defender disprove it; one must be
    blocked (the block goes on only as a threat, or while an open three of the attacker stands,
    or as a quiet threat: the defender node after it decides); else its moves are its fours,
    open threes and, when ``quiet`` is above 0, the cells where it makes an open two
    (``attacker_moves``), those that are no four kept to the relevance zone of the defender's
    own VCF of RELEVANCE_FOURS fours (``keep_relevant``).  Defender to move: its five or open
    four disproves it (its VCF is sought by ``_mid`` once every reply is proved lost);
    two fives of the attacker, or one it may not block, prove it; one five must be blocked;
    an open three is answered at every cell where either side makes a four; a quiet move is a
    threat only when the attacker would win by ``quiet`` fours were it its turn, answered in
    the relevance zone of that win (``relevance_zone``); no threat disproves it.  A node
    ``seen`` before (it has a table entry, so it was not decided) skips the VCF searches that
    decided nothing then.  An attacker node at the ``frontier`` (no threat left to make) is
    proved only by those tests of a win at once, else disproved."""
    defender = 3 - attacker
    mover = attacker if attacking == ATTACKING else defender
    # (the open threes of the mover's opponent matter at defender nodes only)
    own_five, opp_fives, opp_five, own_win_four, opp_three = scan_threats(
        st, mover, attacking != ATTACKING)
    moves = ss.moves[ply]
    if attacking == ATTACKING:
        if own_five >= 0:
            moves[0] = own_five
            return PROVED, 1
        if opp_fives >= 2:
            return DISPROVED, 0
        if opp_fives == 0 and own_win_four >= 0:
            moves[0] = own_win_four
            return PROVED, 3
        if opp_fives == 1:
            if frontier or not is_legal(st, opp_five, attacker):
                return DISPROVED, 0
            moves[0] = opp_five
            return OPEN, 1
        plies = 0 if seen else vcf(st, ss, attacker, ATTACKER_VCF_FOURS)
        if plies > 0:
            if ply == ROOT_PLY:  # (the move that starts it is needed there only)
                line = ss.scores[ply]
                if vcf_line(st, ss, attacker, ATTACKER_VCF_FOURS, line) == 0:
                    return DISPROVED, 0  # (the node budget ran out on the way)
                moves[0] = line[0]
            return PROVED, plies
        if frontier:
            return DISPROVED, 0
        count = attacker_moves(st, ss, attacker, quiet > 0, ply)
        fours = 0
        scratch = ss.scores[ply]  # the fours, then the rest, each in its order
        for i in range(count):
            if st.classes[np.uint64(attacker - 1), np.uint64(moves[i] & CELL_MASK)] >= C_FOUR:
                scratch[fours] = moves[i]
                fours += 1
        rest = fours
        for i in range(count):
            if st.classes[np.uint64(attacker - 1), np.uint64(moves[i] & CELL_MASK)] < C_FOUR:
                scratch[rest] = moves[i]
                rest += 1
        for i in range(count):
            moves[i] = scratch[i]
        if fours < count and cells_of_class(st, defender, C_FOUR) > 0:
            count = keep_relevant(st, ss, attacker, ply, fours, count, RELEVANCE_FOURS)
        return (OPEN, count) if count > 0 else (DISPROVED, 0)
    if own_five >= 0:
        return DISPROVED, 0
    if opp_fives >= 2 or (opp_fives == 1 and not is_legal(st, opp_five, defender)):
        return PROVED, 2
    if opp_fives == 1:
        moves[0] = opp_five
        return OPEN, 1
    if own_win_four >= 0 or (not opp_three and quiet <= 0):
        return DISPROVED, 0
    if opp_three:
        count = three_answers(st, defender, moves)
    else:
        line = ss.scores[ply]
        length = vcf_line(st, ss, attacker, quiet, line)
        if length == 0:
            return DISPROVED, 0
        count = relevance_zone(st, ss, defender, line, length, moves)
    count = defender_replies(st, defender, moves, count)
    return (OPEN, count) if count > 0 else (PROVED, 2)


@kernel("int64(state, search, int64, int64)")
def _unanswered_plies(st: BoardState, ss: SearchState, attacker: int, quiet: int) -> int:
    """At a defender node (the defender to move, every reply it tries proved lost): the plies
    to the attacker's win after a reply it does not try.  Past a quiet threat, that is the
    attacker's win by ``quiet`` fours, which every cell outside its relevance zone leaves
    standing, however quickly the replies inside the zone lose; else 0 (an untried reply
    leaves a five or an open four, which win no later than any tried reply loses)."""
    _, opp_fives, _, _, opp_three = scan_threats(st, 3 - attacker, True)
    if opp_fives > 0 or opp_three or quiet <= 0:
        return 0
    return vcf(st, ss, attacker, quiet)


@kernel("UniTuple(int64, 4)(state, search, uint64[::1], int64[:, ::1], int64, int64, int64, "
        "int64, int64, int64, uint64, int64)")
def _mid(st: BoardState, ss: SearchState, keys: np.ndarray, data: np.ndarray, attacker: int,
         attacking: int, quiet: int, pn_limit: int, dn_limit: int, ply: int,
         key: np.uint64, threats: int) -> tuple[int, int, int, int]:
    """Search the node (key ``key``) until its proof number reaches ``pn_limit`` or its
    disproof number ``dn_limit``, the node is decided, or the node budget runs out; store and
    return (proof number, disproof number, plies to the win when proved, the most threats left
    under which a disproof holds).  The attacker may make at most ``threats`` more moves in the
    tree (UNLIMITED: any number); an attacker node with none left is proved only by a win at
    once (``_expand``), else disproved under that bound alone.  At ply 0 the move that proves
    the node goes to ctrl[C_TSS_MOVE].  A defender node reached for the first time stores as
    proved the replies after which the attacker has a five or an open four; once all its
    replies are proved lost, the defender's own VCF (DEFENDER_VCF_FOURS) may still refute it."""
    ctrl = ss.ctrl
    ctrl[C_TSS_NODES] += 1
    if out_of_budget(ctrl):
        return 1, 1, 0, UNLIMITED  # (nothing is known, nothing stored)
    if ply >= MAX_PLY - 1:
        return INFINITE, 0, 0, UNLIMITED  # (deeper than the move buffers: not searched)
    before = ctrl[C_TSS_NODES]
    seen = ply > ROOT_PLY and _slot(keys, key) >= 0  # (the root must find its move again)
    bounded = attacking == ATTACKING and threats <= 0
    outcome, count = _expand(st, ss, attacker, attacking, quiet, ply, seen, bounded)
    moves = ss.moves[ply]
    if outcome == PROVED:
        if ply == ROOT_PLY:
            ctrl[C_TSS_MOVE] = moves[0] & CELL_MASK
        _store(keys, data, key, 0, INFINITE, count, ctrl[C_TSS_NODES] - before, UNLIMITED)
        return 0, INFINITE, count, UNLIMITED
    if outcome == DISPROVED:
        holds = 0 if bounded else UNLIMITED
        _store(keys, data, key, INFINITE, 0, 0, ctrl[C_TSS_NODES] - before, holds)
        return INFINITE, 0, 0, holds
    child_threats = threats - 1 if attacking == ATTACKING and threats < UNLIMITED else threats
    mover = attacker if attacking == ATTACKING else 3 - attacker
    child_key_flip = np.uint64(DEFENDING_KEY)
    if attacking != ATTACKING and not seen:
        # a new defender node: the replies after which the attacker has a five or an open four
        # are proved at once, so a node lost to every reply (a double three) is seen lost now
        # rather than after the attacker's other moves were tried (a VCF sought here too would
        # be sought after every reply, most of them never visited: it cost more than it saved);
        # a reply that makes a four of the defender's is never one of them (the attacker must
        # block it, and has no five: it would have been the only reply), so it is not played
        # (read from the line keys where they tell, unplayed: the attacker's winning fours
        # after the reply, as the search of NO_FOURS fours would find them, and so counted)
        winning = ss.scores[ply]
        wins = winning_four_cells(st, attacker, winning)
        for i in range(count):
            cell = moves[i] & CELL_MASK
            if st.classes[np.uint64(mover - 1), np.uint64(cell)] >= C_FOUR:
                continue
            read = wins_by_four_after(st, attacker, winning, wins, cell)
            if read >= 0:
                plies = 0 if count_vcf_node(ctrl) else 3 * read
            else:
                make(st, cell, mover)
                plies = vcf(st, ss, attacker, NO_FOURS)
                unmake(st)
            if plies > 0:
                _store(keys, data, key ^ st.zobrist[0, mover, cell] ^ child_key_flip, 0,
                       INFINITE, plies, 0, UNLIMITED)
            elif out_of_budget(ctrl):
                break
    pn, dn, plies = 1, 1, 0
    while True:
        # this node's numbers from its children's (absent: INITIAL_PN and 1); the child to search next
        # has the least proof number at an attacker node, the least disproof number else
        # (a child disproved only under fewer threats than it has now counts as unsearched);
        # a disproof holds under the fewest threats its attacker node's children's hold (plus
        # the one it makes), the most its defender node's disproving children's hold
        best, best_value, best_other, best_plies, second = -1, INFINITE + 1, 0, 0, INFINITE
        total, deepest = 0, 0
        holds = UNLIMITED if attacking == ATTACKING else 0
        for i in range(count):
            cell = moves[i] & CELL_MASK
            child = key ^ st.zobrist[0, mover, cell] ^ child_key_flip
            child_pn, child_dn, child_plies, child_holds = _probe(keys, data, child)
            if child_dn == 0 and child_holds < child_threats:
                child_pn, child_dn = -1, 1
            if child_pn < 0:
                child_pn = INITIAL_PN[st.classes[np.uint64(mover - 1), np.uint64(cell)]] if (
                    attacking == ATTACKING) else 1
            elif child_dn == 0:
                holds = (min(holds, child_holds) if attacking == ATTACKING
                         else max(holds, child_holds))
            value, other = (child_pn, child_dn) if attacking == ATTACKING else (child_dn, child_pn)
            total = min(total + other, INFINITE)
            deepest = max(deepest, child_plies)
            if value < best_value:
                best, best_value, best_other, best_plies, second = (
                    i, value, other, child_plies, best_value)
            elif value < second:
                second = value
        second = min(second, INFINITE)
        if attacking == ATTACKING:
            pn, dn = best_value, total
        else:
            pn, dn = total, best_value
        if pn == 0 and attacking != ATTACKING:
            # every reply loses: the defender's own VCF, sought only now (most defender nodes
            # are refuted by a reply first), is its last way out
            if vcf(st, ss, 3 - attacker, DEFENDER_VCF_FOURS) > 0:
                pn, dn, holds = INFINITE, 0, UNLIMITED
            else:
                # ... and the replies not tried lose too, some perhaps later than those tried
                unanswered = _unanswered_plies(st, ss, attacker, quiet)
                if out_of_budget(ctrl):
                    return 1, 1, 0, UNLIMITED  # (cut short: nothing is known, nothing stored)
                deepest = max(deepest, unanswered)
        if pn == 0 or dn == 0:
            # a proved attacker node wins by its proving move, a defender node by its longest
            plies = 0 if dn == 0 else (best_plies if attacking == ATTACKING else deepest) + 1
            if pn == 0 and attacking == ATTACKING:
                ss.killers[ply, 0] = moves[best] & CELL_MASK
                if ply == ROOT_PLY:
                    ctrl[C_TSS_MOVE] = moves[best] & CELL_MASK
            break
        if pn >= pn_limit or dn >= dn_limit or out_of_budget(ctrl):
            break
        narrow = min(second + 1 + second // EPSILON_DIVISOR, INFINITE)
        if attacking == ATTACKING:
            child_pn_limit = min(pn_limit, narrow)
            child_dn_limit = min(dn_limit - dn + best_other, INFINITE)
        else:
            child_dn_limit = min(dn_limit, narrow)
            child_pn_limit = min(pn_limit - pn + best_other, INFINITE)
        cell = moves[best] & CELL_MASK
        make(st, cell, mover)
        _mid(st, ss, keys, data, attacker, 1 - attacking, quiet, child_pn_limit,
             child_dn_limit, ply + 1, key ^ st.zobrist[0, mover, cell] ^ child_key_flip,
             child_threats)
        unmake(st)
    if dn != 0:
        holds = UNLIMITED
    elif attacking == ATTACKING and holds < UNLIMITED:
        holds += 1
    if not out_of_budget(ctrl) or pn == 0 or dn == 0:
        _store(keys, data, key, pn, dn, plies, ctrl[C_TSS_NODES] - before, holds)
    return pn, dn, plies, holds


@kernel()
def _root_key(st: BoardState, ss: SearchState, colour: int, quiet_fours: int) -> np.uint64:
    """The table key of the position with ``colour`` to attack (and move)."""
    key = vcf_key(st, ss, colour) ^ np.uint64(DFPN_KEY) ^ np.uint64(VCT_KEY)
    if quiet_fours > 0:
        key ^= np.uint64(QUIET_KEY) ^ np.uint64(quiet_fours)
    return key


@kernel()
def dfpn_vct(st: BoardState, ss: SearchState, keys: np.ndarray, data: np.ndarray, colour: int,
             node_limit: int, quiet_fours: int, max_threats: int) -> tuple[int, int]:
    """(plies to a win by continuous threats for ``colour`` to move, its first move), or
    (0, -1) if none is proved within ``node_limit`` nodes (VCF probes included; the count is
    left in ctrl[C_TSS_NODES]).  ``quiet_fours`` above 0 admits quiet threats: moves after
    which ``colour`` would win by that many fours were it its turn again.  ``max_threats``
    above 0 bounds the attacker's moves in the tree (its win by fours at a leaf, of at most
    ATTACKER_VCF_FOURS fours, counts as none) and deepens that bound one threat at a time up
    to ``max_threats``, each pass starting from the table the passes before left: the
    shortest wins come first (the unbounded search follows the longest forcing lines first:
    a win of 23 plies in 338 k nodes where one of 13 takes 3 k), and a win that needs more is
    not sought; 0: one search with no bound.  The table
    (``new_table``) keeps what it learnt: a later search of the same or a nearby position
    starts from it.  The plies are those of the proof's longest line, not the shortest win: at
    a defender node, the most of its replies' and of the win that the replies it does not try
    leave standing (a bound on every line the defender can play, which the book's stone
    budget needs)."""
    ctrl = ss.ctrl
    ctrl[C_TSS_NODES] = 0
    ctrl[C_TSS_LIMIT] = node_limit
    ctrl[C_TSS_MOVE] = -1
    ss.killers[:, 0] = -1  # borrowed: the last proving move per ply
    valued = suspend_values(st)
    key = _root_key(st, ss, colour, quiet_fours)
    bound = max_threats if max_threats > 0 else UNLIMITED
    threats = 1 if max_threats > 0 else UNLIMITED
    while True:
        pn, dn, plies, holds = _mid(st, ss, keys, data, colour, ATTACKING, quiet_fours,
                                    INFINITE, INFINITE, ROOT_PLY, key, threats)
        if (pn == 0 or (dn == 0 and holds >= UNLIMITED) or threats >= bound
                or out_of_budget(ctrl)):
            break
        threats += 1  # (disproved under this bound only: one threat more)
    resume_values(st, valued)
    ctrl[C_TSS_LIMIT] = 0
    ss.killers[:, 0] = -1
    move = int(ctrl[C_TSS_MOVE])
    if pn != 0 or move < 0:
        return 0, -1
    return plies, move


@kernel()
def dfpn_vct_within(st: BoardState, ss: SearchState, keys: np.ndarray, data: np.ndarray,
                    colour: int, node_limit: int, quiet_fours: int,
                    plies_left: int) -> tuple[int, int]:
    """``dfpn_vct`` for a win of at most ``plies_left`` plies (a proof's longest line): first
    with the attacker's moves bounded by those the plies leave before its five, for the short
    wins, then, where that proves none that fits, with no bound, for the wins the first misses
    within its nodes (the unbounded search's win may be too long: the caller checks).  Each
    search gets ``node_limit`` nodes, the second from an emptied table; ctrl[C_TSS_NODES]
    counts both.  The book's prover closes
    its leaves with it, and the engine seeks the book's wins with it in a game that follows
    the book."""
    plies, move = dfpn_vct(st, ss, keys, data, colour, node_limit, quiet_fours,
                           max(1, (plies_left - 1) // 2))
    if 0 < plies <= plies_left:
        return plies, move
    spent = ss.ctrl[C_TSS_NODES]
    keys[:] = 0  # (the bounded search's numbers mislead the unbounded one: it starts afresh)
    plies, move = dfpn_vct(st, ss, keys, data, colour, node_limit, quiet_fours, NO_BOUND)
    ss.ctrl[C_TSS_NODES] += spent
    return plies, move


@kernel("int64(state, int64, int64)")
def _five_cell(st: BoardState, colour: int, legal_for: int) -> int:
    """A candidate cell where ``colour`` makes five and ``legal_for`` may play, or -1."""
    for i in range(st.meta[M_CANDIDATES]):
        cell = st.candidates[i]
        if (st.classes[np.uint64(colour - 1), np.uint64(cell)] == C_FIVE
                and is_legal(st, cell, legal_for)):
            return int(cell)
    return -1


@kernel("int64(state, search, uint64[::1], int64[:, ::1], int64, int64, int64, int64, uint64)")
def _proved_child(st: BoardState, ss: SearchState, keys: np.ndarray, data: np.ndarray,
                  attacker: int, attacking: int, quiet: int, ply: int, key: np.uint64) -> int:
    """For ``dfpn_line``, at a proved node that is no win by fours (key ``key``): the cell of
    its proved child of the fewest plies at an attacker node, of the most at a defender node
    (the longest defence); a child whose entry was replaced is proved again (``_mid``, within
    the node budget).  -1 when that fails."""
    outcome, count = _expand(st, ss, attacker, attacking, quiet, ply, True, False)
    if outcome != OPEN:
        return -1
    mover = attacker if attacking == ATTACKING else 3 - attacker
    moves = ss.moves[ply]
    best, best_plies = -1, 0
    # an attacker node searches again only when the table shows no proved child at all
    for again in range(0 if attacking == ATTACKING else 1, 2):
        for i in range(count):
            cell = moves[i] & CELL_MASK
            child = key ^ st.zobrist[0, mover, cell] ^ np.uint64(DEFENDING_KEY)
            pn, dn, plies, _ = _probe(keys, data, child)
            if pn != 0 and dn != 0 and again == 1:
                make(st, cell, mover)
                pn, dn, plies, _ = _mid(st, ss, keys, data, attacker, 1 - attacking, quiet,
                                        INFINITE, INFINITE, ply + 1, child, UNLIMITED)
                unmake(st)
            if pn != 0:
                if attacking != ATTACKING:
                    return -1  # a reply not proved lost
                continue
            if best < 0 or (plies < best_plies if attacking == ATTACKING
                            else plies > best_plies):
                best, best_plies = cell, plies
            if again == 1 and attacking == ATTACKING:
                return best  # (the first proved again will do)
        if best >= 0:
            break
    return best


@kernel()
def dfpn_line(st: BoardState, ss: SearchState, keys: np.ndarray, data: np.ndarray, colour: int,
              quiet_fours: int, node_limit: int, line: np.ndarray) -> int:
    """The win ``dfpn_vct`` proved from this position for ``colour`` (same table and
    ``quiet_fours``), written to ``line`` as one game: the attacker's proving moves (of the
    fewest plies) and, at each defender node, the reply that holds out longest, alternately;
    where the proof ends in a win by fours, that win's fours and forced blocks.  It ends with
    the attacker's five or, when the defender can play none of the attacker's five cells (a
    renju foul), with the attacker's move that left them.  Returns its length; 0 when the
    table holds no proof of the position or ``line`` is too short.  Proofs of the table's
    entries lost to replacement are searched again, within ``node_limit`` nodes in all.  The
    board is left as it was."""
    ctrl = ss.ctrl
    ctrl[C_TSS_NODES] = 0
    ctrl[C_TSS_LIMIT] = node_limit
    key = _root_key(st, ss, colour, quiet_fours)
    defender = 3 - colour
    attacking = ATTACKING
    n, made, ply = 0, 0, ROOT_PLY
    complete = False
    valued = suspend_values(st)
    while ply < MAX_PLY - 1 and n + 2 < len(line):
        mover = colour if attacking == ATTACKING else defender
        if attacking == ATTACKING and vcf(st, ss, colour, ATTACKER_VCF_FOURS) > 0:
            # a win by fours: its next four and block, or the five
            five = _five_cell(st, colour, colour)
            if five >= 0:
                line[n] = five
                n += 1
                complete = True
                break
            if vcf_line(st, ss, colour, ATTACKER_VCF_FOURS, ss.scores[ply]) == 0:
                break
            cell = ss.scores[ply][0]
        elif attacking == ATTACKING:
            cell = _proved_child(st, ss, keys, data, colour, attacking, quiet_fours, ply, key)
            if cell < 0:
                break
        elif _five_cell(st, colour, colour) >= 0:
            # the defender must block the attacker's five, unless it has one of its own
            if _five_cell(st, defender, defender) >= 0:
                break
            cell = _five_cell(st, colour, defender)
            if cell < 0:
                complete = True  # (it may not: the attacker's last move won)
                break
            make(st, cell, defender)
            five = _five_cell(st, colour, colour)  # a second five: the attacker plays it
            unmake(st)
            if five >= 0:
                line[n] = cell
                line[n + 1] = five
                n += 2
                complete = True
                break
        else:
            cell = _proved_child(st, ss, keys, data, colour, attacking, quiet_fours, ply, key)
            if cell < 0:
                break
        line[n] = cell
        n += 1
        key ^= st.zobrist[0, mover, cell] ^ np.uint64(DEFENDING_KEY)
        make(st, cell, mover)
        made += 1
        attacking = 1 - attacking
        ply += 1
    for _ in range(made):
        unmake(st)
    resume_values(st, valued)
    ctrl[C_TSS_LIMIT] = 0
    return n if complete else 0
