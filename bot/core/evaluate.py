"""The static evaluation: a linear score over the classes of the candidate cells.

The features are, for the side to move and for the opponent, how many candidate cells have each
class (``class_counts``); the weights are ``config[P_EVAL_OWN:]`` and ``config[P_EVAL_OPP:]``
(bot.config, fitted to game outcomes by ``python -m bot.tune``).
"""

from __future__ import annotations

import numpy as np

from bot.core.jit import kernel
from bot.core.searchstate import CLASSES, P_EVAL_OPP, P_EVAL_OWN
from bot.core.state import BoardState


@kernel()
def evaluate(st: BoardState, colour: int, config: np.ndarray) -> int:
    """Static score for ``colour`` to move: the weights dotted with the class counts of the
    candidate cells (kept up to date by make/unmake), the mover's counts with P_EVAL_OWN and
    the opponent's with P_EVAL_OPP subtracted."""
    own, opp = colour - 1, 2 - colour
    total = 0
    for kind in range(CLASSES):
        total += (config[P_EVAL_OWN + kind] * st.class_counts[own, kind]
                  - config[P_EVAL_OPP + kind] * st.class_counts[opp, kind])
    return int(total)


@kernel()
def class_counts(st: BoardState, colour: int, out: np.ndarray) -> None:
    """Fill ``out[0:CLASSES]`` with how many candidate cells have each class for ``colour``
    (the side to move) and ``out[CLASSES:2 * CLASSES]`` the same for the opponent."""
    own, opp = colour - 1, 2 - colour
    out[:CLASSES] = st.class_counts[own]
    out[CLASSES:2 * CLASSES] = st.class_counts[opp]
