"""Every kernel must be compiled for one signature only: a second type means a second compile
mid-game, and breaks ahead-of-time compilation.  Run after the whole suite (conftest orders it
last), it sees every call the suite made; run on its own, it makes the calls a game makes."""

from __future__ import annotations

import importlib
import pkgutil

import numpy as np
import pytest

import bot.core
from bot.core import drills
from bot.engine import Engine
from bot.limits import Limits
from tests.conftest import PURE_PYTHON


def play_a_little_of_everything() -> None:
    """The calls a game makes, with the argument types the Python layers pass: every rule,
    a rectangle, searches with VCF, every Board query, the bench drills."""
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


@pytest.mark.run_last
@pytest.mark.skipif(PURE_PYTHON, reason="nothing is compiled with the JIT disabled")
def test_every_kernel_has_at_most_one_signature() -> None:
    from numba.core.registry import CPUDispatcher

    play_a_little_of_everything()
    seen = compiled = 0
    several = {}
    for info in pkgutil.iter_modules(bot.core.__path__):
        module = importlib.import_module(f"bot.core.{info.name}")
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.__module__ == module.__name__:
                seen += 1
                compiled += len(value.signatures) == 1
                if len(value.signatures) > 1:
                    several[f"{module.__name__}.{name}"] = [
                        tuple(str(t) for t in sig[1:]) for sig in value.signatures]
    assert not several, several
    assert seen >= 20 and compiled >= 15, (seen, compiled)
