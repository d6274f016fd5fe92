#!/usr/bin/env python3
"""Keep the hypervisor's files and functions small enough to read.

No source file in boot/ hyp/ vgic/ timer/ mm/ over MAX_FILE lines, no C
function over MAX_FUNC lines (from the line of its name to its closing
brace).  Functions are found the way the code is written (the kernel
style): a body opens with "{" in column 0 after the line naming the
function, and closes with "}" in column 0.

Usage: check-size.py [ROOT]   (`make check-size`; prints each offender)
"""
import os
import re
import sys

MAX_FILE = 500
MAX_FUNC = 80
FOLDERS = ["boot", "hyp", "vgic", "timer", "mm"]
NAME = re.compile(r"([A-Za-z_]\w*)\s*\(")


def functions(lines):
    """(name, first line, length) of each function body in a C file."""
    out = []
    start = None
    for i, line in enumerate(lines):
        if start is None and line.startswith("{"):
            # the name is on the nearest line above with "name("
            j = i - 1
            while j >= 0 and not NAME.search(lines[j]):
                j -= 1
            if j < 0:
                continue
            # the first "name(" on it, past an __attribute__((...))
            names = [n.group(1) for n in NAME.finditer(lines[j])
                     if n.group(1) != "__attribute__"]
            start = (names[0] if names else "?", j)
        elif start is not None and line.startswith("}"):
            name, j = start
            out.append((name, j + 1, i - j + 1))
            start = None
    return out


def check(root):
    errors = []
    for folder in FOLDERS:
        for d, _, files in os.walk(os.path.join(root, folder)):
            for f in sorted(files):
                if not f.endswith((".c", ".h", ".S")):
                    continue
                path = os.path.join(d, f)
                rel = os.path.relpath(path, root)
                with open(path) as fh:
                    lines = fh.read().split("\n")
                n = len(lines) - (lines[-1] == "")
                if n > MAX_FILE:
                    errors.append("%s: %d lines (at most %d a file)" % (rel, n, MAX_FILE))
                if f.endswith(".S"):
                    continue
                for name, first, length in functions(lines):
                    if length > MAX_FUNC:
                        errors.append("%s:%d: %s is %d lines (at most %d a function)"
                                      % (rel, first, name, length, MAX_FUNC))
    return errors


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    errors = check(root)
    for e in errors:
        print("check-size: " + e)
    if errors:
        return 1
    print("check-size: every file within %d lines, every function within %d"
          % (MAX_FILE, MAX_FUNC))
    return 0


if __name__ == "__main__":
    sys.exit(main())
