#!/usr/bin/python3
"""Parameters declared once per block (isvp/parameter_table.h; issue 15
item 4), as the platform sees them (testbench/cmake/parameter_tables.cmake):

  bad_values ISVP
      for every parameter of the blocks (BLOCKS below) that `isvp bench pingpong --list-parameters` shows, a value
      outside what the listing says it accepts (above the range, below it,
      a name not among the choices) is refused before the run with the one
      format "config: NAME must be ACCEPTED, got VALUE", naming the
      parameter, and ACCEPTED is the listing's own phrase.
  declared ISVP SOURCE_DIR
      every parameter name the sources read by literal (parameters.integer /
      real / text / flag("name")) is declared by some command, and every
      parameter of the blocks is documented in its block's README
      (models/<block>/README.md; DOCS below for the others), and no block
      declares a parameter except through its table.
"""

import glob
import os
import re
import subprocess
import sys

BLOCKS = ("collective", "qdma", "driver", "aurora", "pcie", "router", "aglu", "host", "job", "reliable", "trace", "kernel",
          "network")
# Where each block's parameter table is documented (default models/<block>/README.md).
DOCS = {"driver": "docs/PERFORMANCE.md", "host": "sw/transport/README.md", "job": "sw/transport/README.md",
        "trace": "docs/REPORTS.md", "network": "models/flow/README.md"}
# Sources that may declare parameters outside a block table: the table itself,
# the Parameters set, the topology selectors (texts parsed into shapes by their
# own parsers) and the commands' own options in platform/.
DECLARE_ALLOWED = ("models/common/isvp/parameter_table.h", "models/common/parameters.cpp",
                   "models/router/fabric_config.cpp")
LISTING = re.compile(r"^  (\S+)\s+(\S+)\s+.*\((an integer in \[(-?\d+), (-?\d+)\][^)]*|a power of two in \[(\d+), (\d+)\]"
                     r"[^)]*|a number in \[([^,]+), ([^\]]+)\][^)]*|one of [^)]*|true or false|a string)\)$")


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def listing(isvp, *command):
    run = subprocess.run([isvp, *command, "--list-parameters"], capture_output=True, text=True, timeout=60)
    parameters = {}
    for line in run.stdout.splitlines():
        match = LISTING.match(line)
        if match:
            parameters[match.group(1)] = match
    if not parameters:
        fail(f"isvp {' '.join(command)} --list-parameters listed nothing: {run.stdout[:500]}{run.stderr[:500]}")
    return parameters


def bad_values_of(match):
    phrase = match.group(3)
    if phrase.startswith("an integer"):
        low, high = int(match.group(4)), int(match.group(5))
        values = [str(high + 1)]
        if low > -2**63:
            values.append(str(low - 1))
        return phrase, values
    if phrase.startswith("a power of two"):
        return phrase, [str(int(match.group(7)) * 2), str(int(match.group(6)) + 1)]
    if phrase.startswith("a number"):
        low, high = float(match.group(8)), float(match.group(9))
        return phrase, [repr(high * 2 + 1), repr(low - 1)]
    if phrase.startswith("one of"):
        return phrase, ["no_such_choice"]
    return phrase, []


def bad_values(isvp, _=None):
    parameters = listing(isvp, "bench", "pingpong")
    tried = 0
    for name, match in sorted(parameters.items()):
        if name.split(".")[0] not in BLOCKS:
            continue
        phrase, values = bad_values_of(match)
        for value in values:
            run = subprocess.run([isvp, "bench", "pingpong", "--nodes", "2", "--sizes", "8", "--set", f"{name}={value}"],
                                 capture_output=True, text=True, timeout=60)
            message = run.stdout + run.stderr
            found = re.search(r"config: (\S+) must be (.+), got (.+)", message)
            if run.returncode == 0 or not found or found.group(1) != name:
                fail(f"--set {name}={value}: status {run.returncode}, not 'config: {name} must be ..., got ...': "
                     f"{message.strip()[-400:]}")
            if not found.group(2).startswith(phrase.split(" [")[0]) and "at least" not in found.group(2):
                fail(f"--set {name}={value}: '{found.group(2)}' is not the listing's '{phrase}'")
            tried += 1
    blocks = {name.split(".")[0] for name in parameters}
    if not set(BLOCKS) <= blocks:
        fail(f"--list-parameters lacks the blocks {set(BLOCKS) - blocks}")
    print(f"{tried} bad values refused in the one format")


def declared(isvp, source_dir):
    names = set()
    for command in (("run",), ("bench", "pingpong"), ("bench", "collectives")):
        names |= set(listing(isvp, *command))
    read = set()
    pattern = re.compile(r"\.(?:integer|real|text|flag)\(\"([a-z_0-9]+\.[a-z_0-9.]+)\"\)")
    for path in glob.glob(os.path.join(source_dir, "**", "*.cpp"), recursive=True):
        if "/build" in path or "/testbench/" in path:
            continue
        read |= set(pattern.findall(open(path, errors="replace").read()))
    undeclared = sorted(read - names)
    if undeclared:
        fail(f"read but not declared by any command: {undeclared}")
    for name in sorted(names):
        block = name.split(".")[0]
        if block not in BLOCKS:
            continue
        doc = os.path.join(source_dir, DOCS.get(block, f"models/{block}/README.md"))
        text = open(doc).read()
        short = name.split(".", 1)[1]
        if f"`{name}`" not in text and not re.search(rf"^\| `?{re.escape(short)}`? \|", text, re.M):
            fail(f"{name} is not in the parameter table of {os.path.relpath(doc, source_dir)}")
    outside = []
    declare = re.compile(r"\bdeclare_(?:integer|real|choice|text|flag)\(")
    for path in glob.glob(os.path.join(source_dir, "models", "**", "*.cpp"), recursive=True) + \
            glob.glob(os.path.join(source_dir, "sw", "**", "*.cpp"), recursive=True):
        relative = os.path.relpath(path, source_dir)
        if relative not in DECLARE_ALLOWED and declare.search(open(path, errors="replace").read()):
            outside.append(relative)
    if outside:
        fail(f"declare parameters outside a block's table (isvp/parameter_table.h): {sorted(outside)}")
    print(f"{len(read)} parameter names read by literal, all declared; the blocks' parameters documented and "
          "declared only through their tables")


def main():
    check, isvp = sys.argv[1:3]
    {"bad_values": bad_values, "declared": declared}[check](isvp, *sys.argv[3:])
    print("1 passed, 0 failed")


if __name__ == "__main__":
    main()
