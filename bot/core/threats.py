"""Threat kernels: legality under renju, the threat scan, VCF (victory by continuous fours) and
VCT (victory by continuous threats: fours, open threes and, if asked, quiet moves that threaten
a VCF)."""

from __future__ import annotations

from bot.core.jit import int64, kernel, np
from bot.core.moves import (
    FOUL_NONE, FOUL_UNKNOWN, foul_kind, foul_of_word, make, resume_values, suspend_values, unmake,
)
from bot.core.searchstate import (
    C_NODES, C_STOP, C_THREAT_EPOCH, C_TSS_LIMIT, C_TSS_MOVE, C_TSS_NODES, C_TSS_QUIET, MAX_PLY,
    SearchState,
)
from bot.core.shapes import (
    BLACK, C_DOUBLE_FOUR, C_DOUBLE_THREE, C_FIVE, C_FOUR, C_FOUR_THREE, C_OPEN_FOUR,
    C_OPEN_THREE, C_OPEN_TWO, CLASSES, EMPTY, OPEN_THREE, OVERLINE, WALL,
)
from bot.core.state import (
    M_CANDIDATES, M_CLASS_COUNTS, M_RULE, M_SIZE, PAD, RULE_CARO, RULE_RENJU, BoardState,
)


@kernel("boolean(state, int64, int64)")
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


@kernel("int64(state, int64, int64)")
def cells_of_class(st: BoardState, colour: int, lowest: int) -> int:
    """How many candidate cells give ``colour`` a class of ``lowest`` or more (kept by
    make/unmake in meta[M_CLASS_COUNTS...], no scan)."""
    base = M_CLASS_COUNTS + (colour - 1) * CLASSES
    count = 0
    for kind in range(lowest, CLASSES):
        count += st.meta[base + kind]
    return int(count)


@kernel("Tuple((int64, int64, int64, int64, boolean))(state, int64, boolean)")
def scan_threats(st: BoardState, colour: int, with_threes: bool) -> tuple[
        int, int, int, int, bool]:
    """(own five cell or -1, opponent five count, an opponent five cell, own winning four cell
    (open four, or double four where legal) or -1, opponent has an open three: a cell where
    it makes an open four and may legally play, so a renju three whose four-points are all
    fouls for black is no threat; looked for only ``with_threes``, else False: its scan may
    check fouls).  The five cells are the last of their kind in candidate order, the winning
    four the first legal one.  The class counts (a five cell is always a
    candidate) say which of them exist, so the scans look only for those and stop once found:
    the fives from the end of the list, the fours from its start."""
    own, opp = np.uint64(colour - 1), np.uint64(2 - colour)  # (unsigned indices)
    own_base = M_CLASS_COUNTS + (colour - 1) * CLASSES
    opp_base = M_CLASS_COUNTS + (2 - colour) * CLASSES
    own_fives = st.meta[own_base + C_FIVE]
    opp_fives = st.meta[opp_base + C_FIVE]
    own_wins_left = st.meta[own_base + C_OPEN_FOUR] + st.meta[own_base + C_DOUBLE_FOUR]
    opp_fours_left = st.meta[opp_base + C_OPEN_FOUR] if with_threes else 0
    own_five, opp_five = -1, -1
    if own_fives > 0 or opp_fives > 0:
        for i in range(st.meta[M_CANDIDATES] - 1, -1, -1):
            cell = st.candidates[i]
            if own_five < 0 and own_fives > 0 and st.classes[own, np.uint64(cell)] == C_FIVE:
                own_five = cell
            if opp_five < 0 and opp_fives > 0 and st.classes[opp, np.uint64(cell)] == C_FIVE:
                opp_five = cell
            if (own_five >= 0 or own_fives == 0) and (opp_five >= 0 or opp_fives == 0):
                break
    own_win_four = -1
    opp_three = False
    i = 0
    count = st.meta[M_CANDIDATES]
    while (own_wins_left > 0 or opp_fours_left > 0) and i < count:
        cell = st.candidates[i]
        i += 1
        mine = st.classes[own, np.uint64(cell)]
        if (mine == C_OPEN_FOUR or mine == C_DOUBLE_FOUR) and own_wins_left > 0:
            own_wins_left -= 1
            if is_legal(st, cell, colour):
                own_win_four = cell
                own_wins_left = 0
        if st.classes[opp, np.uint64(cell)] == C_OPEN_FOUR and opp_fours_left > 0:
            opp_fours_left -= 1
            if is_legal(st, cell, 3 - colour):
                opp_three = True
                opp_fours_left = 0
    return int(own_five), int(opp_fives), int(opp_five), int(own_win_four), opp_three


@kernel("boolean(state, int64)")
def double_three_win(st: BoardState, colour: int) -> bool:
    """``colour`` (to move, facing no five) wins in five plies by a double open three: it has
    a legal cell that makes two open threes, and the opponent has no cell where it would make
    a four or five, so it can neither stop both threes with one stone (their lines meet only
    at that cell) nor answer with fours, and the open four that follows wins.  Never claimed
    for black under renju (where its double three is a foul unless one three is no real one)
    nor under caro rules."""
    rule = st.meta[M_RULE]
    if (rule & RULE_CARO) != 0 or (colour == BLACK and (rule & RULE_RENJU) != 0):
        return False
    double_threes = st.meta[M_CLASS_COUNTS + (colour - 1) * CLASSES + C_DOUBLE_THREE]
    return double_threes > 0 and cells_of_class(st, 3 - colour, C_FOUR) == 0


WHITE_TO_MOVE_KEY = 0x9E3779B97F4A7C15  # xor-ed into the VCF memo key for white
FOURS_SHIFT = 16  # vcf_data: fours searched above this bit, plies to the win below
VCT_KEY = 0xD1B54A32D192ED03  # xor-ed into the memo key of a VCT attacker node
QUIET_KEY = 0x94D049BB133111EB  # ... with the fours of its quiet threats (C_TSS_QUIET) xor-ed in
EPOCH_KEY = 0xBF58476D1CE4E5B9  # times the memo's epoch (C_THREAT_EPOCH), xor-ed into every key


@kernel()
def out_of_budget(ctrl: np.ndarray) -> bool:
    """The search was stopped, or a threat search ran past its node limit (C_TSS_LIMIT)."""
    return bool(ctrl[C_STOP] != 0
                or (ctrl[C_TSS_LIMIT] > 0 and ctrl[C_TSS_NODES] > ctrl[C_TSS_LIMIT]))


@kernel("boolean(int64[::1])")
def count_vcf_node(ctrl: np.ndarray) -> bool:
    """Count a node of ``vcf`` (in its own count and the threat search's), as its entry does
    and as each of its searches that is read rather than played stands for; whether the
    search is then out of budget."""
    ctrl[C_NODES] += 1
    ctrl[C_TSS_NODES] += 1
    return out_of_budget(ctrl)


@kernel()
def vcf_key(st: BoardState, ss: SearchState, colour: int) -> np.uint64:
    """The memo key of the position with ``colour`` to attack, in the memo's current epoch."""
    key: np.uint64 = st.hashes[0] ^ (np.uint64(ss.ctrl[C_THREAT_EPOCH]) * np.uint64(EPOCH_KEY))
    if colour != BLACK:
        key ^= np.uint64(WHITE_TO_MOVE_KEY)
    return key


@kernel("int64(state, int64, int64, int64[::1], int64)")
def _add_five_points(st: BoardState, cell: int, colour: int, line: np.ndarray, n: int) -> int:
    """Append to ``line`` (from index ``n``) every cell where ``colour`` completes a five
    through its stone on ``cell``; returns the new length.  Along each half-line only the first
    empty cell can complete such a five: the cells between it and ``cell`` must be stones."""
    for direction in range(4):
        step = st.steps[direction]
        for sign in (-1, 1):
            for distance in range(1, 5):
                other = cell + sign * distance * step
                value = st.board[other]
                if value == 0 and st.classes[colour - 1, other] == C_FIVE:
                    line[n] = other
                    n += 1
                if value != colour:
                    break
    return n


@kernel("int64(uint64[::1], int64[::1], uint64, int64)")
def _memo_probe(keys: np.ndarray, data: np.ndarray, key: np.uint64, threats: int) -> int:
    """A remembered threat-search result (the memo ss.vcf_keys, ss.vcf_data) usable with
    ``threats`` threats (fours) left: the plies of a win that fits in them, 0 for no win found
    with at least as many, -1 unknown."""
    slot = key & np.uint64(keys.shape[0] - 1)
    if keys[slot] != key:
        return -1
    stored = data[slot]
    plies = stored & ((1 << FOURS_SHIFT) - 1)
    if plies > 0 and plies <= 2 * threats + 3:
        return int(plies)
    if plies == 0 and (stored >> FOURS_SHIFT) >= threats:
        return 0
    return -1


@kernel("void(uint64[::1], int64[::1], uint64, int64, int64)")
def _memo_store(keys: np.ndarray, data: np.ndarray, key: np.uint64, threats: int,
                plies: int) -> None:
    """Remember the result of a threat search with ``threats`` threats (fours) allowed."""
    slot = key & np.uint64(keys.shape[0] - 1)
    keys[slot] = key
    data[slot] = (threats << FOURS_SHIFT) | plies


# What playing a four does (_play_four).
NOT_A_FOUR, FOUR_WINS, FOUR_BLOCKED = 0, 1, 2


@kernel("UniTuple(int64, 2)(state, int64[::1], int64, int64, int64, int64)")
def _play_four(st: BoardState, scratch: np.ndarray, colour: int, cell: int, opp_fives: int,
               opp_five: int) -> tuple[int, int]:
    """``cell`` is one where ``colour`` makes a four (class C_FOUR or more: the callers test
    that before calling, which is cheaper than a call per candidate).  If ``colour`` may play
    it (only the block of the opponent's single five when it has one; never a foul), play it
    and return (FOUR_WINS, -1) when it cannot be stopped (two completions, or the only block
    is a foul for the defender) or (FOUR_BLOCKED, the block); else (NOT_A_FOUR, -1) with
    nothing played."""
    if opp_fives == 1 and cell != opp_five:
        return NOT_A_FOUR, -1
    if not is_legal(st, cell, colour):
        return NOT_A_FOUR, -1
    make(st, cell, colour)
    completions = _add_five_points(st, cell, colour, scratch, 0)
    if completions >= 2 or (completions == 1 and not is_legal(st, scratch[0], 3 - colour)):
        return FOUR_WINS, -1
    if completions == 0:  # no completion after all (cannot happen for a class-four cell)
        unmake(st)
        return NOT_A_FOUR, -1
    return FOUR_BLOCKED, int(scratch[0])


@kernel("boolean(state, int64)")
def _no_winning_four(st: BoardState, colour: int) -> bool:
    """``colour`` has no cell where it makes an open four or a double four."""
    base = M_CLASS_COUNTS + (colour - 1) * CLASSES
    return bool(st.meta[base + C_OPEN_FOUR] + st.meta[base + C_DOUBLE_FOUR] == 0)


@kernel("int64(state, int64, int64, int64, int64, int64)")
def _word_with_stone(st: BoardState, cell: int, side: int, direction: int, offset: int,
                     stone: int) -> int:
    """The shape word (bot.core.state's words) of colour ``side + 1`` on the empty ``cell``
    were a ``stone`` (a colour) put ``offset`` steps away along ``direction`` (-PAD..PAD, not
    0), read from the line key as make would update it (``_toggle_lines``)."""
    at = np.uint64(cell)
    shift = 4 * direction
    bits = 2 * (PAD - 1 + offset) if offset > 0 else 2 * (PAD + offset)
    key = np.int64(st.keys[at, np.uint64(direction)]) ^ (np.int64(stone) << bits)
    shape = (np.int64(st.shape_table[np.uint64(key)]) >> (4 * side)) & 15
    keep = np.int64(0xFFFF) ^ (np.int64(15) << shift)
    return int((np.int64(st.words[np.uint64(side), at]) & keep) | (shape << shift))


@kernel("boolean(state, int64, int64, int64, boolean)")
def _line_may_win_more(st: BoardState, cell: int, colour: int, direction: int,
                       black_blocks: bool) -> bool:
    """Whether a ``colour`` stone on the empty ``cell`` could win along ``direction`` more than
    a four whose block stops it: a cell of the line where ``colour`` would then make an open
    four or a double four or, when the opponent is black under renju (``black_blocks``), a
    five that black might not be allowed to block.  Read from the line keys without playing
    the stone (the cells of the line whose shapes it changes)."""
    step = st.steps[direction]
    for sign in (1, -1):
        for distance in range(1, PAD + 1):
            other = cell + sign * distance * step
            stone = st.board[np.uint64(other)]
            if stone == WALL:
                break
            if stone != EMPTY:
                continue
            word = _word_with_stone(st, other, colour - 1, direction, -sign * distance, colour)
            kind = st.class_table[np.uint64(word)]
            if kind == C_OPEN_FOUR or kind == C_DOUBLE_FOUR:
                return True
            if kind == C_FIVE and black_blocks and foul_of_word(_word_with_stone(
                    st, other, 0, direction, -sign * distance, colour)) != FOUL_NONE:
                return True
    return False


@kernel("boolean(state, int64, int64)")
def _four_may_win_more(st: BoardState, cell: int, colour: int) -> bool:
    """Whether a ``colour`` stone on the empty ``cell`` could win more than a blocked four:
    ``_line_may_win_more`` along any line (``colour`` has no open four nor double four now, so
    only the cells of the stone's lines could make one)."""
    black_blocks = colour != BLACK and (st.meta[M_RULE] & RULE_RENJU) != 0
    for direction in range(4):
        if _line_may_win_more(st, cell, colour, direction, black_blocks):
            return True
    return False


@kernel("int64(state, int64, int64[::1])")
def winning_four_cells(st: BoardState, colour: int, cells: np.ndarray) -> int:
    """Write to ``cells`` the candidate cells where ``colour`` makes an open four or a double
    four (legal or not); returns how many."""
    base = M_CLASS_COUNTS + (colour - 1) * CLASSES
    wanted = st.meta[base + C_OPEN_FOUR] + st.meta[base + C_DOUBLE_FOUR]
    side = np.uint64(colour - 1)
    n = 0
    for i in range(st.meta[M_CANDIDATES]):
        if n == wanted:
            break
        cell = st.candidates[i]
        kind = st.classes[side, np.uint64(cell)]
        if kind == C_OPEN_FOUR or kind == C_DOUBLE_FOUR:
            cells[n] = cell
            n += 1
    return n


@kernel("int64(state, int64, int64[::1], int64, int64)")
def wins_by_four_after(st: BoardState, colour: int, cells: np.ndarray, count: int,
                       stone: int) -> int:
    """Were an opponent stone put on the empty ``stone``: 1 if one of ``cells[:count]`` (from
    ``winning_four_cells``: an opponent stone makes no new ones) would still give ``colour`` an
    open four or a double four and be legal, 0 if none would, -1 when that needs a renju foul
    check of the board (two open threes of black's).  Read from the line keys, unplayed."""
    side = colour - 1
    renju_black = colour == BLACK and (st.meta[M_RULE] & RULE_RENJU) != 0
    unknown = False
    for i in range(count):
        cell = cells[i]
        if cell == stone:
            continue
        word = int(st.words[np.uint64(side), np.uint64(cell)])
        apart = stone - cell
        for direction in range(4):  # (the stone's line, if it lies within PAD: at most one)
            step = st.steps[direction]
            if apart % step == 0 and abs(apart // step) <= PAD:
                word = _word_with_stone(st, cell, side, direction, apart // step, 3 - colour)
                break
        kind = st.class_table[np.uint64(word)]
        if kind != C_OPEN_FOUR and kind != C_DOUBLE_FOUR:
            continue
        foul = foul_of_word(word) if renju_black else FOUL_NONE
        if foul == FOUL_NONE:
            return 1
        unknown = unknown or foul == FOUL_UNKNOWN
    return -1 if unknown else 0


@kernel("int64(state, search, int64, int64)")
def vcf(st: BoardState, ss: SearchState, colour: int, fours_left: int) -> int:
    """Plies to a win by continuous fours for ``colour`` to move, or 0 if none is found within
    ``fours_left`` fours.  The defender's only replies are the forced blocks; a block that makes
    a four must be answered by a move that blocks it and is itself a four.  Inside a VCT search
    its nodes count against the VCT's node limit too (ctrl[C_TSS_LIMIT] > 0).

    Results are memoised in ss.vcf_keys/vcf_data by position and attacker: a win is reused
    when it fits in ``fours_left`` fours, a failure when it was searched with as many fours."""
    ctrl = ss.ctrl
    if count_vcf_node(ctrl):
        return 0
    own_five, opp_fives, opp_five, own_win_four, _ = scan_threats(st, colour, False)
    if own_five >= 0:
        return 1
    if opp_fives >= 2:
        return 0
    if opp_fives == 0 and own_win_four >= 0:
        return 3
    fours = cells_of_class(st, colour, C_FOUR)
    if fours_left <= 0 or fours == 0:
        return 0  # (no four to play: not worth a memo entry)
    key = vcf_key(st, ss, colour)
    known = _memo_probe(ss.vcf_keys, ss.vcf_data, key, fours_left)
    if known >= 0:
        return known
    other = 3 - colour
    found = 0
    # With one four left, a four that leaves no open four nor double four wins nothing (below):
    # seen from the line keys, unplayed, where nothing else it does can win: no open four nor
    # double four stands now, it is a single four (one completion) and its block is legal.
    read_last = fours_left == 1 and _no_winning_four(st, colour)
    for i in range(st.meta[M_CANDIDATES]):
        if fours == 0:  # every four tried
            break
        cell = st.candidates[i]
        kind_here = st.classes[np.uint64(colour - 1), np.uint64(cell)]  # (unsigned: no
        if kind_here < C_FOUR:  # negative-index wraparound, as in moves._refresh_shapes)
            continue
        fours -= 1
        if (read_last and kind_here <= C_FOUR_THREE and (opp_fives == 0 or cell == opp_five)
                and is_legal(st, cell, colour) and not _four_may_win_more(st, cell, colour)):
            if count_vcf_node(ctrl):  # (as the search after its block, below)
                break
            continue
        kind, block = _play_four(st, ss.scratch, colour, cell, opp_fives, opp_five)
        if kind == NOT_A_FOUR:
            continue
        if kind == FOUR_WINS:
            found = 3
        elif fours_left == 1 and _no_winning_four(st, colour):
            # the last four allowed left no open four nor double four, and the block cannot
            # make one (an opponent stone never adds to a colour's fours: tests/
            # test_core_shapes.py), so the search after the block would find nothing: it is
            # not played, only counted as if it ran (the same nodes, 10% less time)
            count_vcf_node(ctrl)
        else:
            make(st, block, other)
            rest = vcf(st, ss, colour, fours_left - 1)
            unmake(st)
            if rest > 0:
                found = rest + 2
        unmake(st)
        if found > 0 or out_of_budget(ctrl):
            break
    if not out_of_budget(ctrl):  # a search cut short proves nothing
        _memo_store(ss.vcf_keys, ss.vcf_data, key, fours_left, found)
    return found


@kernel("int64(state, search, int64, int64, int64)")
def leaf_vcf(st: BoardState, ss: SearchState, colour: int, fours: int, node_limit: int) -> int:
    """``vcf`` for a leaf of the main search, giving up (0) after ``node_limit`` of its own
    nodes (0: no limit).  Inside a VCT search (ctrl[C_TSS_LIMIT] > 0) that budget rules."""
    ctrl = ss.ctrl
    valued = suspend_values(st)
    if node_limit <= 0 or ctrl[C_TSS_LIMIT] > 0:
        plies = vcf(st, ss, colour, fours)
    else:
        before = ctrl[C_TSS_NODES]
        ctrl[C_TSS_NODES] = 0
        ctrl[C_TSS_LIMIT] = node_limit
        plies = vcf(st, ss, colour, fours)
        ctrl[C_TSS_LIMIT] = 0
        ctrl[C_TSS_NODES] += before
    resume_values(st, valued)
    return plies


@kernel()
def vcf_line(st: BoardState, ss: SearchState, colour: int, fours: int,
             line: np.ndarray) -> int:
    """A win by continuous fours for ``colour`` to move, written to ``line``: the attacker's
    fours and the defender's blocks alternately, then the winning cells (the five, or the
    winning four and the cells where it completes a five); returns its length, 0 when ``vcf``
    finds no win within ``fours`` fours.  The board is left as it was."""
    if vcf(st, ss, colour, fours) == 0:
        return 0
    other = 3 - colour
    n = 0
    made = 0
    while True:
        own_five, opp_fives, opp_five, own_win_four, _ = scan_threats(st, colour, False)
        if own_five >= 0:
            line[n] = own_five
            n += 1
            break
        if opp_fives == 0 and own_win_four >= 0:
            line[n] = own_win_four
            make(st, own_win_four, colour)
            made += 1
            n = _add_five_points(st, own_win_four, colour, line, n + 1)
            break
        step_found = False
        won = False
        for i in range(st.meta[M_CANDIDATES]):
            cell = st.candidates[i]
            if st.classes[np.uint64(colour - 1), np.uint64(cell)] < C_FOUR:
                continue
            kind, block = _play_four(st, ss.scratch, colour, cell, opp_fives, opp_five)
            if kind == NOT_A_FOUR:
                continue
            if kind == FOUR_WINS:
                line[n] = cell
                n = _add_five_points(st, cell, colour, line, n + 1)
                made += 1
                won = True
                break
            make(st, block, other)
            if vcf(st, ss, colour, fours - 1) > 0:
                line[n] = cell
                line[n + 1] = block
                n += 2
                made += 2
                fours -= 1
                step_found = True
                break
            unmake(st)
            unmake(st)
        if won or not step_found:
            break
    for _ in range(made):
        unmake(st)
    return n


@kernel()
def vcf_first_move(st: BoardState, ss: SearchState, colour: int, fours: int,
                   node_limit: int, line: np.ndarray) -> tuple[int, int]:
    """(plies to the win, first move) of a win by continuous fours for ``colour`` to move
    found within ``fours`` fours and ``node_limit`` VCF nodes, or (0, -1).  ``line`` holds the
    win while it is worked out: at least 2 * fours + 10 cells (two a four, then the winning
    four and up to eight completions)."""
    ctrl = ss.ctrl
    ctrl[C_TSS_NODES] = 0
    ctrl[C_TSS_LIMIT] = node_limit
    valued = suspend_values(st)
    plies = vcf(st, ss, colour, fours)
    length = vcf_line(st, ss, colour, fours, line) if plies > 0 else 0
    resume_values(st, valued)
    complete = not out_of_budget(ctrl)
    ctrl[C_TSS_LIMIT] = 0
    if length == 0 or not complete:
        return 0, -1
    return plies, int(line[0])


@kernel()
def threat_defences(st: BoardState, ss: SearchState, colour: int, fours: int,
                    node_limit: int, mask: np.ndarray) -> int:
    """Where ``colour`` (to move) can stop the opponent's win by continuous fours (within
    ``fours`` fours) that the opponent would have were it its turn: marks 1 in ``mask``
    (cleared first) every legal candidate after which the opponent has no such win, and
    returns how many.  -1 when the opponent has no such win to stop, or when the VCF searches
    it takes run past ``node_limit`` nodes in all (or the search is stopped): then nothing is
    known and the mask is left clear."""
    mask[:] = 0
    ctrl = ss.ctrl
    ctrl[C_TSS_NODES] = 0
    ctrl[C_TSS_LIMIT] = node_limit
    other = 3 - colour
    count = -1
    valued = suspend_values(st)
    if vcf(st, ss, other, fours) > 0 and not out_of_budget(ctrl):
        count = 0
        for i in range(st.meta[M_CANDIDATES]):
            cell = st.candidates[i]
            if not is_legal(st, cell, colour):
                continue
            make(st, cell, colour)
            refuted = vcf(st, ss, other, fours) == 0
            unmake(st)
            if out_of_budget(ctrl):
                mask[:] = 0
                count = -1
                break
            if refuted:
                mask[cell] = 1
                count += 1
    resume_values(st, valued)
    ctrl[C_TSS_LIMIT] = 0
    return count


@kernel("boolean(state, int64)")
def _foul_reads_far(st: BoardState, cell: int) -> bool:
    """Whether the renju foul check of a black stone on ``cell`` reads cells beyond its own
    lines: it does when the stone makes two open threes (whether each is a real three depends
    on its four-points' own fouls); otherwise its shapes alone decide."""
    if (st.meta[M_RULE] & RULE_RENJU) == 0:
        return False
    word = np.int64(st.words[0, cell])
    threes = 0
    for direction in range(4):
        if (word >> (4 * direction)) & 15 == OPEN_THREE:
            threes += 1
    return threes >= 2


@kernel("int64(state, search, int64, int64[::1], int64, boolean)")
def _replay_vcf(st: BoardState, ss: SearchState, attacker: int, line: np.ndarray,
                length: int, local: bool) -> int:
    """Plies to the win if the attacker's fours of a ``vcf_line`` (``line[0:length]``: fours
    and blocks alternately, then the winning cells) still win when played in their order from
    this position, the attacker to move, under ``vcf``'s rules (each must be a four it may
    play, the defender's block is forced, a defender five is answered only by a four that
    blocks it); 0 as soon as one of them fails.  With ``local``, also 0 when a renju foul
    check on the way would read beyond the lines of the cell checked (``_foul_reads_far``).
    The board is left as it was."""
    other = 3 - attacker
    black_attacks = attacker == BLACK
    made = 0
    plies = 0
    i = 0
    while True:
        own_five, opp_fives, opp_five, own_win_four, _ = scan_threats(st, attacker, False)
        if own_five >= 0:
            plies = made + 1
            break
        if opp_fives == 0 and own_win_four >= 0:
            if not (local and black_attacks and _foul_reads_far(st, own_win_four)):
                plies = made + 3
            break
        if (opp_fives >= 2 or i >= length or st.board[line[i]] != EMPTY
                or st.classes[attacker - 1, line[i]] < C_FOUR
                or (local and black_attacks and _foul_reads_far(st, line[i]))):
            break
        kind, block = _play_four(st, ss.scratch, attacker, line[i], opp_fives, opp_five)
        if kind == NOT_A_FOUR:
            break
        made += 1
        if local and not black_attacks and _foul_reads_far(st, ss.scratch[0]):
            break  # (the block's legality decided this four)
        if kind == FOUR_WINS:
            plies = made + 2
            break
        make(st, block, other)
        made += 1
        i += 2
    for _ in range(made):
        unmake(st)
    return plies


@kernel("int64(int8[::1], int64[::1], int64, int64)")
def _add_to_zone(marks: np.ndarray, zone: np.ndarray, count: int, cell: int) -> int:
    """Append ``cell`` to ``zone[0:count]`` unless ``marks`` has it already (then mark it);
    returns the new count."""
    if marks[cell] == 0:
        marks[cell] = 1
        zone[count] = cell
        count += 1
    return count


@kernel("int64(state, int8[::1], int64[::1], int64, int64)")
def _mark_line_cells(st: BoardState, marks: np.ndarray, zone: np.ndarray, count: int,
                     cell: int) -> int:
    """Append to ``zone`` every unmarked empty cell within PAD cells along a line of
    ``cell`` (all that a shape of ``cell`` reads); returns the new count."""
    for direction in range(4):
        step = st.steps[direction]
        for distance in range(-PAD, PAD + 1):
            other = cell + distance * step
            if st.board[other] == EMPTY:
                count = _add_to_zone(marks, zone, count, other)
    return count


@kernel("int64(state, int8[::1], int64[::1], int64, int64, int64)")
def _mark_counter_cells(st: BoardState, marks: np.ndarray, zone: np.ndarray, count: int,
                        block: int, defender: int) -> int:
    """Append to ``zone`` the unmarked empty cells of every five-cell window through the
    defender's stone on ``block`` that holds three or more defender stones and no other:
    a defender stone there beforehand would make that block a four (a counter-four the win
    did not answer).  Returns the new count."""
    for direction in range(4):
        step = st.steps[direction]
        for first in range(-4, 1):
            own = 0
            blocked = False
            for k in range(5):
                value = st.board[block + (first + k) * step]
                if value == defender:
                    own += 1
                elif value != EMPTY:
                    blocked = True
                    break
            if blocked or own < 3:
                continue
            for k in range(5):
                other = block + (first + k) * step
                if st.board[other] == EMPTY:
                    count = _add_to_zone(marks, zone, count, other)
    return count


@kernel("int64(state, search, int64, int64[::1], int64, int64[::1])")
def relevance_zone(st: BoardState, ss: SearchState, defender: int, line: np.ndarray,
                    length: int, zone: np.ndarray) -> int:
    """Write to ``zone`` every cell where a ``defender`` stone might spoil the attacker's win
    ``line[0:length]`` (a ``vcf_line``), and return how many; a stone anywhere else leaves it
    winning as it is.  The zone: the cells of the win (first); every cell where the defender
    makes a four now (the attacker would have to answer it first); the empty cells of each
    five-cell window through one of the defender's blocks that holds three defender stones
    by then (a stone there would make that block a four); and, under renju, the cells along
    the lines of a block that wins because it is a foul for black (a black stone there may
    lift the foul).  A stone elsewhere cannot touch the attacker's fours (each is four
    attacker stones and its block in one window) nor add a defender four on the way.  Under
    caro, where a defender stone at either end spoils a five, the empty cells within PAD
    along the lines of every cell of the win; under renju, every empty cell when a foul
    check on the way reads beyond the lines of its cell (``_foul_reads_far``)."""
    attacker = 3 - defender
    rule = st.meta[M_RULE]
    count = 0
    if (rule & RULE_RENJU) != 0 and _replay_vcf(st, ss, attacker, line, length, True) == 0:
        for cell in range(st.meta[M_SIZE]):
            if st.board[cell] == EMPTY:
                zone[count] = cell
                count += 1
        return count
    marks = ss.marks
    for j in range(length):
        count = _add_to_zone(marks, zone, count, line[j])
    for i in range(st.meta[M_CANDIDATES]):
        cell = st.candidates[i]
        if st.classes[np.uint64(defender - 1), np.uint64(cell)] >= C_FOUR:
            count = _add_to_zone(marks, zone, count, cell)
    if (rule & RULE_CARO) != 0:
        for j in range(length):
            count = _mark_line_cells(st, marks, zone, count, line[j])
    else:
        # replay the win (as _replay_vcf does) to see each block on the board of its time
        made = 0
        i = 0
        while i < length:
            own_five, opp_fives, opp_five, own_win_four, _ = scan_threats(st, attacker, False)
            if own_five >= 0 or (opp_fives == 0 and own_win_four >= 0):
                break
            if st.board[line[i]] != EMPTY or st.classes[attacker - 1, line[i]] < C_FOUR:
                break
            kind, block = _play_four(st, ss.scratch, attacker, line[i], opp_fives, opp_five)
            if kind == NOT_A_FOUR:
                break
            made += 1
            if kind == FOUR_WINS:
                if (rule & RULE_RENJU) != 0 and defender == BLACK:
                    for j in range(_add_five_points(st, line[i], attacker, ss.scratch, 0)):
                        count = _mark_line_cells(st, marks, zone, count, ss.scratch[j])
                break
            make(st, block, defender)
            made += 1
            count = _mark_counter_cells(st, marks, zone, count, block, defender)
            i += 2
        for _ in range(made):
            unmake(st)
    for j in range(count):
        marks[zone[j]] = 0
    return count


# Constants passed to recursive kernels, as int64 values (see jit.int64).
ATTACKING = int64(1)
DEFENDING = int64(0)
DEFENDER_VCF_FOURS = int64(12)  # how deep the defender's own VCF is sought
# The VCT's deepening with quiet threats may spend 1 / QUIET_SHARE of the nodes of the one
# without (vct_plies): more finds sooner the wins that need quiet threats, and later those
# that need none (quintet-16: 4.2 M nodes for four threats with quiet ones, 0.45 M for its
# seven without).
QUIET_SHARE = 4
ROOT_PLY = int64(0)


CELL_MASK = (1 << 16) - 1  # attacker_moves: the cell in the low bits, its rank above
# Rank of an attacker's threat in the VCT, by its class there: the four-threes first (they
# win unless the block answers both), then double threes, fours (one reply each, so cheap to
# refute), open threes, and last the quiet moves that only make an open two.
VCT_RANK = (0, 0, 1, 1, 1, 2, 4, 3, 5, 5, 5, 0)
KILLER_RANK = 8 * CLASSES  # added to the move that last won at the same ply: tried first
# (the same attack often beats the defender's other replies)


@kernel("void(int64[::1], int64)")
def sort_descending(entries: np.ndarray, count: int) -> None:
    """Sort ``entries[0:count]`` in place, largest first (insertion sort: the lists are
    short)."""
    for i in range(1, count):
        entry = entries[i]
        j = i - 1
        while j >= 0 and entries[j] < entry:
            entries[j + 1] = entries[j]
            j -= 1
        entries[j + 1] = entry


@kernel("int64(state, int64, int64[::1])")
def three_answers(st: BoardState, defender: int, cells: np.ndarray) -> int:
    """Write to ``cells`` the defender's answers to an open three of the attacker: every
    candidate where either side makes a four (the cells that stop the three, and the
    defender's own fours); returns how many."""
    count = 0
    own, other = np.uint64(defender - 1), np.uint64(2 - defender)  # (unsigned indices)
    for i in range(st.meta[M_CANDIDATES]):
        cell = st.candidates[i]
        if (st.classes[other, np.uint64(cell)] >= C_FOUR
                or st.classes[own, np.uint64(cell)] >= C_FOUR):
            cells[count] = cell
            count += 1
    return count


@kernel("int64(state, int64, int64[::1], int64)")
def defender_replies(st: BoardState, defender: int, cells: np.ndarray, count: int) -> int:
    """Order the defender's replies ``cells[0:count]`` at a VCT defender node, dropping the
    illegal ones, likeliest refutation first (one refutation ends the node): by the classes
    it takes from the attacker and makes for itself there together, then by the attacker's
    alone.  Each entry becomes the cell with that rank above CELL_MASK; returns how many
    are left."""
    kept = 0
    for j in range(count):
        cell = cells[j]
        if not is_legal(st, cell, defender):
            continue
        taken = st.classes[np.uint64(2 - defender), np.uint64(cell)]  # (unsigned indices)
        rank = (taken + st.classes[np.uint64(defender - 1), np.uint64(cell)]) * CLASSES + taken
        cells[kept] = (rank << 16) | cell
        kept += 1
    sort_descending(cells, kept)
    return kept


@kernel("int64(state, search, int64, boolean, int64)")
def attacker_moves(st: BoardState, ss: SearchState, attacker: int, quiet: bool,
                    ply: int) -> int:
    """Write to ss.moves[ply] the attacker's moves at a VCT attacker node facing no five, best
    first, and return how many: every legal cell where it makes a four or an open three and,
    with ``quiet``, an open two (the caller keeps those that threaten a VCF).  Each entry is
    the cell with its rank above CELL_MASK: the move that last won at this ply (killer,
    ss.killers[ply, 0]) first, then by VCT_RANK, then by the defender's class there."""
    defender = 3 - attacker
    moves = ss.moves[ply]
    lowest = C_OPEN_TWO if quiet else C_OPEN_THREE
    count = 0
    own, other = np.uint64(attacker - 1), np.uint64(defender - 1)  # (unsigned indices)
    for i in range(st.meta[M_CANDIDATES]):
        cell = st.candidates[i]
        kind = st.classes[own, np.uint64(cell)]
        if kind < lowest or kind == C_FIVE:
            continue
        if not is_legal(st, cell, attacker):
            continue
        rank = VCT_RANK[kind] * CLASSES + st.classes[other, np.uint64(cell)]
        if cell == ss.killers[ply, 0]:
            rank += KILLER_RANK
        moves[count] = (rank << 16) | cell
        count += 1
    sort_descending(moves, count)
    return count


@kernel("int64(state, search, int64, int64, int64, int64, int64)")
def keep_relevant(st: BoardState, ss: SearchState, attacker: int, ply: int, first: int,
                   count: int, fours: int) -> int:
    """When the defender would win by at most ``fours`` fours were it its turn, keep of the
    attacker's moves ss.moves[ply][first:count] only those in that win's relevance zone
    (``relevance_zone``, with the roles swapped: any other move that is no four loses to it),
    in their order; return the new count.  Uses the rows ``ply`` and ``ply + 1`` of ss.scores."""
    defender = 3 - attacker
    if ply + 1 >= MAX_PLY:
        return count  # (no row for the zone: every move is kept, which is always sound)
    line = ss.scores[ply]
    length = vcf_line(st, ss, defender, fours, line)
    if length == 0:
        return count
    zone = ss.scores[ply + 1]
    marks = ss.marks
    size = relevance_zone(st, ss, attacker, line, length, zone)
    for j in range(size):
        marks[zone[j]] = 1
    moves = ss.moves[ply]
    kept = first
    for j in range(first, count):
        if marks[moves[j] & CELL_MASK] != 0:
            moves[kept] = moves[j]
            kept += 1
    for j in range(size):
        marks[zone[j]] = 0
    return kept


@kernel("boolean(int64[::1], int64)")
def _count_vct_node(ctrl: np.ndarray, ply: int) -> bool:
    """Count a node of ``_vct`` at ``ply``, as its entry does and as a reply read rather than
    played stands for; whether the search gives up there (stopped, past its node limit or
    its deepest ply)."""
    ctrl[C_TSS_NODES] += 1
    return bool(ctrl[C_STOP] != 0 or ctrl[C_TSS_NODES] > ctrl[C_TSS_LIMIT] or ply >= MAX_PLY)


@kernel("int64(state, search, int64, int64, int64, int64)")
def _vct(st: BoardState, ss: SearchState, attacker: int, attacking: int, threats_left: int,
         ply: int) -> int:
    """Plies to a win for ``attacker`` by continuous threats, or 0 if none is found.

    Attacker to move (``attacking`` 1): a five wins; a five of the defender must be blocked (by
    a threat, by a quiet move while an open three of the attacker still stands or, when
    ctrl[C_TSS_QUIET] is above 0, by a quiet threat); an open four (or double four) wins; else
    every four and open three is tried, while ``threats_left`` lasts, and then, when
    ctrl[C_TSS_QUIET] is above 0, every other legal cell where the attacker makes at least an
    open two and after which it would win by fours (of at most that many) were it its turn
    again (a quiet threat, one threat too), in the order of ``attacker_moves``; from the
    first that is no four on, only those inside the relevance zone of the defender's own win
    by fours, when it would have one were it its turn (``keep_relevant``).  Defender to
    move: its five wins for it; a single four of the attacker must be blocked there; the
    defender wins if it has an open four or a VCF of its own; against an open three it must
    hold with one of: every cell where the attacker would make a four (the cells that stop the
    three) and every four of its own; against a quiet threat, with one of the cells of its
    relevance zone (``relevance_zone``) where the attacker's win by fours fails as played
    and no other is found; its replies are tried likeliest refutation first
    (``defender_replies``).  The search gives up (0) past ctrl[C_TSS_LIMIT] nodes; at ply 0
    the winning move goes to ctrl[C_TSS_MOVE]."""
    ctrl = ss.ctrl
    if _count_vct_node(ctrl, ply):
        return 0
    quiet = ctrl[C_TSS_QUIET]
    mover = attacker if attacking == ATTACKING else 3 - attacker
    own_five, opp_fives, opp_five, own_win_four, opp_three = scan_threats(st, mover, True)
    if attacking == ATTACKING:
        if own_five >= 0:
            if ply == ROOT_PLY:
                ctrl[C_TSS_MOVE] = own_five
            return 1
        if opp_fives >= 2:
            return 0
        if opp_fives == 0 and own_win_four >= 0:
            if ply == ROOT_PLY:
                ctrl[C_TSS_MOVE] = own_win_four
            return 3
        if threats_left <= 0:
            return 0
        key = vcf_key(st, ss, attacker) ^ np.uint64(VCT_KEY)
        if quiet > 0:
            key ^= np.uint64(QUIET_KEY) ^ np.uint64(quiet)
        if ply > ROOT_PLY:  # the root must find its move (C_TSS_MOVE)
            known = _memo_probe(ss.vcf_keys, ss.vcf_data, key, threats_left)
            if known >= 0:
                return known
        result = 0
        if opp_fives == 1:
            # the only move blocks the defender's counter-four: as a threat of its own, as a
            # quiet move while an open three of the attacker still stands (the defender must
            # then answer that three again, and no threat is spent) or, with quiet threats,
            # as a quiet threat (the attacker would win by fours were it its turn: one threat)
            if is_legal(st, opp_five, attacker):
                threat = st.classes[attacker - 1, opp_five] >= C_OPEN_THREE
                make(st, opp_five, attacker)
                playable = threat
                spent = int(threat)
                if not threat:
                    _, _, _, _, playable = scan_threats(st, 3 - attacker, True)  # a three stands
                    if not playable and quiet > 0 and vcf(st, ss, attacker, quiet) > 0:
                        playable = True
                        spent = 1
                if playable:
                    found = _vct(st, ss, attacker, DEFENDING, threats_left - spent, ply + 1)
                    if found > 0:
                        if ply == ROOT_PLY:
                            ctrl[C_TSS_MOVE] = opp_five
                        result = found + 1
                unmake(st)
        else:
            count = attacker_moves(st, ss, attacker, quiet > 0 and threats_left >= 2, ply)
            moves = ss.moves[ply]
            # the moves that are no four are kept to the relevance zone of the defender's own
            # win by fours, sought only when the first of them comes up: a four forces its
            # block, and an early four often wins with no such search
            unrestricted = cells_of_class(st, 3 - attacker, C_FOUR) > 0
            i = 0
            while i < count:
                if unrestricted and st.classes[attacker - 1, moves[i] & CELL_MASK] < C_FOUR:
                    unrestricted = False
                    count = keep_relevant(
                        st, ss, attacker, ply, i, count, DEFENDER_VCF_FOURS)
                    if i >= count:
                        break
                cell = moves[i] & CELL_MASK
                i += 1
                threat = st.classes[attacker - 1, cell] >= C_OPEN_THREE
                make(st, cell, attacker)
                found = 0
                if threat or vcf(st, ss, attacker, quiet) > 0:
                    found = _vct(st, ss, attacker, DEFENDING, threats_left - 1, ply + 1)
                unmake(st)
                if found > 0:
                    if ply == ROOT_PLY:
                        ctrl[C_TSS_MOVE] = cell
                    ss.killers[ply, 0] = cell
                    result = found + 1
                    break
                if out_of_budget(ctrl):
                    break
        if not out_of_budget(ctrl):  # a search cut short proves nothing
            _memo_store(ss.vcf_keys, ss.vcf_data, key, threats_left, result)
        return result
    defender = mover
    if own_five >= 0:
        return 0
    if opp_fives >= 2 or (opp_fives == 1 and not is_legal(st, opp_five, defender)):
        return 2
    if opp_fives == 1:
        make(st, opp_five, defender)
        found = _vct(st, ss, attacker, ATTACKING, threats_left, ply + 1)
        unmake(st)
        return found + 1 if found > 0 else 0
    if own_win_four >= 0 or (not opp_three and quiet <= 0):
        return 0  # the defender wins first, or there is no threat to answer
    # The defender's own VCF, which would also refute the threat, is sought only once every
    # reply has lost: most defender nodes of a failing search end at a refuting reply first,
    # and the VCF searches were the greater part of the nodes (quintet-16: 575 k of 1.03 M).
    longest = 0
    if opp_three:
        replies = ss.moves[ply]
        count = three_answers(st, defender, replies)
        # a reply after which the attacker keeps an open four or a double four (and the
        # defender makes no four) is lost at the next node's first test: read from the line
        # keys, unplayed, and counted as that node
        winning = ss.scores[ply]
        wins = winning_four_cells(st, attacker, winning)
        for i in range(defender_replies(st, defender, replies, count)):
            cell = replies[i] & CELL_MASK
            read = -1
            if st.classes[np.uint64(defender - 1), np.uint64(cell)] < C_FOUR:
                read = wins_by_four_after(st, attacker, winning, wins, cell)
            if read == 1:
                found = 0 if _count_vct_node(ctrl, ply + 1) else 3
            else:
                make(st, cell, defender)
                found = _vct(st, ss, attacker, ATTACKING, threats_left, ply + 1)
                unmake(st)
            if found == 0:
                return 0
            longest = max(longest, found)
        if longest == 0 or vcf(st, ss, defender, DEFENDER_VCF_FOURS) > 0:
            return 0
        return longest + 1
    # a quiet threat: the attacker's win by fours, were it its turn, must be stopped
    line = ss.moves[ply]
    length = vcf_line(st, ss, attacker, quiet, line)
    if length == 0 or out_of_budget(ctrl):
        return 0
    longest = vcf(st, ss, attacker, quiet)  # (memoised by vcf_line) what a pass would allow
    zone = ss.scores[ply]
    count = relevance_zone(st, ss, defender, line, length, zone)
    for j in range(defender_replies(st, defender, zone, count)):
        cell = zone[j] & CELL_MASK
        make(st, cell, defender)
        found = _replay_vcf(st, ss, attacker, line, length, False)
        if found == 0:
            found = vcf(st, ss, attacker, quiet)
        if found == 0:
            found = _vct(st, ss, attacker, ATTACKING, threats_left, ply + 1)
        unmake(st)
        if found == 0:
            return 0
        longest = max(longest, found)
    if vcf(st, ss, defender, DEFENDER_VCF_FOURS) > 0:
        return 0
    return longest + 1


@kernel("int64(state, search, int64, int64, int64, int64, int64)")
def vct_plies(st: BoardState, ss: SearchState, colour: int, threats: int, node_limit: int,
              quiet_fours: int, first_ply: int) -> int:
    """Plies to a win by continuous threats for ``colour`` to move, or 0 if none is found
    within ``threats`` threats and ``node_limit`` nodes in all.  Deepens one threat at a
    time, so short wins are found first and cheaply; with ``quiet_fours`` above 0, a second
    deepening, from two threats on, admits quiet threats too (moves that give a win by that
    many fours, see ``_vct``), which widen every attacker node: it runs a depth only once the
    first has searched as deep, and while it has spent less than 1 / QUIET_SHARE of the
    first's nodes (or once the first is done), so a win by threes and fours alone is not held
    up by the wider search.  The search uses the move buffers (and borrows column 0 of the
    killer moves) from ``first_ply`` on, so a node of the main search passes its own ply; at
    ply 0 the first move of the win goes to ctrl[C_TSS_MOVE]."""
    ctrl = ss.ctrl
    ctrl[C_TSS_NODES] = 0
    ctrl[C_TSS_LIMIT] = node_limit
    ctrl[C_TSS_MOVE] = -1
    ss.killers[first_ply:, 0] = -1  # borrowed: the last winning move per ply
    plies = 0
    plain = 0  # the depths each deepening has searched (the wide one starts at two threats;
    wide = 1 if quiet_fours > 0 else threats  # without quiet threats it has nothing to do)
    plain_nodes, wide_nodes = 0, 0
    valued = suspend_values(st)
    while plies == 0 and ctrl[C_TSS_NODES] <= node_limit and (plain < threats or wide < plain):
        before = ctrl[C_TSS_NODES]
        if plain < threats and (wide >= plain or wide_nodes * QUIET_SHARE >= plain_nodes):
            plain += 1
            ctrl[C_TSS_QUIET] = 0
            plies = _vct(st, ss, colour, ATTACKING, plain, first_ply)
            plain_nodes += ctrl[C_TSS_NODES] - before
        else:
            wide += 1
            ctrl[C_TSS_QUIET] = quiet_fours
            plies = _vct(st, ss, colour, ATTACKING, wide, first_ply)
            wide_nodes += ctrl[C_TSS_NODES] - before
    resume_values(st, valued)
    ctrl[C_TSS_LIMIT] = 0  # the VCF probes of the main search are not limited
    ctrl[C_TSS_QUIET] = 0
    ss.killers[first_ply:, 0] = -1  # (left as the main search's killer moves would start)
    return plies


@kernel()
def vct(st: BoardState, ss: SearchState, colour: int, threats: int, node_limit: int,
        quiet_fours: int) -> tuple[int, int]:
    """(plies to a win by continuous threats for ``colour`` to move, its first move), or
    (0, -1) if none is found within ``threats`` threats and ``node_limit`` nodes in all
    (``vct_plies`` from ply 0)."""
    plies = vct_plies(st, ss, colour, threats, node_limit, quiet_fours, ROOT_PLY)
    if plies == 0:
        return 0, -1
    return plies, int(ss.ctrl[C_TSS_MOVE])
