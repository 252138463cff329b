"""``sente-book``: the opening-book tools (prove, build, attack, sweep, replay, verify, export,
stats, merge, play; ``--help`` each).

``prove`` reads positions, one per line as a move list in renju notation (``h8 h10 g7``: column
letter from ``a``, row number from 1 at the bottom, Black first), and prints one JSON line per
position: ``{"position", "winner", "move", "proof_nodes", "longest", "seconds"}``; ``winner``
is the side to move when a win is proven within the budget (``longest``: stones on the board at
the end of the longest line), else null.  A line that is no legal position gets
``{"position", "error"}`` naming the line, and the next line is read; the exit status is 1 if
any line was refused.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from typing import TextIO

from pathlib import Path

from bot.core.board import Board
from bot.core.errors import BoardError
from bot.core.notation import format_move
from opening_book.book import Reproof, shipped_path
from opening_book.builder import (
    DEFAULT_BUDGET, GIVE_UP_MOVES_LEFT, REPLAY_EVERY_MINUTES, REPLAY_MOST_OPEN, SHALLOW_SLOTS,
    BuildSettings,
)
from opening_book.positions import position_board
from opening_book.prover import (DFPN_NODES, SWEEP_DFPN_NODES, WIDE_THREAT_NODES, Prover,
                                 ProverLimits)

COLOUR_NAMES = {1: "black", 2: "white"}


def prove_lines(lines: Iterable[str], size: int, rule: int, budget: int,
                limits: ProverLimits, out: TextIO) -> int:
    """Prove each line's position; returns how many lines were refused."""
    refused = 0
    for number, raw in enumerate(lines, 1):
        text = raw.split("#", 1)[0].strip()
        if not text:  # blank lines and comments
            continue
        try:
            board = position_board(text, size, rule)
        except BoardError as error:
            refused += 1
            out.write(json.dumps({"position": raw.strip(), "error": f"line {number}: {error}"})
                      + "\n")
            out.flush()
            continue
        mover = board.side_to_move()
        proof = Prover(board, limits).prove(budget)
        move = (format_move(*board.point(proof.cell), size) if proof.won else None)
        out.write(json.dumps({"position": text, "winner": COLOUR_NAMES[mover] if proof.won
                              else None, "move": move, "proof_nodes": proof.proof_nodes,
                              "longest": proof.longest, "seconds": round(proof.seconds, 3)})
                  + "\n")
        out.flush()
    return refused


def default_graph(rule: int, size: int) -> Path:
    """The graph of record for a rule and size: committed, so builds resume anywhere."""
    return shipped_path(rule, size).with_name(f"graph-rule{rule}-{size}x{size}.sqlite")


def add_limits(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-nodes", type=int, default=ProverLimits.max_nodes,
                        help="proof-tree nodes per position before giving up")
    add_threat_nodes(parser)
    parser.add_argument("--width", type=int, default=0,
                        help="attacker moves tried per node, best first (0: all candidates)")
    parser.add_argument("--seconds", type=float, default=0.0,
                        help="time limit per position (0: none)")


def add_threat_nodes(parser: argparse.ArgumentParser, dfpn_nodes: int = DFPN_NODES) -> None:
    parser.add_argument("--threat-nodes", type=int, default=ProverLimits.threat_nodes,
                        help="nodes per threat search at a leaf")
    parser.add_argument("--dfpn-nodes", type=int, default=dfpn_nodes,
                        help="nodes of the df-pn (with quiet threats) a leaf tries when the "
                        "threat search finds no win (0: none; default %(default)s)")


def add_board(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rule", type=int, default=1,
                        help="Gomocup rule bits: 0 freestyle, 1 exactly five (default), 4 renju")
    parser.add_argument("--size", type=int, default=15, help="board side (default 15)")


def add_budget(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET,
                        help="stones on the board at the end of the longest line (default 35)")


def add_graph_budget(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--budget", type=int, default=None,
                        help="stones on the board at the end of the longest line (default: the "
                        "graph's own; 35 for a new graph); more than the graph's raises its "
                        "budget: what is proved stays proved, and the vertices not proved may "
                        "try again the moves refused under the smaller one")


def add_graph(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--db", type=Path, help="the graph database (default: the committed "
                        "one for the rule and size, opening_book/data/graph-rule1-15x15.sqlite)")
    add_board(parser)


def add_run(parser: argparse.ArgumentParser, quick: bool = True) -> None:
    """The options of the commands that run proof jobs (build, attack, sweep, replay; the
    quick proof's unless not ``quick``)."""
    parser.add_argument("--minutes", type=float, default=0.0, help="stop after (0: no limit)")
    parser.add_argument("--workers", type=int, default=2,
                        help="local Dask worker processes (0: run the jobs in this process)")
    parser.add_argument("--scheduler", help="address of a running Dask scheduler to use instead")
    if not quick:
        return
    parser.add_argument("--quick-nodes", type=int, default=BuildSettings.quick_nodes,
                        help="proof-tree nodes of the quick proof tried on each reply a move "
                        "leaves open (0: none; default %(default)s)")


def add_lost_score(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--lost-score", type=int, default=BuildSettings.lost_score,
                        help="a job fails its vertex at once when the engine's search scores "
                        "it at or below this for the attacker, and gives a move up when a "
                        "reply it leaves open scores so (default %(default)s: no advantage "
                        "for the attacker; -28000: every attacker move the engine searched "
                        "loses)")
    parser.add_argument("--no-lost-score", dest="lost_score", action="store_const", const=None,
                        help="never fail a vertex, nor give a move up, on the engine's score")
    parser.add_argument("--won-moves-left", type=int, default=BuildSettings.won_moves_left,
                        help="within this many attacker moves of the budget, the same when the "
                        "engine sees no win for the attacker (a score below 28000; default "
                        "%(default)s, 0: nowhere)")


def add_wide_threat_nodes(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wide-threat-nodes", type=int, default=BuildSettings.wide_threat_nodes,
                        help="nodes of the threat search given to each reply a move leaves "
                        "open when the attacker would win by threats even after a pass (0: "
                        "none; default %(default)s; verify needs --threat-nodes at least this)")


def add_build_settings(parser: argparse.ArgumentParser) -> None:
    """The options of the jobs that grow a graph (build, attack)."""
    parser.add_argument("--engine-ms", type=int, default=BuildSettings.engine_ms,
                        help="engine search that picks the attacker's move each job expands "
                        "first, before the proof search (0: none, proof numbers alone)")
    add_lost_score(parser)
    add_wide_threat_nodes(parser)
    parser.add_argument("--give-up-after", type=int, default=BuildSettings.give_up_after,
                        help="a vertex near the budget fails once this many of its moves are "
                        "excluded (0: only when all are refuted; default %(default)s)")
    parser.add_argument("--far-give-up-after", type=int,
                        default=BuildSettings.far_give_up_after,
                        help="... and a vertex farther from the budget (0: only when all are "
                        "refuted; default %(default)s)")
    parser.add_argument("--give-up-stones", type=int, default=BuildSettings.give_up_stones,
                        help="a vertex of fewer stones fails neither by those counts nor by "
                        "--lost-score, only when all its moves are refuted (default "
                        "%(default)s)")
    parser.add_argument("--flood-replies", type=int, default=BuildSettings.flood_replies,
                        help="with at most --flood-moves-left attacker moves left, a move that "
                        "leaves more replies open than this is excluded, not taken (0: no "
                        "limit; default %(default)s)")
    parser.add_argument("--flood-moves-left", type=int, default=BuildSettings.flood_moves_left,
                        help="where the flood limit applies (default %(default)s)")
    parser.add_argument("--flood-probe-replies", type=int,
                        default=BuildSettings.flood_probe_replies,
                        help="farther from the budget, a vertex with at least this many "
                        "replies open and none proved has the reply farthest from the stones "
                        "built first, its proof replayed on the others or its failure giving "
                        "the move up (0: never; default %(default)s)")
    parser.add_argument("--far-seconds", type=float, default=None,
                        help="a job's proof search time at a vertex with more than "
                        f"{GIVE_UP_MOVES_LEFT} attacker moves left (default: --seconds)")
    add_limits(parser)


def limits_of(args: argparse.Namespace) -> ProverLimits:
    return ProverLimits(args.max_nodes, args.threat_nodes, args.width, args.seconds,
                        dfpn_nodes=args.dfpn_nodes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="sente-book",
                                     description=" ".join(__doc__.split("\n\n")[0].split()))
    commands = parser.add_subparsers(dest="command", required=True)
    prove = commands.add_parser(
        "prove", help="prove wins for the side to move in positions read from FILE or stdin",
        description=__doc__.split("\n\n", 1)[1])
    prove.add_argument("file", nargs="?", help="positions, one move list per line (default: "
                       "stdin); blank lines and text after # are skipped")
    add_board(prove)
    add_budget(prove)
    add_limits(prove)

    build = commands.add_parser(
        "build", help="grow the graph (resumes where the database stopped)",
        description="Grow the strategy graph from --root: open vertices proved or expanded on "
        "a Dask cluster (local by default), one job per worker at a time, each job written in a "
        "transaction of its own as it ends.")
    add_graph(build)
    build.add_argument("--root", default="", help="the move list the graph starts from, "
                       "attacker to move (default: the empty board, Black attacks)")
    add_graph_budget(build)
    build.add_argument("--root-move", default="", help="the attacker's move to expand at the "
                       "root (e.g. 'h6'; a move that proved in another graph), not the job's "
                       "choice; excluded if a reply refutes it")
    add_run(build)
    build.add_argument("--jobs", type=int, default=0, help="stop after (0: no limit)")
    build.add_argument("--shallow-slots", type=int, default=SHALLOW_SLOTS,
                       help="of the jobs running at once, how many take the open vertex with "
                       "the fewest stones in the branch, not the most (default %(default)s)")
    build.add_argument("--branch", action="append", default=[],
                       help="build only below this reply to the root's move (e.g. 'h8 h15', "
                       "in any symmetry), or below a deeper vertex (e.g. 'h8 g10 j8 f9': one "
                       "hard reply, with the work done below it), not the branches in their "
                       "order; given more than once, one after another in the order given")
    build.add_argument("--branch-minutes", type=float, default=0.0, metavar="MINUTES",
                       help="with --branch given more than once, each branch first for this "
                       "many minutes in turn, round and round (one flood does not hold up the "
                       "others; 0: each until it is proved, the default)")
    build.add_argument("--replay-every", type=float, default=REPLAY_EVERY_MINUTES,
                       metavar="MINUTES", help="jobs in rounds of this many minutes, each "
                       "ending, once its jobs are done, with a replay of the open vertices "
                       "that changed (as replay does) and a sweep of those no job has seen (as "
                       "sweep does; 0: never; default %(default)s)")
    add_build_settings(build)

    attack = commands.add_parser(
        "attack", help="build hard vertices afresh, each in a graph apart, and merge the proofs",
        description="Build each vertex named (or, with --children, each unproved reply below "
        "it) afresh from its own position, in a graph of its own under --dir, for at most "
        "--minutes-each, on Dask workers one vertex per worker; a vertex proved there is "
        "verified, and merged into the graph when the verifier finds no hole; a vertex open in "
        "the graph that does not prove takes the move and the work of its graph apart.  A "
        "vertex attacked again resumes its graph apart.")
    add_graph(attack)
    attack.add_argument("lines", nargs="+", metavar="LINE",
                        help="a vertex of the graph, as a move list (in any symmetry)")
    attack.add_argument("--children", action="store_true",
                        help="attack the vertex's replies not yet proved, not the vertex")
    attack.add_argument("--deeper", type=int, default=0, metavar="LEVELS",
                        help="a vertex that does not prove has its unproved replies attacked "
                        "next, down to LEVELS replies below those named (default 0)")
    attack.add_argument("--minutes-each", type=float, default=5.0,
                        help="stop each vertex's build after (default %(default)s)")
    attack.add_argument("--dir", type=Path, help="where the graphs apart are kept (default: "
                        "attacks/ beside the graph)")
    attack.add_argument("--verify-threat-nodes", type=int, default=WIDE_THREAT_NODES,
                        help="the verifier's --threat-nodes (default %(default)s)")
    add_run(attack)
    add_build_settings(attack)

    sweep = commands.add_parser(
        "sweep", help="a quick proof at every open vertex no job has seen yet",
        description="Give the quick proof (a small proof search) to every open vertex no job "
        "has worked on, the most stones first: the replies that jobs from before the quick "
        "proof (or with a smaller one) left open are proved in bulk, or refuted.")
    add_graph(sweep)
    add_run(sweep)
    sweep.add_argument("--batch", type=int, default=64,
                       help="open vertices per batch, one transaction each (default 64)")
    sweep.add_argument("--again", action="store_true",
                       help="also the open vertices jobs have seen, each once (after the "
                       "prover has become stronger)")
    sweep.add_argument("--engine-ms", type=int, default=0,
                       help="first the engine's search, this long, at each vertex: one it "
                       "scores at or below --lost-score fails (0: none, the default)")
    add_lost_score(sweep)
    add_threat_nodes(sweep, SWEEP_DFPN_NODES)

    replay = commands.add_parser(
        "replay", help="play vertices not proved as their proved siblings (or cousins) are "
        "proved",
        description="Give every vertex not proved that has proved siblings (the other replies "
        "to the attacker's move above it) their proofs, the smallest first, the open vertices "
        "before the expanded ones (which take only a whole proof), and the open vertices "
        "left the proofs of their cousins (twins that differ by a defender stone higher up): "
        "the twin's move is played, the defender's replies are closed by the threat searches "
        "where they can be, and each reply left open is played on as the twin's proof goes "
        "on after it.  "
        "A quiet move leaves a full-width level of replies, most of them far from every stone "
        "and lost to the same proof, which a job at each may not find again.  One batch of "
        "jobs per parent vertex, one transaction each; what a replay leaves open is left to "
        "build and sweep.")
    add_graph(replay)
    add_run(replay, quick=False)
    add_threat_nodes(replay)
    add_wide_threat_nodes(replay)
    replay.add_argument("--most-open", type=int, default=REPLAY_MOST_OPEN,
                        help="the most vertices a replay may leave open below a vertex it does "
                        "not prove; one that would leave more is dropped (default %(default)s: "
                        "the open count never grows)")

    verify = commands.add_parser(
        "verify", help="check the graph as a strategy; exit 0 only without a hole",
        description="After every attacker move of the graph the defender tries every free "
        "cell; each position must be in the graph or won by threats within the budget.")
    add_graph(verify)
    verify.add_argument("--root", help="verify from this move list (default: the graph's root)")
    verify.add_argument("--threat-nodes", type=int, default=WIDE_THREAT_NODES,
                        help="nodes per threat search for positions outside the graph (at "
                        "least the build's --wide-threat-nodes; default %(default)s)")
    verify.add_argument("--dfpn-nodes", type=int, default=None,
                        help="nodes of the df-pn tried where the threat search finds no win (0: "
                        "none; default: the most any build or sweep of the graph gave its "
                        "leaves)")
    verify.add_argument("--show", type=int, default=20, help="holes to print (default 20)")
    verify.add_argument("--max-holes", type=int, default=0,
                        help="stop after this many holes (0: find them all)")
    verify.add_argument("--repair", action="store_true",
                        help="make each reply found uncovered an open vertex below its parent, "
                        "and expand again the proved vertices above it, for build to prove")

    export = commands.add_parser("export", help="write the book the engine probes")
    add_graph(export)
    export.add_argument("--out", type=Path, help="default: opening_book/data/book-rule1-15x15"
                        ".bin (the book the brain loads)")
    export.add_argument("--all", action="store_true",
                        help="also the moves of vertices not yet proved")
    export.add_argument("--reproof-nodes", type=int, default=Reproof.proof_nodes,
                        help="leave out the proved positions a proof search of this many tree "
                        "nodes proves from scratch: the brain proves them again in the game "
                        "(0: store every one; default %(default)s)")
    export.add_argument("--threat-nodes", type=int, default=Reproof.threat_nodes,
                        help="nodes per threat search at a leaf of that proof search "
                        "(default %(default)s)")
    export.add_argument("--workers", type=int, default=2,
                        help="local Dask worker processes for the proof searches (0: here)")
    export.add_argument("--scheduler", help="address of a running Dask scheduler to use instead")

    stats = commands.add_parser("stats", help="how far the graph has got")
    add_graph(stats)
    stats.add_argument("--below", action="append", default=[], metavar="LINE",
                       help="also the replies not proved below this vertex (e.g. 'h8 g10': its "
                       "fourth stones not proved), with the vertices reached from each: the "
                       "lines to give attack or build --branch; may be given more than once")
    stats.add_argument("--widest", type=int, default=0, metavar="N",
                       help="also the N expanded vertices below each --below line (or below the "
                       "root) with the most replies open: the full-width levels the work is in")

    merge = commands.add_parser(
        "merge", help="join a graph built separately (a hard subtree) into this one",
        description="Attack a hard position separately (sente-book build --db sub.sqlite "
        "--root MOVES), then join it: its vertices new here or proved there are taken.")
    add_graph(merge)
    merge.add_argument("other", type=Path, help="the graph to take vertices from")

    play = commands.add_parser(
        "play", help="games that put the book to the test",
        description="From each proved reply to the root's move (its line, in a seeded "
        "symmetry), the engine with the book as the attacker plays the engine without it; "
        "exit 0 only if the attacker won every game.")
    add_graph(play)
    play.add_argument("--book", type=Path,
                      help="the book the attacker probes (default: the shipped one)")
    play.add_argument("--games-each", type=int, default=1,
                      help="games from each proved reply (default 1)")
    play.add_argument("--attacker-ms", type=int, default=1000,
                      help="the attacker's time a move (default 1000)")
    play.add_argument("--defender-ms", type=int, default=300,
                      help="the defender's time a move (default 300)")
    play.add_argument("--random", type=float, default=0.1,
                      help="share of the defender's moves played at random (default 0.1)")
    play.add_argument("--seed", type=int, default=0, help="of the symmetries and random moves")

    args = parser.parse_args(argv)
    try:
        Board(args.size, args.size, args.rule)
    except BoardError as error:
        parser.error(str(error))
    if args.command == "prove":
        if args.file:
            with open(args.file, encoding="utf-8") as source:
                refused = prove_lines(source, args.size, args.rule, args.budget, limits_of(args),
                                      sys.stdout)
        else:
            refused = prove_lines(sys.stdin, args.size, args.rule, args.budget,
                                  limits_of(args), sys.stdout)
        return 1 if refused else 0
    from opening_book import commands as run  # the database and Dask only for these

    db = args.db or default_graph(args.rule, args.size)
    if args.command == "build":
        return run.build(db, args, limits_of(args))
    if args.command == "attack":
        return run.attack(db, args, limits_of(args))
    if args.command == "sweep":
        return run.sweep(db, args, ProverLimits(threat_nodes=args.threat_nodes,
                                                dfpn_nodes=args.dfpn_nodes))
    if args.command == "replay":
        return run.replay(db, args, ProverLimits(threat_nodes=args.threat_nodes,
                                                 dfpn_nodes=args.dfpn_nodes))
    if args.command == "verify":
        return run.verify(db, args)
    if args.command == "export":
        return run.export(db, args, args.out or shipped_path(args.rule, args.size))
    if args.command == "merge":
        return run.merge(db, args.other)
    if args.command == "play":
        return run.play(db, args)
    return run.stats(db, args.below, args.widest)


if __name__ == "__main__":
    sys.exit(main())
