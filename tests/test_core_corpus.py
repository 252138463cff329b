"""Labelled positions: renju fouls (quintet, MIT) and caro outcomes (GomocupJudge)."""

from __future__ import annotations

import json

import pytest

from bot.core.board import Board
from tests.conftest import DATA

pytestmark = pytest.mark.pure_python

FOUL_LABELS = {"none": 0, "double_three": 1, "double_four": 2, "overline": 3}


def load(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line]


def build(case: dict, rule: int) -> Board:
    board = Board(case["board_size"], case["board_size"], rule)
    board.setup([(x, y, 1) for x, y in case["black"]] + [(x, y, 2) for x, y in case["white"]])
    return board


@pytest.mark.parametrize("case", load("renju_forbidden_quintet_mit.jsonl"), ids=lambda c: c["id"])
def test_renju_fouls_match_every_labelled_point(case: dict) -> None:
    board = build(case, 4)
    for label in case["point_labels"]:
        assert board.foul(*label["point"]) == FOUL_LABELS[label["label"]], label
    if case["complete_labeling"]:
        labelled = {tuple(p["point"]) for p in case["point_labels"] if p["label"] != "none"}
        assert set(board.forbidden_points()) == labelled


@pytest.mark.parametrize("case", load("caro_cases.jsonl"), ids=lambda c: c["id"])
def test_caro_outcomes_match_the_gomocup_referee(case: dict) -> None:
    board = build(case, case["gomocup_rule_code"])
    colour = 1 if case["mover"] == "black" else 2
    assert board.wins(*case["move"], colour) == (case["expected"] != "no_win")
