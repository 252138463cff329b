"""Arrays for the Python code around the kernels: numpy's under the JIT, plain buffers natively.

The frozen brain runs the kernels compiled ahead of time and carries no numpy (it must fit in
Gomocup's 8 MB), so the Python side allocates through ``zeros``/``full``/``from_list`` and keeps
to what both kinds of array do: ``shape``, ``nbytes``, ``fill``, ``copy``, reading or writing one
element (``a[i]``, ``a[i, j]``), and the helpers below.  Under the JIT the functions return numpy
arrays (numba needs them); with the native backend they return a ``Buffer``: memory the kernels
read through its address, its elements seen through a typed memoryview.
"""

from __future__ import annotations

import ctypes
import math
import mmap
import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from bot.core.jit import np

if TYPE_CHECKING:
    from numpy import ndarray

# struct/memoryview format of each dtype the state uses
FORMATS = {"int8": "b", "uint8": "B", "int16": "h", "uint16": "H", "int32": "i", "int64": "q",
           "uint64": "Q"}
# Buffers this large are anonymous maps: pages are zero until written and go back to the system
# when the buffer is freed; smaller ones are bytearrays (a map costs at least a page).
MAP_BYTES = 1 << 16
FILL_CHUNK = 1 << 20  # fill() writes this many bytes at a time (no table-sized temporary)
NUMPY: bool = np is not None  # numpy arrays (the JIT), or Buffers (native)


class _Pointer:
    """``buffer.ctypes.data``, as numpy spells an array's address."""

    __slots__ = ("data",)

    def __init__(self, data: int) -> None:
        self.data = data


class Buffer:
    """A C-contiguous array of one of FORMATS' dtypes, without numpy."""

    __slots__ = ("shape", "dtype", "nbytes", "ctypes", "_memory", "_anchor", "_bytes", "_view")

    def __init__(self, shape: tuple[int, ...], dtype: str) -> None:
        code = FORMATS[dtype]
        self.shape = shape
        self.dtype = dtype
        self.nbytes = math.prod(shape) * struct.calcsize(code)
        size = max(1, self.nbytes)  # ctypes cannot point into an empty buffer
        self._memory: bytearray | mmap.mmap = (mmap.mmap(-1, size) if size >= MAP_BYTES
                                               else bytearray(size))
        self._anchor = ctypes.c_char.from_buffer(self._memory)
        self.ctypes = _Pointer(ctypes.addressof(self._anchor))
        self._bytes = memoryview(self._memory)[: self.nbytes]
        # (typeshed knows cast() only for literal formats)
        self._view = (self._bytes.cast(code, shape)  # type: ignore[call-overload]
                      if self.nbytes else self._bytes)

    def __getitem__(self, index: int | tuple[int, ...]) -> int:
        return cast(int, self._view[index])

    def __setitem__(self, index: int | tuple[int, ...], value: int) -> None:
        self._view[index] = int(value)

    def fill(self, value: int) -> None:
        pattern = struct.pack(FORMATS[self.dtype], int(value))
        chunk = pattern * (FILL_CHUNK // len(pattern))
        for start in range(0, self.nbytes, len(chunk)):
            end = min(self.nbytes, start + len(chunk))
            self._bytes[start:end] = chunk[: end - start]

    def copy(self) -> Buffer:
        out = Buffer(self.shape, self.dtype)
        out._bytes[:] = self._bytes
        return out

    def tolist(self) -> list[Any]:
        return cast(list[Any], self._view.tolist())


def zeros(shape: int | tuple[int, ...], dtype: str) -> ndarray:
    """A zero-filled array (numpy's under the JIT, a Buffer natively)."""
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    if NUMPY:
        return np.zeros(dims, dtype=dtype)
    return cast("ndarray", Buffer(dims, dtype))


def full(shape: int | tuple[int, ...], value: int, dtype: str) -> ndarray:
    array = zeros(shape, dtype)
    if value:
        array.fill(value)
    return array


def from_list(values: Sequence[int] | Sequence[Sequence[int]], dtype: str) -> ndarray:
    """An array of a flat or rectangular nested list of whole numbers."""
    if values and not isinstance(values[0], int):
        rows = cast(Sequence[Sequence[int]], values)
        array = zeros((len(rows), len(rows[0])), dtype)
        for i, row in enumerate(rows):
            for j, value in enumerate(row):
                array[i, j] = value
        return array
    flat = cast(Sequence[int], values)
    array = zeros(len(flat), dtype)
    for i, value in enumerate(flat):
        array[i] = value
    return array


def copy_into(array: Any, source: Any) -> None:
    """``array[...] = source`` for two arrays of one shape and dtype."""
    if isinstance(array, Buffer) and isinstance(source, Buffer):
        array._bytes[:] = source._bytes
    else:
        array[...] = source


def count_equal(array: Any, value: int) -> int:
    """How many elements of a 1-D array equal ``value``."""
    if isinstance(array, Buffer):
        return int(array.tolist().count(value))
    return int((array == value).sum())


def first_nonzero(array: Any) -> int:
    """Index of the first nonzero element of a 1-D array, or -1."""
    for index, value in enumerate(array.tolist()):
        if value:
            return index
    return -1
