#!/usr/bin/env python3
"""MISRA C:2012 findings of the hypervisor: cppcheck's MISRA addon (docs/misra.md).

Usage: misra.py [--check | --update-baseline] BUILD_DIR FOLDER...

Runs cppcheck --addon=misra over the C of FOLDER... (what runs in Hyp mode;
libfdt, Debian's, is not among them) and prints one line per rule: its
category (scripts/misra/categories.txt), its findings and how many of them
a recorded deviation (scripts/misra/deviations.txt) covers.  cppcheck's own
findings that are no MISRA rule are listed the same way, category "cppcheck".

--check fails when a mandatory rule has a finding, a deviation names a
mandatory rule, or a rule has more findings outside deviations than
tests/misra/baseline-cppcheck-X.Y.json allows: the counts only go down.
cppcheck 2.10's baseline has no required rule: each of its findings is
fixed or deviated.  --update-baseline refuses to raise a required rule's
count.
The baseline is the running cppcheck's (each release's addon finds a
little differently); with none for it, only the mandatory rules are
checked, and it says so.  --update-baseline records the current counts.

cppcheck keeps its per-file results in BUILD_DIR/misra/cache, keyed by the
file's content, so a second run only analyses what changed.
"""
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CATEGORIES = os.path.join(HERE, 'categories.txt')
DEVIATIONS = os.path.join(HERE, 'deviations.txt')


def baseline_path():
    """tests/misra/baseline-cppcheck-X.Y.json of the cppcheck on PATH"""
    out = subprocess.run(['cppcheck', '--version'], stdout=subprocess.PIPE, text=True).stdout
    m = re.search(r'(\d+)\.(\d+)', out)
    if not m:
        sys.exit('misra: cannot tell the version of cppcheck from %r' % out)
    return os.path.join(ROOT, 'tests', 'misra', 'baseline-cppcheck-%s.%s.json' % m.groups())
JOBS = os.environ.get('MISRA_JOBS', '2')
# C files of the folders that are not analysed: the generator of the
# assembly's structure offsets, compiled only to assembly on the build host
# (it never runs in Hyp mode), and the stand-ins of the rooms an image may
# leave out (*_none.c, scripts/rooms.py; gdb_none.c is what `make GDB=n`
# links in the debugger's place): the analysis is of the image with every
# room, where a room and its stand-in would be one program with each of
# their functions defined twice (rule 8.6)
NOT_HYP = ('asm-offsets.c',)
NOT_HYP_SUFFIX = '_none.c'


def rule_key(rule):
    return tuple(int(x) if x.isdigit() else 0 for x in re.split(r'[.]', rule)) \
        if re.match(r'^\d+\.\d+$', rule) else (99, 0)


def categories():
    cats = {}
    for line in open(CATEGORIES):
        p = line.split('#')[0].split()
        if p:
            cats[p[0]] = p[1]
    return cats


def deviations():
    """[(rule, file-name pattern)]: `RULE PATTERN: why` lines."""
    out = []
    for n, line in enumerate(open(DEVIATIONS), 1):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        m = re.match(r'(\d+\.\d+)\s+(\S+):\s*\S', line)
        if not m:
            sys.exit('%s:%d: want "RULE FILE-PATTERN: why"' % (DEVIATIONS, n))
        out.append((m.group(1), m.group(2)))
    return out


def run_cppcheck(build, folders):
    cache = os.path.join(build, 'misra', 'cache')
    # cppcheck's build directory keeps what it learnt of every file it has
    # seen, for the rules across files (5.7, 5.9, 8.6): a file moved or
    # removed since would still be counted under its old name, so the cache
    # is only kept while the set of files is the same.
    sources = sorted(os.path.relpath(os.path.join(d, f), ROOT)
                     for folder in folders for d, _, files in os.walk(os.path.join(ROOT, folder))
                     for f in files if f.endswith(('.c', '.h')))
    listing = os.path.join(cache, 'sources.list')
    if os.path.isdir(cache) and (not os.path.exists(listing) or
                                 open(listing).read().split('\n') != sources):
        shutil.rmtree(cache)
    os.makedirs(cache, exist_ok=True)
    with open(listing, 'w') as f:
        f.write('\n'.join(sources))
    log = os.path.join(build, 'misra', 'findings.txt')
    # From cppcheck 2.11 on, an addon's findings (of severity "style") are
    # shown only with --enable=style; that also turns on cppcheck's own
    # style checks, which are no MISRA rule and are dropped below, so the
    # findings are the same on every release.
    cmd = ['cppcheck', '-j', JOBS, '--addon=misra', '--enable=style', '--std=c11', '--quiet',
           '-Iinclude', '-I.', '-Ihyp', '-I' + os.path.join(build, 'include'),
           '-I' + os.path.join(build, 'libfdt', 'include'),
           '--library=' + os.path.join(HERE, 'gcc-builtins.cfg'),
           '--cppcheck-build-dir=' + cache,
           '--template={file}:{line}:{severity}:{id}']
    for folder in folders:
        for d, _, files in os.walk(os.path.join(ROOT, folder)):
            cmd += ['-i' + os.path.relpath(os.path.join(d, f), ROOT) for f in files
                    if f in NOT_HYP or f.endswith(NOT_HYP_SUFFIX)]
    cmd += folders
    r = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit('misra: cppcheck failed (%d):\n%s' % (r.returncode, r.stderr[-2000:]))
    findings = []
    libfdt = os.path.relpath(os.path.join(build, 'libfdt'), ROOT) + os.sep
    for line in r.stderr.splitlines():
        m = re.match(r'(.+?):(\d+):(\w+):(\S+)$', line)
        # libfdt's headers (from Debian, in the build folder) are out of scope
        if m and m.group(1).startswith(libfdt):
            continue
        if m and (m.group(4).startswith('misra-') or m.group(3) == 'error'):
            rid = m.group(4)
            rule = rid[len('misra-c2012-'):] if rid.startswith('misra-c2012-') else rid
            findings.append((m.group(1), int(m.group(2)), rule))
    with open(log, 'w') as f:
        f.writelines('%s:%d: %s\n' % x for x in sorted(set(findings)))
    return sorted(set(findings)), log


def main(argv):
    mode = None
    if argv and argv[0] in ('--check', '--update-baseline'):
        mode = argv.pop(0)
    if len(argv) < 2:
        sys.exit(__doc__)
    build, folders = argv[0], argv[1:]
    cats, devs = categories(), deviations()
    findings, log = run_cppcheck(build, folders)

    counts = {}
    for path, line, rule in findings:
        deviated = any(r == rule and fnmatch.fnmatch(os.path.basename(path), pat) for r, pat in devs)
        c = counts.setdefault(rule, [0, 0])
        c[0] += 1
        c[1] += deviated
    for rule, _ in devs:
        counts.setdefault(rule, [0, 0])

    # the baseline's count beside each rule's: a change shows its drop (or
    # rise) per rule before `make misra-baseline` records it
    baseline = baseline_path()
    base = json.load(open(baseline)) if os.path.exists(baseline) else None
    print('%-8s %-10s %8s %8s %8s' % ('rule', 'category', 'findings', 'deviated', 'baseline'))
    by_cat = {}
    for rule in sorted(set(counts) | set(base or {}), key=lambda r: (rule_key(r), r)):
        cat = cats.get(rule, 'cppcheck' if not re.match(r'^\d+\.\d+$', rule) else 'unknown')
        n, d = counts.get(rule, [0, 0])
        print('%-8s %-10s %8d %8d %8s' % (rule, cat, n, d, '-' if base is None else base.get(rule, 0)))
        t = by_cat.setdefault(cat, [0, 0, 0])
        t[0] += n > 0
        t[1] += n
        t[2] += d
    for cat in ('mandatory', 'required', 'advisory', 'cppcheck'):
        r, n, d = by_cat.get(cat, [0, 0, 0])
        print('misra: %-9s %2d rules, %5d findings, %5d deviated' % (cat, r, n, d))
    print('misra: every finding in %s' % os.path.relpath(log, ROOT))

    left = {rule: n - d for rule, (n, d) in counts.items() if n - d > 0}
    # a required rule's findings outside deviations never go into a
    # baseline that had fewer (none, for cppcheck 2.10): they are fixed or
    # deviated
    required = sorted((r for r in left if cats.get(r) == 'required'
                       and left[r] > (base or {}).get(r, 0)), key=rule_key)
    if mode == '--update-baseline' and required:
        print('misra: required rules %s have more findings outside the recorded deviations '
              'than the baseline: fix them or record a deviation '
              '(scripts/misra/deviations.txt); no baseline written' % ', '.join(required),
              file=sys.stderr)
        return 1
    if mode == '--update-baseline':
        with open(baseline, 'w') as f:
            json.dump(dict(sorted(left.items(), key=lambda x: (rule_key(x[0]), x[0]))), f, indent=1)
            f.write('\n')
        print('misra: baseline written to %s' % os.path.relpath(baseline, ROOT))
        return 0
    if mode != '--check':
        return 0
    errors = []
    for rule, (n, d) in counts.items():
        if cats.get(rule) == 'mandatory' and n:
            errors.append('mandatory rule %s: %d findings' % (rule, n))
    for rule, _ in devs:
        if cats.get(rule) == 'mandatory':
            errors.append('mandatory rule %s cannot be deviated' % rule)
    if base is not None:
        print('misra: compared with %s' % os.path.relpath(baseline, ROOT))
    else:
        print('misra: no baseline for this cppcheck (%s): only the mandatory rules are '
              'checked; `make misra-baseline` records one' % os.path.relpath(baseline, ROOT))
    for rule, n in sorted(left.items()) if base is not None else []:
        if n > base.get(rule, 0):
            errors.append('rule %s: %d findings outside deviations, the baseline allows %d'
                          % (rule, n, base.get(rule, 0)))
    lower = [r for r in base or {} if left.get(r, 0) < base[r]]
    if lower:
        print('misra: fewer findings than the baseline for %s: '
              '`make misra-baseline` records that' % ', '.join(sorted(lower, key=rule_key)))
    for e in errors:
        print('misra: ' + e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
