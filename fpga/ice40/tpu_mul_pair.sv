// tpu_mul_pair, iCE40 version (the iCEBreaker flow reads it instead of rtl/mxu/tpu_mul_pair.sv,
// board.json "rtl_override"): the two signed int8 products of a PE pair from ONE SB_MAC16 in
// dual 8x8 mode (shared/reference/fpga.md §0.2): A = {a_hi, a_lo}, B = {w_hi, w_lo},
// O[31:16] = a_hi * w_hi, O[15:0] = a_lo * w_lo, no DSP registers (the operands are the PEs'
// registers; the 32-bit accumulate stays in the fabric). Synthesize WITHOUT synth_ice40 -dsp:
// ice40_dsp would rewrite this cell and clear MODE_8x8 (shared/reference/fpga.md §0.1, bug 2).
`default_nettype none

module tpu_mul_pair (
  input  logic [15:0] a_i,
  input  logic [15:0] w_i,
  output logic [31:0] p_o
);
  SB_MAC16 #(
    .NEG_TRIGGER(1'b0), .C_REG(1'b0), .A_REG(1'b0), .B_REG(1'b0), .D_REG(1'b0),
    .TOP_8x8_MULT_REG(1'b0), .BOT_8x8_MULT_REG(1'b0),
    .PIPELINE_16x16_MULT_REG1(1'b0), .PIPELINE_16x16_MULT_REG2(1'b0),
    .TOPOUTPUT_SELECT(2'd2), .TOPADDSUB_LOWERINPUT(2'd0), .TOPADDSUB_UPPERINPUT(1'b0),
    .TOPADDSUB_CARRYSELECT(2'd0), .BOTOUTPUT_SELECT(2'd2), .BOTADDSUB_LOWERINPUT(2'd0),
    .BOTADDSUB_UPPERINPUT(1'b0), .BOTADDSUB_CARRYSELECT(2'd0), .MODE_8x8(1'b1),
    .A_SIGNED(1'b1), .B_SIGNED(1'b1)
  ) u_mac (
    .CLK(1'b0), .CE(1'b0), .C(16'd0), .D(16'd0), .A(a_i), .B(w_i),
    .AHOLD(1'b0), .BHOLD(1'b0), .CHOLD(1'b0), .DHOLD(1'b0),
    .IRSTTOP(1'b0), .IRSTBOT(1'b0), .ORSTTOP(1'b0), .ORSTBOT(1'b0),
    .OLOADTOP(1'b0), .OLOADBOT(1'b0), .ADDSUBTOP(1'b0), .ADDSUBBOT(1'b0),
    .OHOLDTOP(1'b0), .OHOLDBOT(1'b0), .CI(1'b0), .ACCUMCI(1'b0), .SIGNEXTIN(1'b0),
    .O(p_o), .CO(), .ACCUMCO(), .SIGNEXTOUT()
  );
endmodule

`default_nettype wire
