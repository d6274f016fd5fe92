/* The rooms of what a guest may have, connected at boot (rooms.c). */
#ifndef BOOT_ROOMS_H
#define BOOT_ROOMS_H

/* before guests_init */
void rooms_connect(void);

#endif
