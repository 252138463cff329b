"""The static evaluation."""

from __future__ import annotations

import numpy as np

from bot.core.jit import kernel
from bot.core.searchstate import P_OPP, P_OWN
from bot.core.state import M_CANDIDATES, BoardState


@kernel()
def evaluate(st: BoardState, colour: int, config: np.ndarray) -> int:
    """Static score for the side to move: class weights summed over the candidate cells."""
    own, opp = colour - 1, 2 - colour
    total = 0
    for i in range(st.meta[M_CANDIDATES]):
        cell = st.candidates[i]
        total += config[P_OWN + st.classes[own, cell]] - config[P_OPP + st.classes[opp, cell]]
    return total
