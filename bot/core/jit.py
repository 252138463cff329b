"""The one place that sets numba's compile flags for every kernel in bot.core.

Kernels are compiled with ``cache=True`` (start-up loads machine code instead of compiling),
``nogil=True`` (a Python timer thread can set the stop flag while a search runs),
``error_model="numpy"`` (no Python exceptions inside kernels, as ahead-of-time compilation needs)
and ``_nrt=False``: no kernel allocates, so numba's reference counting is not needed, and
without it a call that passes a BoardState (seventeen arrays) no longer counts a reference up
and down for each array: the same search, 1.1-1.3x the nodes per second on a quiet machine and
1.5x with the other core busy (atomic counts cost more then), as in matches.

Explicit signatures are strings, read only when a kernel is compiled, so that importing a kernel
module does not import numba: ``"int64(state, search, int64)"`` in numba's type names, with
``state`` and ``search`` for the BoardState and SearchState tuples and ``line`` for a decoded
line window (int8, one dimension, contiguous).

With the native backend (bot.core.native) a kernel is instead the function of the same name in
the library compiled ahead of time, and numba is never imported.

Hot loops index arrays with unsigned integers (``np.uint64(cell)``): numba adds a wraparound for
negative indices (a shift, a mask and an add) to every array read with a signed index, and none
with an unsigned one; in make/unmake that was a quarter of the instructions.  Only the index is
cast: arithmetic mixing uint64 and int64 would give floats.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any, Callable, TypeVar, cast

__all__ = ["KERNEL_FLAGS", "int64", "kernel", "np", "signature_type"]

KERNEL_FLAGS: dict[str, Any] = {"cache": True, "nogil": True, "error_model": "numpy",
                                "_nrt": False}

Kernel = TypeVar("Kernel", bound=Callable[..., Any])


class _SignatureNames(dict[str, Any]):
    """numba's type names, and the project's own, looked up only when a signature uses them."""

    def __missing__(self, name: str) -> Any:
        from numba import types

        if name == "state":
            from bot.core.state import state_type

            return state_type()
        if name == "search":
            from bot.core.searchstate import search_state_type

            return search_state_type()
        if name == "line":
            return types.Array(types.int8, 1, "C")
        return getattr(types, name)


def signature_type(signature: str) -> Any:
    """The numba signature a signature string names."""
    return eval(signature, {"__builtins__": {}}, _SignatureNames())


@cache
def _backend() -> str:
    """'jit' or 'native' (bot.core.native.backend), decided once per process."""
    from bot.core import native

    return native.backend()


# The kernels' numpy: under the JIT the real module; natively None, since the kernels' bodies
# never run in Python there and the frozen brain has no numpy (bot.core.arrays is the Python
# side's).  Kernel modules import ``np`` from here, never numpy itself.
if TYPE_CHECKING:
    import numpy as np
elif _backend() == "jit":
    import numpy as np
else:
    np = None


def int64(value: int) -> int:
    """A module constant that kernels pass to other kernels: numpy's int64 under the JIT (a
    plain int global reaches numba as a literal and compiles a second, unresolved overload),
    the int itself natively."""
    return value if np is None else cast(int, np.int64(value))


def kernel(signature: str | None = None) -> Callable[[Kernel], Kernel]:
    """Decorate a bot.core kernel; an explicit signature is given only for kernels that other
    kernels call with constants, and for recursive ones.  The decorated kernel keeps its Python
    annotations for the type checker, so every call of a kernel is checked like a plain call."""

    def wrap(func: Kernel) -> Kernel:
        if _backend() == "native":
            from bot.core import native

            return cast(Kernel, native.kernel(func))
        import numba

        if signature is None:
            return cast(Kernel, numba.njit(**KERNEL_FLAGS)(func))
        return cast(Kernel, numba.njit(signature_type(signature), **KERNEL_FLAGS)(func))

    return wrap
