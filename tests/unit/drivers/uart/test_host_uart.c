/*
 * Host unit tests for the console UART drivers (hyp/drivers/uart/ns16550.c,
 * hyp/drivers/uart/samsung_uart.c, through hyp/drivers/uart/host_uart.c) against register models:
 * every access the driver makes goes through uart_port_mmio_read/write
 * (hyp/drivers/uart/uart_port.h), which this file implements.  The models check each
 * access's width and alignment (reg-io-width, reg-shift) and act like the
 * hardware: reading RBR/URXH pops the receive FIFO, THR/UTXH append to the
 * line, status bits tell when the transmitter has room.
 * 16550: PC16550D data sheet; DesignWare busy detect: DW_apb_uart databook.
 * Samsung: Exynos 5250 user manual, UART chapter.  i.MX: i.MX 6UltraLite
 * reference manual, UART chapter.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <cmocka.h>
#include <string.h>
#include "hyp/drivers/uart/host_uart.h"
#include "hyp/drivers/uart/ns16550.h"
#include "hyp/drivers/uart/samsung_uart.h"
#include "hyp/drivers/uart/imx_uart.h"
#include "hyp/drivers/uart/stm32_usart.h"

/* ---- what the drivers hand to their receiver (host_uart_irq's rx) ---- */
static char pushed[64];
static unsigned int npushed;

static void received(char c)
{
    assert_true(npushed < sizeof(pushed));
    pushed[npushed++] = c;
}

/* ---- the register model ---- */
enum model_kind { MODEL_16550, MODEL_SAMSUNG, MODEL_IMX, MODEL_STM32 };

static struct model {
    enum model_kind kind;
    uint8_t window[256];        /* the address range the driver is given */
    unsigned int shift, width;
    char rx[32];
    unsigned int rx_head, rx_len;
    char tx[64];
    unsigned int ntx;
    unsigned int tx_busy;       /* status reads that still say "no room" */
    unsigned int status_reads;
    /* 16550 */
    uint32_t ier, lcr, mcr, fcr;
    unsigned int lcr_writes;
    bool busy_detect;           /* DesignWare: IIR says busy until USR is read */
    bool stuck;                 /* IIR always claims data, none ever arrives */
    unsigned int usr_reads, iir_reads;
    /* Samsung */
    uint32_t ucon, ufcon, uintp, uintm;
    /* i.MX */
    uint32_t ucr1, ucr2, ufcr, usr1;
    unsigned int imx_resets;    /* UCR2 written with SRST 0 */
    /* STM32 USART */
    uint32_t cr1, cr3, icr_writes;
    bool ore;                   /* overrun: set until ICR.ORECF is written */
} m;

static void model_reset(enum model_kind kind, unsigned int shift, unsigned int width)
{
    memset(&m, 0, sizeof(m));
    memset(pushed, 0, sizeof(pushed));
    npushed = 0;
    m.kind = kind;
    m.shift = shift;
    m.width = width;
}

static void model_receive(const char *s)
{
    /* an i.MX receiver that is not enabled ignores the line (UCR2.RXEN) */
    if (m.kind == MODEL_IMX && !(m.ucr2 & IMX_UCR2_RXEN))
        return;
    for (; *s; s++) {
        assert_true(m.rx_head + m.rx_len < sizeof(m.rx));
        m.rx[m.rx_head + m.rx_len++] = *s;
    }
}

static int rx_pop(void)
{
    if (!m.rx_len)
        return 0;   /* hardware returns stale data; the driver must not read */
    m.rx_len--;
    return (unsigned char)m.rx[m.rx_head++];
}

static void tx_push(uint32_t v)
{
    assert_true(m.tx_busy == 0);    /* the driver waited for room */
    assert_true(v <= 0xff);
    assert_true(m.ntx < sizeof(m.tx));
    m.tx[m.ntx++] = (char)v;
}

/* register number of an access, checking width and alignment */
static unsigned int reg_of(volatile uint8_t *addr, unsigned int width)
{
    ptrdiff_t off = (const uint8_t *)addr - m.window;
    assert_true(off >= 0 && off < (ptrdiff_t)sizeof(m.window));
    assert_int_equal(width, m.width);
    assert_int_equal(off & ((1 << m.shift) - 1), 0);
    return (unsigned int)off >> m.shift;
}

static uint32_t read_16550(unsigned int reg)
{
    switch (reg) {
    case UART_RBR:
        assert_false(m.lcr & UART_LCR_DLAB);
        return (uint32_t)rx_pop();
    case UART_IER:
        return m.ier;
    case UART_IIR:
        m.iir_reads++;
        if (m.busy_detect)
            return 0xc0 | UART_IIR_BUSY;
        if (m.stuck || (m.rx_len && (m.ier & UART_IER_RDI)))
            return 0xc4;            /* received data available */
        return 0xc0 | UART_IIR_NO_INT;
    case UART_LCR:
        return m.lcr;
    case UART_MCR:
        return m.mcr;
    case UART_LSR:
        m.status_reads++;
        if (m.tx_busy) {
            m.tx_busy--;
            return m.rx_len ? UART_LSR_DR : 0;
        }
        return (m.rx_len ? UART_LSR_DR : 0) | UART_LSR_THRE | 0x40;
    case UART_USR:
        m.usr_reads++;
        m.busy_detect = false;
        return 0;
    default:
        fail_msg("16550: read of register %u", reg);
        return 0;
    }
}

static void write_16550(unsigned int reg, uint32_t v)
{
    switch (reg) {
    case UART_THR:
        assert_false(m.lcr & UART_LCR_DLAB);
        tx_push(v);
        break;
    case UART_IER: m.ier = v; break;
    case UART_FCR: m.fcr = v; break;
    case UART_LCR: m.lcr = v; m.lcr_writes++; break;
    case UART_MCR: m.mcr = v; break;
    default: fail_msg("16550: write of register %u", reg);
    }
}

static uint32_t read_samsung(unsigned int off)
{
    switch (off) {
    case S3C_UCON: return m.ucon;
    case S3C_UFCON: return m.ufcon;
    case S3C_UTRSTAT:
        m.status_reads++;
        if (m.tx_busy) {
            m.tx_busy--;
            return m.rx_len ? S3C_UTRSTAT_RXDR : 0;
        }
        return (m.rx_len ? S3C_UTRSTAT_RXDR : 0) | S3C_UTRSTAT_TXE | 4;
    case S3C_UFSTAT:
        m.status_reads++;
        assert_true(m.ufcon & S3C_UFCON_FIFO_EN);
        if (m.tx_busy) {
            m.tx_busy--;
            return S3C_UFSTAT_TXFULL | m.rx_len;
        }
        return m.rx_len;
    case S3C_URXH: return (uint32_t)rx_pop();
    case S3C_UINTP: return m.uintp;
    case S3C_UINTM: return m.uintm;
    default:
        fail_msg("samsung: read of offset 0x%x", off);
        return 0;
    }
}

static void write_samsung(unsigned int off, uint32_t v)
{
    switch (off) {
    case S3C_UCON: m.ucon = v; break;
    case S3C_UTXH: tx_push(v); break;
    case S3C_UINTP: m.uintp &= ~v; break;    /* write 1 to clear */
    case S3C_UINTM: m.uintm = v; break;
    default: fail_msg("samsung: write of offset 0x%x", off);
    }
}

static uint32_t read_imx(unsigned int off)
{
    switch (off) {
    case IMX_URXD:
        assert_true(m.rx_len > 0);      /* read only when USR2.RDR said so */
        return 0x8000 | (uint32_t)rx_pop();     /* CHARRDY | data */
    case IMX_UCR1: return m.ucr1;
    case IMX_UCR2: return m.ucr2;
    case IMX_UFCR: return m.ufcr;
    case IMX_USR1: return m.usr1;
    case IMX_USR2:
        return (m.rx_len ? IMX_USR2_RDR : 0) | (1 << 14);      /* TXFE */
    case IMX_UTS:
        m.status_reads++;
        if (m.tx_busy) {
            m.tx_busy--;
            return IMX_UTS_TXFULL | (m.rx_len ? 0 : 1 << 5);
        }
        return m.rx_len ? 0 : 1 << 5;   /* RXEMPTY */
    default:
        fail_msg("imx: read of offset 0x%x", off);
        return 0;
    }
}

static void write_imx(unsigned int off, uint32_t v)
{
    switch (off) {
    case IMX_UTXD: tx_push(v); break;
    case IMX_UCR1: m.ucr1 = v; break;
    case IMX_UCR2:
        /* SRST is active low: 0 resets the state machines and FIFOs,
         * then reads back 1 (i.MX 6UL reference manual, UCR2) */
        if (!(v & IMX_UCR2_SRST)) {
            m.imx_resets++;
            m.rx_len = 0;
            v |= IMX_UCR2_SRST;
        }
        m.ucr2 = v;
        break;
    case IMX_UFCR: m.ufcr = v; break;
    case IMX_USR1: m.usr1 &= ~v; break;     /* write 1 to clear */
    default: fail_msg("imx: write of offset 0x%x", off);
    }
}

/* RM0436 USART, FIFO mode: ISR.RXFNE while the RX FIFO holds data (what
 * it held before an overrun stays readable), ISR.TXFNF while the TX FIFO
 * has room */
static uint32_t read_stm32(unsigned int off)
{
    switch (off) {
    case STM32_CR1: return m.cr1;
    case STM32_CR3: return m.cr3;
    case STM32_ISR: {
        m.status_reads++;
        uint32_t isr = (m.rx_len ? STM32_ISR_RXNE : 0) | (m.ore ? STM32_ISR_ORE : 0);
        if (m.tx_busy) {
            m.tx_busy--;
            return isr;
        }
        return isr | STM32_ISR_TXE;
    }
    case STM32_RDR:
        assert_true(m.rx_len > 0);      /* read only when ISR said so */
        return (uint32_t)rx_pop();
    default:
        fail_msg("stm32: read of offset 0x%x", off);
        return 0;
    }
}

static void write_stm32(unsigned int off, uint32_t v)
{
    switch (off) {
    case STM32_CR1: m.cr1 = v; break;
    case STM32_CR3: m.cr3 = v; break;
    case STM32_ICR:
        m.icr_writes++;
        if (v & STM32_ISR_ORE)
            m.ore = false;
        break;
    case STM32_TDR: tx_push(v); break;
    default: fail_msg("stm32: write of offset 0x%x", off);
    }
}

uint32_t uart_port_mmio_read(volatile uint8_t *addr, unsigned int width)
{
    unsigned int reg = reg_of(addr, width);
    return m.kind == MODEL_16550 ? read_16550(reg)
         : m.kind == MODEL_SAMSUNG ? read_samsung(reg)
         : m.kind == MODEL_IMX ? read_imx(reg) : read_stm32(reg);
}

void uart_port_mmio_write(volatile uint8_t *addr, unsigned int width, uint32_t v)
{
    unsigned int reg = reg_of(addr, width);
    if (m.kind == MODEL_16550)
        write_16550(reg, v);
    else if (m.kind == MODEL_SAMSUNG)
        write_samsung(reg, v);
    else if (m.kind == MODEL_IMX)
        write_imx(reg, v);
    else
        write_stm32(reg, v);
}

/* ---- a driver as the hypervisor sets it up (hyp/drivers/uart/host_uart.c) ---- */
static struct host_uart hu;

static void uart_up(enum uart_kind kind, unsigned int shift, unsigned int width)
{
    struct plat_uart p = { .kind = kind, .reg_shift = shift, .io_width = width };
    assert_int_equal(host_uart_init(&hu, &p, m.window), 0);
}

static void puts_all(const char *s)
{
    struct console_ops ops = host_uart_console_ops(&hu);
    for (; *s; s++)
        ops.putc(ops.ctx, *s);
}

static void getc_all(char *out, size_t n)
{
    struct console_ops ops = host_uart_console_ops(&hu);
    size_t i = 0;
    int c;
    while ((c = ops.getc(ops.ctx)) >= 0) {
        assert_true(i + 1 < n);
        out[i++] = (char)c;
    }
    out[i] = '\0';
}

/* reg-shift / reg-io-width combinations found in real board DTs */
static const struct { unsigned int shift, width; } layouts[] = {
    { 0, 1 },   /* ns16550a, QEMU, PCs */
    { 2, 4 },   /* snps,dw-apb-uart: Allwinner, Rockchip */
    { 2, 1 },   /* Tegra, OMAP */
};

static void test_16550_tx_waits_for_room(void **state)
{
    for (unsigned int i = 0; i < 3; i++) {
        model_reset(MODEL_16550, layouts[i].shift, layouts[i].width);
        uart_up(UART_NS16550, layouts[i].shift, layouts[i].width);
        m.tx_busy = 5;              /* LSR.THRE stays clear for 5 reads */
        puts_all("ok");
        assert_int_equal(m.ntx, 2);
        assert_memory_equal(m.tx, "ok", 2);
        assert_int_equal(m.status_reads, 5 + 2);
    }
}

static void test_16550_rx_polled(void **state)
{
    char got[16];
    for (unsigned int i = 0; i < 3; i++) {
        model_reset(MODEL_16550, layouts[i].shift, layouts[i].width);
        uart_up(UART_NS16550, layouts[i].shift, layouts[i].width);
        getc_all(got, sizeof(got));
        assert_string_equal(got, "");   /* nothing waits: -1, RBR not read */
        model_receive("hi\r");
        getc_all(got, sizeof(got));
        assert_string_equal(got, "hi\r");
    }
}

static void test_16550_init_keeps_line_settings(void **state)
{
    model_reset(MODEL_16550, 2, 4);
    m.lcr = 0x03;                   /* 8N1 from the bootloader */
    m.ier = 0x0f;
    uart_up(UART_NS16550, 2, 4);
    assert_int_equal(m.lcr_writes, 0);   /* no LCR write: DW busy detect */
    assert_int_equal(m.lcr, 0x03);
    assert_int_equal(m.ier, 0);          /* no interrupts until asked */
    /* a bootloader that left the divisor latch open */
    model_reset(MODEL_16550, 0, 1);
    m.lcr = 0x83;
    uart_up(UART_NS16550, 0, 1);
    assert_int_equal(m.lcr, 0x03);
    puts_all("x");                       /* the model asserts DLAB = 0 */
    assert_int_equal(m.ntx, 1);
}

static void test_16550_irq_drains_receive(void **state)
{
    model_reset(MODEL_16550, 2, 4);
    m.mcr = 0x03;                   /* DTR, RTS: kept */
    uart_up(UART_NS16550, 2, 4);
    host_uart_rx_irq_enable(&hu);
    assert_int_equal(m.ier, UART_IER_RDI);
    assert_int_equal(m.mcr, 0x03 | UART_MCR_OUT2);
    model_receive("help\r");
    host_uart_irq(&hu, received);
    assert_int_equal(npushed, 5);
    assert_memory_equal(pushed, "help\r", 5);
    assert_int_equal(m.rx_len, 0);
    /* an interrupt with nothing pending does nothing */
    host_uart_irq(&hu, received);
    assert_int_equal(npushed, 5);
}

static void test_16550_busy_detect_cleared(void **state)
{
    model_reset(MODEL_16550, 2, 4);
    uart_up(UART_NS16550, 2, 4);
    host_uart_rx_irq_enable(&hu);
    m.busy_detect = true;
    model_receive("q");
    host_uart_irq(&hu, received);
    assert_int_equal(m.usr_reads, 1);
    assert_false(m.busy_detect);
    assert_int_equal(npushed, 1);
    assert_int_equal(pushed[0], 'q');
}

static void test_16550_stuck_interrupt_bounded(void **state)
{
    model_reset(MODEL_16550, 0, 1);
    uart_up(UART_NS16550, 0, 1);
    host_uart_rx_irq_enable(&hu);
    m.stuck = true;                 /* must return, not spin forever */
    host_uart_irq(&hu, received);
    assert_true(m.iir_reads <= 16);
    assert_int_equal(npushed, 0);
}

static void test_samsung_tx_fifo_and_buffer(void **state)
{
    model_reset(MODEL_SAMSUNG, 0, 4);
    m.ufcon = S3C_UFCON_FIFO_EN;
    uart_up(UART_SAMSUNG, 0, 4);
    assert_int_equal(m.uintm, S3C_UINT_ALL);    /* interrupts masked at init */
    m.tx_busy = 3;                  /* UFSTAT.TXFULL for 3 reads */
    puts_all("ab");
    assert_int_equal(m.ntx, 2);
    assert_memory_equal(m.tx, "ab", 2);
    assert_int_equal(m.status_reads, 3 + 2);
    /* FIFO off: UTRSTAT's transmit-empty bit, UFSTAT never read */
    model_reset(MODEL_SAMSUNG, 0, 4);
    uart_up(UART_SAMSUNG, 0, 4);
    m.tx_busy = 2;
    puts_all("c");
    assert_int_equal(m.ntx, 1);
    assert_int_equal(m.status_reads, 2 + 1);
}

static void test_samsung_rx(void **state)
{
    char got[16];
    for (int fifo = 0; fifo < 2; fifo++) {
        model_reset(MODEL_SAMSUNG, 0, 4);
        m.ufcon = fifo ? S3C_UFCON_FIFO_EN : 0;
        uart_up(UART_SAMSUNG, 0, 4);
        getc_all(got, sizeof(got));
        assert_string_equal(got, "");
        model_receive("ls\r");
        getc_all(got, sizeof(got));
        assert_string_equal(got, "ls\r");
    }
}

static void test_samsung_irq(void **state)
{
    model_reset(MODEL_SAMSUNG, 0, 4);
    m.ufcon = S3C_UFCON_FIFO_EN;
    m.ucon = 0x3c5 & ~3u;           /* bootloader: RX mode off, other bits set */
    uart_up(UART_SAMSUNG, 0, 4);
    host_uart_rx_irq_enable(&hu);
    assert_int_equal(m.ucon & S3C_UCON_RXMODE_MASK, S3C_UCON_RXMODE_IRQ);
    assert_true(m.ucon & S3C_UCON_RXTIMEOUT);
    assert_int_equal(m.ucon & 0x3c, 0x3c5 & 0x3c);  /* TX mode etc. kept */
    assert_int_equal(m.uintm, S3C_UINT_ALL & ~S3C_UINT_RXD);
    model_receive("go");
    m.uintp = S3C_UINT_RXD;
    host_uart_irq(&hu, received);
    assert_int_equal(m.uintp & S3C_UINT_RXD, 0);
    assert_int_equal(npushed, 2);
    assert_memory_equal(pushed, "go", 2);
}

static void test_imx_init_tx_rx(void **state)
{
    char got[16];
    model_reset(MODEL_IMX, 0, 4);
    m.ucr1 = 0x0001 | IMX_UCR1_RRDYEN | IMX_UCR1_TRDYEN;   /* UARTEN, irqs on */
    m.ucr2 = 0x4027 | IMX_UCR2_ATEN;
    uart_up(UART_IMX, 0, 4);
    assert_int_equal(m.ucr1, 0x0001);           /* enabled, interrupts off */
    assert_int_equal(m.ucr2, 0x4027);           /* format kept, aging off */
    m.tx_busy = 4;                              /* UTS.TXFULL for 4 reads */
    puts_all("ok");
    assert_int_equal(m.ntx, 2);
    assert_memory_equal(m.tx, "ok", 2);
    assert_int_equal(m.status_reads, 4 + 2);
    getc_all(got, sizeof(got));
    assert_string_equal(got, "");               /* URXD not read: model asserts */
    model_receive("ls\r");
    getc_all(got, sizeof(got));
    assert_string_equal(got, "ls\r");
}

/* A UART a bootloader (or QEMU 10's reset, which sets UARTEN and TXEN
 * only) left with its receiver off and SRST reading 0: Partita must turn
 * the receiver on without a software reset.  Before the driver set RXEN,
 * typed characters never arrived (test_imx_boot on QEMU 10). */
static void test_imx_receiver_enabled(void **state)
{
    char got[16];
    model_reset(MODEL_IMX, 0, 4);
    m.ucr1 = 0x0001;                            /* UARTEN */
    m.ucr2 = IMX_UCR2_TXEN;                     /* receiver off, SRST 0 */
    uart_up(UART_IMX, 0, 4);
    assert_true(m.ucr2 & IMX_UCR2_RXEN);
    assert_true(m.ucr2 & IMX_UCR2_TXEN);
    assert_int_equal(m.imx_resets, 0);
    model_receive("info\r");
    getc_all(got, sizeof(got));
    assert_string_equal(got, "info\r");
}

static void test_imx_irq(void **state)
{
    model_reset(MODEL_IMX, 0, 4);
    m.ufcr = (5 << 7) | (2 << 10) | 16;         /* RFDIV 5, TXTL 2, RXTL 16 */
    uart_up(UART_IMX, 0, 4);
    host_uart_rx_irq_enable(&hu);
    assert_int_equal(m.ufcr, (5 << 7) | (2 << 10) | 1);    /* one byte triggers */
    assert_true(m.ucr1 & IMX_UCR1_RRDYEN);
    model_receive("q");
    m.usr1 = IMX_USR1_AGTIM;
    host_uart_irq(&hu, received);
    assert_int_equal(npushed, 1);
    assert_int_equal(pushed[0], 'q');
    assert_int_equal(m.usr1 & IMX_USR1_AGTIM, 0);
}

static void test_stm32_init_tx_rx(void **state)
{
    char got[16];
    model_reset(MODEL_STM32, 0, 4);
    /* as U-Boot leaves it: FIFOEN, TE, RE, UE and some interrupts on */
    m.cr1 = (1u << 29) | 0xd | STM32_CR1_RXNEIE | STM32_CR1_TCIE;
    m.cr3 = STM32_CR3_EIE | STM32_CR3_RXFTIE | (1u << 25);
    uart_up(UART_STM32, 0, 4);
    assert_int_equal(m.cr1, (1u << 29) | 0xd);  /* enabled, FIFO on, interrupts off */
    assert_int_equal(m.cr3, 1u << 25);          /* thresholds kept */
    assert_int_equal(m.icr_writes, 1);          /* stale errors cleared */
    m.tx_busy = 3;                              /* TXFNF clear for 3 reads */
    puts_all("hi!");
    assert_int_equal(m.ntx, 3);
    assert_memory_equal(m.tx, "hi!", 3);
    getc_all(got, sizeof(got));
    assert_string_equal(got, "");               /* RDR not read: the model asserts */
    model_receive("ls\r");
    getc_all(got, sizeof(got));
    assert_string_equal(got, "ls\r");
}

/* an overrun is cleared, and what the FIFO held still comes */
static void test_stm32_irq_and_overrun(void **state)
{
    model_reset(MODEL_STM32, 0, 4);
    uart_up(UART_STM32, 0, 4);
    host_uart_rx_irq_enable(&hu);
    assert_true(m.cr1 & STM32_CR1_RXNEIE);
    model_receive("ab");
    m.ore = true;
    host_uart_irq(&hu, received);
    assert_false(m.ore);
    assert_int_equal(npushed, 2);
    assert_memory_equal(pushed, "ab", 2);
}

static void test_no_driver(void **state)
{
    struct plat_uart p = { .kind = UART_NONE };
    model_reset(MODEL_16550, 0, 1);
    assert_int_equal(host_uart_init(&hu, &p, m.window), -1);
    struct console_ops ops = host_uart_console_ops(&hu);
    assert_int_equal(ops.getc(ops.ctx), -1);
    ops.putc(ops.ctx, 'x');         /* nothing, and no access */
    assert_int_equal(m.ntx, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_16550_tx_waits_for_room),
        cmocka_unit_test(test_16550_rx_polled),
        cmocka_unit_test(test_16550_init_keeps_line_settings),
        cmocka_unit_test(test_16550_irq_drains_receive),
        cmocka_unit_test(test_16550_busy_detect_cleared),
        cmocka_unit_test(test_16550_stuck_interrupt_bounded),
        cmocka_unit_test(test_samsung_tx_fifo_and_buffer),
        cmocka_unit_test(test_samsung_rx),
        cmocka_unit_test(test_samsung_irq),
        cmocka_unit_test(test_imx_init_tx_rx),
        cmocka_unit_test(test_imx_receiver_enabled),
        cmocka_unit_test(test_imx_irq),
        cmocka_unit_test(test_stm32_init_tx_rx),
        cmocka_unit_test(test_stm32_irq_and_overrun),
        cmocka_unit_test(test_no_driver),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
