"""The builder: grows the strategy graph (graph.py) one batch of open vertices at a time.

Each open vertex is one independent job (``work_on``).  A vertex the engine's short search
scores as lost for the attacker fails at once (``BuildSettings.lost_score``).  Otherwise the job
first expands the engine's move: every defender reply is closed where the threat search wins at
once or a quick proof (a small proof search, ``BuildSettings.quick_nodes``) proves it; a reply
the quick proof refutes, or that the engine scores as lost, gives the move up; when none is left
open, that move is the vertex's proof.  Otherwise the prover (prover.py) tries to prove the
vertex within the budget; a proof is written whole: the vertex, the attacker's move, and every
defender reply's vertex below it down to the leaves the threat search closes.  Without a proof
the job still moves the graph on: of the engine's move and the moves with the least proof
numbers at the prover's root, it takes the one that leaves the fewest replies open, and leaves
those as open vertices for later jobs.  An attacker vertex whose every move is refuted within
the budget is marked failed.  ``sweep`` gives the quick proof to open vertices no job has seen
yet, and ``replay`` plays the vertices not proved as their proved siblings are proved.

Jobs run on a Dask cluster: a local one over this machine's cores by default, or the scheduler
``--scheduler`` names (``DaskCluster``), or in this process (``InProcess``: tests, debugging).
The database is written only here, one transaction per job as it ends, so an interrupted build
loses at most the jobs running.  Dask is the ``book`` extra: the brain never imports this module.

``attack`` is a job of another kind: a whole build of one vertex afresh, in a graph of its own,
verified when it is proved, for the command to merge (``sente-book attack``).
"""

from __future__ import annotations

import functools
import gc
import itertools
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, ParamSpec, Protocol, TypeVar

from bot.core.board import Board, Point
from bot.core.errors import BoardError
from bot.core.notation import format_move_list, parse_move_list
from bot.core.score import MATE_BOUND
from bot.engine import Engine
from bot.limits import Limits, Result
from opening_book.graph import Graph, Replayed, Vertex, branch
from opening_book.keys import from_canonical, to_canonical
from opening_book.positions import moved_stone_twins, position_board
from opening_book.prover import (SWEEP_DFPN_NODES, WIDE_THREAT_NODES, Node, Prover,
                                  ProverLimits)
from opening_book.verify import verify


DEFAULT_BUDGET = 35  # stones: the seed's strategy fits 35, the target of ours


@dataclass(frozen=True)
class BuildSettings:
    rule: int = 1
    size: int = 15
    budget: int = DEFAULT_BUDGET  # stones on the board at the end of the longest line
    limits: ProverLimits = field(default_factory=ProverLimits)
    # Milliseconds of engine search that pick the attacker's move each job expands first (0:
    # none; the prover's search, then the least proof number): longer picks better moves,
    # slows each job.
    engine_ms: int = 300
    # A job fails its vertex at once, without the prover, when that search scores it at or
    # below this for the attacker, and gives a move up when a reply it leaves open scores so
    # (None: never; each reply's search costs ``engine_ms``).  0: the engine sees no advantage
    # for the attacker; -MATE_BOUND: every attacker move it searched loses.  Lower fails only
    # the (nearly) proven losses; higher also gives up vertices the attacker may still win, so
    # their parents try another move sooner (replies: only where a move leaves at most
    # LOST_CHECK_REPLIES open).  Of 80 open vertices of 12+ stones drawn from the graph, 30
    # scored 0 or below, 23 of them -MATE_BOUND or below; of 80 proved ones, none scored below
    # MATE_BOUND, nor did any of 60 vertices a build proved (NOTES.md, sessions 63 and 64).
    lost_score: int | None = 0
    # ... and within this many attacker moves of the budget (0: nowhere), at or below
    # MATE_BOUND - 1: a vertex or reply there where the engine sees no win for the attacker at
    # all fails (None ``lost_score``: never).  9: from 16 stones on with a budget of 35.  Of
    # 318 vertices with the attacker to move proved by expansion at 16-28 stones drawn from the
    # graph, the engine's 300 ms search scored none below MATE_BOUND (at 10-14 stones 5 of
    # 132); of 150 open ones at 18-28, 52.  25 minutes on one worker from one copy of the
    # graph, 0 against 9: h8 g11 477 open vertices left against proved in 18 minutes; h8 g9 1144
    # against 951 open (NOTES.md, session 65).  More gives up lines that were only slow
    # sooner and risks giving up provable ones; fewer leaves them to fail move by move.
    won_moves_left: int = 9
    # Attacker moves a job expands at a vertex it does not prove; it keeps the one that leaves
    # the fewest replies open, and calls the vertex failed when a reply refutes each: more picks
    # better moves and keeps lines alive longer, fewer makes each job faster.
    alternatives: int = 3
    # Proof-tree nodes of the quick proof tried on each defender reply a job's move leaves
    # open, and by ``sweep`` on each open vertex (0: none): more proves more replies at once
    # and keeps them out of later batches, fewer keeps each job short.  At 1000 it proves
    # most of the replies the threat search leaves open 10 to 26 stones deep (a quiet move,
    # then threats) in about 0.01 s each, and few of those with 4 to 8 stones.
    quick_nodes: int = 1000
    # ... and the quick proof's tree and threat-search nodes in all (0: no limit): its threat
    # searches of up to ``limits.threat_nodes`` each made some quick proofs a few stones from
    # the empty board cost seconds (1.7 M nodes), 200-odd of them per move a job expands, one
    # job an hour; the quick proofs that succeed need far less (199 of 200 proved vertices
    # 6-28 stones deep proved again: median 4.9 k nodes, 99th percentile 61 k, the most 363 k).
    # In jobs on the open vertices of h8 h9 and h8 g10 (session 39) 22 of 173 quick proofs
    # succeeded, 2 of them with more than 100 k nodes, and the failures were most of the
    # quick proofs' cost: at 100 k, half the nodes of 300 k.  Fewer keeps a job short, more
    # lets a slow quick proof finish.
    quick_work: int = 100_000
    # Threat-search nodes for the defender's replies to a job's move when its leaf search (the
    # limits' threat_nodes) leaves them open and the attacker would win by threats even if the
    # defender passed, found by a search this wide (0: never): then most replies, those that
    # do not touch the attacker's threats, are won by the same threats, and a level of ~200
    # replies that would each be an open vertex (a job of seconds) is closed by one search of
    # at most this many nodes each (100000: 0.25 s).  Wider closes more, slower when it fails;
    # the verifier's threat searches must be at least as wide.
    wide_threat_nodes: int = WIDE_THREAT_NODES
    # A vertex with at most GIVE_UP_MOVES_LEFT attacker moves left before the five fails once
    # this many of its attacker moves are excluded (refuted in a job, or failed below) and the
    # prover still finds no proof (0: only when every move is refuted): the move above it is
    # given up instead.  Near the budget a vertex's moves fail one job at a time (some h8 g15
    # vertices at 26 stones had 21 excluded after 21 jobs, and a 65 s proof search disproved
    # 6 of their 103 moves), while no proved vertex of the graph had needed more than 3 tries.
    # Fewer gives lost lines up sooner and risks giving up a vertex a later move would prove.
    give_up_after: int = 6
    # ... and a vertex farther from the budget once this many are (0: never).  In the graph of
    # record after 90 core-hours no vertex of fewer than 22 stones had been proved after more
    # than 5 of its moves were excluded, while 13 expanded there had had 6 to 18 excluded, one
    # subtree after another built and given up below each (the churn of the hard branches).
    # 30 minutes on one worker each from one copy, on `h8 h11 f8 e8 f9 f7`: open vertices
    # there 297 on average without it (17 at the fewest), 212 with 10 (1), 161 with 6 (1); one
    # sample each (NOTES.md).  Fewer gives such a vertex up sooner for another move above it,
    # and risks giving up one a later move would prove.
    far_give_up_after: int = 6
    # A vertex of fewer stones fails neither by the two counts above nor by the engine's lost
    # score (``lost_score``), only when a reply refutes each move it tries: its failure gives up
    # the move above it, near the empty board a whole level of proofs.  Session 85: h8 h9 h6 g8
    # (4 stones) failed when its sixth fifth stone was given up, and with it Black's third
    # stone h6 at h8 h9, under which 114 of the 117 fourth stones were proved.  More keeps
    # more shallow moves however long their subtrees churn; fewer lets a build give them up.
    give_up_stones: int = 6
    # At a vertex with at most ``flood_moves_left`` attacker moves left before the five, a move
    # that leaves more than ``flood_replies`` defender replies open is not taken but excluded,
    # as a refuted one is (0: no limit).  Such a move is quiet: White may answer anywhere.  In
    # the graph of record (291 k proved vertices after 41 core-hours, budget 35) no vertex of
    # 14 stones or more (10 moves left) was proved through more than 19 open replies, and the
    # vertices expanded that way there (2-5 per level from 18 to 28 stones, ~200 replies each)
    # were where builds churned for hours, their replies failing one job at a time.  More
    # keeps more quiet lines alive, fewer gives them up sooner.
    flood_replies: int = 20
    flood_moves_left: int = 10
    # A vertex expanded with at least this many replies open and none proved (0: never; such
    # floods are farther from the budget than the flood limit reaches) has one of them, the
    # defender's stone farthest from the others (nearly a pass), built before every other open
    # vertex (``flood_probes``): proved, its proof is replayed on the others at the end of the
    # build's round (``replay``); failed, it gives the attacker's move up, and the flood with
    # it.  Session 69: a flood of 214 replies, none proved, below 10 stones in h8 h10, went in
    # 7 minutes on one worker (its probe failed); jobs deepest first reach such a level one
    # reply at a time.  Fewer probes more floods (a probe's line may take a while), more
    # leaves smaller floods to the jobs.
    flood_probe_replies: int = 30
    # The proof search's time limit in a job at a vertex far from the budget (more than
    # GIVE_UP_MOVES_LEFT attacker moves left), instead of the limits' max_seconds (None: the
    # same).  There it proves almost nothing and only orders the other moves tried: at 20 open
    # h8 h9 vertices 14 stones deep, 0.2 s against 1 s gave every job the same outcome, 18% sooner
    # (NOTES.md); near the budget the longer search fails lost vertices sooner.  Less makes
    # such jobs faster, more orders the other moves better.
    far_seconds: float | None = None
    # A vertex's moves and the attacker's move to expand there, whatever a job would choose
    # ('': none), as one move list: to build a move that proved in another graph (one of a
    # larger budget, say) with this graph's budget.  Should a reply refute it, it is excluded
    # and the job goes on as usual.
    forced_line: str = ""

    def moves_left(self, stones: int) -> int:
        """The attacker's moves before the five at a vertex of ``stones`` stones."""
        return (self.budget - stones - 1) // 2

    def near_budget(self, stones: int) -> bool:
        """Whether a vertex of ``stones`` stones has at most GIVE_UP_MOVES_LEFT attacker moves
        left before the five."""
        return self.moves_left(stones) <= GIVE_UP_MOVES_LEFT

    def give_up_limit(self, stones: int) -> int:
        """The excluded moves after which a vertex of ``stones`` stones fails (0: none)."""
        if stones < self.give_up_stones:
            return 0
        return self.give_up_after if self.near_budget(stones) else self.far_give_up_after

    def lost_limit(self, stones: int) -> int | None:
        """The engine's score at or below which a vertex of ``stones`` stones, attacker to
        move, counts as lost (None: never)."""
        if self.lost_score is None or stones < self.give_up_stones:
            return None
        if self.won_moves_left and self.moves_left(stones) <= self.won_moves_left:
            return MATE_BOUND - 1
        return self.lost_score

    def search_seconds(self, stones: int) -> float:
        """The proof search's time limit in a job at a vertex of ``stones`` stones."""
        if self.far_seconds is None or self.near_budget(stones):
            return self.limits.max_seconds
        return self.far_seconds

    def flood_limit(self, stones: int) -> int | None:
        """The most replies a move may leave open at a vertex of ``stones`` stones (None: no
        limit there)."""
        if self.flood_replies and self.moves_left(stones) <= self.flood_moves_left:
            return self.flood_replies
        return None

    def flood_stones(self) -> int:
        """The fewest stones of a vertex where ``flood_limit`` applies."""
        return self.budget - 2 * self.flood_moves_left - 2

    def quick_limits(self) -> ProverLimits:
        """The quick proof's limits: the build's, with ``quick_nodes`` tree nodes and
        ``quick_work`` nodes in all, no clock."""
        return replace(self.limits, max_nodes=self.quick_nodes, max_seconds=0.0,
                       max_work=self.quick_work)

    def as_meta(self, root: str) -> dict[str, str]:
        return {"rule": str(self.rule), "size": str(self.size), "budget": str(self.budget),
                "root": root}


GIVE_UP_MOVES_LEFT = 6  # (BuildSettings.give_up_after) 6: the last 13 stones of a 35 budget
# Another move replaces the engine's at a vertex a job expands only when it leaves at most this
# share of the replies the engine's leaves open: a few stones from the empty board every move
# leaves 200-odd open (h8 b14: 222 after h10, 222 after j10), so a count one lower said nothing
# and could take a move like h8 b14 b15 (beside White's stone, far from Black's; the graph had
# it, and h8 c13's move five cells from h8).  Lower trusts the engine more; 1 takes any move
# that leaves fewer open.
OTHER_MOVE_SHARE = 0.75
# Of the jobs a build runs at once, how many take the open vertex with the fewest stones in the
# branch instead of the most (``pick``): more spreads the workers over the branch's first
# replies, where quick proofs are, fewer follows one line down at full speed.
SHALLOW_SLOTS = 1


@dataclass
class Work:
    """What one job found: vertex records, each with its child vertices (key, moves, stones)."""

    records: list[tuple[Vertex, list[tuple[int, str, int]]]] = field(default_factory=list)


@dataclass
class Replies:
    """The defender's replies to one attacker move, as ``_Job.replies`` found them."""

    threat_longest: int = 0  # the longest line of the replies won by threats at once
    children: list[tuple[int, str, int]] = field(default_factory=list)  # (key, moves, stones)
    unproved: int = 0  # children left open
    open_lines: list[str] = field(default_factory=list)  # ... and their move lists
    refuted: bool = False  # a reply the quick proof refutes: the move loses (the rest unread)


class _Job:
    def __init__(self, board: Board, settings: BuildSettings) -> None:
        self.board = board
        self.size = settings.size
        self.budget = settings.budget
        self.prover = Prover(board, settings.limits)
        self.quick = Prover(board, settings.quick_limits()) if settings.quick_nodes else None
        self.wide_nodes = settings.wide_threat_nodes
        self.settings = settings
        self.work = Work()

    def moves_text(self) -> str:
        return format_move_list(self.board.moves(), self.size)

    def record(self, status: str, move_cell: int | None, longest: int | None,
               threat_longest: int, children: list[tuple[int, str, int]],
               excluded: str = "") -> None:
        board = self.board
        key, sym = board.canonical_key()
        move = None if move_cell is None else to_canonical(board, sym, *board.point(move_cell))
        vertex = Vertex(key, self.moves_text(), board.ply, status, move, longest,
                        threat_longest, 1, self.prover.nodes, excluded)
        self.work.records.append((vertex, children))

    def proved_records(self, node: Node) -> None:
        """Record the proved attacker node ``node`` (the board at its position) and the proved
        vertices below it."""
        if node.best is None:  # closed by the threat search here
            self.record("proved", node.threat_move, node.longest, node.longest, [])
            return
        replies = self.replies(node.best)
        self.record("proved", node.best.cell, node.longest, replies.threat_longest,
                    replies.children)

    def replies(self, reply_node: Node, give_up_above: int | None = None,
                examine: bool = True) -> Replies:
        """Play the attacker's move ``reply_node.cell``; per defender reply, a threat win (its
        longest line) or a child vertex: proved ones (by the prover's tree, by the wide threat
        search when the attacker would win by threats even after a pass, or by the quick proof
        tried on each reply still open) recorded now, the others left open.  Stops at a reply
        the quick proof refutes, and once more than ``give_up_above`` are open, or more than
        ``quick_proofs_cap(give_up_above)`` before the quick proofs (then ``unproved`` counts
        the replies the threat searches left open so far, and the quick proofs are not tried).
        Without ``examine``, the replies the threat searches leave open are left open, with no
        quick proof nor the engine's lost check."""
        board, attacker = self.board, self.prover.attacker
        board.play(*board.point(reply_node.cell), attacker)
        if reply_node.children is None:
            self.prover.expand(reply_node)
        children = reply_node.children or []
        wide = self.wide_nodes > 0 and any(not child.proved for child in children) and \
            self.prover.threat_win(self.wide_nodes, passed=True) > 0
        cap = None if give_up_above is None else quick_proofs_cap(give_up_above)
        found, unclosed = Replies(), list[Node]()
        for child in children:  # the threat searches first: a flood shows before the quick proofs
            board.play(*board.point(child.cell), 3 - attacker)
            if not child.proved and wide and (longest := self.prover.threat_win(self.wide_nodes)):
                child = Node(child.cell, True)  # a threat leaf, as the prover closes one
                child.prove(longest)
            if child.proved:
                self.take(child, found)
            else:
                unclosed.append(child)
            board.undo()
            if cap is not None and len(unclosed) > cap:
                board.undo()
                found.unproved = len(unclosed)
                return found
        check_lost = examine and len(unclosed) <= LOST_CHECK_REPLIES
        for child in unclosed:
            board.play(*board.point(child.cell), 3 - attacker)
            quick = (self.quick.prove_tree(self.budget) if self.quick is not None and examine
                     else None)
            if quick is not None and quick.proved:
                child = quick
            found.refuted = ((quick is not None and quick.disproved)
                             or (check_lost and not child.proved and self.lost()))
            if found.refuted:
                board.undo()
                break
            self.take(child, found)
            board.undo()
            if give_up_above is not None and found.unproved > give_up_above:
                break
        board.undo()
        return found

    def lost(self) -> bool:
        """Whether the engine's search (``engine_ms``) scores the attacker, to move on the
        board, at or below ``lost_limit``."""
        settings = self.settings
        return (settings.engine_ms > 0 and settings.lost_limit(self.board.ply) is not None
                and _engine_move(self.board, settings)[1])

    def take(self, child: Node, found: Replies) -> None:
        """Add the defender's reply ``child`` (the board at its position) to ``found``: a threat
        win's longest line, or a child vertex (its proof recorded when it has one)."""
        if child.proved and child.children is None:
            found.threat_longest = max(found.threat_longest, child.longest)
            return
        if child.proved:
            self.proved_records(child)
        else:
            found.unproved += 1
            found.open_lines.append(self.moves_text())
        found.children.append((self.board.canonical_key()[0], self.moves_text(), self.board.ply))


# The engine's lost check (``BuildSettings.lost_score``) is given to a move's replies only when
# the threat searches leave at most this many open: where a move leaves a full-width level (200-odd
# replies, a few stones from the empty board or after a far reply) it would cost a minute a move,
# and there the move is seldom lost.  Near the budget, where the lost lines were, moves leave few.
LOST_CHECK_REPLIES = 20
# The quick proofs are not tried on a move's replies when the threat searches leave more than
# (the most it may leave open + 1) * QUICK_PROOFS_SLACK of them open: they would have to close
# more than a third.  They closed 22 of the 173 replies they were tried on in jobs on h8 h9 and
# h8 g10 (session 39), and 1 of more than 700 on the replies of the moves that left more than
# 20 open at h8 h9 vertices 14 stones deep (session 40: the threat searches left 24 to 210 of
# 210 open, and the quick proofs took 6 to 58 s a move).  Lower skips them sooner, higher
# lets them rescue more moves.
QUICK_PROOFS_SLACK = 1.5


def quick_proofs_cap(give_up_above: int) -> int:
    """The most replies left open by the threat searches on which the quick proofs are tried
    when at most ``give_up_above`` may be left open."""
    return int((give_up_above + 1) * QUICK_PROOFS_SLACK)


JobResult = TypeVar("JobResult")  # what a job gives back: Work, or a reproof's answer
Job = Callable[[str, str, BuildSettings], JobResult]  # (moves, excluded, settings): work_on, ...
JobArguments = ParamSpec("JobArguments")


def _without_cycle_collection(job: Callable[JobArguments, JobResult]
                              ) -> Callable[JobArguments, JobResult]:
    """``job`` with Python's cyclic garbage collector paused while it runs: its proof trees
    hold no cycles (reference counting frees them), and the collector's passes over their
    nodes took about 6% of a worker's time (perf on a build's worker, session 41)."""
    @functools.wraps(job)
    def run(*args: JobArguments.args, **kwargs: JobArguments.kwargs) -> JobResult:
        collecting = gc.isenabled()
        gc.disable()
        try:
            return job(*args, **kwargs)
        finally:
            if collecting:
                gc.enable()
    return run


@_without_cycle_collection
def work_on(moves: str, excluded: str, settings: BuildSettings) -> Work:
    """One job: prove the vertex reached by ``moves``, or choose a move and expand it;
    ``excluded``: the vertex's attacker moves that failed before (canonical cells).

    The engine's move is expanded first: when the threat search and the quick proof close
    every reply to it, that is the vertex's proof, without the prover's search.  At 60 open
    vertices of the graph of record 12-16 stones deep the engine's move closed every reply at
    17; at the other 43, and at 59 of 60 more 20-22 stones deep, three seconds of the
    prover's search afterwards proved none (NOTES.md)."""
    board = position_board(moves, settings.size, settings.rule)
    job = _Job(board, settings)
    _, sym = board.canonical_key()
    job.prover.excluded = {board.cell(*from_canonical(board, sym, int(cell)))
                           for cell in excluded.split(",") if cell}
    forced = settings.forced_line.split()
    cell = (board.cell(*parse_move_list(forced[-1], settings.size, settings.size)[0])
            if forced and forced[:-1] == moves.split() else -1)
    if cell >= 0 and cell not in job.prover.excluded:
        job.prover.set_goal(settings.budget)
        replies = job.replies(Node(cell, False))
        if not replies.refuted:
            job.record("expanded", cell, None, replies.threat_longest, replies.children,
                       excluded)  # proved by propagation once every child is
            return job.work
        excluded += f"{to_canonical(board, sym, *board.point(cell))},"
        job.prover.excluded.add(cell)
    flood = settings.flood_limit(board.ply)
    give_up_after = settings.give_up_limit(board.ply)
    giving_up = bool(give_up_after) and excluded.count(",") >= give_up_after
    engine: tuple[int, Replies] | None = None  # the engine's move and its replies
    if settings.engine_ms and not giving_up:
        job.prover.set_goal(settings.budget)
        cell, lost = _engine_move(board, settings)
        if lost:
            job.record("failed", None, None, 0, [], excluded)  # its parent takes another move
            return job.work
        if cell not in job.prover.excluded:
            engine = cell, job.replies(Node(cell, False), flood)
            if not engine[1].refuted and engine[1].unproved == 0:
                job.record("expanded", cell, None, engine[1].threat_longest,
                           engine[1].children, excluded)  # proved by propagation
                return job.work
    job.prover.limits = replace(settings.limits, max_seconds=settings.search_seconds(board.ply))
    root = job.prover.prove_tree(settings.budget)
    if root.proved:
        job.proved_records(root)
        return job.work
    if giving_up:
        job.record("failed", None, None, 0, [], excluded)
        return job.work
    # The engine's move, then the least proof numbers: each is expanded, and the one that leaves
    # the fewest replies unproved is taken (the engine's unless another leaves at most
    # OTHER_MOVE_SHARE of its open replies); one a reply refutes, or that leaves more open
    # than the flood limit, is excluded here for good.
    candidates = sorted((c for c in root.children or [] if not c.disproved), key=lambda c: c.pn)
    preferred = engine[0] if engine is not None else -1
    candidates.sort(key=lambda c: c.cell != preferred)  # stable: the rest stay by pn
    best: tuple[Node, Replies] | None = None
    for choice in candidates[: settings.alternatives]:
        most = flood  # the most replies a move may leave open and still be taken
        if best is not None:
            fewer = (int(best[1].unproved * OTHER_MOVE_SHARE) if best[0].cell == preferred
                     else best[1].unproved - 1)
            most = fewer if most is None else min(most, fewer)
        replies = (engine[1] if engine is not None and choice.cell == preferred
                   else job.replies(choice, most))
        if (choice.disproved or replies.refuted
                or (flood is not None and replies.unproved > flood)):
            excluded += f"{to_canonical(board, sym, *board.point(choice.cell))},"
            continue
        if most is None or replies.unproved <= most:
            best = (choice, replies)
        if replies.unproved == 0:
            break
    if best is None:
        job.record("failed", None, None, 0, [], excluded)
    else:  # proved by propagation once every child is (Graph.propagate)
        choice, replies = best
        job.record("expanded", choice.cell, None, replies.threat_longest, replies.children,
                   excluded)
    return job.work


@_without_cycle_collection
def quick_look(moves: str, excluded: str, settings: BuildSettings) -> Work:
    """A sweep's job: the quick proof (``BuildSettings.quick_nodes``) at the vertex reached by
    ``moves``, after the engine's search when ``engine_ms`` asks for it.  Records it proved
    (with its proof) or failed (refuted, or scored as lost by the engine), else open as it was."""
    board = position_board(moves, settings.size, settings.rule)
    job = _Job(board, replace(settings, limits=settings.quick_limits(), quick_nodes=0))
    if job.lost():
        job.record("failed", None, None, 0, [], excluded)
        return job.work
    root = job.prover.prove_tree(settings.budget)
    if root.proved:
        job.proved_records(root)
    else:
        job.record("failed" if root.disproved else "open", None, None, 0, [], excluded)
    return job.work


@dataclass(frozen=True)
class Guide:
    """A proved vertex whose strategy a replay follows: its move list, and the attacker's move
    (in the canonical frame) at each vertex of its proof, by canonical key."""

    moves: str
    strategy: dict[int, int]


def replay_each(guides: dict[str, list[Guide]], most_open: int, moves: str, excluded: str,
                settings: BuildSettings) -> Work:
    """``replay_on`` with the guides of the vertex ``moves`` (by its move list): a batch of
    replays of vertices with guides of their own (``replay``'s cousins)."""
    return replay_on(guides[moves], most_open, moves, excluded, settings)


@_without_cycle_collection
def replay_on(guides: Sequence[Guide], most_open: int, moves: str, excluded: str,
              settings: BuildSettings) -> Work:
    """A replay's job (``replay``): the vertex reached by ``moves`` (``excluded``: its attacker
    moves that failed before) played as each of ``guides`` is proved, in turn, until one
    proves it.  A guide is a twin of the vertex: the same position but for one defender stone
    (a sibling, after another reply to the move above, or a cousin, with an earlier defender
    stone elsewhere).  The twin's move is played at the
    vertex, the defender's replies are closed by the threat searches where they can be, and
    each one left open is played on in the same way as the twin's proof goes on after the same
    reply (after the twin's stone, the vertex's own); a reply the twin's proof has no vertex
    for is left open, as is everything below a move the position does not allow.  Returns the
    records of the guide that proved the vertex, or else of the one that left the fewest
    vertices open, if at most ``most_open`` (none else: the vertex stays open as it was).
    A guide is given up as soon as it leaves more open."""
    best: tuple[int, Work] | None = None
    for guide in guides:
        board = position_board(moves, settings.size, settings.rule)
        twin = position_board(guide.moves, settings.size, settings.rule)
        swap = _twin_stones(board, twin)
        job = _Job(board, settings)
        left = None if swap is None else _replay(job, twin, swap, guide, excluded, most_open)
        if left is not None and left <= most_open and (best is None or left < best[0]):
            best = (left, job.work)
        if left == 0:
            break
    return Work() if best is None else best[1]


def _twin_stones(board: Board, twin: Board) -> tuple[Point, Point] | None:
    """(the board's stone the twin does not have, the twin's stone the board does not have),
    both the defender's, when that is all that tells the positions apart; else None."""
    defender = 3 - board.side_to_move()
    own = {(point, 1 + i % 2) for i, point in enumerate(board.moves())}
    other = {(point, 1 + i % 2) for i, point in enumerate(twin.moves())}
    mine, theirs = own - other, other - own
    if board.ply != twin.ply or len(mine) != 1 or len(theirs) != 1:
        return None
    (stone, colour), (twin_stone, twin_colour) = mine.pop(), theirs.pop()
    return (stone, twin_stone) if colour == twin_colour == defender else None


def _replay(job: _Job, twin: Board, swap: tuple[Point, Point], guide: Guide,
            excluded: str, most_open: int) -> int | None:
    """Play the job's position (attacker to move) as the guide's proof plays its ``twin``
    (which differs by the defender stones ``swap``: the board's, the twin's), recording each
    vertex expanded; returns how many vertices it leaves open below (stopping once that is
    more than ``most_open``), or None when the proof has no vertex for the twin or its move
    is not playable here."""
    board = job.board
    key, sym = twin.canonical_key()
    move = guide.strategy.get(key)
    if move is None:
        return None
    point = from_canonical(twin, sym, move)
    attacker = board.side_to_move()
    if (not board.is_legal(*point, attacker)
            or str(to_canonical(board, board.canonical_key()[1], *point)) in excluded.split(",")):
        return None
    job.prover.set_goal(job.budget)
    cell = board.cell(*point)
    replies = job.replies(Node(cell, False), examine=False)
    job.record("expanded", cell, None, replies.threat_longest, replies.children, excluded)
    stone, twin_stone = swap
    left = 0
    for line in replies.open_lines:
        reply = parse_move_list(line, board.width, board.height)[-1]
        board.play(*point, attacker)
        board.play(*reply, 3 - attacker)
        twin.play(*point, attacker)
        twin.play(*(stone if reply == twin_stone else reply), 3 - attacker)
        below = _replay(job, twin, swap, guide, "", most_open - left)
        left += 1 if below is None else below
        for _ in range(2):
            board.undo()
            twin.undo()
        if left > most_open:
            break
    return left


_ENGINES: dict[tuple[int, int], Engine] = {}  # one per worker process, reused by its jobs
ENGINE_HASH_MIB = 8  # the engine's table in a builder job: small, its searches are short


def _engine_move(board: Board, settings: BuildSettings) -> tuple[int, bool]:
    """The engine's move for the side to move after ``settings.engine_ms`` of search, and
    whether a completed iteration scores that side at or below ``settings.lost_limit``."""
    engine = _ENGINES.get((settings.rule, settings.size))
    if engine is None:
        engine = _ENGINES[(settings.rule, settings.size)] = Engine()
        engine.set_memory(hash_mib=ENGINE_HASH_MIB)
        # a process's first search also loads (or compiles) the kernels on their first calls,
        # within its time: a fresh worker's first verdict would come from a starved search
        # (depth 3 instead of a mate seen at once, in a cold JIT run), so it is thrown away
        _engine_search(engine, board, settings)
    result = _engine_search(engine, board, settings)
    # a search stopped before its first iteration ended (a stalled machine, a cold start
    # compiling the kernels) has no score: 0, the ordering's move
    limit = settings.lost_limit(board.ply)
    lost = limit is not None and result.depth > 0 and result.score <= limit
    return board.cell(*result.move), lost


def _engine_search(engine: Engine, board: Board, settings: BuildSettings) -> Result:
    """``engine``'s search of ``board`` (side to move) for ``settings.engine_ms``."""
    engine.new_game(settings.size, settings.size, settings.rule)
    for x, y in board.moves():
        engine.play(x, y)
    return engine.think(Limits(timeout_turn_ms=settings.engine_ms))


def write(graph: Graph, works: Iterable[Work], attempts: dict[int, int], root: int,
          core_seconds: float = 0.0) -> None:
    """Write the jobs' records in one transaction (``root``: the graph's root key), with the
    computation they cost."""
    with graph.db:
        graph.add_core_seconds(core_seconds)
        for work in works:
            for vertex, children in work.records:
                vertex.attempts = attempts.get(vertex.key, 0) + 1
                graph.record(vertex, children)
        graph.propagate(root)


@_without_cycle_collection
def reproves(moves: str, excluded: str, settings: BuildSettings) -> bool:
    """An export's job: whether a proof search within ``settings.limits`` proves the vertex
    reached by ``moves`` from scratch (book.Reproof); ``excluded`` is not used."""
    board = position_board(moves, settings.size, settings.rule)
    return Prover(board, settings.limits).prove_tree(settings.budget).proved


Feed = Callable[[int], list[tuple[str, str]]]  # up to that many more jobs: (moves, excluded)
Take = Callable[[tuple[str, str], JobResult], None]  # a job that ended: its arguments, result


class Runner(Protocol):
    """Where jobs run: ``map`` runs a list of them, ``stream`` keeps ``slots`` of them running."""

    slots: int  # jobs that run at once

    def map(self, job: Job[JobResult], jobs: list[tuple[str, str]],
            settings: BuildSettings) -> list[JobResult]:
        """Run one job per (moves, excluded) pair; their results in order."""
        ...

    def stream(self, job: Job[JobResult], settings: BuildSettings, feed: Feed,
               take: Take[JobResult]) -> None:
        """Ask ``feed`` for as many jobs as there are free slots, and give each job's result to
        ``take`` as soon as it ends (in the order they end), then ask again; until ``feed``
        has none and every job has ended."""
        ...

    def close(self) -> None: ...


class InProcess:
    """Jobs run one at a time in this process (tests, debugging)."""

    slots = 1

    def map(self, job: Job[JobResult], jobs: list[tuple[str, str]],
            settings: BuildSettings) -> list[JobResult]:
        return [job(moves, excluded, settings) for moves, excluded in jobs]

    def stream(self, job: Job[JobResult], settings: BuildSettings, feed: Feed,
               take: Take[JobResult]) -> None:
        while jobs := feed(1):
            for arguments in jobs:
                take(arguments, job(*arguments, settings))

    def close(self) -> None:
        pass


class DaskCluster:
    """Jobs on a Dask cluster: a local one of ``workers`` processes, or the one whose
    scheduler is at the address ``scheduler``."""

    def __init__(self, scheduler: str | None, workers: int) -> None:
        from dask.distributed import Client, LocalCluster

        self.cluster = None if scheduler else LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True,
            dashboard_address=":0")  # any free port: builds may overlap
        self.client = Client(scheduler or self.cluster)
        self.slots = max(1, sum(self.client.nthreads().values()))

    def map(self, job: Job[JobResult], jobs: list[tuple[str, str]],
            settings: BuildSettings) -> list[JobResult]:
        futures = self.client.map(job, [m for m, _ in jobs], [e for _, e in jobs],
                                  settings=settings, pure=False)
        return list(self.client.gather(futures))

    def stream(self, job: Job[JobResult], settings: BuildSettings, feed: Feed,
               take: Take[JobResult]) -> None:
        from dask.distributed import as_completed

        running: dict[Any, tuple[str, str]] = {}  # future: its arguments
        ended = as_completed()

        def start() -> None:
            for arguments in feed(self.slots - len(running)) if len(running) < self.slots else []:
                future = self.client.submit(job, *arguments, settings, pure=False)
                running[future] = arguments
                ended.add(future)

        start()
        for future in ended:  # (the futures added while it runs are waited for too)
            take(running.pop(future), future.result())
            start()

    def close(self) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


# After each job or batch written: the seconds so far, and the branch (its line) of the job's
# vertex ("" for a batch).
Progress = Callable[[float, str], None]


def build(graph: Graph, settings: BuildSettings, root: str, runner: Runner, *,
          seconds: float = 0.0, max_jobs: int = 0, shallow_slots: int = 0,
          progress: Progress | None = None, branches: Sequence[str] = (),
          replay_every: float = 0.0, branch_turn: float = 0.0,
          clock: Callable[[], float] = time.perf_counter) -> dict[str, int]:
    """Grow the graph from ``root`` (a move list, attacker to move) until it is proved, the time
    (``seconds``, 0: none) or the jobs (``max_jobs``, 0: none) run out; one branch (the
    defender's reply to the root's move) at a time (Graph.open_branches), or only below
    ``branches`` (replies to the root's move or deeper vertices, their lines as the graph spells
    them), in that order, or, with ``branch_turn`` (seconds, 0: none), each first for that long
    in turn (``taking_turns``); the progress counts the branch asked for that a job's vertex
    lies below, else its reply to the root's move.  The runner's slots each work on an open
    vertex (``pick``: the deepest first, ``shallow_slots`` of them from the shallow end of the
    branch), and each job is written as soon as it ends, with the computation it cost
    (wall-clock time times slots).  A job that ended after its vertex was given up is written
    too: the vertices it proved stay, as proofs a transposition may use, and the others are
    removed again as unreached (Graph.propagate).  Vertices expanded with more replies open than
    the flood limit allows (``BuildSettings.flood_replies``) are opened again first, their move
    excluded.  The floods' probes (``flood_probes``; with turns, the branch's in turn alone) and
    the open vertices below them come before every branch.  The graph keeps the most df-pn nodes
    its leaves were closed with (``Graph.record_leaf_dfpn_nodes``), as does ``sweep``.  With
    ``replay_every`` (seconds, 0: never), the jobs come in rounds: once a round has run that
    long, no job is started until those running have ended, and the round ends with a replay of
    the open vertices (``replay``, only the parents whose open replies or guides changed since
    the last one, kept in the graph from one build to the next) and a sweep of the open vertices
    no job has seen (``sweep``).  ``clock``: the time in seconds."""
    board = position_board(root, settings.size, settings.rule)
    root_key = board.canonical_key()[0]
    graph.record_leaf_dfpn_nodes(settings.limits.dfpn_nodes)
    with graph.db:
        graph.add_open(root_key, root, board.ply)
        if settings.flood_replies:
            graph.give_up_floods(settings.flood_stones(), settings.flood_replies, root_key)
    running: dict[str, tuple[Vertex, bool]] = {}  # by moves: the vertex, taken from the shallow end
    start = last = round_start = clock()
    started = 0
    round_started = 0  # jobs the round has started (each round starts one at least)
    round_over = False  # the round's time is up (not the build's, nor its jobs or vertices)

    def feed(free: int) -> list[tuple[str, str]]:
        nonlocal started, round_started, round_over
        now = clock()
        if seconds and now - start > seconds:
            return []
        if replay_every and round_started and now - round_start > replay_every:
            round_over = True
            return []
        if max_jobs:
            free = min(free, max_jobs - started)
        in_turn = taking_turns(branches, now - start, branch_turn)
        probes = flood_probes(graph, settings, in_turn[:1] if branch_turn > 0 else branches)
        lines = itertools.chain(graph.open_branches(board.ply + 2, probes) if probes else (),
                                graph.open_branches(board.ply + 2, in_turn))
        picked = pick(lines, list(running.values()), free, shallow_slots)
        started += len(picked)
        round_started += len(picked)
        running.update((vertex.moves, (vertex, shallow)) for vertex, shallow in picked)
        return [(vertex.moves, vertex.excluded) for vertex, _ in picked]

    def take(arguments: tuple[str, str], work: Work) -> None:
        nonlocal last
        vertex, _ = running.pop(arguments[0])
        now = clock()
        write(graph, [work], {vertex.key: vertex.attempts}, root_key, (now - last) * runner.slots)
        last = now
        if progress is not None:
            progress(now - start, next((line for line in branches
                                        if f"{vertex.moves} ".startswith(f"{line} ")),
                                       branch(vertex, board.ply + 2)))

    def left() -> float:  # the build's seconds left (inf: no limit; 0 passed on means none)
        return seconds - (clock() - start) if seconds else float("inf")

    def since_start() -> Progress | None:  # the progress of a replay or sweep started now
        if progress is None:
            return None
        offset = clock() - start
        return lambda elapsed, line: progress(offset + elapsed, line)

    replayed = graph.replay_memo()  # (kept in the graph: a build's restart skips them too)
    while True:
        runner.stream(work_on, settings, feed, take)
        if not round_over or left() <= 0:
            return graph.counts()
        replay(graph, settings, root, runner, seconds=seconds and left(),
               progress=since_start(), expanded=False, replayed=replayed, clock=clock)
        replayed = graph.remember_replays(replayed)
        if left() <= 0:
            return graph.counts()
        sweep(graph, sweep_settings(settings), root, runner, seconds=seconds and left(),
              progress=since_start())
        round_start, round_started, round_over = clock(), 0, False


def taking_turns(branches: Sequence[str], elapsed: float, turn: float) -> list[str]:
    """``branches`` in the order they are built ``elapsed`` seconds into a build that gives
    each the first place for ``turn`` seconds in turn (0: always the order given).  The other
    branches follow it, so a slot the branch in turn cannot fill (it has no open vertex left,
    or every one is being worked on) goes to the next: a proved branch's turns go to the one
    after it."""
    if turn <= 0 or len(branches) < 2:
        return list(branches)
    first = int(elapsed // turn) % len(branches)
    return [*branches[first:], *branches[:first]]


def sweep_settings(settings: BuildSettings) -> BuildSettings:
    """A build's settings for its sweeps: no engine search, the sweep's df-pn."""
    return replace(settings, engine_ms=0,
                   limits=replace(settings.limits, dfpn_nodes=SWEEP_DFPN_NODES))


def flood_probes(graph: Graph, settings: BuildSettings, branches: Sequence[str] = ()
                 ) -> list[str]:
    """The lines of the floods' probes (``BuildSettings.flood_probe_replies``), reached from
    ``branches`` (lines as the graph spells them, through expanded vertices, as the jobs find
    their open vertices) only when some are given: for each flood, its reply worked on
    already, else the open one whose defender stone lies farthest (in king moves) from the
    other stones."""
    if not settings.flood_probe_replies:
        return []
    floods = graph.floods(settings.flood_probe_replies)
    reached = graph.reached_from(branches) if branches and floods else None
    probes = []
    for children in floods:
        worked_on = [child for child in children if child.status != "open"]
        probe = worked_on[0] if worked_on else max(
            children, key=lambda child: (_isolation(child.moves, settings.size), -child.key))
        if reached is None or probe.key in reached:
            probes.append(probe.moves)
    return probes


def _isolation(moves: str, size: int) -> int:
    """How far (in king moves) the last stone of ``moves`` lies from the others."""
    *others, (x, y) = parse_move_list(moves, size, size)
    return min((max(abs(x - a), abs(y - b)) for a, b in others), default=size)


def pick(branches: Iterable[list[Vertex]], running: list[tuple[Vertex, bool]], free: int,
         shallow_slots: int) -> list[tuple[Vertex, bool]]:
    """Up to ``free`` open vertices to work on next, none of them ``running`` already (each
    with whether it was taken from the shallow end): from the first branch that has any
    (``branches`` as Graph.open_branches gives them, each deepest first), the deepest, but
    the shallowest while fewer than ``shallow_slots`` of those run.  The deepest follow one
    line down (a proof, or a failure that sends the move above to another, soonest); in
    churn, when a line's vertices fail one job after another, each failure drops the
    siblings being worked on with it, while a vertex from the shallow end (the first
    replies of the branch) is seldom dropped, and is where a branch's quick proofs are."""
    taken = {vertex.key for vertex, _ in running}
    shallow = sum(from_shallow for _, from_shallow in running)
    picked: list[tuple[Vertex, bool]] = []
    for line in branches:
        fresh = [vertex for vertex in line if vertex.key not in taken]
        while fresh and len(picked) < free:
            from_shallow = shallow < shallow_slots
            vertex = fresh.pop(-1 if from_shallow else 0)
            shallow += from_shallow
            taken.add(vertex.key)
            picked.append((vertex, from_shallow))
        if len(picked) >= free:
            break  # (the next branches are not read)
    return picked


def sweep(graph: Graph, settings: BuildSettings, root: str, runner: Runner, *,
          seconds: float = 0.0, batch: int = 64, progress: Progress | None = None,
          again: bool = False) -> dict[str, int]:
    """Give the quick proof (``quick_look``) to every open vertex no job has seen yet, the most
    stones first, a batch at a time (one transaction each), until none is left or the time
    (``seconds``, 0: none) runs out: the replies left open by jobs from before the quick
    proof (or with a smaller one), proved there in bulk instead of waiting for their turn in
    ``build``.  A vertex looked at is not looked at again (its attempts count goes up), unless
    ``again``: then every vertex open when the sweep starts is looked at once more (after the
    prover has become stronger)."""
    root_key = position_board(root, settings.size, settings.rule).canonical_key()[0]
    graph.record_leaf_dfpn_nodes(settings.limits.dfpn_nodes)
    start = time.perf_counter()
    batches: Iterator[list[Vertex]] = iter(lambda: graph.unseen_open_vertices(batch), [])
    if again:
        everything = sorted(graph.vertices("open"), key=lambda v: (-v.stones, v.key))
        batches = (everything[i:i + batch] for i in range(0, len(everything), batch))
    for pending in batches:
        batch_start = time.perf_counter()
        works = runner.map(quick_look, [(v.moves, v.excluded) for v in pending], settings)
        write(graph, works, {v.key: v.attempts for v in pending}, root_key,
              (time.perf_counter() - batch_start) * runner.slots)
        if progress is not None:
            progress(time.perf_counter() - start, "")
        if seconds and time.perf_counter() - start > seconds:
            break
    return graph.counts()


# The largest proof a replay follows (vertices): a replay's job plays each of them at worst,
# so a larger guide may prove more of its twins and costs more per job.
REPLAY_GUIDE_VERTICES = 2000
# The guides a replay's job tries in turn (proved siblings with distinct moves, the smallest
# proofs first): more finds a proof for more twins, each failed one costs a replay.
REPLAY_GUIDES = 3
# The most vertices a replay may leave open below a vertex it does not prove (replay's
# ``most_open``); one that would leave more is not kept, and the vertex stays open.  1: the
# open count never grows (one open vertex becomes at most one deeper); more keeps more partial
# proofs, and more floods: on the graph of record with no limit, 848 open vertices became 3595.
REPLAY_MOST_OPEN = 1
# Minutes of jobs in a build's round, which ends with a replay and a sweep (``build``'s
# ``replay_every``): a replay after about 20 minutes of jobs on the graph of record proved 105
# vertices in 10 minutes, one after 28 more minutes 6 in 6 (NOTES.md, session 68).  Shorter
# closes a flood's replies before jobs spend time on them one by one, and replays more often
# for less; a replay skips the parents that have not changed since the one before.
REPLAY_EVERY_MINUTES = 20.0


def replay(graph: Graph, settings: BuildSettings, root: str, runner: Runner, *,
           seconds: float = 0.0, progress: Progress | None = None,
           most_open: int = REPLAY_MOST_OPEN, expanded: bool = True,
           replayed: dict[int, Replayed] | None = None, cousins: bool = True,
           clock: Callable[[], float] = time.perf_counter) -> dict[str, int]:
    """Give each vertex not proved that has proved siblings (the other replies to the move
    above it) their strategy (``replay_on``): a quiet move of the attacker leaves a full-width
    level of replies, most of them far from every stone and lost to the same proof, which a
    job at each reply may not find again (the engine and the prover choose each vertex's move
    afresh).  First every open vertex, each taking the replay that leaves at most
    ``most_open`` vertices open below it, then, with ``cousins``, every open vertex left
    with its proved cousins as guides (twins that differ by a defender stone higher up:
    ``moved_stone_twins``), then every expanded one, which takes only a replay that proves it
    (its own move and what was built below it are given up for that proof; its replays stop
    at the first vertex they would leave open): the open ones cost less and gain more.  The
    parents with the most such children first, their targets in batches of
    REPLAY_TARGETS_PER_SLOT per worker slot, each batch written in one transaction as it
    ends, until none is left or the time (``seconds``, 0: none) runs out (checked between
    batches); what a replay leaves open is left to ``build`` and ``sweep``.  ``root``: the
    graph's root, from which the vertices no longer reached are removed
    (``Graph.propagate``).  Not ``expanded``: the open vertices only.  ``replayed``, kept from
    one replay to the next (a build's rounds), skips the parents (and the cousins' targets)
    replayed before with the same targets and the same guides, which would be replayed the
    same way again; a parent counts as replayed once every one of its targets has been.
    ``clock``: the time in seconds."""
    root_key = position_board(root, settings.size, settings.rule).canonical_key()[0]
    graph.record_leaf_dfpn_nodes(settings.limits.dfpn_nodes)
    start = clock()
    batch_size = runner.slots * REPLAY_TARGETS_PER_SLOT

    def time_up() -> bool:
        return bool(seconds) and clock() - start > seconds

    def replay_batches(pending: list[tuple[Vertex, list[Guide]]], most: int) -> int:
        """Replay the targets of ``pending`` with their guides, ``batch_size`` at a time,
        each batch written (one transaction) as it ends, until the time runs out; how many
        targets were replayed (the first ones)."""
        done = 0
        while done < len(pending) and not time_up():
            batch = pending[done:done + batch_size]
            batch_start = clock()
            works = runner.map(functools.partial(
                replay_each, {target.moves: guides for target, guides in batch}, most),
                [(target.moves, target.excluded) for target, _ in batch], settings)
            write(graph, [_kept(graph, target, work) for (target, _), work in zip(batch, works)],
                  {target.key: target.attempts for target, _ in batch}, root_key,
                  (clock() - batch_start) * runner.slots)
            done += len(batch)
            if progress is not None:
                progress(clock() - start, "")
        return done

    def replay_siblings(status: str, most: int) -> bool:
        """The pass over the vertices of ``status`` with their proved siblings as guides; a
        parent is remembered as replayed once each of its targets is; whether the time ran
        out."""
        groups = [(parent, [child for child in children
                            if child.status == status and _sibling(parent, child)], proved)
                  for parent, children, proved in graph.replay_groups()]
        for parent, targets, proved in sorted(groups, key=lambda group: -len(group[1])):
            guides = _guides(graph, settings, [(vertex.moves, vertex) for vertex in proved
                                               if _sibling(parent, vertex)]) if targets else []
            if not guides or _replayed_before(replayed, parent.key, targets, guides):
                continue
            if replay_batches([(target, guides) for target in targets], most) == len(targets):
                _remember_replay(replayed, parent.key, targets, guides)
            if time_up():
                return True
        return False

    if replay_siblings("open", most_open):
        return graph.counts()
    if cousins:
        pending = _cousins_to_replay(graph, settings, replayed)
        for target, guides in pending[:replay_batches(pending, most_open)]:
            _remember_replay(replayed, target.key, [target], guides)
        if time_up():
            return graph.counts()
    if expanded:
        replay_siblings("expanded", 0)
    return graph.counts()


# Targets per worker slot in one batch of replay jobs (``replay``): each batch waits for its
# slowest job, and its guides travel with each of its jobs; more keeps the workers busier
# between batches, fewer sends less and writes sooner (session 79: a flood's 211 open
# replies, replayed as one batch, went unwritten for 29 minutes, which an interrupt would
# have lost and which no time limit could cut short).
REPLAY_TARGETS_PER_SLOT = 4


def _cousins_to_replay(graph: Graph, settings: BuildSettings,
                       replayed: dict[int, Replayed] | None) -> list[tuple[Vertex, list[Guide]]]:
    """``replay``'s targets for its pass with cousins as guides: each open vertex with its
    proved cousins' guides, but for those the memo ``replayed`` holds so already."""
    pending: list[tuple[Vertex, list[Guide]]] = []
    for target in list(graph.vertices("open")):
        twins = moved_stone_twins(target.moves, settings.size, settings.rule)
        guides = _guides(graph, settings, [(twins[vertex.key], vertex)
                                           for vertex in graph.proved_among(twins)])
        if guides and not _replayed_before(replayed, target.key, [target], guides):
            pending.append((target, guides))
    return pending


def _replayed_before(replayed: dict[int, Replayed] | None, key: int, targets: list[Vertex],
                     guides: list[Guide]) -> bool:
    """Whether the memo ``replayed`` (None: no memo) holds these targets and guides under
    ``key`` (a parent vertex's, or a cousins' target's)."""
    return replayed is not None and replayed.get(key) == _replay_seen(targets, guides)


def _remember_replay(replayed: dict[int, Replayed] | None, key: int, targets: list[Vertex],
                     guides: list[Guide]) -> None:
    """Keep in the memo ``replayed`` (None: no memo) that ``key`` was replayed so."""
    if replayed is not None:
        replayed[key] = _replay_seen(targets, guides)


def _replay_seen(targets: list[Vertex], guides: list[Guide]) -> Replayed:
    """What the memo keeps of a replay: its targets' keys and its guides' lines."""
    return frozenset(target.key for target in targets), tuple(guide.moves for guide in guides)


def _sibling(parent: Vertex, child: Vertex) -> bool:
    """Whether ``child``'s line is ``parent``'s and two moves more (the same frame)."""
    return child.moves.split()[:-2] == parent.moves.split()


def _guides(graph: Graph, settings: BuildSettings,
            proved: Iterable[tuple[str, Vertex]]) -> list[Guide]:
    """Up to REPLAY_GUIDES of the ``proved`` twins of a vertex (each with a move list in the
    vertex's frame) as guides: those with proofs of at most REPLAY_GUIDE_VERTICES vertices,
    the smallest first, one per move."""
    sized: list[tuple[int, Point, Guide]] = []
    for moves, vertex in proved:
        if vertex.move is None:
            continue
        strategy = graph.strategy(vertex.key, REPLAY_GUIDE_VERTICES)
        if strategy is None:
            continue
        try:  # (a cousin's line, its moves in the target's order, may pass a renju foul)
            board = position_board(moves, settings.size, settings.rule)
        except BoardError:
            continue
        point = from_canonical(board, board.canonical_key()[1], vertex.move)
        sized.append((len(strategy), point, Guide(moves, strategy)))
    guides: dict[Point, Guide] = {}
    for _, point, guide in sorted(sized, key=lambda entry: entry[0]):
        guides.setdefault(point, guide)
    return list(guides.values())[:REPLAY_GUIDES]


def _kept(graph: Graph, target: Vertex, work: Work) -> Work:
    """What a replay of ``target`` writes: no record of another vertex the graph holds
    already other than open (a transposition worked on, or proved, elsewhere: its own move
    and exclusions stay)."""
    return Work([(vertex, children) for vertex, children in work.records
                 if vertex.key == target.key
                 or (mine := graph.vertex(vertex.key)) is None or mine.status == "open"])


@dataclass(frozen=True)
class Attack:
    """What ``attack`` found: its graph's file, the root's status there and the graph's vertex
    counts, and, when the root is proved, the verifier's holes (none: it may be merged)."""

    moves: str
    path: str
    status: str
    counts: dict[str, int]
    holes: list[str]


def attack(moves: str, excluded: str, settings: BuildSettings, *, seconds: float,
           directory: str, verify_nodes: int = WIDE_THREAT_NODES) -> Attack:
    """A job that builds the vertex reached by ``moves`` afresh, from its own position, in a
    graph of its own in ``directory`` (named by the rule, size, budget and canonical key: a
    later attack on the position resumes it), in this process for at most ``seconds``, and
    verifies it when its root is proved.  ``excluded`` is not used: the fresh build chooses
    every move again.  A vertex that churned for hours in a big graph, its moves chosen by
    older provers and its lines failing one job at a time near the budget, can prove within
    seconds this way (NOTES.md, session 44)."""
    board = position_board(moves, settings.size, settings.rule)
    key = board.canonical_key()[0]
    path = Path(directory) / (f"rule{settings.rule}-{settings.size}x{settings.size}-"
                              f"budget{settings.budget}-{key:016x}.sqlite")
    path.parent.mkdir(parents=True, exist_ok=True)
    graph = Graph(path, settings.as_meta(moves))
    try:
        build(graph, settings, moves, InProcess(), seconds=seconds)
        root = graph.vertex(key)
        status = "open" if root is None else root.status
        holes = (verify(graph, threat_nodes=verify_nodes).holes
                 if status == "proved" else [])
        return Attack(moves, str(path), status, graph.counts(), holes)
    finally:
        graph.close()
