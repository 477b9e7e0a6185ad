#!/usr/bin/env python3
"""Generates bindings/python/encore/_ffi.py (ctypes declarations) from include/encore.h.

Everything the Python package knows about the C ABI comes from the header:
constants, structs, opaque handles, the callback type and the argtypes/restype
of every function. A function added to the header therefore appears in the
bindings after regeneration, and a C type this generator does not know stops
it instead of being guessed.

For type checkers (mypy --strict runs on the package) every struct field gets
its Python type, and `Library` declares every function with typed parameters:
what the loaded CDLL is, as bind() returns it.

    python3 bindings/python/gen_ffi.py            write encore/_ffi.py
    python3 bindings/python/gen_ffi.py --check    fail if encore/_ffi.py is stale
"""
import ast
import difflib
import keyword
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
HEADER = HERE.parent.parent / "include/encore.h"
OUTPUT = HERE / "encore/_ffi.py"

# C scalar types the header may use, as ctypes expressions.
SCALARS = {
    "int8_t": "ctypes.c_int8", "uint8_t": "ctypes.c_uint8",
    "int16_t": "ctypes.c_int16", "uint16_t": "ctypes.c_uint16",
    "int32_t": "ctypes.c_int32", "uint32_t": "ctypes.c_uint32",
    "int64_t": "ctypes.c_int64", "uint64_t": "ctypes.c_uint64",
    "size_t": "ctypes.c_size_t", "char": "ctypes.c_char",
    "int": "ctypes.c_int", "unsigned int": "ctypes.c_uint",
    "double": "ctypes.c_double", "float": "ctypes.c_float", "bool": "ctypes.c_bool",
}
# The Python type of each scalar, as ctypes converts it in both directions.
PYTHON_TYPES = {
    **{c: "int" for c in SCALARS.values() if c not in ("ctypes.c_char", "ctypes.c_double", "ctypes.c_float", "ctypes.c_bool")},
    "ctypes.c_char": "bytes", "ctypes.c_double": "float", "ctypes.c_float": "float", "ctypes.c_bool": "bool",
    "ctypes.c_char_p": "bytes | None", "ctypes.c_void_p": "int | None",
}
# Preprocessor conditions the header is allowed to use; anything else is an error
# because this generator does not evaluate #if expressions.
ACTIVE_CONDITIONS = {"#ifndef ENCORE_H": True, "#ifdef __cplusplus": False}

DEFINE_RE = re.compile(r"#define\s+(\w+)\s+(.*)")
IDENT_RE = r"[A-Za-z_]\w*"


class HeaderError(Exception):
    """The header uses something this generator cannot translate."""


class Header:
    """The parsed declarations of encore.h, in header order."""

    def __init__(self):
        self.constants = {}   # name -> int or str
        self.types = []       # (kind, name, payload) in declaration order
        self.functions = []   # (name, return type, [(param type, param name)])
        self.known = dict(SCALARS)  # C type name -> ctypes expression


def evaluate(expr, constants, name):
    """Value of a #define: an int, a string literal, or arithmetic on earlier constants."""
    try:
        tree = ast.parse(expr.strip(), mode="eval").body
    except SyntaxError:
        raise HeaderError(f"#define {name}: cannot parse value '{expr}'") from None

    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, str)):
            return node.value
        if isinstance(node, ast.Name) and node.id in constants:
            return constants[node.id]
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.LShift, ast.BitOr)):
            left, right = value(node.left), value(node.right)
            if isinstance(left, int) and isinstance(right, int):
                return {ast.Add: int.__add__, ast.Sub: int.__sub__, ast.Mult: int.__mul__,
                        ast.LShift: int.__lshift__, ast.BitOr: int.__or__}[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        raise HeaderError(f"#define {name}: unsupported value '{expr}'")

    return value(tree)


def preprocess(text, header):
    """Collects #defines and returns the C code of the active lines, comments removed."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    stack, code = [], []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("#"):
            directive = " ".join(s.split())
            if directive.startswith(("#if", "#ifdef", "#ifndef")):
                if directive not in ACTIVE_CONDITIONS:
                    raise HeaderError(f"unsupported preprocessor condition '{directive}'")
                stack.append(ACTIVE_CONDITIONS[directive])
            elif directive == "#endif":
                stack.pop()
            elif directive.startswith("#include"):
                pass
            elif all(stack) and (m := DEFINE_RE.fullmatch(directive)):
                if m.group(1).startswith("ENCORE_") and m.group(1) != "ENCORE_H":
                    header.constants[m.group(1)] = evaluate(m.group(2), header.constants, m.group(1))
            elif all(stack) and re.fullmatch(r"#define\s+ENCORE_\w+\(\w+\)\s+.*", directive):
                pass  # a function-like convenience for C (Python has _cdata.output)
            elif all(stack) and not re.fullmatch(r"#define\s+ENCORE_H", directive):
                raise HeaderError(f"unsupported preprocessor line '{directive}'")
        elif all(stack):
            code.append(line)
    return "\n".join(code)


def statements(code):
    """Top-level C statements: split at ';' outside braces."""
    out, depth, cur = [], 0, ""
    for ch in code:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == ";" and depth == 0:
            out.append(" ".join(cur.split()))
            cur = ""
        else:
            cur += ch
    if cur.strip():
        raise HeaderError(f"unterminated declaration '{' '.join(cur.split())}'")
    return out


def ctype(decl, header, what):
    """ctypes expression for a C type such as 'const encore_trust *' or 'uint32_t'."""
    tokens = re.findall(r"\*|" + IDENT_RE, decl)
    if "".join(tokens) != re.sub(r"\s", "", decl):
        raise HeaderError(f"{what}: cannot parse type '{decl}'")
    depth = tokens.count("*")
    const = "const" in tokens
    base = " ".join(t for t in tokens if t not in ("*", "const"))
    if base == "void":
        if depth == 0:
            return "None"
        inner, depth = "ctypes.c_void_p", depth - 1
    elif base == "char" and depth and const:
        # Only const char * is a string the library owns; a mutable char * would
        # be memory to free, which c_char_p would lose.
        inner, depth = "ctypes.c_char_p", depth - 1
    elif base in header.known:
        inner = header.known[base]
    else:
        raise HeaderError(f"{what}: unknown C type '{base}'")
    for _ in range(depth):
        inner = f"ctypes.POINTER({inner})"
    return inner


def declarator(text, header, what):
    """(ctypes expression, name) of 'type name' or 'type name[N]'."""
    m = re.fullmatch(rf"(.*?)\b({IDENT_RE})\s*(?:\[\s*(\w+)\s*\])?", text.strip())
    if not m or not m.group(1).strip():
        raise HeaderError(f"{what}: cannot parse declaration '{text}'")
    t = ctype(m.group(1), header, f"{what} '{m.group(2)}'")
    if m.group(3):
        size = m.group(3)
        size = header.constants.get(size, size)
        if not str(size).isdigit():
            raise HeaderError(f"{what} '{m.group(2)}': unknown array size '{m.group(3)}'")
        t = f"{t} * {size}"
    return t, m.group(2)


def parameters(text, header, what):
    text = text.strip()
    if text in ("", "void"):
        return []
    return [declarator(p, header, what) for p in text.split(",")]


def parse(text):
    header = Header()
    for st in statements(preprocess(text, header)):
        if not st:
            continue
        if m := re.fullmatch(rf"typedef struct ({IDENT_RE}) ({IDENT_RE})", st):
            if m.group(1) != m.group(2):
                raise HeaderError(f"opaque handle '{st}': tag and name differ")
            header.types.append(("opaque", m.group(1), None))
            header.known[m.group(1)] = m.group(1)
        elif m := re.fullmatch(rf"typedef struct ({IDENT_RE}) \{{(.*)\}} ({IDENT_RE})", st):
            fields = [declarator(f, header, f"struct {m.group(3)} field")
                      for f in m.group(2).split(";") if f.strip()]
            header.types.append(("struct", m.group(3), fields))
            header.known[m.group(3)] = m.group(3)
        elif m := re.fullmatch(rf"typedef (.+?)\(\s*\*\s*({IDENT_RE})\s*\)\s*\((.*)\)", st):
            name = m.group(2)
            ret = ctype(m.group(1), header, f"callback {name} result")
            params = parameters(m.group(3), header, f"callback {name} parameter")
            header.types.append(("callback", name, (ret, params)))
            header.known[name] = name
        elif m := re.fullmatch(rf"typedef (.+) ({IDENT_RE})", st):
            header.types.append(("alias", m.group(2), ctype(m.group(1), header, f"typedef {m.group(2)}")))
            header.known[m.group(2)] = m.group(2)
        elif m := re.fullmatch(rf"(.+?)\b({IDENT_RE})\s*\((.*)\)", st):
            name = m.group(2)
            ret = ctype(m.group(1), header, f"function {name} result")
            params = parameters(m.group(3), header, f"function {name} parameter")
            header.functions.append((name, m.group(1).strip(), ret, params))
        else:
            raise HeaderError(f"unsupported declaration '{st}'")
    return header


class Annotations:
    """Python types of the ctypes expressions the generator writes, for type
    checkers: what a struct field holds, what a function takes and returns."""

    def __init__(self, header):
        self.aliases = {name: payload for kind, name, payload in header.types if kind == "alias"}
        self.callbacks = {name for kind, name, _ in header.types if kind == "callback"}

    def ctypes_class(self, expr):
        """The ctypes class an expression makes, as a type (aliases resolved)."""
        if m := re.fullmatch(r"ctypes\.POINTER\((.*)\)", expr):
            return f"_Pointer[{self.ctypes_class(m.group(1))}]"
        if expr in self.aliases:
            return self.ctypes_class(self.aliases[expr])
        if expr in self.callbacks:
            return "_CFunctionType"
        return expr

    def python(self, expr, role):
        """The Python type of `expr` as a struct field ("field"), a function's
        parameter ("parameter": what ctypes accepts) or result ("result")."""
        if expr == "None":
            return "None"
        if m := re.fullmatch(r"(.+) \* (\d+)", expr):
            return f"ctypes.Array[{self.ctypes_class(m.group(1))}]"
        if m := re.fullmatch(r"ctypes\.POINTER\((.*)\)", expr):
            target = self.ctypes_class(m.group(1))
            # A parameter takes a pointer, an array, byref() or None (NULL).
            return f"Pointer[{target}]" if role == "parameter" else f"_Pointer[{target}]"
        if expr in self.aliases:
            return self.python(self.aliases[expr], role)
        if expr in self.callbacks:
            # ctypes refuses None for a callback argument: NULL is the type's
            # empty instance (encore_progress_fn()).
            return "_CFunctionType"
        return PYTHON_TYPES.get(expr, expr)  # a scalar, else a struct passed by value


def python_name(name):
    """A C parameter name usable in Python (`from` -> `from_`)."""
    return name + "_" if keyword.iskeyword(name) else name


def render(header):
    types = Annotations(header)
    out = [
        '"""ctypes declarations of include/encore.h.',
        "",
        "GENERATED by bindings/python/gen_ffi.py from include/encore.h. Do not edit;",
        "scripts/check-abi.sh fails when this file differs from a fresh generation.",
        "Every struct field carries its Python type, and Library declares every",
        "function with typed parameters: what bind() makes of the loaded library.",
        '"""',
        "from __future__ import annotations",
        "",
        "import ctypes",
        "from typing import TYPE_CHECKING, Any, Protocol, TypeAlias, TypeVar, cast",
        "",
        "if TYPE_CHECKING:",
        "    from ctypes import _CArgObject, _CData, _CFunctionType, _Pointer",
        "",
        "    _T = TypeVar(\"_T\", bound=_CData)",
        "    # What a pointer parameter accepts: a pointer, an array, byref() or None (NULL).",
        "    Pointer: TypeAlias = _Pointer[_T] | ctypes.Array[_T] | _CArgObject | None",
        "",
        "# Constants (#define ENCORE_*).",
    ]
    out += [f"{name} = {value!r}" for name, value in header.constants.items()]
    out += ["", "# Types, in header order."]
    for kind, name, payload in header.types:
        if kind == "alias":
            out.append(f"{name} = {payload}")
        elif kind == "opaque":
            out += ["", "", f"class {name}(ctypes.Structure):",
                    '    """Opaque handle: only ever used through pointers."""']
        elif kind == "callback":
            ret, params = payload
            args = ", ".join([ret] + [t for t, _ in params])
            names = ", ".join(n for _, n in params)
            out += ["", "", f"# ({names})", f"{name} = ctypes.CFUNCTYPE({args})"]
        else:
            out += ["", "", f"class {name}(ctypes.Structure):", "    _fields_ = ["]
            out += [f"        ({field!r}, {t})," for t, field in payload]
            out.append("    ]")
            out += [f"    {field}: {types.python(t, 'field')}" for t, field in payload]
    out += ["", "", "# Every function of the header: name -> (restype, argtypes).",
            "FUNCTIONS: dict[str, tuple[Any, list[Any]]] = {"]
    for name, _, ret, params in header.functions:
        if params:
            out.append(f"    # ({', '.join(n for _, n in params)})")
        out.append(f"    {name!r}: ({ret}, [{', '.join(t for t, _ in params)}]),")
    out += ["}", "", "# Functions returning encore_status: callers check their result.", "FALLIBLE = frozenset({"]
    out += [f"    {name!r}," for name, cret, _, _ in header.functions if cret == "encore_status"]
    out += [
        "})", "", "",
        "class Library(Protocol):",
        '    """The loaded library as bind() returns it: every function of the header,',
        '    typed (encore_status results are ints; errors.py makes failures raise)."""',
        "",
        "    _name: str",
    ]
    for name, _, ret, params in header.functions:
        args = "".join(f", {python_name(n)}: {types.python(t, 'parameter')}" for t, n in params)
        out += ["", f"    def {name}(self{args}{', /' if params else ''}) -> {types.python(ret, 'result')}: ..."]
    out += [
        "", "",
        "def bind(lib: ctypes.CDLL) -> Library:",
        '    """Sets argtypes and restype of every header function on a loaded CDLL."""',
        "    for name, (restype, argtypes) in FUNCTIONS.items():",
        "        try:",
        "            func = getattr(lib, name)",
        "        except AttributeError:",
        "            raise ImportError(f'{lib._name} does not export {name}, which include/encore.h declares') from None",
        "        func.restype = restype",
        "        func.argtypes = argtypes",
        "    return cast(Library, lib)",
        "",
    ]
    return "\n".join(out)


def generate(text):
    return render(parse(text))


def write_or_check(argv, tool, output, make, errors):
    """The command line of a generator of the bindings: write `output` from
    make(header text), or with --check fail when it differs from a fresh one."""
    if argv not in ([], ["--check"]):
        sys.exit(sys.modules["__main__"].__doc__)
    try:
        fresh = make(HEADER.read_text())
    except errors as e:
        sys.exit(f"{tool}: {HEADER}: {e}")
    if not argv:
        output.write_text(fresh)
        return
    current = output.read_text() if output.exists() else ""
    name = output.relative_to(HERE.parent.parent)
    if current != fresh:
        diff = difflib.unified_diff(current.splitlines(), fresh.splitlines(),
                                    str(output), "fresh generation", lineterm="")
        print("\n".join(list(diff)[:60]), file=sys.stderr)
        sys.exit(f"{tool}: {name} is out of date with include/encore.h; run python3 bindings/python/{tool}.py")
    print(f"{tool}: {name} matches include/encore.h")


def main(argv):
    write_or_check(argv, "gen_ffi", OUTPUT, generate, HeaderError)


if __name__ == "__main__":
    main(sys.argv[1:])
