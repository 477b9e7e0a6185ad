"""Adapts a Python progress callable to encore_progress_fn for one call."""
import contextlib

from . import _ffi, errors


class Progress:
    """Owns the C callback object for the duration of one library call (ctypes
    would free the trampoline if nothing referenced it). An exception raised by
    the Python callable cannot cross C, so it cancels the operation and is kept
    in `error` for the caller to re-raise."""

    def __init__(self, func):
        if not callable(func):
            raise TypeError(f"progress must be callable, not {type(func).__name__}")
        self.func = func
        self.error = None
        self.c_callback = _ffi.encore_progress_fn(self._call)

    def _call(self, context, done, total):
        if self.error is not None:
            return 1
        try:
            result = self.func(done, total)
        except BaseException as e:  # KeyboardInterrupt too: it must stop the library
            self.error = e
            return 1
        # None (no return statement) and True go on; False cancels.
        return 0 if result is None or result else 1

    def reraise(self, cause=None):
        """Raises the callable's exception, if it raised one."""
        if self.error is not None:
            error, self.error = self.error, None  # no reference cycle through the traceback
            raise error from cause


def attach(options, func):
    """Points an options struct's progress callback at `func` (None: none);
    returns the Progress the call must keep alive (None without `func`)."""
    if func is None:
        return None
    watcher = Progress(func)
    options.progress, options.progress_context = watcher.c_callback, None
    return watcher


@contextlib.contextmanager
def reraising(watcher):
    """Around the library call: a cancellation caused by an exception of the
    callable comes out as that exception (chained to the library's error)."""
    try:
        yield
    except errors.EncoreError as e:
        if watcher is not None:
            watcher.reraise(e)
        raise
