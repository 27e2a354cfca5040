// Behavioural model of the ECP5 MULT18X18D (an 18x18 multiplier; SIGNEDA/SIGNEDB select two's
// complement operands) as this project uses it: yosys' lattice/dsp_map_18x18.v (every REG_* =
// NONE: combinational) and fpga/ecp5/tpu_pe_mul.sv (input A/B and output registers). Yosys
// ships only a black box for this cell; used by scripts/fpga/equiv.py for the post-synthesis
// simulation, and by the board flow as a techmap (-autoproc) that turns a MULT18X18D back into
// registers and a `*` where the DSP budget wants LUT multipliers (scripts/fpga/flow.py).
// Registers: REG_INPUTA/INPUTB/PIPELINE/OUTPUT_CLK = "NONE" or "CLK0" (only CLK0 is modelled),
// each with its clock enable REG_*_CE = "CE0".."CE3" and synchronous reset REG_*_RST =
// "RST0".."RST3" (RESETMODE "SYNC"); SIGNEDA/SIGNEDB travel with their operand's register.
// The input register feeds the multiplier, the pipeline register its product, the output
// register P. Not modelled: the C input, the shift/cascade ports (SOURCEA/B, SRI*/SRO*), the
// asynchronous reset mode, the GSR input, CLK1..CLK3.
`timescale 1ns / 1ps
module MULT18X18D(A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17, B0, B1, B2, B3, B4, B5, B6, B7, B8, B9, B10, B11, B12, B13, B14, B15, B16, B17, C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12, C13, C14, C15, C16, C17, SIGNEDA, SIGNEDB, SOURCEA, SOURCEB,
    CLK0, CLK1, CLK2, CLK3, CE0, CE1, CE2, CE3, RST0, RST1, RST2, RST3,
    SRIA17, SRIA16, SRIA15, SRIA14, SRIA13, SRIA12, SRIA11, SRIA10, SRIA9, SRIA8, SRIA7, SRIA6,
    SRIA5, SRIA4, SRIA3, SRIA2, SRIA1, SRIA0, SRIB17, SRIB16, SRIB15, SRIB14, SRIB13, SRIB12,
    SRIB11, SRIB10, SRIB9, SRIB8, SRIB7, SRIB6, SRIB5, SRIB4, SRIB3, SRIB2, SRIB1, SRIB0,
    P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13, P14, P15, P16, P17, P18, P19, P20, P21, P22, P23, P24, P25, P26, P27, P28, P29, P30, P31, P32, P33, P34, P35);
  input A0, A1, A2, A3, A4, A5, A6, A7, A8, A9, A10, A11, A12, A13, A14, A15, A16, A17;
  input B0, B1, B2, B3, B4, B5, B6, B7, B8, B9, B10, B11, B12, B13, B14, B15, B16, B17;
  input C0, C1, C2, C3, C4, C5, C6, C7, C8, C9, C10, C11, C12, C13, C14, C15, C16, C17;
  input SIGNEDA, SIGNEDB, SOURCEA, SOURCEB;
  input CLK0, CLK1, CLK2, CLK3, CE0, CE1, CE2, CE3, RST0, RST1, RST2, RST3;
  input SRIA17, SRIA16, SRIA15, SRIA14, SRIA13, SRIA12, SRIA11, SRIA10, SRIA9, SRIA8, SRIA7, SRIA6;
  input SRIA5, SRIA4, SRIA3, SRIA2, SRIA1, SRIA0, SRIB17, SRIB16, SRIB15, SRIB14, SRIB13, SRIB12;
  input SRIB11, SRIB10, SRIB9, SRIB8, SRIB7, SRIB6, SRIB5, SRIB4, SRIB3, SRIB2, SRIB1, SRIB0;
  output P0, P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13, P14, P15, P16, P17, P18, P19, P20, P21, P22, P23, P24, P25, P26, P27, P28, P29, P30, P31, P32, P33, P34, P35;
  parameter REG_INPUTA_CLK = "NONE";
  parameter REG_INPUTA_CE = "CE0";
  parameter REG_INPUTA_RST = "RST0";
  parameter REG_INPUTB_CLK = "NONE";
  parameter REG_INPUTB_CE = "CE0";
  parameter REG_INPUTB_RST = "RST0";
  parameter REG_INPUTC_CLK = "NONE";
  parameter REG_INPUTC_CE = "CE0";
  parameter REG_INPUTC_RST = "RST0";
  parameter REG_PIPELINE_CLK = "NONE";
  parameter REG_PIPELINE_CE = "CE0";
  parameter REG_PIPELINE_RST = "RST0";
  parameter REG_OUTPUT_CLK = "NONE";
  parameter REG_OUTPUT_CE = "CE0";
  parameter REG_OUTPUT_RST = "RST0";
  parameter RESETMODE = "SYNC";
  parameter HIGHSPEED_CLK = "NONE";
  parameter CAS_MATCH_REG = "FALSE";
  parameter MULT_BYPASS = "DISABLED";
  parameter GSR = "ENABLED";
  parameter CLK0_DIV = "ENABLED";
  parameter CLK1_DIV = "ENABLED";
  parameter CLK2_DIV = "ENABLED";
  parameter CLK3_DIV = "ENABLED";
  parameter SOURCEB_MODE = "B_SHIFT";
  wire [17:0] a = {A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0};
  wire [17:0] b = {B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0};
  wire [3:0] ce = {CE3, CE2, CE1, CE0};
  wire [3:0] rst = {RST3, RST2, RST1, RST0};
  // the enable / reset line a REG_*_CE / REG_*_RST parameter names
  wire ce_a = REG_INPUTA_CE == "CE3" ? ce[3] : REG_INPUTA_CE == "CE2" ? ce[2] :
              REG_INPUTA_CE == "CE1" ? ce[1] : ce[0];
  wire ce_b = REG_INPUTB_CE == "CE3" ? ce[3] : REG_INPUTB_CE == "CE2" ? ce[2] :
              REG_INPUTB_CE == "CE1" ? ce[1] : ce[0];
  wire ce_p = REG_PIPELINE_CE == "CE3" ? ce[3] : REG_PIPELINE_CE == "CE2" ? ce[2] :
              REG_PIPELINE_CE == "CE1" ? ce[1] : ce[0];
  wire ce_o = REG_OUTPUT_CE == "CE3" ? ce[3] : REG_OUTPUT_CE == "CE2" ? ce[2] :
              REG_OUTPUT_CE == "CE1" ? ce[1] : ce[0];
  wire rst_a = REG_INPUTA_RST == "RST3" ? rst[3] : REG_INPUTA_RST == "RST2" ? rst[2] :
               REG_INPUTA_RST == "RST1" ? rst[1] : rst[0];
  wire rst_b = REG_INPUTB_RST == "RST3" ? rst[3] : REG_INPUTB_RST == "RST2" ? rst[2] :
               REG_INPUTB_RST == "RST1" ? rst[1] : rst[0];
  wire rst_p = REG_PIPELINE_RST == "RST3" ? rst[3] : REG_PIPELINE_RST == "RST2" ? rst[2] :
               REG_PIPELINE_RST == "RST1" ? rst[1] : rst[0];
  wire rst_o = REG_OUTPUT_RST == "RST3" ? rst[3] : REG_OUTPUT_RST == "RST2" ? rst[2] :
               REG_OUTPUT_RST == "RST1" ? rst[1] : rst[0];
  // input registers (the operand with its signedness). Every register starts at 0, as after
  // configuration (and as yosys' TRELLIS_FF model starts).
  reg [18:0] a_q = 19'd0, b_q = 19'd0;
  always @(posedge CLK0) begin
    if (rst_a) a_q <= 19'd0;
    else if (ce_a) a_q <= {SIGNEDA, a};
    if (rst_b) b_q <= 19'd0;
    else if (ce_b) b_q <= {SIGNEDB, b};
  end
  wire [18:0] a_m = REG_INPUTA_CLK == "NONE" ? {SIGNEDA, a} : a_q;
  wire [18:0] b_m = REG_INPUTB_CLK == "NONE" ? {SIGNEDB, b} : b_q;
  wire signed [18:0] as = {a_m[18] & a_m[17], a_m[17:0]};
  wire signed [18:0] bs = {b_m[18] & b_m[17], b_m[17:0]};
  wire signed [37:0] prod = as * bs;
  // pipeline and output registers
  reg [35:0] pp_q = 36'd0, po_q = 36'd0;
  always @(posedge CLK0) begin
    if (rst_p) pp_q <= 36'd0;
    else if (ce_p) pp_q <= prod[35:0];
  end
  wire [35:0] pp = REG_PIPELINE_CLK == "NONE" ? prod[35:0] : pp_q;
  always @(posedge CLK0) begin
    if (rst_o) po_q <= 36'd0;
    else if (ce_o) po_q <= pp;
  end
  wire [35:0] pout = REG_OUTPUT_CLK == "NONE" ? pp : po_q;
  assign {P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18, P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0} = pout;
endmodule
