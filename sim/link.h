/* The host side of the link (docs/link.md) as a cycle-driven C model: it answers the device's
 * dreq packets from host memory (MRD -> hcpl completions, MWR -> posted writes in order, MSI ->
 * an interrupt event), carries the host's MMIO requests (mreq) to the device and collects the
 * read completions (mcpl).
 *
 * Time: the device clock drives everything. One call of tpu_link_drive + tpu_link_commit is one
 * device cycle; simulated time is cycles x clock_ps picoseconds. Latency and bandwidth are
 * applied in picoseconds, so they are independent of the device clock.
 *
 * Per cycle (the same contract as the Verilated harnesses, sim/verilated/tpu_vmodels.h):
 *   tpu_link_drive(l, &in)     the signals the host drives into the device this cycle
 *   model step(in) -> out      inputs applied with the clock low, outputs sampled, rising edge
 *   tpu_link_commit(l, &in, &out)  handshakes (valid && ready) take effect; time advances
 *
 * Determinism: the model draws every random decision (fault triggers, completion reordering,
 * jitter) from PRNG streams seeded by cfg.seed, and nothing depends on wall time or addresses
 * of host objects, so the same seed and configuration give the same run cycle for cycle; the
 * trace hash (tpu_link_trace_hash) summarises every event to check that (G5).
 *
 * Not thread-safe: one link per device, driven by one thread. */
#ifndef TPU_SIM_LINK_H
#define TPU_SIM_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest beat the model carries (LinkBytes of the device, <= this). */
#define TPU_LINK_BEAT_MAX 64u

/* dreq kinds and hcpl statuses (docs/link.md). */
enum tpu_link_kind { TPU_LINK_MRD = 0, TPU_LINK_MWR = 1, TPU_LINK_MSI = 2 };
enum tpu_link_status { TPU_LINK_OK = 0, TPU_LINK_UR = 1, TPU_LINK_CA = 2, TPU_LINK_POISON = 3 };

/* Signals the host drives into the device in one cycle. */
struct tpu_link_in {
	uint8_t dreq_ready;
	uint8_t hcpl_valid, hcpl_tag, hcpl_status, hcpl_last;
	uint8_t hcpl_data[TPU_LINK_BEAT_MAX];
	uint8_t mreq_valid, mreq_write, mreq_tag;
	uint16_t mreq_addr;
	uint32_t mreq_wdata;
	uint8_t mcpl_ready;
};

/* Signals the device drives, sampled before the rising edge of the same cycle. */
struct tpu_link_out {
	uint8_t dreq_valid, dreq_kind, dreq_tag, dreq_last;
	uint16_t dreq_len;
	uint64_t dreq_addr;
	uint8_t dreq_data[TPU_LINK_BEAT_MAX];
	uint8_t hcpl_ready;
	uint8_t mreq_ready;
	uint8_t mcpl_valid, mcpl_tag;
	uint32_t mcpl_rdata;
};

/* Fault kinds (faults= spec names in brackets). */
enum tpu_link_fault_kind {
	TPU_FAULT_DROP_CPL = 0, /* [drop] an MRD gets no completion: the device times out */
	TPU_FAULT_UR_CPL,       /* [ur] completion with Unsupported Request */
	TPU_FAULT_CA_CPL,       /* [ca] completion with Completer Abort */
	TPU_FAULT_POISON_CPL,   /* [poison] completion with the poisoned status */
	TPU_FAULT_DELAY_CPL,    /* [delay=NS] completion delayed by NS nanoseconds */
	TPU_FAULT_DROP_MSI,     /* [msi_drop] an MSI is lost: not written, not counted */
	TPU_FAULT_DUP_MSI,      /* [msi_dup] an MSI arrives twice */
	TPU_FAULT_ALL_ONES,     /* [allones] surprise removal: from this MMIO read on, every read
				 * returns all-ones, writes vanish, the link carries nothing */
	TPU_FAULT_KINDS
};

/* One fault rule: fires on eligible events (the kind's message type, and, for the completion
 * and MSI kinds, an address inside [lo, hi]) either at exactly the nth one (1-based, once) or
 * with probability ppm / 1e6 each. */
struct tpu_link_fault {
	enum tpu_link_fault_kind kind;
	uint64_t nth;      /* 0 = use ppm */
	uint32_t ppm;      /* 0..1000000 */
	uint64_t lo, hi;   /* address range, inclusive; lo = 0, hi = UINT64_MAX: any */
	uint64_t delay_ns; /* TPU_FAULT_DELAY_CPL */
	uint64_t seen;     /* eligible events so far (state) */
};

#define TPU_LINK_MAX_FAULTS 8u

struct tpu_link_cfg {
	uint32_t clock_ps;        /* device clock period; default 1000 (1 GHz nominal) */
	uint32_t latency_ns;      /* one-way latency, each direction; default 50 */
	uint64_t bw_d2h;          /* device->host bandwidth in bytes per microsecond (1000 =
				   * 1 byte/ns); 0 = unlimited (one beat per cycle); default
				   * 16000 */
	uint64_t bw_h2d;          /* host->device, same unit; default 16000 */
	uint32_t link_bytes;      /* device LinkBytes (data bytes per beat); default 32 */
	uint32_t max_payload;     /* device MaxPayload; default 256 */
	uint32_t max_read_req;    /* device MaxReadReq; default 512 */
	uint32_t tags;            /* device Tags; default 32 */
	bool reorder;             /* completions of different tags may pass each other and
				   * interleave beat by beat (seeded) */
	uint32_t jitter_ns;       /* with reorder: each completion gets 0..jitter_ns extra */
	uint64_t seed;
	uint64_t mmio_timeout_cycles; /* a read without mcpl after this returns all-ones */
	uint32_t reset_grace_cycles;  /* see tpu_link_stats.dma_after_reset */
	/* IOVA of host memory's first byte: addresses in the trace hash are taken relative to it
	 * (host-memory contents are hashed as they are), and so are the ~LO-HI ranges of the
	 * rules in faults[] (offsets into host memory; allones ranges are BAR0 offsets).
	 * 0: absolute. */
	uint64_t addr_base;
	unsigned nfaults;
	struct tpu_link_fault faults[TPU_LINK_MAX_FAULTS];
};

/* Host memory as the link sees it (hostmem_dma_read/write fit). 0, or < 0 to refuse. */
struct tpu_link_mem {
	void *ctx;
	int (*read)(void *ctx, uint64_t iova, void *dst, size_t len);
	int (*write)(void *ctx, uint64_t iova, const void *src, size_t len);
};

struct tpu_link_stats {
	uint64_t cycles;
	uint64_t mrd, mwr, msi;         /* packets handled by the host */
	uint64_t rd_bytes, wr_bytes;
	uint64_t hcpl_beats, dreq_beats;
	uint64_t mmio_reads, mmio_writes, mmio_timeouts;
	uint64_t irqs;                  /* MSIs received (after faults) */
	uint64_t mem_refused;           /* MRD answered UR / MWR dropped by host memory */
	uint64_t faults_fired;
	/* The link-level assertion of G2: dreq packets started by the device more than
	 * reset_grace_cycles after it accepted a CC write clearing EN, a RESET_MAGIC write to
	 * RESET, or answered a CSTS read with RDY = 0 (until the next CC.EN = 1 write). */
	uint64_t dma_after_reset;
	uint64_t protocol_errors;       /* malformed beats, bad tags, 4 KiB crossings, ... */
	uint64_t watch_hits;            /* MWRs that reached host memory in a watched range */
};

/* One logged fault (or assertion) event. */
struct tpu_link_event {
	uint64_t cycle;
	uint64_t ps;
	int kind;      /* enum tpu_link_fault_kind, or -1 for an assertion/protocol error */
	uint64_t addr;
	uint32_t len;
	uint32_t tag;
};

struct tpu_link;

/* Fill cfg with the defaults above (no faults, seed 1). */
void tpu_link_cfg_default(struct tpu_link_cfg *cfg);

/* Parse a fault spec "RULE[+RULE...]" into cfg (appending). RULE is
 *   KIND[=NS][@N][%P][~LO-HI]
 * KIND one of drop ur ca poison delay msi_drop msi_dup allones; =NS only for delay (ns);
 * @N fires at the Nth eligible event (1-based); %P with probability P (decimal 0..1, e.g.
 * 0.05; up to 6 decimals); neither: every eligible event; ~LO-HI limits to addresses in
 * [LO, HI] (decimal or 0x hex). Returns 0 or -EINVAL; *what points at the offending rule. */
int tpu_link_parse_faults(struct tpu_link_cfg *cfg, const char *spec, const char **what);

/* Check cfg (ranges, beat width); 0 or -EINVAL with *what naming the field. */
int tpu_link_cfg_check(const struct tpu_link_cfg *cfg, const char **what);

/* Create a link over mem. Returns 0, -EINVAL (bad cfg), -ENOMEM. */
int tpu_link_create(const struct tpu_link_cfg *cfg, const struct tpu_link_mem *mem,
		    struct tpu_link **out);
void tpu_link_destroy(struct tpu_link *l);

/* Add a fault rule to a running link; its range is absolute IOVAs. 0 or -ENOSPC. */
int tpu_link_add_fault(struct tpu_link *l, const struct tpu_link_fault *f);

/* Log every fault and assertion event as a text line to f (NULL: off). */
void tpu_link_set_log(struct tpu_link *l, FILE *f);

/* ---- per cycle */
void tpu_link_drive(struct tpu_link *l, struct tpu_link_in *in);
void tpu_link_commit(struct tpu_link *l, const struct tpu_link_in *in,
		     const struct tpu_link_out *out);

/* ---- host side */
/* Queue an MMIO write (posted; it reaches the device after the latency). Dropped after a
 * surprise removal. */
void tpu_link_mmio_write(struct tpu_link *l, uint16_t off, uint32_t val);
/* Queue an MMIO read; returns its tag, or -ENODEV after a surprise removal (the caller then
 * reads all-ones). */
int tpu_link_mmio_read_start(struct tpu_link *l, uint16_t off);
/* 1 and *val when the read of tag has completed at the host (its mcpl arrived), else 0. */
int tpu_link_mmio_read_done(struct tpu_link *l, int tag, uint32_t *val);
/* Forget an outstanding read (timed out); a late mcpl for it is then ignored. */
void tpu_link_mmio_read_abandon(struct tpu_link *l, int tag);
bool tpu_link_removed(const struct tpu_link *l);

/* True when nothing is in flight on the link (no packet, completion or MMIO queued). */
bool tpu_link_idle(const struct tpu_link *l);

const struct tpu_link_stats *tpu_link_stats(const struct tpu_link *l);
/* Events logged so far (faults fired, assertion and protocol failures), oldest first. */
size_t tpu_link_events(const struct tpu_link *l, const struct tpu_link_event **ev);
/* 64-bit FNV-1a over every link event (beat handshakes with their cycle and contents, host
 * memory accesses, faults): equal hashes mean identical runs. */
uint64_t tpu_link_trace_hash(const struct tpu_link *l);
uint64_t tpu_link_cycle(const struct tpu_link *l);
/* Watch [lo, hi] (inclusive) in slot (< TPU_LINK_WATCH_SLOTS; lo > hi clears it): every MWR that
 * reaches host memory there counts in tpu_link_stats.watch_hits (a host polling its completion
 * queues there sees it at once). Returns 0 or -EINVAL (slot). */
#define TPU_LINK_WATCH_SLOTS 8u
int tpu_link_watch(struct tpu_link *l, unsigned slot, uint64_t lo, uint64_t hi);
/* Name of a fault kind ("drop", ...), or "?". */
const char *tpu_link_fault_name(int kind);

#ifdef __cplusplus
}
#endif
#endif /* TPU_SIM_LINK_H */
