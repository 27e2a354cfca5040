/* Helpers of the sim tests (sim_fixture.h). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <check.h>

#include "backend.h"
#include "sim_device.h"
#include "sim_fixture.h"

bool sim_have(uint32_t n)
{
	if (tpu_sim_model_find(n, 0))
		return true;
	fprintf(stderr, "note: no Verilated n=%u device model in this build: sim test skipped\n",
		n);
	return false;
}

void sim_counts(tpu_dev *dev, struct sim_counts *out)
{
	struct tpu_sim *s = tpu_backend_sim_of(dev);
	const struct tpu_link_stats *st;

	ck_assert_ptr_nonnull(s);
	st = tpu_link_stats(tpu_sim_link(s));
	out->cycles = tpu_sim_cycles(s);
	out->irqs = st->irqs;
	out->dma_after_reset = st->dma_after_reset;
	out->protocol_errors = st->protocol_errors;
	out->mem_refused = st->mem_refused;
	out->faults_fired = st->faults_fired;
	out->assert_failures = tpu_sim_assert_failures(s);
	out->trace_hash = tpu_link_trace_hash(tpu_sim_link(s));
}

void sim_dump(tpu_dev *dev, const char *why)
{
	struct tpu_sim *s = tpu_backend_sim_of(dev);
	const struct tpu_link_stats *st;
	const struct tpu_link_event *ev;
	size_t n;

	if (!s)
		return;
	st = tpu_link_stats(tpu_sim_link(s));
	n = tpu_link_events(tpu_sim_link(s), &ev);
	fprintf(stderr,
		"sim state (%s): cycle %llu, link %s; mrd %llu mwr %llu msi %llu hcpl beats %llu "
		"dreq beats %llu mmio r/w %llu/%llu timeouts %llu; faults %llu, protocol errors "
		"%llu, dma after reset %llu, %zu events\n",
		why, (unsigned long long)tpu_sim_cycles(s),
		tpu_link_idle(tpu_sim_link(s)) ? "idle" : "busy", (unsigned long long)st->mrd,
		(unsigned long long)st->mwr, (unsigned long long)st->msi,
		(unsigned long long)st->hcpl_beats, (unsigned long long)st->dreq_beats,
		(unsigned long long)st->mmio_reads, (unsigned long long)st->mmio_writes,
		(unsigned long long)st->mmio_timeouts, (unsigned long long)st->faults_fired,
		(unsigned long long)st->protocol_errors, (unsigned long long)st->dma_after_reset, n);
	for (size_t i = n > 8 ? n - 8 : 0; i < n; i++)
		fprintf(stderr, "  event: cycle %llu %s addr 0x%llx len %u tag %u\n",
			(unsigned long long)ev[i].cycle, tpu_link_fault_name(ev[i].kind),
			(unsigned long long)ev[i].addr, ev[i].len, ev[i].tag);
}

uint64_t sim_run_in_child(uint64_t (*fn)(void *arg), void *arg)
{
	int fd[2], status = 0;
	uint64_t v = 0;
	pid_t pid;

	ck_assert_int_eq(pipe(fd), 0);
	fflush(NULL);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fd[0]);
		v = fn(arg);
		if (write(fd[1], &v, sizeof(v)) != (ssize_t)sizeof(v))
			_exit(3);
		_exit(0);
	}
	close(fd[1]);
	ck_assert_int_eq(read(fd[0], &v, sizeof(v)), (ssize_t)sizeof(v));
	close(fd[0]);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return v;
}

void sim_check_link_clean(tpu_dev *dev)
{
	struct sim_counts sc;

	if (!tpu_backend_sim_of(dev))
		return;
	sim_counts(dev, &sc);
	ck_assert_uint_eq(sc.dma_after_reset, 0);
	ck_assert_uint_eq(sc.protocol_errors, 0);
	ck_assert_uint_eq(sc.mem_refused, 0);
	ck_assert_uint_eq(sc.assert_failures, 0);
}
