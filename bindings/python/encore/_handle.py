"""Ownership of one C handle shared by Python threads."""
from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any, Concatenate, Generic, ParamSpec, Self, TypeVar

_P = TypeVar("_P")
_A = ParamSpec("_A")
_R = TypeVar("_R")


class Handle(Generic[_P]):
    """Owns a library handle and frees it exactly once.

    ctypes releases the GIL during calls, so one thread may close an object
    while another is inside a C call with it. Freeing then would be a
    use-after-free in C; instead close() marks the handle closed and the last
    call still using it frees it."""

    def __init__(self, pointer: _P, free: Callable[[_P], object], what: str) -> None:
        self._pointer: _P | None = pointer
        self._free = free
        self._what = what
        self._lock = threading.Lock()
        self._users = 0
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    @contextlib.contextmanager
    def borrow(self) -> Iterator[_P]:
        """The pointer, guaranteed not to be freed until the block ends."""
        with self._lock:
            if self._closed:
                raise ValueError(f"{self._what} is closed")
            self._users += 1
            pointer = self._pointer
        assert pointer is not None  # set until the handle is closed
        try:
            yield pointer
        finally:
            with self._lock:
                self._users -= 1
                last = self._closed and self._users == 0
            if last:
                self._release()

    def call(self, function: Callable[Concatenate[_P, _A], _R], *args: _A.args, **kwargs: _A.kwargs) -> _R:
        """function(pointer, *args) with the pointer borrowed: `function` is
        one of the typed library's (lib.encore_...), so a type checker checks
        the other arguments; a failing status raises (errors.py)."""
        with self.borrow() as pointer:
            return function(pointer, *args, **kwargs)

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            last = self._users == 0
        if last:
            self._release()

    def _release(self) -> None:
        pointer, self._pointer = self._pointer, None
        if pointer is not None:
            self._free(pointer)


class Closeable:
    """close(), `closed` and the context manager for an object that owns one
    Handle in self._handle."""

    _handle: Handle[Any]

    def close(self) -> None:
        """Releases the library object; the last call still using it frees it."""
        self._handle.close()

    @property
    def closed(self) -> bool:
        """Whether close() was called."""
        return self._handle.closed

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
