"""The generator: the committed _ffi.py is fresh, new header functions appear,
unknown C types stop it, and the generated structs match the C compiler's layout."""
import ctypes
import importlib.util
import inspect
import shutil
import subprocess
import sys
import types

import pytest

from encore_testdata import BINDINGS, REPO

HEADER = (REPO / "include/encore.h").read_text()


def load_generator():
    spec = importlib.util.spec_from_file_location("gen_ffi", BINDINGS / "gen_ffi.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen_ffi = load_generator()


def generated(header_text):
    """Runs generated code as a module, to inspect what it declares."""
    module = types.ModuleType("ffi_under_test")
    exec(gen_ffi.generate(header_text), module.__dict__)
    return module


def with_declarations(extra):
    """The real header with `extra` C declarations inside its extern "C" block."""
    marker = "#ifdef __cplusplus\n}"
    assert marker in HEADER
    return HEADER.replace(marker, extra + "\n" + marker)


def test_committed_ffi_is_fresh():
    result = subprocess.run([sys.executable, str(BINDINGS / "gen_ffi.py"), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_check_reports_a_stale_file(tmp_path):
    # A copy of the layout the generator expects, with a stale _ffi.py.
    (tmp_path / "include").mkdir()
    (tmp_path / "include/encore.h").write_text(with_declarations("/* new */\nint32_t encore_added(void);"))
    (tmp_path / "bindings/python/encore").mkdir(parents=True)
    shutil.copy(BINDINGS / "gen_ffi.py", tmp_path / "bindings/python/gen_ffi.py")
    shutil.copy(BINDINGS / "encore/_ffi.py", tmp_path / "bindings/python/encore/_ffi.py")
    script = tmp_path / "bindings/python/gen_ffi.py"
    stale = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert stale.returncode != 0 and "out of date" in stale.stderr and "encore_added" in stale.stderr
    subprocess.run([sys.executable, str(script)], check=True)
    fresh = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert fresh.returncode == 0, fresh.stderr


def test_a_new_function_appears():
    module = generated(with_declarations(
        "/* added */\nencore_status encore_trust_remove(encore_trust *trust, const char *key_id, uint64_t *left);"))
    restype, argtypes = module.FUNCTIONS["encore_trust_remove"]
    assert restype is ctypes.c_int32
    assert argtypes == [ctypes.POINTER(module.encore_trust), ctypes.c_char_p, ctypes.POINTER(ctypes.c_uint64)]
    assert "encore_trust_remove" in module.FALLIBLE


def test_header_declarations_all_generated():
    module = generated(HEADER)
    declared = subprocess.run([sys.executable, str(REPO / "scripts/gen-header.py"), "--list"],
                              capture_output=True, text=True, check=True).stdout.split()
    assert sorted(module.FUNCTIONS) == sorted(declared)
    assert "encore_version" not in module.FALLIBLE and "encore_keyfile_open_path" in module.FALLIBLE
    assert module.ENCORE_VERSION_STRING == "{}.{}.{}".format(
        module.ENCORE_VERSION_MAJOR, module.ENCORE_VERSION_MINOR, module.ENCORE_VERSION_PATCH)


@pytest.mark.parametrize("bad, word", [
    ("float128_t encore_wide(void);", "float128_t"),
    ("encore_status encore_odd(struct other *thing);", "struct other"),
    ("encore_status encore_cb(int (*cb)(void));", "encore_cb"),
    ("typedef enum encore_mode { A, B } encore_mode;", "enum"),
])
def test_unknown_c_constructs_fail_loudly(bad, word):
    with pytest.raises(gen_ffi.HeaderError, match=word):
        gen_ffi.generate(with_declarations(bad))


def test_owned_strings_keep_their_pointer():
    # A mutable char * result is memory the caller must free: c_char_p would
    # convert it to bytes and lose the pointer.
    module = generated(with_declarations("char *encore_owned_string(void);"))
    assert module.FUNCTIONS["encore_owned_string"] == (ctypes.POINTER(ctypes.c_char), [])


def test_unsupported_preprocessor_fails_loudly():
    with pytest.raises(gen_ffi.HeaderError, match="#if"):
        gen_ffi.generate(HEADER.replace("#ifdef __cplusplus", "#if defined(__cplusplus)", 1))


def test_struct_layout_matches_the_c_compiler(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler")
    header = gen_ffi.parse(HEADER)
    structs = [(name, [field for _, field in fields]) for kind, name, fields in header.types if kind == "struct"]
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "encore.h"', "int main(void) {"]
    for name, fields in structs:
        lines.append(f'    printf("{name} %zu\\n", sizeof({name}));')
        lines += [f'    printf("{name}.{f} %zu\\n", offsetof({name}, {f}));' for f in fields]
    lines += ["    return 0;", "}"]
    (tmp_path / "layout.c").write_text("\n".join(lines))
    subprocess.run([cc, "-std=c99", f"-I{REPO / 'include'}", str(tmp_path / "layout.c"), "-o", str(tmp_path / "layout")],
                   check=True)
    c_layout = dict(line.rsplit(" ", 1) for line in subprocess.run(
        [str(tmp_path / "layout")], capture_output=True, text=True, check=True).stdout.splitlines())
    module = generated(HEADER)
    py_layout = {}
    for name, fields in structs:
        cls = getattr(module, name)
        py_layout[name] = str(ctypes.sizeof(cls))
        py_layout.update({f"{name}.{f}": str(getattr(cls, f).offset) for f in fields})
    assert len(structs) >= 3
    assert py_layout == c_layout


def test_types_for_type_checkers():
    # Library declares every function, typed; struct fields carry Python types.
    module = generated(with_declarations(
        "encore_status encore_trust_remove(encore_trust *trust, const char *from, uint64_t *left);"))
    assert set(module.FUNCTIONS) <= set(vars(module.Library))
    signature = inspect.signature(module.Library.encore_trust_remove)
    assert [str(p.annotation) for p in signature.parameters.values()][1:] == [
        "Pointer[encore_trust]", "bytes | None", "Pointer[ctypes.c_uint64]"]
    assert list(signature.parameters)[2] == "from_" and signature.return_annotation == "int"
    assert module.encore_keyfile_info.__annotations__["region"] == "bytes | None"
    assert module.encore_sighting.__annotations__["rpi"] == "ctypes.Array[ctypes.c_uint8]"
