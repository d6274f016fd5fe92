#!/usr/bin/env python3
"""Comments cite the ARM ARM, the GICv2, virtio and devicetree
specifications or files of the repository, never a document outside it:
no product brief, no issue tracker, no mail or article that a reader of the
tree cannot open.  Prints FILE:LINE: TEXT for every such citation in the
sources, scripts, Makefiles and configurations, and exits 1 if there is
one.

    check-citations.py [ROOT]
"""
import os
import re
import sys

# What a citation of an outside document looks like.  The words are split
# so that this file does not cite them itself.
CITATIONS = re.compile("|".join([
    r"\bbrief\b",                             # the product brief
    r"\bissues?\s+#?\d+",                     # an issue tracker's entry
    r"\bitems?\s+\d+",                        # an item of such an issue
    r"\bseed\s+(?:mail|" + "art" + r"icle)\b",  # the mails and articles it began from
    r"\bKVM/ARM\s+" + "art" + r"icle\b",
]), re.I)

# Where comments are: sources, scripts, build files and configurations.
SUFFIXES = (".c", ".h", ".S", ".s", ".py", ".sh", ".mk", ".dts", ".dtsi", ".its", ".ld")
NAMES = ("Makefile",)
# Not the tree's own text: fuzz corpora, the build, DTs as Linux ships them.
SKIP_DIRS = ("build", ".git", os.path.join("tests", "unit", "corpus"))


def sources(root):
    for top, dirs, files in os.walk(root):
        rel = os.path.relpath(top, root)
        dirs[:] = sorted(d for d in dirs if os.path.normpath(os.path.join(rel, d)) not in SKIP_DIRS)
        for name in sorted(files):
            if name.endswith(SUFFIXES) or name in NAMES or _is_script(os.path.join(top, name)):
                yield os.path.join(top, name)


def _is_script(path):
    """An executable without a suffix (guests/linux/init and the like)."""
    if "." in os.path.basename(path) or not os.access(path, os.X_OK):
        return False
    with open(path, "rb") as f:
        return f.read(2) == b"#!"


def check(root):
    found = []
    for path in sources(root):
        if os.path.samefile(path, __file__):
            continue            # its own patterns and their explanation
        with open(path, errors="replace") as f:
            for no, line in enumerate(f, 1):
                if CITATIONS.search(line):
                    found.append("%s:%d: %s" % (os.path.relpath(path, root), no, line.strip()))
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    found = check(os.path.abspath(root))
    for line in found:
        print(line)
    if found:
        print("check-citations: %d comment(s) cite a document outside the repository: cite "
              "the ARM ARM, GICv2, virtio or DT specification section or the repository file "
              "that says it, or give the reason in a sentence (scripts/check-citations.py)"
              % len(found))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
