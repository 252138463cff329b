"""Engine parameters, loaded once and handed to the kernels as an int64 array."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bot.core import searchstate as slots

# Class weights, index = class (none, two, open_two, double_two, three, open_three, double_three,
# four, four_three, double_four, open_four, five).  OWN: value of a cell for the side to move;
# OPP: value of the opponent's potential there (what blocking it saves).  Larger weights on big
# threats make the search more tactical; larger weights on twos make it more positional.
OWN_WEIGHTS = (0, 2, 6, 16, 8, 30, 150, 40, 500, 700, 900, 3000)
OPP_WEIGHTS = (0, 1, 4, 12, 6, 20, 100, 30, 300, 400, 600, 1500)


@dataclass(frozen=True)
class Config:
    """Tunables of the search (each trades something, see the field comments)."""

    # Moves searched per node, best-ordered first: fewer reach deeper but may miss a quiet move.
    branch: int = 20
    # Fours the VCF search may chain: longer finds deeper wins, costs time at every leaf.
    vcf_depth: int = 12
    # Run VCF at leaves of the main search: sharper tactics, fewer nodes per second.
    leaf_vcf: bool = True
    own_weights: tuple[int, ...] = field(default=OWN_WEIGHTS)
    opp_weights: tuple[int, ...] = field(default=OPP_WEIGHTS)

    def as_array(self) -> np.ndarray:
        array = np.zeros(slots.CONFIG_SLOTS, dtype=np.int64)
        array[slots.P_BRANCH] = self.branch
        array[slots.P_VCF_DEPTH] = self.vcf_depth
        array[slots.P_LEAF_VCF] = int(self.leaf_vcf)
        array[slots.P_OWN:slots.P_OWN + 12] = self.own_weights
        array[slots.P_OPP:slots.P_OPP + 12] = self.opp_weights
        return array
