// tpu_fp_probe: test-only wrapper that exposes the functions of rtl/common/tpu_fp_pkg.sv on
// ports, so tests/rtl/test_mxu_fp.c can check them against the C reference (sw/golden/bf16.c).
`default_nettype none

module tpu_fp_probe (
  input  logic [31:0] a_i,
  input  logic [31:0] b_i,
  input  logic [31:0] c_i,
  output logic [31:0] add_o,   // f32_add(a, b)
  output logic [31:0] mul_o,   // bf16_mul(a[15:0], b[15:0])
  output logic [31:0] mac_o,   // bf16_mac(c, a[15:0], b[15:0])
  output logic [15:0] bf16_o,  // f32_to_bf16(a)
  output logic [31:0] canon_o, // bf16_to_f32(a[15:0])
  output logic [31:0] mul32_o, // f32_mul(a, b)
  output logic        lt_o     // f32_lt(a, b)
);
  assign add_o   = tpu_fp_pkg::f32_add(a_i, b_i);
  assign mul_o   = tpu_fp_pkg::bf16_mul(a_i[15:0], b_i[15:0]);
  assign mac_o   = tpu_fp_pkg::bf16_mac(c_i, a_i[15:0], b_i[15:0]);
  assign bf16_o  = tpu_fp_pkg::f32_to_bf16(a_i);
  assign canon_o = tpu_fp_pkg::bf16_to_f32(a_i[15:0]);
  assign mul32_o = tpu_fp_pkg::f32_mul(a_i, b_i);
  assign lt_o    = tpu_fp_pkg::f32_lt(a_i, b_i);
endmodule

`default_nettype wire
