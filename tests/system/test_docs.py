"""The documentation holds what it promises: the README stays a ten-minute
read that links every page of docs/, every link of the README and docs/
leads to a file of the repository, and each property the configuration
parser accepts has its row in the table of the page that documents it
(a property added to the parser without its row fails here)."""
import glob
import os
import re

from conftest import ROOT

README_MAX_LINES = 400
# (the C array of accepted property names, the page whose table has them)
PROPERTY_TABLES = [
    ("config_guest.c", "known_props", "docs/configuration.md"),
    ("config_channel.c", "member_props", "docs/channels.md"),
    ("config_network.c", "member_props", "docs/networks.md"),
]


def read(rel):
    with open(os.path.join(ROOT, rel)) as f:
        return f.read()


def pages():
    return ["README.md"] + sorted(os.path.relpath(p, ROOT)
                                  for p in glob.glob(os.path.join(ROOT, "docs", "*.md")))


def links(text):
    """The relative targets of a Markdown text's links, anchors cut."""
    found = re.findall(r"\]\(([^)\s]+)\)", text)
    return [t.split("#")[0] for t in found if not re.match(r"[a-z]+:", t) and t.split("#")[0]]


def accepted_properties(c_file, array):
    """The names in `static const char *const ARRAY[] = { ... NULL }`."""
    paths = glob.glob(os.path.join(ROOT, "hyp", "**", c_file), recursive=True)
    assert len(paths) == 1, "%s: %d files" % (c_file, len(paths))
    with open(paths[0]) as f:
        m = re.search(r"\b%s\[\]\s*=\s*\{(.*?)\}" % array, f.read(), re.S)
    assert m, "%s has no %s[]" % (c_file, array)
    return re.findall(r'"([^"]+)"', m.group(1))


def table_names(text):
    """The `names` in the first cell of each table row."""
    names = set()
    for row in re.findall(r"^\|([^|\n]*)\|", text, re.M):
        names.update(re.findall(r"`([^`]+)`", row))
    return names


def test_readme_is_short():
    n = read("README.md").count("\n")
    assert n <= README_MAX_LINES, "README.md has %d lines (at most %d)" % (n, README_MAX_LINES)


def test_every_link_leads_to_a_file():
    broken = []
    for page in pages():
        for target in links(read(page)):
            if not os.path.exists(os.path.join(ROOT, os.path.dirname(page), target)):
                broken.append("%s: %s" % (page, target))
    assert not broken, broken


def test_readme_links_every_page_of_docs():
    linked = {os.path.normpath(t) for t in links(read("README.md"))}
    missing = [p for p in pages()[1:] if p not in linked]
    assert not missing, "not linked from README.md: %s" % missing


def test_every_property_has_its_row():
    missing = []
    for c_file, array, page in PROPERTY_TABLES:
        rows = table_names(read(page))
        missing += ["%s: %s" % (page, p) for p in accepted_properties(c_file, array)
                    if p not in rows]
    assert not missing, "properties the parser accepts without a row: %s" % missing
