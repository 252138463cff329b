"""The calls a game makes, each with the argument types the Python layers pass: run once, it
compiles every kernel for the one signature it must have (tests/test_zz_signatures.py checks
that) and the ahead-of-time build (build/aot.py) reads those signatures."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

import numpy as np

import bot.core
from bot.config import Config
from bot.core import drills, evaluate, proofnumber, shapes
from bot.engine import Engine
from bot.limits import Limits


def kernel_dispatchers() -> dict[str, Any]:
    """Every kernel of bot.core as numba's dispatcher (JIT backend), by ``module.name``."""
    from numba.core.registry import CPUDispatcher

    found = {}
    for info in pkgutil.iter_modules(bot.core.__path__):
        module = importlib.import_module(f"bot.core.{info.name}")
        found.update({f"{module.__name__}.{name}": value for name, value in vars(module).items()
                      if isinstance(value, CPUDispatcher) and value.__module__ == module.__name__})
    return found


def exercise_every_kernel() -> None:
    """Every rule, a rectangle, searches with VCF, every Board query, the bench drills."""
    engine = Engine()
    for width, height, rule in ((15, 15, 0), (15, 15, 4), (20, 20, 1), (17, 11, 8), (15, 15, 9)):
        engine.new_game(width, height, rule)
        engine.setup([(7, 7, 1), (8, 8, 2), (7, 8, 1), (6, 6, 2), (7, 6, 1)])
        result = engine.think(Limits(timeout_turn_ms=600_000, max_depth=4), lambda info: None)
        engine.play(*result.move)
        board = engine.require_board()
        for x, y in board.candidates()[:6]:
            board.shape(x, y, 1, 2)
            board.cell_class(x, y, 2)
            board.wins(x, y, 1)
            board.foul(x, y)
            board.is_legal(x, y, 1)
        board.forbidden_points()
        board.canonical_key()
        board.undo()
        engine.evaluate()
        drills.make_unmake_candidates(board.state, board.side_to_move(), 1)
        drills.query_candidate_shapes(board.state, 1, np.zeros(10, np.int64))
        board.set_cell_values(engine.config.cell_values)
        evaluate.pattern_counts(board.state, 1, evaluate.pattern_table(),
                                np.zeros(2 * shapes.PATTERNS, np.int64))
    # the switches that are off by default: the root's defence set, its VCT search, the VCT
    # against each root move and the VCT inside the search
    switched = Engine(Config(root_defence=True, vct_nodes_per_ms=5, root_vct_defence_nodes=50,
                             interior_vct_nodes=50, interior_vct_depth=1))
    switched.new_game(15, 15, 0)
    switched.setup([(7, 7, 1), (8, 8, 2), (7, 8, 1), (6, 6, 2), (7, 6, 1)])
    switched.think(Limits(timeout_turn_ms=600_000, max_depth=2))
    # the root's VCT as a df-pn, with quiet threats, on a win by a double three (its line too)
    solver = Engine(Config(vct_nodes_per_ms=5, vct_quiet_fours=3, vct_dfpn_entries=1 << 10))
    solver.new_game(15, 15, 0)
    solver.setup([(5, 7, 1), (6, 7, 1), (7, 5, 1), (7, 6, 1),
                  (0, 0, 2), (0, 14, 2), (14, 0, 2), (14, 14, 2)])
    solver.think(Limits(timeout_turn_ms=600_000, max_depth=1))
    # the df-pn the book's prover closes its leaves with (and the engine, in a game that
    # followed the book): bounded by the plies the budget leaves, then unbounded
    board = solver.require_board()
    keys, data = proofnumber.new_table(1 << 10)
    proofnumber.dfpn_vct_within(board.state, solver._search, keys, data, board.side_to_move(),
                                1000, proofnumber.BOOK_QUIET_FOURS, 3)
