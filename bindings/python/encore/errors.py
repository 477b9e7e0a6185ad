"""Status codes as exceptions: EncoreError and one subclass per ENCORE_ERR_*
constant of the header, so that a new status gets its class without edits."""
from __future__ import annotations

from typing import Any

from . import _ffi
from ._loader import lib

PREFIX = "ENCORE_ERR_"


class EncoreError(Exception):
    """A libencore function failed. `status` is the code, `status_name` its
    constant's name, `message` the library's explanation."""

    def __init__(self, status: int, message: str, status_name: str | None = None) -> None:
        super().__init__(status, message)
        self.status = status
        self.message = message
        self.status_name = status_name or status_name_of(status) or f"unknown status {status}"

    def __str__(self) -> str:
        return f"{self.status_name}: {self.message}" if self.message else self.status_name

    def __reduce__(self) -> tuple[type[EncoreError], tuple[int, str, str]]:
        return type(self), (self.status, self.message, self.status_name)


def _class_name(constant: str) -> str:
    """ENCORE_ERR_ZIP_CRC -> ZipCrcError."""
    return "".join(part.capitalize() for part in constant[len(PREFIX):].split("_")) + "Error"


def _make_classes() -> dict[int, type[EncoreError]]:
    classes: dict[int, type[EncoreError]] = {}
    for constant, value in vars(_ffi).items():
        if constant.startswith(PREFIX) and isinstance(value, int):
            cls = type(_class_name(constant), (EncoreError,), {
                "__doc__": f"The library returned {constant} ({value}).",
                "__module__": "encore",
                "STATUS": value,
            })
            classes[value] = cls
    return classes


BY_STATUS = _make_classes()
CLASSES = {cls.__name__: cls for cls in BY_STATUS.values()}
EncoreError.__module__ = "encore"


def status_name_of(status: int) -> str | None:
    """The library's name for a status code, or None when it is not one."""
    name = lib.encore_status_name(status)
    return name.decode() if name is not None else None


def error_for(status: int) -> EncoreError:
    """The exception for a failed call, with this thread's last error message.
    Must run on the failing thread, before any other encore call fails there."""
    message = lib.encore_last_error_message()
    return BY_STATUS.get(status, EncoreError)(status, message.decode("utf-8", "replace") if message else "")


def _errcheck(result: int, func: Any, arguments: Any) -> int:
    if result != _ffi.ENCORE_OK:
        raise error_for(result)
    return result


# Every function returning encore_status raises on failure, including ones
# added to the header later.
for _name in _ffi.FALLIBLE:
    getattr(lib, _name).errcheck = _errcheck
