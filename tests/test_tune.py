"""The evaluation's features and the Texel fit of its weights."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bot import config, tune
from bot.config import Config
from bot.core import shapes
from bot.core.board import Board
from bot.core.evaluate import evaluate, pattern_counts, pattern_table
from bot.core.shapes import CLASSES, SHAPES
from bot.engine import Engine
from bot.limits import Limits
from tests.conftest import ROOT, RULES, clustered_position, scaled


def random_config(rng: random.Random) -> Config:
    def weights(count: int) -> tuple[int, ...]:
        return tuple(rng.randrange(-50, 500) for _ in range(count))

    return Config(eval_own=weights(CLASSES), eval_opp=weights(CLASSES),
                  shape_own=weights(SHAPES), shape_opp=weights(SHAPES),
                  pattern_own=weights(shapes.PATTERNS), pattern_opp=weights(shapes.PATTERNS))


def cell_value(settings: Config, board: Board, x: int, y: int, colour: int, mover: bool) -> int:
    """One candidate cell's value for ``colour``, from the weights' definitions."""
    four = [board.shape(x, y, colour, d) for d in range(4)]
    pattern = shapes.pattern_shapes().index(tuple(sorted(four, reverse=True)))
    own = (settings.eval_own, settings.shape_own, settings.pattern_own)
    opp = (settings.eval_opp, settings.shape_opp, settings.pattern_opp)
    classes, lines, patterns = own if mover else opp
    return (classes[board.cell_class(x, y, colour)] + sum(lines[shape] for shape in four)
            + patterns[pattern])


@pytest.mark.pure_python
@pytest.mark.parametrize("rule", RULES)
def test_the_evaluation_sums_class_shape_and_pattern_weights_over_candidate_cells(
        rule: int) -> None:
    rng = random.Random(rule)
    settings = random_config(rng)
    counts = np.zeros(2 * shapes.PATTERNS, dtype=np.int64)
    seen: set[int] = set()
    for _ in range(scaled(60)):
        board, _, _ = clustered_position(rng, 15, 15, rule, settings.cell_values)
        for colour in (1, 2):
            expected = sum(cell_value(settings, board, x, y, colour, True)
                           - cell_value(settings, board, x, y, 3 - colour, False)
                           for x, y in board.candidates())
            assert evaluate(board.state, colour) == expected
            # the features the tuner fits: the same score is linear in the pattern counts
            pattern_counts(board.state, colour, pattern_table(), counts)
            assert counts[:shapes.PATTERNS].sum() == len(board.candidates())
            seen.update(int(feature) for feature in np.flatnonzero(counts))
    assert len(seen) > 80  # the positions exercised many patterns of both sides


def test_a_new_table_is_summed_afresh_over_the_position() -> None:
    rng = random.Random(9)
    first, second = random_config(rng), random_config(rng)
    board, _, _ = clustered_position(rng, 15, 15, 0, first.cell_values)
    stones = [(x, y, board.stone(x, y)) for x, y in board.moves()]
    board.set_cell_values(second.cell_values)
    fresh = Board(15, 15, 0, second.cell_values)
    fresh.setup(stones)
    assert np.array_equal(board.state.value_sums, fresh.state.value_sums)
    before = Board(15, 15, 0, first.cell_values)
    before.setup(stones)
    assert np.any(before.state.value_sums != fresh.state.value_sums)  # the change showed


def test_the_fit_recovers_the_weights_that_made_the_labels() -> None:
    rng = np.random.default_rng(3)
    true = rng.normal(0, 0.6, size=6)
    features = rng.poisson(2.0, size=(20000, 6)).astype(np.float64) - 2.0
    p = 1 / (1 + np.exp(-features @ true))
    labels = (rng.random(20000) < p).astype(np.float64)
    fitted = tune.fit(features, labels, np.full(6, 1e-4))
    assert np.max(np.abs(fitted - true)) < 0.1, (fitted, true)
    assert tune.loss(features, labels, fitted) < tune.loss(features, labels, true * 0) - 0.05


def test_positions_come_from_the_records_labelled_for_the_side_to_move(tmp_path: Path) -> None:
    # black makes five on row 0 while white plays on row 5; black wins
    opening = [[0, 0], [0, 5]]
    moves = [[1, 0, 5], [1, 5, 5], [2, 0, 5], [2, 5, 5], [3, 0, 5], [9, 9, 5], [4, 0, 5]]
    game = {"width": 15, "height": 15, "rule": 0, "opening": opening, "moves": moves,
            "winner": 1, "cause": "five"}
    forfeit = dict(game, cause="timeout")
    (tmp_path / "results.jsonl").write_text(json.dumps(game) + "\n" + json.dumps(forfeit) + "\n")
    samples = tune.collect([tmp_path])
    # plies 4..8 are past the opening's two skipped plies; at ply 7 white must block black's
    # four and at ply 8 black completes it, so plies 4, 6 (black to move) and 5 are quiet
    assert list(samples.labels) == [1.0, 0.0, 1.0]
    assert list(samples.games) == [0, 0, 0]
    assert samples.features().shape == (3, len(tune.feature_names()) + 1)
    assert list(samples.black) == [1.0, -1.0, 1.0]
    # the first quiet position (black to move, ply 4): counts of the mover's patterns first
    board = Board(15, 15, 0)
    for x, y in [(0, 0), (0, 5), (1, 0), (1, 5)]:
        board.play(x, y)
    expected = np.zeros(2 * shapes.PATTERNS, dtype=np.int64)
    pattern_counts(board.state, 1, pattern_table(), expected)
    assert np.array_equal(samples.counts[0], expected)


def test_fitted_weights_go_back_to_their_tables_with_the_evaluation_sign() -> None:
    """as_config inverts current_weights: each table gets its entries back, the opponent's
    tables with the sign the evaluation subtracts them with."""
    tables = tune.as_config(tune.current_weights())
    for group in tune.GROUPS:
        assert tables[group.name] == getattr(config, group.name), group.name


def test_written_tables_are_read_back_by_the_config(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "config.py"
    copy.write_text(tune.CONFIG_FILE.read_text())
    monkeypatch.setattr(tune, "CONFIG_FILE", copy)
    tables = tune.as_config(tune.current_weights() * 1.5)
    tune.write_config(tables)
    tune.write_config(tables)  # a second write finds the tables the first one wrote
    namespace: dict[str, object] = {}
    exec(compile(copy.read_text(), str(copy), "exec"), namespace)
    for name, table in tables.items():
        assert namespace[name] == table, name


def test_the_policy_fit_learns_which_candidates_get_played() -> None:
    """Moves drawn from a known softmax over the candidates' patterns: the fit's likelihood
    comes close to that of the true values, far above the start's."""
    rng = np.random.default_rng(4)
    positions, per_position, used = 3000, 12, 30
    true_own = np.zeros(shapes.PATTERNS)
    true_opp = np.zeros(shapes.PATTERNS)
    true_own[1:used] = rng.normal(0, 1.5, used - 1)
    true_opp[1:used] = rng.normal(0, 1.5, used - 1)
    entries = np.zeros((positions * per_position, 4), dtype=np.int64)
    entries[:, 2] = rng.integers(0, used, len(entries))
    entries[:, 3] = rng.integers(0, used, len(entries))
    logits = (true_own[entries[:, 2]] + true_opp[entries[:, 3]]).reshape(positions, per_position)
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    played = np.array([rng.choice(per_position, p=row) for row in p])
    starts = np.arange(positions + 1) * per_position
    choices = tune.Choices(entries, starts, starts[:-1] + played, np.arange(positions))
    start = np.zeros(len(tune.feature_names(tune.POLICY_GROUPS)))
    model = tune.PolicyModel(choices, start)
    fitted = model.fit(tune.penalties(tune.POLICY_GROUPS) * 0.01)
    columns = tune.feature_names(tune.POLICY_GROUPS)
    true = start.copy()
    for i in range(1, used):
        true[columns.index(f"POLICY_OWN {tune.PATTERN_NAMES[i]}")] = true_own[i]
        true[columns.index(f"POLICY_OPP {tune.PATTERN_NAMES[i]}")] = true_opp[i]
    assert model.loss(fitted) < model.loss(true) + 0.02
    assert model.loss(fitted) < model.loss(start) - 0.3
    assert model.top(fitted, 1) > model.top(start, 1) + 0.2


def test_choices_are_the_candidates_the_search_generates(tmp_path: Path) -> None:
    opening = [[7, 7], [8, 8]]
    moves = [[6, 7, 5], [9, 9, 5], [5, 7, 5], [10, 10, 5], [4, 7, 5]]
    game = {"width": 15, "height": 15, "rule": 0, "opening": opening, "moves": moves,
            "winner": 1, "cause": "five"}
    (tmp_path / "results.jsonl").write_text(json.dumps(game) + "\n")
    choices = tune.collect_choices([tmp_path])
    board = Board(15, 15, 0)
    for x, y in [(7, 7), (8, 8), (6, 7), (9, 9)]:
        board.play(x, y)
    # ply 4 (black to move, after the two skipped plies) is the first position; black plays
    # (5, 7), making an open three: its class and the opponent's there are the played row's
    played = choices.entries[choices.played[0]]
    assert list(played[:2]) == [board.cell_class(5, 7, 1), board.cell_class(5, 7, 2)]
    assert choices.starts[1] - choices.starts[0] == len(board.candidates())
    # ply 5: white must answer the open three and plays (10, 10), no move the search would
    # generate there, so the position is left out; ply 6: black makes an open four, no choice
    assert len(choices.played) == 1


def test_search_labels_mix_the_outcome_with_the_search_score(tmp_path: Path) -> None:
    opening = [[7, 7], [8, 8]]
    moves = [[7, 8, 5], [6, 8, 5], [3, 3, 5], [11, 11, 5], [3, 11, 5], [11, 3, 5], [5, 9, 5],
             [9, 5, 5], [12, 7, 5]]  # scattered: every position past the opening is quiet
    game = {"width": 15, "height": 15, "rule": 0, "opening": opening, "moves": moves,
            "winner": 1, "cause": "five"}
    (tmp_path / "results.jsonl").write_text(json.dumps(game) + "\n")
    outcomes = tune.collect([tmp_path]).labels
    searched = tune.collect([tmp_path], search_depth=2, outcome_weight=0.0).labels
    mixed = tune.collect([tmp_path], search_depth=2, outcome_weight=0.25).labels
    assert len(outcomes) == len(searched) >= 3
    assert np.allclose(mixed, 0.25 * outcomes + 0.75 * searched)
    # each label is the search's own judgement of that position, for the side to move
    engine = Engine()
    for (board, _), label in zip(tune.game_positions(game), searched):
        engine.new_game(15, 15, 0)
        for x, y in board.moves():
            engine.play(x, y)
        score = engine.think(Limits(timeout_turn_ms=600_000, max_depth=2)).score
        assert label == pytest.approx(1 / (1 + np.exp(-score / tune.SCALE)), abs=0.02)


def test_the_tuner_runs_where_the_ahead_of_time_library_is_built(native_library: Path,
                                                                  tmp_path: Path) -> None:
    """With a fresh library the default backend is the native one, whose buffers are no
    numpy arrays; the tuner picks the JIT by itself and fits."""
    moves = [[6, 7, 5], [9, 9, 5], [5, 8, 5], [10, 10, 5], [4, 9, 5], [9, 6, 5], [3, 10, 5]]
    game = {"width": 15, "height": 15, "rule": 0, "opening": [[7, 7], [8, 8]], "moves": moves,
            "winner": 1, "cause": "five"}
    (tmp_path / "results.jsonl").write_text(json.dumps(game) + "\n")
    env = {name: value for name, value in os.environ.items() if name != "SENTE_KERNELS"}
    env["SENTE_NATIVE_DIR"] = str(native_library)
    done = subprocess.run([sys.executable, "-m", "bot.tune", str(tmp_path), "--policy"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    env["SENTE_KERNELS"] = "native"
    refused = subprocess.run([sys.executable, "-m", "bot.tune", str(tmp_path), "--policy"],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert refused.returncode == 2 and "SENTE_KERNELS=jit" in refused.stderr
