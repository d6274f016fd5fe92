/*
 * Start, stop and restart as an operator asks for them (the monitor's
 * commands, the control partition's calls): on the boot CPU, with the
 * answer as a PARTITA_E_* code and one console line for what was done.
 */
#include <partita/manage_abi.h>
#include "guest.h"
#include "hyp/lib/console.h"

int guest_op_start(struct guest *g)
{
    if (g->state == GUEST_RUNNING) {
        return PARTITA_E_STATE;
    }
    if (guest_image_loading(g)) {
        return PARTITA_E_STATE;     /* half a new image: finish or restart the load */
    }
    guest_stop(g);      /* a halted or crashed guest may still hold CPUs */
    if (guest_start(g) != 0) {
        return PARTITA_E_FIT;
    }
    pr_info("guest '%s' started\n", g->cfg->name);
    return 0;
}

int guest_op_stop(struct guest *g)
{
    if (g->state == GUEST_STOPPED && !g->restart_pending) {
        return PARTITA_E_STATE;
    }
    guest_stop(g);
    g->state = GUEST_STOPPED;
    pr_info("guest '%s' stopped\n", g->cfg->name);
    return 0;
}

int guest_op_restart(struct guest *g)
{
    if (guest_image_loading(g)) {
        return PARTITA_E_STATE;
    }
    guest_stop(g);
    g->state = GUEST_STOPPED;
    if (guest_start(g) != 0) {
        return PARTITA_E_FIT;
    }
    pr_info("guest '%s' restarted\n", g->cfg->name);
    return 0;
}
