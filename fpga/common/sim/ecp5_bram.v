// Behavioural model of the ECP5 DP16KD (18 kbit block RAM, two ports) for the subset this
// project instantiates (fpga/ecp5/tpu_ram.sv). Yosys ships only a black box for the cell; used
// by scripts/fpga/equiv.py (post-synthesis simulation in iverilog) and scripts/fpga/ram_check.py
// (Verilator and iverilog). The rules follow Lattice TN1264 (ECP5 Memory Usage Guide) and what
// yosys' lattice/brams_map_16kd.v and nextpnr-ecp5 (bitstream.cc, arch.cc) do with the cell:
//   Storage: 2048 x 9-bit bytes (1024 x 18 bits).
//   DATA_WIDTH_A/B = 9: word address AD[13:3] (AD[2:0] ignored), data DI[8:0] / DO[8:0].
//                    18: word address AD[13:4] (AD[3:2] ignored), AD[1:0] = byte enables of a
//                        write (AD0: DI[8:0], AD1: DI[17:9]), data DI[17:0] / DO[17:0].
//   DATA_WIDTH_A = DATA_WIDTH_B = 36: pseudo dual port (PDPW16KD, as yosys maps it and nextpnr
//     reads it: "is_pdp" when DATA_WIDTH_A = 36): port A writes, port B reads, 512 x 36.
//     Write: CEA (and WEA) high, word address ADA[13:5], ADA[3:0] = byte enables (ADAj:
//     bits 9j+8..9j), ADA4 ignored, data {DIB, DIA} = bits [35:18], [17:0]. Read: CEB, address
//     ADB[13:5] (ADB[4:0] ignored), data {DOB, DOA}; the output register is port B's
//     (REGMODE_B / OCEB, CLKB: nextpnr times all 36 outputs from CLKB), and this model asks
//     REGMODE_A = REGMODE_B and OCEA = OCEB there (the bitstream gets both REGMODEs; which
//     one the silicon uses for the DOA half is not documented, so the instance sets both).
//   A port acts at its clock edge when CE is high and {CS2,CS1,CS0} = CSDECODE ("0bXYZ").
//     WE high: write (the port's own DO per WRITEMODE: NORMAL holds, WRITETHROUGH shows the
//     new word, READBEFOREWRITE the old one); WE low: read into the port's output latch. With
//     CE low the latch holds.
//   REGMODE "OUTREG": an output register after the latch, loaded at the clock edge when OCE is
//     high, holding otherwise (read latency 2); "NOREG": DO is the latch (latency 1).
//   A read of a word the other port writes in the same clock edge gives X (undefined in the
//     silicon; tpu_ram forbids it).
// Not modelled (a run that uses them prints "DP16KD model ERROR" and drives X): widths 1, 2, 4,
// PDP with a read width below 36, RST high, RESETMODE "ASYNC", the INITVAL contents (memory
// starts X: tpu_ram's contents are undefined), clock inversion muxes, GSR (registers start X).
`timescale 1ns / 1ps
module DP16KD(
  DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4,
  DIA3, DIA2, DIA1, DIA0,
  ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0,
  CEA, OCEA, CLKA, WEA, RSTA, CSA2, CSA1, CSA0,
  DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4,
  DOA3, DOA2, DOA1, DOA0,
  DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4,
  DIB3, DIB2, DIB1, DIB0,
  ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0,
  CEB, OCEB, CLKB, WEB, RSTB, CSB2, CSB1, CSB0,
  DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4,
  DOB3, DOB2, DOB1, DOB0);
  input DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5;
  input DIA4, DIA3, DIA2, DIA1, DIA0;
  input ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0;
  input CEA, OCEA, CLKA, WEA, RSTA, CSA2, CSA1, CSA0;
  output DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5;
  output DOA4, DOA3, DOA2, DOA1, DOA0;
  input DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5;
  input DIB4, DIB3, DIB2, DIB1, DIB0;
  input ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0;
  input CEB, OCEB, CLKB, WEB, RSTB, CSB2, CSB1, CSB0;
  output DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5;
  output DOB4, DOB3, DOB2, DOB1, DOB0;

  parameter DATA_WIDTH_A = 18;
  parameter DATA_WIDTH_B = 18;
  parameter REGMODE_A = "NOREG";
  parameter REGMODE_B = "NOREG";
  parameter RESETMODE = "SYNC";
  parameter ASYNC_RESET_RELEASE = "SYNC";
  parameter CSDECODE_A = "0b000";
  parameter CSDECODE_B = "0b000";
  parameter WRITEMODE_A = "NORMAL";
  parameter WRITEMODE_B = "NORMAL";
  parameter GSR = "ENABLED";

  wire [17:0] dia = {DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7,
                     DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0};
  wire [17:0] dib = {DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7,
                     DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0};
  wire [13:0] ada = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2,
                     ADA1, ADA0};
  wire [13:0] adb = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2,
                     ADB1, ADB0};

  localparam PDP = (DATA_WIDTH_A == 36);
  // the CSDECODE string's last three characters ("0bXYZ": X = CS2)
  localparam [2:0] CSD_A = {CSDECODE_A[23:16] == "1", CSDECODE_A[15:8] == "1",
                            CSDECODE_A[7:0] == "1"};
  localparam [2:0] CSD_B = {CSDECODE_B[23:16] == "1", CSDECODE_B[15:8] == "1",
                            CSDECODE_B[7:0] == "1"};

  // an unmodelled configuration or input: every output X
  reg bad_cfg, bad_a, bad_b;
  wire bad = bad_cfg || bad_a || bad_b;
  initial begin
    bad_cfg = 1'b0;
    bad_a = 1'b0;
    bad_b = 1'b0;
    if (PDP ? (DATA_WIDTH_B != 36)
            : ((DATA_WIDTH_A != 9 && DATA_WIDTH_A != 18) ||
               (DATA_WIDTH_B != 9 && DATA_WIDTH_B != 18))) begin
      $display("DP16KD model ERROR %m: DATA_WIDTH_A %0d / DATA_WIDTH_B %0d not modelled",
               DATA_WIDTH_A, DATA_WIDTH_B);
      bad_cfg = 1'b1;
    end
    if (RESETMODE != "SYNC") begin
      $display("DP16KD model ERROR %m: RESETMODE %s not modelled", RESETMODE);
      bad_cfg = 1'b1;
    end
    if (PDP && REGMODE_A != REGMODE_B) begin
      $display("DP16KD model ERROR %m: 36-bit mode with REGMODE_A != REGMODE_B");
      bad_cfg = 1'b1;
    end
  end

  reg [8:0] mem [0:2047];

  // byte address and byte count of a port's access
  function [10:0] base;
    input integer width;
    input [13:0] ad;
    begin
      base = width == 36 ? {ad[13:5], 2'b00} : width == 18 ? {ad[13:4], 1'b0} : ad[13:3];
    end
  endfunction

  // the word at a byte address (36 / 18 / 9 bits, LSB-aligned)
  function [35:0] rd_word;
    input integer width;
    input [10:0] b;
    begin
      rd_word = {36{1'bx}};
      if (width == 36) rd_word = {mem[b + 3], mem[b + 2], mem[b + 1], mem[b]};
      else if (width == 18) rd_word = {18'bx, mem[b + 1], mem[b]};
      else rd_word = {27'bx, mem[b]};
    end
  endfunction

  // the other port writes byte range [b, b + n) in this clock edge (same clock net)
  wire a_wr = CLKA && CEA && WEA && ({CSA2, CSA1, CSA0} == CSD_A);
  wire b_wr = CLKB && CEB && WEB && ({CSB2, CSB1, CSB0} == CSD_B) && !PDP;
  function overlap;
    input [10:0] b0;
    input integer w0;
    input [10:0] b1;
    input integer w1;
    begin
      overlap = (b0 < b1 + (w1 + 8) / 9) && (b1 < b0 + (w0 + 8) / 9);
    end
  endfunction

  reg [35:0] lat_a, lat_b, out_a, out_b;  // output latches and output registers
  integer j;

  // port A: PDP: the write port; otherwise a read/write port
  always @(posedge CLKA) begin
    if (RSTA === 1'b1 || (CEA === 1'bx) || (WEA === 1'bx && CEA)) begin
      if (RSTA === 1'b1) $display("DP16KD model ERROR %m: RSTA high (not modelled)");
      if (RSTA === 1'b1) bad_a <= 1'b1;
      lat_a <= {36{1'bx}};
    end else if (CEA && ({CSA2, CSA1, CSA0} == CSD_A)) begin
      if (PDP) begin
        if (WEA)
          for (j = 0; j < 4; j = j + 1)
            if (ada[j]) mem[base(36, ada) + j] <= j < 2 ? dia[9 * j +: 9] : dib[9 * (j - 2) +: 9];
      end else if (WEA) begin
        if (DATA_WIDTH_A == 18) begin
          if (ada[0]) mem[base(18, ada)] <= dia[8:0];
          if (ada[1]) mem[base(18, ada) + 1] <= dia[17:9];
        end else begin
          mem[base(9, ada)] <= dia[8:0];
        end
        if (WRITEMODE_A == "WRITETHROUGH")
          lat_a <= DATA_WIDTH_A == 18 ? {18'bx, ada[1] ? dia[17:9] : mem[base(18, ada) + 1],
                                         ada[0] ? dia[8:0] : mem[base(18, ada)]}
                                      : {27'bx, dia[8:0]};
        else if (WRITEMODE_A == "READBEFOREWRITE")
          lat_a <= rd_word(DATA_WIDTH_A, base(DATA_WIDTH_A, ada));
      end else begin
        lat_a <= b_wr && overlap(base(DATA_WIDTH_A, ada), DATA_WIDTH_A, base(DATA_WIDTH_B, adb),
                                 DATA_WIDTH_B)
                 ? {36{1'bx}} : rd_word(DATA_WIDTH_A, base(DATA_WIDTH_A, ada));
      end
    end
    if (REGMODE_A == "OUTREG" && OCEA !== 1'b0)
      out_a <= OCEA === 1'b1 ? lat_a : {36{1'bx}};
  end

  // port B: PDP: the read port; otherwise a read/write port
  always @(posedge CLKB) begin
    if (RSTB === 1'b1 || (CEB === 1'bx) || (WEB === 1'bx && CEB && !PDP)) begin
      if (RSTB === 1'b1) $display("DP16KD model ERROR %m: RSTB high (not modelled)");
      if (RSTB === 1'b1) bad_b <= 1'b1;
      lat_b <= {36{1'bx}};
    end else if (CEB && ({CSB2, CSB1, CSB0} == CSD_B)) begin
      if (!PDP && WEB) begin
        if (DATA_WIDTH_B == 18) begin
          if (adb[0]) mem[base(18, adb)] <= dib[8:0];
          if (adb[1]) mem[base(18, adb) + 1] <= dib[17:9];
        end else begin
          mem[base(9, adb)] <= dib[8:0];
        end
        if (WRITEMODE_B == "WRITETHROUGH")
          lat_b <= DATA_WIDTH_B == 18 ? {18'bx, adb[1] ? dib[17:9] : mem[base(18, adb) + 1],
                                         adb[0] ? dib[8:0] : mem[base(18, adb)]}
                                      : {27'bx, dib[8:0]};
        else if (WRITEMODE_B == "READBEFOREWRITE")
          lat_b <= rd_word(DATA_WIDTH_B, base(DATA_WIDTH_B, adb));
      end else begin
        lat_b <= a_wr && overlap(base(DATA_WIDTH_B, adb), DATA_WIDTH_B, base(DATA_WIDTH_A, ada),
                                 DATA_WIDTH_A)
                 ? {36{1'bx}} : rd_word(DATA_WIDTH_B, base(DATA_WIDTH_B, adb));
      end
    end
    if (PDP && REGMODE_B == "OUTREG" && OCEA !== OCEB) begin
      $display("DP16KD model ERROR %m: 36-bit mode with OCEA != OCEB");
      bad_b <= 1'b1;
    end
    if (REGMODE_B == "OUTREG" && OCEB !== 1'b0)
      out_b <= OCEB === 1'b1 ? lat_b : {36{1'bx}};
  end

  // PDP: {DOB, DOA} is the 36-bit read word of port B
  wire [35:0] do_b = REGMODE_B == "OUTREG" ? out_b : lat_b;
  wire [35:0] do_a = REGMODE_A == "OUTREG" ? out_a : lat_a;
  wire [17:0] doa = bad ? {18{1'bx}} : PDP ? do_b[17:0] : do_a[17:0];
  wire [17:0] dob = bad ? {18{1'bx}} : PDP ? do_b[35:18] : do_b[17:0];
  assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5,
          DOA4, DOA3, DOA2, DOA1, DOA0} = doa;
  assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5,
          DOB4, DOB3, DOB2, DOB1, DOB0} = dob;
endmodule
