/*
 * The monitor's schedule command (docs/temporal-isolation.md): the cyclic
 * schedule in force, its windows and what each CPU measured; with a name,
 * a switch to that schedule at a major-frame boundary
 * (hyp/sched/cyclic.h).
 */
#include <stdint.h>
#include "monitor_cmds.h"
#include "hyp/config/guest_config.h"
#include "hyp/guest/guest.h"
#include "hyp/lib/console.h"
#include "hyp/sched/cyclic.h"

static void show_windows(const struct schedule_config *s, unsigned int cpu)
{
    const struct sched_table *t = &s->cpu[cpu];
    pr_info("  CPU %u:", cpu);
    for (unsigned int i = 0u; i < t->nwindows; i++) {
        pr_info(" %lu+%lu %s", (unsigned long)t->w[i].offset_us,
                (unsigned long)t->w[i].length_us, guests[t->w[i].guest].cfg->name);
    }
    pr_info("%s\n", (t->nwindows != 0u) ? "" : " idle");
}

static void schedule_show(void)
{
    int in = schedule_in_force();
    int pend = schedule_pending();
    const struct schedule_config *s = schedule_config_of((unsigned int)in);
    pr_info("schedule: '%s' in force, major frame %lu us; schedules:", s->name,
            (unsigned long)s->frame_us);
    for (unsigned int i = 0u; i < schedule_count(); i++) {
        pr_info(" %s", schedule_config_of(i)->name);
    }
    pr_info("\n");
    if (pend >= 0) {
        pr_info("schedule: '%s' from frame %lu\n", schedule_config_of((unsigned int)pend)->name,
                (unsigned long)schedule_switch_frame());
    }
    for (unsigned int cpu = 0u; cpu < SCHED_CPUS; cpu++) {
        struct cyclic_stats st;
        if (schedule_cpu_stats(cpu, &st)) {
            show_windows(s, cpu);
            pr_info("  CPU %u: frame %lu, %lu windows started, latest start +%lu ticks, "
                    "longest overrun %lu ticks, last switch at frame %lu (epoch+%llu ticks)\n", cpu,
                    (unsigned long)st.frame, (unsigned long)st.starts, (unsigned long)st.late_max,
                    (unsigned long)st.over_max, (unsigned long)st.switch_frame,
                    (st.switch_tick != 0u) ? (unsigned long long)(st.switch_tick - schedule_epoch())
                                           : 0ULL);
        }
    }
}

void cmd_schedule(int argc, char **argv)
{
    int i = (argc == 2) ? schedule_find(argv[1]) : -1;
    if (schedule_count() == 0u) {
        pr_info("schedule: no cyclic schedule configured\n");
    } else if (argc == 1) {
        schedule_show();
    } else if (i < 0) {
        pr_info("schedule: no schedule '%s'\n", (argc == 2) ? argv[1] : "");
    } else {
        int rc = schedule_request_switch((unsigned int)i);
        if (rc == SCHEDULE_E_BUSY) {
            pr_info("schedule: a switch is pending still\n");
        } else if (rc != 0) {
            pr_info("schedule: not switched (%d)\n", rc);
        } else {
            pr_info("schedule: '%s' from frame %lu\n", argv[1],
                    (unsigned long)schedule_switch_frame());
        }
    }
}
