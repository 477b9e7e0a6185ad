#!/usr/bin/env python3
"""The declared module graph is the real one (make check-abi).

Fails on:
- a dependency a target declares in Package.swift and none of its files
  imports (the graph would claim an edge the code does not have);
- an import of one of the package's modules (`import EncoreX`, `import
  CEncoreShim`) in a file that uses nothing the module declares (the file
  would pull in a module it does not use).

What a module offers comes from its symbol graph (`swift
symbolgraph-extract` over the release build's modules, public and package
declarations; a C module's from its headers, fields as members). A file uses
the module when it names one of its top-level types, functions or variables;
reaches one of the members it declares, in a type's own declaration or in an
extension (of its types or of others'): `.name`, `x.name`, `\\.name` (a
subscript: `x[`); or calls an initializer it adds to another module's type:
by a label of it (EncoreClient's `Store(path: p, key: k)`), or by the type's
name when it has none (`Type(x)`). Members count because Swift finds a
member only through an import of the module that declares it (the upcoming
feature MemberImportVisibility, which Package.swift turns on for the targets
under Sources/, makes that the compiler's rule): `a.bin.buffer` needs
EncoreSupport though the file names no type of it. A word in a comment
counts too: the test is lenient, so that a report is always worth a look and
never a guess. An operator is no word and counts for nothing (the package's
are the `==` and `<` of its Equatable and Comparable types, which Swift
finds through the protocol). The explicit import check of SwiftPM
(scripts/swift-test.sh) covers the other direction: an import the target
does not declare.

  scripts/check-imports.py [--build .build/release] [--scope sources|all]

--scope: the targets held to it, those under Sources/ (the default) or all
of them, the tests' too. Each run first checks the check (`self_test`): a
made-up package whose unneeded import and unimported dependency must be
reported, and whose used ones must not.
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
from dataclasses import dataclass, field

ROOT = pathlib.Path(__file__).resolve().parent.parent
IMPORT = re.compile(r'^\s*(?:@[\w]+(?:\([^)]*\))?\s+)*(?:public\s+|package\s+|internal\s+|private\s+|fileprivate\s+)?import\s+(?:(?:struct|class|enum|protocol|func|var|let|typealias)\s+)?(\w+)', re.M)
WORD = re.compile(r'[A-Za-z_][A-Za-z_0-9]*')
MEMBER = re.compile(r'\.\s*([A-Za-z_][A-Za-z_0-9]*)')
SUBSCRIPT = re.compile(r'[\w)\]?!]\s*\[')
LABEL = re.compile(r'([A-Za-z_][A-Za-z_0-9]*)\s*:')
CALL = re.compile(r'([A-Za-z_][A-Za-z_0-9]*)\s*\(')


@dataclass
class Offer:
    """What a file may use a module for (see the module's docstring)."""
    names: set[str] = field(default_factory=set)    # top-level declarations, named
    members: set[str] = field(default_factory=set)  # reached as `.name` (`subscript` as `x[`)
    labels: set[str] = field(default_factory=set)   # of the inits it adds to other modules' types, as `label:`
    types: set[str] = field(default_factory=set)    # given an unlabeled init by it, called as `Type(`

    def used_by(self, text: str) -> bool:
        return bool(self.names & set(WORD.findall(text)) or self.members & set(MEMBER.findall(text))
                    or self.labels & set(LABEL.findall(text)) or self.types & set(CALL.findall(text))
                    or ("subscript" in self.members and SUBSCRIPT.search(text) is not None))


@dataclass
class Target:
    name: str
    dependencies: list[str]
    files: dict[str, str]  # a Swift file's path (from the root) and its text


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


def imports(text: str) -> list[str]:
    return IMPORT.findall(text)


def offer_of(module: str, graphs: list[dict]) -> Offer:
    """What `module` offers, from its symbol graph files (`module`.symbols.json
    and one `module`@Other.symbols.json per module whose types it extends)."""
    offer = Offer()
    for graph in graphs:
        own = graph["module"]["name"] == module and not graph.get("_extends")
        for s in graph["symbols"]:
            # A synthesized member is a protocol extension's (of Swift's
            # `Equatable`, say), not this module's.
            if "::SYNTHESIZED::" in s["identifier"]["precise"]:
                continue
            path = s["pathComponents"]
            name = path[-1].split("(")[0]
            if own and len(path) == 1:
                offer.names.add(name)
                continue
            offer.members.add(name)
            if name == "init" and "swiftExtension" in s and s["swiftExtension"]["extendedModule"] != module:
                labels = {label for label in path[-1][5:-1].split(":") if label and label != "_"}
                offer.labels.update(labels)
                if not labels and len(path) > 1:
                    offer.types.add(path[-2])
    for kind in (offer.names, offer.members, offer.labels, offer.types):
        kind.intersection_update(n for n in set(kind) if WORD.fullmatch(n))
    return offer


def extract(module: str, build: pathlib.Path, out: pathlib.Path) -> Offer:
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
    graphs = []
    for f in sorted(folder.glob("*.symbols.json")):
        graph = json.loads(f.read_text())
        graph["_extends"] = f.name != f"{module}.symbols.json"
        graphs.append(graph)
    return offer_of(module, graphs)


def problems_of(targets: list[Target], offers: dict[str, Offer]) -> list[str]:
    problems = []
    for t in targets:
        if not t.files:
            continue  # a C target: its dependencies are headers and links
        imported = {m for text in t.files.values() for m in imports(text)}
        for dep in t.dependencies:
            # A C target's module is its name; a product's the same name here.
            if dep not in imported:
                problems.append(f"{t.name}: declares {dep} and no file of it imports it (Package.swift)")
    for t in targets:
        for path, text in t.files.items():
            for m in imports(text):
                if m in offers and m != t.name and not offers[m].used_by(text):
                    problems.append(f"{path}: imports {m} and uses nothing it declares")
    return problems


def self_test() -> list[str]:
    """The check of the check, on a made-up package: what must be reported
    is, what must not be is not. The symbol graph is the shape
    symbolgraph-extract writes."""
    def symbol(path: list[str], extended: str | None = None, synthesized: bool = False) -> dict:
        s = {"identifier": {"precise": "s:" + "".join(path) + ("::SYNTHESIZED::x" if synthesized else "")}, "pathComponents": path}
        if extended:
            s["swiftExtension"] = {"extendedModule": extended}
        return s
    store = offer_of("Store", [
        {"module": {"name": "Store"}, "symbols": [symbol(["Table"]), symbol(["Table", "rows"]),
                                                  symbol(["Table", "!=(_:_:)"], "Swift", synthesized=True),
                                                  symbol(["Table", "subscript(_:)"])]},
        {"module": {"name": "Store"}, "_extends": True, "symbols": [symbol(["Failure", "init(sql:)"], "Base"),
                                                                     symbol(["Array", "compacted"], "Swift")]},
        {"module": {"name": "Store"}, "_extends": True, "symbols": [symbol(["Row", "init(_:)"], "Cells")]},
    ])
    files = {
        "named.swift": "import Store\nlet t: Table",
        "member.swift": "import Store\nlet n = bin.rows.count",
        "extension.swift": "import Store\nlet a = xs.compacted",
        "label.swift": "import Store\nthrow Failure(sql: 5)",
        "unlabeled.swift": "import Store\nlet r = Row(cells)",
        "subscript.swift": "import Store\nlet c = tables?[\"sightings\"]",
        "unused.swift": "import Store\n// rows: sql, Row\nlet rows: [Int] = [1 != 2 ? 1 : 0]",
    }
    made = problems_of([Target("App", ["Store", "Log"], files)], {"Store": store})
    want = ["App: declares Log and no file of it imports it (Package.swift)",
            "unused.swift: imports Store and uses nothing it declares"]
    return [] if made == want else [f"self-test: reported {made}, expected {want}"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=".build/release", help="the release build whose modules are read")
    parser.add_argument("--scope", choices=("sources", "all"), default="sources",
                        help="the targets checked: those under Sources/, or all (the tests' too)")
    parser.add_argument("--build-missing", action="store_true",
                        help="build the modules the checked files import that the release build lacks (the tests' fixtures)")
    args = parser.parse_args()
    failed = self_test()
    if failed:
        print("check-imports: the check itself is broken:\n  " + "\n  ".join(failed), file=sys.stderr)
        return 1
    print("check-imports: self-test: an unused import and an unimported dependency reported, "
          "imports used for a type, a member, a subscript, an extension's member and initializers not: ok")
    build = (ROOT / args.build).resolve()
    pkg = package()
    targets = []
    for t in pkg["targets"]:
        path = target_path(t)
        if args.scope == "sources" and not path.is_relative_to(ROOT / "Sources"):
            continue
        files = {str(f.relative_to(ROOT)): f.read_text() for f in sorted(path.rglob("*.swift"))}
        targets.append(Target(t["name"], target_dependencies(t), files))

    # The package's library modules the checked files import, Swift and C
    # (an executable's or a test's is imported by no one).
    libraries = {t["name"]: t for t in pkg["targets"] if t["type"] in ("regular", "system")}
    used = sorted({m for t in targets for text in t.files.values() for m in imports(text)} & libraries.keys())
    swift = [m for m in used if any(target_path(libraries[m]).rglob("*.swift"))]
    missing = [m for m in swift if not (build / "Modules" / f"{m}.swiftmodule").exists()]
    if missing and args.build_missing:
        # The tests' support modules (fixtures), which `make lib cli encored`
        # does not build: built here, each on its own, as `make test-swift` would.
        log = ROOT / "build" / "logs" / "check-imports-build.log"
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "w") as out:
            for m in missing:
                if subprocess.run(["swift", "build", "-c", "release", "--target", m], cwd=ROOT, stdout=out, stderr=out).returncode != 0:
                    print(f"check-imports: building {m} failed; the log is {log}", file=sys.stderr)
                    return 1
        missing = [m for m in swift if not (build / "Modules" / f"{m}.swiftmodule").exists()]
    if missing:
        print(f"check-imports: no module {', '.join(missing)} in {build}: build them first "
              "(make lib cli encored; the tests' support modules: make test-swift)", file=sys.stderr)
        return 1
    try:
        with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            offers = dict(zip(used, pool.map(lambda m: extract(m, build, pathlib.Path(tmp)), used)))
    except subprocess.CalledProcessError as e:
        print(f"check-imports: {' '.join(e.cmd[:5])} ... failed:\n{e.stderr}", file=sys.stderr)
        return 1

    problems = problems_of(targets, offers)
    if problems:
        print("check-imports: the declared module graph is not the real one:", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    files = sum(len(t.files) for t in targets)
    checked = sum(1 for t in targets if t.files)
    print(f"check-imports: {checked} Swift targets ({args.scope}), {files} files: every declared dependency is imported, "
          f"every import of the package's {len(offers)} modules ({len(swift)} Swift, {len(offers) - len(swift)} C) is used: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
