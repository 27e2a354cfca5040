/* The UART link end to end: the driver's uart backends against the Verilated board
 * (rtl/board/tpu_board_top.sv = tpu_uart_bridge + tpu_device, N = 4, 4 clock cycles per bit).
 *   uart-sim    the board in this process (deterministic board time)
 *   uart:PTY    the same board served by a thread through a pseudo-terminal (the tty code)
 * GEMMs are compared with the golden device byte for byte; line faults (sim/uart_sim.h) must be
 * detected and either recovered (the bridge repeats device->host frames, the host repeats MMIO
 * requests) or reported as a DMA transfer error, never silent and never a hang. Also: URI
 * errors name the option, and a board that does not answer gives -ENODEV promptly. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend_uart.h"
#include "harness.h"
#include "tpu/tpu.h"
#include "uart_sim.h"

#define SIM_URI "uart-sim:mem=1M"
#define GOLDEN_URI "golden:n=4,mem=1M"

static bool have_board(void)
{
	static int said;

	if (tpu_uart_boards(NULL, 0))
		return true;
	if (!said++)
		fprintf(stderr, "uart: no Verilated board in this binary; uart-sim tests skipped\n");
	return false;
}

static tpu_dev *open_dev(const char *uri)
{
	tpu_dev *dev = NULL;
	ck_assert_msg(tpu_open(uri, &dev) == 0, "%s: %s", uri, tpu_last_open_error());
	return dev;
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ------------------------------------------------------------------ GEMM vs golden */

struct gemm_case {
	size_t m, k, n;
	int8_t *a, *b;
	int32_t bias[16], mult[16], shift[16];
	int8_t lut[256];
	struct tpu_gemm_params p;
};

/* lut: with quant, a random 256-entry LUT (on the board a LOAD_PARAMS LUT is a row stream
 * through the staging ring: tpu_board_top's LutStage) */
static void make_case(struct gemm_case *g, uint64_t *seed, size_t m, size_t k, size_t n,
		      bool quant, bool lut)
{
	g->m = m;
	g->k = k;
	g->n = n;
	g->a = malloc(m * k);
	g->b = malloc(k * n);
	ck_assert(g->a && g->b && n <= 16);
	for (size_t i = 0; i < m * k; i++)
		g->a[i] = (int8_t)harness_range(seed, -128, 127);
	for (size_t i = 0; i < k * n; i++)
		g->b[i] = (int8_t)harness_range(seed, -128, 127);
	tpu_gemm_params_init(&g->p);
	g->p.in_zero_point = (int32_t)harness_range(seed, -5, 5);
	for (size_t j = 0; j < n; j++) {
		g->bias[j] = (int32_t)harness_range(seed, -3000, 3000);
		g->mult[j] = (int32_t)harness_range(seed, 1 << 29, (1 << 30) + (1 << 29));
		g->shift[j] = (int32_t)harness_range(seed, -12, -6);
	}
	g->p.bias = g->bias;
	if (quant) {
		g->p.quant_channels = n;
		g->p.multiplier = g->mult;
		g->p.shift = g->shift;
		g->p.out_zero_point = 3;
		if (lut) {
			for (size_t i = 0; i < 256; i++)
				g->lut[i] = (int8_t)harness_range(seed, -128, 127);
			g->p.lut = g->lut;
		}
	}
}

static void run_gemm(tpu_dev *dev, const struct gemm_case *g, void *out)
{
	int err = tpu_gemm(dev, g->m, g->k, g->n, g->a, g->b, &g->p, out);
	ck_assert_msg(err == 0, "gemm %zux%zux%zu: %s (%s)", g->m, g->k, g->n, tpu_strerror(err),
		      tpu_gemm_last_error(dev));
}

static void check_gemm(tpu_dev *dev, tpu_dev *gold, uint64_t *seed, size_t m, size_t k, size_t n,
		       bool quant, bool lut)
{
	struct gemm_case g;
	size_t bytes = m * n * (quant ? 1 : 4);
	uint8_t *x = malloc(bytes), *y = malloc(bytes);

	ck_assert(x && y);
	make_case(&g, seed, m, k, n, quant, lut);
	run_gemm(gold, &g, x);
	memset(y, 0xCD, bytes);
	run_gemm(dev, &g, y);
	ck_assert_msg(!memcmp(x, y, bytes), "gemm %zux%zux%zu quant=%d lut=%d differs from golden",
		      m, k, n, quant, lut);
	free(g.a);
	free(g.b);
	free(x);
	free(y);
}

/* Submits one command and waits for its completion: 1, or a negative error. */
static int run1(tpu_dev *dev, struct tpu_cmd *c, struct tpu_cpl *out)
{
	ck_assert_int_eq(tpu_submit(dev, 0, c, 1), 1);
	return tpu_wait(dev, 0, out, 1, 1, 20000);
}

START_TEST(info_over_uart)
{
	struct tpu_info in;
	tpu_dev *dev;

	if (!have_board())
		return;
	dev = open_dev(SIM_URI);
	ck_assert_int_eq(tpu_get_info(dev, &in), 0);
	ck_assert_uint_eq(in.array_n, 4);
	ck_assert_uint_eq(in.num_queues, 1);
	ck_assert_str_eq(in.backend, "uart-sim");
	ck_assert_ptr_nonnull(tpu_backend_uart_sim_of(dev));
	/* the board leaves the optional STREAM_MATMUL out (tpu_board_top: StreamMm = 0) */
	ck_assert_uint_eq(in.opcodes, (1u << TPU_OP_STREAM_MATMUL) - 1u);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* A STREAM_MATMUL on the board fails with INVALID_OPCODE (spec 6.11, step 1) and the device
 * goes on. */
START_TEST(stream_matmul_not_on_board)
{
	struct tpu_cmd c;
	struct tpu_cpl cpl;
	tpu_dev *dev;
	tpu_buf *b;
	uint8_t *p;

	if (!have_board())
		return;
	dev = open_dev(SIM_URI);
	ck_assert_int_eq(tpu_buf_alloc(dev, 256, &b), 0);
	p = tpu_buf_ptr(b);
	for (unsigned i = 0; i < 256; i++)
		p[i] = (uint8_t)(i * 11 + 3);
	ck_assert_int_eq(tpu_cmd_stream_matmul(&c, b, 0, 0, 4, 4, 1, 0, 1, 0, 0, 0), 0);
	ck_assert_int_eq(run1(dev, &c, &cpl), 1);
	ck_assert_uint_eq(cpl.status, TPU_STATUS(TPU_SC_INVALID_OPCODE, 0));
	ck_assert_int_eq(tpu_cmd_read_host(&c, b, 0, 0, 0, 4, 4), 0);
	ck_assert_int_eq(run1(dev, &c, &cpl), 1);
	ck_assert_uint_eq(cpl.status, 0);
	ck_assert_int_eq(tpu_cmd_write_host(&c, b, 128, 0, 0, 4, 4, 0), 0);
	ck_assert_int_eq(run1(dev, &c, &cpl), 1);
	ck_assert_uint_eq(cpl.status, 0);
	ck_assert_mem_eq(p + 128, p, 16);
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

START_TEST(gemm_bit_exact)
{
	static const size_t shapes[][3] = { { 4, 4, 4 }, { 5, 7, 6 }, { 9, 3, 5 }, { 2, 11, 8 } };
	uint64_t seed = harness_seed() ^ 0x474d4d55ull;
	struct tpu_uart_stats st;
	tpu_dev *dev, *gold;

	if (!have_board())
		return;
	dev = open_dev(SIM_URI);
	gold = open_dev(GOLDEN_URI);
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		check_gemm(dev, gold, &seed, shapes[i][0], shapes[i][1], shapes[i][2], i & 1, i == 3);
	ck_assert_int_eq(tpu_backend_uart_stats(dev, &st), 0);
	ck_assert_uint_eq(st.frames_bad, 0);
	ck_assert_uint_eq(st.mmio_lost, 0);
	ck_assert_uint_eq(st.mmio_retries, 0);
	ck_assert_uint_eq(st.protocol_errors, 0);
	ck_assert_uint_eq(st.mem_refused, 0);
	ck_assert_uint_gt(st.mrd, 0);
	ck_assert_uint_gt(st.mwr, 0);
	ck_assert_int_eq(tpu_close(dev), 0);
	ck_assert_int_eq(tpu_close(gold), 0);
}
END_TEST

/* ------------------------------------------------------------------ error paths */

START_TEST(window_violation_status)
{
	struct tpu_cmd c;
	struct tpu_cpl cpl;
	tpu_dev *dev;
	tpu_buf *b;
	uint8_t *p, before[512];

	if (!have_board())
		return;
	dev = open_dev(SIM_URI);
	ck_assert_int_eq(tpu_buf_alloc(dev, 512, &b), 0);
	p = tpu_buf_ptr(b);
	for (unsigned i = 0; i < 512; i++)
		p[i] = (uint8_t)(i * 7 + 1);
	ck_assert_int_eq(tpu_window_set(dev, 1, tpu_buf_iova(b) + 128, 128,
					TPU_WIN_R | TPU_WIN_W), 0);
	ck_assert_int_eq(tpu_window_set(dev, 0, 0, 0, 0), 0);
	/* inside: 4 rows of 4 bytes read, then written back 32 bytes further */
	ck_assert_int_eq(tpu_cmd_read_host(&c, b, 128, 0, 0, 4, 4), 0);
	ck_assert_int_eq(run1(dev, &c, &cpl), 1);
	ck_assert_uint_eq(cpl.status, 0);
	ck_assert_int_eq(tpu_cmd_write_host(&c, b, 160, 0, 0, 4, 4, 0), 0);
	ck_assert_int_eq(run1(dev, &c, &cpl), 1);
	ck_assert_uint_eq(cpl.status, 0);
	ck_assert_mem_eq(p + 160, p + 128, 16);
	memcpy(before, p, sizeof(before));
	/* one byte past the window's end */
	ck_assert_int_eq(tpu_cmd_write_host(&c, b, 241, 0, 0, 4, 4, 0), 0);
	ck_assert_int_eq(run1(dev, &c, &cpl), 1);
	ck_assert_uint_eq(cpl.status, TPU_STATUS(TPU_SC_DMA_ACCESS_VIOLATION, 0));
	ck_assert_int_eq(tpu_cmd_read_host(&c, b, 127, 0, 0, 4, 4), 0);
	ck_assert_int_eq(run1(dev, &c, &cpl), 1);
	ck_assert_uint_eq(cpl.status, TPU_STATUS(TPU_SC_DMA_ACCESS_VIOLATION, 0));
	ck_assert_mem_eq(p, before, sizeof(before));
	ck_assert_int_eq(tpu_close(dev), 0);
}
END_TEST

/* A READ_HOST of 8 rows then a WRITE_HOST of them elsewhere with one line fault placed at
 * offset `at` bytes into direction dir after the device is open. Returns the READ_HOST's
 * status (0 or a device status) or a negative error; on success the copy must be exact. */
static int faulted_copy(enum tpu_uart_dir dir, enum tpu_uart_fault_kind kind, uint64_t at,
			struct tpu_uart_stats *st)
{
	struct tpu_uart_fault f = { dir, kind, 0, 0x10 };
	struct tpu_uart_sim *s;
	struct tpu_cmd c;
	struct tpu_cpl cpl;
	tpu_dev *dev = open_dev(SIM_URI);
	tpu_buf *b;
	uint8_t *p;
	int ret;

	s = tpu_backend_uart_sim_of(dev);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(tpu_buf_alloc(dev, 256, &b), 0);
	p = tpu_buf_ptr(b);
	for (unsigned i = 0; i < 256; i++)
		p[i] = (uint8_t)(i * 13 + 5);
	f.nth = tpu_uart_sim_bytes(s, dir) + at;
	ck_assert_int_eq(tpu_uart_sim_add_fault(s, &f), 0);
	ck_assert_int_eq(tpu_cmd_read_host(&c, b, 0, 0, 0, 8, 4), 0);
	ret = run1(dev, &c, &cpl);
	if (ret == 1)
		ret = cpl.status;
	else if (ret >= 0)
		ret = -ETIMEDOUT;
	if (ret < 0) {
		/* loud failure (an SQE fetch lost: controller fatal): the reset ladder recovers */
		ck_assert_int_eq(tpu_reset(dev), 0);
		ck_assert_int_eq(tpu_wait(dev, 0, &cpl, 1, 1, 1000), 1);
		ck_assert_uint_eq(cpl.status, TPU_STATUS(TPU_SC_ABORTED_RESET, 0));
		ck_assert_int_eq(tpu_cmd_read_host(&c, b, 0, 0, 0, 8, 4), 0);
		ck_assert_int_eq(run1(dev, &c, &cpl), 1);
		ck_assert_uint_eq(cpl.status, 0);
	}
	if (ret == 0) {
		ck_assert_int_eq(tpu_cmd_write_host(&c, b, 128, 0, 0, 8, 4, 0), 0);
		ck_assert_int_eq(run1(dev, &c, &cpl), 1);
		ck_assert_uint_eq(cpl.status, 0);
		ck_assert_mem_eq(p + 128, p, 32);
	}
	ck_assert_uint_eq(tpu_uart_sim_faults_fired(s), 1);
	ck_assert_int_eq(tpu_backend_uart_stats(dev, st), 0);
	ck_assert_int_eq(tpu_close(dev), 0);
	return ret;
}

/* Bytes of direction dir that the READ_HOST of faulted_copy takes, submit to completion,
 * without a fault: faults placed within them hit that command (its SQE fetch, its data, the
 * MMIO of the submit and the wait), not the WRITE_HOST after it. */
static uint64_t read_run_bytes(enum tpu_uart_dir dir)
{
	struct tpu_cmd c;
	struct tpu_cpl cpl;
	tpu_dev *dev = open_dev(SIM_URI);
	struct tpu_uart_sim *s = tpu_backend_uart_sim_of(dev);
	tpu_buf *b;
	uint64_t before;

	ck_assert_int_eq(tpu_buf_alloc(dev, 256, &b), 0);
	ck_assert_int_eq(tpu_cmd_read_host(&c, b, 0, 0, 0, 8, 4), 0);
	before = tpu_uart_sim_bytes(s, dir);
	ck_assert_int_eq(run1(dev, &c, &cpl), 1);
	ck_assert_uint_eq(cpl.status, 0);
	before = tpu_uart_sim_bytes(s, dir) - before;
	ck_assert_int_eq(tpu_close(dev), 0);
	return before;
}

/* Device -> host frames are repeated until acknowledged: every fault is recovered. */
START_TEST(d2h_faults_recovered)
{
	uint64_t seed = harness_seed() ^ 0x44324855ull, bad = 0;

	if (!have_board())
		return;
	for (int i = 0; i < 6; i++) {
		struct tpu_uart_stats st;
		uint64_t at = (uint64_t)harness_range(&seed, 1, 160);
		enum tpu_uart_fault_kind k = i & 1 ? TPU_UART_FAULT_DROP : TPU_UART_FAULT_FLIP;
		int r = faulted_copy(TPU_UART_D2H, k, at, &st);

		ck_assert_msg(r == 0, "d2h %s at +%llu: %d", k ? "flip" : "drop",
			      (unsigned long long)at, r);
		ck_assert_uint_eq(st.mmio_lost, 0);
		bad += st.frames_bad;
	}
	ck_assert_uint_gt(bad, 0);
}
END_TEST

/* Host -> device: a lost ACK or MMIO request is repeated; a lost completion becomes the DMA
 * transfer error of the command that needed it, or (an SQE fetch) a controller fatal error that
 * tpu_reset clears. Never success with wrong data, never a hang. */
START_TEST(h2d_faults_detected)
{
	uint64_t seed = harness_seed() ^ 0x48324455ull, t0 = now_ms(), span;
	unsigned ok = 0, xfer_err = 0, fatal = 0;

	if (!have_board())
		return;
	span = read_run_bytes(TPU_UART_H2D);
	for (int i = 0; i < 10; i++) {
		struct tpu_uart_stats st;
		uint64_t at = (uint64_t)harness_range(&seed, 1, (int64_t)span);
		enum tpu_uart_fault_kind k = i & 1 ? TPU_UART_FAULT_DROP : TPU_UART_FAULT_FLIP;
		int r = faulted_copy(TPU_UART_H2D, k, at, &st);

		ck_assert_msg(r == 0 || r == TPU_STATUS(TPU_SC_DMA_XFER_ERROR, 0) || r == -EIO,
			      "h2d %s at +%llu: %d (%s)", k ? "flip" : "drop",
			      (unsigned long long)at, r, tpu_strerror(r));
		ok += r == 0;
		xfer_err += r > 0;
		fatal += r < 0;
	}
	fprintf(stderr, "uart h2d faults: %u recovered, %u DMA transfer errors, %u fatal+reset, "
		"%llu ms\n", ok, xfer_err, fatal, (unsigned long long)(now_ms() - t0));
}
END_TEST

/* ------------------------------------------------------------------ URIs, silent boards */

START_TEST(uri_errors)
{
	static const struct {
		const char *uri;
		int err;
		const char *msg;
		bool board;
	} cases[] = {
		{ "uart", -EINVAL, "needs a device path", false },
		{ "uart:", -EINVAL, "needs a device path", false },
		{ "uart:,timeout=5", -EINVAL, "needs a device path", false },
		{ "uart:/dev/null@12345", -EINVAL, "baud '12345' (supported: 9600", false },
		{ "uart:/dev/null@", -EINVAL, "baud ''", false },
		{ "uart:@115200", -EINVAL, "PATH is empty", false },
		{ "uart:/nonexistent/ttyUSB9", -EINVAL, "cannot open", false },
		{ "uart:/dev/null,timeout=0", -EINVAL, "timeout (milliseconds, 1..60000)", false },
		{ "uart:/dev/null,timeout=x", -EINVAL, "timeout", false },
		{ "uart:/dev/null,retries=101", -EINVAL, "retries (0..100)", false },
		{ "uart:/dev/null,n=4", -EINVAL, "configuration is fixed", false },
		{ "uart:/dev/null,bogus=1", -EINVAL, "'bogus=1'", false },
		{ "uart:/dev/null,seed=3", -EINVAL, "'seed=3'", false },
		{ "uart-sim:n=32", -EINVAL, "built boards: n=4", true },
		{ "uart-sim:ub_rows=64", -EINVAL, "fixed by its build", true },
		{ "uart-sim:faults=x2d_drop@1", -EINVAL, "faults (RULE", true },
		{ "uart-sim:faults=h2d_drop@0", -EINVAL, "faults", true },
		{ "uart-sim:faults=h2d_drop@3^ff", -EINVAL, "faults", true },
		{ "uart-sim:path=/dev/null", -EINVAL, "'path=/dev/null'", true },
		{ "uartx:/dev/null", -ENOENT, "known: golden, sim, uart, uart-sim", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tpu_dev *dev = NULL;
		int err;

		if (cases[i].board && !have_board())
			continue;
		err = tpu_open(cases[i].uri, &dev);
		ck_assert_msg(err == cases[i].err, "%s: %d (%s)", cases[i].uri, err,
			      tpu_last_open_error());
		ck_assert_ptr_null(dev);
		ck_assert_msg(strstr(tpu_last_open_error(), cases[i].msg), "%s: message '%s'",
			      cases[i].uri, tpu_last_open_error());
	}
}
END_TEST

/* A pseudo-terminal pair, or -1 after a note when the system has none (a minimal container
 * without /dev/pts mounted): the caller then skips. */
static int open_pty(const char *test, char *slave, size_t len)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY);
	const char *name;

	if (m < 0 || grantpt(m) || unlockpt(m) || !(name = ptsname(m)) || access(name, F_OK)) {
		fprintf(stderr, "note: %s: no pseudo-terminal (%s; is /dev/pts mounted?): skipped\n",
			test, strerror(errno));
		if (m >= 0)
			close(m);
		return -1;
	}
	snprintf(slave, len, "%s", name);
	return m;
}

START_TEST(silent_board_enodev)
{
	char slave[128], uri[200];
	tpu_dev *dev = NULL;
	uint64_t t0;
	int m = open_pty("silent_board_enodev", slave, sizeof(slave)), err;

	if (m < 0)
		return;
	snprintf(uri, sizeof(uri), "uart:%s@115200,timeout=20,retries=1", slave);
	t0 = now_ms();
	err = tpu_open(uri, &dev);
	ck_assert_int_eq(err, -ENODEV);
	ck_assert_ptr_null(dev);
	ck_assert_msg(strstr(tpu_last_open_error(), "no tpu answers"), "%s",
		      tpu_last_open_error());
	/* two tries of the ID read, then one of the disable write */
	ck_assert_uint_lt(now_ms() - t0, 2000);
	/* /dev/null: end of file at once */
	err = tpu_open("uart:/dev/null,timeout=5,retries=0", &dev);
	ck_assert_int_eq(err, -ENODEV);
	close(m);
}
END_TEST

/* The board on the master side of a pseudo-terminal, clocked by a thread. */
struct served {
	const struct tpu_uart_board_model *m;
	void *h;
	int fd;
	atomic_int stop;
	int err;
};

static void *serve(void *arg)
{
	struct served *sv = arg;
	uint8_t in[256], out[256];

	while (!atomic_load(&sv->stop)) {
		ssize_t r = read(sv->fd, in, sizeof(in));
		uint64_t left = 2000;
		size_t n = 0;

		if (r > 0 && sv->m->send(sv->h, in, (size_t)r))
			sv->err = -ENOMEM;
		while (left && n < sizeof(out)) {
			uint64_t ran = 0;
			uint8_t c;
			int g = sv->m->run(sv->h, left, &c, &ran);
			left -= ran < left ? ran : left;
			if (g < 0)
				sv->err = g;
			if (g != 1)
				break;
			out[n++] = c;
		}
		for (size_t o = 0; o < n;) {
			ssize_t w = write(sv->fd, out + o, n - o);
			if (w > 0)
				o += (size_t)w;
			else if (atomic_load(&sv->stop))
				break;
		}
	}
	return NULL;
}

START_TEST(tty_path_with_board)
{
	const struct tpu_uart_board_model *list[2];
	struct served sv = { 0 };
	char slave[128], uri[200];
	uint64_t seed = harness_seed() ^ 0x50545955ull;
	pthread_t th;
	tpu_dev *dev, *gold;

	if (!have_board())
		return;
	ck_assert_uint_ge(tpu_uart_boards(list, 2), 1);
	sv.m = list[0];
	ck_assert_int_eq(sv.m->create(7, &sv.h), 0);
	sv.fd = open_pty("tty_path_with_board", slave, sizeof(slave));
	if (sv.fd < 0) {
		sv.m->destroy(sv.h);
		return;
	}
	ck_assert_int_eq(fcntl(sv.fd, F_SETFL, fcntl(sv.fd, F_GETFL) | O_NONBLOCK), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, serve, &sv), 0);
	snprintf(uri, sizeof(uri), "uart:%s@1000000,mem=1M", slave);
	dev = open_dev(uri);
	gold = open_dev(GOLDEN_URI);
	check_gemm(dev, gold, &seed, 5, 6, 7, true, false);
	ck_assert_int_eq(tpu_close(dev), 0);
	ck_assert_int_eq(tpu_close(gold), 0);
	atomic_store(&sv.stop, 1);
	pthread_join(th, NULL);
	ck_assert_int_eq(sv.err, 0);
	close(sv.fd);
	sv.m->destroy(sv.h);
}
END_TEST

static Suite *uart_sim_suite(void)
{
	Suite *s = suite_create("uart_sim");
	TCase *tc = tcase_create("board");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, uri_errors);
	tcase_add_test(tc, silent_board_enodev);
	tcase_add_test(tc, info_over_uart);
	tcase_add_test(tc, stream_matmul_not_on_board);
	tcase_add_test(tc, gemm_bit_exact);
	tcase_add_test(tc, window_violation_status);
	tcase_add_test(tc, d2h_faults_recovered);
	tcase_add_test(tc, h2d_faults_detected);
	tcase_add_test(tc, tty_path_with_board);
	suite_add_tcase(s, tc);
	return s;
}
TPU_TEST_SUITE(uart_sim_suite)
