"""The one place that sets numba's compile flags for every kernel in bot.core.

Kernels are compiled with ``cache=True`` (start-up loads machine code instead of compiling),
``nogil=True`` (a Python timer thread can set the stop flag while a search runs) and
``error_model="numpy"`` (no Python exceptions inside kernels, as ahead-of-time compilation needs).
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar, cast

import numba

KERNEL_FLAGS: dict[str, Any] = {"cache": True, "nogil": True, "error_model": "numpy"}

Kernel = TypeVar("Kernel", bound=Callable[..., Any])


def kernel(*signature: Any) -> Callable[[Kernel], Kernel]:
    """Decorate a bot.core kernel; an explicit signature is given only for kernels that other
    kernels call with constants, and for recursive ones.  The decorated kernel keeps its Python
    annotations for the type checker, so every call of a kernel is checked like a plain call."""

    def wrap(func: Kernel) -> Kernel:
        return cast(Kernel, numba.njit(*signature, **KERNEL_FLAGS)(func))

    return wrap
