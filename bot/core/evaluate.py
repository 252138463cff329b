"""The static evaluation: a linear score over features of the candidate cells.

The features (``features``), for the side to move and for the opponent: how many candidate cells
have each class (the four line shapes combined), and how many (candidate cell, direction) pairs
have each line shape; make/unmake keep both counts.  The weights are config[P_EVAL_OWN:],
[P_EVAL_OPP:], [P_SHAPE_OWN:] and [P_SHAPE_OPP:] (bot.config, fitted to game outcomes by
``python -m bot.tune``).
"""

from __future__ import annotations

import numpy as np

from bot.core.jit import kernel
from bot.core.searchstate import (
    CLASSES, P_EVAL_OPP, P_EVAL_OWN, P_SHAPE_OPP, P_SHAPE_OWN, SHAPES,
)
from bot.core.state import BoardState

# Layout of the feature vector: own classes, opponent classes, own shapes, opponent shapes.
OWN_CLASSES, OPP_CLASSES = 0, CLASSES
OWN_SHAPES, OPP_SHAPES = 2 * CLASSES, 2 * CLASSES + SHAPES
FEATURES = 2 * (CLASSES + SHAPES)


@kernel()
def evaluate(st: BoardState, colour: int, config: np.ndarray) -> int:
    """Static score for ``colour`` to move: the weights dotted with ``features``, the
    opponent's counts subtracted."""
    own, opp = colour - 1, 2 - colour
    total = 0
    for kind in range(CLASSES):
        total += (config[P_EVAL_OWN + kind] * st.class_counts[own, kind]
                  - config[P_EVAL_OPP + kind] * st.class_counts[opp, kind])
    for shape in range(SHAPES):
        total += (config[P_SHAPE_OWN + shape] * st.shape_counts[own, shape]
                  - config[P_SHAPE_OPP + shape] * st.shape_counts[opp, shape])
    return int(total)


@kernel()
def features(st: BoardState, colour: int, out: np.ndarray) -> None:
    """Fill ``out[0:FEATURES]`` with the evaluation's features for ``colour`` to move, laid out
    as OWN_CLASSES, OPP_CLASSES, OWN_SHAPES, OPP_SHAPES."""
    own, opp = colour - 1, 2 - colour
    out[OWN_CLASSES:OWN_CLASSES + CLASSES] = st.class_counts[own]
    out[OPP_CLASSES:OPP_CLASSES + CLASSES] = st.class_counts[opp]
    out[OWN_SHAPES:OWN_SHAPES + SHAPES] = st.shape_counts[own]
    out[OPP_SHAPES:OPP_SHAPES + SHAPES] = st.shape_counts[opp]
