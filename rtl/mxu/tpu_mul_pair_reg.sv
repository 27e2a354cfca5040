// tpu_mul_pair_reg: tpu_mul_pair with its products registered (tpu_systolic_array with
// PairMul = 2 and ProdReg, boards): p_o shows the two signed int8 products of the operands of
// the cycle before, p_o[15:0] = a[7:0] * w[7:0], p_o[31:16] = a[15:8] * w[15:8]. This portable
// version is tpu_mul_pair and a register; the iCE40 board flow replaces it by
// fpga/ice40/tpu_mul_pair_reg.sv, one SB_MAC16 in dual 8x8 mode with its product registers, so
// the multiply ends at a register inside the DSP (same ports and results).
`default_nettype none

module tpu_mul_pair_reg (
  input  logic        clk_i,
  input  logic [15:0] a_i,  // two int8 activations {high, low}
  input  logic [15:0] w_i,  // two int8 weights {high, low}
  output logic [31:0] p_o   // two int16 products {high, low}, one cycle later
);
  logic [31:0] p, p_q;
  tpu_mul_pair u_mul (.a_i, .w_i, .p_o(p));
  always_ff @(posedge clk_i) begin
    p_q <= p;
  end
  assign p_o = p_q;
endmodule

`default_nettype wire
