#!/usr/bin/env python3
"""The declared module graph is the real one (make check-abi).

Fails on:
- a dependency a target declares in Package.swift and none of its files
  imports (the graph would claim an edge the code does not have);
- an `import EncoreX` in a file that names nothing EncoreX makes public
  (the file would pull in a module it does not use).

What a module offers comes from its symbol graph (`swift
symbolgraph-extract` over the release build's modules, public and package
declarations): the names of its top-level types, functions, variables and
operators, the ones a file needs the import for. A file "names" one when
the name appears in it as a word: a lenient test (a word in a comment
counts), so that a report is always worth a look and never a guess. The explicit import check of
SwiftPM (scripts/swift-test.sh) covers the other direction: an import the
target does not declare.

  scripts/check-imports.py [--build .build/release]
"""
import argparse
import concurrent.futures
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
IMPORT = re.compile(r'^\s*(?:@[\w]+(?:\([^)]*\))?\s+)*(?:public\s+|package\s+|internal\s+|private\s+|fileprivate\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)', re.M)
WORD = re.compile(r'[A-Za-z_][A-Za-z_0-9]*')


def package() -> dict:
    out = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def target_dependencies(target: dict) -> list[str]:
    names = []
    for dep in target.get("dependencies", []):
        for kind in ("byName", "target", "product"):
            if kind in dep:
                names.append(dep[kind][0])
    return names


def target_path(target: dict) -> pathlib.Path:
    if target.get("path"):
        return ROOT / target["path"]
    folder = "Tests" if target["type"] == "test" else "Sources"
    return ROOT / folder / target["name"]


def swift_files(path: pathlib.Path) -> list[pathlib.Path]:
    return sorted(p for p in path.rglob("*.swift"))


def imports(text: str) -> list[str]:
    # Only the file's head: an `import` word later on is prose or code.
    return IMPORT.findall(text)


def symbol_names(module: str, build: pathlib.Path, out: pathlib.Path) -> set[str]:
    """The public names of `module` (and of the members it adds elsewhere)."""
    flags = []
    for d in sorted((ROOT / "Sources").iterdir()):
        if (d / "include").is_dir():
            flags += ["-I", str(d / "include")]
        if (d / "module.modulemap").is_file():
            flags += ["-I", str(d)]
    for m in sorted(build.glob("*.build/module.modulemap")):
        flags += ["-Xcc", f"-fmodule-map-file={m}"]
    folder = out / module
    folder.mkdir()
    subprocess.run(["swift", "symbolgraph-extract", "-module-name", module, "-I", str(build / "Modules"),
                    "-target", "x86_64-unknown-linux-gnu", "-output-dir", str(folder),
                    "-minimum-access-level", "package", *flags], check=True, capture_output=True, text=True)
    # The names a file needs the import for: the top-level declarations'
    # and the members declared in extensions (of its own types or others'),
    # which Swift finds only through an import of their module (the
    # upcoming feature MemberImportVisibility makes that the rule). A member
    # of a type's own declaration comes with the type: no import names it.
    names: set[str] = set()
    for f in folder.glob("*.symbols.json"):
        own = f.name == f"{module}.symbols.json"
        for s in json.loads(f.read_text())["symbols"]:
            path = s["pathComponents"]
            if own and len(path) == 1:
                names.add(path[0])
            elif "swiftExtension" in s:
                names.add(path[-1])
    names = {n.split("(")[0] for n in names} | {
        label for n in names if n.startswith("init(") for label in n[5:-1].split(":") if label and label != "_"}
    return {n for n in names if WORD.fullmatch(n)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=".build/release", help="the release build whose modules are read")
    args = parser.parse_args()
    build = (ROOT / args.build).resolve()
    pkg = package()
    problems = []
    files_of: dict[str, list[tuple[pathlib.Path, str, list[str]]]] = {}
    for t in pkg["targets"]:
        path = target_path(t)
        entries = []
        for f in swift_files(path):
            text = f.read_text()
            entries.append((f, text, imports(text)))
        files_of[t["name"]] = entries
        if not entries:
            continue  # a C target: its dependencies are headers and links
        imported = {m for _, _, ms in entries for m in ms}
        for dep in target_dependencies(t):
            # A C target's module is its name; a product's the same name here.
            if dep not in imported:
                problems.append(f"{t['name']}: declares {dep} and no file of it imports it (Package.swift)")

    # The library targets' modules (an executable's or a test's is imported by no one).
    libraries = {t["name"] for t in pkg["targets"] if t["type"] == "regular"}
    swift_modules = sorted(m for m in libraries if m.startswith("Encore") and (build / "Modules" / f"{m}.swiftmodule").exists())
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        names = dict(zip(swift_modules, pool.map(lambda m: symbol_names(m, build, pathlib.Path(tmp)), swift_modules)))
    for target, entries in files_of.items():
        for f, text, ms in entries:
            words = set(WORD.findall(text))
            for m in ms:
                if m in names and m != target and not (names[m] & words):
                    problems.append(f"{f.relative_to(ROOT)}: imports {m} and names nothing it declares")

    if problems:
        print("check-imports: the declared module graph is not the real one:", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    print(f"check-imports: every declared dependency of {len(pkg['targets'])} targets is imported, every import of an encore module is used: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
