#!/usr/bin/env python3
"""Each feature owns its tables and its SQL (issue 47): fails when a module's
SQL names a table its StoreTables does not create, when the engine
(EncoreStorage) names a feature's table, when two features create one table,
and when a feature writes a setting outside its own settingPrefixes.

A module's SQL is every string literal of its Swift files that holds an SQL
verb (SELECT, INSERT, UPDATE, DELETE, CREATE, ALTER, DROP, in capitals, as
the code writes SQL); the tables it names are the words after FROM, INTO,
UPDATE, JOIN and TABLE. A module's own tables are those its literals create
(CREATE TABLE, ALTER TABLE ... RENAME TO): features create tables only in
their StoreTables migrations. Interpolated names (`FROM \\(table)`) are the
caller's and not seen here; the name a feature gives the engine's
TimeRangedTable is.

Run by scripts/check-abi.sh; `--list` prints what each module names.
"""
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ROOT / "Sources"
ENGINE = "EncoreStorage"
# SQLite's own catalogue: the engine's to read.
ENGINE_EXTRA = {"sqlite_master", "sqlite_schema"}
# A table a shipped migration step of one feature made and a later step of
# another takes over (shipped steps are never edited): the first may still
# name it in the literal that creates it (that step), nowhere else.
HANDED_OVER = {"tracing_events": ("EncoreExposure", "EncoreTracing")}

VERB = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP)\b")
NAMED = re.compile(r"\b(?:FROM|INTO|UPDATE(?:\s+OR\s+[A-Z]+)?|JOIN|TABLE)\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?([A-Za-z_][A-Za-z0-9_]*)")
CREATED = re.compile(r"\b(?:CREATE\s+(?:VIRTUAL\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?|RENAME\s+TO\s+)([A-Za-z_][A-Za-z0-9_]*)")
NOT_TABLES = {"SET", "SELECT", "VALUES", "DEFAULT"}
# The engine's helper for a time-ranged table takes the table's name.
RANGED = re.compile(r"TimeRangedTable\(name:\s*\"(\w+)\"")
PREFIXES = re.compile(r"settingPrefixes:\s*\[([^\]]*)\]")
# A setting name the code writes: a constant `static let x = "a.b"` whose
# name is passed to setSetting / insertSettingIfAbsent / deleteSetting.
CONSTANT = re.compile(r"static\s+let\s+(\w+)\s*=\s*\"([a-z][\w.-]*\.[\w.-]+)\"")
WRITE = re.compile(r"\b(?:setSetting|insertSettingIfAbsent|deleteSetting|setSettings)\(\s*(?:[\w.]*\.)?(\w+|\"[^\"]*\")")


def literals(text):
    """The string literals of Swift source (comments skipped), each with
    its line."""
    out, i, n, line = [], 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += text.count("\n", i, j)
            i = j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            j = n if j < 0 else j
            out.append((line, text[i + 3:j]))
            line += text.count("\n", i, j)
            i = j + 3
        elif c == '"':
            j, depth = i + 1, 0
            while j < n and text[j] != "\n":
                if text[j] == "\\":
                    if text.startswith("\\(", j):
                        depth += 1
                    j += 2
                    continue
                if depth and text[j] == ")":
                    depth -= 1
                elif not depth and text[j] == '"':
                    break
                j += 1
            out.append((line, text[i + 1:j]))
            i = j + 1
        else:
            i += 1
    return out


def modules():
    for d in sorted(SOURCES.iterdir()):
        files = sorted(d.rglob("*.swift")) if d.is_dir() else []
        if files:
            yield d.name, files


def survey():
    """Per module: the tables it creates, each SQL literal's named tables,
    its setting prefixes and the setting names it writes."""
    info = {}
    for name, files in modules():
        created, named, prefixes, constants, writes = set(), [], [], {}, []
        for f in files:
            text = f.read_text()
            rel = f.relative_to(ROOT)
            for line, lit in literals(text):
                if not VERB.search(lit):
                    continue
                made = set(CREATED.findall(lit))
                created |= made
                tables = {t for t in NAMED.findall(lit) if t not in NOT_TABLES}
                if tables:
                    named.append((f"{rel}:{line}", tables, made))
            for m in RANGED.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                named.append((f"{rel}:{line}", {m.group(1)}, set()))
            for m in PREFIXES.finditer(text):
                prefixes += re.findall(r"\"([^\"]+)\"", m.group(1))
            constants.update(dict(CONSTANT.findall(text)))
            for m in WRITE.finditer(text):
                line = text.count("\n", 0, m.start()) + 1
                writes.append((f"{rel}:{line}", m.group(1)))
        info[name] = dict(created=created, named=named, prefixes=prefixes, constants=constants, writes=writes)
    return info


def check(info):
    problems = []
    owner = {}
    for name, m in info.items():
        for t in m["created"]:
            giver = HANDED_OVER.get(t)
            if giver and name == giver[0]:
                continue
            if t in owner and owner[t] != name:
                problems.append(f"table {t} is created by both {owner[t]} and {name}: a table has one owner")
            owner[t] = name
    all_constants = {}
    for m in info.values():
        all_constants.update(m["constants"])
    for name, m in info.items():
        own = {t for t, o in owner.items() if o == name}
        if name == ENGINE:
            own |= ENGINE_EXTRA
        for where, tables, made in m["named"]:
            for t in sorted(tables):
                if t in own:
                    continue
                giver = HANDED_OVER.get(t)
                if giver and giver[0] == name and t in made:
                    continue  # the shipped step that created it
                if name == ENGINE:
                    problems.append(f"{where}: the engine ({ENGINE}) names table {t}: it knows no feature's table; the feature that owns it does this")
                elif t in owner:
                    problems.append(f"{where}: {name}'s SQL names table {t}, which {owner[t]} owns: ask {owner[t]} for it")
                else:
                    problems.append(f"{where}: {name}'s SQL names table {t}, which no StoreTables migration of {name} creates")
        for where, ref in m["writes"]:
            value = ref.strip('"') if ref.startswith('"') else m["constants"].get(ref, all_constants.get(ref))
            if value is None or "." not in value:
                continue  # a host's name (a parameter), or not a constant this check can read
            library = [p for mm in info.values() for p in mm["prefixes"]] + ["encore."]
            if not any(value.startswith(p) for p in library):
                continue  # a host's setting
            if not any(value.startswith(p) for p in m["prefixes"]):
                problems.append(f"{where}: {name} writes setting {value}, outside its settingPrefixes {m['prefixes'] or '(none)'}")
    return problems


def main():
    info = survey()
    if "--list" in sys.argv:
        for name, m in info.items():
            if m["named"] or m["created"] or m["prefixes"]:
                names = sorted(set().union(*[t for _, t, _ in m["named"]])) if m["named"] else []
                print(f"{name}: creates {sorted(m['created'])}; names {names}; prefixes {m['prefixes']}")
        return 0
    problems = check(info)
    for p in problems:
        print(f"check-tables: {p}", file=sys.stderr)
    if problems:
        return 1
    owned = sum(1 for m in info.values() if m["created"])
    print(f"tables: every module's SQL names only the tables its StoreTables creates ({owned} modules own tables), the engine none of a feature's, each setting written under its feature's prefixes: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
