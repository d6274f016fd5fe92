/* A control partition's management calls, for test guests (manage_client.h). */
#include <string.h>
#include <partita/manage_abi.h>
#include "manage_client.h"

struct r4 mg_call(uint32_t fn, uint32_t id, uint32_t buf, uint32_t len, uint32_t a4)
{
    register uint32_t r0 __asm__("r0") = fn;
    register uint32_t r1 __asm__("r1") = id;
    register uint32_t r2 __asm__("r2") = buf;
    register uint32_t r3 __asm__("r3") = len;
    register uint32_t r4 __asm__("r4") = a4;
    __asm__ volatile("hvc #0" : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3) : "r"(r4) : "memory");
    return (struct r4){ (int32_t)r0, r1, r2, r3 };
}

uint32_t mg_crc32(const uint8_t *p, uint32_t n)
{
    uint32_t crc = 0xffffffffu;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (crc & 1 ? 0xedb88320u : 0);
    }
    return ~crc;
}

bool mg_console_says(uint32_t id, char *out, uint32_t cap, uint32_t *pos, const char *text,
                     uint32_t ms)
{
    uint64_t end = cntvct() + ms_to_ticks(ms);
    uint32_t have = 0;
    out[0] = '\0';
    while (cntvct() < end) {
        struct r4 r = mg_call(PARTITA_MG_CONSOLE_READ, id, (uint32_t)out + have,
                              cap - 1 - have, *pos);
        if (r.r0 > 0) {
            have += (uint32_t)r.r0;
            *pos = r.r1;
            out[have] = '\0';
            if (strstr(out, text))
                return true;
        }
        if (have > cap / 2)
            have = 0;
        delay_ms(5);
    }
    return false;
}
