/* A small C stand-in for the device side of the link (docs/link.md), for testing the link model
 * without the RTL: a register file answering MMIO reads after a fixed delay, and a script of
 * DMA operations (MRD / MWR / MSI) it issues in order, respecting the tag limit and the
 * valid/ready rules. It can be told to misbehave (keep issuing after a disable). */
#ifndef TPU_TESTS_LINK_STANDIN_H
#define TPU_TESTS_LINK_STANDIN_H

#include <stdbool.h>
#include <stdint.h>

#include "link.h"
#include "sim_model.h"

#define STANDIN_MAX_OPS 64u
#define STANDIN_REGS 1024u

struct standin_op {
	int kind;       /* TPU_LINK_MRD/MWR/MSI */
	uint64_t addr;
	uint32_t len;
	uint8_t data[4096]; /* MWR payload, MRD result, MSI data in [0..3] */
	/* results */
	bool issued, done;
	int status;         /* MRD: completion status */
	uint32_t got;       /* MRD: bytes received */
	uint64_t issue_cycle, done_cycle;
	unsigned beats_seen;
	bool beat_error;    /* a beat arrived out of order or with a wrong last flag */
};

struct standin {
	uint32_t regs[STANDIN_REGS];
	unsigned rd_delay;         /* cycles from mreq to mcpl */
	unsigned link_bytes, tags;
	bool ignore_disable;       /* misbehave: keep issuing after CC.EN = 0 */
	bool stopped;              /* saw CC.EN 1 -> 0 or RESET */
	unsigned hcpl_ready_ppm;   /* probability of hcpl_ready per cycle (1000000 = always) */
	uint64_t rng;
	uint64_t cycle;
	struct standin_op ops[STANDIN_MAX_OPS];
	unsigned nops, next;       /* ops queued, next to issue */
	unsigned beat;             /* beat of the op being issued */
	int tag_op[256];           /* op index holding each tag, or -1 */
	unsigned tags_used;
	/* pending MMIO read responses */
	struct { uint8_t tag; uint32_t val; uint64_t ready; } rsp[64];
	unsigned rsp_head, rsp_n;
};

void standin_init(struct standin *s, unsigned link_bytes, unsigned tags, uint64_t seed);
/* Queue a DMA op; returns its index. */
unsigned standin_mrd(struct standin *s, uint64_t addr, uint32_t len);
unsigned standin_mwr(struct standin *s, uint64_t addr, const void *data, uint32_t len);
unsigned standin_msi(struct standin *s, uint64_t addr, uint32_t data);
/* One cycle, same contract as tpu_sim_model.step. */
void standin_step(struct standin *s, int rst, const struct tpu_link_in *in,
		  struct tpu_link_out *out);
bool standin_all_done(const struct standin *s);

/* A tpu_sim_model around a stand-in (array_n 4, the usual link parameters); its handle is a
 * struct standin * (tpu_sim_model_handle). */
extern const struct tpu_sim_model standin_model;

/* Run the link and stand-in together for n cycles (or until every op is done, when
 * until_done). Returns cycles run. */
uint64_t standin_run(struct tpu_link *l, struct standin *s, uint64_t n, bool until_done);

#endif
