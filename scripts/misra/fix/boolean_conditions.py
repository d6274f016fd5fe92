#!/usr/bin/env python3
"""MISRA C:2012 rule 14.4: the controlling expression of an if or a while
is essentially Boolean.  With the types of cppcheck's dump of each C file, a
condition of another type is compared explicitly: `(c) != 0u` for an
unsigned one, `(c) != 0` for a signed one, `(c) != NULL` for a pointer (C11
6.8.4.1, 6.8.5: the statement runs when the expression compares unequal
to 0, so the code is the same: check that it is, docs/misra.md).  Only
conditions written in files under FOLDER..., none of whose parentheses
comes from a macro.

Usage: boolean_conditions.py FOLDER... -- FILE.c...   (run from the repository)
"""
import re
import sys
import xml.etree.ElementTree as ET

import dumps


def edits_of(dump, folders):
    out = {}
    root = ET.parse(dump).getroot()
    for cfg in root.iter('dump'):
        toks = {t.get('id'): t for t in cfg.iter('token')}
        for t in toks.values():
            if t.get('str') not in ('if', 'while') or not t.get('file').startswith(folders):
                continue
            par = toks.get(t.get('astParent'))
            if par is None or par.get('str') != '(' or par.get('astOperand1') != t.get('id'):
                continue
            cond = toks.get(par.get('astOperand2'))
            close = toks.get(par.get('link'))
            if cond is None or close is None or par.get('isExpandedMacro') or \
               close.get('isExpandedMacro') or t.get('isExpandedMacro'):
                continue
            vt, sign, ptr = cond.get('valueType-type'), cond.get('valueType-sign'), \
                cond.get('valueType-pointer')
            if ptr:
                cmp = ' != NULL'
            elif vt in ('char', 'short', 'int', 'long', 'long long') and sign == 'unsigned':
                cmp = ' != 0u'
            elif vt in ('char', 'short', 'int', 'long', 'long long') and sign == 'signed':
                cmp = ' != 0'
            else:
                continue
            out[(t.get('file'), int(par.get('linenr')), int(par.get('column')))] = \
                (int(close.get('linenr')), int(close.get('column')), cmp)
        break                           # the first configuration only
    return out


def main(argv):
    byfile = dumps.by_file(dumps.edits_of_files(argv, __doc__, edits_of))
    n = 0
    for f, es in byfile.items():
        lines = open(f).read().split('\n')
        if not all(lines[l0 - 1][c0 - 1] == '(' and lines[l1 - 1][c1 - 1] == ')'
                   for l0, c0, l1, c1, _ in es):
            print('boolean_conditions: %s: the dump does not match the text, left as is' % f)
            continue
        # from the end of the file: a change never moves one still to come
        for l0, c0, l1, c1, cmp in sorted(es, reverse=True):
            inner = lines[l0 - 1][c0:c1 - 1] if l0 == l1 else None
            bare = inner is not None and re.fullmatch(r'[\w.>\-\[\]]+(\([^()]*\))?', inner)
            text = lines[l1 - 1]
            lines[l1 - 1] = text[:c1 - 1] + ('' if bare else ')') + cmp + text[c1 - 1:]
            text = lines[l0 - 1]
            lines[l0 - 1] = text[:c0] + ('' if bare else '(') + text[c0:]
        n += len(es)
        open(f, 'w').write('\n'.join(lines))
    print('boolean_conditions: %d conditions made Boolean in %d files' % (n, len(byfile)))


if __name__ == '__main__':
    main(sys.argv[1:])
