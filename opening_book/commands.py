"""The database-backed subcommands of ``sente-book``: build, attack, sweep, replay, verify,
export, stats, merge."""

from __future__ import annotations

import argparse
import dataclasses
import functools
import random
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from tqdm import tqdm

from bot.core.board import Board
from bot.core.errors import BoardError
from bot.core.notation import format_move_list, parse_move_list
from bot.core.state import symmetry_image
from bot.engine import Engine
from bot.limits import Limits
from opening_book import builder
from opening_book.book import Book, Reproof, load_shipped
from opening_book.graph import Graph, Vertex, branch_order, export as export_graph
from opening_book.positions import position_board
from opening_book.prover import ProverLimits
from opening_book.verify import Verdict, verify as verify_graph


def open_graph(db: Path, args: argparse.Namespace) -> Graph:
    """The graph at ``db``; a new one takes the settings of ``args``, an old one must agree,
    but for a larger ``--budget`` (build's), which raises the old one's."""
    settings = {"rule": str(args.rule), "size": str(args.size)}
    building = hasattr(args, "budget")
    if building:
        settings.update(root=args.root)
    is_new = not db.exists()
    if is_new and not building:
        raise SystemExit(f"sente-book: no graph at {db} (sente-book build makes one)")
    db.parent.mkdir(parents=True, exist_ok=True)
    budget = args.budget if building and args.budget is not None else builder.DEFAULT_BUDGET
    graph = Graph(db, {**settings, "budget": str(budget)} if is_new else None)
    for name, value in settings.items():
        if graph.setting(name) != value:
            raise SystemExit(f"sente-book: {db} was built with {name} {graph.setting(name)!r}, "
                             f"not {value!r}")
    old_budget = int(graph.setting("budget"))
    if building and args.budget is not None and args.budget < old_budget:
        raise SystemExit(f"sente-book: {db} has budget {old_budget}: a smaller one "
                         f"({args.budget}) would leave its longer proofs unproved")
    if building and args.budget is not None and args.budget > old_budget:
        reopened = graph.raise_budget(args.budget)
        print(f"budget raised to {args.budget}: {reopened} "
              f"{'vertex' if reopened == 1 else 'vertices'} not proved may try again the moves "
              "refused under the smaller one", file=sys.stderr)
    return graph


def build(db: Path, args: argparse.Namespace, limits: ProverLimits) -> int:
    try:
        position_board(args.root, args.size, args.rule)
    except BoardError as error:
        raise SystemExit(f"sente-book: --root: {error}") from None
    graph = open_graph(db, args)
    branches = [branch_line(graph, args, line) for line in args.branch]
    settings = build_settings(args, int(graph.setting("budget")), limits)
    if args.root_move:
        forced = f"{args.root} {args.root_move}".strip()
        try:
            position_board(forced, args.size, args.rule)
        except BoardError as error:
            raise SystemExit(f"sente-book: --root-move: {error}") from None
        settings = dataclasses.replace(settings, forced_line=forced)
    return _grow(graph, args, "building", " job", lambda runner, progress: builder.build(
        graph, settings, args.root, runner, seconds=args.minutes * 60, max_jobs=args.jobs,
        shallow_slots=args.shallow_slots, progress=progress, branches=branches,
        replay_every=args.replay_every * 60, branch_turn=args.branch_minutes * 60))


def build_settings(args: argparse.Namespace, budget: int,
                   limits: ProverLimits) -> builder.BuildSettings:
    """The settings of the jobs that grow a graph, from the options of build or attack."""
    return builder.BuildSettings(args.rule, args.size, budget, limits, args.engine_ms,
                                 lost_score=args.lost_score,
                                 won_moves_left=args.won_moves_left,
                                 quick_nodes=args.quick_nodes,
                                 wide_threat_nodes=args.wide_threat_nodes,
                                 give_up_after=args.give_up_after,
                                 far_give_up_after=args.far_give_up_after,
                                 give_up_stones=args.give_up_stones,
                                 flood_replies=args.flood_replies,
                                 flood_moves_left=args.flood_moves_left,
                                 flood_probe_replies=args.flood_probe_replies,
                                 far_seconds=args.far_seconds)


def attack(db: Path, args: argparse.Namespace, limits: ProverLimits) -> int:
    """Build the vertices named (or their unproved replies) afresh, each in a graph apart
    (``builder.attack``, one per worker), and merge in those proved without a hole; a vertex
    open in the graph that does not prove takes its graph apart's move and the work below it
    (``Graph.merge`` with ``worked_on``), so that ``--deeper`` has replies to go to."""
    graph = open_graph(db, args)
    settings = build_settings(args, int(graph.setting("budget")), limits)
    targets = attack_targets(graph, args)
    job = functools.partial(builder.attack, seconds=args.minutes_each * 60,
                            directory=str(args.dir or db.parent / "attacks"),
                            verify_nodes=args.verify_threat_nodes)
    root = position_key_of_root(graph)
    bar = tqdm(total=len(targets), unit=" vertex", desc="attacking", dynamic_ncols=True)
    start = time.perf_counter()
    merged = 0
    seen = {key for key, _ in targets}
    level = dict.fromkeys(seen, 0)  # how many levels below the lines named

    def feed(free: int) -> list[tuple[str, str]]:
        jobs: list[tuple[str, str]] = []
        while targets and len(jobs) < free and not (
                args.minutes and time.perf_counter() - start > args.minutes * 60):
            key, line = targets.pop(0)
            vertex = graph.vertex(key)
            if vertex is not None and vertex.status == "proved":  # by a merge since
                bar.update(1)
            else:
                jobs.append((line, ""))
        return jobs

    def merge_apart(path: str, *, worked_on: bool = False) -> int:
        other = Graph(path)
        try:
            return graph.merge(other, root, worked_on=worked_on)
        finally:
            other.close()

    def take(arguments: tuple[str, str], found: builder.Attack) -> None:
        nonlocal merged
        bar.update(1)
        outcome = f"{found.moves}: {found.status}, {by_status(found.counts)}"
        if found.holes:
            outcome += f"; {len(found.holes)} holes, not merged: {found.holes[0]}"
        elif found.status == "proved":
            taken = merge_apart(found.path)
            merged += 1
            outcome += f"; verified, {taken} vertices merged"
        else:
            key = position_board(found.moves, args.size, args.rule).canonical_key()[0]
            vertex = graph.vertex(key)
            if vertex is not None and vertex.status == "open" and found.path:
                outcome += f"; its work taken, {merge_apart(found.path, worked_on=True)} vertices"
            if level[key] < args.deeper:
                deeper = [reply for reply in unproved_replies(graph, key)
                          if reply.key not in seen]
                targets[:0] = [(reply.key, reply.moves) for reply in deeper]
                for reply in deeper:
                    seen.add(reply.key)
                    level[reply.key] = level[key] + 1
                bar.total = (bar.total or 0) + len(deeper)
                outcome += f"; its {len(deeper)} unproved replies queued"
        bar.write(outcome)

    runner = runner_of(args)
    try:
        with _interruptible():
            runner.stream(job, settings, feed, take)
    finally:
        bar.close()
        runner.close()
    print(f"{merged} proved and merged; " + describe(graph.counts()))
    graph.close()
    return 0


def attack_targets(graph: Graph, args: argparse.Namespace) -> list[tuple[int, str]]:
    """The vertices ``attack`` builds first (key, moves): those at ``args.lines``, or with
    ``args.children`` their replies not proved (``unproved_replies``), each once (a vertex
    reached from two of the lines is one graph apart: two workers must not build it at once);
    SystemExit for a line that is no vertex of the graph."""
    targets: dict[int, str] = {}  # by key, in the order found
    for line in args.lines:
        vertex = vertex_of_line(graph, line, args.size, args.rule)
        if not args.children:
            targets.setdefault(vertex.key, vertex.moves)
            continue
        for reply in unproved_replies(graph, vertex.key):
            targets.setdefault(reply.key, reply.moves)
    return list(targets.items())


def vertex_of_line(graph: Graph, line: str, size: int, rule: int, option: str = "") -> Vertex:
    """The vertex the move list ``line`` reaches (in any symmetry); SystemExit, naming
    ``option`` if given, when it is no position or no vertex of the graph."""
    named = f"{option} {line!r}" if option else repr(line)
    try:
        board = position_board(line, size, rule)
    except BoardError as error:
        raise SystemExit(f"sente-book: {named}: {error}") from None
    vertex = graph.vertex(board.canonical_key()[0])
    if vertex is None:
        root_ply = len(parse_move_list(graph.setting("root"), size, size))
        defender_to_move = board.ply % 2 != root_ply % 2
        raise SystemExit(f"sente-book: {named} is no vertex of the graph"
                         + (" (it leaves the defender to move; a vertex has the attacker to "
                            "move, as at the graph's root)" if defender_to_move else ""))
    return vertex


def proved_replies(graph: Graph, key: int) -> list[str]:
    """The lines of the proved replies below the vertex ``key``, far replies first."""
    replies = [graph.vertex(child) for child in graph.children(key)]
    return sorted((reply.moves for reply in replies
                   if reply is not None and reply.status == "proved"), key=branch_order)


def unproved_replies(graph: Graph, key: int) -> list[Vertex]:
    """The replies below the vertex ``key`` not proved, far replies first (``branch_order``)."""
    replies = [graph.vertex(child) for child in graph.children(key)]
    return sorted((reply for reply in replies if reply is not None and reply.status != "proved"),
                  key=lambda reply: branch_order(reply.moves))


def branch_line(graph: Graph, args: argparse.Namespace, line: str) -> str:
    """A ``--branch`` ``line`` as the graph spells it (the vertex it names may have been
    reached in another symmetry); SystemExit unless it is a vertex below the root's move (a
    reply to it, or deeper) whose line starts with the root's."""
    root = position_board(args.root, args.size, args.rule)
    try:
        board = position_board(line, args.size, args.rule)
    except BoardError as error:
        raise SystemExit(f"sente-book: --branch: {error}") from None
    vertex = graph.vertex(board.canonical_key()[0])
    if board.ply < root.ply + 2 or board.moves()[:root.ply] != root.moves() or vertex is None:
        raise SystemExit(f"sente-book: --branch {line!r} is no vertex of the graph below the "
                         "root's move")
    return vertex.moves


def sweep(db: Path, args: argparse.Namespace, limits: ProverLimits) -> int:
    graph = open_graph(db, args)
    settings = builder.BuildSettings(args.rule, args.size, int(graph.setting("budget")), limits,
                                     args.engine_ms, lost_score=args.lost_score,
                                     won_moves_left=args.won_moves_left,
                                     quick_nodes=args.quick_nodes)
    return _grow(graph, args, "sweeping", " batch", lambda runner, progress: builder.sweep(
        graph, settings, graph.setting("root"), runner, seconds=args.minutes * 60,
        batch=args.batch, progress=progress, again=args.again))


def replay(db: Path, args: argparse.Namespace, limits: ProverLimits) -> int:
    graph = open_graph(db, args)
    settings = builder.BuildSettings(args.rule, args.size, int(graph.setting("budget")), limits,
                                     engine_ms=0, wide_threat_nodes=args.wide_threat_nodes)
    return _grow(graph, args, "replaying", " parent", lambda runner, progress: builder.replay(
        graph, settings, graph.setting("root"), runner, seconds=args.minutes * 60,
        progress=progress, most_open=args.most_open))


# Seconds between two readings of the vertex counts on a build's progress bar: each reading
# scans the graph (0.15 s at 300 k vertices) in the process that also writes every job.
COUNTS_EVERY = 10.0


def runner_of(args: argparse.Namespace) -> builder.Runner:
    """Dask workers (local ones, or those of --scheduler), or this process (--workers 0)."""
    if args.workers > 0 or args.scheduler:
        return builder.DaskCluster(args.scheduler, args.workers)
    return builder.InProcess()


def _grow(graph: Graph, args: argparse.Namespace, title: str, unit: str,
          run: Callable[[builder.Runner, builder.Progress], dict[str, int]]) -> int:
    """Run a build or a sweep (``run``) on Dask workers or in this process, with a progress
    bar counting ``unit``s written; an interrupt (SIGINT, or SIGTERM, even when the shell
    started it in the background with SIGINT ignored) keeps everything written before it."""
    runner = runner_of(args)
    bar = tqdm(unit=unit, desc=title, dynamic_ncols=True)
    proved_before = graph.counts()["proved"]
    shown = -COUNTS_EVERY  # when the counts were last read
    size, rule = int(graph.setting("size")), int(graph.setting("rule"))

    def progress(seconds: float, line: str) -> None:
        nonlocal shown
        bar.update(1)
        if seconds - shown < COUNTS_EVERY:
            return
        shown = seconds
        counts = graph.counts()
        gained = counts["proved"] - proved_before
        postfix = {} if not line else {"branch": f"{line}: " + by_status(graph.reached_counts(
            position_board(line, size, rule).canonical_key()[0]))}
        bar.set_postfix(postfix, proved=counts["proved"], expanded=counts["expanded"],
                        open=counts["open"], failed=counts["failed"],
                        deepest_open=graph.deepest_open(),
                        proved_per_min=f"{60 * gained / max(seconds, 1e-9):.1f}")

    try:
        with _interruptible():
            run(runner, progress)
    finally:
        bar.close()
        runner.close()
    print(describe(graph.counts()))  # the work in flight at an interrupt is lost, not the rest
    graph.close()
    return 0


@contextmanager
def _interruptible() -> Iterator[None]:
    """Run the block until it ends or an interrupt comes (SIGINT, or SIGTERM, even when the
    shell started the command in the background with SIGINT ignored), which ends it quietly."""
    handlers = {number: signal.signal(number, _interrupt)
                for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    except KeyboardInterrupt:
        pass
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)


def _interrupt(number: int, frame: object) -> None:
    raise KeyboardInterrupt(signal.Signals(number).name)


def describe(counts: dict[str, int]) -> str:
    return "vertices: " + by_status(counts)


def by_status(counts: dict[str, int]) -> str:
    """``counts`` as "N proved, N expanded, N open, N failed"."""
    return ", ".join(f"{counts[s]} {s}" for s in ("proved", "expanded", "open", "failed"))


def verify(db: Path, args: argparse.Namespace) -> int:
    graph = open_graph(db, args)
    bar = tqdm(unit=" vertex", desc="verifying", dynamic_ncols=True)

    def progress(verdict: Verdict) -> None:
        bar.update(1)
        bar.set_postfix(replies=verdict.checked, holes=len(verdict.holes))

    try:
        verdict = verify_graph(graph, args.root, args.threat_nodes, progress, args.max_holes,
                               args.dfpn_nodes)
        bar.close()
        for hole in verdict.holes[: args.show]:
            print(f"hole: {hole}")
        stopped = args.max_holes and len(verdict.holes) >= args.max_holes
        print(f"{verdict.vertices} graph vertices followed, {verdict.checked} defender replies "
              f"checked, {len(verdict.holes)} holes" + (" (stopped there)" if stopped else "") +
              (f", longest line {verdict.longest} stones" if not verdict.holes else ""))
        if args.repair and verdict.uncovered:
            with graph.db:
                reopened = sum(graph.reopen(u.parent, u.key, u.moves, u.stones)
                               for u in verdict.uncovered)
            print(f"repaired: {len(verdict.uncovered)} positions are open vertices now, "
                  f"{reopened} proved vertices above them expanded again (sente-book build "
                  "proves them)")
    finally:
        bar.close()
        graph.close()
    return 1 if verdict.holes else 0


def export(db: Path, args: argparse.Namespace, out: Path) -> int:
    graph = open_graph(db, args)
    reproof = Reproof(args.reproof_nodes, args.threat_nodes)
    settings = builder.BuildSettings(args.rule, args.size, int(graph.setting("budget")),
                                     reproof.limits())
    runner = runner_of(args)
    bar = tqdm(unit=" vertex", desc="reproofs", dynamic_ncols=True)

    def check(vertices: list[Vertex]) -> list[bool]:
        answers = runner.map(builder.reproves, [(vertex.moves, "") for vertex in vertices],
                             settings)
        bar.update(len(vertices))
        bar.set_postfix(reproved=sum(answers))
        return answers

    try:
        count = export_graph(graph, out, args.all, reproof, check)
    finally:
        bar.close()
        runner.close()
        graph.close()
    print(f"{out}: {count} positions, {out.stat().st_size} bytes")
    return 0


def merge(db: Path, other: Path) -> int:
    graph, source = Graph(db), Graph(other)
    try:
        taken = graph.merge(source, position_key_of_root(graph))
    except ValueError as error:
        raise SystemExit(f"sente-book: {error}") from None
    print(f"{taken} vertices taken from {other}; " + describe(graph.counts()))
    graph.close()
    source.close()
    return 0


def stats(db: Path, below: Sequence[str] = (), widest: int = 0) -> int:
    """Print how far the graph has got; for each line of ``below`` (a vertex), also its
    replies not proved (as ``attack --children`` or ``build --branch`` would take them), and
    the ``widest`` expanded vertices below it (below the root without ``below``) with the most
    replies open."""
    if not db.exists():
        print(f"sente-book: no graph at {db}", file=sys.stderr)
        return 1
    graph = Graph(db)
    size, rule = int(graph.setting("size")), int(graph.setting("rule"))
    vertices = [(line, vertex_of_line(graph, line, size, rule, "--below")) for line in below]
    root = graph.vertex(position_key_of_root(graph))
    print(describe(graph.counts()))
    print(f"deepest open vertex: {graph.deepest_open()} stones")
    if root is not None:
        print(f"root ({graph.setting('root') or 'empty board'}): {root.status}"
              + (f", longest line {root.longest} stones" if root.longest else ""))
        proved = proved_replies(graph, root.key)
        print(f"the defender's replies to the root's move: {len(proved)} of "
              f"{len(graph.children(root.key))} "
              "proved (after symmetry)" + (f": {', '.join(proved)}" if proved else ""))
        branches = graph.open_by_branch(root.stones + 2)
        if branches:
            line = min(branches, key=branch_order)
            print(f"the reply being built: {line}, {branches[line]} open vertices")
            print("the replies not proved, with the vertices reached from each:")
            _print_reached(graph, unproved_replies(graph, root.key))
    for line, vertex in vertices:
        unproved = unproved_replies(graph, vertex.key)
        print(f"below {line} ({vertex.status}): {len(unproved)} of "
              f"{len(graph.children(vertex.key))} replies not proved, with the vertices reached "
              "from each:")
        _print_reached(graph, unproved)
    if widest:
        if not vertices and root is not None:
            vertices = [(graph.setting("root") or "the root", root)]
        for line, vertex in vertices:
            _print_widest(graph, line, vertex, widest)
    row = graph.db.execute("SELECT MAX(longest), SUM(proof_nodes) FROM vertex "
                           "WHERE status = 'proved'").fetchone()
    print(f"longest proved line: {row[0] or 0} stones; proof nodes spent on proved vertices: "
          f"{row[1] or 0}")
    print(f"computation: {graph.core_seconds() / 3600:.1f} core-hours (wall time x workers)")
    graph.close()
    return 0


def _print_reached(graph: Graph, vertices: list[Vertex]) -> None:
    """A line per vertex: its moves and the vertices reached from it, by status."""
    for vertex in vertices:
        print(f"  {vertex.moves}: {by_status(graph.reached_counts(vertex.key))}")


def _print_widest(graph: Graph, line: str, vertex: Vertex, limit: int) -> None:
    """The ``limit`` expanded vertices below ``vertex`` with the most replies open, a line
    each: its replies by status, its stones, its moves."""
    print(f"the widest levels below {line}: replies open / expanded / proved / all, stones, "
          "the vertex")
    for parent, replies in graph.widest_below(vertex.key, limit):
        print(f"  {replies['open']} / {replies['expanded']} / {replies['proved']} / "
              f"{sum(replies.values())}, {parent.stones}: {parent.moves}")


def position_key_of_root(graph: Graph) -> int:
    board = position_board(graph.setting("root"), int(graph.setting("size")),
                           int(graph.setting("rule")))
    return board.canonical_key()[0]


def play(db: Path, args: argparse.Namespace) -> int:
    """Games from each proved reply to the root's move (its vertex's line, in a seeded
    symmetry): the engine with the book as the attacker (``--attacker-ms`` a move) against the
    engine without it (``--defender-ms``, a share ``--random`` of its moves random).  Prints
    each game and what decided the attacker's moves; 0 only if the attacker won every game."""
    graph = Graph(db)
    size, rule = int(graph.setting("size")), int(graph.setting("rule"))
    root = graph.vertex(position_key_of_root(graph))
    lines = [] if root is None else proved_replies(graph, root.key)
    graph.close()
    book = Book(args.book) if args.book else load_shipped(rule, size)
    if book is None:
        print(f"sente-book: no book for rule {rule} at {size}x{size}", file=sys.stderr)
        return 1
    won, longest, causes = 0, 0, Counter[str]()
    for line in lines:
        for game in range(args.games_each):
            rng = random.Random(f"{args.seed}:{line}:{game}")
            sym = rng.randrange(8)
            start = [symmetry_image(sym, x, y, size, size)
                     for x, y in position_board(line, size, rule).moves()]
            attacker = len(start) % 2 + 1  # (to move after the reply)
            winner, stones, decided = _book_game(start, attacker, size, rule, book, args, rng)
            won += winner == attacker
            longest = max(longest, stones)
            causes.update(decided)
            print(f"{format_move_list(start, size)}: "
                  f"{('none', 'black', 'white')[winner]} wins in {stones} stones; the "
                  f"attacker's moves: {', '.join(f'{k} {n}' for k, n in decided.items())}")
    games = len(lines) * args.games_each
    print(f"the attacker won {won} of {games} games, the longest {longest} stones; its moves: "
          + ", ".join(f"{k} {n}" for k, n in causes.most_common()))
    return 0 if won == games else 1


def _book_game(start: list[tuple[int, int]], attacker: int, size: int, rule: int, book: Book,
               args: argparse.Namespace, rng: random.Random) -> tuple[int, int, Counter[str]]:
    """One game of ``play`` from the stones ``start``: (the winner, 0 for none; the stones at
    the end; what decided each of the attacker's moves, by Result.stopped_by)."""
    referee = Board(size, size, rule)
    attacker_engine, defender_engine = Engine(book=book), Engine()
    for engine in (attacker_engine, defender_engine):
        engine.new_game(size, size, rule)
    decided: Counter[str] = Counter()
    moves = iter(start)
    while not referee.is_full():
        mover = referee.side_to_move()
        move = next(moves, None)
        if move is None and mover == attacker:
            result = attacker_engine.think(Limits(timeout_turn_ms=args.attacker_ms))
            decided[result.stopped_by] += 1
            move = result.move
        elif move is None and rng.random() < args.random:
            move = rng.choice([p for p in referee.empty_points() if referee.is_legal(*p, mover)])
        elif move is None:
            move = defender_engine.think(Limits(timeout_turn_ms=args.defender_ms)).move
        for engine in (attacker_engine, defender_engine):
            engine.play(*move)
        if referee.play(*move):
            return mover, referee.ply, decided
    return 0, referee.ply, decided
