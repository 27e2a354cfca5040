// Behavioural models of the Gowin MULT9X9 / MULT18X18 / MULT36X36 as yosys' gowin/dsp_map.v
// instantiates them (AREG/BREG/OUT_REG/PIPE_REG = 0: combinational; ASIGN/BSIGN select two's
// complement operands; ASEL/BSEL = 0: operands from A/B). Yosys ships only black boxes for
// these cells; used by scripts/fpga/equiv.py. Registered modes are not modelled.
`timescale 1ns / 1ps
module MULT9X9 (A, SIA, B, SIB, ASIGN, BSIGN, ASEL, BSEL, CE, CLK, RESET, DOUT, SOA, SOB);
  input [8:0] A, SIA, B, SIB;
  input ASIGN, BSIGN, ASEL, BSEL, CE, CLK, RESET;
  output [17:0] DOUT;
  output [8:0] SOA, SOB;
  parameter AREG = 1'b0;
  parameter BREG = 1'b0;
  parameter OUT_REG = 1'b0;
  parameter PIPE_REG = 1'b0;
  parameter ASIGN_REG = 1'b0;
  parameter BSIGN_REG = 1'b0;
  parameter SOA_REG = 1'b0;
  parameter MULT_RESET_MODE = "SYNC";
  wire signed [9:0] as = {ASIGN & A[8], A};
  wire signed [9:0] bs = {BSIGN & B[8], B};
  wire signed [19:0] p = as * bs;
  assign DOUT = p[17:0];
  assign SOA = A;
  assign SOB = B;
endmodule

module MULT18X18 (A, SIA, B, SIB, ASIGN, BSIGN, ASEL, BSEL, CE, CLK, RESET, DOUT, SOA, SOB);
  input [17:0] A, SIA, B, SIB;
  input ASIGN, BSIGN, ASEL, BSEL, CE, CLK, RESET;
  output [35:0] DOUT;
  output [17:0] SOA, SOB;
  parameter AREG = 1'b0;
  parameter BREG = 1'b0;
  parameter OUT_REG = 1'b0;
  parameter PIPE_REG = 1'b0;
  parameter ASIGN_REG = 1'b0;
  parameter BSIGN_REG = 1'b0;
  parameter SOA_REG = 1'b0;
  parameter MULT_RESET_MODE = "SYNC";
  wire signed [18:0] as = {ASIGN & A[17], A};
  wire signed [18:0] bs = {BSIGN & B[17], B};
  wire signed [37:0] p = as * bs;
  assign DOUT = p[35:0];
  assign SOA = A;
  assign SOB = B;
endmodule

module MULT36X36 (A, B, ASIGN, BSIGN, CE, CLK, RESET, DOUT);
  input [35:0] A, B;
  input ASIGN, BSIGN, CE, CLK, RESET;
  output [71:0] DOUT;
  parameter AREG = 1'b0;
  parameter BREG = 1'b0;
  parameter OUT0_REG = 1'b0;
  parameter OUT1_REG = 1'b0;
  parameter PIPE_REG = 1'b0;
  parameter ASIGN_REG = 1'b0;
  parameter BSIGN_REG = 1'b0;
  parameter MULT_RESET_MODE = "SYNC";
  wire signed [36:0] as = {ASIGN & A[35], A};
  wire signed [36:0] bs = {BSIGN & B[35], B};
  wire signed [73:0] p = as * bs;
  assign DOUT = p[71:0];
endmodule
