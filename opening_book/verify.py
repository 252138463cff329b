"""The verifier: checks the graph as a strategy, trusting none of the builder's shortcuts.

From the root, at every attacker position the graph's move is played (mapped from the canonical
frame), then the defender tries *every* free cell.  Each resulting position must be a graph
vertex with a move (checked in turn, once per canonical key), or be won at once by the threat
search within what is left of the budget, or hold a five for the attacker.  Anything else is a
hole: a position not covered, a defender five, a stored move that is illegal, a line longer than
the budget.  The threat searches are the same kernels the prover's leaves use (the deepening,
then the df-pn); everything around them here is independent of the builder.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from bot.core.board import Board
from bot.core.notation import format_move, format_move_list
from bot.core.proofnumber import new_table
from bot.core.searchstate import forget_threats
from bot.core.state import M_RULE, RULE_RENJU
from bot.core.threats import scan_threats, vct
from opening_book.graph import Graph
from opening_book.keys import from_canonical
from opening_book.positions import position_board
from opening_book.prover import (DFPN_LEAST_MOVES, DFPN_TABLE_ENTRIES, QUIET_FOURS_TWO_MOVES,
                                 WIDE_THREAT_NODES, dfpn_threat_win, threat_search_state)


@dataclass(frozen=True)
class Uncovered:
    """A hole the builder can mend: a defender reply below the graph vertex ``parent`` whose
    position (``key``, reached by ``moves``) is neither a vertex nor won by threats."""

    parent: int
    key: int
    moves: str
    stones: int


@dataclass
class Verdict:
    holes: list[str] = field(default_factory=list)
    uncovered: list[Uncovered] = field(default_factory=list)
    checked: int = 0  # defender replies examined
    vertices: int = 0  # graph vertices whose move was followed
    longest: int = 0  # stones at the end of the longest line (when there is no hole)


class Verifier:
    def __init__(self, graph: Graph, threat_nodes: int = WIDE_THREAT_NODES,
                 progress: Callable[[Verdict], None] | None = None, max_holes: int = 0,
                 dfpn_nodes: int | None = None) -> None:
        """``max_holes``: stop once this many are found (0: look for all of them);
        ``dfpn_nodes``: those of the df-pn tried where the deepening finds no win (0: none;
        None: the most the graph's leaves were closed with, ``Graph.leaf_dfpn_nodes``)."""
        self.max_holes = max_holes
        self.graph = graph
        self.rule = int(graph.setting("rule"))
        self.size = int(graph.setting("size"))
        self.budget = int(graph.setting("budget"))
        self.threat_nodes = threat_nodes
        self.dfpn_nodes = graph.leaf_dfpn_nodes() if dfpn_nodes is None else dfpn_nodes
        self.dfpn_table = new_table(DFPN_TABLE_ENTRIES) if self.dfpn_nodes > 0 else None
        self.progress = progress
        self.search = threat_search_state()
        self.verdict = Verdict()
        self._memo: dict[int, int | None] = {}

    def run(self, root: str | None = None) -> Verdict:
        board = position_board(root if root is not None else self.graph.setting("root"),
                               self.size, self.rule)
        longest = self._attacker(board, None)
        if longest is not None and not self.verdict.holes:
            self.verdict.longest = longest
        return self.verdict

    def _hole(self, board: Board, why: str) -> None:
        self.verdict.holes.append(f"{format_move_list(board.moves(), self.size)}: {why}")

    def _attacker(self, board: Board, parent: int | None) -> int | None:
        """Longest line from this attacker position (reached from the vertex ``parent``), or
        None (a hole was recorded)."""
        if self.max_holes and len(self.verdict.holes) >= self.max_holes:
            return None
        key, sym = board.canonical_key()
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = None  # a position that recurs in its own line is no proof
        result = self._check(board, key, sym, parent)
        self._memo[key] = result
        return result

    def _threat_win(self, board: Board, attacker: int) -> int:
        """Plies of the attacker's win by threats within the budget, or 0: the threat searches
        a prover leaf may close a position with (``Prover._threat_verdict``, then the df-pn),
        each from an empty memo (and table), so the verdict does not depend on the order
        positions are visited in."""
        threats = (self.budget - board.ply - 1) // 2
        tries = [0]
        if threats == 2 and not board.state.meta[M_RULE] & RULE_RENJU:
            tries.append(QUIET_FOURS_TWO_MOVES)
        for quiet_fours in tries if threats > 0 else []:
            forget_threats(self.search)
            plies = vct(board.state, self.search, attacker, threats, self.threat_nodes,
                        quiet_fours)[0]
            if plies > 0 and board.ply + plies <= self.budget:
                return plies
        if self.dfpn_table is not None and threats >= DFPN_LEAST_MOVES:
            plies = dfpn_threat_win(board, self.search, self.dfpn_table, attacker,
                                    self.dfpn_nodes, self.budget - board.ply)[0]
            if board.ply + plies <= self.budget:
                return plies
        return 0

    def _check(self, board: Board, key: int, sym: int, parent: int | None) -> int | None:
        attacker = board.side_to_move()
        own_five = scan_threats(board.state, attacker, False)[0]
        if own_five >= 0 and board.ply + 1 <= self.budget:
            return board.ply + 1
        vertex = self.graph.vertex(key)
        if vertex is None or vertex.move is None:
            plies = self._threat_win(board, attacker)  # within the budget, or 0
            if plies > 0:
                return board.ply + plies
            where = "not in the graph" if vertex is None else f"{vertex.status} in the graph"
            self._hole(board, f"{where}, and no win by threats within the budget")
            if vertex is None and parent is not None:
                self.verdict.uncovered.append(Uncovered(
                    parent, key, format_move_list(board.moves(), self.size), board.ply))
            return None
        x, y = from_canonical(board, sym, vertex.move)
        if not board.is_legal(x, y, attacker):
            self._hole(board, f"the graph's move {format_move(x, y, self.size)} is illegal")
            return None
        self.verdict.vertices += 1
        if board.play(x, y, attacker):
            board.undo()
            return board.ply + 1
        longest: int | None = board.ply + 1
        defender = 3 - attacker
        for rx, ry in [board.point(cell) for cell in board.legal_cells(defender)]:
            self.verdict.checked += 1
            if board.play(rx, ry, defender):
                self._hole(board, "the defender makes five")
                longest = None
            elif board.ply + 1 > self.budget:
                self._hole(board, "the budget is spent")
                longest = None
            else:
                below = self._attacker(board, key)
                longest = None if below is None or longest is None else max(longest, below)
            board.undo()
        board.undo()
        if self.progress is not None:
            self.progress(self.verdict)
        return longest


def verify(graph: Graph, root: str | None = None, threat_nodes: int = WIDE_THREAT_NODES,
           progress: Callable[[Verdict], None] | None = None, max_holes: int = 0,
           dfpn_nodes: int | None = None) -> Verdict:
    return Verifier(graph, threat_nodes, progress, max_holes, dfpn_nodes).run(root)
