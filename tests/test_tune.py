"""The evaluation's features and the Texel fit of its weights."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from bot import tune
from bot.config import Config
from bot import config
from bot.core.evaluate import FEATURES, OPP_CLASSES, OPP_SHAPES, OWN_CLASSES, OWN_SHAPES
from bot.core.evaluate import evaluate, features
from bot.core.searchstate import CLASSES, SHAPES
from tests.conftest import RULES, clustered_position, scaled


@pytest.mark.pure_python
@pytest.mark.parametrize("rule", RULES)
def test_the_evaluation_is_its_weights_dotted_with_the_features(rule: int) -> None:
    rng = random.Random(rule)

    def weights(count: int) -> tuple[int, ...]:
        return tuple(rng.randrange(-50, 500) for _ in range(count))

    settings = Config(eval_own=weights(CLASSES), eval_opp=weights(CLASSES),
                      shape_own=weights(SHAPES), shape_opp=weights(SHAPES))
    array = settings.as_array()
    counts = np.zeros(FEATURES, dtype=np.int64)
    for _ in range(scaled(200)):
        board, _, _ = clustered_position(rng, 15, 15, rule)
        for colour in (1, 2):
            features(board.state, colour, counts)
            expected = (np.dot(settings.eval_own, counts[OWN_CLASSES:OWN_CLASSES + CLASSES])
                        - np.dot(settings.eval_opp, counts[OPP_CLASSES:OPP_CLASSES + CLASSES])
                        + np.dot(settings.shape_own, counts[OWN_SHAPES:OWN_SHAPES + SHAPES])
                        - np.dot(settings.shape_opp, counts[OPP_SHAPES:OPP_SHAPES + SHAPES]))
            assert evaluate(board.state, colour, array) == expected
            candidates = len(board.candidates())
            assert counts[OWN_CLASSES:OWN_CLASSES + CLASSES].sum() == candidates
            assert counts[OWN_SHAPES:OWN_SHAPES + SHAPES].sum() == 4 * candidates


def test_the_fit_recovers_the_weights_that_made_the_labels() -> None:
    rng = np.random.default_rng(3)
    true = rng.normal(0, 0.6, size=6)
    features = rng.poisson(2.0, size=(20000, 6)).astype(np.float64) - 2.0
    p = 1 / (1 + np.exp(-features @ true))
    labels = (rng.random(20000) < p).astype(np.float64)
    fitted = tune.fit(tune.Samples(features, labels))
    assert np.max(np.abs(fitted - true)) < 0.1, (fitted, true)
    samples = tune.Samples(features, labels)
    assert tune.loss(samples, fitted) < tune.loss(samples, true * 0) - 0.05


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
    assert samples.features.shape == (3, len(tune.COLUMNS))


def test_fitted_weights_go_back_to_their_tables_with_the_evaluation_sign() -> None:
    """as_config inverts current_weights: each table gets its entries back, the opponent's
    tables with the sign the evaluation subtracts them with."""
    tables = tune.as_config(tune.current_weights())
    for group in tune.GROUPS:
        assert tables[group.name] == tuple(getattr(config, group.name)), group.name
