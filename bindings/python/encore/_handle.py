"""Ownership of one C handle shared by Python threads."""
import contextlib
import threading


class Handle:
    """Owns a library handle and frees it exactly once.

    ctypes releases the GIL during calls, so one thread may close an object
    while another is inside a C call with it. Freeing then would be a
    use-after-free in C; instead close() marks the handle closed and the last
    call still using it frees it."""

    def __init__(self, pointer, free, what):
        self._pointer = pointer
        self._free = free
        self._what = what
        self._lock = threading.Lock()
        self._users = 0
        self._closed = False

    @property
    def closed(self):
        return self._closed

    @contextlib.contextmanager
    def borrow(self):
        """The pointer, guaranteed not to be freed until the block ends."""
        with self._lock:
            if self._closed:
                raise ValueError(f"{self._what} is closed")
            self._users += 1
        try:
            yield self._pointer
        finally:
            with self._lock:
                self._users -= 1
                last = self._closed and self._users == 0
            if last:
                self._release()

    def close(self):
        with self._lock:
            if self._closed:
                return
            self._closed = True
            last = self._users == 0
        if last:
            self._release()

    def _release(self):
        pointer, self._pointer = self._pointer, None
        self._free(pointer)


class Closeable:
    """close(), `closed` and the context manager for an object that owns one
    Handle in self._handle."""

    def close(self):
        """Releases the library object; the last call still using it frees it."""
        self._handle.close()

    @property
    def closed(self):
        return self._handle.closed

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
