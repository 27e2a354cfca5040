/* Thin C API over the Verilated activation unit (rtl/act/tpu_act_unit.sv) and RAM (rtl/common/tpu_ram.sv)
 * models used by the RTL unit tests (tests/rtl/). One model per parameter set, each built with its
 * own Verilator --prefix so that several link into one binary; each exposes an ops table.
 *
 * Cycle protocol: poke() sets every input (clock low) and evaluates, so peek() then shows the
 * combinational outputs of this cycle (in_ready_o); tick() is one rising clock edge. A transfer
 * happens in a cycle when valid && ready as peeked before its tick().
 * tick() returns 0, or -1 once an RTL assertion has failed (the model keeps running).
 * Not thread-safe per handle; handles are independent. */
#ifndef TPU_SIM_VACT_H
#define TPU_SIM_VACT_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TPU_VACT_MAX_N 256

struct tpu_vact_in {
	bool rst;
	/* parameter write port */
	bool wr_valid;
	uint8_t wr_kind; /* TPU_PARAM_* / tpu_pkg::param_kind_e */
	uint8_t wr_index;
	uint32_t wr_data;
	/* input stream */
	bool in_valid;
	bool in_raw;
	bool in_lut;
	bool in_last;
	int32_t acc[TPU_VACT_MAX_N];
	/* output stream */
	bool out_ready;
};

struct tpu_vact_out {
	bool in_ready;
	bool out_valid;
	bool out_last;
	uint32_t out_sat;
	uint8_t loaded;
	int8_t out_int8[TPU_VACT_MAX_N];
	int32_t out_raw[TPU_VACT_MAX_N];
};

struct tpu_vact;

struct tpu_vact_ops {
	const char *name;
	unsigned n;        /* the model's N */
	/* Creates the model with +verilator+rand+reset+2 and +verilator+seed+<from seed> (printed);
	 * NULL on allocation failure. */
	struct tpu_vact *(*create)(uint64_t seed);
	void (*destroy)(struct tpu_vact *h);
	void (*poke)(struct tpu_vact *h, const struct tpu_vact_in *in);
	void (*peek)(struct tpu_vact *h, struct tpu_vact_out *out);
	int (*tick)(struct tpu_vact *h);
	/* ActLanes of a model built with ActLanes < N (the multi-cycle tpu_act_serial, one row
	 * at a time); 0 for the pipelined tpu_activation */
	unsigned lanes;
	/* cycles per group the serial unit waits for its channel parameters (ParOutReg: 1) */
	unsigned par_wait;
	/* 1: built with Round (the SINGLE and FLOAT roundings); 0: DOUBLE only */
	unsigned round;
};

extern const struct tpu_vact_ops tpu_vact_n4_ops;
extern const struct tpu_vact_ops tpu_vact_n6_ops;
extern const struct tpu_vact_ops tpu_vact_n8_ops;
extern const struct tpu_vact_ops tpu_vact_n16_ops;
extern const struct tpu_vact_ops tpu_vact_n4_l1_ops; /* N = 4, ActLanes = 1 (serial) */
extern const struct tpu_vact_ops tpu_vact_n8_l2_ops; /* N = 8, ActLanes = 2 (serial) */
/* N = 4, ActLanes = 1 (serial) with the board options LutReg + ParOutReg */
extern const struct tpu_vact_ops tpu_vact_n4_l1p_ops;

/* tpu_ram models: same protocol, ports as the module. */
struct tpu_vram;
struct tpu_vram_ops {
	const char *name;
	unsigned width, depth;
	struct tpu_vram *(*create)(uint64_t seed);
	void (*destroy)(struct tpu_vram *h);
	void (*poke)(struct tpu_vram *h, bool we, uint32_t waddr, uint64_t wdata, bool re,
		     uint32_t raddr);
	uint64_t (*peek)(struct tpu_vram *h); /* rdata_o */
	int (*tick)(struct tpu_vram *h);
};

extern const struct tpu_vram_ops tpu_vram_w8d256_ops;
extern const struct tpu_vram_ops tpu_vram_w37d100_ops;

#ifdef __cplusplus
}
#endif
#endif /* TPU_SIM_VACT_H */
