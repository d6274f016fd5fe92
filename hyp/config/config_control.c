/*
 * The control capability of a guest node: `control` (empty: every right,
 * or a list of rights) and `control-guests` (the guests it may act on; by
 * default every other guest).  control-guests names guests, so it is
 * checked once every guest is parsed.
 */
#include <string.h>
#include <libfdt.h>
#include <partita/manage_abi.h>
#include "guest_config.h"
#include "config_internal.h"
#include "hyp/dt/dt_index.h"

const char *const control_right_names[] = {
    "list", "start", "stop", "restart", "console", "load", "budget", "schedule", NULL,
};

static int right_bit(const char *name)
{
    for (int i = 0; control_right_names[i]; i++) {
        if (strcmp(name, control_right_names[i]) == 0) {
            return i;
        }
    }
    return -1;
}

void config_parse_control(const void *fdt, int node, struct guest_config *g, struct cfg_ctx *c)
{
    int len;
    const char *v = dt_getprop(fdt, node, "control", &len);
    g->control = 0u;
    g->control_guests = 0u;
    if (!v) {
        return;
    }
    if (len == 0) {
        g->control = CONTROL_ALL;
        return;
    }
    if (v[len - 1] != '\0') {
        cfg_msg(c, true, g->name, "control", "not a list of strings");
        return;
    }
    for (const char *s = v; s < v + len; s += strlen(s) + 1u) {
        int bit = right_bit(s);
        if (bit < 0) {
            cfg_msg(c, true, g->name, "control",
                    "\"%s\": use \"list\", \"start\", \"stop\", \"restart\", \"console\" or "
                    "\"load\" (or no value: all)", s);
        } else {
            g->control |= 1u << (unsigned int)bit;
        }
    }
}

/* control-guests of guest gi (its node), or every other guest */
static void check_targets(const void *fdt, int node, struct system_config *sys, unsigned int gi,
                          struct cfg_ctx *c)
{
    struct guest_config *g = &sys->guest_cfg[gi];
    int len;
    const char *v = dt_getprop(fdt, node, "control-guests", &len);
    if (!v) {
        if (g->control != 0u) {
            g->control_guests = ((1u << sys->nguest_cfg) - 1u) & ~(1u << gi);
        }
        return;
    }
    if (!g->control) {
        cfg_msg(c, true, g->name, "control-guests", "given without control");
        return;
    }
    if (len == 0 || v[len - 1] != '\0') {
        cfg_msg(c, true, g->name, "control-guests", "not a list of guest names");
        return;
    }
    for (const char *s = v; s < v + len; s += strlen(s) + 1u) {
        int t = cfg_guest_index(sys, s);
        if (t < 0) {
            cfg_msg(c, true, g->name, "control-guests", "no guest '%s'", s);
        } else if ((unsigned int)t == gi) {
            cfg_msg(c, true, g->name, "control-guests",
                    "a guest cannot manage itself (a reset is PSCI SYSTEM_RESET)");
        } else {
            g->control_guests |= 1u << (unsigned int)t;
        }
    }
}

void config_check_control(const void *fdt, int root, struct system_config *sys,
                          struct cfg_ctx *c)
{
    int node;
    fdt_for_each_subnode(node, fdt, root) {
        int gi = cfg_guest_index(sys, fdt_get_name(fdt, node, NULL));
        if (gi >= 0 && fdt_node_check_compatible(fdt, node, "partita,guest") == 0) {
            check_targets(fdt, node, sys, (unsigned int)gi, c);
        }
    }
}

/* the right a management call needs */
static uint32_t call_right(uint32_t fn)
{
    uint32_t right;
    switch (fn) {
    case PARTITA_MG_INFO:
    case PARTITA_MG_STATS:
    case PARTITA_MG_BUDGET:
    case PARTITA_MG_HEALTH:
    case PARTITA_MG_SCHEDULE:
        right = CONTROL_LIST;
        break;
    case PARTITA_MG_BUDGET_SET:
        right = CONTROL_BUDGET;
        break;
    case PARTITA_MG_SCHEDULE_SET:
        right = CONTROL_SCHEDULE;
        break;
    case PARTITA_MG_START:
        right = CONTROL_START;
        break;
    case PARTITA_MG_STOP:
        right = CONTROL_STOP;
        break;
    case PARTITA_MG_RESTART:
        right = CONTROL_RESTART;
        break;
    case PARTITA_MG_CONSOLE_READ:
    case PARTITA_MG_CONSOLE_WRITE:
        right = CONTROL_CONSOLE;
        break;
    case PARTITA_MG_LOAD:
        right = CONTROL_LOAD;
        break;
    default:
        right = 0u;
        break;
    }
    return right;
}

int control_check(const struct guest_config *c, unsigned int self, unsigned int ncfg,
                  uint32_t fn, uint32_t id)
{
    if (!c->control) {
        return PARTITA_E_DENIED;
    }
    if (fn == PARTITA_MG_VERSION) {
        return 0;
    }
    if (!call_right(fn)) {
        return PARTITA_E_NOT_SUPPORTED;
    }
    /* the schedules are the system's, no guest's: r1 is not a guest */
    if ((fn == PARTITA_MG_SCHEDULE) || (fn == PARTITA_MG_SCHEDULE_SET)) {
        return ((c->control & call_right(fn)) != 0u) ? 0 : PARTITA_E_DENIED;
    }
    if (id >= ncfg) {
        return PARTITA_E_INVALID;
    }
    /* a control partition may describe itself, not act on itself */
    bool self_info = id == self && fn == PARTITA_MG_INFO;
    if (!(c->control & call_right(fn)) || (!self_info && !(c->control_guests & (1u << id)))) {
        return PARTITA_E_DENIED;
    }
    return 0;
}
