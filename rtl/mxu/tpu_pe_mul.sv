// tpu_pe_mul: a PE's multiplier with its operand registers and its product register (tpu_pe
// ProdReg = 1, ExtMul = 0), as one block so that a board can put all three into one DSP cell:
// the ECP5 flow replaces this file by fpga/ecp5/tpu_pe_mul.sv (board.json "rtl_override"), a
// MULT18X18D with its input A/B and output registers in use, so neither DSP hop is a fabric
// path. Same ports and cycle behaviour there.
//   a_q <= a_i every cycle; w_q <= w_i in cycles with w_en_i;
//   p_o = the signed product a_q * w_q of the cycle before (a register): a_i of cycle t is
//   multiplied into p_o of cycle t + 2.
// The PE keeps its own copy of a_q (passed east) and w_en_i = the PE's swap, w_i its shadow
// weight, so w_q is the PE's active weight. No reset (data only).
`default_nettype none

module tpu_pe_mul (
  input  logic        clk_i,
  input  logic [7:0]  a_i,
  input  logic [7:0]  w_i,
  input  logic        w_en_i,
  output logic [15:0] p_o
);
  logic [7:0]         a_q, w_q;
  logic signed [15:0] p_q;

  always_ff @(posedge clk_i) begin
    a_q <= a_i;
    if (w_en_i) begin
      w_q <= w_i;
    end
    // int8 x int8 fits 16 bits exactly
    p_q <= $signed(a_q) * $signed(w_q);
  end

  assign p_o = p_q;
endmodule

`default_nettype wire
