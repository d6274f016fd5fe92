#include "console_escape.h"

int console_escape_feed(struct console_escape *e, char c, char out[ESC_COUNT])
{
    if ((int)c == ESC_CHAR) {
        if (++e->held == ESC_COUNT) {
            e->held = 0u;
            return -1;
        }
        return 0;
    }
    /* not an escape after all: the held Ctrl-As go first, then c */
    int n = 0;
    while (e->held != 0u) {
        out[n++] = ESC_CHAR;
        e->held--;
    }
    out[n++] = c;
    return n;
}
