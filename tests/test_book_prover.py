"""The prover (opening_book.prover) against exhaustive search on small boards, and the
``sente-book prove`` command with good and bad input."""

from __future__ import annotations

import dataclasses
import io
import json
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.core.board import Board
from bot.core.proofnumber import BOOK_QUIET_FOURS, new_table
from bot.core.searchstate import forget_threats
from bot.core.threats import vct
from opening_book import builder, cli
from opening_book.graph import Graph
from opening_book.positions import position_board
from opening_book.prover import (DFPN_NODES, DFPN_TABLE_ENTRIES, Node, Prover, ProverLimits,
                                 dfpn_threat_win, threat_search_state)
from opening_book.verify import verify
from tests.conftest import PURE_PYTHON, scaled


def attacker_wins(board: Board, attacker: int, budget: int) -> bool:
    """Exhaustive: can ``attacker`` (to move) make five with at most ``budget`` stones on the
    board, whatever the defender plays anywhere?"""
    if board.ply + 1 > budget:
        return False
    cells = [p for p in board.empty_points() if board.is_legal(*p, attacker)]
    for x, y in cells:
        won = board.play(x, y, attacker)
        board.undo()
        if won:
            return True
    if board.ply + 3 > budget:
        return False
    for x, y in cells:
        board.play(x, y, attacker)
        holds = defender_loses(board, attacker, budget)
        board.undo()
        if holds:
            return True
    return False


def defender_loses(board: Board, attacker: int, budget: int) -> bool:
    defender = 3 - attacker
    replies = [p for p in board.empty_points() if board.is_legal(*p, defender)]
    if not replies:
        return False
    for x, y in replies:
        won = board.play(x, y, defender)
        lost = not won and attacker_wins(board, attacker, budget)
        board.undo()
        if not lost:
            return False
    return True


def random_positions(seed: int, count: int, size: int, rule: int) -> Iterator[Board]:
    """``count`` positions of ``random_position`` (those without a five), seeded."""
    rng = random.Random(seed)
    made = 0
    while made < count:
        board = random_position(rng, size, rule)
        if board is not None:
            made += 1
            yield board


def random_position(rng: random.Random, size: int, rule: int) -> Board | None:
    """Stones of both colours, alternating, in a 5x5 patch; None if a five was made."""
    board = Board(size, size, rule)
    cx, cy = rng.randint(2, size - 3), rng.randint(2, size - 3)
    patch = [(x, y) for x in range(cx - 2, cx + 3) for y in range(cy - 2, cy + 3)]
    rng.shuffle(patch)
    for x, y in patch[: rng.randint(6, 11)]:
        colour = board.side_to_move()
        if not board.is_legal(x, y, colour) or board.play(x, y, colour):
            return None
    return board


@pytest.mark.parametrize("rule", [0, 1, 4])
def test_the_prover_agrees_with_exhaustive_search_on_two_move_wins(rule: int) -> None:
    """Budget: the attacker's next two moves.  Every cell the attacker could need lies within
    two of a stone, so the prover (all candidates) must find exactly the wins that exist."""
    verdicts = []
    for board in random_positions(rule + 11, scaled(24), 9, rule):
        attacker = board.side_to_move()
        budget = board.ply + 3
        expected = attacker_wins(board, attacker, budget)
        proof = Prover(board, ProverLimits(max_nodes=100_000)).prove(budget)
        assert proof.won == expected, (rule, board.moves())
        if proof.won:
            assert proof.longest <= budget
            x, y = board.point(proof.cell)
            assert board.is_legal(x, y, attacker)
            won = board.play(x, y, attacker)
            assert won or not attacker_wins(board, 3 - attacker, board.ply + 1)
            board.undo()
        verdicts.append(expected)
    assert 0 < sum(verdicts) < len(verdicts)  # both kinds of position were checked


def prove_text(text: str, *args: str) -> tuple[list[dict[str, object]], int]:
    out = io.StringIO()
    limits = ProverLimits(max_nodes=5_000)
    refused = cli.prove_lines(io.StringIO(text), 15, int(args[0]) if args else 1, 35, limits, out)
    return [json.loads(line) for line in out.getvalue().splitlines()], refused


def test_prove_prints_one_json_line_per_position_and_refuses_bad_lines() -> None:
    lines, refused = prove_text("h8 a1 i8 a2 j8 a3\n"
                                "# a comment\n\n"
                                "h8 h8\n"
                                "h8 zz9\n"
                                "h8 a1 i8 a2 j8 a3 k8 a4 l8\n"
                                "h8 a1 i8 a2 j8 a3 k8\n"
                                "p8\n")
    assert refused == 4 and len(lines) == 6
    first = lines[0]
    assert first["winner"] == "black" and first["move"] in ("g8", "k8")
    assert first["longest"] == 9 and isinstance(first["proof_nodes"], int)
    assert "line 4" in str(lines[1]["error"]) and "occupied" in str(lines[1]["error"])
    assert "line 5" in str(lines[2]["error"]) and "zz9" in str(lines[2]["error"])
    assert "line 6" in str(lines[3]["error"]) and "ends the game" in str(lines[3]["error"])
    assert lines[4]["winner"] is None and lines[4]["move"] is None  # white to move loses
    assert "line 8" in str(lines[5]["error"]) and "off the 15x15 board" in str(lines[5]["error"])


def test_prove_refuses_a_renju_foul_in_the_move_list() -> None:
    # black's double three at h8 (g8-i8 across, h7-h9 down... built as two open threes)
    lines, refused = prove_text("g8 a1 i8 a2 h7 a3 h9 a4 h8\n", "4")
    assert refused == 1 and "forbidden" in str(lines[0]["error"])


@pytest.mark.skipif(PURE_PYTHON, reason="a subprocess with the JIT")
def test_the_command_line_reads_a_file_and_sets_its_exit_status(tmp_path) -> None:
    import subprocess
    import sys

    source = tmp_path / "positions.txt"
    source.write_text("h8 i9 h9 i10 h10 a1\n")
    done = subprocess.run([sys.executable, "-m", "opening_book.cli", "prove", "--budget", "9",
                           str(source)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["winner"] == "black" and answer["move"] in ("h7", "h11")
    source.write_text("h8 h8\n")
    refused = subprocess.run([sys.executable, "-m", "opening_book.cli", "prove", str(source)],
                             capture_output=True, text=True, timeout=300)
    assert refused.returncode == 1 and "line 1" in refused.stdout


@pytest.mark.parametrize("rule", [0, 1])
def test_the_skip_finds_the_same_wins(rule: int) -> None:
    """Budget: the attacker's next three moves, so proofs need defender nodes the threat
    search cannot close at once (where the skip defers the replies): with and without the
    skip the prover must prove the same positions."""
    verdicts = []
    for board in random_positions(rule + 5, scaled(8), 9, rule):
        budget = board.ply + 5
        proofs = [Prover(board, ProverLimits(max_nodes=200_000, threat_nodes=2_000, skip=skip)
                         ).prove(budget) for skip in (True, False)]
        assert proofs[0].won == proofs[1].won, (rule, board.moves())
        assert proofs[0].longest <= budget
        verdicts.append(proofs[0].won)
    assert 0 < sum(verdicts) < len(verdicts)


def early_board() -> Board:
    """h8 h9 h6 g10 g5 n7: early in a game, no threat win for Black even after a pass."""
    board = Board(15, 15, 1)
    for x, y in [(7, 7), (7, 8), (7, 5), (6, 9), (6, 4), (13, 6)]:
        board.play(x, y, board.side_to_move())
    return board


def test_the_skip_defers_the_replies_where_the_pass_does_not_lose() -> None:
    """Early in a game the attacker has no win by threats even after a pass: the same tree
    (the limit is in tree nodes) for a fraction of the threat-search nodes."""
    board = early_board()
    work = {}
    for skip in (True, False):
        prover = Prover(board, ProverLimits(max_nodes=6_000, threat_nodes=200, skip=skip))
        root = prover.prove_tree(35)
        assert not root.proved and prover.tree_nodes >= 6_000
        work[skip] = prover.nodes
    assert 4 * work[True] < work[False]


def test_the_work_limit_stops_the_search_at_the_same_point_every_time() -> None:
    board = early_board()
    unlimited = Prover(board, ProverLimits(max_nodes=6_000, threat_nodes=200))
    unlimited.prove_tree(35)
    limit = unlimited.nodes // 4
    stops = []
    for _ in range(2):
        prover = Prover(board, ProverLimits(max_nodes=6_000, threat_nodes=200, max_work=limit))
        root = prover.prove_tree(35)
        assert not root.proved and prover.tree_nodes < 6_000
        stops.append((prover.nodes, prover.tree_nodes))
    assert stops[0] == stops[1] and limit <= stops[0][0] < 2 * limit


def test_a_threat_leaf_is_found_again_within_the_same_nodes_whatever_came_before() -> None:
    """A leaf's threat search starts from an empty memo: proving the same position a second
    time costs exactly as many nodes (a memo kept from the first would make the second short,
    and a fresh search, the verifier's, could not find that win within the nodes it took)."""
    board = position_board("h8 b15 i9 e15 g9 d15 c15 f15", 15, 1)  # a VCT of 13 plies
    prover = Prover(board, ProverLimits(threat_nodes=300_000))
    first, second = prover.prove(35), prover.prove(35)
    assert first.won and first.longest == 8 + 13
    assert (second.won, second.cell, second.proof_nodes) == (True, first.cell, first.proof_nodes)


@pytest.mark.parametrize("rule", [0, 1, 4])
def test_with_one_move_before_the_five_the_threat_search_decides_the_node(rule: int) -> None:
    """Budget: the attacker's next move and then its five.  The attacker node is proved or
    refuted by its leaf tests alone, without children (a builder's vertex that close to the
    budget is never left open; under renju, only when the threat search found no longer win
    either), and the verdict is the exhaustive search's."""
    verdicts = []
    for board in random_positions(rule + 11, scaled(24), 9, rule):
        attacker = board.side_to_move()
        budget = board.ply + 3
        prover = Prover(board, ProverLimits(max_nodes=100_000))
        root = prover.prove_tree(budget)
        assert root.children is None or rule == 4, board.moves()
        assert root.proved == attacker_wins(board, attacker, budget), (rule, board.moves())
        verdicts.append(root.proved)
    assert 0 < sum(verdicts) < len(verdicts)


@pytest.mark.skipif(PURE_PYTHON,
                    reason="proof searches two attacker moves deep: slow as plain Python")
@pytest.mark.parametrize("rule", [0, 1])
def test_with_two_moves_before_the_five_the_threat_search_decides_the_node(rule: int) -> None:
    """Budget: the attacker's next two moves and then its five.  The verdict is that of the
    proof-number search over every candidate move and every reply without the refutation by
    the threat search (checked to run to its end), at every node of the tree; and most roots
    without a win are refuted by their leaf tests alone (the others: the threat search found
    a win, too long for the budget, so it cannot say there is none)."""
    verdicts, refuted_at_once = [], 0
    for board in random_positions(rule + 41, scaled(16), 9, rule):
        budget = board.ply + 5
        root = Prover(board, ProverLimits(max_nodes=10**6)).prove_tree(budget)
        full = Prover(board, ProverLimits(max_nodes=10**6, threat_refutes=False)
                      ).prove_tree(budget)
        assert full.proved or full.disproved, board.moves()  # searched to its end
        assert root.proved == full.proved, (rule, board.moves())
        verdicts.append(root.proved)
        refuted_at_once += root.disproved and root.children is None
    print(verdicts.count(False), "without a win,", refuted_at_once, "refuted at once")
    assert 0 < sum(verdicts) < len(verdicts)
    assert refuted_at_once >= verdicts.count(False) // 2


@pytest.mark.skipif(PURE_PYTHON, reason="a proof search after every reply: slow as plain Python")
@pytest.mark.parametrize("rule", [0, 1])
def test_a_defender_node_without_a_threat_win_even_after_a_pass_is_refuted_at_once(
        rule: int) -> None:
    """The defender to move, the attacker with one move left before the five once the
    defender has replied.  Where the threat search after a pass finds nothing, the defender
    node is disproved without examining a reply; and indeed after every reply the proof
    search without that refutation finds no win either."""
    refuted = 0
    for board in random_positions(rule + 51, scaled(8), 9, rule):
        attacker = 3 - board.side_to_move()
        budget = board.ply + 4
        prover = Prover(board)
        prover.attacker, prover.budget = attacker, budget
        node = Node(-1, False, examined=True)
        prover._close_defender_node(node)  # (a five of the defender's own disproves it)
        if node.proved or node.disproved:
            continue
        prover.expand(node)
        if not (node.disproved and not node.children):
            continue
        refuted += 1
        for x, y in board.empty_points():
            assert not board.play(x, y)  # (the defender has no five: see above)
            full = Prover(board, ProverLimits(threat_refutes=False)).prove_tree(budget)
            board.undo()
            assert full.disproved, (rule, board.moves(), (x, y))
    assert refuted >= scaled(8) // 2


# A vertex of the book's graph of record (14 stones, Black to move) that the threat-bounded
# deepening does not close within 5000 nodes and the df-pn with quiet threats proves within
# 35 stones, and a White reply after the df-pn's first move that only the df-pn closes.
DFPN_LEAF = "h8 h10 f9 f10 g8 e9 e10 h7 c12 d11 g11 f8 g7 f3"
DFPN_ONLY_REPLY = "i9 j10"


LEAF_LIMITS = ProverLimits(max_nodes=1000, threat_nodes=5000)  # the deepening alone


def build_dfpn_leaf_graph(path: Path) -> Graph:
    """A graph of DFPN_LEAF built with the df-pn at the prover's leaves."""
    settings = builder.BuildSettings(
        rule=1, size=15, budget=35, wide_threat_nodes=0, engine_ms=0, quick_nodes=0,
        limits=dataclasses.replace(LEAF_LIMITS, dfpn_nodes=DFPN_NODES))
    graph = Graph(path, settings.as_meta(DFPN_LEAF))
    builder.build(graph, settings, DFPN_LEAF, builder.InProcess())
    return graph


def test_a_leaf_the_deepening_leaves_open_is_closed_by_the_dfpn_and_verified(
        tmp_path: Path) -> None:
    """With ``dfpn_nodes`` the prover closes the leaf by the df-pn, within the budget; a
    graph built that way keeps the df-pn's nodes and passes the verifier, which gives its
    df-pn as many by default, and has a hole where the deepening alone cannot close a
    reply."""
    assert not Prover(position_board(DFPN_LEAF, 15, 1), LEAF_LIMITS).prove(35).won
    proof = Prover(position_board(DFPN_LEAF, 15, 1),
                   dataclasses.replace(LEAF_LIMITS, dfpn_nodes=DFPN_NODES)).prove(35)
    assert proof.won and 14 < proof.longest <= 35
    graph = build_dfpn_leaf_graph(tmp_path / "graph.sqlite")
    assert graph.counts()["proved"] == 1 and graph.counts()["open"] == 0
    assert graph.leaf_dfpn_nodes() == DFPN_NODES
    verdict = verify(graph, threat_nodes=5000)
    assert verdict.holes == [] and verdict.checked > 200 and verdict.longest <= 35
    holes = verify(graph, threat_nodes=5000, dfpn_nodes=0).holes
    graph.close()
    assert holes == [f"{DFPN_LEAF} {DFPN_ONLY_REPLY}: not in the graph, and no win by threats "
                     "within the budget"]


def test_the_dfpn_plies_bound_every_reply_after_its_first_move() -> None:
    """The plies of a df-pn proof bound the line after every reply to its first move, those
    its zones leave untried included: after each, the attacker wins within two plies fewer
    (by the threat-bounded deepening, given the threats that many plies allow)."""
    board = position_board(DFPN_LEAF, 15, 1)
    attacker = board.side_to_move()
    search = threat_search_state()
    plies, first = dfpn_threat_win(board, search, new_table(DFPN_TABLE_ENTRIES), attacker,
                                   DFPN_NODES, 35 - board.ply)
    assert plies > 0
    board.play(*board.point(first), attacker)
    replies = [board.point(cell) for cell in board.legal_cells(3 - attacker)]
    for x, y in replies:
        assert not board.play(x, y, 3 - attacker)
        forget_threats(search)
        assert vct(board.state, search, attacker, (plies - 1) // 2, 10**7, BOOK_QUIET_FOURS)[0], (
            x, y)
        board.undo()
    assert len(replies) > 200


def test_prove_uses_the_dfpn_unless_told_not_to(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    positions = tmp_path / "positions.txt"
    positions.write_text(DFPN_LEAF + "\n")
    winners = []
    for extra in ([], ["--dfpn-nodes", "0"]):
        assert cli.main(["prove", "--max-nodes", "1000", "--threat-nodes", "5000", *extra,
                         str(positions)]) == 0
        winners.append(json.loads(capsys.readouterr().out)["winner"])
    assert winners == ["black", None]
