"""docs/boards.md is current: the readiness table that Partita's own platform
probe (build/tools/readiness, linking hyp/platform/platform.c) prints for every
Cortex-A15/A7/A17 board device tree of the Debian kernel package in
build/dtbs.  Regenerate with `make boards-table` after changing the probe.

Each kernel series has its table (scripts/board-table-path.sh): docs/boards.md
for the one it names (Debian 12's 6.1), docs/boards-linux-X.Y.md for each
other (Debian 13's 6.12).  A table names the kernel package it was made
from.  The build may fetch another package of the series (Debian moves
on): the probe's verdicts on that package's device trees must still be the
committed table's, row for row; only the package's name may differ.  A
failure names both packages, so that it is plain whether Partita's probe
or Debian's device trees changed.
"""
import os
import re
import subprocess

import pytest

from conftest import BUILD, ROOT

TOOL = os.path.join(BUILD, "tools", "readiness")
DTBS = os.path.join(BUILD, "dtbs")

# the boards most asked for, by DTB: each must be in the table with a verdict
NAMED = ["exynos5250-arndale", "exynos5420-arndale-octa", "exynos5422-odroidxu3",
         "exynos5422-odroidxu4", "tegra124-jetson-tk1", "sun7i-a20-bananapi",
         "sun7i-a20-cubieboard2", "sun7i-a20-cubietruck", "sun8i-h3-orangepi-pc",
         "omap5-uevm", "rk3288-firefly", "vexpress-v2p-ca15-tc1"]


@pytest.fixture(scope="module")
def generated():
    for path in (TOOL, os.path.join(DTBS, "PACKAGE")):
        if not os.path.exists(path):
            pytest.fail("%s is missing: run `make images`" % path)
    package = open(os.path.join(DTBS, "PACKAGE")).read().strip()
    out = subprocess.run([TOOL, DTBS, package], check=True, capture_output=True,
                         text=True).stdout
    return package, out


def rows(text):
    """{dtb: [cells]} of the table's rows."""
    out = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 9 and cells[0] not in ("DTB", "---"):
            out[cells[0]] = cells
    return out


MADE_FROM = re.compile(r"Debian's `([^`]+)`")


def test_table_is_current(generated):
    package, out = generated
    path = subprocess.run(["sh", os.path.join(ROOT, "scripts", "board-table-path.sh"), package],
                          check=True, capture_output=True, text=True).stdout.strip()
    assert os.path.exists(os.path.join(ROOT, path)), \
        "no board table for %s's kernel series: run `make boards-table` and commit %s" \
        % (package, path)
    committed = open(os.path.join(ROOT, path)).read()
    m = MADE_FROM.search(committed)
    assert m, "%s does not name the kernel package it was made from" % path
    made_from = m.group(1)
    # the same probe on the same trees prints the same file; on another
    # package's trees, the same file but for the package's name
    expected = MADE_FROM.sub(lambda _: "Debian's `%s`" % made_from, out, count=1)
    if committed != expected:
        old, new = rows(committed), rows(out)
        changed = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
        pytest.fail("%s (made from %s) differs from what the probe says of %s's "
                    "device trees (%d rows differ, e.g. %s): run `make boards-table` and "
                    "commit it" % (path, made_from, package, len(changed),
                                   ", ".join(changed[:5]) or "the text around the table"))


def test_table_covers_the_boards(generated):
    _, out = generated
    table = rows(out)
    assert len(table) > 250, "only %d boards in the table" % len(table)
    for dtb in NAMED:
        assert dtb in table, "%s is not in the table" % dtb
        verdict = table[dtb][8]
        assert verdict.startswith("**ready**") or verdict.startswith("needs "), \
            "%s: verdict %r" % (dtb, verdict)
    # what the QEMU tests boot is ready as it stands; a board with no
    # virtualization regions in its GIC node is named with them
    assert table["vexpress-v2p-ca15-tc1"][8] == "**ready**, booted in QEMU"
    for dtb in ("sun8i-h3-orangepi-pc", "imx7d-sdb", "imx6ul-14x14-evk"):
        assert table[dtb][8].startswith("**ready**") and table[dtb][8].endswith("booted in QEMU")
    assert table["vexpress-v2p-ca15-tc1"][7] == "vexpress-sysflags"
    gicless = [k for k, v in table.items() if "GICH/GICV regions" in v[8]]
    assert gicless and all("no virtualization extensions" in table[k][3] for k in gicless)
    # every console that has a driver says which
    for k, v in table.items():
        assert re.search(r": (pl011|ns16550|samsung|imx|stm32), IRQ \d+( \(no stdout-path: "
                         r"(/aliases/serial0|the first UART with a driver)\))?$|no driver|"
                         r"none found", v[6]), "%s: console cell %r" % (k, v[6])
    # without stdout-path, a console as Linux's earlycon finds it:
    # the vexpress DTs name theirs by the serial0 alias, TI's AM57xx SoMs
    # have neither and get their first enabled OMAP UART
    assert table["vexpress-v2p-ca15-tc1"][6].endswith("(no stdout-path: /aliases/serial0)")
    # STM32MP1: GICH/GICV from RM0436's memory map, the STM32 USART driver
    dk2 = table["stm32mp157c-dk2"]
    assert dk2[3] == "GICH 0xa0024000, GICV 0xa0026000, maintenance 25", dk2
    assert dk2[6].startswith("st,stm32h7-uart: stm32, IRQ "), dk2
    assert dk2[8].startswith("**ready**"), dk2
    assert table["am57xx-sbc-am57x"][6] == \
        "ti,dra742-uart: ns16550, IRQ 0 (no stdout-path: the first UART with a driver)"


def test_soc_start_methods(generated):
    """Secondary CPUs by each SoC's own method: the table names
    the method and the Linux file it follows, a method that matches but
    cannot serve the board says why, and at least 260 boards are ready."""
    _, out = generated
    table = rows(out)
    methods = {
        "am57xx-beagle-x15": "TI DRA7 AUX_CORE_BOOT + ROM HYP entry "
                             "(Linux arch/arm/mach-omap2/omap-smp.c)",
        "omap5-uevm": "TI OMAP5 AUX_CORE_BOOT + ROM HYP entry "
                      "(Linux arch/arm/mach-omap2/omap-smp.c)",
        "rk3288-firefly": "Rockchip PMU + SRAM mailbox (Linux arch/arm/mach-rockchip/platsmp.c)",
        "rk3036-kylin": "Rockchip SRAM mailbox (Linux arch/arm/mach-rockchip/platsmp.c)",
        "aspeed-ast2600-evb": "ASPEED SCU SMP mailbox (Linux arch/arm/mach-aspeed/platsmp.c)",
        "exynos5250-arndale": "Exynos PMU + SYSRAM boot register "
                              "(Linux arch/arm/mach-exynos/platsmp.c)",
        "sun6i-a31-hummingbird": "Allwinner A31 PRCM + CPUCFG "
                                 "(Linux arch/arm/mach-sunxi/platsmp.c)",
        "sun8i-a33-olinuxino": "Allwinner A23 PRCM + CPUCFG "
                               "(Linux arch/arm/mach-sunxi/platsmp.c)",
    }
    for dtb, cell in methods.items():
        assert table[dtb][7] == cell, (dtb, table[dtb][7])
        assert table[dtb][8].startswith("**ready**"), (dtb, table[dtb][8])
    assert table["aspeed-ast2600-evb"][8].endswith("booted in QEMU")
    # omap5.dtsi has no maintenance interrupt: the quirk table's PPI 9
    assert table["omap5-uevm"][3] == "GICH 0x48214000, GICV 0x48216000, maintenance 25"
    # matched, but not served: the reason, not a guess
    assert "MCPM" in table["exynos5422-odroidxu4"][8], table["exynos5422-odroidxu4"]
    assert "non-secure SVC" in table["exynos5410-odroidxu"][8], table["exynos5410-odroidxu"]
    ready = sum(1 for v in table.values() if v[8].startswith("**ready**"))
    assert ready >= 260, "%d boards ready" % ready
    m = re.search(r"^(\d+) boards: (\d+) ready on paper", out, re.M)
    assert m and int(m.group(2)) == ready, m and m.group(0)
