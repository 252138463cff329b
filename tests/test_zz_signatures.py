"""Every kernel must be compiled for one signature only: a second type means a second compile
mid-game, and breaks ahead-of-time compilation.  This test makes the calls a game makes (conftest
orders it last); after the last test of each process, conftest's one_signature_per_kernel checks
every call that process's tests made."""

from __future__ import annotations

import pytest

from bot.warmup import exercise_every_kernel, kernel_dispatchers
from tests.conftest import PURE_PYTHON, kernels_with_several_signatures


@pytest.mark.run_last
@pytest.mark.skipif(PURE_PYTHON, reason="nothing is compiled with the JIT disabled")
def test_every_kernel_has_at_most_one_signature() -> None:
    exercise_every_kernel()
    several = kernels_with_several_signatures()
    assert not several, several
    dispatchers = kernel_dispatchers().values()
    seen, compiled = len(dispatchers), sum(len(value.signatures) == 1 for value in dispatchers)
    assert seen >= 20 and compiled >= 15, (seen, compiled)
