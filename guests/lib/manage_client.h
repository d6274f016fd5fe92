/*
 * A control partition's side of Partita's management calls, for test
 * guests (docs/control-partition.md; include/partita/manage_abi.h):
 * the call itself, the CRC-32 the hypervisor reports of an image, and a
 * wait for a line in another guest's console output.
 */
#ifndef GUEST_MANAGE_CLIENT_H
#define GUEST_MANAGE_CLIENT_H

#include "guest.h"

/* r0-r3 as the hypervisor returned them (r0 a PARTITA_E_* or a result) */
struct r4 { int32_t r0; uint32_t r1, r2, r3; };

/* HVC with the management function fn on guest id; buf is an address in
 * this guest, passed as a number (hostile callers pass any) */
struct r4 mg_call(uint32_t fn, uint32_t id, uint32_t buf, uint32_t len, uint32_t a4);

/* CRC-32 (IEEE 802.3), as `info` and PARTITA_MG_INFO report an image's */
uint32_t mg_crc32(const uint8_t *p, uint32_t n);

/* Wait up to ms for text in guest id's console output, read from *pos on
 * into out (cap bytes, NUL-terminated; older text dropped when it fills) */
bool mg_console_says(uint32_t id, char *out, uint32_t cap, uint32_t *pos, const char *text,
                     uint32_t ms);

#endif
