"""The static evaluation: a linear score over the classes of the candidate cells.

The features are, for the side to move and for the opponent, how many candidate cells have each
class (``class_counts``); the weights are ``config[P_EVAL_OWN:]`` and ``config[P_EVAL_OPP:]``
(bot.config, fitted to game outcomes by ``python -m bot.tune``).
"""

from __future__ import annotations

import numpy as np

from bot.core.jit import kernel
from bot.core.searchstate import CLASSES, P_EVAL_OPP, P_EVAL_OWN
from bot.core.state import M_CANDIDATES, BoardState


@kernel()
def evaluate(st: BoardState, colour: int, config: np.ndarray) -> int:
    """Static score for ``colour`` to move: the class weights summed over the candidate
    cells, the mover's classes counted with P_EVAL_OWN and the opponent's with P_EVAL_OPP
    subtracted; equal to the weights dotted with ``class_counts``."""
    own, opp = colour - 1, 2 - colour
    total = 0
    for i in range(st.meta[M_CANDIDATES]):
        cell = st.candidates[i]
        total += (config[P_EVAL_OWN + st.classes[own, cell]]
                  - config[P_EVAL_OPP + st.classes[opp, cell]])
    return int(total)


@kernel()
def class_counts(st: BoardState, colour: int, out: np.ndarray) -> None:
    """Fill ``out[0:CLASSES]`` with how many candidate cells have each class for ``colour``
    (the side to move) and ``out[CLASSES:2 * CLASSES]`` the same for the opponent."""
    own, opp = colour - 1, 2 - colour
    out[:] = 0
    for i in range(st.meta[M_CANDIDATES]):
        cell = st.candidates[i]
        out[st.classes[own, cell]] += 1
        out[CLASSES + st.classes[opp, cell]] += 1
