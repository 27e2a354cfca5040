/* The "uart" and "uart-sim" backends: the device on an FPGA board behind a UART, speaking the
 * frames of docs/link.md "UART link" (uart_frame.h) with rtl/board/tpu_uart_bridge.sv.
 *
 * URIs:
 *   uart:PATH[@BAUD][,timeout=MS,retries=N]
 *       PATH  a serial device (raw 8N1 at BAUD, default 115200, no flow control), or any
 *             other file that reads and writes bytes (a pseudo-terminal in tests)
 *   uart-sim[:n=4,seed=S,faults=SPEC,timeout=MS,retries=N]
 *       the Verilated board (rtl/board/tpu_board_top.sv, mk/uart.mk) in this process; time is the
 *       board's clock (timeouts are in its milliseconds), so runs are deterministic; faults
 *       drop or corrupt exact bytes on the line (sim/uart_sim.h)
 *   timeout  how long an MMIO request waits for its answer (default 250 ms on a tty, 20 ms of
 *            board time in uart-sim); retries  how often it is sent again (default 3)
 * The board's configuration is read from its registers, so the hardware options (ub_rows, ...)
 * are refused.
 *
 * Host side of the protocol: every good device->host frame is ACKed (a duplicate SEQ is the
 * board repeating a frame whose ACK was lost: ACKed again, otherwise ignored); a bad one is
 * counted and NAKed (the board then repeats its frame at once). MRDs are answered from host
 * memory exactly as the simulated link does (sim/link.c): the bytes, or UR when any byte lies
 * outside a live buffer; MWRs and MSIs are performed in order, refused writes ignored. MMIO
 * requests go one at a time and wait for their answer (MCPL, or WACK for a write), serving DMA
 * meanwhile; after `retries` silent timeouts the request is given up: reads return all-ones,
 * and until the board answers again each request is tried once (so a board that is gone costs
 * one timeout per access, not retries + 1).
 * The host serves DMA only while the driver runs (inside tpu_wait, tpu_poll, MMIO); the board's
 * completion timeout is set long for that reason (rtl/board/tpu_board_top.sv). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "backend_uart.h"
#include "backend_opts.h"
#include "link.h"
#include "internal.h"
#include "uart_frame.h"
#include "uart_sim.h"

/* ------------------------------------------------------------------ transports */

struct uart_xport {
	/* Send n bytes. 0 or -errno. */
	int (*write)(void *ctx, const uint8_t *b, size_t n);
	/* Wait up to timeout_us for bytes; the number read, 0 on timeout, -errno. */
	long (*read)(void *ctx, uint8_t *b, size_t cap, uint64_t timeout_us);
	/* The transport's clock in microseconds (wall clock, or the simulated board's). */
	uint64_t (*now_us)(void *ctx);
	void (*close)(void *ctx);
	bool simulated;
};

struct tty {
	int fd;
};

static int tty_write(void *ctx, const uint8_t *b, size_t n)
{
	struct tty *t = ctx;

	while (n) {
		ssize_t w = write(t->fd, b, n);
		if (w > 0) {
			b += w;
			n -= (size_t)w;
			continue;
		}
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno != EAGAIN)
			return -errno;
		{
			struct pollfd p = { t->fd, POLLOUT, 0 };
			int r = poll(&p, 1, 1000);
			if (r == 0)
				return -ETIMEDOUT; /* the line does not drain */
			if (r < 0 && errno != EINTR)
				return -errno;
		}
	}
	return 0;
}

static long tty_read(void *ctx, uint8_t *b, size_t cap, uint64_t timeout_us)
{
	struct tty *t = ctx;
	struct pollfd p = { t->fd, POLLIN, 0 };
	int ms = (int)((timeout_us + 999u) / 1000u);
	ssize_t r;

	if (timeout_us > 60000000u)
		ms = 60000;
	r = poll(&p, 1, ms);
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	if (r == 0)
		return 0;
	r = read(t->fd, b, cap);
	if (r < 0)
		return (errno == EAGAIN || errno == EINTR) ? 0 : -errno;
	if (r == 0) {
		/* End of file: nothing will come; wait out the timeout like a silent line. */
		struct timespec ts = { (time_t)(timeout_us / 1000000u),
				       (long)(timeout_us % 1000000u) * 1000 };
		nanosleep(&ts, NULL);
	}
	return (long)r;
}

static uint64_t tty_now(void *ctx)
{
	struct timespec ts;

	(void)ctx;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void tty_close(void *ctx)
{
	struct tty *t = ctx;

	close(t->fd);
	free(t);
}

static const struct uart_xport tty_xport = { tty_write, tty_read, tty_now, tty_close, false };

static int sim_write(void *ctx, const uint8_t *b, size_t n)
{
	return tpu_uart_sim_write(ctx, b, n);
}

static uint64_t sim_cycles_of_us(struct tpu_uart_sim *s, uint64_t us)
{
	uint64_t c = us * (tpu_uart_sim_clk_hz(s) / 1000000u);
	return c ? c : 1;
}

static long sim_read(void *ctx, uint8_t *b, size_t cap, uint64_t timeout_us)
{
	return tpu_uart_sim_read(ctx, b, cap, sim_cycles_of_us(ctx, timeout_us));
}

static uint64_t sim_now(void *ctx)
{
	uint32_t mhz = tpu_uart_sim_clk_hz(ctx) / 1000000u;

	return tpu_uart_sim_cycles(ctx) / (mhz ? mhz : 1);
}

static void sim_close(void *ctx)
{
	tpu_uart_sim_destroy(ctx);
}

static const struct uart_xport sim_xport = { sim_write, sim_read, sim_now, sim_close, true };

/* ------------------------------------------------------------------ backend state */

#define UART_TTY_TIMEOUT_MS 250u
#define UART_SIM_TIMEOUT_MS 20u
#define UART_RETRIES 3u
/* advance(): how long one call serves the link (transport time). */
#define UART_ADVANCE_US 500u

struct uart_be {
	const struct uart_xport *xp;
	void *xc;
	struct hostmem *hm;
	uint64_t timeout_us;
	unsigned retries;
	uint8_t next_tag;
	bool have_seq;
	uint8_t seq;
	/* the MMIO request waiting for its answer */
	bool waiting, answered;
	uint8_t want_type, want_tag;
	uint32_t answer;
	bool dead, irq, xport_err;
	struct tpu_uart_stats st;
	struct tpu_uart_dec dec;
	uint8_t rx[256];
	uint8_t data[TPU_UART_MWR_MAX];
	uint8_t tx[TPU_UART_WIRE_MAX(2 + TPU_UART_CPL_CHUNK) * 4];
};

static _Thread_local char uart_what[400];

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static void xmit(struct uart_be *be, uint8_t type, const uint8_t *payload, size_t len)
{
	size_t n = tpu_uart_encode(type, payload, len, be->tx, sizeof(be->tx));

	if (n && be->xp->write(be->xc, be->tx, n))
		be->xport_err = true;
}

/* Answer an MRD: the data in numbered chunks sent back to back (the bridge drops a completion
 * from a missing chunk on), or one frame with the error status. */
static void serve_mrd(struct uart_be *be, uint8_t tag, uint32_t len, uint64_t addr)
{
	uint8_t status = TPU_LINK_OK, p[2 + TPU_UART_CPL_CHUNK];
	uint32_t off = 0;

	be->st.mrd++;
	if (len == 0 || len > sizeof(be->data) ||
	    hostmem_dma_read(be->hm, addr, be->data, len)) {
		status = TPU_LINK_UR;
		be->st.mem_refused++;
		len = 0;
	} else {
		be->st.rd_bytes += len;
	}
	do {
		uint32_t n = len - off < TPU_UART_CPL_CHUNK ? len - off : TPU_UART_CPL_CHUNK;
		p[0] = tag;
		p[1] = (uint8_t)(status | ((off / TPU_UART_CPL_CHUNK) & 31u) << 2 |
				 (off + n == len ? TPU_UART_CPL_LAST : 0));
		memcpy(p + 2, be->data + off, n);
		xmit(be, TPU_UART_CPL, p, 2 + n);
		off += n;
	} while (off < len);
}

static void handle_frame(struct uart_be *be)
{
	const struct tpu_uart_dec *d = &be->dec;
	const uint8_t *b = d->buf;
	uint8_t seq = b[0];

	if (d->type & 0x80u) {
		be->st.protocol_errors++; /* a host->device frame echoed back? */
		return;
	}
	xmit(be, TPU_UART_ACK, &seq, 1);
	if (be->have_seq && seq == be->seq) {
		be->st.frames_dup++;
		return;
	}
	be->have_seq = true;
	be->seq = seq;
	switch (d->type) {
	case TPU_UART_MRD:
		serve_mrd(be, b[1], le16(b + 2), le64(b + 4));
		break;
	case TPU_UART_MWR: {
		uint16_t len = le16(b + 1);
		be->st.mwr++;
		if (len + 11u != d->len) {
			be->st.protocol_errors++;
		} else if (hostmem_dma_write(be->hm, le64(b + 3), b + 11, len)) {
			be->st.mem_refused++; /* posted: the device never learns */
		} else {
			be->st.wr_bytes += len;
		}
		break;
	}
	case TPU_UART_MSI:
		if (hostmem_dma_write(be->hm, le64(b + 1), b + 9, 4))
			be->st.mem_refused++;
		be->st.irqs++;
		be->irq = true;
		break;
	case TPU_UART_MCPL:
	case TPU_UART_WACK:
		if (be->waiting && d->type == be->want_type && b[1] == be->want_tag) {
			be->answered = true;
			be->answer = d->type == TPU_UART_MCPL ? le32(b + 2) : 0;
		}
		break;
	default:
		be->st.protocol_errors++;
		break;
	}
}

/* Read what the line has within timeout_us and act on it. Returns bytes read or -errno. */
static long pump(struct uart_be *be, uint64_t timeout_us)
{
	long n = be->xp->read(be->xc, be->rx, sizeof(be->rx), timeout_us);

	if (n < 0) {
		be->xport_err = true;
		return n;
	}
	for (long i = 0; i < n; i++) {
		int r = tpu_uart_dec_byte(&be->dec, be->rx[i]);
		if (r > 0) {
			be->st.frames_good++;
			handle_frame(be);
		} else if (r < 0) {
			uint8_t next = (uint8_t)(be->seq + 1u);
			be->st.frames_bad++;
			be->st.naks++;
			xmit(be, TPU_UART_NAK, &next, 1);
		}
	}
	return n;
}

/* One MMIO request with timeout and retries. 0 with *val, or -ENODEV. */
static int mmio(struct uart_be *be, bool write, uint32_t off, uint32_t wval, uint32_t *val)
{
	uint8_t p[8] = { be->next_tag++, write ? 1 : 0, (uint8_t)off, (uint8_t)(off >> 8),
			 (uint8_t)wval, (uint8_t)(wval >> 8), (uint8_t)(wval >> 16),
			 (uint8_t)(wval >> 24) };
	unsigned tries = be->dead ? 1 : 1 + be->retries;

	be->waiting = true;
	be->want_type = write ? TPU_UART_WACK : TPU_UART_MCPL;
	be->want_tag = p[0];
	be->answered = false;
	for (unsigned t = 0; t < tries && !be->answered && !be->xport_err; t++) {
		uint64_t deadline;

		if (t)
			be->st.mmio_retries++;
		/* The same tag each time: the bridge performs a retried write only once. */
		xmit(be, TPU_UART_MREQ, p, sizeof(p));
		deadline = be->xp->now_us(be->xc) + be->timeout_us;
		while (!be->answered && !be->xport_err) {
			uint64_t now = be->xp->now_us(be->xc);
			if (now >= deadline)
				break;
			pump(be, deadline - now);
		}
	}
	be->waiting = false;
	if (!be->answered) {
		be->st.mmio_lost++;
		be->dead = true;
		return -ENODEV;
	}
	be->dead = false;
	*val = be->answer;
	return 0;
}

static uint32_t uart_be_read(void *impl, uint32_t off)
{
	uint32_t v;

	return mmio(impl, false, off, 0, &v) ? 0xFFFFFFFFu : v;
}

static void uart_be_write(void *impl, uint32_t off, uint32_t val)
{
	uint32_t v;

	(void)mmio(impl, true, off, val, &v);
}

static int uart_be_advance(void *impl)
{
	struct uart_be *be = impl;
	uint64_t start = be->xp->now_us(be->xc), now = start;
	long got = 0;

	be->irq = false;
	while (!be->irq && !be->xport_err && now - start < UART_ADVANCE_US) {
		long n = pump(be, UART_ADVANCE_US - (now - start));
		if (n < 0)
			break;
		got += n;
		now = be->xp->now_us(be->xc);
	}
	/* A simulated board ran for the slice: that is progress even when it said nothing. */
	return be->xp->simulated ? !be->xport_err : got > 0;
}

/* ------------------------------------------------------------------ options */

struct uart_opts {
	char path[256];
	uint32_t baud;
	uint64_t timeout_ms;
	uint64_t retries;
	struct tpu_uart_sim_cfg sim;
};

static const struct {
	uint32_t rate;
	speed_t code;
} bauds[] = {
	{ 9600, B9600 }, { 19200, B19200 }, { 38400, B38400 }, { 57600, B57600 },
	{ 115200, B115200 }, { 230400, B230400 },
#ifdef B460800
	{ 460800, B460800 },
#endif
#ifdef B500000
	{ 500000, B500000 },
#endif
#ifdef B921600
	{ 921600, B921600 },
#endif
#ifdef B1000000
	{ 1000000, B1000000 },
#endif
#ifdef B1500000
	{ 1500000, B1500000 },
#endif
#ifdef B2000000
	{ 2000000, B2000000 },
#endif
#ifdef B3000000
	{ 3000000, B3000000 },
#endif
#ifdef B4000000
	{ 4000000, B4000000 },
#endif
};

static int baud_code(uint32_t rate, speed_t *code)
{
	for (size_t i = 0; i < sizeof(bauds) / sizeof(bauds[0]); i++) {
		if (bauds[i].rate == rate) {
			*code = bauds[i].code;
			return 0;
		}
	}
	return -EINVAL;
}

static void baud_list(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(bauds) / sizeof(bauds[0]) && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%u", i ? ", " : "",
					 bauds[i].rate);
}

/* "PATH[@BAUD]" */
static int parse_path(const char *v, size_t vlen, struct uart_opts *o, const char **what)
{
	const char *at = NULL;
	uint64_t rate;
	speed_t code;

	for (size_t i = 0; i < vlen; i++)
		if (v[i] == '@')
			at = v + i;
	if (at) {
		size_t blen = vlen - (size_t)(at - v) - 1;
		if (tpu_opt_parse_dec(at + 1, blen, UINT32_MAX, &rate) || baud_code((uint32_t)rate, &code)) {
			char list[160];
			baud_list(list, sizeof(list));
			snprintf(uart_what, sizeof(uart_what), "baud '%.*s' (supported: %s)",
				 (int)blen, at + 1, list);
			*what = uart_what;
			return -EINVAL;
		}
		o->baud = (uint32_t)rate;
		vlen = (size_t)(at - v);
	}
	if (vlen == 0 || vlen >= sizeof(o->path)) {
		*what = "path (uart:PATH[@BAUD]: PATH is empty or longer than 255 bytes)";
		return -EINVAL;
	}
	memcpy(o->path, v, vlen);
	o->path[vlen] = '\0';
	return 0;
}

static int parse_extra(const char *extra, bool sim, struct uart_opts *o, const char **what)
{
	const char *p = extra;
	struct tpu_opt_item it;

	while (tpu_opt_next(&p, &it)) {
		const char *v = it.value;
		size_t vlen = it.vlen;
		int err = -EINVAL;

		snprintf(uart_what, sizeof(uart_what), "'%.*s'", (int)it.len, it.item);
		*what = uart_what;
		if (!it.has_value) {
			/* fall through to the error */
		} else if (!sim && tpu_opt_key_is(&it, "path")) {
			if (parse_path(v, vlen, o, what))
				return -EINVAL;
			err = 0;
		} else if (tpu_opt_key_is(&it, "timeout")) {
			err = tpu_opt_parse_dec(v, vlen, 60000, &o->timeout_ms);
			if (!err && o->timeout_ms == 0)
				err = -EINVAL;
			if (err)
				*what = "timeout (milliseconds, 1..60000)";
		} else if (tpu_opt_key_is(&it, "retries")) {
			err = tpu_opt_parse_dec(v, vlen, 100, &o->retries);
			if (err)
				*what = "retries (0..100)";
		} else if (sim && tpu_opt_key_is(&it, "seed")) {
			err = tpu_opt_parse_dec(v, vlen, UINT64_MAX, &o->sim.seed);
		} else if (sim && tpu_opt_key_is(&it, "faults")) {
			char spec[128];
			if (vlen && vlen < sizeof(spec)) {
				memcpy(spec, v, vlen);
				spec[vlen] = '\0';
				err = tpu_uart_sim_parse_faults(&o->sim, spec);
			}
			if (err)
				*what = "faults (RULE+RULE..., RULE = (h2d|d2h)_(drop|flip)@N[^HEX], "
					"at most 8)";
		}
		if (err)
			return -EINVAL;
	}
	return 0;
}

static int hw_opts_refused(const struct tpu_backend_opts *opts, bool sim, const char **what)
{
	if (opts->ub_rows || opts->acc_rows || opts->fifo_tiles || opts->num_queues ||
	    opts->num_windows || opts->max_queue_entries || (!sim && opts->array_n)) {
		*what = sim ? "ub_rows/acc_rows/fifo_tiles/queues/windows/max_queue_entries (the "
			      "simulated board's configuration is fixed by its build; n selects one)"
			    : "n/ub_rows/acc_rows/fifo_tiles/queues/windows/max_queue_entries (a "
			      "board's configuration is fixed; the driver reads it from the board)";
		return -EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ create / destroy */

static int open_tty(const struct uart_opts *o, void **ctx, const char **what)
{
	struct tty *t = calloc(1, sizeof(*t));
	speed_t code = B115200;

	if (!t)
		return -ENOMEM;
	t->fd = open(o->path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0) {
		snprintf(uart_what, sizeof(uart_what), "path '%s' (cannot open: %s)", o->path,
			 strerror(errno));
		*what = uart_what;
		free(t);
		return -EINVAL;
	}
	if (isatty(t->fd)) {
		struct termios tio;
		(void)baud_code(o->baud, &code);
		if (tcgetattr(t->fd, &tio) == 0) {
			cfmakeraw(&tio);
			tio.c_cflag |= CLOCAL | CREAD;
			tio.c_cflag &= ~(tcflag_t)(CSTOPB | PARENB | CRTSCTS);
			tio.c_cc[VMIN] = 0;
			tio.c_cc[VTIME] = 0;
			cfsetispeed(&tio, code);
			cfsetospeed(&tio, code);
		}
		if (tcsetattr(t->fd, TCSANOW, &tio) != 0) {
			snprintf(uart_what, sizeof(uart_what),
				 "path '%s' at %u baud (cannot set the line: %s)", o->path, o->baud,
				 strerror(errno));
			*what = uart_what;
			close(t->fd);
			free(t);
			return -EINVAL;
		}
		tcflush(t->fd, TCIOFLUSH);
	}
	*ctx = t;
	return 0;
}

static int create_common(const struct tpu_backend_opts *opts, struct hostmem *hm, void **impl,
			 const char **what, bool sim)
{
	struct uart_opts o = { .baud = 115200, .retries = UART_RETRIES };
	struct uart_be *be;
	int err;

	o.timeout_ms = sim ? UART_SIM_TIMEOUT_MS : UART_TTY_TIMEOUT_MS;
	o.sim.seed = 1;
	o.sim.n = opts->array_n;
	err = hw_opts_refused(opts, sim, what);
	if (!err)
		err = parse_extra(opts->extra, sim, &o, what);
	if (err)
		return err;
	if (!sim && !o.path[0]) {
		*what = "path (uart:PATH[@BAUD])";
		return -EINVAL;
	}
	be = calloc(1, sizeof(*be));
	if (!be)
		return -ENOMEM;
	be->hm = hm;
	be->timeout_us = o.timeout_ms * 1000u;
	be->retries = (unsigned)o.retries;
	tpu_uart_dec_init(&be->dec);
	if (sim) {
		be->xp = &sim_xport;
		err = tpu_uart_sim_create(&o.sim, (struct tpu_uart_sim **)&be->xc, what);
		if (err == -ENOENT)
			err = -EINVAL; /* *what names the option */
	} else {
		be->xp = &tty_xport;
		err = open_tty(&o, &be->xc, what);
	}
	if (err) {
		free(be);
		return err;
	}
	*impl = be;
	return 0;
}

static int uart_be_create(const struct tpu_backend_opts *opts, struct hostmem *hm, void **impl,
			  const char **what)
{
	return create_common(opts, hm, impl, what, false);
}

static int uart_sim_be_create(const struct tpu_backend_opts *opts, struct hostmem *hm,
			      void **impl, const char **what)
{
	return create_common(opts, hm, impl, what, true);
}

static void uart_be_destroy(void *impl)
{
	struct uart_be *be = impl;

	be->xp->close(be->xc);
	free(be);
}

static int uart_sim_available(char *msg, size_t len)
{
	if (tpu_uart_boards(NULL, 0))
		return 1;
	snprintf(msg, len, "backend 'uart-sim' has no Verilated board in this binary "
			   "(needs verilator; built by mk/uart.mk and linked into the tests)");
	return 0;
}

const struct tpu_backend_ops tpu_backend_uart = {
	.name = "uart",
	.create = uart_be_create,
	.destroy = uart_be_destroy,
	.mmio_read = uart_be_read,
	.mmio_write = uart_be_write,
	.advance = uart_be_advance,
};

const struct tpu_backend_ops tpu_backend_uart_sim = {
	.name = "uart-sim",
	.available = uart_sim_available,
	.create = uart_sim_be_create,
	.destroy = uart_be_destroy,
	.mmio_read = uart_be_read,
	.mmio_write = uart_be_write,
	.advance = uart_be_advance,
};

static struct uart_be *be_of(struct tpu_dev *dev)
{
	if (!dev || !dev->impl ||
	    (dev->ops != &tpu_backend_uart && dev->ops != &tpu_backend_uart_sim))
		return NULL;
	return dev->impl;
}

int tpu_backend_uart_stats(struct tpu_dev *dev, struct tpu_uart_stats *out)
{
	struct uart_be *be = be_of(dev);

	if (!be || !out)
		return -EINVAL;
	*out = be->st;
	return 0;
}

struct tpu_uart_sim *tpu_backend_uart_sim_of(struct tpu_dev *dev)
{
	struct uart_be *be = be_of(dev);

	return be && be->xp == &sim_xport ? be->xc : NULL;
}
