/* Private state of libtpu: the device, its buffers and its queues. Only the driver sources include it.
 * Nothing here is thread-safe; the public API serialises per device (see tpu.h). */
#ifndef TPU_DRIVER_INTERNAL_H
#define TPU_DRIVER_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "hostmem.h"
#include "tpu/tpu.h"

/* Buffer handles stay readable after tpu_buf_free (they move to a per-device graveyard of this
 * many entries) so that a double free is caught instead of touching freed memory. */
#define TPU_BUF_MAGIC_LIVE 0x6275666cu /* "lfub" */
#define TPU_BUF_MAGIC_DEAD 0x64656164u /* "daed" */
#define TPU_BUF_GRAVEYARD 1024u

/* Default and bounds of the driver options (URI). */
#define TPU_QDEPTH_DEFAULT 256u
#define TPU_MEM_DEFAULT (64ull << 20)
#define TPU_MEM_MIN (64ull << 10)
#define TPU_MEM_MAX (4ull << 30)

/* Bounded waits of the controller itself (enable, disable, reset). */
#define TPU_CTRL_TIMEOUT_MS 2000
/* A window write waits for the commands before it (spec §5): each is bounded by the watchdog,
 * and a queue holds at most a few thousand. */
#define TPU_WINDOW_TIMEOUT_MS 60000

struct tpu_buf {
	uint32_t magic;
	unsigned refs; /* outstanding commands whose DMA lies in this buffer */
	struct tpu_dev *dev;
	void *ptr;
	uint64_t iova;
	size_t len;
	struct tpu_buf *prev, *next; /* live list, or graveyard FIFO (next only) */
};

enum tpu_cid_state {
	TPU_CID_FREE = 0,
	TPU_CID_INFLIGHT, /* in the SQ or on the device */
	TPU_CID_DONE,     /* completion in the stash, not yet handed to the caller */
};

struct tpu_cid_rec {
	uint8_t state;
	uint8_t opcode;
	uint8_t flags; /* the command's FLAGS (TPU_SQE_FLAG_*) */
	uint64_t seq; /* submission order */
	uint32_t op0;
	uint32_t user_tag;
	struct tpu_buf *buf;  /* buffer holding the command's DMA span, or NULL */
	struct tpu_buf *buf2; /* STREAM_MATMUL with WRITE_BACK: the write-back span's, or NULL */
};

struct tpu_queue {
	uint32_t depth; /* SQ and CQ entries */
	uint64_t sq_iova, cq_iova;
	uint8_t *sq, *cq;
	uint32_t sq_tail;  /* next SQ slot the host writes */
	uint32_t inflight; /* submitted, no CQE yet (each holds an SQ slot, conservatively) */
	uint32_t cq_head;  /* next CQ entry the host reads */
	uint32_t phase;    /* phase a new CQE at cq_head carries */
	uint32_t cid_space;
	uint32_t cid_next;
	uint32_t cids_used;
	uint64_t seq;
	struct tpu_cid_rec *rec; /* indexed by CID */
	struct tpu_cpl *stash;   /* completions reaped from the CQ, oldest first */
	uint32_t stash_n;
};

struct tpu_window {
	uint64_t base, len;
	unsigned perm;
};

struct tpu_dev {
	const struct tpu_backend_ops *ops;
	void *impl;
	struct hostmem *hm;
	struct tpu_info info;
	struct tpu_queue q[TPU_NUM_QUEUES_MAX];
	struct tpu_window win[TPU_NUM_WINDOWS_MAX];
	struct tpu_buf *bufs; /* live buffers */
	struct tpu_buf *grave_head, *grave_tail;
	unsigned grave_n;
	uint64_t bogus;
	uint32_t fifo_occ; /* weight tiles in the FIFO, from the completions seen */
	/* their types, head first: bit i set when tile i (0 = the head) is bf16 (FLAGS.BF16 on
	 * its LOAD_WEIGHTS; a MATMUL that pops it must carry the same flag, docs/spec.md 6.12) */
	uint64_t fifo_bf16[4];
	char gemm_err[192];
	char ops_err[192]; /* tpu_ops_last_error(): why the last ops call was rejected */
};

/* Parsed device URI (uri.c). */
struct tpu_uri {
	const struct tpu_backend_ops *ops;
	struct tpu_backend_opts bopts;
	uint32_t qdepth;
	bool qdepth_set;
	uint64_t mem;
	char extra[256];
};

/* Parse uri into *out. Returns 0, -ENOENT (unknown backend) or -EINVAL; msg gets the reason. */
int tpu_uri_parse(const char *uri, struct tpu_uri *out, char *msg, size_t msglen);

/* dev.c */
uint32_t tpu_rd(tpu_dev *dev, uint32_t off);
void tpu_wr(tpu_dev *dev, uint32_t off, uint32_t val);
/* 0 when the device answers with its ID, else -ENODEV. */
int tpu_dev_present(tpu_dev *dev);
/* Poll CSTS until (CSTS & mask) == want, letting the backend run. 0, -ETIMEDOUT, -ENODEV. */
int tpu_dev_wait_csts(tpu_dev *dev, uint32_t mask, uint32_t want, int timeout_ms);
/* Program windows and queues from the driver's state (device disabled), reset the host queue
 * pointers, zero the CQs, set CC.EN and wait for RDY. 0, -ETIMEDOUT, -ENODEV. */
int tpu_dev_enable(tpu_dev *dev);
/* Milliseconds of a monotonic clock. */
uint64_t tpu_now_ms(void);
/* Let the backend run; sleeps a little when it reports idle so waits do not spin hot. */
int tpu_dev_advance(tpu_dev *dev, bool sleep_if_idle);

/* window.c */
/* Write shadow window idx to the device and wait until the update is in effect. 0, -ETIMEDOUT,
 * -ENODEV. */
int tpu_window_program(tpu_dev *dev, unsigned idx);

/* buf.c */
/* The live buffer of dev that holds [iova, iova + len) (len 0: just iova), or NULL. */
struct tpu_buf *tpu_buf_find(tpu_dev *dev, uint64_t iova, uint64_t len);
bool tpu_buf_is_live(const tpu_buf *buf);
void tpu_buf_free_all(tpu_dev *dev);

/* queue.c */
int tpu_queue_init(tpu_dev *dev, unsigned q, uint32_t depth);
void tpu_queue_fini(tpu_dev *dev, unsigned q);
/* Host pointers back to an empty ring (after enable). */
void tpu_queue_rewind(tpu_dev *dev, unsigned q);
/* Move every in-flight command to the stash as ABORTED_RESET (in submission order). */
void tpu_queue_abort_inflight(tpu_dev *dev, unsigned q);
/* Submit without argument checks beyond slots and CIDs. n, -EAGAIN, -EIO, -ENODEV. */
int tpu_queue_submit(tpu_dev *dev, unsigned q, struct tpu_cmd *cmds, unsigned n);
/* Move every posted CQE into the stash. Count moved, or -ENODEV. */
int tpu_queue_reap(tpu_dev *dev, unsigned q);
/* Take the stashed completion of cid, if there. 1 found, 0 not. */
int tpu_queue_take(tpu_dev *dev, unsigned q, uint16_t cid, struct tpu_cpl *out);
/* -EIO when the controller is fatal or the queue broken, -ENODEV when gone, else 0. */
int tpu_queue_health(tpu_dev *dev, unsigned q);
/* Submit n commands on q (in slot-sized batches) and wait for each; out (may be NULL) gets the
 * completions in order. Stops submitting after the first failure. Returns 0, the first failing
 * status, or -errno; *submitted (may be NULL) = commands submitted. */
int tpu_queue_run(tpu_dev *dev, unsigned q, struct tpu_cmd *cmds, size_t n, struct tpu_cpl *out,
		  int timeout_ms, size_t *submitted);
/* Free SQ slots on q. */
uint32_t tpu_queue_free_slots(const tpu_dev *dev, unsigned q);

#endif /* TPU_DRIVER_INTERNAL_H */
