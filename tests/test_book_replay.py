"""The replay: open vertices played as their proved siblings are proved (builder.replay); and
the floods' probes, whose proofs it replays (builder.flood_probes)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from bot.core.notation import format_move_list
from opening_book import builder, cli
from opening_book.graph import Graph, Vertex, signed
from opening_book.keys import from_canonical, to_canonical
from opening_book.positions import moved_stone_twins, position_board
from opening_book.prover import ProverLimits
from opening_book.verify import verify
from tests.conftest import PURE_PYTHON
from tests.test_book_graph import ROOT, SMALL_JOBS, root_position_key

pytestmark = pytest.mark.skipif(PURE_PYTHON, reason="proofs need the compiled kernels")

# Threat searches this small leave some replies to ROOT's move proved two vertices deep
# (after "a5 h7" and "a5 h10": a move, then two replies that are vertices of their own).
DEEP_JOBS = dataclasses.replace(SMALL_JOBS, limits=ProverLimits(max_nodes=300, threat_nodes=10))
GUIDE = f"{ROOT} a5 h7"  # the proved reply the others are replayed from


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ROOT's graph, proved with DEEP_JOBS."""
    path = tmp_path_factory.mktemp("replay") / "built.sqlite"
    graph = Graph(path, DEEP_JOBS.as_meta(ROOT))
    builder.build(graph, DEEP_JOBS, ROOT, builder.InProcess())
    assert graph.vertex(root_position_key()).status == "proved"  # type: ignore[union-attr]
    graph.close()
    return path


def reopened(built: Path, path: Path, keep: str = GUIDE) -> tuple[Graph, list[int]]:
    """A copy of the built graph where every reply to ROOT's move but ``keep`` is open again,
    as if no job had reached it (the vertices below them left, proved, for transpositions), and
    the root expanded: the copy and the keys opened."""
    path.write_bytes(built.read_bytes())
    graph = Graph(path)
    guide = position_board(keep, 15, 1).canonical_key()[0]
    opened = [key for key in graph.children(root_position_key()) if key != guide]
    with graph.db:
        for key in opened:
            open_again(graph, key)
        graph.db.execute("UPDATE vertex SET status = 'expanded' WHERE key = ?",
                         (signed(root_position_key()),))
    return graph, opened


def open_again(graph: Graph, key: int) -> None:
    """Make the vertex ``key`` open, as if no job had reached it (what was below it stays)."""
    graph.db.execute("UPDATE vertex SET status = 'open', move = NULL, longest = NULL "
                     "WHERE key = ?", (signed(key),))
    graph.db.execute("DELETE FROM reply WHERE parent = ?", (signed(key),))


def played_move(graph: Graph, key: int) -> tuple[int, int]:
    """The attacker's move at the vertex ``key``, on the board of its own line."""
    vertex = graph.vertex(key)
    assert vertex is not None and vertex.move is not None
    board = position_board(vertex.moves, 15, 1)
    return from_canonical(board, board.canonical_key()[1], vertex.move)


def test_a_replay_proves_the_open_replies_by_a_proved_siblings_proof(built: Path,
                                                                      tmp_path: Path) -> None:
    graph, opened = reopened(built, tmp_path / "graph.sqlite")
    assert len(opened) == 4 and len(graph.children(opened[0])) == 0
    counts = builder.replay(graph, DEEP_JOBS, ROOT, builder.InProcess())
    assert counts["open"] == 0 and counts["failed"] == 0
    assert graph.vertex(root_position_key()).status == "proved"  # type: ignore[union-attr]
    guide = position_board(GUIDE, 15, 1).canonical_key()[0]
    for key in opened:  # each played as the guide is, and proved
        assert graph.vertex(key).status == "proved"  # type: ignore[union-attr]
        assert played_move(graph, key) == played_move(graph, guide)
    # the guide's proof goes on below its move, and so do some of the replays
    assert graph.children(guide) and any(graph.children(key) for key in opened)
    assert verify(graph, threat_nodes=10).holes == []


def test_the_replay_command_replays_every_parent(built: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "cli.sqlite"
    reopened(built, path)[0].close()
    assert cli.main(["replay", "--db", str(path), "--workers", "0", "--threat-nodes", "10",
                     "--dfpn-nodes", "0", "--wide-threat-nodes", "0"]) == 0
    assert "0 open" in capsys.readouterr().out
    assert Graph(path).vertex(root_position_key()).status == "proved"  # type: ignore[union-attr]


def test_a_guide_whose_move_the_position_does_not_allow_replays_nothing(built: Path) -> None:
    graph = Graph(built)
    guide_key = position_board(GUIDE, 15, 1).canonical_key()[0]
    strategy = graph.strategy(guide_key, 100)
    assert strategy is not None and len(strategy) == len(graph.children(guide_key)) + 1
    guide = builder.Guide(GUIDE, strategy)
    x, y = played_move(graph, guide_key)
    column = "abcdefghijklmno"[x]
    # White's reply on the guide's move: a twin, whose move is taken
    taken = f"{ROOT} a5 {column}{y + 1}"
    assert builder.replay_on([guide], 9, taken, "", DEEP_JOBS).records == []
    # ... and a twin where that move failed before
    other = f"{ROOT} a5 k10"
    board = position_board(other, 15, 1)
    key, sym = board.canonical_key()
    excluded = f"{to_canonical(board, sym, x, y)},"
    assert builder.replay_on([guide], 9, other, excluded, DEEP_JOBS).records == []
    records = builder.replay_on([guide], 9, other, "", DEEP_JOBS).records
    assert records and records[0][0].key == key
    # positions that are no twins are not played either: an attacker's stone elsewhere, or
    # more stones
    assert builder.replay_on([guide], 9, "h8 a1 i8 a2 j9 a3 g9 a4 a5 k10", "",
                             DEEP_JOBS).records == []
    assert builder.replay_on([guide], 9, f"{ROOT} a5 k10 j8 k8", "", DEEP_JOBS).records == []


def test_a_replay_that_would_leave_too_many_vertices_open_is_dropped(built: Path) -> None:
    graph = Graph(built)
    small = f"{ROOT} a5 h6"  # proved by a move whose every reply the threat searches close
    strategy = graph.strategy(position_board(small, 15, 1).canonical_key()[0], 100)
    assert strategy is not None and len(strategy) == 1
    guide = builder.Guide(small, strategy)
    # at "a5 h7" that move leaves three replies open, which the guide's proof has no vertex for
    assert builder.replay_on([guide], 2, GUIDE, "", DEEP_JOBS).records == []
    records = builder.replay_on([guide], 3, GUIDE, "", DEEP_JOBS).records
    assert len(records) == 1 and records[0][0].status == "expanded"
    assert len(records[0][1]) == 3


def expand_with(graph: Graph, line: str, move: str, reply: str = "o15") -> int:
    """Make the vertex of ``line`` expanded with the attacker's ``move`` and that move's one
    ``reply`` as an open child, as a job might have left it; the child's key."""
    board = position_board(line, 15, 1)
    key, sym = board.canonical_key()
    x, y = position_board(f"{line} {move}", 15, 1).moves()[-1]
    child = position_board(f"{line} {move} {reply}", 15, 1)
    with graph.db:
        graph.record(Vertex(key, line, board.ply, "expanded", to_canonical(board, sym, x, y),
                            None, 0, 1, 0, ""),
                     [(child.canonical_key()[0], f"{line} {move} {reply}", child.ply)])
        graph.propagate()
    return child.canonical_key()[0]


def test_an_expanded_vertex_takes_a_replay_only_when_it_proves_it(built: Path,
                                                                   tmp_path: Path) -> None:
    graph, _ = reopened(built, tmp_path / "proves.sqlite")
    target = f"{ROOT} a5 h10"
    child = expand_with(graph, target, "o1")
    builder.replay(graph, DEEP_JOBS, ROOT, builder.InProcess())
    key = position_board(target, 15, 1).canonical_key()[0]
    guide = position_board(GUIDE, 15, 1).canonical_key()[0]
    assert graph.vertex(key).status == "proved"  # type: ignore[union-attr]
    assert played_move(graph, key) == played_move(graph, guide)
    assert graph.vertex(child) is None  # (the move given up: its reply no longer reached)
    # a guide whose move leaves replies open at an expanded vertex: it keeps its own move
    small = f"{ROOT} a5 h6"  # (its one-vertex proof leaves three replies open at GUIDE)
    graph, _ = reopened(built, tmp_path / "kept.sqlite", keep=small)
    child = expand_with(graph, GUIDE, "o1")
    builder.replay(graph, DEEP_JOBS, ROOT, builder.InProcess(), most_open=9)
    assert graph.vertex(guide).status == "expanded"  # type: ignore[union-attr]
    assert graph.children(guide) == [child]
    # (while an open sibling took that replay, open replies and all)
    assert graph.vertex(key).status == "expanded"  # type: ignore[union-attr]
    assert played_move(graph, key) == played_move(
        graph, position_board(small, 15, 1).canonical_key()[0])


def test_an_open_vertex_with_no_proved_sibling_is_replayed_as_a_proved_cousin(
        built: Path, tmp_path: Path) -> None:
    parent = f"{ROOT} a5 h10"  # the root's reply h10, expanded with GUIDE's move j8 ...
    target = f"{parent} j8 g8"  # ... and one reply to it, open, with no sibling to replay
    for cousins in (False, True):
        replayed: dict[int, builder.Replayed] = {}
        graph, _ = reopened(built, tmp_path / f"cousins-{cousins}.sqlite")
        with graph.db:
            open_again(graph, position_board(target, 15, 1).canonical_key()[0])
        key = expand_with(graph, parent, "j8", "g8")
        builder.replay(graph, DEEP_JOBS, ROOT, builder.InProcess(), expanded=False,
                       cousins=cousins, replayed=replayed)
        assert graph.vertex(key).status == ("proved" if cousins else "open")  # type: ignore
    # its guide: a proved cousin, the same stones but White's h10 elsewhere (h7: GUIDE's
    # proof, or another reply to the root's move that the replay of the siblings proved)
    targets, (cousin,) = replayed[key]
    assert targets == {key}
    assert [(a, b) for a, b in zip(cousin.split(), target.split()) if a != b] == [
        (cousin.split()[9], "h10")]
    cousin_key = position_board(cousin, 15, 1).canonical_key()[0]
    assert graph.vertex(cousin_key).status == "proved"  # type: ignore[union-attr]
    assert played_move(graph, key) == played_move(graph, cousin_key)
    assert graph.vertex(root_position_key()).status == "proved"  # type: ignore[union-attr]
    assert verify(graph, threat_nodes=10).holes == []


def test_moved_stone_twins_are_every_position_with_one_earlier_defender_stone_moved() -> None:
    line = "h8 h9 i8 g7 j8"  # White to move: Black's stones before its last are moved
    twins = moved_stone_twins(line, 15, 1)
    points = position_board(line, 15, 1).moves()
    expected = {}
    for index in (0, 2):
        for x in range(15):
            for y in range(15):
                if (x, y) not in points:
                    moved = [*points[:index], (x, y), *points[index + 1:]]
                    board = position_board(format_move_list(moved, 15), 15, 1)
                    expected.setdefault(board.canonical_key()[0], moved)
    expected.pop(position_board(line, 15, 1).canonical_key()[0], None)
    assert twins.keys() == expected.keys()
    for key, twin in twins.items():  # each line reaches its key, with one stone moved
        assert position_board(twin, 15, 1).canonical_key()[0] == key
        assert sum(a != b for a, b in zip(twin.split(), line.split())) == 1
    assert moved_stone_twins("h8 h9", 15, 1) == {}  # (only the last: the siblings)


def test_a_build_in_rounds_replays_after_each_round(built: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # one job leaves the other three replies to the root's move open ...
    graph, opened = reopened(built, tmp_path / "one-job.sqlite")
    builder.build(graph, DEEP_JOBS, ROOT, builder.InProcess(), max_jobs=1)
    statuses = [graph.vertex(key).status for key in opened]  # type: ignore[union-attr]
    assert statuses.count("open") == 3
    # ... unless its round (as short as can be) ends with a replay, which proves them
    graph, opened = reopened(built, tmp_path / "rounds.sqlite")
    seconds: list[float] = []  # as the progress bar is told: the build's, rounds and all
    remembered: list[dict[int, builder.Replayed]] = []  # the memos the build keeps
    remember = graph.remember_replays

    def remember_and_see(memo: dict[int, builder.Replayed]) -> dict[int, builder.Replayed]:
        remembered.append(dict(memo))
        return remember(memo)

    monkeypatch.setattr(graph, "remember_replays", remember_and_see)
    builder.build(graph, DEEP_JOBS, ROOT, builder.InProcess(), max_jobs=1, replay_every=1e-9,
                  progress=lambda elapsed, line: seconds.append(elapsed))
    assert graph.vertex(root_position_key()).status == "proved"  # type: ignore[union-attr]
    assert len(seconds) >= 2 and seconds == sorted(seconds)
    # the round's replay was remembered (at the root, proved since: not kept in the graph)
    assert root_position_key() in remembered[0] and graph.replay_memo() == {}
    # (three at least played as a proved sibling was: the job's vertex, or the guide)
    guide = position_board(GUIDE, 15, 1).canonical_key()[0]
    moves = {key: played_move(graph, key) for key in [guide, *opened]}
    assert sum(any(moves[key] == move for other, move in moves.items() if other != key)
               for key in opened) >= 3
    assert verify(graph, threat_nodes=10).holes == []


def test_a_replay_skips_the_parents_it_replayed_before_unchanged(built: Path,
                                                                 tmp_path: Path) -> None:
    small = f"{ROOT} a5 h6"  # (its one-vertex proof leaves three replies open at GUIDE)
    graph, opened = reopened(built, tmp_path / "graph.sqlite", keep=small)
    child = expand_with(graph, f"{ROOT} a5 h10", "o1")  # (an expanded sibling: not replayed)
    replayed: dict[int, builder.Replayed] = {}
    builder.replay(graph, DEEP_JOBS, ROOT, builder.InProcess(), expanded=False,
                   replayed=replayed)
    assert graph.vertex(child) is not None  # the expanded sibling kept its move
    assert list(replayed) == [root_position_key()]
    targets, guides = replayed[root_position_key()]
    assert guides == (small,) and len(targets) == 3
    assert position_board(GUIDE, 15, 1).canonical_key()[0] in targets
    # the replays proved some targets: what is left is replayed once more (fewer targets,
    # more guides), then not again while nothing changes, though it is without the memo
    runner = CountingJobs()
    builder.replay(graph, DEEP_JOBS, ROOT, runner, expanded=False, replayed=replayed)
    assert 0 < runner.jobs < 3 and replayed[root_position_key()] != (targets, guides)
    runner.jobs = 0
    builder.replay(graph, DEEP_JOBS, ROOT, runner, expanded=False, replayed=replayed)
    assert runner.jobs == 0
    builder.replay(graph, DEEP_JOBS, ROOT, runner, expanded=False)
    assert runner.jobs > 0
    # the graph keeps the memo for the next build, but for the replays at vertices proved
    # or gone since, which no replay looks up again
    proved = position_board(small, 15, 1).canonical_key()[0]
    assert graph.vertex(proved).status == "proved"  # type: ignore[union-attr]
    assert graph.vertex(root_position_key()).status == "expanded"  # type: ignore[union-attr]
    gone = next(key for key in range(1, 100) if graph.vertex(key) is None)
    stale = {key: (frozenset({key}), (small,)) for key in (proved, gone)}
    assert graph.remember_replays({**replayed, **stale}) == replayed
    assert Graph(tmp_path / "graph.sqlite").replay_memo() == replayed


def test_a_replay_writes_each_batch_as_it_ends_and_stops_between_batches(
        built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(builder, "REPLAY_TARGETS_PER_SLOT", 1)
    graph, opened = reopened(built, tmp_path / "graph.sqlite")
    now = [0.0]
    proved_when_mapped: list[int] = []  # the targets proved in the graph as each batch starts

    class TenSecondBatches(builder.InProcess):
        """Jobs in this process, each batch taking ten seconds of the clock."""

        def map(self, job: builder.Job[builder.JobResult], jobs: list[tuple[str, str]],
                settings: builder.BuildSettings) -> list[builder.JobResult]:
            assert len(jobs) == 1
            proved_when_mapped.append(sum(graph.vertex(key).status == "proved"  # type: ignore
                                          for key in opened))
            now[0] += 10
            return super().map(job, jobs, settings)

    replayed: dict[int, builder.Replayed] = {}
    builder.replay(graph, DEEP_JOBS, ROOT, TenSecondBatches(), seconds=15, expanded=False,
                   cousins=False, replayed=replayed, clock=lambda: now[0])
    # two of the four targets replayed, the first written before the second began, and the
    # root's replay not remembered: the next one replays the two left
    assert proved_when_mapped == [0, 1]
    assert sum(graph.vertex(key).status == "proved" for key in opened) == 2  # type: ignore
    assert replayed == {}
    builder.replay(graph, DEEP_JOBS, ROOT, TenSecondBatches(), expanded=False, cousins=False,
                   replayed=replayed, clock=lambda: now[0])
    assert all(graph.vertex(key).status == "proved" for key in opened)  # type: ignore
    assert graph.vertex(root_position_key()).status == "proved"  # type: ignore[union-attr]


class CountingJobs(builder.InProcess):
    """Jobs in this process, counted."""

    jobs = 0

    def map(self, job: builder.Job[builder.JobResult], jobs: list[tuple[str, str]],
            settings: builder.BuildSettings) -> list[builder.JobResult]:
        self.jobs += len(jobs)
        return super().map(job, jobs, settings)


def isolation(line: str) -> int:
    """How many king moves the last stone of ``line`` lies from the nearest other stone."""
    moves = position_board(line, 15, 1).moves()
    (x, y), others = moves[-1], moves[:-1]
    return min(max(abs(x - a), abs(y - b)) for a, b in others)


def test_a_flood_has_its_farthest_reply_built_first(built: Path, tmp_path: Path) -> None:
    graph, opened = reopened(built, tmp_path / "graph.sqlite", keep=ROOT)  # (every reply open)
    lines = [graph.vertex(key).moves for key in opened]  # type: ignore[union-attr]
    probing = dataclasses.replace(DEEP_JOBS, flood_probe_replies=len(opened))
    probes = builder.flood_probes(graph, probing)
    assert len(probes) == 1 and probes[0] in lines
    assert isolation(probes[0]) == max(map(isolation, lines)) > min(map(isolation, lines))
    # not a flood: a reply proved, fewer open than the threshold, or the probes switched off
    assert builder.flood_probes(graph, dataclasses.replace(probing, flood_probe_replies=0)) == []
    assert builder.flood_probes(
        graph, dataclasses.replace(probing, flood_probe_replies=len(opened) + 1)) == []
    assert builder.flood_probes(graph, probing, [f"{ROOT} a5 {probes[0].split()[-1]}"]) == probes
    assert builder.flood_probes(graph, probing, ["h8 a1 i8 a2 j9 a3 h9 a4 a5 o1"]) == []
    # a job works on the probe, which the jobs deepest first would not have taken
    probe_key = position_board(probes[0], 15, 1).canonical_key()[0]
    attempts = graph.vertex(probe_key).attempts  # type: ignore[union-attr]
    builder.build(graph, dataclasses.replace(probing, flood_probe_replies=0), ROOT,
                  builder.InProcess(), max_jobs=1)
    assert graph.vertex(probe_key).attempts == attempts  # type: ignore[union-attr]
    graph, _ = reopened(built, tmp_path / "probed.sqlite", keep=ROOT)
    builder.build(graph, probing, ROOT, builder.InProcess(), max_jobs=1)
    probe = graph.vertex(probe_key)
    assert probe is not None and probe.attempts == attempts + 1
    # a reply worked on already is the flood's probe, whatever its distance
    graph, _ = reopened(built, tmp_path / "worked.sqlite", keep=ROOT)
    other = next(line for line in lines if line != probes[0])
    expand_with(graph, other, "o1")
    assert builder.flood_probes(graph, dataclasses.replace(
        probing, flood_probe_replies=len(opened) - 1)) == [other]
