#!/usr/bin/env python3
"""Re-indent the lone column-0 '}' lines clang-tidy's brace fix adds (rule
15.6, braces.sh): each gets the indentation of the line that opened its
block.  Usage: reindent.py FILE..."""
import sys
for path in sys.argv[1:]:
    lines = open(path).read().split('\n')
    stack = []
    out = []
    in_comment = False
    in_pp = False
    changed = 0
    for ln in lines:
        indent = ln[:len(ln) - len(ln.lstrip())]
        if ln == '}' and stack and not in_comment and not in_pp:
            want = stack[-1]
            if want:
                ln = want + '}'
                changed += 1
        s = ln
        if not in_comment and (in_pp or s.lstrip().startswith('#')):
            in_pp = s.rstrip().endswith('\\')
            out.append(ln)
            continue
        i = 0
        while i < len(s):
            c = s[i]
            if in_comment:
                if s.startswith('*/', i):
                    in_comment = False
                    i += 2
                    continue
                i += 1
                continue
            if s.startswith('/*', i):
                in_comment = True; i += 2; continue
            if s.startswith('//', i):
                break
            if c in '"\'':
                q = c; i += 1
                while i < len(s) and s[i] != q:
                    i += 2 if s[i] == '\\' else 1
                i += 1
                continue
            if c == '{':
                stack.append(indent)
            elif c == '}':
                if stack:
                    stack.pop()
            i += 1
        out.append(ln)
    if stack:
        print('%s: unbalanced (%d open), left as is' % (path, len(stack)))
        continue
    if changed:
        open(path, 'w').write('\n'.join(out))
        print('%s: %d re-indented' % (path, changed))
