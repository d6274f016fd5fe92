# The host unit tests: one line per test, tests/unit/<layer>/test_<name>.c,
# and the hypervisor sources it links (header dependencies come from the
# compiler).  A test of a layer links that layer's sources and, where it
# must, the layers below it - never a fake of them.
# the SoC start methods (hyp/platform/soc_smp*.c), linked wherever platform.c is
# (tests/boards/boards.mk too)
SOC_SMP_SRCS := $(sort $(wildcard hyp/platform/soc_smp*.c))
UNIT_SRCS_format      := hyp/lib/format.c
UNIT_SRCS_ratelimit   := hyp/lib/ratelimit.c
UNIT_SRCS_dt_index    := hyp/dt/dt_index.c hyp/dt/dt_lookup.c
UNIT_SRCS_host_uart   := hyp/drivers/uart/host_uart.c hyp/drivers/uart/pl011.c \
                         hyp/drivers/uart/ns16550.c hyp/drivers/uart/samsung_uart.c \
                         hyp/drivers/uart/imx_uart.c hyp/drivers/uart/stm32_usart.c
UNIT_SRCS_platform    := hyp/platform/platform.c hyp/platform/platform_uart.c hyp/platform/gic_quirks.c $(SOC_SMP_SRCS) hyp/dt/dt_index.c hyp/dt/dt_lookup.c hyp/dt/dt_reg.c hyp/dt/dt_irq.c
UNIT_SRCS_cpu_release := hyp/platform/cpu_release.c hyp/platform/platform.c hyp/platform/platform_uart.c hyp/platform/gic_quirks.c $(SOC_SMP_SRCS) hyp/dt/dt_index.c hyp/dt/dt_lookup.c hyp/dt/dt_reg.c hyp/dt/dt_irq.c
UNIT_SRCS_soc_smp     := hyp/platform/platform.c hyp/platform/platform_uart.c hyp/platform/gic_quirks.c $(SOC_SMP_SRCS) hyp/dt/dt_index.c hyp/dt/dt_lookup.c hyp/dt/dt_reg.c hyp/dt/dt_irq.c
UNIT_SRCS_config      := hyp/config/config.c hyp/config/config_image.c hyp/config/config_guest.c hyp/config/config_control.c hyp/config/config_channel.c hyp/config/config_member.c hyp/config/config_network.c hyp/config/config_disk.c hyp/config/config_colour.c hyp/config/config_budget.c hyp/config/config_health.c hyp/config/config_schedule.c hyp/config/colour.c \
                         hyp/platform/platform.c hyp/platform/platform_uart.c hyp/platform/gic_quirks.c $(SOC_SMP_SRCS) hyp/dt/dt_index.c hyp/dt/dt_lookup.c hyp/dt/dt_reg.c hyp/dt/dt_irq.c
UNIT_SRCS_stage2      := mm/stage2.c
UNIT_SRCS_colour      := hyp/config/colour.c
UNIT_SRCS_guest_ram   := hyp/guest/guest_ram.c hyp/config/colour.c mm/stage2.c
UNIT_SRCS_budget_pool := hyp/sched/budget_pool.c
# (test_claim.c: the claim is inline in hyp/sched/sched_internal.h, its
# rare end in claim.c)
UNIT_SRCS_claim       := hyp/sched/claim.c
UNIT_SRCS_setway      := mm/setway.c
UNIT_SRCS_pt_copy     := mm/pt_copy.c
UNIT_SRCS_page_alloc  := mm/page_alloc.c hyp/config/colour.c
UNIT_SRCS_vgic        := vgic/vgic_dist.c vgic/vgic_setup.c vgic/vgic_pt.c
UNIT_SRCS_insn        := hyp/arch/insn.c
UNIT_SRCS_debug_filter := hyp/arch/debug_filter.c
UNIT_SRCS_debug_gdb   := hyp/gdb/debug_gdb.c hyp/arch/debug_filter.c
UNIT_SRCS_mmio        := hyp/vdev/mmio.c
UNIT_SRCS_psci        := hyp/trap/psci.c
UNIT_SRCS_guest_dt    := hyp/guest/guest_dt.c hyp/config/config.c hyp/config/config_image.c hyp/config/config_guest.c hyp/config/config_control.c hyp/config/config_channel.c hyp/config/config_member.c hyp/config/config_network.c hyp/config/config_disk.c hyp/config/config_colour.c hyp/config/config_budget.c hyp/config/config_health.c hyp/config/config_schedule.c hyp/config/colour.c \
                         hyp/platform/platform.c hyp/platform/platform_uart.c hyp/platform/gic_quirks.c $(SOC_SMP_SRCS) hyp/dt/dt_index.c hyp/dt/dt_lookup.c hyp/dt/dt_reg.c hyp/dt/dt_irq.c
UNIT_SRCS_vuart       := hyp/vdev/vuart.c
# (test_channel.c includes hyp/guest/channel.c itself, for its static helpers)
UNIT_SRCS_channel     := hyp/config/config.c hyp/config/config_image.c hyp/config/config_guest.c hyp/config/config_control.c hyp/config/config_channel.c hyp/config/config_member.c hyp/config/config_network.c hyp/config/config_disk.c hyp/config/config_colour.c hyp/config/config_budget.c hyp/config/config_health.c hyp/config/config_schedule.c hyp/config/colour.c mm/stage2.c \
                         hyp/vdev/mmio.c hyp/vdev/doorbell.c hyp/platform/platform.c hyp/platform/platform_uart.c hyp/platform/gic_quirks.c $(SOC_SMP_SRCS) hyp/dt/dt_index.c hyp/dt/dt_lookup.c hyp/dt/dt_reg.c hyp/dt/dt_irq.c
# (test_manage.c includes hyp/manage/manage.c, image.c, lifecycle.c and
# manage_ops.c itself, over the model of tests/unit/manage/manage_harness.h)
UNIT_SRCS_manage      := hyp/lib/ratelimit.c hyp/sched/budget_ctl.c hyp/sched/cyclic_ctl.c hyp/sched/budget_pool.c hyp/config/config.c hyp/config/config_image.c hyp/config/config_guest.c hyp/config/config_control.c hyp/config/config_channel.c hyp/config/config_member.c hyp/config/config_network.c hyp/config/config_disk.c hyp/config/config_colour.c hyp/config/config_budget.c hyp/config/config_health.c hyp/config/config_schedule.c hyp/config/colour.c \
                         hyp/platform/platform.c hyp/platform/platform_uart.c hyp/platform/gic_quirks.c $(SOC_SMP_SRCS) hyp/dt/dt_index.c hyp/dt/dt_lookup.c hyp/dt/dt_reg.c hyp/dt/dt_irq.c
# (test_gdb_guest.c includes hyp/gdb/gdb_guest.c itself, over a model
# of the vCPUs' own CPUs)
UNIT_SRCS_gdb_guest   := hyp/gdb/debug_gdb.c hyp/arch/debug_filter.c
UNIT_SRCS_escape      := hyp/console/console_escape.c
UNIT_SRCS_net         := hyp/vdev/virtio_net.c hyp/vdev/virtio_mmio.c hyp/vdev/virtq.c hyp/lib/ratelimit.c \
                         hyp/config/config.c hyp/config/config_image.c hyp/config/config_guest.c hyp/config/config_control.c hyp/config/config_channel.c hyp/config/config_member.c hyp/config/config_network.c hyp/config/config_disk.c hyp/config/config_colour.c hyp/config/config_budget.c hyp/config/config_health.c hyp/config/config_schedule.c hyp/config/colour.c \
                         hyp/platform/platform.c hyp/platform/platform_uart.c hyp/platform/gic_quirks.c $(SOC_SMP_SRCS) hyp/dt/dt_index.c hyp/dt/dt_lookup.c hyp/dt/dt_reg.c hyp/dt/dt_irq.c
UNIT_SRCS_vcon        := hyp/vdev/virtio_console.c hyp/vdev/virtio_mmio.c hyp/vdev/virtq.c
UNIT_SRCS_blk_req     := hyp/vdev/blk_req.c hyp/vdev/virtq.c
UNIT_SRCS_vblk        := hyp/vdev/virtio_blk.c hyp/vdev/blk_req.c hyp/vdev/virtio_mmio.c hyp/vdev/virtq.c
UNIT_SRCS_blk_backend := hyp/vdev/blk_backend.c hyp/vdev/virtio_blk.c hyp/vdev/blk_req.c hyp/vdev/virtio_mmio.c hyp/vdev/virtq.c
UNIT_SRCS_rsp         := hyp/gdb/rsp.c
UNIT_SRCS_arm_next    := hyp/arch/arm_next.c hyp/arch/insn.c
UNIT_SRCS_gdb_regs    := hyp/gdb/gdb_regs.c hyp/gdb/rsp.c hyp/arch/psr.c hyp/arch/insn.c hyp/arch/vcpu_reg.c
