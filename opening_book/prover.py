"""The prover: proof-number search over the attacker's moves and every defender reply, its leaves
closed by the threat-space search of bot.core.threats (VCF and VCT).

The tree is an AND/OR tree (Allis 1994): the attacker (the side to move at the root) needs one
winning move at its nodes (OR), the defender is refuted only when every reply loses (AND).  A
node is *proved* when the attacker wins within the stone budget (the number of stones on the
board when the last line ends), *disproved* when it cannot any more (the defender wins first, or
the budget is spent).  Proof and disproof numbers steer the search to the most-proving node
(pn: min over an OR node's children, sum over an AND node's; dn the other way round).

Leaves are closed without expanding them: at an attacker node, a five, an open four, or a win by
continuous threats within the budget proves it (the threat-bounded ``vct`` and, where it finds
none and ``dfpn_nodes`` asks for it, the df-pn with quiet threats, ``dfpn_threat_win``); at a
defender node, a five of its own disproves it and two fives of the attacker prove it.  A
defender node is expanded over *every* empty cell, after the seed's "skip": the defender passes
and the attacker's threat search runs once.  If the attacker has no win even then, no reply can
lose to threats either (a stone never hurts its owner under rules 0 and 1), so the replies are
created unexamined, at the cost of one search instead of one per cell, and each is tried only
if the proof search comes back to it.  If the attacker wins after the pass, each reply is tried
by the threat search at once: those that do not stop the attacker's threats are proved, the
others become open nodes (the skip made exact: no reply is assumed refuted, each is refuted by a
search).  An attacker node
is expanded over its candidate moves (empty cells within two of a stone), best-ordered, all of
them or the ``attacker_width`` best.  Within two attacker moves of the budget the threat
search also disproves a node (``_close_attacker_node``).  So a proof is a proof; elsewhere "no
win found" says only that none was found within the limits (the node budget, the attacker width,
the threat search's limits).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from bot.config import Config
from bot.core.board import Board
from bot.core.movepick import generate_moves
from bot.core.moves import make, unmake
from bot.core.proofnumber import BOOK_QUIET_FOURS, dfpn_vct_within, new_table
from bot.core.searchstate import C_TSS_NODES, SearchState, forget_threats, new_search_state
from bot.core.shapes import BLACK
from bot.core.state import M_RULE, RULE_RENJU
from bot.core.threats import scan_threats, vct

if TYPE_CHECKING:
    from numpy import ndarray

INFINITE = 1 << 40  # a proof or disproof number that can no longer be met
THREAT_TABLE_ENTRIES = 1 << 16  # the threat search's own memo lives in the search state


def threat_search_state() -> SearchState:
    """Buffers for the threat search (its memo and move lists), with the default settings."""
    config = Config()
    return new_search_state(THREAT_TABLE_ENTRIES, config.as_array(), config.order_values)


# The df-pn a leaf may try where the threat-bounded deepening found no win within the budget
# (ProverLimits.dfpn_nodes), with the quiet threats of BOOK_QUIET_FOURS fours: its table's
# entries, a fixed size, so that a search with as many nodes or more finds the same proof again
# (the verifier's).
DFPN_TABLE_ENTRIES = 1 << 16
# Its nodes in the builder's jobs, and so the least the verifier gives its own.  On 120 open
# vertices of the graph, a proof search of 1000 tree nodes with 5000-node threat searches
# proved 1 of them, 11 with this df-pn after each failed one (2.7 times the time), and 5 with
# 3000 tree nodes and no df-pn (3.5 times the time).
DFPN_NODES = 20_000
# ... and in a sweep (one quick proof per open vertex): there the df-pn at the vertex itself is
# most of the work, and more nodes prove more of the open vertices within the builder's time
# per position.  On 120 open vertices of 14-30 stones (session 62, `prove --seconds 0.2
# --threat-nodes 5000`), 20000 nodes proved 8, 60000 10, 150000 15 and 500000 22, in 24-34 s
# in all; with a limit of 1 s, 10, 17, 22 and 25.  The sweep of the graph of record with it
# closed 430 of its 4044 open vertices in 7 minutes on two workers.  In builds, where every
# reply a job's move leaves open gets a quick proof, it made each job four times as long for
# no clear gain in 25 minutes (h8 g10, one worker each), so builds keep DFPN_NODES.
SWEEP_DFPN_NODES = 500_000
# The df-pn is tried only with this many attacker moves left before the five or more: nearer
# the budget the threat-bounded deepening sees the wins there are within its nodes, and decides
# the refutations (``_threat_verdict``).
DFPN_LEAST_MOVES = 3


def dfpn_threat_win(board: Board, search: SearchState, table: tuple[ndarray, ndarray],
                    attacker: int, nodes: int, plies_left: int) -> tuple[int, int]:
    """(plies of the longest line of its proof, first move) of the attacker's win by
    continuous threats, with quiet threats, that the df-pn proves within ``nodes`` nodes for
    each of its searches, from an empty ``table`` (``new_table(DFPN_TABLE_ENTRIES)``) and memo,
    or (0, -1): a search with as many nodes or more proves it again the same way.  It looks
    first for a win of at most ``plies_left`` plies with the attacker's moves bounded by those
    plies, then with no bound (``dfpn_vct_within``: on 240 open vertices of the graph, 14-30
    stones, with 2000 tree nodes and 5000 threat nodes, the unbounded search alone proved 3 of
    them, the bounded one alone 11, both 15; with 10000 nodes instead of DFPN_NODES, 7)."""
    table[0].fill(0)
    forget_threats(search)
    return dfpn_vct_within(board.state, search, table[0], table[1], attacker, nodes,
                           BOOK_QUIET_FOURS, plies_left)


@dataclass
class Node:
    """One position of the proof tree: reached by ``cell`` from its parent."""

    cell: int
    attacker_to_move: bool
    pn: int = 1
    dn: int = 1
    longest: int = 0  # when proved: stones on the board at the end of the longest line
    threat_move: int = -1  # when proved as a leaf: the first move of that win
    examined: bool = True  # False: created after a failed skip, its leaf tests not yet run
    children: list[Node] | None = None  # None until expanded
    best: Node | None = field(default=None, repr=False)  # the proved attacker move

    @property
    def proved(self) -> bool:
        return self.pn == 0

    @property
    def disproved(self) -> bool:
        return self.dn == 0

    def prove(self, longest: int) -> None:
        self.pn, self.dn, self.longest = 0, INFINITE, longest

    def disprove(self) -> None:
        self.pn, self.dn = INFINITE, 0


@dataclass
class Proof:
    """What ``Prover.prove`` found for the side to move."""

    won: bool  # a win proven within the budget
    cell: int  # the winning move (a padded index), or -1
    proof_nodes: int  # tree nodes created and threat-search nodes visited
    longest: int  # stones on the board at the end of the longest line, or 0
    seconds: float


# Nodes of the builder's wide threat search (BuildSettings.wide_threat_nodes), and so the least
# the verifier must give each of its threat searches to find the same wins (a search is
# deterministic from an empty memo: with more nodes it finds what it found with fewer).  The
# engine gives a game that left the book more (engine.BOOK_VCT_NODES).
WIDE_THREAT_NODES = 100_000

# The quiet threats of the threat search two attacker moves before the five: a move after which
# the attacker would make two fives at once were it its turn (a win by no four at all).
QUIET_FOURS_TWO_MOVES = 1


@dataclass
class ProverLimits:
    """How hard the prover tries before it answers 'no win found'."""

    # Tree nodes: more finds deeper wins, costs time and memory (a node is about 200 bytes).
    max_nodes: int = 200_000
    threat_nodes: int = 2_000  # per threat search at a leaf: larger closes more leaves early
    attacker_width: int = 0  # attacker moves tried per node, best first (0: every candidate)
    # Wall-clock limit (0: none), checked before each expansion and, at a defender node, before
    # each reply's threat search (the replies left then are tried only if the search comes back).
    max_seconds: float = 0.0
    # Tree and threat-search nodes in all (0: none), checked where the clock is: a bound on the
    # search's cost that, unlike the clock, gives the same answer on any machine.
    max_work: int = 0
    # Nodes of the df-pn (``dfpn_threat_win``) a leaf tries when the threat-bounded deepening
    # finds no win within the budget, with DFPN_LEAST_MOVES or more attacker moves left (0:
    # none): more closes more leaves early, and costs that much at every leaf that stays open.
    dfpn_nodes: int = 0
    # The defender's pass tried before its replies (see the module docstring): the same wins
    # for one threat search instead of one per cell wherever the pass does not lose.  Off only
    # to compare.
    skip: bool = True
    # An attacker node with at most two moves left before the five is disproved when the
    # threat search, which sees every win there, finds none (``_close_attacker_node``): the
    # same proofs, and no doomed node left open for a later job.  Off only to compare.
    threat_refutes: bool = True


class Prover:
    """A proof-number search on one board; ``prove`` is called per position."""

    def __init__(self, board: Board, limits: ProverLimits | None = None) -> None:
        self.board = board
        self.limits = limits or ProverLimits()
        self.search = threat_search_state()
        self.nodes = 0  # tree nodes and threat-search nodes: the work done
        self.tree_nodes = 0  # tree nodes alone: what ProverLimits.max_nodes bounds
        self.budget = 0
        self.attacker = BLACK
        self.excluded: set[int] = set()  # root moves not to try (cells that failed before)
        self.deadline: float | None = None  # perf_counter() past which the search stops
        self._dfpn_table: tuple[ndarray, ndarray] | None = None  # made at the df-pn's first use

    # --- leaves ----------------------------------------------------------------------------
    def _stones(self) -> int:
        return self.board.ply

    def _close_attacker_node(self, node: Node) -> None:
        """Prove or disprove an attacker node without expanding it, when that is possible."""
        stones, st = self._stones(), self.board.state
        if stones + 1 > self.budget:
            node.disprove()
            return
        own_five, opp_fives, _, own_win_four, _ = scan_threats(st, self.attacker, False)
        if own_five >= 0:
            node.prove(stones + 1)
            node.threat_move = own_five
            return
        if opp_fives >= 2:
            node.disprove()
            return
        if opp_fives == 0 and own_win_four >= 0 and stones + 3 <= self.budget:
            node.prove(stones + 3)
            node.threat_move = own_win_four
            return
        if self._moves_left(stones) <= 0:
            node.disprove()
            return
        plies, cell, refuted = self._threat_verdict(stones)
        if plies:
            node.prove(stones + plies)
            node.threat_move = cell
        elif refuted:
            node.disprove()

    def _threat_verdict(self, stones: int) -> tuple[int, int, bool]:
        """(plies, first move, False) of the attacker's win by threats (``_threat_search``),
        or (0, -1, whether there is surely no win within the budget at all).

        One move before the five, the attacker wins only by making two fives at once (an open
        or double four, or the block of the defender's five: the threat search's first tries)
        or, under renju, a four whose block is a foul (a threat the search may reach only after
        a longer win: there only a search that found nothing refutes).  Two moves (not under
        renju): the first must leave such a move whatever the defender does, even if it
        passed (a defender stone never helps the attacker), so it is a threat or a quiet move
        after which the attacker would win were it its turn, which the threat search with those
        quiet threats sees: a search that finds nothing refutes."""
        moves_left = self._moves_left(stones)
        plies, cell, none_at_all = self._threat_search(stones)
        if none_at_all and moves_left == 2 and self.limits.threat_refutes and not self._renju:
            plies, cell, none_at_all = self._threat_search(stones, QUIET_FOURS_TWO_MOVES)
        refuted = not plies and self.limits.threat_refutes and (
            (moves_left == 1 and not self._renju) or (moves_left <= 2 and none_at_all))
        return plies, cell, refuted

    def _moves_left(self, stones: int) -> int:
        """The attacker's moves before its five, from ``stones`` stones, within the budget."""
        return (self.budget - stones - 1) // 2

    @property
    def _renju(self) -> bool:
        return bool(self.board.state.meta[M_RULE] & RULE_RENJU)

    def _threat_search(self, stones: int, quiet_fours: int = 0,
                       nodes: int = 0) -> tuple[int, int, bool]:
        """(plies, first move, False) of the attacker's win by threats on the board as it is,
        with the attacker to move, when it ends within the budget counting from ``stones``
        stones; else (0, -1, whether the search found no win at all and ran to its end: only
        then is there no win by at most as many threats).  ``quiet_fours``: see ``vct``;
        ``nodes``: the search's node limit (0: the limits' ``threat_nodes``).  Each search
        starts from an empty memo, so the win it finds is the one a fresh search (the
        verifier's) finds within as many nodes, whatever was searched before."""
        threats = self._moves_left(stones)
        if threats <= 0:
            return 0, -1, True
        limit = nodes or self.limits.threat_nodes
        forget_threats(self.search)
        plies, cell = vct(self.board.state, self.search, self.attacker, threats, limit,
                          quiet_fours)
        self.nodes += int(self.search.ctrl[C_TSS_NODES])
        if 0 < plies and stones + plies <= self.budget:
            return plies, cell, False
        complete = self.search.ctrl[C_TSS_NODES] <= limit
        if self.limits.dfpn_nodes > 0 and threats >= DFPN_LEAST_MOVES:
            if self._dfpn_table is None:
                self._dfpn_table = new_table(DFPN_TABLE_ENTRIES)
            found, first = dfpn_threat_win(self.board, self.search, self._dfpn_table,
                                           self.attacker, self.limits.dfpn_nodes,
                                           self.budget - stones)
            self.nodes += int(self.search.ctrl[C_TSS_NODES])
            if 0 < found and stones + found <= self.budget:
                return found, first, False
        return 0, -1, bool(plies == 0 and complete)

    def threat_win(self, nodes: int, passed: bool = False) -> int:
        """Stones on the board at the end of the attacker's win by threats within the budget
        (a threat search of ``nodes`` nodes from the board as it is, as a leaf's but wider),
        or 0.  ``passed``: the defender is to move and passes (the skip's search): its real
        reply will add a stone.  The attacker and the budget are those of the last
        ``prove_tree``."""
        stones = self._stones() + int(passed)
        plies = self._threat_search(stones, nodes=nodes)[0]
        return stones + plies if plies else 0

    def _threat_verdict_after_pass(self) -> tuple[bool, bool]:
        """The skip: the defender (to move, without a five) passes.  (Does the attacker win by
        threats within the budget, counting the stone the defender's real reply will add; is
        there surely no win then, nor after any reply.)  The second holds only with one
        attacker move left before the five, outside renju: a win then needs two fives at once,
        from the attacker's own shapes, which a defender stone never adds to (if the reply
        makes a four, the block must be that move).  With more moves left a reply could help
        the attacker by spoiling a threat of the defender's own (under exact five a stone of
        its own can turn its five into an overline), and under renju by lifting a foul."""
        stones = self._stones() + 1
        if self._moves_left(stones) > 1 or self._renju:
            return self._threat_search(stones)[0] > 0, False
        plies, _, refuted = self._threat_verdict(stones)
        return plies > 0, refuted

    def _close_defender_node(self, node: Node) -> None:
        stones, st = self._stones(), self.board.state
        defender = 3 - self.attacker
        if stones + 2 > self.budget:
            node.disprove()
            return
        own_five, opp_fives, _, _, _ = scan_threats(st, defender, False)
        if own_five >= 0:
            node.disprove()
        elif opp_fives >= 2:
            node.prove(stones + 2)

    # --- expansion -------------------------------------------------------------------------
    def expand(self, node: Node) -> None:
        """Create ``node``'s children (the board at its position), each closed where a leaf
        test can, and update its numbers."""
        board = self.board
        if not node.examined:  # its leaf tests first: they may close it without children
            node.examined = True
            self._close_attacker_node(node)
            if node.proved or node.disproved:
                return
        colour = self.attacker if node.attacker_to_move else 3 - self.attacker
        _, opp_fives, opp_five, _, _ = scan_threats(board.state, colour, False)
        if opp_fives == 1:  # the five must be blocked
            cells = [opp_five] if board.is_legal(*board.point(opp_five), colour) else []
        elif not node.attacker_to_move:  # every reply
            cells = board.legal_cells(colour)
        elif board.ply == 0:  # the empty board: the centre (no stone to play near)
            cells = [board.cell(board.width // 2, board.height // 2)]
        else:
            cells = self._ordered_moves(colour)
        if node.cell < 0:  # the root: not the moves that failed before (a forced block too)
            cells = [cell for cell in cells if cell not in self.excluded]
        if node.attacker_to_move and self.limits.attacker_width:
            cells = cells[: self.limits.attacker_width]
        node.children = []
        examine = node.attacker_to_move or opp_fives == 1 or not self.limits.skip
        if not examine:
            examine, refuted = self._threat_verdict_after_pass()
            if refuted:  # no win even after a pass: none after any reply
                node.disprove()
                return
        for cell in cells:
            if examine and not node.attacker_to_move and self._spent():
                examine = False  # the rest as after a skip: tried when the search comes back
            child = Node(cell, not node.attacker_to_move, examined=examine)
            self.nodes += 1
            self.tree_nodes += 1
            if not examine:
                node.children.append(child)
                continue
            make(board.state, cell, colour)  # (a legal move: the win checks are the leaf tests')
            if child.attacker_to_move:
                self._close_attacker_node(child)
            else:
                self._close_defender_node(child)
            unmake(board.state)
            node.children.append(child)
        self._update(node)

    def _ordered_moves(self, colour: int) -> list[int]:
        count = generate_moves(self.board.state, self.search, 0, colour, -1, False)
        moves, scores = self.search.moves, self.search.scores
        order = sorted(range(count), key=lambda i: -int(scores[0, i]))
        return [int(moves[0, i]) for i in order]

    @staticmethod
    def _update(node: Node) -> None:
        """Proof and disproof numbers (and the longest line) from the children."""
        children = node.children or []
        if not children:  # no move left: a full board is a draw, never a win
            node.disprove()
            return
        if node.attacker_to_move:  # OR
            proved = [c for c in children if c.proved]
            if proved:
                node.best = min(proved, key=lambda c: c.longest)
                node.prove(node.best.longest)
                return
            node.pn = min((c.pn for c in children), default=INFINITE)
            node.dn = min(INFINITE, sum(c.dn for c in children))
        else:  # AND
            if any(c.disproved for c in children):
                node.disprove()
                return
            if all(c.proved for c in children):
                node.prove(max((c.longest for c in children), default=0))
                return
            node.pn = min(INFINITE, sum(c.pn for c in children))
            node.dn = min(c.dn for c in children)
        if node.pn >= INFINITE:
            node.disprove()

    # --- the search ------------------------------------------------------------------------
    def prove(self, budget: int) -> Proof:
        """Prove a win for the side to move on ``board`` within ``budget`` stones."""
        start = time.perf_counter()
        root = self.prove_tree(budget)
        cell = self.first_move(root) if root.proved else -1
        return Proof(root.proved, cell, self.nodes, root.longest if root.proved else 0,
                     time.perf_counter() - start)

    def set_goal(self, budget: int) -> None:
        """The side to move on the board attacks, to win within ``budget`` stones: what
        ``expand`` and ``threat_win`` read; the work count starts again, with no clock."""
        self.attacker = self.board.side_to_move()
        self.budget = budget
        self.nodes = self.tree_nodes = 1
        self.deadline = None

    def prove_tree(self, budget: int) -> Node:
        """The proof-number search from the board's position (the side to move attacks); the
        root comes back proved, disproved, or open when the limits ran out."""
        board = self.board
        self.set_goal(budget)
        self.deadline = (time.perf_counter() + self.limits.max_seconds
                         if self.limits.max_seconds else None)
        root = Node(-1, True)
        self._close_attacker_node(root)
        while not (root.proved or root.disproved):
            if root.children is not None and (  # the root is always expanded once
                    self.tree_nodes >= self.limits.max_nodes or self._spent()):
                break
            path = [root]
            node = root
            while node.children is not None:  # descend to a most-proving node
                children = node.children
                if node.attacker_to_move:
                    node = min(children, key=lambda c: c.pn)
                else:
                    node = min(children, key=lambda c: c.dn)
                make(board.state, node.cell,
                     self.attacker if not node.attacker_to_move else 3 - self.attacker)
                path.append(node)
            self.expand(node)
            for ancestor in reversed(path[:-1]):
                unmake(board.state)
                self._update(ancestor)
        return root

    def _spent(self) -> bool:
        """The clock (``max_seconds``) or the work (``max_work``) has run out."""
        return ((self.deadline is not None and time.perf_counter() > self.deadline)
                or 0 < self.limits.max_work <= self.nodes)

    @staticmethod
    def first_move(node: Node) -> int:
        """The winning move of a proved attacker node: its proved child, or the first move of
        the win that closed it as a leaf."""
        return node.best.cell if node.best is not None else node.threat_move
