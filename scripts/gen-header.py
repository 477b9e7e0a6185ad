#!/usr/bin/env python3
"""Generates include/encore.h from the Swift @c declarations.

The header is the public C types (Sources/CEncoreTypes/include/encore_types.h,
copied as they are) followed by one prototype per `@c public func` of
Sources/EncoreABI, with its `///` doc comment. Swift types map to C types by
the table below; handle aliases `<name>_ptr = OpaquePointer` map to `<name> *`.
Anything the table does not know stops the generator, so a new type cannot
slip into the header wrongly.

    scripts/gen-header.py            write include/encore.h
    scripts/gen-header.py --check    fail if include/encore.h differs
    scripts/gen-header.py --list     print the declared function names
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# The public C types, in this order (each later one may use the earlier).
TYPES_HEADERS = [ROOT / "Sources/CEncoreTypes/include/encore_types.h",
                 ROOT / "Sources/CEncoreTypes/include/encore_match_types.h",
                 ROOT / "Sources/CEncoreTypes/include/encore_risk_types.h",
                 ROOT / "Sources/CEncoreTypes/include/encore_check_types.h"]
ABI_DIR = ROOT / "Sources/EncoreABI"
OUTPUT = ROOT / "include/encore.h"
# Files whose functions come first, in this order; the rest follow by name.
FILE_ORDER = ["VersionAPI.swift", "ReturnedMemoryAPI.swift", "TrustAPI.swift", "CryptoAPI.swift", "BroadcastAPI.swift", "KeyFileAPI.swift", "StoreAPI.swift", "MatchAPI.swift", "RiskAPI.swift", "CheckAPI.swift",
              "StorePackagesAPI.swift", "StoreOwnKeysAPI.swift", "StoreTracingAPI.swift", "StoreResultsAPI.swift",
              "StoreSettingsAPI.swift"]

SCALARS = {
    "Int8": "int8_t", "UInt8": "uint8_t", "Int16": "int16_t", "UInt16": "uint16_t",
    "Int32": "int32_t", "UInt32": "uint32_t", "Int64": "int64_t", "UInt64": "uint64_t",
    # Swift imports size_t as Int; the ABI uses Int for sizes and counts only.
    "Int": "size_t", "Double": "double", "Float": "float", "CChar": "char",
    "Void": "void", "UnsafeMutableRawPointer": "void *", "UnsafeRawPointer": "const void *",
}
# C types declared in encore_types.h that Swift sees under the same name.
C_TYPES = {"encore_status", "encore_key", "encore_keyfile_info", "encore_keyfile_options", "encore_progress_fn",
           "encore_store_key", "encore_store_options", "encore_purge_counts", "encore_observation",
           "encore_bytes", "encore_own_key", "encore_package_info", "encore_tracing_event", "encore_risk_result"}

FUNC_RE = re.compile(r"@c\s+public\s+func\s+(\w+)\s*\((.*?)\)\s*(?:->\s*([^{]+?))?\s*\{", re.S)
ALIAS_RE = re.compile(r"public\s+typealias\s+(\w+)_ptr\s*=\s*OpaquePointer")


def fail(msg):
    sys.exit(f"gen-header: {msg}")


def c_type(swift, handles):
    t = swift.strip()
    if t.endswith("?"):
        t = t[:-1].strip()
    m = re.fullmatch(r"(UnsafePointer|UnsafeMutablePointer)<(.+)>", t)
    if m:
        inner = c_type(m.group(2), handles)
        const = m.group(1) == "UnsafePointer"
        if inner.endswith("*"):
            # A pointer to a pointer: const applies to the pointer pointed to
            # ("const char *const *"), which C and C++ both accept.
            return f"{inner}{'const ' if const else ''}*"
        return f"{'const ' if const else ''}{inner} *"
    if t in SCALARS:
        return SCALARS[t]
    if t.endswith("_ptr") and t[:-4] in handles:
        return f"{t[:-4]} *"
    if t in C_TYPES or t in declared_types():
        return t
    fail(f"no C type for Swift type '{swift}'")


def split_params(text):
    params, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            params.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        params.append(cur)
    return params


def declarations():
    handles, decls = set(), []
    files = sorted(ABI_DIR.glob("*.swift"), key=lambda f: (FILE_ORDER.index(f.name) if f.name in FILE_ORDER else len(FILE_ORDER), f.name))
    for f in files:
        handles.update(ALIAS_RE.findall(f.read_text()))
    for f in files:
        src = f.read_text()
        for m in FUNC_RE.finditer(src):
            name, params, ret = m.group(1), m.group(2), (m.group(3) or "Void")
            if not name.startswith("encore_"):
                fail(f"{f.name}: exported function {name} lacks the encore_ prefix")
            args = []
            for p in split_params(params):
                pm = re.fullmatch(r"\s*_\s+(\w+)\s*:\s*(.+?)\s*", p, re.S)
                if not pm:
                    fail(f"{f.name}: parameter '{p.strip()}' of {name} must be written '_ name: Type'")
                ct = c_type(pm.group(2), handles)
                args.append(f"{ct}{'' if ct.endswith('*') else ' '}{pm.group(1)}")
            rt = c_type(ret, handles)
            # The doc comment: the /// lines right above the @c line.
            lines = src[: m.start()].rstrip("\n").split("\n")
            doc = []
            while lines and lines[-1].strip().startswith("///"):
                doc.insert(0, lines.pop().strip()[3:].strip())
            decls.append((name, rt, args or ["void"], doc))
    return handles, decls


def header_body(path):
    """A types header without its include guard and its own #includes of
    other encore headers (they are concatenated here anyway)."""
    text = path.read_text()
    guard = re.search(r"#ifndef (\w+)\n#define \1\n", text)
    if not guard:
        fail(f"{path.name} has no include guard")
    body = text[guard.end():].rsplit(f"#endif /* {guard.group(1)} */", 1)[0]
    return re.sub(r'#include "encore_\w+\.h"\n', "", body)


def declared_types():
    """Every type name the types headers declare: Swift sees them by name."""
    names = set()
    for path in TYPES_HEADERS:
        text = path.read_text()
        names.update(re.findall(r"\}\s*(\w+);", text))                 # typedef struct {...} name;
        names.update(re.findall(r"typedef\s+[\w\s]+?\b(\w+);", text))  # typedef int32_t name;
        names.update(re.findall(r"\(\*(\w+)\)", text))                  # function pointers
    return names


def render():
    body = "".join(header_body(p) for p in TYPES_HEADERS)
    _, decls = declarations()
    out = [
        "/*",
        " * encore.h: the C API of libencore (Exposure Notification core).",
        " *",
        " * GENERATED by scripts/gen-header.py from Sources/CEncoreTypes/include/encore_*.h",
        " * and the @c functions of Sources/EncoreABI. Do not edit; CI fails on drift.",
        " *",
        " * Conventions: every fallible function returns encore_status (ENCORE_OK is 0) and",
        " * writes its out-parameters only on success; encore_last_error_message() explains",
        " * a failure on the calling thread. Memory and handles the library returns are",
        " * released by the library's own _free functions, which accept NULL. Strings",
        " * passed in (paths, names, key ids) are NUL-terminated UTF-8; a string that is",
        " * not valid UTF-8 is refused with ENCORE_ERR_INVALID_ARGUMENT, never repaired.",
        " */",
        "#ifndef ENCORE_H",
        "#define ENCORE_H",
        re.sub(r"\n{3,}", "\n\n", body).rstrip() + "\n",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        "",
    ]
    for name, rt, args, doc in decls:
        if doc:
            out.append("/* " + "\n * ".join(doc) + " */")
        sep = "" if rt.endswith("*") else " "
        out.append(f"{rt}{sep}{name}({', '.join(args)});")
        out.append("")
    out += ["#ifdef __cplusplus", "}", "#endif", "", "#endif /* ENCORE_H */", ""]
    return "\n".join(out)


def main():
    arg = sys.argv[1] if len(sys.argv) > 1 else ""
    if arg == "--list":
        print("\n".join(name for name, *_ in declarations()[1]))
    elif arg == "--check":
        if not OUTPUT.exists() or OUTPUT.read_text() != render():
            fail("include/encore.h is out of date: run scripts/gen-header.py and commit it")
        print("include/encore.h is up to date")
    elif arg == "":
        OUTPUT.parent.mkdir(exist_ok=True)
        OUTPUT.write_text(render())
        print(f"wrote {OUTPUT.relative_to(ROOT)}")
    else:
        fail(f"unknown argument {arg}")


if __name__ == "__main__":
    main()
