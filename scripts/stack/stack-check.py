#!/usr/bin/env python3
"""Worst-case stack depth of every entry of the hypervisor.

The call graph comes from the disassembly of the linked image (so that it
holds what really runs: tail calls, assembly, libfdt, libgcc), each
function's frame from the compiler's own -fstack-usage (.su files next to the
objects) where there is one and from its prologue otherwise.  Indirect calls
are resolved by scripts/stack/indirect.txt, which names functions only; the
check refuses

  - an indirect call (in the disassembly or in -fcallgraph-info's .ci files)
    in a function the annotation does not name,
  - a function whose address is taken (a word of a data table, a literal or
    a MOVW/MOVT pair in code) that no annotated call site, entry or `taken`
    line accounts for,
  - an annotated target that does not exist, or a site without indirect call,
  - a function that moves SP in a way the prologue reading cannot bound
    unless its frame is annotated,
  - recursion (any cycle in the graph) but for the bounds annotated,
  - an entry whose deepest path is deeper than the stack it runs on.

Usage: stack-check.py ELF OBJDIR ANNOTATIONS LAYOUT_H [--objdump CMD]
"""
import bisect
import glob
import os
import re
import subprocess
import sys

OBJDUMP = 'arm-none-eabi-objdump'
READELF = 'readelf'


def fail(msg):
    print('stack-check: ' + msg, file=sys.stderr)
    sys.exit(1)


def layout_stack(layout_h):
    """Usable bytes of one CPU's stack region (include/arch/layout.h)."""
    defs = {}
    for line in open(layout_h):
        m = re.match(r'#define\s+(\w+)\s+(.+?)\s*(/\*.*)?$', line)
        if m:
            defs[m.group(1)] = m.group(2)

    def value(name):
        expr = defs[name]
        expr = re.sub(r'\b([A-Z_][A-Z0-9_]*)\b', lambda t: str(value(t.group(1))), expr)
        return int(eval(re.sub(r'\b(0[xX][0-9a-fA-F]+|[0-9]+)[uUlL]+\b', r'\1', expr), {}))
    return value('STACK_REGION') - value('STACK_GUARD') - value('STACK_TOP_PAD')


def symbols(elf):
    """Code symbols: address -> names, and data objects: (start, end, name)."""
    sections = subprocess.run([READELF, '-SW', elf], capture_output=True, text=True, check=True).stdout
    text = re.search(r'\[\s*(\d+)\] \.text\s', sections).group(1)
    out = subprocess.run([READELF, '-sW', elf], capture_output=True, text=True, check=True).stdout
    code, objects, funcs = {}, [], set()
    for line in out.splitlines():
        p = line.split()
        if len(p) < 8 or not p[0][:-1].isdigit() or not p[6].isdigit():
            continue
        addr, size, typ, name = int(p[1], 16), int(p[2], 0), p[3], p[7]
        if typ == 'FUNC':
            addr &= ~1                      # a Thumb function's bit 0
        if name.startswith(('$', '.L')):
            continue
        if typ in ('FUNC', 'NOTYPE') and p[6] == text:
            code.setdefault(addr, []).append(name)
            if typ == 'FUNC':
                funcs.add(addr)
        elif typ == 'OBJECT':
            objects.append((addr, addr + size, name))
    return code, objects, funcs


def disassemble(elf):
    """[(addr, mnemonic, operands, target)] of .text, data words included."""
    # -m arm: every ARM instruction.  Debian 13's objdump (binutils 2.44)
    # otherwise takes the architecture from the first object's build
    # attributes and reads BLX, STRD and ERET as older encodings
    out = subprocess.run([OBJDUMP, '-m', 'arm', '-d', '--no-show-raw-insn', '-j', '.text', elf],
                         capture_output=True, text=True, check=True).stdout
    insns = []
    for line in out.splitlines():
        m = re.match(r'\s*([0-9a-f]+):\t(\S+)\s*(.*)$', line)
        if not m:
            continue
        ops = m.group(3).split('@')[0].split(';')[0].strip()
        t = re.search(r'([0-9a-f]+) <[^>]+>', m.group(3))
        insns.append((int(m.group(1), 16), m.group(2), ops, int(t.group(1), 16) if t else None))
    return insns


def data_words(elf, objects):
    """(value, holder name) of every aligned word of .rodata and .data."""
    out = subprocess.run([OBJDUMP, '-s', '-j', '.rodata', '-j', '.data', elf],
                         capture_output=True, text=True, check=True).stdout
    words = []
    for line in out.splitlines():
        m = re.match(r' ([0-9a-f]{8}) ((?:[0-9a-f]{1,8} ){1,4})', line)
        if not m:
            continue
        base = int(m.group(1), 16)
        for i, w in enumerate(m.group(2).split()):
            if len(w) == 8:
                addr = base + 4 * i
                val = int.from_bytes(bytes.fromhex(w), 'little')
                holder = next((n for s, e, n in objects if s <= addr < e), hex(addr))
                words.append((val, holder))
    return words


def stack_usage(objdir):
    """Function name -> bytes from every .su under OBJDIR (the larger of two
    static functions of one name), and the callers of indirect calls (.ci)."""
    su, indirect = {}, set()
    for obj in glob.glob(os.path.join(objdir, '**', '*.o'), recursive=True):
        dep = obj[:-2] + '.d'
        if os.path.exists(dep) and re.search(r':\s*\S+\.c\b', open(dep).read()) \
                and not os.path.exists(obj[:-2] + '.su'):
            fail('%s has no .su: it was compiled without -fstack-usage '
                 '(remove the objects and build again)' % obj)
    for path in glob.glob(os.path.join(objdir, '**', '*.su'), recursive=True):
        for line in open(path):
            where, size, kind = line.rstrip('\n').split('\t')
            name = where.split(':')[-1]
            if 'dynamic' in kind and 'bounded' not in kind:
                fail('%s: unbounded dynamic stack (%s)' % (where, kind))
            su[name] = max(su.get(name, 0), int(size))
    for path in glob.glob(os.path.join(objdir, '**', '*.ci'), recursive=True):
        for m in re.finditer(r'sourcename: "([^"]*)" targetname: "__indirect_call"', open(path).read()):
            indirect.add(m.group(1).split(':')[-1])
    return su, indirect


def annotations(path):
    ann = {'site': {}, 'group': {}, 'table': {}, 'edge': [], 'frame': {}, 'entry': [],
           'nested': [], 'taken': set(), 'bound': [], 'cut': []}
    for n, line in enumerate(open(path), 1):
        line = line.split('#')[0].strip()
        if not line:
            continue
        word, _, rest = line.partition(' ')
        head, _, tail = rest.partition(':')
        head, args = head.strip(), tail.split()
        if word in ('site', 'group'):
            ann[word][head] = args
        elif word == 'table':          # table GROUP: DATA-OBJECT...
            ann['table'].setdefault(head, []).extend(args)
        elif word == 'edge':           # edge FROM: TO  (control flow the disassembly cannot see)
            ann['edge'] += [(head, a) for a in args]
        elif word == 'frame':          # frame FUNC: BYTES
            ann['frame'][head] = int(args[0])
        elif word == 'entry':          # entry NAME: SYMBOL...
            ann['entry'].append((head, args))
        elif word == 'nested':         # nested NAME: SYMBOL...  (taken on top of any path)
            ann['nested'].append((head, args))
        elif word == 'bound':          # bound FROM: TO N  (recursion N levels deep at most)
            ann['bound'].append((head, args[0], int(args[1])))
        elif word == 'cut':            # cut FROM: TO  (a deliberate overflow, not counted)
            ann['cut'] += [(head, a) for a in args]
        elif word == 'taken':          # taken SYMBOL...  (no colon)
            ann['taken'].update(rest.split())
        else:
            fail('%s:%d: unknown line' % (path, n))
    return ann


RETURN = re.compile(r'^(bx|ret)$')
# a function's last instruction that does not fall into the next symbol
# (a call last of all is to a noreturn function: the compiler ends there)
UNCOND_END = ('b', 'bx', 'eret', 'udf', 'bkpt', 'bl', 'blx')


def is_padding(ins):
    """Padding after a function's end: a NOP, or zeros up to the next
    symbol's alignment (read as Thumb's MOVS r0, r0 or ARM's ANDEQ r0, r0,
    r0: libgcc's Thumb functions, such as __aeabi_ldiv0, end in them when
    the next symbol is 8-aligned)"""
    return ins[1] == 'nop' or (ins[1], ins[2]) in (('movs', 'r0, r0'), ('andeq', 'r0, r0, r0'))


def analyse(elf, objdir, ann_path, layout_h):
    code, objects, funcs = symbols(elf)
    alldis = disassemble(elf)                        # data words in code included
    insns = [i for i in alldis if not i[1].startswith('.')]
    starts = sorted(code)
    names = {a: sorted(code[a], key=lambda n: n.startswith('_'))[0] for a in starts}
    by_name = {}
    for a in starts:
        for n in code[a]:
            by_name.setdefault(n, []).append(a)
    su, ci_indirect = stack_usage(objdir)
    ann = annotations(ann_path)

    def owner(addr):
        i = bisect.bisect_right(starts, addr) - 1
        return starts[i] if i >= 0 else None

    # ---- per function: frame, calls, indirect calls
    body = {}
    for ins in insns:
        body.setdefault(owner(ins[0]), []).append(ins)
    calls = {a: set() for a in body}
    literal = {x[0]: int(x[2].split()[0], 16) for x in alldis
               if x[1] == '.word' and x[2].startswith('0x')}
    frame, indirect, unbounded, called_literals = {}, set(), set(), set()
    errors = []
    for i, a in enumerate(starts):
        ins_list = body.get(a, [])
        if not ins_list:
            continue
        push = 0
        adr = set()         # registers an ADR pointed into this function
        for addr, mn, ops, target in ins_list:
            base = re.sub(r'(eq|ne|cs|cc|hs|lo|mi|pl|vs|vc|hi|ls|ge|lt|gt|le|al)$', '', mn.split('.')[0])
            if base == 'add' and re.match(r'(r\d+|ip|sl|fp), pc, #\d+$', ops) \
                    and target is not None and owner(target) == a:
                adr.add(ops.split(',')[0])
            elif base == 'ldr' and re.match(r'pc, \[(r\d+|ip|sl|fp), (r\d+|ip|sl|fp), lsl #2\]$', ops) \
                    and ops.split('[')[1].split(',')[0] in adr:
                continue    # a T32 switch's jump table: ADR to it, then LDR PC
            if target is not None and base in ('bl', 'blx', 'b'):
                t = owner(target)
                if t != a or base != 'b':       # a call to itself is recursion
                    calls[a].add(t)
            elif base in ('blx',) or (base in ('bx', 'mov') and re.match(r'(pc, )?r\d|ip|sl|fp', ops)
                                        and not ops.startswith('lr') and (base == 'bx' or ops.startswith('pc'))):
                indirect.add(a)
            elif base == 'ldr' and ops.startswith('pc, [pc') and target in literal:
                calls[a].add(owner(literal[target] & ~1))     # a veneer: its literal
                called_literals.add(target)
            elif re.match(r'^pc, ', ops) and base in ('ldr', 'add'):
                # a switch's jump table: within the function
                # (or a return: `ldr pc, [sp], #4` pops)
                if not re.match(r'pc, \[?pc, (r\d+|ip|sl|fp), lsl #2|pc, \[sp\], #4$', ops):
                    indirect.add(a)
            if base == 'push' or (base == 'stmdb' and ops.startswith('sp!')):
                push += 4 * len(re.findall(r'r\d+|sl|fp|ip|lr|pc', ops.split('{')[1]))
            elif base == 'vpush':
                push += 8 * len(re.findall(r'd\d+', ops))
            elif base == 'sub' and re.match(r'sp, (sp, )?#\d+$', ops):
                push += int(ops.split('#')[1])
            elif base.startswith('str') and re.search(r'\[sp, #-(\d+)\]!', ops):
                push += int(re.search(r'\[sp, #-(\d+)\]!', ops).group(1))
            elif re.match(r'sp, ', ops) and not (
                    (base == 'add' and re.match(r'sp, (sp, )?#\d+$', ops))
                    or (base in ('mov', 'add', 'sub') and re.match(r'sp, (r7|fp)(, #\d+)?$', ops))
                    or base in ('cmp', 'tst') or base.startswith('str')):
                unbounded.add(a)
        # falls through into the next symbol: the same frame goes on
        real = [x for x in ins_list if not is_padding(x)]
        last = real[-1] if real else ins_list[-1]
        lmn = last[1].split('.')[0]
        ends = lmn in UNCOND_END or (lmn.startswith(('pop', 'ldm', 'ldr')) and 'pc' in last[2].split(',')[0] + str(re.findall(r'\{.*\}', last[2])))
        if not ends and i + 1 < len(starts) and owner(last[0] + 4) == starts[i + 1]:
            if any(x[0] >= starts[i + 1] for x in alldis if owner(x[0]) == starts[i + 1] and not x[1].startswith('.')):
                calls[a].add(starts[i + 1])
        names_a = code[a]
        own = [su[n] for n in names_a if n in su]
        if any(n in ann['frame'] for n in names_a):
            frame[a] = max(ann['frame'][n] for n in names_a if n in ann['frame'])
        elif own:
            frame[a] = max(own)
        else:
            if a in unbounded:
                errors.append('%s moves SP in a way its prologue does not bound: '
                              'annotate its frame' % names_a[0])
            frame[a] = push

    def resolve(name, where):
        if name.startswith('@'):
            g = name[1:]
            if g not in ann['group'] and g not in ann['table']:
                errors.append('%s: no group %s' % (where, name))
                return []
            out = []
            for n in ann['group'].get(g, []):
                out += resolve(n, where)
            for t in ann['table'].get(g, []):
                out += table_members[t]
            return out
        if name not in by_name:
            errors.append('%s: no function %s' % (where, name))
            return []
        return by_name[name]

    # ---- tables: every function address in a data object
    words = data_words(elf, objects)
    text_end = max(starts)
    table_members = {}
    for t in set(x for v in ann['table'].values() for x in v):
        if not any(n == t for _, _, n in objects):
            errors.append('table %s: no such data object' % t)
        table_members[t] = sorted({v & ~1 for v, h in words if h == t and v & ~1 in funcs})
    taken = {}
    for v, h in words:
        v &= ~1                                     # a Thumb function's address
        if v in funcs:
            taken.setdefault(v, set()).add(h)
    # literals in code and MOVW/MOVT pairs
    movw = {}
    for addr, mn, ops, target in alldis:
        m = re.match(r'(\w+), #(\d+)', ops)
        if mn.startswith('.word') and addr not in called_literals:
            v = int(ops.split()[0], 16) & ~1 if ops.startswith('0x') else None
            if v in funcs:
                taken.setdefault(v, set()).add(names[owner(addr)])
        # (a pair combines under one condition: GCC interleaves the
        # MOVWNE/MOVTNE of one value with the MOVWEQ/MOVTEQ of another)
        elif mn.startswith('movw') and m:
            movw[(owner(addr), m.group(1), mn[4:])] = int(m.group(2))
        elif mn.startswith('movt') and m and (owner(addr), m.group(1), mn[4:]) in movw:
            v = (int(m.group(2)) << 16) | movw[(owner(addr), m.group(1), mn[4:])]
            if v in funcs:
                taken.setdefault(v, set()).add(names[owner(addr)])

    # ---- indirect call sites
    targets_of = {}
    for site, tg in ann['site'].items():
        if site not in by_name:
            errors.append('site %s: no such function' % site)
            continue
        ts = [t for n in tg if n != '-' for t in resolve(n, 'site ' + site)]
        for a in by_name[site]:
            if a not in indirect and site not in ci_indirect:
                errors.append('site %s: makes no indirect call (stale annotation)' % site)
            targets_of[a] = ts
            calls[a].update(ts)
    for a in sorted(indirect):
        if a not in targets_of:
            errors.append('%s makes an indirect call that %s does not annotate'
                          % (names[a], os.path.basename(ann_path)))
    for n in sorted(ci_indirect):
        if n in by_name and n not in ann['site']:
            errors.append('%s makes an indirect call (-fcallgraph-info) that %s does not annotate'
                          % (n, os.path.basename(ann_path)))
    for frm, to in ann['edge']:
        for a in resolve(frm, 'edge'):
            calls.setdefault(a, set()).update(resolve(to, 'edge ' + frm))
    for frm, to in ann['cut']:
        for a in resolve(frm, 'cut'):
            calls.get(a, set()).difference_update(resolve(to, 'cut ' + frm))
    called = {t for ts in targets_of.values() for t in ts}
    entry_syms = {a for _, syms in ann['entry'] + ann['nested'] for s in syms for a in resolve(s, 'entry')}
    accounted = called | entry_syms | {a for n in ann['taken'] for a in resolve(n, 'taken')}
    for a, holders in sorted(taken.items()):
        if a not in accounted:
            errors.append('the address of %s is taken (%s) but no annotated call site lists it'
                          % (names[a], ', '.join(sorted(holders))))
    if errors:
        fail('\n  '.join(['the call graph is not fully annotated:'] + errors))

    # ---- deepest paths; a cycle is recursion and refused
    bound = {(a, b): n for f, t, n in ann['bound'] for a in resolve(f, 'bound')
             for b in resolve(t, 'bound ' + f)}
    depth, via, state = {}, {}, {}

    def walk(a, path, used=0):
        # used: how many bounded recursive calls the path has made; a bounded
        # edge is followed while that is below its bound, so a cycle through
        # it is counted that many times and no more
        key = (a, used)
        if state.get(key) == 'done':
            return depth[key]
        if state.get(key) == 'open':
            cyc = [x for x, _ in path[path.index(key):]] + [a]
            fail('recursion: ' + ' -> '.join(names[x] for x in cyc))
        state[key] = 'open'
        best, best_c = 0, None
        for c in sorted(calls.get(a, ())):
            n = bound.get((a, c))
            if n is not None and used >= n:
                continue
            ck = (c, used + (n is not None))
            d = walk(c, path + [key], ck[1])
            if d > best:
                best, best_c = d, ck
        depth[key] = frame.get(a, 0) + best
        via[key] = best_c
        state[key] = 'done'
        return depth[key]

    sys.setrecursionlimit(100000)
    stack = layout_stack(layout_h)
    results, ok = [], True

    def path_of(a):
        out, key = [], (a, 0)
        while key is not None:
            out.append('%s(%d)' % (names[key[0]], frame.get(key[0], 0)))
            key = via.get(key)
        return out

    worst = 0
    for kind in ('entry', 'nested'):
        for label, syms in ann[kind]:
            roots = [a for s in syms for a in resolve(s, kind)]
            r = max(roots, key=lambda x: walk(x, []))
            d = walk(r, [])
            total = d + (worst if kind == 'nested' else 0)
            if kind == 'entry':
                worst = max(worst, d)
            fits = total <= stack
            ok &= fits
            results.append((label, total, stack, fits, path_of(r), kind == 'nested' and worst))
    for label, total, size, fits, path, under in results:
        print('%-22s %6d of %6d bytes %s' % (label, total, size, 'ok' if fits else 'OVERFLOW'))
        if under:
            print('    on top of the deepest entry above (%d bytes):' % under)
        print('    ' + ' -> '.join(path))
    for frm, to in ann['cut']:
        print('not counted: %s -> %s (%s)' % (frm, to, os.path.basename(ann_path)))
    n_ind = sum(len(v) for v in targets_of.values())
    print('stack-check: %d functions, %d indirect call sites (%d targets), '
          'no recursion beyond the bounds annotated'
          % (len(frame), len(targets_of), n_ind))
    return ok


if __name__ == '__main__':
    if len(sys.argv) != 5:
        fail(__doc__)
    sys.exit(0 if analyse(*sys.argv[1:]) else 1)
