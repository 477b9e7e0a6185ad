"""Adapts a Python progress callable to encore_progress_fn for one call."""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from . import _ffi, errors

# progress(done, total): False cancels; None (no return statement) or True goes on.
ProgressFn = Callable[[int, int], "bool | None"]


class Progress:
    """Owns the C callback object for the duration of one library call (ctypes
    would free the trampoline if nothing referenced it). An exception raised by
    the Python callable cannot cross C, so it cancels the operation and is kept
    in `error` for the caller to re-raise."""

    def __init__(self, func: ProgressFn) -> None:
        if not callable(func):
            raise TypeError(f"progress must be callable, not {type(func).__name__}")
        self.func = func
        self.error: BaseException | None = None
        self.c_callback = _ffi.encore_progress_fn(self._call)

    def _call(self, context: int | None, done: int, total: int) -> int:
        if self.error is not None:
            return 1
        try:
            result = self.func(done, total)
        except BaseException as e:  # KeyboardInterrupt too: it must stop the library
            self.error = e
            return 1
        # None (no return statement) and True go on; False cancels.
        return 0 if result is None or result else 1

    def reraise(self, cause: BaseException | None = None) -> None:
        """Raises the callable's exception, if it raised one."""
        if self.error is not None:
            error, self.error = self.error, None  # no reference cycle through the traceback
            raise error from cause


def attach(options: Any, func: ProgressFn | None) -> Progress | None:
    """Points an options struct's progress callback at `func` (None: none);
    returns the Progress the call must keep alive (None without `func`)."""
    if func is None:
        return None
    watcher = Progress(func)
    options.progress, options.progress_context = watcher.c_callback, None
    return watcher


@contextlib.contextmanager
def reraising(watcher: Progress | None) -> Iterator[None]:
    """Around the library call: a cancellation caused by an exception of the
    callable comes out as that exception (chained to the library's error)."""
    try:
        yield
    except errors.EncoreError as e:
        if watcher is not None:
            watcher.reraise(e)
        raise
