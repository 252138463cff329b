"""Slow, obviously-correct twins of the bot.core kernels, written from the rules' definitions.

Positions are plain dicts ``{(x, y): colour}``.  Nothing here uses line keys, tables, padding or
incremental updates: each function walks the real board line by line.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

EMPTY, BLACK, WHITE, WALL = 0, 1, 2, 3
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (-1, 1))

# shape and class numbers, as documented in bot/core/shapes.py
NONE, TWO, OPEN_TWO, THREE, OPEN_THREE, FOUR, FOUR_FOUR, OPEN_FOUR, FIVE, OVERLINE = range(10)
(C_NONE, C_TWO, C_OPEN_TWO, C_DOUBLE_TWO, C_THREE, C_OPEN_THREE, C_DOUBLE_THREE, C_FOUR,
 C_FOUR_THREE, C_DOUBLE_FOUR, C_OPEN_FOUR, C_FIVE) = range(12)


@dataclass
class Position:
    width: int
    height: int
    rule: int
    stones: dict[tuple[int, int], int] = field(default_factory=dict)

    def at(self, x: int, y: int) -> int:
        if not (0 <= x < self.width and 0 <= y < self.height):
            return WALL
        return self.stones.get((x, y), EMPTY)


def win_rule(rule: int, colour: int) -> str:
    """'free' (5+), 'exact' (5), 'caro' (6+, or 5 not blocked by the opponent at both ends),
    'caro_exact' (5 not blocked at both ends), read from the Gomocup rule bits."""
    if rule & 4:
        return "exact" if colour == BLACK else "free"
    if rule & 8:
        return "caro_exact" if rule & 1 else "caro"
    return "exact" if rule & 1 else "free"


def _line(pos: Position, x: int, y: int, d: int, colour: int) -> tuple[list[str], int]:
    """The whole board line through (x, y) as 'X' own, 'O' opponent, '#' edge, '.' empty;
    one '#' at each end stands for the edge.  Returns the line and the index of (x, y)."""
    dx, dy = DIRECTIONS[d]
    while 0 <= x - dx < pos.width and 0 <= y - dy < pos.height:
        x, y = x - dx, y - dy
    start = (x, y)
    cells = ["#"]
    while 0 <= x < pos.width and 0 <= y < pos.height:
        value = pos.at(x, y)
        cells.append("." if value == EMPTY else "X" if value == colour else "O")
        x, y = x + dx, y + dy
    cells.append("#")
    return cells, start


def _run(cells: list[str], i: int) -> tuple[int, int]:
    lo = hi = i
    while cells[lo - 1] == "X":
        lo -= 1
    while cells[hi + 1] == "X":
        hi += 1
    return lo, hi


def _wins(cells: list[str], i: int, how: str) -> bool:
    lo, hi = _run(cells, i)
    n = hi - lo + 1
    dead = cells[lo - 1] == "O" and cells[hi + 1] == "O"
    return {
        "free": n >= 5,
        "exact": n == 5,
        "caro": n >= 6 or (n == 5 and not dead),
        "caro_exact": n == 5 and not dead,
    }[how]


def _fives_through(cells: list[str], centre: int, how: str) -> list[int]:
    """Empty cells that complete a winning five whose run contains the centre stone."""
    found = []
    for e in range(max(1, centre - 4), min(len(cells) - 1, centre + 5)):
        if cells[e] != ".":
            continue
        cells[e] = "X"
        lo, hi = _run(cells, e)
        if lo <= centre <= hi and _wins(cells, e, how):
            found.append(e)
        cells[e] = "."
    return found


def _four_kind(cells: list[str], centre: int, how: str) -> int:
    fives = _fives_through(cells, centre, how)
    if not fives:
        return NONE
    if len(fives) == 1:
        return FOUR
    lo, hi = _run(cells, centre)
    if hi - lo == 3 and lo - 1 in fives and hi + 1 in fives:
        return OPEN_FOUR
    return FOUR_FOUR


def _empties_near(cells: list[str], centre: int) -> list[int]:
    return [e for e in range(max(1, centre - 4), min(len(cells) - 1, centre + 5))
            if cells[e] == "."]


def shape(pos: Position, x: int, y: int, colour: int, d: int) -> int:
    """What a ``colour`` stone on empty (x, y) makes along direction d: worked out once per
    line contents (the brute-force solvers meet the same few lines again and again)."""
    how = win_rule(pos.rule, colour)
    cells, start = _line(pos, x, y, d, colour)
    dx, dy = DIRECTIONS[d]
    centre = 1 + (x - start[0]) // dx if dx else 1 + (y - start[1])
    return _line_shape("".join(cells), centre, how)


@functools.lru_cache(maxsize=1 << 20)
def _line_shape(line: str, centre: int, how: str) -> int:
    """What an own stone on the empty ``line[centre]`` makes along that line (``shape``)."""
    cells = list(line)
    cells[centre] = "X"
    if _wins(cells, centre, how):
        return FIVE
    lo, hi = _run(cells, centre)
    if hi - lo + 1 >= 6:
        return OVERLINE
    if hi - lo + 1 == 5:
        return NONE
    kind = _four_kind(cells, centre, how)
    if kind:
        return kind
    kinds = []
    for e in _empties_near(cells, centre):
        cells[e] = "X"
        kinds.append(_four_kind(cells, centre, how))
        cells[e] = "."
    if any(k in (OPEN_FOUR, FOUR_FOUR) for k in kinds):
        return OPEN_THREE
    if FOUR in kinds:
        return THREE
    kinds = []
    near = _empties_near(cells, centre)
    for a in near:
        for b in near:
            if a < b:
                cells[a] = cells[b] = "X"
                kinds.append(_four_kind(cells, centre, how))
                cells[a] = cells[b] = "."
    if any(k in (OPEN_FOUR, FOUR_FOUR) for k in kinds):
        return OPEN_TWO
    if FOUR in kinds:
        return TWO
    return NONE


def combine(four_shapes: list[int]) -> int:
    """The class of a cell from its four shapes."""
    fours = sum({FOUR: 1, FOUR_FOUR: 2}.get(s, 0) for s in four_shapes)
    opens = four_shapes.count(OPEN_THREE)
    if FIVE in four_shapes:
        return C_FIVE
    if OPEN_FOUR in four_shapes:
        return C_OPEN_FOUR
    if fours:
        return [C_FOUR, C_FOUR_THREE][opens > 0] if fours == 1 else C_DOUBLE_FOUR
    if opens:
        return C_OPEN_THREE if opens == 1 else C_DOUBLE_THREE
    if THREE in four_shapes:
        return C_THREE
    open_twos = four_shapes.count(OPEN_TWO)
    if open_twos:
        return C_OPEN_TWO if open_twos == 1 else C_DOUBLE_TWO
    return C_TWO if TWO in four_shapes else C_NONE


_classes_seen: dict[tuple[object, ...], int] = {}  # cell_class per position, cell and colour


def cell_class(pos: Position, x: int, y: int, colour: int) -> int:
    """The class of a ``colour`` stone on (x, y), remembered per position (the threat solvers
    ask for the same cells of the same positions many times)."""
    key = (pos.width, pos.height, pos.rule, frozenset(pos.stones.items()), x, y, colour)
    if key not in _classes_seen:
        if len(_classes_seen) > 1 << 20:
            _classes_seen.clear()
        _classes_seen[key] = combine([shape(pos, x, y, colour, d) for d in range(4)])
    return _classes_seen[key]


def wins(pos: Position, x: int, y: int, colour: int) -> bool:
    """A ``colour`` stone on empty (x, y) makes a winning line, by counting stones."""
    how = win_rule(pos.rule, colour)
    for dx, dy in DIRECTIONS:
        n = 1
        ends = []
        for sign in (1, -1):
            k = 1
            while pos.at(x + sign * k * dx, y + sign * k * dy) == colour:
                k += 1
            n += k - 1
            ends.append(pos.at(x + sign * k * dx, y + sign * k * dy))
        opponent = WHITE if colour == BLACK else BLACK
        dead = ends[0] == opponent and ends[1] == opponent
        if (how == "free" and n >= 5 or how == "exact" and n == 5
                or how == "caro" and (n >= 6 or n == 5 and not dead)
                or how == "caro_exact" and n == 5 and not dead):
            return True
    return False


def foul(pos: Position, x: int, y: int, five_breaks_three: bool = False) -> int:
    """Renju foul of black at empty (x, y): 0 none, 1 double three, 2 double four, 3 overline.

    ``five_breaks_three`` is Piskvork's referee convention (also the renju package's): a three
    whose straight-four point also makes a five does not count.  We do not follow it; it is
    here to explain the cases where that oracle and we disagree."""
    shapes = [shape(pos, x, y, BLACK, d) for d in range(4)]
    if FIVE in shapes:
        return 0
    if OVERLINE in shapes:
        return 3
    if sum({FOUR: 1, OPEN_FOUR: 1, FOUR_FOUR: 2}.get(s, 0) for s in shapes) >= 2:
        return 2
    if shapes.count(OPEN_THREE) < 2:
        return 0
    pos.stones[(x, y)] = BLACK
    try:
        real = sum(_three_is_real(pos, x, y, d, five_breaks_three)
                   for d in range(4) if shapes[d] == OPEN_THREE)
    finally:
        del pos.stones[(x, y)]
    return 1 if real >= 2 else 0


def _three_is_real(pos: Position, x: int, y: int, d: int, five_breaks_three: bool) -> bool:
    """Some empty cell on this line, not itself a foul, turns the three into a straight four
    that contains (x, y)."""
    dx, dy = DIRECTIONS[d]
    for k in range(-4, 5):
        ex, ey = x + k * dx, y + k * dy
        if k == 0 or pos.at(ex, ey) != EMPTY:
            continue
        between = [pos.at(x + j * dx, y + j * dy) for j in range(min(0, k) + 1, max(0, k))]
        if any(v != BLACK for v in between):
            continue
        if five_breaks_three and wins(pos, ex, ey, BLACK):
            continue
        if shape(pos, ex, ey, BLACK, d) == OPEN_FOUR and foul(pos, ex, ey, five_breaks_three) == 0:
            return True
    return False


def image(sym: int, x: int, y: int, w: int, h: int) -> tuple[int, int]:
    """Symmetry images built from two generators: mirror left-right (m) and transpose (t)."""
    def mirror(p: tuple[int, int], width: int) -> tuple[int, int]:
        return width - 1 - p[0], p[1]

    def flip(p: tuple[int, int], height: int) -> tuple[int, int]:
        return p[0], height - 1 - p[1]

    def transpose(p: tuple[int, int]) -> tuple[int, int]:
        return p[1], p[0]

    p = (x, y)
    return [
        p, mirror(p, w), flip(p, h), mirror(flip(p, h), w),
        transpose(p), mirror(transpose(p), h), transpose(mirror(p, w)),
        mirror(flip(transpose(p), w), h),
    ][sym]


def hashes(pos: Position, values: tuple[tuple[int, ...], ...]) -> list[int]:
    """Zobrist key of each symmetric image, XOR over the stones, from scratch."""
    count = 8 if pos.width == pos.height else 4
    keys = []
    for sym in range(count):
        key = 0
        for (x, y), colour in pos.stones.items():
            ix, iy = image(sym, x, y, pos.width, pos.height)
            key ^= values[colour][iy * 32 + ix]
        keys.append(key)
    return keys


def candidates(pos: Position) -> set[tuple[int, int]]:
    """Empty cells within Chebyshev distance 2 of a stone."""
    return {(x, y) for x in range(pos.width) for y in range(pos.height)
            if pos.at(x, y) == EMPTY and any(
                pos.at(x + i, y + j) in (BLACK, WHITE)
                for i in range(-2, 3) for j in range(-2, 3))}


def full_window_search(board, ss, depth: int, ply: int, colour: int) -> int:  # type: ignore[no-untyped-def]
    """Plain negamax over the main search's own move generator and node rules (threat scan,
    forced blocks searched without using depth, VCF and evaluation at the leaves, the
    branching cap counted as a move worth -MATE_BOUND), with no window and no table: the value
    MTD(f) with its zero-window passes and its table must converge to."""
    from bot.core.evaluate import evaluate
    from bot.core.moves import make, unmake
    from bot.core.movepick import order_moves
    from bot.core.score import MATE, MATE_BOUND
    from bot.core.searchstate import MAX_PLY, P_LEAF_DOUBLE_THREE, P_LEAF_VCF, P_VCF_DEPTH
    from bot.core.state import M_CANDIDATES
    from bot.core.threats import double_three_win, is_legal, scan_threats, vcf

    st = board.state
    if st.meta[M_CANDIDATES] == 0:
        return 0
    own_five, opp_fives, opp_five, own_win_four, opp_three = scan_threats(st, colour, True)
    if own_five >= 0:
        return MATE - ply - 1
    if opp_fives >= 2 or (opp_fives == 1 and not is_legal(st, opp_five, colour)):
        return -(MATE - ply - 2)
    if opp_fives == 0 and own_win_four >= 0:
        return MATE - ply - 3
    if ply >= MAX_PLY - 1:
        return int(evaluate(st, colour))
    forced = opp_fives == 1
    if depth <= 0 and not forced:
        if ss.config[P_LEAF_VCF] and ss.config[P_VCF_DEPTH] > 0:
            plies = vcf(st, ss, colour, ss.config[P_VCF_DEPTH])
            if plies > 0:
                return MATE - ply - plies
        if ss.config[P_LEAF_DOUBLE_THREE] and double_three_win(st, colour):
            return MATE - ply - 5
        return int(evaluate(st, colour))
    if forced:
        moves, complete = [opp_five], True
    else:
        count, complete = order_moves(st, ss, ply, colour, -1, opp_three)
        moves = [int(m) for m in ss.moves[ply, :count]]
    if not moves:
        return 0
    best = -10**9 if complete else -MATE_BOUND
    for cell in moves:
        make(st, cell, colour)
        best = max(best, -full_window_search(board, ss, depth if forced else depth - 1, ply + 1,
                                             3 - colour))
        unmake(st)
    return best


def _attack_decided(pos: Position, attacker: int, cells: set[tuple[int, int]]
                    ) -> tuple[bool | None, list[tuple[int, int]]]:
    """For the attacker to move: (True: a five now, or an open four or double four with no
    five to block; False: two opponent fives; None: undecided) and the opponent's fives."""
    if any(wins(pos, x, y, attacker) for x, y in cells):
        return True, []
    opp_fives = [(x, y) for x, y in cells if wins(pos, x, y, 3 - attacker)]
    if len(opp_fives) >= 2:
        return False, opp_fives
    if not opp_fives and any(cell_class(pos, x, y, attacker) in (C_DOUBLE_FOUR, C_OPEN_FOUR)
                             for x, y in cells):
        return True, opp_fives
    return None, opp_fives


def vcf_wins(pos: Position, colour: int, fours_left: int) -> bool:
    """Whether ``colour`` to move wins by continuous fours within ``fours_left`` fours, by
    brute force over every four (freestyle or exact five; no renju fouls): the rules of
    bot.core.threats.vcf written over the plain board.  A five wins; two opponent fives lose;
    an open four or double four wins when the opponent has no five; otherwise each four is
    tried (only the block of the opponent's single five, if it has one), the defender blocks
    it, and the search goes on with one four less.  Remembered per position."""
    key = (pos.width, pos.height, pos.rule, frozenset(pos.stones.items()), colour, fours_left)
    if key not in _vcf_seen:
        if len(_vcf_seen) > 1 << 18:
            _vcf_seen.clear()
        _vcf_seen[key] = _vcf_wins(pos, colour, fours_left)
    return _vcf_seen[key]


_vcf_seen: dict[tuple[object, ...], bool] = {}  # vcf_wins per position, colour and fours


def _vcf_wins(pos: Position, colour: int, fours_left: int) -> bool:
    opponent = 3 - colour
    cells = candidates(pos)
    decided, opp_fives = _attack_decided(pos, colour, cells)
    if decided is not None:
        return decided
    if fours_left <= 0:
        return False
    for x, y in sorted(cells):
        if opp_fives and (x, y) != opp_fives[0] or cell_class(pos, x, y, colour) < C_FOUR:
            continue
        pos.stones[(x, y)] = colour
        blocks = [cell for cell in candidates(pos) if wins(pos, *cell, colour)]
        won = len(blocks) >= 2
        if len(blocks) == 1:
            pos.stones[blocks[0]] = opponent
            won = vcf_wins(pos, colour, fours_left - 1)
            del pos.stones[blocks[0]]
        del pos.stones[(x, y)]
        if won:
            return True
    return False


def double_three_win(pos: Position, colour: int) -> bool:
    """bot.core.threats.double_three_win over the plain board: ``colour`` has a cell of class
    double three and the opponent no cell of class four or better (freestyle or exact five; the
    kernel never claims it for black under renju nor under caro)."""
    cells = candidates(pos)
    return (not any(cell_class(pos, x, y, 3 - colour) >= C_FOUR for x, y in cells)
            and any(cell_class(pos, x, y, colour) == C_DOUBLE_THREE for x, y in cells))


def vct_wins(pos: Position, attacker: int, threats_left: int, attacking: bool = True,
             quiet_fours: int = 0) -> bool:
    """Whether ``attacker`` wins by continuous threats (fours and open threes) within
    ``threats_left`` threats, by brute force over the rules of bot.core.threats._vct (freestyle
    or exact five): the attacker tries every cell of class open three or better (only the
    block of the defender's single five, if it has one, and a block of a lesser class only
    while an open three of the attacker still stands or, with ``quiet_fours``, as a quiet
    threat), then, with ``quiet_fours`` above 0 and
    two threats left, every cell of class open two to three after which it would win by fours
    were it its turn (a quiet threat); the defender must block a single five, wins with a
    five, an open four or double four, or a VCF of its own, must answer an open three with a
    cell where either side makes a four, and a quiet threat with any empty cell of the board
    after which the attacker has neither a VCF nor a win by threats; an empty answer set, or
    no threat to answer, fails the attack."""
    defender = 3 - attacker
    cells = candidates(pos)
    if attacking:
        decided, opp_fives = _attack_decided(pos, attacker, cells)
        if decided is not None:
            return decided
        if threats_left <= 0:
            return False
        if opp_fives and cell_class(pos, *opp_fives[0], attacker) < C_OPEN_THREE:
            # a quiet block: the attack goes on only if an open three of ours still stands
            pos.stones[opp_fives[0]] = attacker
            standing = any(cell_class(pos, x, y, attacker) == C_OPEN_FOUR
                           for x, y in candidates(pos))
            if standing:
                won = vct_wins(pos, attacker, threats_left, False, quiet_fours)
            else:  # with quiet threats, a block that leaves a win by fours is one
                won = (quiet_fours > 0 and vcf_wins(pos, attacker, quiet_fours)
                       and vct_wins(pos, attacker, threats_left - 1, False, quiet_fours))
            del pos.stones[opp_fives[0]]
            return won
        quiet = [] if opp_fives or quiet_fours <= 0 or threats_left < 2 else [
            (x, y) for x, y in sorted(cells)
            if C_OPEN_TWO <= cell_class(pos, x, y, attacker) < C_OPEN_THREE]
        for x, y in sorted(cells):
            kind = cell_class(pos, x, y, attacker)
            if opp_fives and (x, y) != opp_fives[0] or kind < C_OPEN_THREE or kind == C_FIVE:
                continue
            pos.stones[(x, y)] = attacker
            won = vct_wins(pos, attacker, threats_left - 1, False, quiet_fours)
            del pos.stones[(x, y)]
            if won:
                return True
        for x, y in quiet:
            pos.stones[(x, y)] = attacker
            won = (vcf_wins(pos, attacker, quiet_fours)
                   and vct_wins(pos, attacker, threats_left - 1, False, quiet_fours))
            del pos.stones[(x, y)]
            if won:
                return True
        return False
    if any(wins(pos, x, y, defender) for x, y in cells):
        return False
    fives = [(x, y) for x, y in cells if wins(pos, x, y, attacker)]
    if len(fives) >= 2:
        return True
    if fives:
        pos.stones[fives[0]] = defender
        won = vct_wins(pos, attacker, threats_left, True, quiet_fours)
        del pos.stones[fives[0]]
        return won
    three = any(cell_class(pos, x, y, attacker) == C_OPEN_FOUR for x, y in cells)
    if (not three and quiet_fours <= 0) or any(
            cell_class(pos, x, y, defender) in (C_DOUBLE_FOUR, C_OPEN_FOUR) for x, y in cells):
        return False
    if vcf_wins(pos, defender, 12):
        return False
    if three:
        answers = [(x, y) for x, y in sorted(cells) if cell_class(pos, x, y, attacker) >= C_FOUR
                   or cell_class(pos, x, y, defender) >= C_FOUR]
    elif vcf_wins(pos, attacker, quiet_fours):
        answers = [(x, y) for x in range(pos.width) for y in range(pos.height)
                   if pos.at(x, y) == EMPTY]
    else:
        return False
    for x, y in answers:
        pos.stones[(x, y)] = defender
        won = ((not three and vcf_wins(pos, attacker, quiet_fours))
               or vct_wins(pos, attacker, threats_left, True, quiet_fours))
        del pos.stones[(x, y)]
        if not won:
            return False
    return bool(answers)
