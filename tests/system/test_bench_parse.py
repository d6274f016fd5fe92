"""scripts/bench.py reads Linux's ready line whole: the console comes in
chunks, and a line cut after "cntvct=2" once gave a Linux boot of 32
instructions (and `make bench-check` failed: two runs not the same)."""
import importlib.util
import os
import re

_spec = importlib.util.spec_from_file_location(
    "bench", os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "bench.py"))
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def test_ready_line_is_read_to_its_end():
    assert not re.search(bench.READY, "PARTITA-LINUX-READY 6.1.0-50-armmp cpus=1 cntvct=2")
    m = re.search(bench.READY, "x\r\nPARTITA-LINUX-READY 6.1.0-50-armmp cpus=1 cntvct=227502\r\n")
    assert m and m.group(1) == "227502"
