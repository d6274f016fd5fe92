"""make stack-check's reading of the image (scripts/stack/stack-check.py),
on a small image of its own: a T32 switch's jump table (ADR to the table,
then LDR PC from it) is a branch within its function, not an indirect call,
and an address taken for the hardware is accounted for by a `taken` line,
and only by one."""
import os
import subprocess

from conftest import ROOT

SCRIPT = os.path.join(ROOT, "scripts", "stack", "stack-check.py")

# start (A32) calls pick (T32) and loads vec's address as HVBAR would be;
# pick jumps through a table of three cases, as GCC's T32 switches do
SOURCE = """
    .syntax unified
    .arm
    .text
    .globl start
    .type start, %function
start:
    push    {r4, lr}
    bl      pick
    ldr     r0, =vec
    pop     {r4, pc}
    .ltorg
    .globl vec
    .type vec, %function
vec:
    b       .
    .thumb
    .globl pick
    .type pick, %function
    .thumb_func
pick:
    push    {r3, lr}
    cmp     r0, #2
    bhi     3f
    adr     r2, 1f
    ldr.w   pc, [r2, r0, lsl #2]
    .align  2
1:  .word   2f + 1
    .word   2f + 1
    .word   3f + 1
2:  movs    r0, #1
    pop     {r3, pc}
3:  movs    r0, #0
    pop     {r3, pc}
    .section .rodata            @ the check reads both for tables
    .word   0
    .data
    .word   0
"""

LAYOUT = """
#define STACK_REGION 0x1000
#define STACK_GUARD 0x100
#define STACK_TOP_PAD 0
"""


def check(tmp_path, annotations):
    src, obj, elf = tmp_path / "a.S", tmp_path / "obj" / "a.o", tmp_path / "a.elf"
    obj.parent.mkdir(exist_ok=True)
    src.write_text(SOURCE)
    subprocess.run(["arm-none-eabi-gcc", "-mcpu=cortex-a15", "-c", str(src), "-o", str(obj)],
                   check=True)
    subprocess.run(["arm-none-eabi-ld", "-Ttext=0x1000", "-e", "start", str(obj), "-o", str(elf)],
                   check=True)
    ann, layout = tmp_path / "indirect.txt", tmp_path / "layout.h"
    ann.write_text(annotations)
    layout.write_text(LAYOUT)
    return subprocess.run(["/usr/bin/python3", SCRIPT, str(elf), str(obj.parent), str(ann),
                           str(layout)], capture_output=True, text=True)


def test_a_taken_line_accounts_for_the_address_and_a_jump_table_is_no_call(tmp_path):
    r = check(tmp_path, "entry main: start\ntaken vec  # HVBAR\n")
    assert r.returncode == 0, r.stdout + r.stderr
    # start's 8 bytes and pick's 8 on the deepest path
    assert "main" in r.stdout and "16 of" in r.stdout, r.stdout
    assert "makes an indirect call" not in r.stdout + r.stderr


def test_an_address_taken_without_a_taken_line_is_refused(tmp_path):
    r = check(tmp_path, "entry main: start\n")
    assert r.returncode != 0
    assert "the address of vec is taken (start)" in r.stdout + r.stderr, r.stdout + r.stderr
