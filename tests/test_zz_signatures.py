"""After the whole suite, every kernel must have been compiled for one signature only
(a second type means a second compile mid-game, and breaks ahead-of-time compilation)."""

from __future__ import annotations

import importlib
import pkgutil

import pytest
from numba.core.registry import CPUDispatcher

import bot.core


@pytest.mark.run_last
def test_every_kernel_has_at_most_one_signature() -> None:
    seen = 0
    several = {}
    for info in pkgutil.iter_modules(bot.core.__path__):
        module = importlib.import_module(f"bot.core.{info.name}")
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher) and value.__module__ == module.__name__:
                seen += 1
                if len(value.signatures) > 1:
                    several[f"{module.__name__}.{name}"] = [
                        tuple(str(t) for t in sig[1:]) for sig in value.signatures]
    assert not several, several
    assert seen >= 10
