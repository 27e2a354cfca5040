// tpu_mul_pair: the products of two neighbouring PEs (tpu_systolic_array with PairMul):
// p_o[15:0] = a_i[7:0] * w_i[7:0], p_o[31:16] = a_i[15:8] * w_i[15:8], all signed,
// combinational. This portable version is two plain multipliers; the iCE40 board flow replaces
// it by fpga/ice40/tpu_mul_pair.sv, one SB_MAC16 in dual 8x8 mode (same ports and results).
`default_nettype none

module tpu_mul_pair (
  input  logic [15:0] a_i,  // two int8 activations {high, low}
  input  logic [15:0] w_i,  // two int8 weights {high, low}
  output logic [31:0] p_o   // two int16 products {high, low}
);
  assign p_o[15:0]  = $signed(a_i[7:0]) * $signed(w_i[7:0]);
  assign p_o[31:16] = $signed(a_i[15:8]) * $signed(w_i[15:8]);
endmodule

`default_nettype wire
