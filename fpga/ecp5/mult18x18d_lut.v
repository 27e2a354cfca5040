// A MULT18X18D as LUT logic, for the rows of the systolic array that the DSP budget keeps out
// of the DSP blocks (board.json "dsp_lut", scripts/fpga/flow.py: pe_lut_rows_from): the
// configuration fpga/ecp5/tpu_pe_mul.sv instantiates (input A/B registers on CLK0 with one
// clock enable and one reset, no pipeline register, output register or not; signed 8-bit
// operands: SIGNEDA = SIGNEDB = 1 and A[17:8] / B[17:8] the same net as A[7] / B[7], checked
// with yosys' connection map) with its input registers moved behind the first half of the
// multiplication. Stage 1 registers two partial products, A x B[3:0] and A x B[7:4] (B[7:4]
// signed), 13 and 12 bits, instead of A and B; stage 2 (the output register, or the
// combinational output) adds them. The 8-bit operands matter: yosys does not narrow a
// multiplier whose 18-bit inputs repeat their sign bit (the first version, with 18-bit
// partial products, kept 9 LUT levels before the first register at N = 16). P is the same in every cycle as
// with the cell's own registers (fpga/common/sim/ecp5_dsp.v): A and B are registered on the
// same enable and reset, and a reset register gives product 0 either way. The point is depth:
// an 8 x 8 array multiplier between two registers (8 LUT levels and a carry chain, 13 ns with
// routing at N = 16, docs/fpga.md) becomes two 8 x 4 products in one cycle and a 16-bit add in
// the next. Any other configuration declines (_TECHMAP_FAIL_) and is left to the plain model.
// Used as a yosys techmap (-autoproc), never simulated by itself: the equivalence check maps
// the LUT rows through it too (scripts/fpga/equiv.py --dsp pe_lut_rows_from=k).
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
  parameter _TECHMAP_BITS_CONNMAP_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_A7_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_A8_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_A9_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_A10_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_A11_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_A12_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_A13_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_A14_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_A15_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_A16_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_A17_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_B7_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_B8_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_B9_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_B10_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_B11_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_B12_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_B13_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_B14_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_B15_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_B16_ = 0;
  parameter [_TECHMAP_BITS_CONNMAP_-1:0] _TECHMAP_CONNMAP_B17_ = 0;
  parameter _TECHMAP_CONSTMSK_SIGNEDA_ = 0;
  parameter _TECHMAP_CONSTVAL_SIGNEDA_ = 0;
  parameter _TECHMAP_CONSTMSK_SIGNEDB_ = 0;
  parameter _TECHMAP_CONSTVAL_SIGNEDB_ = 0;
  // A[17:8] and B[17:8] copies of bit 7, both operands signed: 8-bit signed operands
  localparam NARROW =
    _TECHMAP_CONNMAP_A8_ === _TECHMAP_CONNMAP_A7_ && _TECHMAP_CONNMAP_A9_ === _TECHMAP_CONNMAP_A7_ && _TECHMAP_CONNMAP_A10_ === _TECHMAP_CONNMAP_A7_ && _TECHMAP_CONNMAP_A11_ === _TECHMAP_CONNMAP_A7_ && _TECHMAP_CONNMAP_A12_ === _TECHMAP_CONNMAP_A7_ && _TECHMAP_CONNMAP_A13_ === _TECHMAP_CONNMAP_A7_ && _TECHMAP_CONNMAP_A14_ === _TECHMAP_CONNMAP_A7_ && _TECHMAP_CONNMAP_A15_ === _TECHMAP_CONNMAP_A7_ && _TECHMAP_CONNMAP_A16_ === _TECHMAP_CONNMAP_A7_ && _TECHMAP_CONNMAP_A17_ === _TECHMAP_CONNMAP_A7_ &&
    _TECHMAP_CONNMAP_B8_ === _TECHMAP_CONNMAP_B7_ && _TECHMAP_CONNMAP_B9_ === _TECHMAP_CONNMAP_B7_ && _TECHMAP_CONNMAP_B10_ === _TECHMAP_CONNMAP_B7_ && _TECHMAP_CONNMAP_B11_ === _TECHMAP_CONNMAP_B7_ && _TECHMAP_CONNMAP_B12_ === _TECHMAP_CONNMAP_B7_ && _TECHMAP_CONNMAP_B13_ === _TECHMAP_CONNMAP_B7_ && _TECHMAP_CONNMAP_B14_ === _TECHMAP_CONNMAP_B7_ && _TECHMAP_CONNMAP_B15_ === _TECHMAP_CONNMAP_B7_ && _TECHMAP_CONNMAP_B16_ === _TECHMAP_CONNMAP_B7_ && _TECHMAP_CONNMAP_B17_ === _TECHMAP_CONNMAP_B7_ &&
    _TECHMAP_CONSTMSK_SIGNEDA_ && _TECHMAP_CONSTVAL_SIGNEDA_ === 1'b1 &&
    _TECHMAP_CONSTMSK_SIGNEDB_ && _TECHMAP_CONSTVAL_SIGNEDB_ === 1'b1;
  wire [17:0] a = {A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0};
  wire [17:0] b = {B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0};
  wire [3:0] ce = {CE3, CE2, CE1, CE0};
  wire [3:0] rst = {RST3, RST2, RST1, RST0};
  wire ce_a = REG_INPUTA_CE == "CE3" ? ce[3] : REG_INPUTA_CE == "CE2" ? ce[2] :
              REG_INPUTA_CE == "CE1" ? ce[1] : ce[0];
  wire ce_o = REG_OUTPUT_CE == "CE3" ? ce[3] : REG_OUTPUT_CE == "CE2" ? ce[2] :
              REG_OUTPUT_CE == "CE1" ? ce[1] : ce[0];
  wire rst_a = REG_INPUTA_RST == "RST3" ? rst[3] : REG_INPUTA_RST == "RST2" ? rst[2] :
               REG_INPUTA_RST == "RST1" ? rst[1] : rst[0];
  wire rst_o = REG_OUTPUT_RST == "RST3" ? rst[3] : REG_OUTPUT_RST == "RST2" ? rst[2] :
               REG_OUTPUT_RST == "RST1" ? rst[1] : rst[0];
  // only the configuration described above; anything else stays for the plain model
  wire _TECHMAP_FAIL_ = !(REG_INPUTA_CLK == "CLK0" && REG_INPUTB_CLK == "CLK0" &&
                          REG_INPUTA_CE == REG_INPUTB_CE && REG_INPUTA_RST == REG_INPUTB_RST &&
                          REG_PIPELINE_CLK == "NONE" && REG_INPUTC_CLK == "NONE" &&
                          RESETMODE == "SYNC" &&
                          (REG_OUTPUT_CLK == "NONE" || REG_OUTPUT_CLK == "CLK0") && NARROW);
  // the operands (8-bit signed, see NARROW)
  wire signed [7:0] as = a[7:0];
  wire signed [4:0] b_lo = {1'b0, b[3:0]};
  wire signed [3:0] b_hi = b[7:4];
  // stage 1: the partial products (the input registers' place)
  wire signed [12:0] lo = as * b_lo;
  wire signed [11:0] hi = as * b_hi;
  reg [12:0] lo_q = 13'd0;
  reg [11:0] hi_q = 12'd0;
  always @(posedge CLK0) begin
    if (rst_a) begin
      lo_q <= 13'd0;
      hi_q <= 12'd0;
    end else if (ce_a) begin
      lo_q <= lo;
      hi_q <= hi;
    end
  end
  // stage 2: the sum, into the output register or straight out
  wire [15:0] p16 = {{3{lo_q[12]}}, lo_q} + {hi_q, 4'd0};
  wire [35:0] prod = {{20{p16[15]}}, p16};
  reg [35:0] po_q = 36'd0;
  always @(posedge CLK0) begin
    if (rst_o) po_q <= 36'd0;
    else if (ce_o) po_q <= prod;
  end
  wire [35:0] pout = REG_OUTPUT_CLK == "NONE" ? prod : po_q;
  assign {P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18, P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0} = pout;
endmodule
