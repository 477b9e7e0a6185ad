#!/usr/bin/env python3
"""Writes a program's man pages from its own definitions.

    scripts/gen-manpages.py [--section N] [--one-page] BINARY OUT_DIR

Reads `BINARY --experimental-dump-help` (swift-argument-parser's JSON of
every command, argument and text). For the encore tool it writes
OUT_DIR/encore.1 (the overview and the list of subcommands) and one page per
subcommand, encore-<sub>.1 (e.g. encore-sync.1), which also documents the
subcommand's own subcommands (`encore sync run`, `encore sync plan`), so
`man encore-sync` shows the options a user types. With --one-page, one page
holds every subcommand (encore-pushd.8: --section 8, a daemon's section). Our own script rather than the package's
generate-manual plugin: the plugin needs a build of its own tool, and the
pages must come out of `make` offline on any machine that built the CLI.
"""
import argparse
import json
import pathlib
import subprocess
import sys


def roff(text):
    """Escapes text for a roff line: backslashes, and a leading . or ' that roff would read as a request."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    # Non-ASCII as groff's Unicode escapes: the pages stay ASCII, whatever the reader's locale.
    text = "".join(c if ord(c) < 128 else f"\\[u{ord(c):04X}]" for c in text)
    lines = []
    for line in text.split("\n"):
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line)
    return "\n".join(lines)


def paragraphs(text):
    """The discussion as roff: blank lines become paragraph breaks, indented lines (examples) stay as typed."""
    out = []
    for block in text.strip().split("\n\n"):
        lines = block.split("\n")
        out.append(".PP")
        for line in lines:
            if line.startswith("  "):
                out += [".nf", roff(line[2:]), ".fi"]
            else:
                out.append(roff(line))
    return out


def flag_names(arg):
    names = []
    for name in arg.get("names", []):
        dashes = "-" if name["kind"] in ("short", "longWithSingleDash") else "--"
        names.append(f"\\fB{roff(dashes + name['name'])}\\fR")
    return ", ".join(names)


def options(arguments):
    """The OPTIONS section's entries: positionals, then options and flags, as the --help text orders them."""
    out = []
    for arg in arguments:
        if not arg.get("shouldDisplay", True) or arg.get("preferredName", {}).get("name") in ("help", "version"):
            continue
        value = roff(arg.get("valueName", ""))
        if arg["kind"] == "positional":
            head = f"\\fI<{value}>\\fR"
        elif arg["kind"] == "option":
            head = f"{flag_names(arg)} \\fI<{value}>\\fR"
        else:
            head = flag_names(arg)
        if arg.get("isRepeating"):
            head += " ..."
        text = arg.get("abstract", "")
        if "defaultValue" in arg and "default" not in text:
            text += f" (default: {arg['defaultValue']})"
        out += [".TP", head, roff(text)]
    return out


def synopsis(path, command):
    parts = [f"\\fB{' '.join(path)}\\fR"]
    # (ArgumentParser lists its implicit `help` as a subcommand of every command.)
    if any(c.get("commandName") != "help" for c in command.get("subcommands", [])):
        parts.append("\\fI<subcommand>\\fR")
    for arg in command.get("arguments", []):
        if not arg.get("shouldDisplay", True) or arg.get("preferredName", {}).get("name") in ("help", "version"):
            continue
        name = arg.get("preferredName") or {}
        if arg["kind"] == "positional":
            word = f"\\fI<{roff(arg.get('valueName', ''))}>\\fR"
        else:
            dashes = "-" if name.get("kind") == "short" else "--"
            word = f"\\fB{roff(dashes + name.get('name', ''))}\\fR"
            if arg["kind"] == "option":
                word += f" \\fI<{roff(arg.get('valueName', ''))}>\\fR"
        if arg.get("isRepeating"):
            word += " ..."
        parts.append(f"[{word}]" if arg.get("isOptional") else word)
    return " ".join(parts)


def command_body(path, command):
    """SYNOPSIS, DESCRIPTION and OPTIONS of one command."""
    out = [".SH SYNOPSIS", synopsis(path, command), ".SH DESCRIPTION", roff(command.get("abstract", ""))]
    if command.get("discussion"):
        out += paragraphs(command["discussion"])
    entries = options(command.get("arguments", []))
    if entries:
        out += [".SH OPTIONS", *entries]
    return out


def visible(command):
    return [c for c in command.get("subcommands", []) if c.get("shouldDisplay", True) and c["commandName"] != "help"]


def page(name, path, command, version, date, see_also, section):
    out = [f'.TH "{name.upper()}" "{section}" "{date}" "encore {version}" "encore manual"', ".SH NAME",
           f"{roff(name)} \\- {roff(command.get('abstract', '').splitlines()[0] if command.get('abstract') else '')}"]
    out += command_body(path, command)
    subs = visible(command)
    if subs:
        out.append(".SH SUBCOMMANDS")
        for sub in subs:
            default = " (the default)" if command.get("defaultSubcommand") == sub["commandName"] else ""
            out += [".TP", f"\\fB{roff(sub['commandName'])}\\fR", roff(sub.get("abstract", "")) + default]
        for sub in subs:
            # One section per subcommand, with its own synopsis and options.
            out.append(f'.SH "{roff(" ".join(path + [sub["commandName"]]).upper())}"')
            body = command_body(path + [sub["commandName"]], sub)
            out += [".SS " + line[4:] if line.startswith(".SH ") else line for line in body]
    if see_also:
        out += [".SH SEE ALSO", ", ".join(f"\\fB{roff(s)}\\fR({n})" for s, n in see_also)]
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description="Writes a program's man pages from its --experimental-dump-help.")
    parser.add_argument("--section", default="1", help="the manual section (default 1; 8 for a daemon)")
    parser.add_argument("--one-page", action="store_true", help="one page for the program and all its subcommands")
    parser.add_argument("binary")
    parser.add_argument("out_dir", type=pathlib.Path)
    args = parser.parse_args()
    binary, out_dir, section = args.binary, args.out_dir, args.section
    dump = json.loads(subprocess.run([binary, "--experimental-dump-help"], check=True, capture_output=True,
                                     text=True).stdout)
    version = subprocess.run([binary, "--version"], check=True, capture_output=True, text=True).stdout.strip()
    root = dump["command"]
    program = root["commandName"]
    # No date in the pages: the version says which program they describe, and the build stays reproducible.
    date = ""
    out_dir.mkdir(parents=True, exist_ok=True)
    if args.one_page:
        (out_dir / f"{program}.{section}").write_text(page(program, [program], root, version, date, [], section))
        print(f"man pages: 1 in {out_dir}")
        return
    subs = visible(root)
    names = [f"{program}-{sub['commandName']}" for sub in subs]
    (out_dir / f"{program}.{section}").write_text(
        page(program, [program], root, version, date, [(n, section) for n in names], section))
    for sub, name in zip(subs, names):
        (out_dir / f"{name}.{section}").write_text(
            page(name, [program, sub["commandName"]], sub, version, date, [(program, section)], section))
    print(f"man pages: {len(subs) + 1} in {out_dir}")


if __name__ == "__main__":
    main()
