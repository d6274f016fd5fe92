UNIT_SRCS_vgic := vgic/vgic_dist.c
$(BUILD)/unit/test_vgic: vgic/vgic_dist.c vgic/vgic_lr.h vgic/vgic.h hyp/trap/mmio.h hyp/lib/spinlock.h \
                         tests/unit/fake_lrs.h
