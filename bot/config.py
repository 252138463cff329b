"""Engine parameters, loaded once and handed to the kernels as an int64 array."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache, cached_property

from bot.core import arrays, shapes
from bot.core import searchstate as slots
from bot.core.jit import np
from bot.core.evaluate import cell_value_table

# Weights indexed by class (none, two, open_two, double_two, three, open_three, double_three,
# four, four_three, double_four, open_four, five).
# Move ordering: the value of playing a cell, from the class the mover's stone makes there (OWN)
# and the class the opponent's would (OPP, what blocking it saves).  Larger weights on big
# threats make the search more tactical; larger weights on twos make it more positional.
ORDER_OWN = (0, 15, 68, 204, 164, 400, 496, 475, 714, 700, 900, 3000)
ORDER_OPP = (0, 25, 47, 46, 92, 254, 349, 301, 487, 400, 582, 1500)
# ... plus, per pattern of the mover's stone on the cell (see PATTERN_OWN below), POLICY_OWN
# [pattern], and per pattern of the opponent's, POLICY_OPP[pattern]: fitted to the moves played
# in recorded games by ``python -m bot.tune --policy``.  Patterns not listed add 0.
POLICY_OWN: dict[str, int] = {
    "two": -8,
    "two+two": 11,
    "two+two+two": -1,
    "open_two": -4,
    "open_two+two": 7,
    "open_two+two+two": 3,
    "open_two+open_two": -8,
    "open_two+open_two+two": -11,
    "open_two+open_two+open_two": 37,
    "open_two+open_two+open_two+two": 1,
    "three": -36,
    "three+two": -21,
    "three+two+two": -2,
    "three+open_two": 15,
    "three+open_two+two": 13,
    "three+open_two+two+two": -1,
    "three+open_two+open_two": 7,
    "three+open_two+open_two+two": -1,
    "three+three": 29,
    "three+three+two": 3,
    "three+three+open_two": 7,
    "open_three": -104,
    "open_three+two": -70,
    "open_three+two+two": -22,
    "open_three+open_two": 33,
    "open_three+open_two+two": 35,
    "open_three+open_two+open_two": 50,
    "open_three+three": 30,
    "open_three+three+two": 12,
    "open_three+three+open_two": 21,
    "four": -114,
    "four+two": -65,
    "four+two+two": -25,
    "four+open_two": 1,
    "four+open_two+two": 13,
    "four+open_two+open_two": 40,
    "four+three": 46,
    "four+three+two": 32,
    "four+three+open_two": 44,
    "four+open_three": -8,
}
POLICY_OPP: dict[str, int] = {
    "two": -1,
    "two+two": 9,
    "two+two+two": -4,
    "open_two": 5,
    "open_two+two": 4,
    "open_two+two+two": -4,
    "open_two+two+two+two": -1,
    "open_two+open_two": 6,
    "open_two+open_two+two": -3,
    "open_two+open_two+two+two": -1,
    "open_two+open_two+open_two+two": 1,
    "three": -10,
    "three+two": -1,
    "three+two+two": -4,
    "three+open_two": 16,
    "three+open_two+two": -2,
    "three+open_two+two+two": -1,
    "three+open_two+open_two": 2,
    "three+three": 8,
    "three+three+two": 1,
    "three+three+open_two": 1,
    "open_three": -24,
    "open_three+two": -19,
    "open_three+two+two": -8,
    "open_three+open_two": 11,
    "open_three+open_two+two": 5,
    "open_three+open_two+open_two": 23,
    "open_three+three": 8,
    "open_three+three+two": 9,
    "open_three+three+open_two": 9,
    "open_three+open_three": 14,
    "four": -38,
    "four+two": -18,
    "four+two+two": -1,
    "four+open_two": 4,
    "four+open_two+two": 8,
    "four+open_two+open_two": 7,
    "four+three": 23,
    "four+three+two": 9,
    "four+three+open_two": 14,
    "four+open_three": 19,
    "open_four": -37,
    "open_four+two": -6,
    "open_four+two+two": -7,
    "open_four+open_two": 14,
    "open_four+open_two+two": 1,
    "open_four+three": 5,
}
# Evaluation (bot.core.evaluate): the score of a position is the sum over candidate cells of
# EVAL_OWN[the mover's class there] minus EVAL_OPP[the opponent's class there], ...  All the
# tables are fitted to game outcomes by ``python -m bot.tune`` (its docstring says how); the
# scale is about 300 per unit of log-odds.
EVAL_OWN = (0, -10, -16, -34, -63, -81, -161, -208, 529, 700, 900, 3000)
EVAL_OPP = (0, -16, -30, -59, -43, 14, 21, 29, 151, -67, 95, 1500)
# ... plus, per line shape (none, two, open_two, three, open_three, four, four_four, open_four,
# five, overline), SHAPE_OWN[shape] for each direction of each candidate cell of the mover's,
# minus SHAPE_OPP[shape] for the opponent's: a cell with more than one useful line scores more
# than its class alone says.
SHAPE_OWN = (0, 5, 13, 64, 104, 321, 0, 0, 0, 0)
SHAPE_OPP = (0, 8, 22, 35, -13, 70, 0, 84, 0, 0)
# ... plus, per pattern (a cell's four shapes as a multiset, named by its shapes other than none,
# largest first: see bot.core.shapes.pattern_name), PATTERN_OWN[pattern] for each candidate cell
# of the mover's and minus PATTERN_OPP[pattern] for the opponent's: what the class and the
# shapes, counted apart, say wrongly about a combination.  Patterns not listed add 0.
PATTERN_OWN: dict[str, int] = {
    "two": 7,
    "two+two": -3,
    "two+two+two+two": -6,
    "open_two": 2,
    "open_two+two": 1,
    "open_two+two+two+two": -6,
    "open_two+open_two": 12,
    "open_two+open_two+two": 11,
    "open_two+open_two+two+two": 15,
    "open_two+open_two+open_two": -22,
    "open_two+open_two+open_two+two": -8,
    "open_two+open_two+open_two+open_two": -11,
    "three": 5,
    "three+two": 1,
    "three+two+two": 12,
    "three+two+two+two": -9,
    "three+open_two": 11,
    "three+open_two+two": 15,
    "three+open_two+two+two": 10,
    "three+open_two+open_two": 5,
    "three+open_two+open_two+two": 4,
    "three+open_two+open_two+open_two": -19,
    "three+three": -20,
    "three+three+two": -13,
    "three+three+two+two": -2,
    "three+three+open_two": 4,
    "three+three+open_two+two": 2,
    "three+three+open_two+open_two": -10,
    "three+three+three": 1,
    "open_three": 2,
    "open_three+two": 8,
    "open_three+two+two": 16,
    "open_three+two+two+two": -11,
    "open_three+open_two": 15,
    "open_three+open_two+two": 10,
    "open_three+open_two+two+two": 8,
    "open_three+open_two+open_two": -13,
    "open_three+open_two+open_two+two": -4,
    "open_three+open_two+open_two+open_two": -16,
    "open_three+three": -10,
    "open_three+three+two": 5,
    "open_three+three+two+two": -5,
    "open_three+three+open_two": 3,
    "open_three+three+open_two+two": -4,
    "open_three+three+open_two+open_two": -10,
    "open_three+three+three": 3,
    "open_three+open_three": -3,
    "open_three+open_three+two": -1,
    "open_three+open_three+open_two": 1,
    "four": -68,
    "four+two": -50,
    "four+two+two": -25,
    "four+two+two+two": 3,
    "four+open_two": 3,
    "four+open_two+two": 9,
    "four+open_two+two+two": 8,
    "four+open_two+open_two": 34,
    "four+open_two+open_two+two": 4,
    "four+three": -12,
    "four+three+two": 1,
    "four+three+open_two": 36,
    "four+open_three": 22,
    "four+open_three+two": 15,
    "four+open_three+open_two": 7,
}
PATTERN_OPP: dict[str, int] = {
    "two": 8,
    "two+two": -3,
    "two+two+two": 2,
    "two+two+two+two": -8,
    "open_two": 6,
    "open_two+two": -5,
    "open_two+two+two": 3,
    "open_two+two+two+two": -8,
    "open_two+open_two": 19,
    "open_two+open_two+two": 8,
    "open_two+open_two+two+two": 4,
    "open_two+open_two+open_two": -13,
    "open_two+open_two+open_two+two": -16,
    "open_two+open_two+open_two+open_two": -7,
    "three": 13,
    "three+two": 9,
    "three+two+two": 15,
    "three+two+two+two": -11,
    "three+open_two": 2,
    "three+open_two+two": 2,
    "three+open_two+two+two": 9,
    "three+open_two+open_two": -14,
    "three+open_two+open_two+two": 6,
    "three+open_two+open_two+open_two": -22,
    "three+three": -3,
    "three+three+two": 10,
    "three+three+two+two": -4,
    "three+three+open_two": -3,
    "three+three+open_two+two": 1,
    "three+three+open_two+open_two": -7,
    "three+three+three": -5,
    "open_three": 13,
    "open_three+two": 15,
    "open_three+two+two": 7,
    "open_three+two+two+two": -12,
    "open_three+open_two": 10,
    "open_three+open_two+two": 6,
    "open_three+open_two+two+two": -9,
    "open_three+open_two+open_two": -7,
    "open_three+open_two+open_two+two": 5,
    "open_three+open_two+open_two+open_two": -6,
    "open_three+three": 2,
    "open_three+three+two": 3,
    "open_three+three+two+two": 4,
    "open_three+three+open_two+two": -14,
    "open_three+three+open_two+open_two": -8,
    "open_three+three+three": -3,
    "open_three+open_three": 7,
    "open_three+open_three+two": 3,
    "open_three+open_three+open_two": 4,
    "open_three+open_three+three": 1,
    "four": -49,
    "four+two": -28,
    "four+two+two": -12,
    "four+two+two+two": 4,
    "four+open_two": -8,
    "four+open_two+two": 14,
    "four+open_two+open_two": 42,
    "four+open_two+open_two+two": 12,
    "four+three": -11,
    "four+three+two": -8,
    "four+three+two+two": 5,
    "four+three+open_two": 29,
    "four+three+three": 3,
    "four+open_three": 16,
    "four+open_three+open_two": 14,
    "four+four": -3,
    "open_four": -35,
    "open_four+two": 14,
    "open_four+two+two": 8,
    "open_four+open_two": -9,
    "open_four+open_two+two": 10,
    "open_four+three": 22,
    "open_four+three+two": -3,
    "open_four+three+open_two": -4,
    "open_four+open_three": -12,
}


@cache
def _pattern_numbers() -> dict[str, int]:
    return {shapes.pattern_name(p): p for p in range(shapes.PATTERNS)}


def pattern_weights(named: dict[str, int]) -> tuple[int, ...]:
    """A dense table (one weight per pattern number) from weights named by pattern."""
    numbers = _pattern_numbers()
    table = [0] * shapes.PATTERNS
    for name, weight in named.items():
        table[numbers[name]] = weight
    return tuple(table)


@dataclass(frozen=True)
class Config:
    """Tunables of the search (each trades something, see the field comments)."""

    # Moves searched per node, best-ordered first: fewer reach deeper but may miss a quiet move.
    branch: int = 20
    # Fours the VCF search may chain: longer finds deeper wins, costs time at every leaf.
    # 16 against 12: -15 Elo [-49, +18] in 228 games at 200 ms a move (H0).
    vcf_depth: int = 12
    # Run VCF at leaves of the main search: sharper tactics, fewer nodes per second.
    leaf_vcf: bool = True
    # Among moves of equal class weights, try first those that refuted the opponent elsewhere
    # (history) and at this ply (killers): more cutoffs, a little bookkeeping per cutoff.
    # Off: their SPRT gave -10 Elo [-41, +20] (H0); to be tried again with reductions.
    history: bool = False
    killers: bool = False
    # Late-move reductions: after this many moves, a quiet move (no three or four for either
    # side) is searched one ply shallower (two after three times as many), and again at full
    # depth only if it beats the bound.  Smaller reaches deeper and misses more quiet moves;
    # 0 turns reductions off.
    lmr_moves: int = 3
    # ... or, when lmr_log > 0, by ln(depth) x ln(move number) x lmr_log / 100 plies (Rapfi's
    # shape), never below one ply left.  Larger reduces more.
    lmr_log: int = 0
    # Move-count pruning: once a move that does not lose is in hand, a node with d plies left
    # searches only its first move_count + d^1.32 moves, and after them only threes and fours
    # (either side's).  Smaller reaches deeper and misses more quiet moves; 0 searches every
    # move (up to branch).  3 against 0: +24 Elo [+4, +44] in 600 games at 200 ms a move;
    # 5 and 2 against 3: -13 [-45, +19] and -22 [-60, +15], both H0 (about 200 games each).
    move_count: int = 3
    # Reverse futility: with at most futility_depth plies left and no threat to answer, a node
    # whose static score beats beta by futility_margin per ply is cut at once.  A smaller
    # margin or a larger depth cuts more, and trusts the static score more; margin 0: off.
    # 100 against 0 (with move_count 3): +73 Elo [+29, +120] in 106 games at 200 ms a move.
    futility_margin: int = 100
    futility_depth: int = 3
    # Razoring: with at most razor_depth plies left and no threat to answer, a node whose static
    # score is below beta by more than razor_margin per ply is settled by the leaf's search (the
    # mover's win by fours, else the static score).  A larger margin or depth prunes less.
    razor_margin: int = 0
    razor_depth: int = 2
    # A leaf whose static score does not hold beta and that has no win by fours also looks
    # for a win by a double open three that the opponent cannot meet with fours (read off the
    # class counts, no scan): a few more leaves end in a mate score, which the search then
    # trusts over the static score.
    leaf_double_three: bool = False
    # Singular extension: at a node with at least singular_depth plies left whose table move
    # proved a lower bound L (at most 3 plies shallower), the other moves are searched to half
    # the depth against L - singular_margin x depth; when none reaches it, the table move is
    # the only good one and is searched one ply deeper.  A smaller depth or a smaller margin
    # extends more often, at the cost of the half-depth searches; depth 0: off (depth 6,
    # margin 20 against off: 0 Elo [-24, +24] in 420 games at 200 ms a move, H0).
    singular_depth: int = 0
    singular_margin: int = 20
    # Nodes one leaf VCF may spend before it gives up (0: no limit): smaller keeps positions
    # full of fours from eating the search, and misses long VCFs there.
    leaf_vcf_nodes: int = 200
    # Answer an open three without using up depth (only the blocks and fours are searched
    # there): the search sees twice as far along threat lines, at the cost of more nodes in
    # positions full of threes.
    three_extension: bool = False
    # Before searching, look for the opponent's win by fours (as if we passed) and, if it has
    # one, search at the root only the moves after which it has none (one such move is played
    # at once): never misses a defence the main search would cut, costs a VCF per root move.
    # Off: at 200 ms per move it scored 0.477 over 217 games (-16 Elo, +-46), no gain.
    root_defence: bool = False
    # Nodes the root's own VCF and the root defence may each spend on their VCF searches, per
    # millisecond of the turn's budget, before they give up (the search goes on without them):
    # more handles positions full of fours, and takes time from the search (a VCF node costs
    # about 5 microseconds).
    defence_nodes_per_ms: int = 20
    # Before the search, look for a win by continuous fours of at most this many fours (0:
    # never) and play it at once: longer wins than the leaves' vcf_depth, for a VCF's cost.
    root_vcf_fours: int = 100
    # No iteration starts past this share (percent) of the turn's maximum: larger spends more
    # of the turn, more of it on iterations the hard stop cuts (a cut iteration still counts
    # when one of its passes proved a bound with a root move, bot.driver.mtdf).  70 against
    # 45 (with cut iterations counted): +27 Elo [+6, +48], 324 games at 200 ms a move (H1);
    # 90 and 85 against 70: -24 [-63, +14] and -13 [-45, +18] (H0).
    optimum_percent: int = 70
    # Spend more of the turn when the best move changes or the score drops between iterations,
    # less when it is settled (bot.timeman.Pacing); off: a fixed share of the turn.
    pacing: bool = False
    # Before the main search, look for a win by continuous threats (fours and open threes) of
    # at most vct_threats threats, spending vct_nodes_per_ms nodes per millisecond of the turn
    # budget and never more than vct_max_nodes (0: never): more finds longer wins, and leaves
    # less time for the main search.  Off until a match says it helps.
    vct_threats: int = 8
    vct_nodes_per_ms: int = 0
    vct_max_nodes: int = 100_000
    # ... counting as a threat also a quiet move after which it would win by fours (of at
    # most this many) were it its turn again (0: only fours and open threes): finds the wins
    # that start with such a move, at the cost of a VCF per candidate cell at each attacker
    # node and a relevance zone at each defender node.
    vct_quiet_fours: int = 0
    # ... searched as a df-pn (bot.core.proofnumber: proof numbers steer it, vct_threats
    # does not bound it) with a table of this many entries (a power of two, 40 bytes each,
    # kept across moves) instead of deepening one threat at a time (0): reaches long wins the
    # deepening cannot within its nodes (python -m bot.bench threats), at the cost of the
    # table's memory; its win may be longer than the shortest.
    vct_dfpn_entries: int = 0
    # Inside the search: at a node (not the root) with at least interior_vct_depth plies left,
    # no threat to answer, a static score below beta and an open three or better to make,
    # look for a win by continuous threats (fours and open threes, at most
    # interior_vct_threats threats, interior_vct_nodes nodes; 0: never) and score it as the
    # mate it proves.  More nodes or threats find longer wins deeper in the tree, at a cost at
    # every such node; a smaller depth runs it at many more nodes.  300 nodes from 5 plies
    # left against off: -8 Elo [-26, +9] in 800 games at 200 ms a move (undecided).
    interior_vct_nodes: int = 0
    interior_vct_depth: int = 4
    interior_vct_threats: int = 5
    # Before the search, try the first `branch` root moves against the opponent's win by
    # continuous threats (fours and open threes, at most root_vct_defence_threats threats,
    # root_vct_defence_nodes nodes a move; 0: never) and search only the moves not found to
    # lose (every move when all of them lose): drops only moves that lose for sure, sees
    # threat wins beyond the search's horizon, costs up to branch times that many nodes a turn.
    # 300 nodes against off: +7 Elo [-18, +32] in 198 games at 200 ms a move; 1000 nodes and 8
    # threats: +10 [-9, +30] in 534 games, then an SPRT(0, 10) of the change: -24 [-43, -5]
    # in 685 games, H0.
    root_vct_defence_nodes: int = 0
    root_vct_defence_threats: int = 6
    order_own: tuple[int, ...] = field(default=ORDER_OWN)
    order_opp: tuple[int, ...] = field(default=ORDER_OPP)
    eval_own: tuple[int, ...] = field(default=EVAL_OWN)
    eval_opp: tuple[int, ...] = field(default=EVAL_OPP)
    shape_own: tuple[int, ...] = field(default=SHAPE_OWN)
    shape_opp: tuple[int, ...] = field(default=SHAPE_OPP)
    pattern_own: tuple[int, ...] = field(default=pattern_weights(PATTERN_OWN))
    pattern_opp: tuple[int, ...] = field(default=pattern_weights(PATTERN_OPP))
    policy_own: tuple[int, ...] = field(default=pattern_weights(POLICY_OWN))
    policy_opp: tuple[int, ...] = field(default=pattern_weights(POLICY_OPP))

    @cached_property
    def order_values(self) -> np.ndarray:
        """The move ordering's table (bot.core.searchstate.SearchState.order_values)."""
        no_shapes = (0,) * shapes.SHAPES
        return cell_value_table((self.order_own, self.order_opp), (no_shapes, no_shapes),
                                (self.policy_own, self.policy_opp))

    @cached_property
    def cell_values(self) -> np.ndarray:
        """The evaluation's table (bot.core.evaluate.cell_value_table) for these weights."""
        return cell_value_table((self.eval_own, self.eval_opp), (self.shape_own, self.shape_opp),
                                (self.pattern_own, self.pattern_opp))

    def as_array(self) -> np.ndarray:
        array = arrays.zeros(slots.CONFIG_SLOTS, "int64")
        array[slots.P_BRANCH] = self.branch
        array[slots.P_VCF_DEPTH] = self.vcf_depth
        array[slots.P_LEAF_VCF] = int(self.leaf_vcf)
        array[slots.P_HISTORY] = int(self.history)
        array[slots.P_KILLERS] = int(self.killers)
        array[slots.P_LMR_MOVES] = self.lmr_moves
        array[slots.P_LEAF_VCF_NODES] = self.leaf_vcf_nodes
        array[slots.P_THREE_EXTENSION] = int(self.three_extension)
        array[slots.P_MOVE_COUNT] = self.move_count
        array[slots.P_FUTILITY_MARGIN] = self.futility_margin
        array[slots.P_FUTILITY_DEPTH] = self.futility_depth
        array[slots.P_RAZOR_MARGIN] = self.razor_margin
        array[slots.P_RAZOR_DEPTH] = self.razor_depth
        array[slots.P_LEAF_DOUBLE_THREE] = int(self.leaf_double_three)
        array[slots.P_LMR_LOG] = self.lmr_log
        array[slots.P_SINGULAR_DEPTH] = self.singular_depth
        array[slots.P_SINGULAR_MARGIN] = self.singular_margin
        array[slots.P_INTERIOR_VCT_NODES] = self.interior_vct_nodes
        array[slots.P_INTERIOR_VCT_DEPTH] = self.interior_vct_depth
        array[slots.P_INTERIOR_VCT_THREATS] = self.interior_vct_threats
        return array
