#!/usr/bin/env python3
"""Coverage of the hypervisor by the tests (`make coverage`, docs/safety.md).

Usage: coverage.py ELF QEMU_LOG_DIR UNIT_DIR REPORT

QEMU_LOG_DIR holds the logs of `-d in_asm -dfilter TEXT` of every QEMU the
system tests started (tests/system/conftest.py, PARTITA_COVERAGE): each
translation block is logged once, when it is translated, which is when it
first runs.  An instruction of partita.elf is executed if a logged block
holds it; a function if any of its instructions is, a basic block (from the
disassembly: split at branch targets and after every branch and call) if its
first instruction is.  Functions are the ELF's, each in the folder of its
source file (from its debug information, so no file list here); libfdt,
libc and libgcc are not Partita's and are left out.

UNIT_DIR holds the host unit tests built with --coverage and run: gcov's
counts of the functions and blocks of the hypervisor's sources they link.

Prints the per-folder percentages of both and their union: a function run
by either; a basic block run under QEMU, or whose source lines the unit
tests ran (unit_ran_block says how a host's lines stand for an ARM block).
Writes REPORT: every function never executed under QEMU,
with the reason scripts/coverage/reasons.txt records for it (by function
name pattern), "run by the unit tests only", or "no test".
"""
import bisect
import fnmatch
import glob
import gzip
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
REASONS = os.path.join(HERE, 'reasons.txt')
CROSS = os.environ.get('CROSS', 'arm-none-eabi-')

BRANCH = re.compile(r'^(b|bl|blx|bx|cbz|cbnz|tbb|tbh|eret)(eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le)?(\.[nw])?$')


def elf_functions(elf):
    """[(start, end, name)] of the ELF's functions in .text."""
    out = subprocess.run(['readelf', '-sW', elf], capture_output=True, text=True, check=True).stdout
    funcs = {}
    for line in out.splitlines():
        p = line.split()
        if len(p) >= 8 and p[3] == 'FUNC' and p[6].isdigit() and int(p[2], 0) > 0:
            start = int(p[1], 16) & ~1
            funcs[start] = (start, start + int(p[2], 0), p[7])
    return sorted(funcs.values())


def source_files(elf, funcs):
    """Function start -> its source file relative to the repository, or None
    when it is not Partita's (libfdt, libc, libgcc).  The file is the
    outermost of the inline chain at the function's first instruction (that
    instruction may come from an inlined header function)."""
    addrs = ''.join('%x\n0\n' % f[0] for f in funcs)   # 0: a separator, "??"
    out = subprocess.run([CROSS + 'addr2line', '-f', '-i', '-e', elf], input=addrs,
                         capture_output=True, text=True, check=True).stdout.splitlines()
    groups, cur = [], []
    for i in range(0, len(out) - 1, 2):
        if out[i] == '??' and out[i + 1].startswith('??'):
            groups.append(cur)
            cur = []
        else:
            cur.append(out[i + 1])
    files = {}
    for f, group in zip(funcs, groups):
        path = group[-1].rsplit(':', 1)[0] if group else '??'
        full = os.path.normpath(os.path.join(ROOT, path))
        files[f[0]] = os.path.relpath(full, ROOT) if full.startswith(ROOT + os.sep) \
            and os.path.exists(full) else None
    return files


def basic_blocks(elf, funcs):
    """Function start -> the start addresses of its basic blocks."""
    out = subprocess.run([CROSS + 'objdump', '-d', '--no-show-raw-insn', '-j', '.text', elf],
                         capture_output=True, text=True, check=True).stdout
    insns = []
    for line in out.splitlines():
        m = re.match(r'\s*([0-9a-f]+):\t(\S+)\s*(.*)$', line)
        if m and not m.group(2).startswith('.'):
            t = re.search(r'([0-9a-f]+) <', m.group(3))
            insns.append((int(m.group(1), 16), m.group(2), m.group(3), int(t.group(1), 16) if t else None))
    starts = [f[0] for f in funcs]
    leaders = {f[0]: {f[0]} for f in funcs}
    for i, (addr, mn, ops, target) in enumerate(insns):
        k = bisect.bisect_right(starts, addr) - 1
        if k < 0 or addr >= funcs[k][1]:
            continue
        start, end, _ = funcs[k]
        ends = BRANCH.match(mn) or (re.match(r'^(pop|ldm)', mn) and 'pc' in ops) \
            or ops.startswith('pc,')
        if ends and i + 1 < len(insns) and insns[i + 1][0] < end:
            leaders[start].add(insns[i + 1][0])
        if target is not None and start <= target < end and BRANCH.match(mn):
            leaders[start].add(target)
    return {s: sorted(v) for s, v in leaders.items()}, [i[0] for i in insns]


def executed_addresses(log_dir):
    seen = set()
    for path in glob.glob(os.path.join(log_dir, '*.log')):
        with open(path, errors='replace') as f:
            for line in f:
                if line.startswith('0x'):
                    seen.add(int(line[2:10], 16))
    return seen


def unit_coverage(unit_dir):
    """(file, function) -> (executed, blocks, blocks executed) from gcov,
    merged over every unit test that links the file; and file -> {line:
    whether it ran} of the lines gcov counts (those with code)."""
    cov, lines = {}, {}
    gcdas = glob.glob(os.path.join(unit_dir, '*.gcda'))
    for gcda in gcdas:
        r = subprocess.run(['gcov', '--json-format', '--stdout', '--object-directory', unit_dir, gcda],
                           cwd=ROOT, capture_output=True)
        for chunk in r.stdout.decode(errors='replace').splitlines():
            if not chunk.startswith('{'):
                continue
            data = json.loads(chunk)
            for f in data.get('files', []):
                path = os.path.normpath(f['file'])
                if path.startswith('tests' + os.sep) or path.startswith('/'):
                    continue
                ran = lines.setdefault(path, {})
                for ln in f.get('lines', []):
                    n = ln['line_number']
                    ran[n] = ran.get(n, False) or ln['count'] > 0
                for fn in f.get('functions', []):
                    key = (path, fn['name'])
                    old = cov.get(key, (False, 0, 0))
                    cov[key] = (old[0] or fn['execution_count'] > 0,
                                max(old[1], fn['blocks']), max(old[2], fn['blocks_executed']))
    return cov, lines


def source_lines(elf, addrs):
    """Instruction address -> (file relative to the repository, line) of the
    innermost source it comes from (inlined code: the inlined function's
    line), or None when the compiler made it without a line (line 0)."""
    addrs = sorted(addrs)
    out = subprocess.run([CROSS + 'addr2line', '-e', elf], input=''.join('%x\n' % a for a in addrs),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    res = {}
    for a, loc in zip(addrs, out):
        path, _, line = loc.split(' ')[0].rpartition(':')
        if not line.isdigit() or int(line) == 0 or path.startswith('??'):
            res[a] = None
            continue
        full = os.path.normpath(os.path.join(ROOT, path))
        res[a] = (os.path.relpath(full, ROOT), int(line))
    return res


def unit_ran_block(locs, ulines):
    """Did the unit tests run this block of partita.elf, given its
    instructions' source lines?  Yes when one of its lines ran under gcov
    and none of them is a line gcov counts that did not run, or a line of a
    file the unit tests do not link.  The host build compiles the same
    lines for another processor, so this is the same code's lines, not the
    same instructions: a line gcov saw run whose ARM block also holds a
    branch the host's never took counts as run.  Lines gcov counts no code
    for (a declaration the ARM compiler gave an instruction) are left out."""
    one = False
    for loc in locs:
        if loc is None:
            continue
        path, line = loc
        ran = ulines.get(path)
        if ran is None:
            return False
        if line in ran:
            if not ran[line]:
                return False
            one = True
    return one


def reasons():
    out = []
    if os.path.exists(REASONS):
        for line in open(REASONS):
            line = line.strip()
            if line and not line.startswith('#'):
                pat, _, why = line.partition(':')
                out.append((pat.strip(), why.strip()))
    return out


def pct(a, b):
    return '%5.1f%%' % (100.0 * a / b) if b else '    - '


def main(elf, log_dir, unit_dir, report):
    funcs = elf_functions(elf)
    files = source_files(elf, funcs)
    blocks, insns = basic_blocks(elf, funcs)
    seen = executed_addresses(log_dir)
    seen_sorted = sorted(seen)
    ucov, ulines = unit_coverage(unit_dir) if os.path.isdir(unit_dir) else ({}, {})
    # the instructions of every block QEMU did not run, and their lines
    missed_insns = {}
    for start, end, name in funcs:
        if files[start] is None:
            continue
        bl = blocks[start] + [end]
        for b, nxt in zip(bl, bl[1:]):
            if b not in seen:
                i = bisect.bisect_left(insns, b)
                j = bisect.bisect_left(insns, nxt)
                missed_insns[b] = insns[i:j]
    locs = source_lines(elf, [a for v in missed_insns.values() for a in v]) if ulines else {}
    why = reasons()

    def ran(start, end):
        i = bisect.bisect_left(seen_sorted, start)
        return i < len(seen_sorted) and seen_sorted[i] < end

    folders, missed = {}, []
    for start, end, name in funcs:
        path = files[start]
        if path is None:
            continue
        folder = os.path.dirname(path)
        t = folders.setdefault(folder, [0] * 8)
        fn_ran = ran(start, end)
        bl = blocks[start]
        bl_ran = sum(1 for b in bl if b in seen)
        u = ucov.get((path, name.split('.')[0]))
        t[0] += 1
        t[1] += fn_ran
        t[2] += len(bl)
        t[3] += bl_ran
        t[4] += fn_ran or bool(u and u[0])
        if u:
            t[5] += 1
            t[6] += u[0]
        t[7] += bl_ran + sum(1 for b in bl if b not in seen and ulines
                             and unit_ran_block([locs.get(a) for a in missed_insns[b]], ulines))
        if not fn_ran:
            reason = next((w for p, w in why if fnmatch.fnmatch(name, p)), None)
            if reason is None:
                reason = 'run by the unit tests only' if u and u[0] else 'no test'
            missed.append((path, name, reason))

    head = '%-22s %15s %8s %15s %8s %9s %9s %12s' % (
        'folder', 'functions', 'QEMU', 'basic blocks', 'QEMU', 'fn +unit', 'bb +unit',
        'unit tests')
    lines = [head]
    tot = [0] * 8
    row = '%-22s %7d of %4d %8s %7d of %4d %8s %9s %9s %5d of %4d'
    for folder in sorted(folders):
        t = folders[folder]
        tot = [a + b for a, b in zip(tot, t)]
        lines.append(row % (
            folder, t[1], t[0], pct(t[1], t[0]), t[3], t[2], pct(t[3], t[2]),
            pct(t[4], t[0]), pct(t[7], t[2]), t[6], t[5]))
    lines.append(row % (
        'all', tot[1], tot[0], pct(tot[1], tot[0]), tot[3], tot[2], pct(tot[3], tot[2]),
        pct(tot[4], tot[0]), pct(tot[7], tot[2]), tot[6], tot[5]))
    print('\n'.join(lines))
    unit_files = {p for p, _ in ucov}
    unit_fn = sum(1 for v in ucov.values() if v[0])
    unit_bl = sum(v[1] for v in ucov.values())
    unit_bl_ran = sum(v[2] for v in ucov.values())
    summary = ('coverage: QEMU ran %d of %d functions (%s) and %d of %d basic blocks (%s); '
               'with the unit tests %d functions (%s) and %d basic blocks (%s)\n'
               'coverage: the unit tests (gcov, %d files they link): %d of %d functions (%s), '
               '%d of %d blocks (%s)' % (
                   tot[1], tot[0], pct(tot[1], tot[0]).strip(), tot[3], tot[2],
                   pct(tot[3], tot[2]).strip(), tot[4], pct(tot[4], tot[0]).strip(),
                   tot[7], pct(tot[7], tot[2]).strip(),
                   len(unit_files), unit_fn, len(ucov), pct(unit_fn, len(ucov)).strip(),
                   unit_bl_ran, unit_bl, pct(unit_bl_ran, unit_bl).strip()))
    print(summary)
    with open(report, 'w') as f:
        f.write('Coverage of partita.elf by the system tests under QEMU and the unit tests\n\n')
        f.write('\n'.join(lines) + '\n' + summary + '\n\n')
        f.write('Functions never executed under QEMU (%d), with the reason:\n\n' % len(missed))
        for path, name, reason in sorted(missed):
            f.write('%-40s %-36s %s\n' % (path, name, reason))
    print('coverage: %d functions never executed under QEMU, each with its reason, in %s'
          % (len(missed), os.path.relpath(report, ROOT)))
    return 0


if __name__ == '__main__':
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
