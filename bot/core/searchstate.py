"""The buffers one search owns, its control block and its parameter slots.

Control block ``ctrl`` (int64[CTRL_SLOTS]), shared with Python: a timer thread sets
``ctrl[C_STOP]``; the kernels poll it at every node and unwind with meaningless scores, which the
driver then discards.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from bot.core import arrays, shapes, tt
from bot.core.jit import np

MAX_PLY = 128  # deepest ply the move buffers hold (forced-move extensions included)
MAX_MOVES = 1024  # 32 x 32 board
MAX_CELLS = 2048  # padded cells of a 32 x 32 board (bot.core.state), rounded up
SCRATCH = 64  # the most cells one scratch list holds (fives through one stone: at most 8)
# Entries of the VCF memo (bot.core.threats.vcf), a power of two: more remembers more of the
# positions the fours transpose into, at 16 bytes each (2^18: 4 MiB).
VCF_ENTRIES = 1 << 18

# ctrl[] slots: stop flag, nodes searched, node limit (0: none), best root move of the last
# zero-window pass that failed high, deepest ply reached; the threat-space search's own node
# count, its node limit and the first move of the win it found; 1 when the root searches only
# the cells marked in root_mask; the number of the search (for the table's replacement); the
# fours of the VCF that makes a quiet move a threat in the VCT (0: only fours and open threes
# are threats there; see bot.core.threats.vct); last, the epoch of the VCF memo, xor-ed into its
# keys so that one increment forgets every entry (forget_threats; a new search keeps it).
(C_STOP, C_NODES, C_NODE_LIMIT, C_BEST, C_SELDEPTH, C_TSS_NODES, C_TSS_LIMIT, C_TSS_MOVE,
 C_ROOT_FILTER, C_GENERATION, C_TSS_QUIET, C_THREAT_EPOCH) = range(12)
CTRL_SLOTS = 12

# config[] slots (bot.config fills them; see the comments there for what each trades off)
P_BRANCH, P_VCF_DEPTH, P_LEAF_VCF = range(3)
CLASSES = shapes.CLASSES  # bot.core.shapes.C_NONE .. C_FIVE
P_HISTORY = 3  # 1: order equally weighted moves by the history heuristic
P_KILLERS = P_HISTORY + 1  # 1: ... and the two latest moves that cut off at the same ply first
P_LMR_MOVES = P_KILLERS + 1  # moves searched at full depth before late quiet ones are reduced
P_LEAF_VCF_NODES = P_LMR_MOVES + 1  # node budget of one leaf VCF (0: none)
P_THREE_EXTENSION = P_LEAF_VCF_NODES + 1  # 1: answering an open three costs no depth
P_MOVE_COUNT = P_THREE_EXTENSION + 1  # move-count pruning: the base of the moves kept (0: off)
P_FUTILITY_MARGIN = P_MOVE_COUNT + 1  # reverse futility: margin per ply of depth (0: off)
P_FUTILITY_DEPTH = P_FUTILITY_MARGIN + 1  # ... up to this depth
P_RAZOR_MARGIN = P_FUTILITY_DEPTH + 1  # razoring: margin per ply of depth (0: off)
P_RAZOR_DEPTH = P_RAZOR_MARGIN + 1  # ... up to this depth
P_LEAF_DOUBLE_THREE = P_RAZOR_DEPTH + 1  # 1: a leaf sees a win by a double open three
P_LMR_LOG = P_LEAF_DOUBLE_THREE + 1  # reductions by ln(depth) ln(move number) x this / 100
P_SINGULAR_DEPTH = P_LMR_LOG + 1  # singular extension from this depth (0: off)
P_SINGULAR_MARGIN = P_SINGULAR_DEPTH + 1  # ... when the others stay this much per ply below
P_INTERIOR_VCT_NODES = P_SINGULAR_MARGIN + 1  # node budget of a VCT inside the search (0: off)
P_INTERIOR_VCT_DEPTH = P_INTERIOR_VCT_NODES + 1  # ... at nodes with at least this many plies left
P_INTERIOR_VCT_THREATS = P_INTERIOR_VCT_DEPTH + 1  # ... of at most this many threats
CONFIG_SLOTS = P_INTERIOR_VCT_THREATS + 1


class SearchState(NamedTuple):
    """Buffers a search owns; made once per engine and reused for every move."""

    tt_keys: np.ndarray  # uint64[n]: see bot.core.tt for the entry layout
    tt_data: np.ndarray  # int64[n, tt.DATA_SLOTS]
    vcf_keys: np.ndarray  # uint64[VCF_ENTRIES]: position and attacker (bot.core.threats.vcf)
    vcf_data: np.ndarray  # int64[VCF_ENTRIES]: fours searched << 16 | plies to the win (0: none)
    ctrl: np.ndarray  # int64[CTRL_SLOTS]
    moves: np.ndarray  # int64[MAX_PLY, MAX_MOVES]: move list per ply
    scores: np.ndarray  # int64[MAX_PLY, MAX_MOVES]: ordering score per move
    history: np.ndarray  # int64[2, MAX_CELLS]: per colour and cell, sum of depth^2 of cutoffs
    killers: np.ndarray  # int64[MAX_PLY, 2]: latest cutoff moves per ply, newest first (-1);
    # the VCT (bot.core.threats.vct) borrows column 0 for its winning moves and clears it
    root_mask: np.ndarray  # int8[MAX_CELLS]: 1 for the root moves searched under C_ROOT_FILTER
    scratch: np.ndarray  # int64[SCRATCH]: a kernel's short-lived list (read before recursing)
    marks: np.ndarray  # int8[MAX_CELLS]: a kernel's short-lived cell marks (cleared before it
    # recurses)
    config: np.ndarray  # int64[CONFIG_SLOTS]
    order_values: np.ndarray  # int32[2, 2^16]: a move's ordering value per shape word of the
    # mover's stone on the cell (row 0) and of the opponent's (row 1); see bot.core.movepick


def new_search_state(tt_entries: int, config: np.ndarray,
                     order_values: np.ndarray) -> SearchState:
    """Buffers for a transposition table of ``tt_entries`` (see ``tt.new_table``), with the
    parameters ``config`` (int64, Config.as_array) and the move ordering table ``order_values``
    (int32, Config.order_values), both shared, not copied."""
    keys, data = tt.new_table(tt_entries)
    return SearchState(
        tt_keys=keys,
        tt_data=data,
        vcf_keys=arrays.zeros(VCF_ENTRIES, "uint64"),
        vcf_data=arrays.zeros(VCF_ENTRIES, "int64"),
        ctrl=arrays.zeros(CTRL_SLOTS, "int64"),
        moves=arrays.zeros((MAX_PLY, MAX_MOVES), "int64"),
        scores=arrays.zeros((MAX_PLY, MAX_MOVES), "int64"),
        history=arrays.zeros((2, MAX_CELLS), "int64"),
        killers=arrays.full((MAX_PLY, 2), -1, "int64"),
        root_mask=arrays.zeros(MAX_CELLS, "int8"),
        scratch=arrays.zeros(SCRATCH, "int64"),
        marks=arrays.zeros(MAX_CELLS, "int8"),
        config=config,
        order_values=order_values,
    )


def forget_heuristics(ss: SearchState) -> None:
    """Start a search without the history and killer moves of the previous one."""
    ss.history.fill(0)
    ss.killers.fill(-1)


def forget_threats(ss: SearchState) -> None:
    """Forget every result in the VCF memo (a new game, a rule that changes what a four is, or a
    threat search that must find what a fresh one would, within the same nodes): a new epoch,
    which no stored key matches any more."""
    ss.ctrl[C_THREAT_EPOCH] += 1


def reset_control(ss: SearchState) -> None:
    """Zero the control block for a new search, but for the memo's epoch."""
    epoch = ss.ctrl[C_THREAT_EPOCH]
    ss.ctrl.fill(0)
    ss.ctrl[C_THREAT_EPOCH] = epoch


def search_state_type() -> Any:
    """The numba type of every SearchState, for kernels that need an explicit signature."""
    import numba
    import numpy as np

    sample = SearchState(
        tt_keys=np.zeros(0, np.uint64), tt_data=np.zeros((0, 0), np.int64),
        vcf_keys=np.zeros(0, np.uint64), vcf_data=np.zeros(0, np.int64),
        ctrl=np.zeros(0, np.int64), moves=np.zeros((0, 0), np.int64),
        scores=np.zeros((0, 0), np.int64), history=np.zeros((0, 0), np.int64),
        killers=np.zeros((0, 0), np.int64), root_mask=np.zeros(0, np.int8),
        scratch=np.zeros(0, np.int64), marks=np.zeros(0, np.int8),
        config=np.zeros(0, np.int64), order_values=np.zeros((0, 0), np.int32))
    return numba.typeof(sample)
