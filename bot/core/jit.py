"""The one place that sets numba's compile flags for every kernel in bot.core.

Kernels are compiled with ``cache=True`` (start-up loads machine code instead of compiling),
``nogil=True`` (a Python timer thread can set the stop flag while a search runs) and
``error_model="numpy"`` (no Python exceptions inside kernels, as ahead-of-time compilation needs).
"""

from __future__ import annotations

from typing import Any, Callable

import numba

KERNEL_FLAGS: dict[str, Any] = {"cache": True, "nogil": True, "error_model": "numpy"}


def kernel(*signature: Any) -> Callable[[Callable[..., Any]], Any]:
    """Decorate a bot.core kernel; an explicit signature is given only for recursive kernels."""

    def wrap(func: Callable[..., Any]) -> Any:
        return numba.njit(*signature, **KERNEL_FLAGS)(func)

    return wrap
