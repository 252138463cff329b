"""Fit the evaluation's weights to game outcomes: ``python -m bot.tune MATCH_DIR [...]``.

Texel's method: every quiet position of the games recorded by ``sente-match`` (``results.jsonl``
in each folder) gives the evaluation's features (``evaluate.features``: the class counts and the
line-shape counts of the side to move and of the opponent) and a label, the game's result for the side to move
(1 won, 0.5 drawn, 0 lost).  The weights are those of the logistic model
``P(win) = 1 / (1 + exp(-score / SCALE))`` that best predicts the labels (maximum likelihood with
a small L2 penalty, Newton's method).  Quiet: no five to make or block and no open four to make,
so the label is not decided by a tactic the search sees anyway.  ``--write`` puts the weights
into bot/config.py (EVAL_OWN, EVAL_OPP, SHAPE_OWN and SHAPE_OPP).

The weights committed (classes and line shapes) came from self-play of the engine at the commit
that added the line-shape features (weights of the shapes 0): 459 games at 100 ms per move, plus
the 360 games at 200 ms of three SPRT runs of the same days, 15,418 quiet positions;
cross-entropy 0.540 with the previous weights, 0.498 fitted, 0.693 for a constant (held out: a
fit on the 459 games alone took the other games' cross-entropy from 0.599 to 0.564):
    python -m protocol.arena.openings.generate --random 600 --stones 4 --seed 11 \\
        --out openings.txt
    sente-match --selfplay '' '' --openings openings.txt --games 600 --concurrency 2 \\
        --timeout-turn 100 --tolerance 4000 --out matches/tune-data
    python -m bot.tune matches/tune-data matches/sprt-* --write
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
from bot.core import evaluate
from bot.core.shapes import C_FIVE, C_NONE, CLASS_NAMES, FIVE, NONE, SHAPE_NAMES
from bot.core.threats import scan_threats

SCALE = 300.0  # evaluation units per unit of log-odds: keeps weights near the ordering weights
L2 = 1e-3  # penalty on the squared weights (in log-odds units): steadies rarely seen classes
SKIP_PLIES = 2  # positions this close to the opening say little about the weights
# A class seen in fewer positions than this keeps its current weight: too few to fit.
MIN_SUPPORT = 300
CONFIG_FILE = Path(__file__).with_name("config.py")


@dataclass(frozen=True)
class Group:
    """One table of weights in bot/config.py and where its features lie in the vector."""

    name: str  # the constant in bot/config.py
    offset: int  # first feature of the group in evaluate.features' vector
    names: tuple[str, ...]  # of its entries
    skipped: tuple[int, ...]  # entries not fitted (no information, or never quiet)
    sign: int  # +1 added to the score, -1 subtracted (the opponent's)

    def fitted(self) -> list[int]:
        return [i for i in range(len(self.names)) if i not in self.skipped]


GROUPS = (
    Group("EVAL_OWN", evaluate.OWN_CLASSES, CLASS_NAMES, (C_NONE, C_FIVE), 1),
    Group("EVAL_OPP", evaluate.OPP_CLASSES, CLASS_NAMES, (C_NONE, C_FIVE), -1),
    Group("SHAPE_OWN", evaluate.OWN_SHAPES, SHAPE_NAMES, (NONE, FIVE), 1),
    Group("SHAPE_OPP", evaluate.OPP_SHAPES, SHAPE_NAMES, (NONE, FIVE), -1),
)
COLUMNS = [group.offset + i for group in GROUPS for i in group.fitted()]


@dataclass(frozen=True)
class Samples:
    features: np.ndarray  # float64[n, len(COLUMNS)]: the fitted features of each position
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
    counts = np.zeros(evaluate.FEATURES, dtype=np.int64)
    for folder in folders:
        for line in (folder / "results.jsonl").read_text().splitlines():
            game = json.loads(line)
            if game["cause"] not in ("five", "full_board", "adjudicated"):
                continue  # forfeits say nothing about the position
            for board, label in game_positions(game):
                evaluate.features(board.state, board.side_to_move(), counts)
                rows.append(counts[COLUMNS].astype(np.float64))
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


def as_config(weights: np.ndarray) -> dict[str, tuple[int, ...]]:
    """Each group's table in evaluation units; entries not fitted keep their value (a five
    never reaches the evaluation: the search scores it as a win)."""
    tables: dict[str, tuple[int, ...]] = {}
    column = 0
    for group in GROUPS:
        table = list(getattr(config, group.name))
        for i in group.fitted():
            table[i] = int(round(group.sign * weights[column] * SCALE))
            column += 1
        tables[group.name] = tuple(table)
    return tables


def current_weights() -> np.ndarray:
    return np.array([group.sign * getattr(config, group.name)[i] / SCALE
                     for group in GROUPS for i in group.fitted()])


def feature_names() -> list[str]:
    return [f"{group.name} {group.names[i]}" for group in GROUPS for i in group.fitted()]


def write_config(tables: dict[str, tuple[int, ...]]) -> None:
    text = CONFIG_FILE.read_text()
    for name, values in tables.items():
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
    tables = as_config(weights)
    print(f"positions: {len(samples.labels)}, mean label {samples.labels.mean():.3f}")
    support = np.count_nonzero(samples.features, axis=0)
    kept = [f"{name} ({count})" for name, count in zip(feature_names(), support)
            if count < MIN_SUPPORT]
    print("kept at their current weight (seen in too few positions): " + (", ".join(kept) or
                                                                          "none"))
    print(f"cross-entropy: current weights {loss(samples, current_weights()):.4f}, "
          f"fitted {loss(samples, weights):.4f}, constant {loss(samples, weights * 0):.4f}")
    for name, values in tables.items():
        print(f"{name} = {values}")
    if args.write:
        write_config(tables)
        print(f"written to {CONFIG_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
