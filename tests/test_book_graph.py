"""The strategy graph end to end: built from a position, stored, exported, verified, probed by
the engine; a broken graph is rejected; Dask runs the same jobs."""

from __future__ import annotations

import dataclasses
import gc
import itertools
import random
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.core.board import Board, Point
from bot.core.score import MATE_BOUND
from bot.core.threats import vct
from bot.engine import BOOK_VCT_NODES, BOOK_VCT_THREATS, Engine
from bot.limits import Limits, Result
from opening_book import builder, cli
from opening_book.book import Book, Reproof, load_shipped
from opening_book.graph import LEGACY_LEAF_DFPN_NODES, Graph, Vertex, export, signed
from opening_book.keys import from_canonical, to_canonical
from opening_book.positions import position_board
from opening_book.prover import Node, Prover, ProverLimits, threat_search_state
from opening_book.verify import Verifier, verify
from tests.conftest import PURE_PYTHON
from tests.test_book_prover import DFPN_LEAF, DFPN_ONLY_REPLY, build_dfpn_leaf_graph

pytestmark = pytest.mark.skipif(PURE_PYTHON, reason="proofs need the compiled kernels")

# Black's four stones against White's corner: won within 17 stones, by a proof tree (not by the
# threat search alone) when the threat search gets 40 nodes per leaf (and no wider search).
ROOT = "h8 a1 i8 a2 j9 a3 h9 a4"
SETTINGS = builder.BuildSettings(rule=1, size=15, budget=17, wide_threat_nodes=0,
                                 limits=ProverLimits(max_nodes=20_000, threat_nodes=40))
VERIFY_NODES = 40  # as the build's: positions it could not close by threats must be vertices


def root_position_key() -> int:
    """The canonical key of ROOT's position."""
    return position_board(ROOT, 15, 1).canonical_key()[0]


def build_graph(path: Path, runner: builder.Runner | None = None) -> Graph:
    graph = Graph(path, SETTINGS.as_meta(ROOT) | {"rule": "1", "size": "15"})
    builder.build(graph, SETTINGS, ROOT, runner or builder.InProcess())
    return graph


@pytest.fixture(scope="module")
def graph_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("graph") / "graph.sqlite"
    build_graph(path).close()
    return path


def test_the_built_graph_is_proved_and_verified(graph_path: Path) -> None:
    graph = Graph(graph_path)
    counts = graph.counts()
    root = graph.vertex(root_position_key())
    assert root is not None and root.status == "proved" and root.longest is not None
    assert root.longest <= SETTINGS.budget
    assert counts["proved"] >= 6 and counts["open"] == 0  # the root and its hard replies
    verdict = verify(graph, threat_nodes=VERIFY_NODES)
    assert verdict.holes == [] and verdict.vertices >= 6 and verdict.checked > 1000
    assert verdict.longest <= SETTINGS.budget
    assert graph.core_seconds() > 0  # each job records what it cost
    graph.close()


def test_stats_names_the_proved_replies_to_the_roots_move(
        graph_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["stats", "--db", str(graph_path)]) == 0
    out = capsys.readouterr().out
    graph = Graph(graph_path)
    root = graph.vertex(root_position_key())
    assert root is not None
    replies = [graph.vertex(key) for key in graph.children(root.key)]
    proved = [v.moves for v in replies if v is not None and v.status == "proved"]
    graph.close()
    assert proved and len(proved) == len(replies)
    line = next(row for row in out.splitlines() if "replies to the root's move" in row)
    assert line.startswith(f"the defender's replies to the root's move: {len(proved)} of "
                           f"{len(replies)} proved")
    assert sorted(line.split(": ", 2)[2].split(", ")) == sorted(proved)


def test_a_missing_reply_is_a_hole(graph_path: Path, tmp_path: Path) -> None:
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(graph_path.read_bytes())
    db = sqlite3.connect(broken)
    root_key = signed(root_position_key())
    child = db.execute("SELECT child FROM reply WHERE parent = ? LIMIT 1", (root_key,)).fetchone()
    with db:
        db.execute("DELETE FROM vertex WHERE key = ?", child)
    db.close()
    verdict = verify(Graph(broken), threat_nodes=VERIFY_NODES)
    assert len(verdict.holes) >= 1
    assert "not in the graph" in verdict.holes[0]


def test_the_verifier_tries_the_dfpn_when_the_deepening_wins_beyond_the_budget(
        tmp_path: Path) -> None:
    """A false hole the verifier reported (session 64): after these 20 stones Black's win by
    fours and threes that the deepening finds (7 Black threats) runs to 37 stones, White's
    counter-fours adding plies, and the verifier stopped there; the df-pn proves one of 31,
    as the build's leaf had."""
    line = "h8 h11 f8 e8 f9 f7 g9 e9 e7 h10 d6 c5 i9 i8 f6 g7 g5 d8 h5 h9"
    graph = Graph(tmp_path / "g.sqlite", builder.BuildSettings(budget=35).as_meta(""))
    board = position_board(line, 15, 1)
    verifier = Verifier(graph, dfpn_nodes=5000)
    threats = (35 - board.ply - 1) // 2
    deepening = vct(board.state, verifier.search, 1, threats, verifier.threat_nodes, 0)[0]
    assert board.ply + deepening > 35  # the premise: the deepening's win is too long
    plies = verifier._threat_win(board, 1)
    assert 0 < plies and board.ply + plies <= 35


def test_a_hole_repaired_is_built_and_proved_again(graph_path: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(graph_path.read_bytes())
    graph = Graph(broken)
    root_key = root_position_key()
    with graph.db:  # the root's move now leaves a reply to nothing: neither vertex nor threat
        graph.db.execute("DELETE FROM vertex WHERE key = ?", (signed(graph.children(root_key)[0]),))
    graph.close()
    # (the build's threat searches: the df-pn, which the build does not run, wins that reply)
    arguments = ["verify", "--db", str(broken), "--threat-nodes", str(VERIFY_NODES),
                 "--dfpn-nodes", "0"]
    assert cli.main(arguments + ["--repair"]) == 1
    out = capsys.readouterr().out
    assert "repaired: 1 positions" in out and ", 1 proved vertices above" in out  # the root
    graph = Graph(broken)
    assert root_vertex(graph).status == "expanded" and graph.counts()["open"] == 1
    builder.build(graph, SETTINGS, ROOT, builder.InProcess())
    assert root_vertex(graph).status == "proved"
    graph.close()
    assert cli.main(arguments) == 0


def test_the_queries_for_proved_vertices_by_key_go_by_key(graph_path: Path,
                                                          tmp_path: Path) -> None:
    # (not through the status index: in a graph mostly proved, that reads every proved vertex)
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(graph_path.read_bytes())
    graph = Graph(copy)
    proved = graph.children(root_position_key())
    statements: list[str] = []
    graph.db.set_trace_callback(statements.append)
    assert {vertex.key for vertex in graph.proved_among([*proved, 12345])} == set(proved)
    with graph.db:  # a new reply below a proved reply: it and the root go back to expanded
        assert graph.reopen(proved[0], 12345, f"{ROOT} a5 o15 a6", 11) == 2
    graph.db.set_trace_callback(None)
    by_key = [sql for sql in statements if "'proved'" in sql and "key IN" in sql]
    assert len(by_key) == 2
    for sql in by_key:
        plan = " ".join(row[3] for row in graph.db.execute(f"EXPLAIN QUERY PLAN {sql}"))
        assert "vertex_status" not in plan, plan


def test_the_exported_book_is_found_in_any_symmetry_and_move_order(graph_path: Path,
                                                                   tmp_path: Path) -> None:
    book_path = tmp_path / "book.bin"
    count = export(Graph(graph_path), book_path)
    book = Book(book_path)
    assert len(book) == count >= 6
    board = position_board(ROOT, 15, 1)
    move = book.probe(board)
    assert move is not None and board.is_legal(*move, board.side_to_move())
    # the same stones mirrored left-right, in another order: the mirrored move comes back
    mirrored = Board(15, 15, 1)
    stones = [(14 - x, y, 1 + i % 2) for i, (x, y) in enumerate(board.moves())]
    mirrored.setup(list(reversed(stones[::2])) + stones[1::2])
    assert book.probe(mirrored) == (14 - move[0], move[1])
    assert book.probe(Board(15, 15, 0)) is None  # another rule: never the book's move


def export_with_reproofs(graph_path: Path, book_path: Path, proof_nodes: int
                        ) -> tuple[int, list[int]]:
    """Export the graph leaving out what a proof search of ``proof_nodes`` proves from scratch:
    (positions stored, how many vertices each call of the check was asked about)."""
    reproof = Reproof(proof_nodes, SETTINGS.limits.threat_nodes)
    settings = dataclasses.replace(SETTINGS, limits=reproof.limits())
    asked: list[int] = []

    def check(vertices: list[Vertex]) -> list[bool]:
        asked.append(len(vertices))
        return builder.InProcess().map(builder.reproves, [(v.moves, "") for v in vertices],
                                       settings)

    graph = Graph(graph_path)
    count = export(graph, book_path, reproof=reproof, reproved=check)
    graph.close()
    return count, asked


def test_the_book_leaves_out_what_a_small_proof_search_proves_and_proves_it_in_game(
        graph_path: Path, tmp_path: Path) -> None:
    graph_copy = tmp_path / "graph.sqlite"
    graph_copy.write_bytes(graph_path.read_bytes())
    everything = export(Graph(graph_copy), tmp_path / "full.bin")
    count, asked = export_with_reproofs(graph_copy, tmp_path / "book.bin", 1000)
    assert 1 <= count < everything and sum(asked) == everything - 1  # all but the root asked
    assert export_with_reproofs(graph_copy, tmp_path / "again.bin", 1000) == (count, [])
    assert export_with_reproofs(graph_copy, tmp_path / "other.bin", 100)[1] != []
    book = Book(tmp_path / "book.bin")
    assert book.probe(position_board(ROOT, 15, 1)) is not None  # the game enters it there
    graph = Graph(graph_copy)
    root_key = root_position_key()
    child = graph.vertex(graph.children(root_key)[0])  # after the root's move and a reply
    graph.close()
    assert child is not None and child.key not in set(book.keys)
    board = position_board(child.moves, 15, 1)
    assert book.probe(board, 0.0) is None  # left out, and no time to prove it again
    answer = book.probe(board, 10.0)
    assert answer is not None and board.is_legal(*answer, 1)
    assert Book(tmp_path / "book.bin").probe(board, 10.0) is None  # not reached by the book


@pytest.mark.parametrize("reproof_nodes", [0, 1000])
def test_the_engine_with_the_book_wins_every_game_against_a_random_opponent(
        graph_path: Path, tmp_path: Path, reproof_nodes: int) -> None:
    book_path = tmp_path / "book.bin"
    graph_copy = tmp_path / "graph.sqlite"
    graph_copy.write_bytes(graph_path.read_bytes())
    if reproof_nodes:
        export_with_reproofs(graph_copy, book_path, reproof_nodes)
    else:
        export(Graph(graph_copy), book_path)
    engine = Engine(book=Book(book_path))
    for seed in range(4):
        rng = random.Random(seed)
        engine.new_game(15, 15, 1)
        referee = position_board(ROOT, 15, 1)
        for x, y in referee.moves():
            engine.play(x, y)
        causes = []
        while True:
            result = engine.think(Limits(timeout_turn_ms=3000))
            causes.append(result.stopped_by)
            assert referee.is_legal(*result.move, 1)
            engine.play(*result.move)
            if referee.play(*result.move):
                break
            assert referee.ply < SETTINGS.budget, (seed, referee.moves())
            reply = rng.choice([p for p in referee.empty_points() if referee.is_legal(*p, 2)])
            assert not referee.play(*reply)
            engine.play(*reply)
        assert causes[0] == "book"
        if reproof_nodes:  # what the book leaves out is proved again, then its proof followed
            assert set(causes) == {"book"}, causes


def test_play_wins_every_game_from_the_proved_replies_with_the_book(
        graph_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``sente-book play``: from each proved reply to the root's move, the engine with the
    exported book beats the engine without it, every attacker move from the book or a proof."""
    graph_copy = tmp_path / "graph.sqlite"
    graph_copy.write_bytes(graph_path.read_bytes())
    book_path = tmp_path / "book.bin"
    export(Graph(graph_copy), book_path)
    replies = [v for v in (Graph(graph_copy).vertex(key) for key
                           in Graph(graph_copy).children(root_position_key()))
               if v is not None and v.status == "proved"]
    args = ["play", "--db", str(graph_copy), "--attacker-ms", "1000", "--defender-ms", "100",
            "--games-each", "2"]
    assert cli.main(args + ["--book", str(book_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2 * len(replies) + 1 and len(replies) >= 3
    assert out[-1].startswith(f"the attacker won {2 * len(replies)} of {2 * len(replies)} games")
    causes = {item.split()[0] for item in out[-1].split("its moves: ")[1].split(", ")}
    assert causes <= {"book", "proven"}, out[-1]
    assert all(line.split(": ", 1)[1].startswith("black wins") for line in out[:-1])


PROVED_SECOND_MOVES = ["h8 a15", "h8 b15", "h8 c15", "h8 d15", "h8 e15", "h8 f15", "h8 g15",
                      "h8 h15", "h8 b14", "h8 c14", "h8 d14", "h8 e14", "h8 f14", "h8 g14",
                      "h8 h14", "h8 c13", "h8 d13", "h8 e13", "h8 f13", "h8 g13", "h8 h13",
                      "h8 d12", "h8 e12", "h8 f12", "h8 g12", "h8 h12", "h8 e11",
                      "h8 f11", "h8 g11", "h8 h11", "h8 f10", "h8 g10"]  # so far


@pytest.mark.parametrize("line", PROVED_SECOND_MOVES)
def test_the_shipped_book_answers_the_proved_second_moves(line: str) -> None:
    book = load_shipped(1, 15)
    assert book is not None and book.budget == 35 and book.reproof.proof_nodes > 0
    board = position_board(line, 15, 1)
    move = book.probe(board)
    assert move is not None and board.is_legal(*move, 1)


def test_dask_runs_the_same_jobs(graph_path: Path, tmp_path: Path) -> None:
    runner = builder.DaskCluster(None, 2)
    try:
        graph = build_graph(tmp_path / "dask.sqlite", runner)
    finally:
        runner.close()
    assert graph.counts() == Graph(graph_path).counts()


def test_a_subtree_built_apart_is_merged_in(graph_path: Path, tmp_path: Path) -> None:
    main = Graph(tmp_path / "main.sqlite", SETTINGS.as_meta(ROOT))
    root = root_position_key()
    with main.db:
        main.add_open(root, ROOT, len(ROOT.split()))
    assert verify(main, threat_nodes=VERIFY_NODES).holes  # the root is open: a hole
    taken = main.merge(Graph(graph_path), root)
    assert taken == sum(Graph(graph_path).counts().values())
    assert main.counts() == Graph(graph_path).counts()
    assert verify(main, threat_nodes=VERIFY_NODES).holes == []
    assert main.merge(Graph(graph_path), root) == 0  # nothing new the second time


def test_a_merge_counts_the_computation_of_a_graph_built_from_another_root_once(
        tmp_path: Path) -> None:
    upper = " ".join(ROOT.split()[:-2])  # two moves above the subtree's root
    main = Graph(tmp_path / "main.sqlite", SETTINGS.as_meta(upper))
    sub = Graph(tmp_path / "sub.sqlite", SETTINGS.as_meta(ROOT))
    copy = Graph(tmp_path / "copy.sqlite", SETTINGS.as_meta(upper))
    with main.db, sub.db, copy.db:
        main.add_core_seconds(100.0)
        sub.add_core_seconds(30.0)
        copy.add_core_seconds(100.0)
    root = position_board(upper, 15, 1).canonical_key()[0]
    main.merge(sub, root)
    assert main.core_seconds() == pytest.approx(130.0)
    main.merge(sub, root)  # nothing new
    assert main.core_seconds() == pytest.approx(130.0)
    with sub.db:  # the subtree's build goes on: only what it spent since is added
        sub.add_core_seconds(12.0)
    main.merge(sub, root)
    assert main.core_seconds() == pytest.approx(142.0)
    main.merge(copy, root)  # a copy of this graph: its computation is this graph's own
    assert main.core_seconds() == pytest.approx(142.0)


def test_a_merged_older_copy_does_not_bring_back_what_the_build_gave_up(tmp_path: Path) -> None:
    root = root_position_key()
    child_moves = ROOT + " h7 h6"  # Black's move h7 below the root, and White's reply h6
    child = position_board(child_moves, 15, 1).canonical_key()[0]
    main_path, older_path = tmp_path / "main.sqlite", tmp_path / "older.sqlite"
    main = Graph(main_path, SETTINGS.as_meta(ROOT))
    with main.db:
        main.record(Vertex(root, ROOT, 8, "expanded", 111, None, 0, 1, 0),
                    [(child, child_moves, 10)])
    with sqlite3.connect(main_path) as source, sqlite3.connect(older_path) as target:
        source.backup(target)
    with main.db:  # the build gives the reply up: the root opens again without the move
        main.record(Vertex(child, child_moves, 10, "failed", None, None, 0, 1, 0), [])
        main.propagate(root)
    assert main.vertex(child) is None and main.counts()["open"] == 1
    assert main.merge(Graph(older_path), root) == 1  # the older copy's open child ...
    assert main.vertex(child) is None and main.counts()["open"] == 1  # ... is not kept
    reopened = main.vertex(root)
    assert reopened is not None and reopened.status == "open" and reopened.excluded == "111,"


def test_a_merge_takes_the_reproofs_of_an_export_run_on_a_copy(graph_path: Path,
                                                               tmp_path: Path) -> None:
    original, copy = tmp_path / "original.sqlite", tmp_path / "copy.sqlite"
    with sqlite3.connect(graph_path) as source, sqlite3.connect(original) as target:
        source.backup(target)
        target.execute("DELETE FROM reproof")  # no answers yet
    with sqlite3.connect(original) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    count, asked = export_with_reproofs(copy, tmp_path / "copy.bin", 1000)
    assert sum(asked) > 0
    root = root_position_key()
    assert Graph(original).merge(Graph(copy), root) == 0  # the same vertices: the answers
    assert export_with_reproofs(original, tmp_path / "original.bin", 1000) == (count, [])


def test_a_write_waits_for_a_reader_holding_the_file_longer_than_sqlites_default(
        tmp_path: Path) -> None:
    # (a build writes each job while `stats` or a script may read the graph: a read of more
    # than SQLite's default 5 s must not crash it)
    path = tmp_path / "graph.sqlite"
    graph = Graph(path, SETTINGS.as_meta(ROOT))
    reading = threading.Event()

    def read_for_a_while() -> None:
        reader = sqlite3.connect(path)
        reader.execute("BEGIN")
        reader.execute("SELECT COUNT(*) FROM vertex").fetchone()  # (holds the shared lock)
        reading.set()
        time.sleep(6.0)  # more than the default timeout
        reader.commit()
        reader.close()

    thread = threading.Thread(target=read_for_a_while)
    thread.start()
    reading.wait()
    with graph.db:
        graph.add_open(root_position_key(), ROOT, 8)
    thread.join()
    assert graph.vertex(root_position_key()) is not None


def test_moves_map_to_the_canonical_frame_and_back() -> None:
    for width, height, symmetries in ((15, 15, 8), (12, 17, 4)):
        board = Board(width, height, 1)
        for sym in range(symmetries):
            for x in range(width):
                for y in range(height):
                    assert from_canonical(board, sym, to_canonical(board, sym, x, y)) == (x, y)


def open_moves(graph: Graph, limit: int, branch_moves: int = 0, only: Sequence[str] = ()
               ) -> list[str]:
    """The first ``limit`` open vertices' move lists, branch after branch."""
    return [vertex.moves for line in graph.open_branches(branch_moves, only)
            for vertex in line][:limit]


def test_open_vertices_come_branch_by_branch_the_farthest_reply_first(tmp_path: Path) -> None:
    graph = Graph(tmp_path / "branches.sqlite")
    lines = ["h8 h9 g7 a1", "h8 h9 g7 a2 b3", "h8 h9 g7 a3 b1 b2", "h8 a15 i9 a1", "h8 i9 j10 a1",
             "h8 i9 j10 a1 k11 a2"]
    branches = {" ".join(moves.split()[:2]) for moves in lines}
    with graph.db:  # each branch's vertex expanded, its replies leading to the open ones
        for key, moves in enumerate(sorted(branches), start=100):
            graph.add_open(key, moves, 2)
            graph.db.execute("UPDATE vertex SET status = 'expanded' WHERE key = ?", (key,))
        for key, moves in enumerate(lines, start=1):
            graph.add_open(key, moves, len(moves.split()))
            graph.db.execute("INSERT INTO reply SELECT key, ? FROM vertex WHERE moves = ?",
                             (key, " ".join(moves.split()[:2])))
    assert [[v.moves for v in line] for line in graph.open_branches(2)] == [
        ["h8 a15 i9 a1"], ["h8 h9 g7 a3 b1 b2", "h8 h9 g7 a2 b3", "h8 h9 g7 a1"],
        ["h8 i9 j10 a1 k11 a2", "h8 i9 j10 a1"]]
    assert open_moves(graph, 2) == ["h8 h9 g7 a3 b1 b2", "h8 i9 j10 a1 k11 a2"]
    with graph.db:  # among as many stones, the vertex tried most often first
        graph.db.execute("UPDATE vertex SET attempts = 2 WHERE moves = 'h8 i9 j10 a1 k11 a2'")
    assert open_moves(graph, 2) == ["h8 i9 j10 a1 k11 a2", "h8 h9 g7 a3 b1 b2"]
    only = open_moves(graph, 10, branch_moves=2, only=["h8 h9"])  # one branch alone
    assert only == ["h8 h9 g7 a3 b1 b2", "h8 h9 g7 a2 b3", "h8 h9 g7 a1"]
    two = open_moves(graph, 10, branch_moves=2, only=["h8 i9", "h8 h9"])  # in this order
    assert two == ["h8 i9 j10 a1 k11 a2", "h8 i9 j10 a1", "h8 h9 g7 a3 b1 b2", "h8 h9 g7 a2 b3",
                   "h8 h9 g7 a1"]


def test_a_branch_asked_for_may_be_a_deeper_vertex_with_the_work_below_it(
        tmp_path: Path) -> None:
    """``only`` may name a vertex below a reply to the root's move: the open vertices below it
    come alone, not those beside it (the reply's other lines)."""
    graph = Graph(tmp_path / "deeper.sqlite")
    lines = ["h8 i9", "h8 i9 j10 a1", "h8 i9 j10 a2", "h8 i9 j10 a1 k11 a2", "h8 i9 j10 a1 k11 a3"]
    with graph.db:
        for key, moves in enumerate(lines, start=1):
            graph.add_open(key, moves, len(moves.split()))
        for parent, child in ((1, 2), (1, 3), (2, 4), (2, 5)):
            graph.db.execute("INSERT INTO reply VALUES (?, ?)", (parent, child))
        graph.db.execute("UPDATE vertex SET status = 'expanded' WHERE key IN (1, 2)")
    assert open_moves(graph, 10, branch_moves=2) == lines[3:] + [lines[2]]
    assert open_moves(graph, 10, branch_moves=2, only=[lines[1]]) == lines[3:]
    in_order = open_moves(graph, 10, branch_moves=2, only=[lines[2], lines[1]])
    assert in_order == [lines[2]] + lines[3:]
    assert open_moves(graph, 10, branch_moves=2, only=["h8 i9 j10 a3"]) == []  # no vertex


def test_an_open_vertex_shared_by_two_branches_comes_with_the_first_of_them(
        tmp_path: Path) -> None:
    graph = Graph(tmp_path / "shared.sqlite")
    with graph.db:
        graph.add_open(1, "h8 c15", 2)  # White's reply farthest from h8: built first
        graph.add_open(2, "h8 c14", 2)
        graph.add_open(3, "h8 c14 i9 a1", 4)
        graph.add_open(9, "h8 c14 i9 c15", 4)  # also h8 c15 i9 c14, reached first as this
        for parent, child in ((2, 3), (2, 9), (1, 9)):
            graph.db.execute("INSERT INTO reply VALUES (?, ?)", (parent, child))
        graph.db.execute("UPDATE vertex SET status = 'expanded' WHERE stones = 2")

    def keys(only: list[str]) -> list[list[int]]:
        return [[vertex.key for vertex in line] for line in graph.open_branches(2, only)]

    assert keys([]) == [[9], [3]]
    assert keys(["h8 c14"]) == [[3, 9]]  # one branch: as many stones, the lower key first
    assert keys(["h8 c15"]) == [[9]]
    assert keys(["h8 c15", "h8 c14"]) == [[9], [3]]


def test_the_jobs_run_at_once_take_the_deepest_vertices_and_some_the_shallowest() -> None:
    def vertex(key: int, stones: int) -> Vertex:
        return Vertex(key, f"line {key}", stones, "open", None, None, 0, 0, 0)

    deep, middle, shallow, other = vertex(1, 20), vertex(2, 12), vertex(3, 4), vertex(4, 30)
    branches = [[deep, middle, shallow], [other]]  # as Graph.open_branches gives them
    keys = [(v.key, from_shallow) for v, from_shallow in builder.pick(branches, [], 2, 0)]
    assert keys == [(1, False), (2, False)]  # depth first, one branch before the next
    keys = [(v.key, from_shallow) for v, from_shallow in builder.pick(branches, [], 2, 1)]
    assert keys == [(3, True), (1, False)]
    # a slot freed: the one from the shallow end still runs, so the next deepest that is not
    # running; then the branch's last vertex runs, and the next branch comes
    assert builder.pick(branches, [(shallow, True), (deep, False)], 1, 1) == [(middle, False)]
    assert builder.pick(branches, [(middle, False), (deep, False)], 1, 1) == [(shallow, True)]
    running = [(deep, False), (middle, False), (shallow, True)]
    assert builder.pick(branches, running, 3, 1) == [(other, False)]
    assert builder.pick(branches, running, 0, 1) == []

    def first_branch_only() -> Iterator[list[Vertex]]:  # the next branch is read only if needed
        yield branches[0]
        raise AssertionError("a branch read that no free slot needed")

    assert builder.pick(first_branch_only(), [], 3, 1) == [(shallow, True), (deep, False),
                                                           (middle, False)]


@pytest.mark.parametrize("workers", [0, 2])
def test_a_stream_keeps_every_slot_busy_and_takes_every_result(workers: int) -> None:
    jobs = [(ROOT, ""), (ROOT, "0,14,"), (ROOT, "0,"), (ROOT, "14,")]
    runner = builder.DaskCluster(None, workers) if workers else builder.InProcess()
    asked: list[int] = []
    taken: dict[str, builder.Work] = {}

    def feed(free: int) -> list[tuple[str, str]]:
        asked.append(free)
        given = jobs[:free]
        del jobs[:free]
        return given

    def take(arguments: tuple[str, str], work: builder.Work) -> None:
        taken[arguments[1]] = work

    try:
        runner.stream(builder.work_on, SMALL_JOBS, feed, take)
    finally:
        runner.close()
    # all the slots, then one slot each time a job ends (and when none is left, two for two)
    assert runner.slots == max(1, workers)
    assert asked == ([2, 1, 1, 1, 2] if workers else [1, 1, 1, 1, 1])
    assert sorted(taken) == ["", "0,", "0,14,", "14,"]
    for excluded, work in taken.items():  # each job's own result
        assert work.records == builder.work_on(ROOT, excluded, SMALL_JOBS).records


def test_a_job_written_after_a_transposition_proved_its_vertex_keeps_the_proof(
        tmp_path: Path) -> None:
    graph = Graph(tmp_path / "stale.sqlite", SMALL_JOBS.as_meta(ROOT))
    key = root_position_key()
    proved = Vertex(key, ROOT, 8, "proved", 3, 15, 15, 1, 10)
    expanded = Vertex(key, ROOT, 8, "expanded", 5, None, 0, 1, 10)
    with graph.db:
        graph.record(proved, [])
        graph.record(expanded, [(7, ROOT + " a5", 9)])
    assert root_vertex(graph) == proved and graph.children(key) == []
    with graph.db:  # the other way round, the proof is taken
        graph.db.execute("DELETE FROM vertex")
        graph.record(expanded, [(7, ROOT + " a5", 9)])
        graph.record(proved, [])
    assert root_vertex(graph) == proved and graph.children(key) == []


# The same root with a prover too small to prove it in one job, and no engine search (its timed
# choice would make the jobs depend on the clock).
WIDE_NODES = 5000  # the wide threat search of a test build: it closes most replies of ROOT
SMALL_JOBS = dataclasses.replace(SETTINGS, engine_ms=0, quick_nodes=0,
                                 limits=ProverLimits(max_nodes=300, threat_nodes=40))


def root_vertex(graph: Graph) -> Vertex:
    vertex = graph.vertex(root_position_key())
    assert vertex is not None
    return vertex


def test_the_quick_proof_closes_the_replies_a_job_leaves_open(tmp_path: Path) -> None:
    without = Graph(tmp_path / "without.sqlite", SMALL_JOBS.as_meta(ROOT))
    builder.build(without, SMALL_JOBS, ROOT, builder.InProcess(), max_jobs=1)
    assert root_vertex(without).status == "expanded" and without.counts()["open"] >= 3
    quick = dataclasses.replace(SMALL_JOBS, quick_nodes=2000)
    graph = Graph(tmp_path / "quick.sqlite", quick.as_meta(ROOT))
    builder.build(graph, quick, ROOT, builder.InProcess(), max_jobs=1)
    assert root_vertex(graph).status == "proved" and graph.counts()["open"] == 0
    assert verify(graph, threat_nodes=VERIFY_NODES).holes == []


def test_a_wide_threat_search_closes_the_replies_that_leave_the_attackers_threats_standing(
        tmp_path: Path) -> None:
    narrow = Graph(tmp_path / "narrow.sqlite", SMALL_JOBS.as_meta(ROOT))
    builder.build(narrow, SMALL_JOBS, ROOT, builder.InProcess(), max_jobs=1)
    opened = narrow.counts()["open"]
    assert opened >= 3
    wide = dataclasses.replace(SMALL_JOBS, wide_threat_nodes=WIDE_NODES)
    graph = Graph(tmp_path / "wide.sqlite", wide.as_meta(ROOT))
    builder.build(graph, wide, ROOT, builder.InProcess(), max_jobs=1)
    vertex = root_vertex(graph)
    assert vertex.move == root_vertex(narrow).move and vertex.threat_longest > 0
    assert vertex.status == "proved"  # here every reply is won by threats or the prover
    assert graph.counts()["open"] < opened
    # the replies it closed are won by the verifier's threat searches when they are as wide
    narrow_holes = verify(graph, threat_nodes=VERIFY_NODES).holes
    assert any("not in the graph" in hole for hole in narrow_holes)
    holes = verify(graph, threat_nodes=WIDE_NODES).holes
    assert len(holes) == graph.counts()["open"]
    assert all("open in the graph" in hole for hole in holes)


def test_a_sweep_proves_the_open_vertices_left_by_jobs_without_the_quick_proof(
        tmp_path: Path) -> None:
    graph = Graph(tmp_path / "sweep.sqlite", SMALL_JOBS.as_meta(ROOT))
    builder.build(graph, SMALL_JOBS, ROOT, builder.InProcess(), max_jobs=1)
    opened = graph.counts()["open"]
    assert opened >= 3 and verify(graph, threat_nodes=VERIFY_NODES).holes
    small = dataclasses.replace(SMALL_JOBS, quick_nodes=1)  # too small to prove them all
    assert 0 < builder.sweep(graph, small, ROOT, builder.InProcess())["open"] <= opened
    assert graph.unseen_open_vertices(10) == []  # each looked at once ...
    left = graph.counts()["open"]
    larger = dataclasses.replace(SMALL_JOBS, quick_nodes=2000)
    # ... so a sweep after the build's next jobs looks only at their replies ...
    assert builder.sweep(graph, larger, ROOT, builder.InProcess())["open"] == left
    # ... unless it is asked to look at every open vertex again
    counts = builder.sweep(graph, larger, ROOT, builder.InProcess(), again=True)
    assert counts["open"] == 0 and root_vertex(graph).status == "proved"
    assert verify(graph, threat_nodes=VERIFY_NODES).holes == []


def test_the_graph_keeps_the_most_dfpn_nodes_its_leaves_were_closed_with(
        tmp_path: Path) -> None:
    """A new graph starts at 0; each build or sweep raises the figure to its leaves' df-pn
    nodes, never lowers it; a merge takes the larger; a graph from before the figure was kept
    counts LEGACY_LEAF_DFPN_NODES; the verifier gives its df-pn the graph's figure."""
    def with_dfpn(nodes: int) -> builder.BuildSettings:
        return dataclasses.replace(SMALL_JOBS, limits=dataclasses.replace(
            SMALL_JOBS.limits, dfpn_nodes=nodes))

    graph = Graph(tmp_path / "main.sqlite", SMALL_JOBS.as_meta(ROOT))
    assert graph.leaf_dfpn_nodes() == 0
    builder.build(graph, with_dfpn(300), ROOT, builder.InProcess(), max_jobs=1)
    assert graph.leaf_dfpn_nodes() == 300
    builder.sweep(graph, with_dfpn(7000), ROOT, builder.InProcess())
    builder.build(graph, with_dfpn(300), ROOT, builder.InProcess(), max_jobs=1)
    assert graph.leaf_dfpn_nodes() == 7000
    assert Verifier(graph, VERIFY_NODES).dfpn_nodes == 7000
    assert Verifier(graph, VERIFY_NODES, dfpn_nodes=0).dfpn_nodes == 0
    other = Graph(tmp_path / "other.sqlite", SMALL_JOBS.as_meta(ROOT))
    builder.build(other, with_dfpn(9000), ROOT, builder.InProcess(), max_jobs=1)
    graph.merge(other, root_position_key())
    assert graph.leaf_dfpn_nodes() == 9000
    with graph.db:
        graph.db.execute("DELETE FROM meta WHERE name = 'leaf_dfpn_nodes'")
    assert graph.leaf_dfpn_nodes() == LEGACY_LEAF_DFPN_NODES
    graph.close()
    other.close()


def test_a_move_the_quick_proof_refutes_is_given_up_within_the_job() -> None:
    # White has four stones in a row: Black's only move blocks it; within 15 stones it loses
    tight = dataclasses.replace(SMALL_JOBS, budget=15)
    expanded = builder.work_on(ROOT, "", tight).records[-1][0]
    assert expanded.status == "expanded" and expanded.excluded == ""  # its replies left open
    vertex = builder.work_on(ROOT, "", dataclasses.replace(tight, quick_nodes=20_000)
                             ).records[-1][0]
    assert vertex.status == "failed" and vertex.excluded == f"{expanded.move},"


@pytest.mark.parametrize("others_open, engine_kept", [(31, True), (30, False)])
def test_another_move_replaces_the_engines_only_when_it_leaves_clearly_fewer_replies_open(
        monkeypatch: pytest.MonkeyPatch, others_open: int, engine_kept: bool) -> None:
    # the engine's move (here the prover's second) leaves 40 replies open, the others fewer
    line, settings = "h8 a1 i9 o15", dataclasses.replace(SMALL_JOBS, budget=35, engine_ms=1)
    board = position_board(line, 15, 1)
    root = Prover(board, settings.limits).prove_tree(settings.budget)
    engine = sorted(root.children or [], key=lambda c: c.pn)[1].cell
    assert others_open < 40 and (others_open <= 40 * builder.OTHER_MOVE_SHARE) != engine_kept
    monkeypatch.setattr(builder, "_engine_move", lambda board, settings: (engine, False))
    expanded: list[int] = []

    def replies(job: builder._Job, node: Node, most: int | None = None) -> builder.Replies:
        expanded.append(node.cell)
        return builder.Replies(unproved=40 if node.cell == engine else others_open)

    monkeypatch.setattr(builder._Job, "replies", replies)
    vertex = builder.work_on(line, "", settings).records[-1][0]
    _, sym = board.canonical_key()
    chosen = board.cell(*from_canonical(board, sym, int(vertex.move or 0)))
    assert vertex.status == "expanded" and (chosen == engine) == engine_kept
    assert expanded[0] == engine and len(set(expanded)) == len(expanded)  # each move once


def test_a_job_whose_engine_move_closes_every_reply_runs_no_proof_search(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # the engine's move is expanded first; when nothing is left open it is the vertex's move,
    # proved once the graph has its children, and the prover's search is never started
    line, settings = "h8 a1 i9 o15", dataclasses.replace(SMALL_JOBS, budget=35, engine_ms=1)
    board = position_board(line, 15, 1)
    engine = board.cell(9, 9)
    child = (12345, line + " j10 a15", 6)
    monkeypatch.setattr(builder, "_engine_move", lambda board, settings: (engine, False))
    monkeypatch.setattr(builder._Job, "replies", lambda job, node, most=None: builder.Replies(
        threat_longest=13, children=[child]))
    monkeypatch.setattr(Prover, "prove_tree", lambda prover, budget: pytest.fail("searched"))
    records = builder.work_on(line, "", settings).records
    _, sym = board.canonical_key()
    vertex, children = records[-1]
    assert len(records) == 1 and (vertex.status, vertex.threat_longest) == ("expanded", 13)
    assert vertex.move == to_canonical(board, sym, 9, 9) and children == [child]
    # an excluded engine move is not expanded again: the search runs
    with pytest.raises(pytest.fail.Exception, match="searched"):
        builder.work_on(line, f"{vertex.move},", settings)


def test_the_engine_scores_a_lost_vertex_at_or_below_the_lost_score(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # White has an open four (d4-g4) and Black, to move, no four: every Black move loses
    engine = Engine()
    engine.new_game(15, 15, 1)
    engine.setup([(7, 7, 1), (3, 3, 2), (0, 0, 1), (4, 3, 2), (0, 2, 1), (5, 3, 2), (0, 4, 1),
                  (6, 3, 2)])
    score = engine.think(Limits(timeout_turn_ms=600_000, max_depth=4)).score
    assert score < -MATE_BOUND
    # _engine_move compares the engine's score with the setting's, at or below is lost
    board = position_board("h8 d4 a1 e4 a3 f4 a5 g4", 15, 1)
    result = Result((7, 3), score, 4, 1, 1.0, "depth")
    monkeypatch.setattr(Engine, "think", lambda engine, limits, on_info=None: result)
    settings = dataclasses.replace(SMALL_JOBS, budget=35, engine_ms=1)
    for lost_score, lost in ((score, True), (score - 1, False), (None, False)):
        moved = builder._engine_move(board, dataclasses.replace(settings, lost_score=lost_score))
        assert moved == (board.cell(7, 3), lost)
    # a search stopped before its first iteration ended scores 0, which is no verdict
    result = Result((7, 3), 0, 0, 1, 1.0, "time")
    settings = dataclasses.replace(settings, lost_score=0)
    assert builder._engine_move(board, settings) == (board.cell(7, 3), False)


@pytest.mark.parametrize("score, won_moves_left, lost", [
    (457, 13, True),  # 8 stones of a 35 budget: 13 Black moves left, within the limit
    (MATE_BOUND - 1, 13, True),
    (MATE_BOUND, 13, False),  # the engine sees a win
    (457, 12, False),  # beyond the limit: the lost score (0) alone
    (-5, 12, True),
    (457, 0, False),  # nowhere
])
def test_near_the_budget_a_vertex_the_engine_sees_no_win_in_counts_as_lost(
        monkeypatch: pytest.MonkeyPatch, score: int, won_moves_left: int, lost: bool) -> None:
    board = position_board("h8 d4 a1 e4 a3 f4 a5 g4", 15, 1)
    result = Result((7, 3), score, 4, 1, 1.0, "depth")
    monkeypatch.setattr(Engine, "think", lambda engine, limits, on_info=None: result)
    settings = dataclasses.replace(SMALL_JOBS, budget=35, engine_ms=1, lost_score=0,
                                   won_moves_left=won_moves_left)
    assert builder._engine_move(board, settings) == (board.cell(7, 3), lost)
    # no lost check at all: neither
    settings = dataclasses.replace(settings, lost_score=None)
    assert builder._engine_move(board, settings) == (board.cell(7, 3), False)


def test_a_fresh_processs_first_engine_search_gives_no_verdict(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker's first search also loads the kernels within its time (a cold JIT run reached
    depth 3, no mate seen): it is thrown away, and the verdict comes from the next one."""
    board = position_board("h8 d4 a1 e4 a3 f4 a5 g4", 15, 1)
    results = iter([Result((0, 0), 756, 3, 1, 1.0, "time"),
                    Result((7, 3), MATE_BOUND, 60, 1, 1.0, "depth")])
    monkeypatch.setattr(Engine, "think", lambda engine, limits, on_info=None: next(results))
    monkeypatch.setattr(builder, "_ENGINES", {})
    settings = dataclasses.replace(SMALL_JOBS, budget=35, engine_ms=1, lost_score=0,
                                   won_moves_left=13)
    assert builder._engine_move(board, settings) == (board.cell(7, 3), False)
    # the process's engine is kept: its next search is the verdict at once
    results = iter([Result((0, 0), 756, 3, 1, 1.0, "time")])
    assert builder._engine_move(board, settings) == (board.cell(0, 0), True)


@pytest.mark.parametrize("lost", [True, False])
def test_a_job_fails_a_vertex_the_engine_scores_as_lost_without_the_prover(
        monkeypatch: pytest.MonkeyPatch, lost: bool) -> None:
    line = "h8 d4 a1 e4 a3 f4 a5 g4"
    settings = dataclasses.replace(SMALL_JOBS, budget=35, engine_ms=1)
    monkeypatch.setattr(builder, "_engine_move",
                        lambda board, settings: (board.cell(2, 3), lost))
    monkeypatch.setattr(Prover, "prove_tree", lambda prover, budget: pytest.fail("searched"))
    for job in (builder.work_on, builder.quick_look):  # a build's job, then a sweep's
        if lost:
            vertex, children = job(line, "", settings).records[-1]
            assert (vertex.status, vertex.move, children) == ("failed", None, [])
        else:
            with pytest.raises(pytest.fail.Exception, match="searched"):
                job(line, "", settings)
    # a sweep's job asks the engine only when given its search
    with pytest.raises(pytest.fail.Exception, match="searched"):
        builder.quick_look(line, "", dataclasses.replace(settings, engine_ms=0))


def test_a_move_that_leaves_a_reply_the_engine_scores_as_lost_is_given_up(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Black's four k8 (g8 is White's) has one reply, the block l8, which gives White the open
    # four l5-l8: Black lost, so k8 is refuted within the job, as by a quick proof's refutation
    line = "h8 g8 i8 l5 j8 l6 a1 l7"
    board = position_board(line, 15, 1)
    asked: list[Point] = []

    def engine_move(board: Board, settings: builder.BuildSettings) -> tuple[int, bool]:
        asked.append(board.moves()[-1])
        return 0, settings.lost_score is not None and board.moves()[-1] == (11, 7)

    monkeypatch.setattr(builder, "_engine_move", engine_move)
    settings = dataclasses.replace(SMALL_JOBS, budget=35, engine_ms=1)

    def refuted(settings: builder.BuildSettings, x: int, y: int) -> bool:
        job = builder._Job(board, settings)
        job.prover.set_goal(settings.budget)
        return job.replies(Node(board.cell(x, y), False)).refuted

    assert refuted(settings, 10, 7) and asked == [(11, 7)]
    assert not refuted(dataclasses.replace(settings, lost_score=None), 10, 7)
    # a far move leaves every reply open: too many for the check, the engine is not asked
    asked.clear()
    assert not refuted(settings, 14, 14) and asked == []


@pytest.mark.parametrize("left_by_threats, quick_proofs, unproved", [
    (4, 3, 3),  # within the cap, int(3 * 1.5): tried until more than 2 are open
    (5, 0, 5),  # beyond it: no quick proof, the move comes back with those open
])
def test_the_quick_proofs_are_not_tried_when_the_threat_searches_leave_too_many_replies_open(
        monkeypatch: pytest.MonkeyPatch, left_by_threats: int, quick_proofs: int,
        unproved: int) -> None:
    board = position_board("h8 a1 i9 o15", 15, 1)
    settings = dataclasses.replace(SMALL_JOBS, budget=35, quick_nodes=1000,
                                   wide_threat_nodes=100)
    job = builder._Job(board, settings)
    job.prover.set_goal(settings.budget)
    searched: list[int] = []

    def threat_win(nodes: int, passed: bool = False) -> int:
        """A win after a pass, and after each reply but the first ``left_by_threats``."""
        if not passed:
            searched.append(board.ply)
        return 9 if passed or len(searched) > left_by_threats else 0

    tried: list[int] = []

    def quick_proof(budget: int) -> Node:
        tried.append(board.ply)
        return Node(0, True)  # neither proved nor refuted

    monkeypatch.setattr(job.prover, "threat_win", threat_win)
    assert job.quick is not None
    monkeypatch.setattr(job.quick, "prove_tree", quick_proof)
    found = job.replies(Node(board.cell(7, 0), False), 2)  # a quiet move on an edge
    assert (len(tried), found.unproved, found.refuted) == (quick_proofs, unproved, False)
    assert set(tried) <= {6} and board.ply == 4  # each on a reply; the board as it was
    if quick_proofs:  # every reply searched, those won by threats closed
        assert len(searched) == 15 * 15 - 5 and len(found.children) == quick_proofs


@pytest.mark.parametrize("open_left, moves_left, status", [
    ((25, 25, 25), 15, "failed"),  # every move floods: each excluded, the vertex given up
    ((25, 20, 25), 15, "expanded"),  # the one at the limit is taken, the others excluded
    ((25, 25, 25), 14, "expanded"),  # too far from the budget for the limit
])
def test_near_the_budget_a_move_that_leaves_too_many_replies_open_is_excluded(
        monkeypatch: pytest.MonkeyPatch, open_left: tuple[int, int, int], moves_left: int,
        status: str) -> None:
    line = "h8 a1 i9 o15"  # 4 stones: 15 moves left within 35
    settings = dataclasses.replace(SMALL_JOBS, budget=35, flood_replies=20,
                                   flood_moves_left=moves_left)
    board = position_board(line, 15, 1)
    root = Prover(board, settings.limits).prove_tree(settings.budget)
    tried = [child.cell for child in sorted(root.children or [], key=lambda c: c.pn)[:3]]
    monkeypatch.setattr(builder._Job, "replies", lambda job, node, most=None: builder.Replies(
        unproved=open_left[tried.index(node.cell)]))
    vertex = builder.work_on(line, "", settings).records[-1][0]
    _, sym = board.canonical_key()
    flooded = [f"{to_canonical(board, sym, *board.point(cell))}," for cell, left
               in zip(tried, open_left) if left > 20]
    assert vertex.status == status
    if moves_left == 15:
        assert vertex.excluded == "".join(flooded)
        assert vertex.move is None or board.cell(*from_canonical(board, sym, vertex.move)) \
            == tried[open_left.index(20)]
    else:
        assert vertex.excluded == "" and vertex.move is not None


def test_a_vertex_expanded_with_too_many_replies_open_is_opened_again_without_its_move(
        tmp_path: Path) -> None:
    root = root_position_key()
    replies = [ROOT + f" h7 {cell}" for cell in ("a15", "b15", "c15")]  # White's replies to h7
    children = [(position_board(moves, 15, 1).canonical_key()[0], moves, 10) for moves in replies]
    graph = Graph(tmp_path / "floods.sqlite", SETTINGS.as_meta(ROOT))
    with graph.db:
        graph.record(Vertex(root, ROOT, 8, "expanded", 111, None, 0, 1, 0), children)
        graph.record(Vertex(children[0][0], replies[0], 10, "proved", 5, 11, 11, 1, 0), [])
    with graph.db:  # two replies open: within a limit of 2, and too many for 1 ...
        assert graph.give_up_floods(8, 2, root) == 0
        assert graph.give_up_floods(10, 1, root) == 0  # ... but only from 10 stones on
        assert root_vertex(graph).status == "expanded"
        assert graph.give_up_floods(8, 1, root) == 1
    reopened = graph.vertex(root)
    assert reopened is not None and (reopened.status, reopened.excluded) == ("open", "111,")
    assert [graph.vertex(key) is not None for key, _, _ in children] == [True, False, False]


def test_the_counts_reached_from_a_vertex_leave_out_the_proved_vertices_no_move_reaches(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = root_position_key()
    replies = [ROOT + f" h7 {cell}" for cell in ("a15", "b15", "c15")]
    keys = [position_board(moves, 15, 1).canonical_key()[0] for moves in replies]
    graph = Graph(tmp_path / "reached.sqlite", SETTINGS.as_meta(ROOT))
    with graph.db:  # the root's move reaches the first two; the third, proved, is left over
        graph.record(Vertex(root, ROOT, 8, "expanded", 111, None, 0, 1, 0),
                     [(key, moves, 10) for key, moves in zip(keys[:2], replies)])
        graph.record(Vertex(keys[0], replies[0], 10, "proved", 5, 11, 11, 1, 0), [])
        graph.record(Vertex(keys[2], replies[2], 10, "proved", 5, 11, 11, 1, 0), [])
    assert graph.counts() == {"open": 1, "expanded": 1, "proved": 2, "failed": 0}
    assert graph.reached_counts(root) == {"open": 1, "expanded": 1, "proved": 1, "failed": 0}
    assert graph.reached_counts(keys[0]) == {"open": 0, "expanded": 0, "proved": 1, "failed": 0}
    graph.close()
    assert cli.main(["stats", "--db", str(tmp_path / "reached.sqlite")]) == 0
    out = capsys.readouterr().out.splitlines()
    listed = out.index("the replies not proved, with the vertices reached from each:")
    assert out[listed + 1:listed + 2] == [f"  {replies[1]}: 0 proved, 0 expanded, 1 open, 0 failed"]
    # the same below any vertex asked for (here the root, reached in a mirror image)
    mirrored = " ".join(f"{chr(ord('o') - (ord(move[0]) - ord('a')))}{move[1:]}"
                        for move in ROOT.split())
    assert cli.main(["stats", "--db", str(tmp_path / "reached.sqlite"), "--below", mirrored]) == 0
    out = capsys.readouterr().out.splitlines()
    listed = out.index(f"below {mirrored} (expanded): 1 of 2 replies not proved, with the "
                       "vertices reached from each:")
    assert out[listed + 1:] == [f"  {replies[1]}: 0 proved, 0 expanded, 1 open, 0 failed"] \
        + out[-2:]  # (then the longest line and the computation)
    with pytest.raises(SystemExit, match="is no vertex of the graph$"):
        cli.main(["stats", "--db", str(tmp_path / "reached.sqlite"), "--below", "h8 a1"])
    with pytest.raises(SystemExit,
                       match=r"no vertex of the graph \(it leaves the defender to move"):
        cli.main(["stats", "--db", str(tmp_path / "reached.sqlite"), "--below", ROOT + " o15"])


def test_a_flood_reached_from_a_branch_by_transposition_is_probed_in_that_branch(
        tmp_path: Path) -> None:
    # The branch's move leads to a vertex the graph spells in another order (it was reached
    # first from elsewhere), and below it Black's quiet move left every reply open: a flood.
    # (The keys need not be canonical here: only the replies and the lines are read.)
    branch_line = ROOT + " a5 o1"
    flood_line = "h8 a1 i8 a2 j9 a3 h9 a4 a6 o1 a5 o2"  # not spelt from the branch's line
    replies = [flood_line + f" c7 {cell}" for cell in ("d7", "c6", "o15")]
    graph = Graph(tmp_path / "floods.sqlite", SETTINGS.as_meta(ROOT))
    with graph.db:
        graph.record(Vertex(1, branch_line, 10, "expanded", 5, None, 0, 1, 0),
                     [(2, flood_line, 12)])
        graph.record(Vertex(2, flood_line, 12, "expanded", 6, None, 0, 1, 0),
                     [(3 + index, line, 14) for index, line in enumerate(replies)])
    probing = dataclasses.replace(SETTINGS, flood_probe_replies=3)
    assert graph.reached_from([branch_line]) == {1, 2, 3, 4, 5}
    assert builder.flood_probes(graph, probing) == [replies[2]]  # the farthest reply
    assert builder.flood_probes(graph, probing, [branch_line]) == [replies[2]]
    assert builder.flood_probes(graph, probing, [replies[0]]) == []  # reached from elsewhere


def test_stats_lists_the_expanded_vertices_with_the_most_replies_open(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = root_position_key()
    replies = [ROOT + f" h7 {cell}" for cell in ("a15", "b15", "c15")]
    keys = [position_board(moves, 15, 1).canonical_key()[0] for moves in replies]
    deeper = [replies[1] + f" g7 {cell}" for cell in ("o1", "o2", "o3", "o4")]
    deeper_keys = [position_board(moves, 15, 1).canonical_key()[0] for moves in deeper]
    graph = Graph(tmp_path / "widest.sqlite", SETTINGS.as_meta(ROOT))
    with graph.db:  # the root: one reply proved, one expanded, one open; below the expanded
        graph.record(Vertex(root, ROOT, 8, "expanded", 111, None, 0, 1, 0),  # one, 3 of 4 open
                     [(key, moves, 10) for key, moves in zip(keys, replies)])
        graph.record(Vertex(keys[0], replies[0], 10, "proved", 5, 11, 11, 1, 0), [])
        graph.record(Vertex(keys[1], replies[1], 10, "expanded", 5, None, 0, 1, 0),
                     [(key, moves, 12) for key, moves in zip(deeper_keys, deeper)])
        graph.record(Vertex(deeper_keys[0], deeper[0], 12, "proved", 6, 13, 13, 1, 0), [])
    widest = graph.widest_below(root, 5)
    assert [(vertex.moves, counts) for vertex, counts in widest] == [
        (replies[1], {"open": 3, "expanded": 0, "proved": 1, "failed": 0}),
        (ROOT, {"open": 1, "expanded": 1, "proved": 1, "failed": 0})]
    assert [vertex.moves for vertex, _ in graph.widest_below(root, 1)] == [replies[1]]
    assert graph.widest_below(keys[0], 5) == []  # a proved vertex: no level left below it
    graph.close()
    assert cli.main(["stats", "--db", str(tmp_path / "widest.sqlite"), "--widest", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    listed = out.index(f"the widest levels below {ROOT}: replies open / expanded / proved / all,"
                       " stones, the vertex")
    assert out[listed + 1] == f"  3 / 0 / 1 / 4, 10: {replies[1]}"


def vertex_move(settings: builder.BuildSettings) -> int:
    """The canonical cell of the move a job chooses at ROOT (its only one: a block)."""
    record = builder.work_on(ROOT, "", settings).records[-1][0]
    assert record.move is not None
    return record.move


def test_a_vertex_whose_only_move_failed_fails_instead_of_playing_it_again() -> None:
    tight = dataclasses.replace(SMALL_JOBS, budget=15)
    block = vertex_move(tight)
    vertex = builder.work_on(ROOT, f"{block},", tight).records[-1][0]
    assert vertex.status == "failed" and vertex.move is None


def test_a_vertex_with_enough_moves_excluded_fails_by_its_distance_to_the_budget() -> None:
    # two corner cells excluded (never Black's move here): below the limit the job goes on
    excluded = "0,14,"
    for give_up_after, status in ((3, "expanded"), (2, "failed")):
        settings = dataclasses.replace(SMALL_JOBS, give_up_after=give_up_after)
        vertex = builder.work_on(ROOT, excluded, settings).records[-1][0]
        assert (vertex.status, vertex.excluded) == (status, excluded)
    # far from the budget the limit does not apply, but the far one does
    far = dataclasses.replace(SMALL_JOBS, give_up_after=2, budget=35)
    assert builder.work_on(ROOT, excluded, far).records[-1][0].status == "expanded"
    for far_give_up_after, status in ((3, "expanded"), (2, "failed")):
        settings = dataclasses.replace(far, far_give_up_after=far_give_up_after)
        assert builder.work_on(ROOT, excluded, settings).records[-1][0].status == status
    near = dataclasses.replace(SMALL_JOBS, give_up_after=3, far_give_up_after=2)
    assert builder.work_on(ROOT, excluded, near).records[-1][0].status == "expanded"
    # a vertex of fewer stones than give_up_stones (ROOT has 8) never fails by the counts
    shallow = dataclasses.replace(SMALL_JOBS, give_up_after=2, give_up_stones=9)
    assert builder.work_on(ROOT, excluded, shallow).records[-1][0].status == "expanded"


def test_the_engine_lost_check_spares_the_vertices_of_fewer_stones_than_give_up_stones() -> None:
    settings = dataclasses.replace(SETTINGS, lost_score=0, won_moves_left=0, give_up_stones=6)
    assert [settings.lost_limit(stones) for stones in (4, 6, 8)] == [None, 0, 0]


def test_a_job_pauses_the_cycle_collector_and_leaves_it_as_it_was() -> None:
    seen: list[bool] = []

    @builder._without_cycle_collection
    def job(moves: str, excluded: str, settings: builder.BuildSettings) -> str:
        seen.append(gc.isenabled())
        if excluded:
            raise ValueError(excluded)
        return moves

    assert job("h8", "", SMALL_JOBS) == "h8" and gc.isenabled()
    with pytest.raises(ValueError):
        job("h8", "0,", SMALL_JOBS)
    assert gc.isenabled()  # on again after a job that failed
    gc.disable()
    try:
        assert job("h8", "", SMALL_JOBS) == "h8" and not gc.isenabled()  # left off
    finally:
        gc.enable()
    assert seen == [False, False, False]
    assert builder.work_on.__qualname__ == "work_on"  # Dask pickles a job by its name


def test_far_from_the_budget_a_job_searches_for_the_far_time() -> None:
    limits = ProverLimits(max_seconds=1.0)
    settings = builder.BuildSettings(budget=35, limits=limits, far_seconds=0.2)
    # 35 stones: with 14 on the board Black has 10 moves left, with 22 six (near the budget)
    assert (settings.search_seconds(14), settings.search_seconds(20)) == (0.2, 0.2)
    assert (settings.search_seconds(22), settings.search_seconds(30)) == (1.0, 1.0)
    same = builder.BuildSettings(budget=35, limits=limits)
    assert {same.search_seconds(stones) for stones in range(35)} == {1.0}


def test_the_build_command_builds_the_branches_asked_for_in_their_order(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "branch.sqlite"
    graph = Graph(path, SMALL_JOBS.as_meta(ROOT))
    builder.build(graph, SMALL_JOBS, ROOT, builder.InProcess(), max_jobs=1)
    branches = open_moves(graph, 10, branch_moves=10)
    graph.close()
    assert len(branches) >= 2
    last = branches[-1]  # the branch built last in the usual order
    args = ["build", "--db", str(path), "--root", ROOT, "--budget", "17", "--workers", "0",
            "--jobs", "1", "--engine-ms", "0", "--quick-nodes", "0",
            "--max-nodes", "300", "--threat-nodes", "40", "--wide-threat-nodes", "0"]
    assert cli.main(args + ["--branch", last, "--branch", branches[0]]) == 0
    graph = Graph(path)
    worked = [v for v in graph.vertices() if v.attempts and v.stones > 8]
    assert worked and all(v.moves.startswith(last) for v in worked)
    # the progress bar counts what is reached from the branch being built
    reached = graph.reached_counts(position_board(last, 15, 1).canonical_key()[0])
    assert f"branch={last}: {reached['proved']} proved, {reached['expanded']} expanded, " \
        f"{reached['open']} open" in capsys.readouterr().err
    with pytest.raises(SystemExit, match="no vertex of the graph below the root's move"):
        cli.main(args + ["--branch", "h8 a1"])
    # a deeper vertex: a branch expanded (by hand, far from the stones) into two open lines,
    # one of them asked for: the job works there, not on its sibling nor on another branch
    graph = Graph(path)
    branch_vertex = graph.vertex(position_board(branches[0], 15, 1).canonical_key()[0])
    assert branch_vertex is not None and branch_vertex.status == "open"
    below = [f"{branches[0]} o15 {reply}" for reply in ("o13", "o12")]
    with graph.db:
        graph.record(dataclasses.replace(branch_vertex, status="expanded", move=0), [
            (position_board(line, 15, 1).canonical_key()[0], line, 12) for line in below])
    tried = {v.key: v.attempts for v in graph.vertices()}
    graph.close()
    capsys.readouterr()
    assert cli.main(args + ["--branch", below[1]]) == 0
    assert f"branch={below[1]}: " in capsys.readouterr().err  # its job's vertex lay below it
    graph = Graph(path)  # (the job may have proved it, or failed it and opened the branch again)
    sibling = graph.vertex(position_board(below[0], 15, 1).canonical_key()[0])
    assert sibling is None or sibling.attempts == 0
    assert all(v.attempts == tried[v.key] for v in graph.vertices() if v.stones <= 10)


def test_branches_take_turns_first_place_for_the_time_given() -> None:
    lines = ["h8 a1", "h8 b2", "h8 c3"]
    assert builder.taking_turns(lines, 1e6, 0.0) == lines  # no turns: the order given
    assert builder.taking_turns(lines, 59.9, 60.0) == lines
    assert builder.taking_turns(lines, 60.0, 60.0) == ["h8 b2", "h8 c3", "h8 a1"]
    assert builder.taking_turns(lines, 150.0, 60.0) == ["h8 c3", "h8 a1", "h8 b2"]
    assert builder.taking_turns(lines, 180.0, 60.0) == lines  # round and round
    assert builder.taking_turns(lines[:1], 500.0, 60.0) == lines[:1]


@pytest.mark.parametrize("turn, built", [(0.0, 0), (150.0, 0), (60.0, 1)])
def test_a_build_works_on_the_branch_whose_turn_it_is(
        tmp_path: Path, turn: float, built: int) -> None:
    graph = Graph(tmp_path / "turns.sqlite", SMALL_JOBS.as_meta(ROOT))
    builder.build(graph, SMALL_JOBS, ROOT, builder.InProcess(), max_jobs=1)
    branches = open_moves(graph, 10, branch_moves=10)[:2]
    assert len(set(branches)) == 2
    tried = {v.key: v.attempts for v in graph.vertices()}
    times = itertools.chain([0.0], itertools.repeat(100.0))  # the build starts, then 100 s on
    builder.build(graph, SMALL_JOBS, ROOT, builder.InProcess(), max_jobs=1, branches=branches,
                  branch_turn=turn, clock=lambda: next(times))
    worked = [v for v in graph.vertices() if v.attempts > tried.get(v.key, 0)]
    assert worked and all(f"{v.moves} ".startswith(f"{branches[built]} ") for v in worked)


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM])
def test_a_build_started_in_the_background_stops_cleanly_on_a_signal(
        tmp_path: Path, number: signal.Signals) -> None:
    # as a shell starts a background job: SIGINT ignored (Python then sets no handler for it)
    path = tmp_path / "signal.sqlite"
    args = ["build", "--db", str(path), "--budget", "35", "--workers", "0",
            "--engine-ms", "0", "--quick-nodes", "0", "--max-nodes", "300", "--threat-nodes",
            "40", "--wide-threat-nodes", "0"]  # from the empty board: hours of jobs
    build = subprocess.Popen(
        [sys.executable, "-c", "from opening_book import cli; raise SystemExit(cli.main())",
         *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert build.stderr is not None
    progress = ""
    try:
        # two jobs written (the bar shows a count at most every 0.1 s): the build is under way
        while max(map(int, re.findall(r"(\d+) job", progress)), default=0) < 2:
            character = build.stderr.read(1)
            assert character, progress
            progress += character
        build.send_signal(number)
        out, _ = build.communicate(timeout=120)
    finally:
        build.kill()  # (if the signal did not end it)
    assert build.returncode == 0 and out.startswith("vertices: ")
    assert sum(Graph(path).counts().values()) > 1  # the jobs written are kept


def test_the_sweep_command_takes_the_budget_and_root_of_the_graph(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cli.sqlite"
    graph = Graph(path, SMALL_JOBS.as_meta(ROOT))
    builder.build(graph, SMALL_JOBS, ROOT, builder.InProcess(), max_jobs=1)
    graph.close()
    assert cli.main(["sweep", "--db", str(path), "--workers", "0", "--quick-nodes", "2000",
                     "--threat-nodes", "40"]) == 0
    assert "0 open" in capsys.readouterr().out
    assert root_vertex(Graph(path)).status == "proved"


ATTACK_OPTIONS = ["--workers", "0", "--minutes-each", "1", "--engine-ms", "0",
                  "--max-nodes", "20000", "--threat-nodes", "40", "--wide-threat-nodes", "0",
                  "--dfpn-nodes", "0",
                  "--verify-threat-nodes", str(VERIFY_NODES)]  # the settings of SETTINGS


def graph_after_one_job(path: Path) -> list[str]:
    """A graph at ``path`` grown from ROOT by one small job; the root's replies it left
    unproved."""
    graph = Graph(path, SMALL_JOBS.as_meta(ROOT))
    builder.build(graph, SMALL_JOBS, ROOT, builder.InProcess(), max_jobs=1)
    replies = [graph.vertex(key) for key in graph.children(root_position_key())]
    graph.close()
    return [reply.moves for reply in replies if reply is not None and reply.status != "proved"]


def test_an_attack_proves_the_open_replies_apart_and_merges_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, apart = tmp_path / "attacked.sqlite", tmp_path / "apart"
    unproved = graph_after_one_job(path)
    assert unproved  # the root's move left replies open
    args = ["attack", "--db", str(path), "--dir", str(apart), *ATTACK_OPTIONS]
    assert cli.main(args + ["--children", ROOT]) == 0
    out = capsys.readouterr().out
    assert f"{len(unproved)} proved and merged" in out and "0 open" in out
    assert len(list(apart.glob("*.sqlite"))) == len(unproved)  # one graph apart each
    graph = Graph(path)
    assert root_vertex(graph).status == "proved"
    assert verify(graph, threat_nodes=VERIFY_NODES).holes == []
    assert graph.core_seconds() > 0  # the graphs apart brought their computation
    graph.close()
    assert cli.main(args + ["--children", ROOT]) == 0  # nothing left to attack
    assert "0 proved and merged" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="no vertex of the graph"):
        cli.main(args + [ROOT + " h7 h6"])


def test_an_attack_goes_deeper_below_a_vertex_that_does_not_prove(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    path, apart = tmp_path / "attacked.sqlite", tmp_path / "apart"
    unproved = graph_after_one_job(path)
    assert unproved
    attack = builder.attack

    def churning_root(moves: str, excluded: str, settings: builder.BuildSettings,
                      **options: Any) -> builder.Attack:
        if moves == ROOT:  # as if its build apart ran out of time
            return builder.Attack(moves, "", "expanded",
                                  {"proved": 0, "expanded": 1, "open": 0, "failed": 0}, [])
        return attack(moves, excluded, settings, **options)

    monkeypatch.setattr(builder, "attack", churning_root)
    args = ["attack", "--db", str(path), "--dir", str(apart), *ATTACK_OPTIONS, ROOT]
    assert cli.main(args) == 0  # not deeper: the root alone
    assert "0 proved and merged" in capsys.readouterr().out
    assert cli.main(args + ["--deeper", "1"]) == 0
    out = capsys.readouterr().out
    assert f"{ROOT}: expanded" in out and f"its {len(unproved)} unproved replies queued" in out
    assert f"{len(unproved)} proved and merged" in out
    graph = Graph(path)
    assert root_vertex(graph).status == "proved"  # its replies' proofs carried up
    assert verify(graph, threat_nodes=VERIFY_NODES).holes == []
    graph.close()


def test_an_open_vertex_that_does_not_prove_apart_takes_the_work_of_its_graph_apart(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    path, apart = tmp_path / "attacked.sqlite", tmp_path / "apart"
    graph = Graph(path, SMALL_JOBS.as_meta(ROOT))
    with graph.db:
        graph.add_open(root_position_key(), ROOT, 8)
    graph.close()
    build = builder.build
    monkeypatch.setattr(builder, "build", lambda *arguments, **options: build(
        *arguments, **options, max_jobs=1))  # as if the time ran out after one job
    args = ["attack", "--db", str(path), "--dir", str(apart), *ATTACK_OPTIONS]
    assert cli.main(args + ["--max-nodes", "300", "--quick-nodes", "0", ROOT]) == 0
    assert f"{ROOT}: expanded" in capsys.readouterr().out
    (built,) = apart.glob("*.sqlite")
    other, graph = Graph(built), Graph(path)
    assert root_vertex(graph).move == root_vertex(other).move is not None  # its move taken
    assert set(graph.children(root_position_key())) == set(other.children(root_position_key()))
    assert any(graph.vertex(key).status != "proved"  # type: ignore[union-attr]
               for key in graph.children(root_position_key()))
    other.close()
    graph.close()
    monkeypatch.undo()
    assert cli.main(args + ["--children", ROOT]) == 0  # its replies, now in the graph
    assert root_vertex(Graph(path)).status == "proved"


def test_an_attack_merges_nothing_the_verifier_finds_a_hole_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "attacked.sqlite"
    graph = Graph(path, SMALL_JOBS.as_meta(ROOT))
    with graph.db:
        graph.add_open(root_position_key(), ROOT, 8)
    graph.close()
    monkeypatch.setattr(builder, "verify", lambda graph, threat_nodes: (
        dataclasses.replace(verify(graph, threat_nodes=threat_nodes), holes=["a hole"])))
    assert cli.main(["attack", "--db", str(path), "--dir", str(tmp_path / "apart"),
                     *ATTACK_OPTIONS, ROOT, ROOT]) == 0  # named twice: built once
    out = capsys.readouterr().out
    assert out.count(f"{ROOT}: proved") == 1 and "1 holes, not merged: a hole" in out
    assert "0 proved and merged" in out
    graph = Graph(path)
    assert root_vertex(graph).status == "open" and sum(graph.counts().values()) == 1


def test_after_a_reply_the_book_closes_by_the_dfpn_the_engine_finds_that_win(
        tmp_path: Path) -> None:
    """A book whose root's reply ``DFPN_ONLY_REPLY`` is closed by the df-pn alone: after the
    book's move and that reply, the engine's threat search of a game that followed the book
    (the deepening finds no win there) proves the win by the df-pn and wins the game."""
    graph = build_dfpn_leaf_graph(tmp_path / "graph.sqlite")
    assert export(graph, tmp_path / "book.bin") == 1
    graph.close()
    engine = Engine(book=Book(tmp_path / "book.bin"))
    engine.new_game(15, 15, 1)
    referee = position_board(DFPN_LEAF, 15, 1)
    for x, y in referee.moves():
        engine.play(x, y)
    booked, reply = (position_board(f"{DFPN_LEAF} {DFPN_ONLY_REPLY}", 15, 1).moves()[-2:])
    result = engine.think(Limits(timeout_turn_ms=3000))
    assert (result.stopped_by, result.move) == ("book", booked)
    for move in (booked, reply):
        engine.play(*move)
        assert not referee.play(*move)
    search = threat_search_state()
    assert vct(referee.state, search, 1, BOOK_VCT_THREATS, BOOK_VCT_NODES, 0)[0] == 0
    rng = random.Random(5)
    while True:
        result = engine.think(Limits(timeout_turn_ms=3000))
        assert result.stopped_by == "proven" and referee.is_legal(*result.move, 1)
        engine.play(*result.move)
        if referee.play(*result.move):
            break
        reply = rng.choice([p for p in referee.empty_points() if referee.is_legal(*p, 2)])
        assert not referee.play(*reply)
        engine.play(*reply)


def test_a_graph_with_a_larger_budget_gives_only_the_proofs_that_fit(tmp_path: Path) -> None:
    budget = SETTINGS.budget  # 17
    wider_settings = dataclasses.replace(SETTINGS, budget=budget + 2)
    wider = Graph(tmp_path / "wider.sqlite", wider_settings.as_meta(ROOT))
    builder.build(wider, wider_settings, ROOT, builder.InProcess())
    main = Graph(tmp_path / "main.sqlite", SETTINGS.as_meta(ROOT))
    root = root_position_key()
    with main.db:
        main.add_open(root, ROOT, len(ROOT.split()))
    fitting = {v.key for v in wider.vertices("proved")
               if (v.longest or 0) <= budget and v.threat_longest <= budget}
    too_long = {v.key for v in wider.vertices("proved")} - fitting
    assert fitting and root in too_long  # (the root's proof has a line of 19 stones)
    main.merge(wider, root)
    assert {v.key for v in main.vertices("proved")} == fitting
    assert all((v.longest or 0) <= budget for v in main.vertices("proved"))
    reopened = main.vertex(root)
    assert reopened is not None and reopened.status == "open" and main.children(root) == []
    # the proofs taken hold within this budget
    for vertex in main.vertices("proved"):
        verdict = verify(main, vertex.moves, threat_nodes=VERIFY_NODES)
        assert verdict.holes == [] and verdict.longest <= budget
    with pytest.raises(ValueError, match=f"budget {budget} is less than {budget + 2}"):
        wider.merge(main, root)


def test_a_build_expands_the_root_move_asked_for(tmp_path: Path) -> None:
    board = position_board(ROOT, 15, 1)
    _, sym = board.canonical_key()
    args = ["build", "--root", ROOT, "--budget", "17", "--workers", "0", "--engine-ms", "0",
            "--quick-nodes", "0", "--max-nodes", "300", "--threat-nodes", "40",
            "--wide-threat-nodes", "0", "--dfpn-nodes", "0"]  # (SETTINGS': no df-pn)

    def root_move(name: str, move: str) -> tuple[Vertex, tuple[int, int]]:
        path = tmp_path / f"{name}.sqlite"
        assert cli.main(args + ["--db", str(path), "--root-move", move]) == 0
        vertex = root_vertex(Graph(path))
        assert vertex.status == "proved" and vertex.move is not None
        return vertex, from_canonical(board, sym, vertex.move)

    _, chosen = root_move("chosen", "")  # none given: the jobs' own choice
    vertex, move = root_move("j8", "j8")  # another win: expanded as asked
    assert move == (9, 7) and chosen != move
    assert vertex.excluded == ""
    vertex, move = root_move("g8", "g8")  # a reply refutes g8: excluded, the jobs choose
    assert move != (6, 7) and vertex.excluded == f"{to_canonical(board, sym, 6, 7)},"
    with pytest.raises(SystemExit, match="--root-move"):
        cli.main(args + ["--db", str(tmp_path / "bad.sqlite"), "--root-move", "h8"])


def test_a_larger_budget_raises_the_graphs_and_a_vertex_that_failed_tries_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "raised.sqlite"
    tight = dataclasses.replace(SMALL_JOBS, budget=15)
    graph = Graph(path, tight.as_meta(ROOT))
    builder.build(graph, tight, ROOT, builder.InProcess(), max_jobs=4)
    assert root_vertex(graph).status == "failed"  # its only move, the block, fails within 15
    graph.close()
    args = ["build", "--db", str(path), "--root", ROOT, "--workers", "0", "--engine-ms", "0",
            "--quick-nodes", "0", "--max-nodes", "20000", "--threat-nodes", "40",
            "--wide-threat-nodes", "0", "--dfpn-nodes", "0"]
    with pytest.raises(SystemExit, match="has budget 15: a smaller one"):
        cli.main(args + ["--budget", "13"])
    assert Graph(path).setting("budget") == "15"
    assert cli.main(args + ["--budget", "17"]) == 0
    assert "budget raised to 17: 1 vertex not proved" in capsys.readouterr().err
    graph = Graph(path)
    assert graph.setting("budget") == "17"
    root = root_vertex(graph)
    assert root.status == "proved" and root.longest is not None and 15 < root.longest <= 17
    graph.close()
    assert cli.main(args) == 0  # the graph's own budget, 17, with none given
    assert "budget raised" not in capsys.readouterr().err
