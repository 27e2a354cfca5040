// tpu_pe_mul, ECP5 version (the ULX3S flow reads it instead of rtl/mxu/tpu_pe_mul.sv, board.json
// "rtl_override"): the PE's operand registers, multiplier and product register as ONE
// MULT18X18D with its own registers in use (yosys maps a `*` to a MULT18X18D with every REG_*
// = NONE and absorbs no fabric register into it, shared/reference/fpga.md §2.2):
//   input A register = a_q, input B register = the active weight, output register = p_o. Same
//   ports and cycles as the generic version: p_o(t + 2) = a_i(t) * (the weight loaded by
//   then), signed 8 x 8 in 16 bits.
// Every DSP register is enabled in every cycle (CE0 = 1): the weight's load enable stays in
// the fabric, as a flip-flop copy w_q of the active weight and a 2:1 mux in front of the B
// input (B takes w_en_i ? w_i : w_q, so the B register always equals w_q). Per-DSP enable
// nets would not place: the DSP slices share their CLK/CE/RST lines, and with 144 different
// CE nets nextpnr-ecp5's placer never finished its first iteration (docs/fpga.md).
// Operands are sign-extended to 18 bits (SIGNEDA = SIGNEDB = 1); P[15:0] is the product. No
// reset (RST0 = 0); the registers start at 0 after configuration (GSR, as the fabric's). The
// equivalence check (scripts/fpga/equiv.py) simulates this cell with
// fpga/common/sim/ecp5_dsp.v, which models the registers; rows of LUT multipliers (the DSP
// budget) map it through the same model.
`default_nettype none

module tpu_pe_mul (
  input  logic        clk_i,
  input  logic [7:0]  a_i,
  input  logic [7:0]  w_i,
  input  logic        w_en_i,
  output logic [15:0] p_o
);
  logic [35:0] p;
  logic [7:0]  w_q, w_d;

  // the active weight: its load enable in the fabric, the DSP's B register always loads
  assign w_d = w_en_i ? w_i : w_q;
  always_ff @(posedge clk_i) begin
    w_q <= w_d;
  end

  MULT18X18D #(
    .REG_INPUTA_CLK("CLK0"), .REG_INPUTA_CE("CE0"), .REG_INPUTA_RST("RST0"),
    .REG_INPUTB_CLK("CLK0"), .REG_INPUTB_CE("CE0"), .REG_INPUTB_RST("RST0"),
    .REG_INPUTC_CLK("NONE"), .REG_PIPELINE_CLK("NONE"),
    .REG_OUTPUT_CLK("CLK0"), .REG_OUTPUT_CE("CE0"), .REG_OUTPUT_RST("RST0"),
    .GSR("ENABLED"), .RESETMODE("SYNC"), .SOURCEB_MODE("B_SHIFT")
  ) u_mult (
    .A0(a_i[0]), .A1(a_i[1]), .A2(a_i[2]), .A3(a_i[3]), .A4(a_i[4]), .A5(a_i[5]), .A6(a_i[6]),
    .A7(a_i[7]), .A8(a_i[7]), .A9(a_i[7]), .A10(a_i[7]), .A11(a_i[7]), .A12(a_i[7]),
    .A13(a_i[7]), .A14(a_i[7]), .A15(a_i[7]), .A16(a_i[7]), .A17(a_i[7]),
    .B0(w_d[0]), .B1(w_d[1]), .B2(w_d[2]), .B3(w_d[3]), .B4(w_d[4]), .B5(w_d[5]), .B6(w_d[6]),
    .B7(w_d[7]), .B8(w_d[7]), .B9(w_d[7]), .B10(w_d[7]), .B11(w_d[7]), .B12(w_d[7]),
    .B13(w_d[7]), .B14(w_d[7]), .B15(w_d[7]), .B16(w_d[7]), .B17(w_d[7]),
    .C0(1'b0), .C1(1'b0), .C2(1'b0), .C3(1'b0), .C4(1'b0), .C5(1'b0), .C6(1'b0), .C7(1'b0),
    .C8(1'b0), .C9(1'b0), .C10(1'b0), .C11(1'b0), .C12(1'b0), .C13(1'b0), .C14(1'b0), .C15(1'b0),
    .C16(1'b0), .C17(1'b0),
    .SIGNEDA(1'b1), .SIGNEDB(1'b1), .SOURCEA(1'b0), .SOURCEB(1'b0),
    .CLK0(clk_i), .CE0(1'b1), .RST0(1'b0),
    .P0(p[0]), .P1(p[1]), .P2(p[2]), .P3(p[3]), .P4(p[4]), .P5(p[5]), .P6(p[6]), .P7(p[7]),
    .P8(p[8]), .P9(p[9]), .P10(p[10]), .P11(p[11]), .P12(p[12]), .P13(p[13]), .P14(p[14]),
    .P15(p[15]), .P16(p[16]), .P17(p[17]), .P18(p[18]), .P19(p[19]), .P20(p[20]), .P21(p[21]),
    .P22(p[22]), .P23(p[23]), .P24(p[24]), .P25(p[25]), .P26(p[26]), .P27(p[27]), .P28(p[28]),
    .P29(p[29]), .P30(p[30]), .P31(p[31]), .P32(p[32]), .P33(p[33]), .P34(p[34]), .P35(p[35])
  );

  assign p_o = p[15:0];
  logic unused_p;
  assign unused_p = ^p[35:16];
endmodule

`default_nettype wire
