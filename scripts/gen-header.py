#!/usr/bin/env python3
"""Generates include/encore.h from the Swift @c declarations, and the
status names the library returns from the same source.

The header has one section per topic (SECTIONS below): the topic's public C
types (a header of Sources/CEncoreTypes/include, copied as it is), then one
prototype per `@c public func` of the topic's Sources/EncoreABI files, with
its `///` doc comment. The ABI files are found, not listed: each one with @c
functions names its section on a line `// encore.h section: <key>` (see
SECTION_RE), and the files without are the C layer's helpers. Swift
types map to C types by the table below; handle aliases `<name>_ptr =
OpaquePointer` map to `<name> *`. Anything the table does not know stops the
generator, so a new type cannot slip into the header wrongly.

The names of the status codes (encore_status_name()) are generated from the
ENCORE_OK / ENCORE_ERR_* defines into Sources/EncoreABI/StatusNames.swift.

    scripts/gen-header.py            write include/encore.h and StatusNames.swift
    scripts/gen-header.py --check    fail if either differs
    scripts/gen-header.py --list     print the declared function names
"""
import pathlib
import re
import sys

import header_markup

ROOT = pathlib.Path(__file__).resolve().parent.parent
TYPES_DIR = ROOT / "Sources/CEncoreTypes/include"
ABI_DIR = ROOT / "Sources/EncoreABI"
OUTPUT = ROOT / "include/encore.h"
STATUS_NAMES = ABI_DIR / "StatusNames.swift"
# The header's sections, in order: (key, title, types header or None). Each
# types header may use the earlier ones. The key names the section in its ABI
# files and is its group in the reference (section_<key>), stable across
# edits of the title. A new feature adds its section here; a new ABI file of
# a section needs no edit here.
SECTIONS = [
    ("general", "Version, status codes and memory the library hands out", "encore_types.h"),
    ("keyfile", "Key files: trusted keys, opening, checking and reading diagnosis keys", "encore_keyfile_types.h"),
    ("store", "The encrypted store and its tables: the store's maintenance and settings; sightings, tracing history, own keys, cached key files, risk results through the client",
     "encore_store_types.h"),
    ("crypto", "Exposure Notification crypto and the device's own keys", None),
    ("match", "Matching: sightings against published keys", "encore_match_types.h"),
    ("risk", "Risk: CWA's risk calculation", "encore_risk_types.h"),
    ("check", "The exposure check", "encore_check_types.h"),
    ("net", "HTTP transport: the built-in one (libcurl) or the host's", "encore_net_types.h"),
    ("client", "The client: an app instance's store with its servers, trust list, clock and transport", "encore_client_types.h"),
    ("operation", "Network operations: every flow as a state machine the host can drive with its own I/O", "encore_operation_types.h"),
    ("test", "Test results and key submission (CWA's verification and submission servers)", "encore_test_types.h"),
    ("checkin", "Check-ins: CWA event registration and CrowdNotifier", "encore_checkin_types.h"),
    ("crowdnotifier", "CrowdNotifier check-ins (SwissCovid, NotifyMe): trace keys, and the authority's side", "encore_crowdnotifier_types.h"),
    ("sync", "Background sync: the cache of key files, the app configuration, DP-3T, the planner", "encore_sync_types.h"),
    ("push", "Silent pushes: the registration rule, the app-instance token, registering", "encore_push_types.h"),
    ("tracing", "Tracing: what a radio host broadcasts, when it scans, what it heard (encored's radio over BlueZ)", "encore_tracing_types.h"),
]
# The line by which an ABI file names its section; `, part <n>` orders the
# files of a section (without it: 1; equal parts by file name).
SECTION_RE = re.compile(r"^// encore\.h section: (\w+)(?:, part (\d+))?$", re.M)
TYPES_HEADERS = [TYPES_DIR / t for _, _, t in SECTIONS if t]

SCALARS = {
    "Int8": "int8_t", "UInt8": "uint8_t", "Int16": "int16_t", "UInt16": "uint16_t",
    "Int32": "int32_t", "UInt32": "uint32_t", "Int64": "int64_t", "UInt64": "uint64_t",
    # Swift imports size_t as Int; the ABI uses Int for sizes and counts only.
    "Int": "size_t", "Double": "double", "Float": "float", "CChar": "char",
    "Void": "void", "UnsafeMutableRawPointer": "void *", "UnsafeRawPointer": "const void *",
}
# C types declared in encore_types.h that Swift sees under the same name.
C_TYPES = {"encore_status", "encore_key", "encore_keyfile_info", "encore_keyfile_options", "encore_progress_fn",
           "encore_store_key", "encore_store_options", "encore_purge_counts", "encore_sighting",
           "encore_bytes", "encore_own_key", "encore_cached_keyfile_info", "encore_tracing_event", "encore_risk_result"}

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


def parse_file(f, handles):
    """The @c functions of one ABI file: (name, C return type, C args, doc)."""
    src = f.read_text()
    decls = []
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
    return decls


def sections():
    """[(title, types header path or None, [declarations], group id)] in header order."""
    files = sorted(ABI_DIR.glob("*.swift"))
    keys = [key for key, _, _ in SECTIONS]
    members = {key: [] for key in keys}
    handles = set()
    for f in files:
        handles.update(ALIAS_RE.findall(f.read_text()))
    for f in files:
        src = f.read_text()
        marks = SECTION_RE.findall(src)
        if not FUNC_RE.search(src):
            # A helper of the C layer (handles, status mapping, copying out).
            if marks:
                fail(f"Sources/EncoreABI/{f.name} names a header section but declares no @c function")
            continue
        if len(marks) != 1:
            fail(f"Sources/EncoreABI/{f.name} declares @c functions: it needs one line "
                 f"'// encore.h section: <key>' (keys: {', '.join(keys)})")
        key, part = marks[0]
        if key not in members:
            fail(f"Sources/EncoreABI/{f.name}: no header section '{key}' in scripts/gen-header.py (SECTIONS)")
        members[key].append((int(part or 1), f.name, f))
    out = []
    for key, title, types in SECTIONS:
        if not members[key]:
            fail(f"header section '{key}' has no ABI file (none names it with '// encore.h section: {key}')")
        decls = []
        for _, _, f in sorted(members[key]):
            decls += parse_file(f, handles)
        out.append((title, TYPES_DIR / types if types else None, decls, f"section_{key}"))
    return out


def declarations():
    return [d for _, _, decls, _ in sections() for d in decls]


def header_body(path):
    """A types header without its include guard and its #includes."""
    text = path.read_text()
    guard = re.search(r"#ifndef (\w+)\n#define \1\n", text)
    if not guard:
        fail(f"{path.name} has no include guard")
    body = text[guard.end():].rsplit(f"#endif /* {guard.group(1)} */", 1)[0]
    # Its #includes: other encore headers are in the header anyway, and the
    # standard ones are included once at its top.
    return re.sub(r'#include [<"][\w./]+[>"]\n', "", body)


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
    out = [
        "/**",
        " * @file encore.h",
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
        " *",
        " * Sections:",
    ]
    parts = sections()
    out += [f" *   {i + 1}. {title}" for i, (title, *_) in enumerate(parts)]
    out += [
        " */",
        "#ifndef ENCORE_H",
        "#define ENCORE_H",
        "",
        "#include <stddef.h>",
        "#include <stdint.h>",
        "",
        "#ifdef __cplusplus",
        'extern "C" {',
        "#endif",
        "",
    ]
    for i, (title, types, decls, gid) in enumerate(parts):
        rule = f"/* ==== {i + 1}. {title} "
        out.append(rule + "=" * max(4, 76 - len(rule)) + " */")
        body, intro = "", []
        if types:
            body, intro = header_markup.types_body(re.sub(r"\n{3,}", "\n\n", header_body(types)).strip())
        # The section is a group: one page of the reference (make docs).
        out += header_markup.group_open(gid, i + 1, title, intro)
        out.append("")
        if types:
            out.append(body + "\n")
        for name, rt, args, doc in decls:
            if doc:
                out.append(header_markup.function_doc(doc))
            sep = "" if rt.endswith("*") else " "
            out.append(f"{rt}{sep}{name}({', '.join(args)});")
            out.append("")
        out += header_markup.group_close(gid)
        out.append("")
    out += ["#ifdef __cplusplus", "}", "#endif", "", "#endif /* ENCORE_H */", ""]
    return "\n".join(out)


def render_status_names():
    """StatusNames.swift: every ENCORE_OK / ENCORE_ERR_* define by name."""
    text = (TYPES_DIR / "encore_types.h").read_text()
    names = re.findall(r"^#define (ENCORE_(?:OK|ERR_\w+)) -?\d+", text, re.M)
    if "ENCORE_OK" not in names or len(names) != len(set(names)):
        fail("encore_types.h: the status defines cannot be read")
    lines = ["// GENERATED by scripts/gen-header.py from the ENCORE_OK / ENCORE_ERR_* defines of",
             "// Sources/CEncoreTypes/include/encore_types.h. Do not edit; CI fails on drift.",
             "import CEncoreTypes", "",
             "/// The names of the status codes, for encore_status_name().",
             "let statusNames: [encore_status: String] = ["]
    lines += [f'    {n}: "{n}",' for n in names]
    lines += ["]", ""]
    return "\n".join(lines)


def check_error_kinds():
    """Every EncoreError.Kind the modules declare has its status in
    Sources/EncoreABI/Status.swift (the mapping's `default` is for bugs)."""
    declared = set()
    for path in (ROOT / "Sources").glob("*/*.swift"):
        declared |= set(re.findall(r'static let (\w+) = (?:EncoreError\.)?Kind\("\1"\)', path.read_text()))
    mapped = set(re.findall(r"case \.(\w+): return ENCORE_", (ABI_DIR / "Status.swift").read_text()))
    if not declared:
        fail("no EncoreError.Kind declarations found")
    if declared - mapped:
        fail("EncoreError kinds without a status in Sources/EncoreABI/Status.swift: " + ", ".join(sorted(declared - mapped)))


def main():
    arg = sys.argv[1] if len(sys.argv) > 1 else ""
    check_error_kinds()
    outputs = [(OUTPUT, render), (STATUS_NAMES, render_status_names)]
    if arg == "--list":
        print("\n".join(name for name, *_ in declarations()))
    elif arg == "--check":
        for path, make in outputs:
            if not path.exists() or path.read_text() != make():
                fail(f"{path.relative_to(ROOT)} is out of date: run scripts/gen-header.py and commit it")
        print("include/encore.h and Sources/EncoreABI/StatusNames.swift are up to date")
    elif arg == "":
        for path, make in outputs:
            path.parent.mkdir(exist_ok=True)
            path.write_text(make())
            print(f"wrote {path.relative_to(ROOT)}")
    else:
        fail(f"unknown argument {arg}")


if __name__ == "__main__":
    main()
