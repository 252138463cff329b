"""Fit the evaluation's weights to game outcomes: ``python -m bot.tune MATCH_DIR [...]``.

Texel's method: every quiet position of the games recorded by ``sente-match`` (``results.jsonl``
in each folder) gives the evaluation's features, the class counts of ``evaluate.class_counts``
for the side to move and the opponent, and a label, the game's result for the side to move
(1 won, 0.5 drawn, 0 lost).  The weights are those of the logistic model
``P(win) = 1 / (1 + exp(-score / SCALE))`` that best predicts the labels (maximum likelihood with
a small L2 penalty, Newton's method).  Quiet: no five to make or block and no open four to make,
so the label is not decided by a tactic the search sees anyway.  ``--write`` puts the weights
into bot/config.py (EVAL_OWN and EVAL_OPP).

The weights committed came from self-play of the engine as it was at the commit before the
history heuristic (stopped after 362 games; 6,990 quiet positions; cross-entropy 0.696 with
the old weights, 0.491 fitted, 0.693 for a constant):
    python -m protocol.arena.openings.generate --random 600 --stones 4 --out openings.txt
    sente-match --selfplay '' '' --openings openings.txt --games 1200 --concurrency 2 \\
        --timeout-turn 100 --tolerance 4000 --out matches/tune-data
    python -m bot.tune matches/tune-data --write
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bot import config
from bot.core.board import Board
from bot.core.evaluate import class_counts
from bot.core.searchstate import CLASSES
from bot.core.shapes import C_FIVE, C_NONE, CLASS_NAMES
from bot.core.threats import scan_threats

SCALE = 300.0  # evaluation units per unit of log-odds: keeps weights near the ordering weights
L2 = 1e-3  # penalty on the squared weights (in log-odds units): steadies rarely seen classes
SKIP_PLIES = 2  # positions this close to the opening say little about the weights
# A class seen in fewer positions than this keeps its current weight: too few to fit.
MIN_SUPPORT = 300
# Classes fitted: NONE carries no information and FIVE never occurs in a quiet position.
FITTED = [c for c in range(CLASSES) if c not in (C_NONE, C_FIVE)]
CONFIG_FILE = Path(__file__).with_name("config.py")


@dataclass(frozen=True)
class Samples:
    features: np.ndarray  # float64[n, 2 * len(FITTED)]: own counts, then opponent counts
    labels: np.ndarray  # float64[n]: 1 the side to move won, 0.5 drawn, 0 lost


def game_positions(game: dict[str, Any]) -> Iterator[tuple[Board, float]]:
    """The quiet positions of one recorded game with the result for the side to move."""
    board = Board(game["width"], game["height"], game["rule"])
    moves = [tuple(m[:2]) for m in game["opening"]] + [tuple(m[:2]) for m in game["moves"]]
    played = len(game["opening"])
    for index, (x, y) in enumerate(moves):
        if index >= played + SKIP_PLIES:
            colour = board.side_to_move()
            own_five, opp_fives, _, own_win_four, _ = scan_threats(board.state, colour)
            if own_five < 0 and opp_fives == 0 and own_win_four < 0:
                winner = game["winner"]
                yield board, 0.5 if winner == 0 else float(winner == colour)
        if board.stone(x, y) != 0:
            return  # an illegal move ended the game: nothing after it is a real position
        board.play(x, y)


def collect(folders: Iterable[Path]) -> Samples:
    rows: list[np.ndarray] = []
    labels: list[float] = []
    counts = np.zeros(2 * CLASSES, dtype=np.int64)
    columns = FITTED + [CLASSES + c for c in FITTED]
    for folder in folders:
        for line in (folder / "results.jsonl").read_text().splitlines():
            game = json.loads(line)
            if game["cause"] not in ("five", "full_board", "adjudicated"):
                continue  # forfeits say nothing about the position
            for board, label in game_positions(game):
                class_counts(board.state, board.side_to_move(), counts)
                rows.append(counts[columns].astype(np.float64))
                labels.append(label)
    if not rows:
        raise SystemExit("no quiet positions found in the given folders")
    return Samples(np.vstack(rows), np.array(labels))


def loss(samples: Samples, weights: np.ndarray) -> float:
    """Mean cross-entropy of the model's predictions (weights in log-odds units)."""
    p = 1.0 / (1.0 + np.exp(-np.clip(samples.features @ weights, -30, 30)))
    p = np.clip(p, 1e-9, 1 - 1e-9)
    y = samples.labels
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def fit(samples: Samples, start: np.ndarray | None = None, iterations: int = 30) -> np.ndarray:
    """Maximum-likelihood weights (log-odds units) by Newton's method with an L2 penalty.

    Features present in fewer than MIN_SUPPORT positions keep their ``start`` weight (zero
    without one) and only shift the others' fit."""
    supported = np.count_nonzero(samples.features, axis=0) >= MIN_SUPPORT
    fixed = np.zeros(samples.features.shape[1]) if start is None else start.copy()
    offset = samples.features[:, ~supported] @ fixed[~supported]
    x, y = samples.features[:, supported], samples.labels
    n, k = x.shape
    w = np.zeros(k)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w + offset, -30, 30)))
        gradient = x.T @ (p - y) / n + L2 * w
        hessian = (x * (p * (1 - p))[:, None]).T @ x / n + L2 * np.eye(k)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.max(np.abs(step)) < 1e-9:
            break
    fixed[supported] = w
    return fixed


def as_config(weights: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """EVAL_OWN and EVAL_OPP in evaluation units; NONE stays 0, FIVE keeps its old value
    (a five never reaches the evaluation: the search scores it as a win)."""
    own = list(config.EVAL_OWN)
    opp = list(config.EVAL_OPP)
    half = len(FITTED)
    for i, c in enumerate(FITTED):
        own[c] = int(round(weights[i] * SCALE))
        opp[c] = int(round(-weights[half + i] * SCALE))  # the evaluation subtracts EVAL_OPP
    own[C_NONE] = opp[C_NONE] = 0
    return tuple(own), tuple(opp)


def current_weights() -> np.ndarray:
    own = [config.EVAL_OWN[c] / SCALE for c in FITTED]
    opp = [-config.EVAL_OPP[c] / SCALE for c in FITTED]
    return np.array(own + opp)


def write_config(own: tuple[int, ...], opp: tuple[int, ...]) -> None:
    text = CONFIG_FILE.read_text()
    for name, values in (("EVAL_OWN", own), ("EVAL_OPP", opp)):
        text, found = re.subn(rf"^{name} = .*$", f"{name} = {values}", text, flags=re.M)
        if found != 1:
            raise SystemExit(f"cannot find the line '{name} = ...' in {CONFIG_FILE}")
    CONFIG_FILE.write_text(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.tune", description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="sente-match output folders")
    parser.add_argument("--write", action="store_true", help="write the weights to config.py")
    args = parser.parse_args(argv)
    samples = collect(args.folders)
    weights = fit(samples, current_weights())
    own, opp = as_config(weights)
    print(f"positions: {len(samples.labels)}, mean label {samples.labels.mean():.3f}")
    support = np.count_nonzero(samples.features, axis=0)
    names = [f"own {CLASS_NAMES[c]}" for c in FITTED] + [f"opp {CLASS_NAMES[c]}" for c in FITTED]
    kept = [f"{name} ({count})" for name, count in zip(names, support) if count < MIN_SUPPORT]
    print("kept at their current weight (seen in too few positions): " + (", ".join(kept) or
                                                                          "none"))
    print(f"cross-entropy: current weights {loss(samples, current_weights()):.4f}, "
          f"fitted {loss(samples, weights):.4f}, constant {loss(samples, weights * 0):.4f}")
    print(f"EVAL_OWN = {own}\nEVAL_OPP = {opp}")
    if args.write:
        write_config(own, opp)
        print(f"written to {CONFIG_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
