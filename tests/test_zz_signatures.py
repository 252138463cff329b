"""Every kernel must be compiled for one signature only: a second type means a second compile
mid-game, and breaks ahead-of-time compilation.  Run after the whole suite (conftest orders it
last), it sees every call the suite made; run on its own, it makes the calls a game makes."""

from __future__ import annotations

import pytest

from bot.warmup import exercise_every_kernel, kernel_dispatchers
from tests.conftest import PURE_PYTHON


@pytest.mark.run_last
@pytest.mark.skipif(PURE_PYTHON, reason="nothing is compiled with the JIT disabled")
def test_every_kernel_has_at_most_one_signature() -> None:
    exercise_every_kernel()
    seen = compiled = 0
    several = {}
    for name, value in kernel_dispatchers().items():
        seen += 1
        compiled += len(value.signatures) == 1
        if len(value.signatures) > 1:
            several[name] = [tuple(str(t) for t in sig[1:]) for sig in value.signatures]
    assert not several, several
    assert seen >= 20 and compiled >= 15, (seen, compiled)
