#!/usr/bin/env python3
"""MISRA C:2012 rules 10.4, 10.3 and 10.1 (essential types): an integer
constant whose sibling operand is unsigned int or wider gets the suffix u.

The types come from cppcheck's dump of each C file (`cppcheck --dump`): for
every unsuffixed decimal or hex constant written in a file under one of the
FOLDERS (not one a macro expands to), whose parent is a binary operator
(arithmetic, bitwise, comparison, assignment, the arms of ?:) and whose
other operand is of an unsigned type of int's rank or wider (never a
narrower one, which int promotion makes signed), the constant is suffixed.
The usual arithmetic conversions already made it unsigned, so the code the
compiler generates stays the same: check that it does (docs/misra.md).

Usage: unsigned_literals.py FOLDER... -- FILE.c...   (run from the repository)
"""
import re
import sys
import xml.etree.ElementTree as ET

import dumps

BIN = {'+', '-', '*', '/', '%', '&', '|', '^', '==', '!=', '<', '>', '<=', '>=', '=', '+=',
       '-=', '*=', '/=', '%=', '&=', '|=', '^=', ':', '<<', '>>'}
WIDE = ('int', 'long', 'long long')


def sibling(toks, parent, me):
    o1, o2 = parent.get('astOperand1'), parent.get('astOperand2')
    return toks.get(o2 if o1 == me else o1)


def edits_of(dump, folders):
    out = {}
    root = ET.parse(dump).getroot()
    for cfg in root.iter('dump'):
        toks = {t.get('id'): t for t in cfg.iter('token')}
        for t in toks.values():
            s = t.get('str')
            if t.get('type') != 'number' or t.get('isExpandedMacro') or \
               not re.fullmatch(r'0[xX][0-9a-fA-F]+|\d+', s):
                continue
            if not t.get('file').startswith(folders):
                continue
            p = toks.get(t.get('astParent'))
            if p is None or p.get('str') not in BIN or p.get('astOperand2') is None:
                continue
            if p.get('str') in ('<<', '>>'):
                if p.get('astOperand2') == t.get('id'):
                    continue            # a shift count: its type does not matter
                pp = toks.get(p.get('astParent'))
                if pp is None or pp.get('str') not in BIN or pp.get('astOperand2') is None:
                    continue
                sib = sibling(toks, pp, p.get('id'))
            else:
                sib = sibling(toks, p, t.get('id'))
            if sib is not None and sib.get('valueType-sign') == 'unsigned' and \
               sib.get('valueType-type') in WIDE and not sib.get('valueType-pointer'):
                out[(t.get('file'), int(t.get('linenr')), int(t.get('column')))] = s
        break                           # the first configuration only
    return out


def main(argv):
    byfile = dumps.by_file(dumps.edits_of_files(argv, __doc__, edits_of))
    n = 0
    for f, es in byfile.items():
        lines = open(f).read().split('\n')
        for line, col, s in sorted(es, reverse=True):
            text = lines[line - 1]
            end = col - 1 + len(s)
            if text[col - 1:end] != s or (end < len(text) and re.match(r'[\w.]', text[end])):
                continue
            lines[line - 1] = text[:end] + 'u' + text[end:]
            n += 1
        open(f, 'w').write('\n'.join(lines))
    print('unsigned_literals: %d constants suffixed in %d files' % (n, len(byfile)))


if __name__ == '__main__':
    main(sys.argv[1:])
