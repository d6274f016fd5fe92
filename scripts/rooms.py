#!/usr/bin/env python3
"""The rooms of the hypervisor an image links (docs/building.md, "Rooms").

A room is a part a deployment may not need: its objects, and the small
objects that stand in for them when it is left out (hyp/*/*_none.c, which
refuse what the room would do).  The build reads the configuration it
embeds (its .dtb, with fdtget as the system tests read device trees) and
links the rooms it uses; the debugger is in unless GDB=n.  ROOMS= forces a
selection: "all", "none" or names; a configuration that uses a room the
selection leaves out is refused, naming the node and property.

Usage:
  rooms.py needs DTB                      the rooms DTB uses, and why
  rooms.py link DTB GDB ROOMS OBJDIR OBJ...
      the objects to link, of the build's OBJ... (under OBJDIR), one a
      line; exit 1, saying why, if DTB uses a room the selection leaves out
"""
import os
import subprocess
import sys

# name, the objects only it uses, the objects that stand in for them
# (source paths without extension)
ROOMS = [
    ("gdb", ["hyp/gdb/rsp", "hyp/gdb/gdb_stub", "hyp/gdb/gdb_break", "hyp/gdb/gdb_step",
             "hyp/gdb/gdb_regs", "hyp/gdb/gdb_vfp", "hyp/gdb/gdb_port", "hyp/gdb/gdb_guest",
             "hyp/gdb/debug_gdb", "hyp/arch/arm_next"],
     ["hyp/gdb/gdb_none"]),
    ("control", ["hyp/manage/manage", "hyp/manage/manage_ops", "hyp/manage/manage_page",
                 "hyp/config/config_control"],
     ["hyp/manage/manage_none", "hyp/config/config_control_none"]),
    ("networks", ["hyp/vdev/virtio_net", "hyp/guest/network", "hyp/config/config_network"],
     ["hyp/guest/network_none", "hyp/config/config_network_none"]),
    ("virtio-console", ["hyp/vdev/virtio_console"], ["hyp/vdev/virtio_console_none"]),
    ("disks", ["hyp/vdev/virtio_blk", "hyp/vdev/blk_backend", "hyp/vdev/blk_req",
               "hyp/guest/disk", "hyp/config/config_disk"],
     ["hyp/guest/disk_none", "hyp/config/config_disk_none"]),
    ("channels", ["hyp/guest/channel", "hyp/vdev/doorbell", "hyp/config/config_channel"],
     ["hyp/guest/channel_none", "hyp/config/config_channel_none"]),
    ("budgets", ["hyp/sched/budget", "hyp/sched/budget_ctl", "hyp/sched/budget_pool",
                 "hyp/config/config_budget", "hyp/console/monitor_budget"],
     ["hyp/sched/budget_none", "hyp/config/config_budget_none",
      "hyp/console/monitor_budget_none"]),
    ("schedules", ["hyp/sched/cyclic", "hyp/sched/cyclic_ctl", "hyp/config/config_schedule",
                   "hyp/console/monitor_schedule"],
     ["hyp/sched/cyclic_none", "hyp/config/config_schedule_none",
      "hyp/console/monitor_schedule_none"]),
    # what the virtio devices share: in with any of them, no stand-in
    ("virtio", ["hyp/vdev/virtq", "hyp/vdev/virtio_mmio"], []),
]
NAMES = [r[0] for r in ROOMS]
# a group node's compatible, a guest's property: the room it asks for
GROUPS = {"partita,network": "networks", "partita,channel": "channels",
          "partita,disk": "disks", "partita,schedule": "schedules"}
GUEST_PROPS = {"control": "control", "control-guests": "control",
               "memory-budget": "budgets", "memory-budget-event": "budgets",
               "virtio-console": "virtio-console"}
VIRTIO_DEVICES = ("networks", "virtio-console", "disks")


def fdtget(dtb, *args):
    r = subprocess.run(["fdtget", dtb] + list(args), capture_output=True, text=True)
    return r.stdout.split() if r.returncode == 0 else []


def needs(dtb):
    """{room: 'why'} of the configuration in dtb (first reason of each)."""
    out = {}
    for node in fdtget(dtb, "-l", "/partita"):
        path = "/partita/" + node
        compat = fdtget(dtb, path, "compatible")
        room = GROUPS.get(compat[0] if compat else "")
        if room:
            out.setdefault(room, "%s: compatible = \"%s\"" % (path, compat[0]))
            continue
        for prop in fdtget(dtb, "-p", path):
            room = GUEST_PROPS.get(prop)
            if room:
                out.setdefault(room, "%s: property %s" % (path, prop))
    if any(r in out for r in VIRTIO_DEVICES):
        out.setdefault("virtio", "a virtio device")
    return out


def selection(dtb, gdb, rooms):
    """The rooms to link and the refusals (lines) of dtb against them."""
    used = needs(dtb)
    if rooms in ("", "auto"):
        chosen = set(used)
    elif rooms == "all":
        chosen = set(NAMES) - {"gdb"}
    elif rooms == "none":
        chosen = set()
    else:
        chosen = set(rooms.replace(",", " ").split())
        unknown = chosen - set(NAMES)
        if unknown:
            return None, ["unknown room(s) %s (rooms: %s)" % (" ".join(sorted(unknown)),
                                                               " ".join(NAMES))]
    if gdb == "y":
        chosen.add("gdb")
    else:
        chosen.discard("gdb")
    if chosen & set(VIRTIO_DEVICES):
        chosen.add("virtio")
    refused = ["%s needs the room '%s', which this build leaves out (ROOMS=%s)"
               % (why, room, rooms) for room, why in sorted(used.items())
               if room not in chosen]
    return chosen, refused


def main(argv):
    if len(argv) == 2 and argv[0] == "needs":
        for room, why in sorted(needs(argv[1]).items()):
            print("%-16s %s" % (room, why))
        return 0
    if len(argv) < 5 or argv[0] != "link":
        print(__doc__.strip().split("\n\n")[-1], file=sys.stderr)
        return 2
    dtb, gdb, rooms, objdir, objs = argv[1], argv[2], argv[3], argv[4], argv[5:]
    chosen, refused = selection(dtb, gdb, rooms)
    if refused:
        for line in refused:
            print("%s: %s" % (dtb, line), file=sys.stderr)
        return 1
    drop = set()
    for name, ins, outs in ROOMS:
        drop.update(outs if name in chosen else ins)
    for o in objs:
        if os.path.relpath(o, objdir)[:-2] not in drop:
            print(o)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
