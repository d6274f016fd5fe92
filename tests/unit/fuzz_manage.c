/*
 * libFuzzer target for the management calls and the load stream
 * (hyp/manage/manage.c, image.c, lifecycle.c, manage_ops.c), over the model
 * of tests/unit/manage/manage_harness.h: each input is a program of a
 * hostile control partition's calls - every call with any registers,
 * buffers anywhere in and around its RAM, load streams with headers and
 * pieces of any size, offset and content, its buffer changing under the
 * call - mixed with the managed guest ending its own life (halt, crash,
 * its vCPUs slow to leave) and the boot CPU's service pass.  Nothing may
 * fault (ASan/UBSan, and a guard page after each guest's RAM), and the
 * harness's promises hold on every step: no store byte written while a
 * device is attached, every buffer byte read once, the CRC a guest starts
 * with that of the bytes it boots; a running guest is never loaded into.
 *
 * Built and run by tests/unit/fuzz.sh.
 */
#include "tests/unit/manage/manage_harness.h"

#define memcpy h_memcpy
#include "hyp/manage/image.c"
#include "hyp/manage/manage.c"
#include "hyp/guest/lifecycle.c"
#include "hyp/guest/health_log.c"
#include "hyp/manage/manage_ops.c"
#undef memcpy

#include "tests/unit/manage/manage_program.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    h_run(data, size);
    return 0;
}
