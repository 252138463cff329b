"""Fit the evaluation's weights to game outcomes: ``python -m bot.tune MATCH_DIR [...]``.

Texel's method: every quiet position of the games recorded by ``sente-match`` (``results.jsonl``
in each folder) gives the evaluation's features and a label, the game's result for the side to
move (1 won, 0.5 drawn, 0 lost).  The features are the pattern counts of the side to move and of
the opponent (``evaluate.pattern_counts``: candidate cells per multiset of four line shapes);
the evaluation's tables (per class, per line shape, per pattern: bot.config) are all linear in
them.  The weights are those of the logistic model ``P(win) = 1 / (1 + exp(-score / SCALE))``
that best predict the labels (maximum likelihood with an L2 penalty, Newton's method); the
pattern weights get a larger penalty, so a pattern moves away from what its class and shapes
say only where the games show it.  Quiet: no five to make or block and no open four to make, so
the label is not decided by a tactic the search sees anyway.  ``--holdout`` reports how well a
fit on the other games predicts every fifth game; ``--write`` puts the weights (fitted on every
game) into bot/config.py.

``--policy`` fits the move ordering instead (ORDER_OWN, ORDER_OPP, POLICY_OWN, POLICY_OPP): the
candidates' ordering values, read as log-probabilities, are fitted to the moves played (a
softmax over the candidates the search generates in each position with a choice).

The move ordering committed (ORDER_*, POLICY_*) was fitted to 600 self-play games at 100 ms
per move of commit 4d7f6e7 (15,811 positions with a choice; held out, the move played was
first in 0.337 -> 0.349 of them, in the best three in 0.568 -> 0.640):
    python -m protocol.arena.openings.generate --random 600 --stones 4 --seed 11 \\
        --out openings.txt
    sente-match --selfplay '' '' --openings openings.txt --games 600 --concurrency 2 \\
        --timeout-turn 100 --tolerance 4000 --out matches/tune-data
    python -m bot.tune matches/tune-data --policy --holdout --write
The evaluation committed (EVAL_*, SHAPE_*, PATTERN_*) was fitted to 1,739 games on the balanced
openings (protocol/arena/openings/balanced_15x15.txt, --symmetry --random-order): 1,489 of
four SPRTs at 200 ms a move between versions from commit ef29766 on, and 250 of that commit at
500 ms against Pela, AIWine and Rapfi; 58,975 quiet positions, each labelled 0.3 x the game's
result + 0.7 x a depth-6 search's judgement (30 minutes of one core). Held out (every fifth
game), the cross-entropy went 0.5849 -> 0.5697, and the SPRT against the former tables gave
+30 Elo [+7, +54] (H1, 572 games at 200 ms on the balanced openings):
    sente-match --engine "A=..." "B=..." --openings protocol/arena/openings/balanced_15x15.txt \\
        --symmetry --random-order --games 800 --concurrency 2 --timeout-turn 200 \\
        --sprt 0 30 0.05 0.05 --out matches/sprt-N          # four such SPRTs, and
    sente-match --engine "Sente=..." "Pela=pbrain-pela" --openings ... --games 100 \\
        --timeout-turn 500 --out matches/pela                # also AIWine and Rapfi
    python -m bot.tune matches/sprt-* matches/pela matches/aiwine matches/rapfi \\
        --search-depth 6 --outcome-weight 0.3 --holdout --write
The tables before them were fitted the same way to 434 games on random openings (11,330
positions; held out 0.4552 -> 0.4470; +36 Elo [+7, +65] against the tables before).
Fits to outcomes alone (600 games at 100 ms from unbalanced openings) had improved the held-out
cross-entropy too (0.600 -> 0.565) but lost their SPRTs (-50 and -97 Elo, README): outcomes of
such games are too weak a label on their own.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

# The fits read the kernels' buffers as numpy arrays (slices, sums), which only the JIT's are:
# the JIT unless SENTE_KERNELS says otherwise, decided before bot.core is imported.
os.environ.setdefault("SENTE_KERNELS", "jit")

from bot import config  # noqa: E402
from bot.config import Config  # noqa: E402
from bot.core import evaluate, shapes  # noqa: E402
from bot.core.board import Board  # noqa: E402
from bot.core.movepick import generate_moves  # noqa: E402
from bot.core.native import backend  # noqa: E402
from bot.core.searchstate import new_search_state  # noqa: E402
from bot.core.shapes import (  # noqa: E402
    C_FIVE, C_NONE, CLASS_NAMES, FIVE, NONE, PATTERNS, SHAPE_NAMES,
)
from bot.core.threats import scan_threats  # noqa: E402
from bot.engine import Engine  # noqa: E402
from bot.limits import Limits  # noqa: E402

SCALE = 300.0  # evaluation units per unit of log-odds: keeps weights near the ordering weights
# Penalties on the squared weights (in log-odds units): larger steadies rarely seen features
# and fits the games less closely.  The pattern weights correct the class and shape weights,
# so they are held closer to 0.
L2 = 1e-3
PATTERN_L2 = 1e-2
SKIP_PLIES = 2  # positions this close to the opening say little about the weights
# A feature seen in fewer positions than this keeps its current weight: too few to fit.
MIN_SUPPORT = 300
HOLDOUT_EVERY = 5  # --holdout: every fifth game is held out
SEARCH_LABEL_HASH_MIB = 16  # --search-depth: the labelling engine's table (short searches)
CONFIG_FILE = Path(__file__).with_name("config.py")
# The move ordering (--policy): ordering units per unit of log-probability of the played move.
# Larger gives the fitted values finer steps; the fours' fixed weights must stay above them.
POLICY_SCALE = 100.0
POLICY_STEPS = 400  # gradient steps of the policy fit: more converges closer, slower
POLICY_RATE = 0.05  # step size (Adam) of the policy fit, in log-probability units
PATTERN_NAMES = tuple(shapes.pattern_name(p) for p in range(PATTERNS))


@dataclass(frozen=True)
class Group:
    """One table of weights in bot/config.py."""

    name: str  # the constant in bot/config.py
    names: tuple[str, ...]  # of its entries
    skipped: tuple[int, ...]  # entries not fitted (no information, or never quiet)
    sign: int  # +1 added to the score, -1 subtracted (the opponent's)
    penalty: float

    def fitted(self) -> list[int]:
        return [i for i in range(len(self.names)) if i not in self.skipped]


GROUPS = (
    Group("EVAL_OWN", CLASS_NAMES, (C_NONE, C_FIVE), 1, L2),
    Group("EVAL_OPP", CLASS_NAMES, (C_NONE, C_FIVE), -1, L2),
    Group("SHAPE_OWN", SHAPE_NAMES, (NONE, FIVE), 1, L2),
    Group("SHAPE_OPP", SHAPE_NAMES, (NONE, FIVE), -1, L2),
    Group("PATTERN_OWN", PATTERN_NAMES, (0,), 1, PATTERN_L2),
    Group("PATTERN_OPP", PATTERN_NAMES, (0,), -1, PATTERN_L2),
)


def feature_matrix() -> np.ndarray:
    """float64[2 * PATTERNS, fitted weights]: column j holds how much one cell of each pattern
    (the mover's, then the opponent's) adds to the feature of the j-th fitted weight."""
    per_pattern = {
        "EVAL": np.zeros((PATTERNS, shapes.CLASSES)),
        "SHAPE": np.zeros((PATTERNS, shapes.SHAPES)),
        "PATTERN": np.eye(PATTERNS),
    }
    for p, four in enumerate(shapes.pattern_shapes()):
        per_pattern["EVAL"][p, shapes.class_of_shapes(*four)] = 1
        for shape in four:
            per_pattern["SHAPE"][p, shape] += 1
    columns = []
    for group in GROUPS:
        kind, side = group.name.split("_")
        block = np.zeros((2 * PATTERNS, len(group.names)))
        rows = slice(0, PATTERNS) if side == "OWN" else slice(PATTERNS, 2 * PATTERNS)
        block[rows] = per_pattern[kind]
        columns.append(block[:, group.fitted()])
    return np.hstack(columns)


@dataclass(frozen=True)
class Samples:
    counts: np.ndarray  # float64[n, 2 * PATTERNS]: pattern counts of each position
    labels: np.ndarray  # float64[n]: 1 the side to move won, 0.5 drawn, 0 lost
    games: np.ndarray  # int64[n]: the number of the game each position comes from
    black: np.ndarray  # float64[n]: +1 black is to move, -1 white is

    def features(self) -> np.ndarray:
        """One column per fitted weight (feature_names), then the colour column: a nuisance
        weight on ``black`` absorbs how much the openings favour black, so the tables do not
        have to (it is fitted, never written)."""
        return np.hstack([self.counts @ feature_matrix(), self.black[:, None]])

    def subset(self, keep: np.ndarray) -> Samples:
        return Samples(self.counts[keep], self.labels[keep], self.games[keep], self.black[keep])


def quiet_positions(game: dict[str, Any]) -> Iterator[tuple[Board, tuple[int, int], bool]]:
    """The quiet positions of one recorded game past its opening and SKIP_PLIES: those where
    the side to move has no five to make or block and no open four to make, so neither the
    result nor the move was decided by a tactic the search sees anyway.  With each: the move
    played there and whether the opponent had an open three."""
    board = Board(game["width"], game["height"], game["rule"])
    moves = [tuple(m[:2]) for m in game["opening"]] + [tuple(m[:2]) for m in game["moves"]]
    played = len(game["opening"])
    for index, (x, y) in enumerate(moves):
        if index >= played + SKIP_PLIES:
            colour = board.side_to_move()
            own_five, opp_fives, _, own_win_four, opp_three = scan_threats(
                board.state, colour, True)
            if own_five < 0 and opp_fives == 0 and own_win_four < 0:
                yield board, (x, y), opp_three
        if board.stone(x, y) != 0:
            return  # an illegal move ended the game: nothing after it is a real position
        board.play(x, y)


def game_positions(game: dict[str, Any]) -> Iterator[tuple[Board, float]]:
    """The quiet positions of one recorded game with the result for the side to move."""
    winner = game["winner"]
    for board, _, _ in quiet_positions(game):
        yield board, 0.5 if winner == 0 else float(winner == board.side_to_move())


class SearchLabels:
    """A position's search score as a label: ``1 / (1 + exp(-score / SCALE))`` for the side to
    move after a search to ``depth`` plies (one engine, kept in step with the positions)."""

    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.engine = Engine()
        self.engine.set_memory(hash_mib=SEARCH_LABEL_HASH_MIB)

    def label(self, board: Board) -> float:
        engine, moves, current = self.engine, board.moves(), self.engine.board
        known = current.moves() if current is not None else []
        if (current is None or known != moves[: len(known)]
                or (current.width, current.height, current.rule)
                != (board.width, board.height, board.rule)):
            engine.new_game(board.width, board.height, board.rule)
            known = []
        for x, y in moves[len(known):]:
            engine.play(x, y)
        score = engine.think(Limits(timeout_turn_ms=600_000, max_depth=self.depth)).score
        return float(1.0 / (1.0 + np.exp(-np.clip(score / SCALE, -30, 30))))


def collect(folders: Iterable[Path], search_depth: int = 0,
            outcome_weight: float = 1.0) -> Samples:
    """The quiet positions of the games in ``folders``, labelled with the game's result, or,
    with ``search_depth``, ``outcome_weight`` * result + (1 - outcome_weight) * the search's
    judgement (SearchLabels)."""
    searcher = SearchLabels(search_depth) if search_depth > 0 else None
    rows: list[np.ndarray] = []
    labels: list[float] = []
    games: list[int] = []
    black: list[float] = []
    counts = np.zeros(2 * PATTERNS, dtype=np.int64)
    patterns = evaluate.pattern_table()
    number = 0
    for folder in folders:
        for line in (folder / "results.jsonl").read_text().splitlines():
            game = json.loads(line)
            if game["cause"] not in ("five", "full_board", "adjudicated"):
                continue  # forfeits say nothing about the position
            for board, label in game_positions(game):
                if searcher is not None:
                    label = (outcome_weight * label
                             + (1.0 - outcome_weight) * searcher.label(board))
                evaluate.pattern_counts(board.state, board.side_to_move(), patterns, counts)
                rows.append(counts.astype(np.float32))
                labels.append(label)
                games.append(number)
                black.append(1.0 if board.side_to_move() == shapes.BLACK else -1.0)
            number += 1
    if not rows:
        raise SystemExit("no quiet positions found in the given folders")
    return Samples(np.vstack(rows).astype(np.float64), np.array(labels), np.array(games),
                   np.array(black))


def loss(features: np.ndarray, labels: np.ndarray, weights: np.ndarray) -> float:
    """Mean cross-entropy of the model's predictions (weights in log-odds units)."""
    p = 1.0 / (1.0 + np.exp(-np.clip(features @ weights, -30, 30)))
    p = np.clip(p, 1e-9, 1 - 1e-9)
    return float(-np.mean(labels * np.log(p) + (1 - labels) * np.log(1 - p)))


def fit(features: np.ndarray, labels: np.ndarray, penalties: np.ndarray,
        start: np.ndarray | None = None, iterations: int = 30) -> np.ndarray:
    """Maximum-likelihood weights (log-odds units) by Newton's method, with the L2 penalty
    ``penalties[j]`` on weight j.

    Features present in fewer than MIN_SUPPORT positions keep their ``start`` weight (zero
    without one) and only shift the others' fit."""
    supported = np.count_nonzero(features, axis=0) >= MIN_SUPPORT
    fixed = np.zeros(features.shape[1]) if start is None else start.copy()
    offset = features[:, ~supported] @ fixed[~supported]
    x = features[:, supported]
    penalty = penalties[supported]
    n, k = x.shape
    w = fixed[supported].copy()
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w + offset, -30, 30)))
        gradient = x.T @ (p - labels) / n + penalty * w
        hessian = (x * (p * (1 - p))[:, None]).T @ x / n + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.max(np.abs(step)) < 1e-9:
            break
    fixed[supported] = w
    return fixed


def penalties(groups: tuple[Group, ...] = GROUPS) -> np.ndarray:
    return np.array([group.penalty for group in groups for _ in group.fitted()])


def current_weights(groups: tuple[Group, ...] = GROUPS, scale: float = SCALE) -> np.ndarray:
    return np.concatenate([np.array(_table(group), dtype=np.float64)[group.fitted()]
                           * group.sign / scale for group in groups])


def _table(group: Group) -> list[int]:
    value = getattr(config, group.name)
    if isinstance(value, dict):
        return list(config.pattern_weights(value))
    return list(value)


def as_config(weights: np.ndarray, groups: tuple[Group, ...] = GROUPS,
              scale: float = SCALE) -> dict[str, tuple[int, ...] | dict[str, int]]:
    """Each group's table in evaluation units (pattern tables as {name: weight} without the
    zeros); entries not fitted keep their value (a five never reaches the evaluation: the
    search scores it as a win)."""
    tables: dict[str, tuple[int, ...] | dict[str, int]] = {}
    column = 0
    for group in groups:
        table = _table(group)
        for i in group.fitted():
            table[i] = int(round(group.sign * weights[column] * scale))
            column += 1
        if group.names is PATTERN_NAMES:
            tables[group.name] = {group.names[i]: v for i, v in enumerate(table) if v}
        else:
            tables[group.name] = tuple(table)
    return tables


def feature_names(groups: tuple[Group, ...] = GROUPS) -> list[str]:
    return [f"{group.name} {group.names[i]}" for group in groups for i in group.fitted()]


def config_text(name: str, value: tuple[int, ...] | dict[str, int]) -> str:
    if isinstance(value, tuple):
        return f"{name} = {value}"
    lines = [f'    "{key}": {weight},' for key, weight in value.items()]
    return "\n".join([f"{name}: dict[str, int] = {{", *lines, "}"])


def write_config(tables: dict[str, tuple[int, ...] | dict[str, int]]) -> None:
    text = CONFIG_FILE.read_text()
    for name, values in tables.items():
        pattern = (rf"^{name}: dict\[str, int\] = \{{[^}}]*\}}" if isinstance(values, dict)
                   else rf"^{name} = .*$")
        text, found = re.subn(pattern, lambda _: config_text(name, values), text, flags=re.M)
        if found != 1:
            raise SystemExit(f"cannot find the table '{name}' in {CONFIG_FILE}")
    CONFIG_FILE.write_text(text)


def eval_start() -> tuple[np.ndarray, np.ndarray]:
    """The evaluation fit's start (the current tables, colour weight 0) and penalties."""
    return np.append(current_weights(), 0.0), np.append(penalties(), 0.0)


def report_holdout(samples: Samples) -> None:
    held = samples.games % HOLDOUT_EVERY == 0
    train, test = samples.subset(~held), samples.subset(held)
    train_x, test_x = train.features(), test.features()
    start, penalty = eval_start()
    weights = fit(train_x, train.labels, penalty, start)
    print(f"held out {len(test.labels)} positions of every {HOLDOUT_EVERY}th game: "
          f"cross-entropy current {loss(test_x, test.labels, start):.4f}, "
          f"fitted on the rest {loss(test_x, test.labels, weights):.4f} "
          f"(on the rest itself {loss(train_x, train.labels, weights):.4f})")


# --- the move ordering (--policy) ------------------------------------------------------------
# A candidate's ordering value is ORDER_OWN[class of the mover's stone there] + ORDER_OPP[class
# of the opponent's] + POLICY_OWN[pattern of the mover's] + POLICY_OPP[pattern of the
# opponent's]; read as log-probabilities (over POLICY_SCALE) of being the move played, they are
# fitted to the moves of recorded games by maximum likelihood (a softmax over the candidates the
# search generates), each table held near its current values by the L2 penalties.
POLICY_GROUPS = (
    Group("ORDER_OWN", CLASS_NAMES, (C_NONE, C_FIVE), 1, L2),
    Group("ORDER_OPP", CLASS_NAMES, (C_NONE, C_FIVE), 1, L2),
    Group("POLICY_OWN", PATTERN_NAMES, (0,), 1, PATTERN_L2),
    Group("POLICY_OPP", PATTERN_NAMES, (0,), 1, PATTERN_L2),
)


@dataclass(frozen=True)
class Choices:
    """The candidates of each position and the one played."""

    entries: np.ndarray  # int64[rows, 4]: class of the mover's stone, class of the opponent's,
    # pattern of the mover's, pattern of the opponent's, one row per candidate
    starts: np.ndarray  # int64[positions + 1]: position i's candidates are rows starts[i]..
    played: np.ndarray  # int64[positions]: the row of the move played
    games: np.ndarray  # int64[positions]: the game of each position

    def subset(self, keep: np.ndarray) -> Choices:
        entries, starts, played = [], [0], []
        for i in np.flatnonzero(keep):
            rows = self.entries[self.starts[i]:self.starts[i + 1]]
            played.append(starts[-1] + self.played[i] - self.starts[i])
            entries.append(rows)
            starts.append(starts[-1] + len(rows))
        return Choices(np.vstack(entries), np.array(starts), np.array(played),
                       self.games[keep])


def collect_choices(folders: Iterable[Path]) -> Choices:
    """Every quiet position (the side to move had a choice) with the candidates the search
    would generate there."""
    patterns = evaluate.pattern_table()
    default = Config()
    ss = new_search_state(1 << 10, default.as_array(), default.order_values)
    entries: list[np.ndarray] = []
    starts, played, games = [0], [], []
    number = 0
    for folder in folders:
        for line in (folder / "results.jsonl").read_text().splitlines():
            for board, (x, y), opp_three in quiet_positions(json.loads(line)):
                st = board.state
                colour = board.side_to_move()
                count = generate_moves(st, ss, 0, colour, -1, opp_three)
                cells = ss.moves[0, :count]
                hit = np.flatnonzero(cells == board.cell(x, y))
                if len(hit):  # (a move the search would not generate teaches nothing)
                    own, opp = st.words[colour - 1, cells], st.words[2 - colour, cells]
                    entries.append(np.stack([st.classes[colour - 1, cells],
                                             st.classes[2 - colour, cells],
                                             patterns[own], patterns[opp]], axis=1))
                    played.append(starts[-1] + int(hit[0]))
                    starts.append(starts[-1] + count)
                    games.append(number)
            number += 1
    if not played:
        raise SystemExit("no positions with a choice found in the given folders")
    return Choices(np.vstack(entries).astype(np.int64), np.array(starts), np.array(played),
                   np.array(games))


class PolicyModel:
    """The softmax over each position's candidates, for the weights of POLICY_GROUPS."""

    def __init__(self, choices: Choices, start: np.ndarray) -> None:
        self.choices = choices
        offsets = np.cumsum([0] + [len(g.names) for g in POLICY_GROUPS])
        column_of = np.full(offsets[-1], -1)
        column = 0
        for group, offset in zip(POLICY_GROUPS, offsets):
            for i in group.fitted():
                column_of[offset + i] = column
                column += 1
        # each row's four table entries as columns of the weight vector (-1: not fitted)
        self.columns = column_of[choices.entries + offsets[:4]]
        fixed_weights = np.concatenate([np.array(_table(g), dtype=np.float64) / POLICY_SCALE
                                        for g in POLICY_GROUPS])
        fixed = np.where(self.columns < 0, fixed_weights[choices.entries + offsets[:4]], 0.0)
        self.fixed = fixed.sum(axis=1)
        self.position_of_row = np.repeat(np.arange(len(choices.played)),
                                         np.diff(choices.starts))
        self.start = start

    def probabilities(self, weights: np.ndarray) -> np.ndarray:
        padded = np.append(weights, 0.0)  # column -1 reads the 0 appended
        logits = padded[self.columns].sum(axis=1) + self.fixed
        logits -= np.maximum.reduceat(logits, self.choices.starts[:-1])[self.position_of_row]
        exp: np.ndarray = np.exp(logits)
        total: np.ndarray = np.add.reduceat(exp, self.choices.starts[:-1])
        return np.asarray(exp / total[self.position_of_row])

    def loss(self, weights: np.ndarray) -> float:
        """Mean negative log-likelihood of the moves played."""
        p = self.probabilities(weights)[self.choices.played]
        return float(-np.mean(np.log(np.maximum(p, 1e-12))))

    def top(self, weights: np.ndarray, k: int) -> float:
        """Share of positions where the move played is among the k best-valued candidates
        (ties counted as half above)."""
        p = self.probabilities(weights)
        played = p[self.choices.played]
        above = np.add.reduceat((p > played[self.position_of_row]).astype(np.float64)
                                + 0.5 * (p == played[self.position_of_row]),
                                self.choices.starts[:-1]) - 0.5
        return float(np.mean(above < k))

    def fit(self, penalty: np.ndarray) -> np.ndarray:
        """Adam on the likelihood with the L2 penalty towards the start; columns seen in fewer
        than MIN_SUPPORT candidates stay at their start."""
        counts = np.bincount(self.columns[self.columns >= 0], minlength=len(self.start))
        frozen = counts < MIN_SUPPORT
        w = self.start.copy()
        m, v = np.zeros_like(w), np.zeros_like(w)
        target = np.zeros(len(self.position_of_row))
        target[self.choices.played] = 1.0
        n = len(self.choices.played)
        valid = self.columns >= 0
        for step in range(1, POLICY_STEPS + 1):
            residual = np.repeat((self.probabilities(w) - target)[:, None], 4, axis=1)
            gradient = np.bincount(self.columns[valid], residual[valid],
                                   minlength=len(w)) / n + penalty * (w - self.start)
            gradient[frozen] = 0.0
            m = 0.9 * m + 0.1 * gradient
            v = 0.999 * v + 0.001 * gradient ** 2
            w -= POLICY_RATE * (m / (1 - 0.9 ** step)) / (np.sqrt(v / (1 - 0.999 ** step)) + 1e-8)
        return w


def tune_policy(folders: list[Path], holdout: bool, write: bool) -> None:
    choices = collect_choices(folders)
    start = current_weights(POLICY_GROUPS, POLICY_SCALE)
    penalty = penalties(POLICY_GROUPS)
    print(f"positions: {len(choices.played)} from {choices.games[-1] + 1} games, "
          f"{len(choices.entries) / len(choices.played):.1f} candidates each")
    if holdout:
        held = choices.games % HOLDOUT_EVERY == 0
        train, test = PolicyModel(choices.subset(~held), start), PolicyModel(
            choices.subset(held), start)
        weights = train.fit(penalty)
        for name, w in (("current", start), ("fitted on the rest", weights)):
            print(f"held out ({len(test.choices.played)} positions), {name}: "
                  f"loss {test.loss(w):.4f}, played move first {test.top(w, 1):.3f}, "
                  f"in the best 3 {test.top(w, 3):.3f}, in the best 10 {test.top(w, 10):.3f}")
    model = PolicyModel(choices, start)
    weights = model.fit(penalty)
    print(f"loss: current {model.loss(start):.4f}, fitted {model.loss(weights):.4f}")
    tables = as_config(weights, POLICY_GROUPS, POLICY_SCALE)
    for name, values in tables.items():
        print(config_text(name, values))
    if write:
        write_config(tables)
        print(f"written to {CONFIG_FILE}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.tune", description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="sente-match output folders")
    parser.add_argument("--holdout", action="store_true",
                        help=f"also fit without every {HOLDOUT_EVERY}th game and test on it")
    parser.add_argument("--write", action="store_true", help="write the weights to config.py")
    parser.add_argument("--policy", action="store_true",
                        help="fit the move ordering to the moves played instead")
    parser.add_argument("--search-depth", type=int, default=0,
                        help="label positions also by a search this deep (0: outcomes only)")
    parser.add_argument("--outcome-weight", type=float, default=0.5,
                        help="with --search-depth: the outcome's share of each label")
    args = parser.parse_args(argv)
    if backend() == "native":
        parser.error("the fits need numpy arrays: run with SENTE_KERNELS=jit (or unset)")
    if args.policy:
        tune_policy(args.folders, args.holdout, args.write)
        return 0
    samples = collect(args.folders, args.search_depth,
                      args.outcome_weight if args.search_depth else 1.0)
    print(f"positions: {len(samples.labels)} from {samples.games[-1] + 1} games, "
          f"mean label {samples.labels.mean():.3f}")
    if args.holdout:
        report_holdout(samples)
    features = samples.features()
    start, penalty = eval_start()
    weights = fit(features, samples.labels, penalty, start)
    support = np.count_nonzero(features, axis=0)
    kept = sum(count < MIN_SUPPORT for count in support)
    print(f"{len(support) - kept} weights fitted, {kept} kept at their current value (seen in "
          f"fewer than {MIN_SUPPORT} positions)")
    print(f"cross-entropy: current weights {loss(features, samples.labels, start):.4f}, fitted "
          f"{loss(features, samples.labels, weights):.4f}, constant "
          f"{loss(features, samples.labels, weights * 0):.4f}; black to move is worth "
          f"{weights[-1] * SCALE:+.0f}")
    tables = as_config(weights[:-1])
    for name, values in tables.items():
        print(config_text(name, values))
    if args.write:
        write_config(tables)
        print(f"written to {CONFIG_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
