"""ctypes access to libencore's store functions for the store tests, with raw
status codes (no exceptions).

The declarations are the generated ones of bindings/python/encore/_ffi.py,
loaded as a member of a private package whose __path__ is
bindings/python/encore, so that the `encore` package's __init__ (and
whatever it imports) does not run: these tests exercise the C library, not
the Python classes on it. The library is found as _loader.py finds it
($ENCORE_LIBRARY, else <repo>/build/lib/libencore.so) and its version is
checked the same way, but only the functions the header declares AND the
library exports are bound: a header that has grown ahead of the build
(another part of the API mid-work) does not stop the store tests, while a
library without the store functions they use does, with a clear message.
"""
import ctypes
import importlib
import os
import pathlib
import sys
import types

REPO = pathlib.Path(__file__).resolve().parents[2]
_PACKAGE = "_encore_store_tests"


def _private_import(module):
    if _PACKAGE not in sys.modules:
        package = types.ModuleType(_PACKAGE)
        package.__path__ = [str(REPO / "bindings" / "python" / "encore")]
        sys.modules[_PACKAGE] = package
    return importlib.import_module(f"{_PACKAGE}.{module}")


ffi = _private_import("_ffi")

NEEDED = [
    "encore_version", "encore_version_number", "encore_status_name", "encore_last_error_message",
    "encore_store_options_init", "encore_store_open", "encore_store_close", "encore_store_rekey",
    "encore_store_get_schema_version", "encore_store_check_integrity", "encore_store_purge",
    "encore_sighting_add", "encore_sighting_count", "encore_sighting_copy", "encore_client_new", "encore_client_free",
]


def _load():
    path = os.environ.get("ENCORE_LIBRARY") or str(REPO / "build" / "lib" / "libencore.so")
    try:
        library = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(f"cannot load libencore ({e}): run `make lib` or set ENCORE_LIBRARY") from None
    missing = [name for name in NEEDED if not hasattr(library, name)]
    if missing:
        raise ImportError(f"{path} does not export {', '.join(missing)}: rebuild it with `make lib`")
    for name, (restype, argtypes) in ffi.FUNCTIONS.items():
        if hasattr(library, name):
            function = getattr(library, name)
            function.restype = restype
            function.argtypes = argtypes
    version = library.encore_version().decode()
    if version != ffi.ENCORE_VERSION_STRING:
        raise ImportError(f"{path} is version {version}, the header {ffi.ENCORE_VERSION_STRING}")
    return library, path


lib, LIBRARY_PATH = _load()


def has(function):
    """Whether the loaded library exports a function the header declares."""
    return function in ffi.FUNCTIONS and hasattr(lib, function)


OK = ffi.ENCORE_OK
StorePtr = ctypes.POINTER(ffi.encore_store)


def status_name(status):
    name = lib.encore_status_name(status)
    return name.decode() if name else f"status {status}"


def last_error():
    message = lib.encore_last_error_message()
    return message.decode("utf-8", "replace") if message else ""


class StoreError(Exception):
    def __init__(self, what, status):
        super().__init__(f"{what}: {status_name(status)}: {last_error()}")
        self.status = status


def check(what, status):
    if status != OK:
        raise StoreError(what, status)


def make_key(data, raw=False):
    """An encore_store_key for bytes (raw: exactly 32 bytes)."""
    data = bytes(data)
    buf = (ctypes.c_uint8 * max(len(data), 1)).from_buffer_copy(data or b"\0")
    key = ffi.encore_store_key(ctypes.sizeof(ffi.encore_store_key), ffi.ENCORE_KEY_RAW if raw else ffi.ENCORE_KEY_PASSPHRASE,
                               ctypes.cast(buf, ctypes.POINTER(ctypes.c_uint8)), len(data))
    key._keep = buf  # the bytes live as long as the key
    return key


def make_options(create=True, busy_timeout_ms=None):
    o = ffi.encore_store_options()
    check("encore_store_options_init", lib.encore_store_options_init(ctypes.byref(o), ctypes.sizeof(o)))
    o.create = 1 if create else 0
    if busy_timeout_ms is not None:
        o.busy_timeout_ms = busy_timeout_ms
    return o


def open_status(path, key, options=None):
    """(status, handle or None)."""
    handle = StorePtr()
    status = lib.encore_store_open(os.fsencode(path), ctypes.byref(key),
                                   ctypes.byref(options) if options is not None else None, ctypes.byref(handle))
    return status, (handle if status == OK else None)


def open_store(path, key, options=None):
    status, handle = open_status(path, key, options)
    check(f"encore_store_open({path})", status)
    return handle


# The client of each open store (the sightings are a client's feature):
# made on first use, freed when the store is closed here.
_clients = {}


def client_of(handle):
    """The encore_client of an open store handle."""
    address = ctypes.cast(handle, ctypes.c_void_p).value
    if address not in _clients:
        client = ctypes.POINTER(ffi.encore_client)()
        check("encore_client_new", lib.encore_client_new(handle, None, ctypes.byref(client)))
        _clients[address] = client
    return _clients[address]


def close(handle):
    client = _clients.pop(ctypes.cast(handle, ctypes.c_void_p).value, None)
    if client is not None:
        lib.encore_client_free(client)
    lib.encore_store_close(handle)


def sightings(rows):
    """An encore_sighting array from (time, rpi16, aem4, rssi, prev_scan or None) tuples."""
    rows = list(rows)
    array = (ffi.encore_sighting * max(len(rows), 1))()
    for o, (time, rpi, aem, rssi, prev) in zip(array, rows):
        o.struct_size = ctypes.sizeof(o)
        o.time = time
        ctypes.memmove(o.rpi, bytes(rpi), 16)
        ctypes.memmove(o.aem, bytes(aem), 4)
        o.rssi = rssi
        if prev is not None:
            o.has_prev_scan = 1
            o.prev_scan = prev
    return array, len(rows)


def add_status(handle, array, count):
    """(status, rows added)."""
    added = ctypes.c_size_t(0)
    status = lib.encore_sighting_add(client_of(handle), array, ctypes.sizeof(ffi.encore_sighting), count, ctypes.byref(added))
    return status, added.value


def add(handle, rows):
    array, n = sightings(rows)
    status, added = add_status(handle, array, n)
    check("encore_sighting_add", status)
    return added


def count(handle, start=-(2 ** 63), end=2 ** 63 - 1):
    n = ctypes.c_uint64(0)
    check("encore_sighting_count", lib.encore_sighting_count(client_of(handle), start, end, ctypes.byref(n)))
    return n.value


def copy_all(handle, start=-(2 ** 63), end=2 ** 63 - 1, chunk=10000):
    out = []
    buf = (ffi.encore_sighting * chunk)()
    copied = ctypes.c_size_t(0)
    while True:
        check("encore_sighting_copy",
              lib.encore_sighting_copy(client_of(handle), start, end, len(out), buf, ctypes.sizeof(ffi.encore_sighting), chunk,
                                                 ctypes.byref(copied)))
        out.extend((o.time, bytes(o.rpi), bytes(o.aem), o.rssi, o.prev_scan if o.has_prev_scan else None)
                   for o in buf[:copied.value])
        if copied.value < chunk:
            return out


def integrity_status(handle):
    return lib.encore_store_check_integrity(handle)
