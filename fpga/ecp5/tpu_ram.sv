// tpu_ram, ECP5 version (the ULX3S flow reads it instead of rtl/common/tpu_ram.sv, board.json
// "rtl_override"): same module, parameters, ports and contract as rtl/common/tpu_ram.sv (read its
// header: one write and one read port, registered read, rdata_o holds while re_i is low, no
// read and write of one address in a cycle, contents undefined until written).
//   OutReg = 0: the inferred RAM, the same code as rtl/common/tpu_ram.sv (nothing changes for yosys).
//   OutReg = 1: hand-instantiated DP16KD tiles with the block RAM's output register in use
//     (REGMODE "OUTREG"): yosys 0.70's ECP5 memory library has no output-register option,
//     and nextpnr times a DP16KD read without it at 5.8 ns clock-to-out (docs/fpga.md).
//     Read latency 2 as in rtl/common/tpu_ram.sv: the tile reads raddr_i in every cycle (CEB = 1: its
//     output latch loads at the end of each cycle), and the output register loads at the end
//     of t + 1 when re_q (re_i one cycle late) is high (OCE = re_q), holding otherwise, like
//     rtl/common/tpu_ram.sv's second register. So re_i reaches the tiles only through the flip-flop
//     re_q: no path runs from the read decision (e.g. a stream's ready) to the tiles' CE pins
//     (the N = 12 critical path with CEB = re_i, docs/fpga.md). A read of a row being written
//     in a cycle without re_i puts undefined data into the latch only; OCE does not take it.
//     (scripts/fpga/ram_check.py: OCE alone keeps the hold; CEB and OCE both high fails.)
//     nextpnr: 0.96 ns clock-to-out from the output register (5.61 ns without, docs/fpga.md).
// Tiles: one geometry per RAM, the cheapest in tiles of
//     36 bits x 512 words (pseudo dual port, the PDPW16KD configuration of a DP16KD: DATA_WIDTH
//       36 on both ports, port A writes with ADA[13:5] = address, ADA[3:0] = byte enables
//       (all high), ADA4 = 0; port B reads with ADB[13:5], ADB[4:0] = 0, data {DOB, DOA}),
//     18 x 1024 (port A writes with ADA[13:4], ADA[3:2] = 0, ADA[1:0] = byte enables; port B
//       reads with ADB[13:4], ADB[3:0] = 0; data DI/DO[17:0]),
//     9 x 2048 (ADx[13:3], ADx[2:0] = 0; data DI/DO[8:0]),
//   ties going to the deeper tile (fewer banks). Width is cut into Cols slices of the tile
//   width (the last one padded); when Depth is above the tile depth, Banks tiles per slice
//   cascade in depth: the write enable (CEA) is decoded from the write address's high bits,
//   every bank reads (CEB = 1), and the read address's bank index passes two registers in step
//   with the data (loaded on re_i, then on re_q) to select the bank's output after the output
//   registers (a mux in the fabric, the one cost of a cascade). E.g. UB 96 x 512: 3 tiles of
//   36 x 512; ACC 384 x 256: 11 tiles of 36 x 512; 64 x 2048: 8 tiles of 9 x 2048.
// Per tile: CLKA = CLKB = clk_i, WEB = 0, RSTA = RSTB = 0 (RESETMODE SYNC, never used), chip
// selects CSx = 0 with CSDECODE "0b000", GSR disabled (contents and outputs need no reset).
// In the 36-bit mode both REGMODEs are OUTREG and OCEA = OCEB = re_q: nextpnr writes both
// REGMODEs to the bitstream and times all 36 outputs from CLKB; which one the silicon uses for
// the DOA half is not documented, so both are set alike.
// Simulation: fpga/common/sim/ecp5_bram.v models the DP16KD (scripts/fpga/equiv.py, and
// scripts/fpga/ram_check.py: this file against rtl/common/tpu_ram.sv, `make test-fpga-ram`).
`default_nettype none

module tpu_ram #(
  parameter int unsigned Width = 8,   // bits per word
  parameter int unsigned Depth = 256, // words, >= 2
  parameter int unsigned Block = 0,   // 1: block RAM whatever the size
  parameter bit          OutReg = 1'b0 // 1: registered read data, read latency 2 (see above)
) (
  input  logic                     clk_i,
  // write port
  input  logic                     we_i,
  input  logic [$clog2(Depth)-1:0] waddr_i,
  input  logic [Width-1:0]         wdata_i,
  // read port
  input  logic                     re_i,
  input  logic [$clog2(Depth)-1:0] raddr_i,
  output logic [Width-1:0]         rdata_o
);
  // Illegal parameter combinations stop elaboration.
  if (Width < 1) begin : g_bad_width
    $error("tpu_ram: Width must be >= 1");
  end
  if (Depth < 2) begin : g_bad_depth
    $error("tpu_ram: Depth must be >= 2");
  end

  // the read data register: OutReg = 0 the fabric's (inferred with the memory), OutReg = 1
  // the tiles' output registers
  logic [Width-1:0] rdata_q;

  // ------------------------------------------------------------------ OutReg = 0: rtl/common/tpu_ram.sv
  // the same memory twice: an attribute cannot depend on a parameter (two separate ifs, not
  // an else-if chain: the memories keep rtl/common/tpu_ram.sv's instance names)
  if (!OutReg && Block != 0) begin : g_block
    (* no_rw_check, ram_style = "block" *)
    logic [Width-1:0] mem_q [0:Depth-1];
    always_ff @(posedge clk_i) begin
      if (we_i) begin
        mem_q[waddr_i] <= wdata_i;
      end
    end
    always_ff @(posedge clk_i) begin
      if (re_i) begin
        rdata_q <= mem_q[raddr_i];
      end
    end
  end
  if (!OutReg && Block == 0) begin : g_auto
    (* no_rw_check *)
    logic [Width-1:0] mem_q [0:Depth-1];
    always_ff @(posedge clk_i) begin
      if (we_i) begin
        mem_q[waddr_i] <= wdata_i;
      end
    end
    always_ff @(posedge clk_i) begin
      if (re_i) begin
        rdata_q <= mem_q[raddr_i];
      end
    end
  end

  if (OutReg) begin : g_dp16kd
    // ---------------------------------------------------------------- OutReg = 1: DP16KD tiles
    localparam int unsigned Cost36 = ((Width + 35) / 36) * ((Depth + 511) / 512);
    localparam int unsigned Cost18 = ((Width + 17) / 18) * ((Depth + 1023) / 1024);
    localparam int unsigned Cost9  = ((Width + 8) / 9) * ((Depth + 2047) / 2048);
    // tile width, its word address bits, the address's LSB on ADx
    localparam int unsigned TileW = (Cost9 <= Cost18 && Cost9 <= Cost36) ? 9 :
                                    (Cost18 <= Cost36) ? 18 : 36;
    localparam int unsigned TileA = TileW == 36 ? 9 : TileW == 18 ? 10 : 11;
    localparam int unsigned Lsb   = 14 - TileA;
    localparam int unsigned Cols  = (Width + TileW - 1) / TileW;
    localparam int unsigned Banks = (Depth + (1 << TileA) - 1) >> TileA;
    localparam int unsigned BankBits = Banks > 1 ? $clog2(Banks) : 1;
    localparam int unsigned PadW  = Cols * TileW;

    // addresses split into the bank index and the tile word address ($clog2(Depth) <= TileA +
    // BankBits: the zero extension never drops a bit)
    logic [TileA+BankBits-1:0] wa, ra;
    logic [TileW*Cols-1:0]     wd;
    assign wa = (TileA + BankBits)'(waddr_i);
    assign ra = (TileA + BankBits)'(raddr_i);
    assign wd = PadW'(wdata_i);

    logic re_q;  // no reset: a stray load after power-up only moves undefined data
    always_ff @(posedge clk_i) begin
      re_q <= re_i;
    end

    logic [Banks*PadW-1:0] bank_do;  // the banks' output registers, all slices

    for (genvar b = 0; b < Banks; b++) begin : g_bank
      logic bank_we;
      if (Banks > 1) begin : g_dec
        assign bank_we = we_i && (wa[TileA+BankBits-1:TileA] == BankBits'(b));
      end else begin : g_one
        assign bank_we = we_i;
      end

      for (genvar c = 0; c < Cols; c++) begin : g_col
        logic [17:0] dia, dib, doa, dob;
        logic [13:0] ada, adb;
        // the word address on ADx[13:Lsb]; below it byte enables (write) or zeros
        if (TileW == 36) begin : g_w36
          assign dia = wd[c*36 +: 18];
          assign dib = wd[c*36+18 +: 18];
          assign ada = {wa[TileA-1:0], 1'b0, 4'b1111};
          assign bank_do[b*PadW+c*36 +: 36] = {dob, doa};
        end else if (TileW == 18) begin : g_w18
          assign dia = wd[c*18 +: 18];
          assign dib = '0;
          assign ada = {wa[TileA-1:0], 2'b00, 2'b11};
          assign bank_do[b*PadW+c*18 +: 18] = dob;
        end else begin : g_w9
          assign dia = {9'd0, wd[c*9 +: 9]};
          assign dib = '0;
          assign ada = {wa[TileA-1:0], 3'b000};
          assign bank_do[b*PadW+c*9 +: 9] = dob[8:0];
        end
        assign adb = {ra[TileA-1:0], Lsb'(0)};

        DP16KD #(
          .DATA_WIDTH_A(TileW), .DATA_WIDTH_B(TileW),
          .REGMODE_A(TileW == 36 ? "OUTREG" : "NOREG"), .REGMODE_B("OUTREG"),
          .RESETMODE("SYNC"), .ASYNC_RESET_RELEASE("SYNC"),
          .CSDECODE_A("0b000"), .CSDECODE_B("0b000"),
          .WRITEMODE_A("NORMAL"), .WRITEMODE_B("NORMAL"),
          .GSR("DISABLED")
        ) u_tile (
          .CLKA(clk_i), .CEA(bank_we), .WEA(1'b1), .OCEA(TileW == 36 ? re_q : 1'b0),
          .RSTA(1'b0), .CSA2(1'b0), .CSA1(1'b0), .CSA0(1'b0),
          .ADA13(ada[13]), .ADA12(ada[12]), .ADA11(ada[11]), .ADA10(ada[10]), .ADA9(ada[9]),
          .ADA8(ada[8]), .ADA7(ada[7]), .ADA6(ada[6]), .ADA5(ada[5]), .ADA4(ada[4]),
          .ADA3(ada[3]), .ADA2(ada[2]), .ADA1(ada[1]), .ADA0(ada[0]),
          .DIA17(dia[17]), .DIA16(dia[16]), .DIA15(dia[15]), .DIA14(dia[14]), .DIA13(dia[13]),
          .DIA12(dia[12]), .DIA11(dia[11]), .DIA10(dia[10]), .DIA9(dia[9]), .DIA8(dia[8]),
          .DIA7(dia[7]), .DIA6(dia[6]), .DIA5(dia[5]), .DIA4(dia[4]), .DIA3(dia[3]),
          .DIA2(dia[2]), .DIA1(dia[1]), .DIA0(dia[0]),
          .DOA17(doa[17]), .DOA16(doa[16]), .DOA15(doa[15]), .DOA14(doa[14]), .DOA13(doa[13]),
          .DOA12(doa[12]), .DOA11(doa[11]), .DOA10(doa[10]), .DOA9(doa[9]), .DOA8(doa[8]),
          .DOA7(doa[7]), .DOA6(doa[6]), .DOA5(doa[5]), .DOA4(doa[4]), .DOA3(doa[3]),
          .DOA2(doa[2]), .DOA1(doa[1]), .DOA0(doa[0]),
          .CLKB(clk_i), .CEB(1'b1), .WEB(1'b0), .OCEB(re_q),
          .RSTB(1'b0), .CSB2(1'b0), .CSB1(1'b0), .CSB0(1'b0),
          .ADB13(adb[13]), .ADB12(adb[12]), .ADB11(adb[11]), .ADB10(adb[10]), .ADB9(adb[9]),
          .ADB8(adb[8]), .ADB7(adb[7]), .ADB6(adb[6]), .ADB5(adb[5]), .ADB4(adb[4]),
          .ADB3(adb[3]), .ADB2(adb[2]), .ADB1(adb[1]), .ADB0(adb[0]),
          .DIB17(dib[17]), .DIB16(dib[16]), .DIB15(dib[15]), .DIB14(dib[14]), .DIB13(dib[13]),
          .DIB12(dib[12]), .DIB11(dib[11]), .DIB10(dib[10]), .DIB9(dib[9]), .DIB8(dib[8]),
          .DIB7(dib[7]), .DIB6(dib[6]), .DIB5(dib[5]), .DIB4(dib[4]), .DIB3(dib[3]),
          .DIB2(dib[2]), .DIB1(dib[1]), .DIB0(dib[0]),
          .DOB17(dob[17]), .DOB16(dob[16]), .DOB15(dob[15]), .DOB14(dob[14]), .DOB13(dob[13]),
          .DOB12(dob[12]), .DOB11(dob[11]), .DOB10(dob[10]), .DOB9(dob[9]), .DOB8(dob[8]),
          .DOB7(dob[7]), .DOB6(dob[6]), .DOB5(dob[5]), .DOB4(dob[4]), .DOB3(dob[3]),
          .DOB2(dob[2]), .DOB1(dob[1]), .DOB0(dob[0])
        );
      end
    end

    if (Banks > 1) begin : g_cascade
      // the read's bank index, in step with the tiles' output latch and output register
      logic [BankBits-1:0] sel1_q, sel2_q;
      always_ff @(posedge clk_i) begin
        if (re_i) begin
          sel1_q <= ra[TileA+BankBits-1:TileA];
        end
        if (re_q) begin
          sel2_q <= sel1_q;
        end
      end
      assign rdata_q = bank_do[sel2_q*PadW +: Width];
    end else begin : g_single
      assign rdata_q = bank_do[Width-1:0];
    end
  end
  assign rdata_o = rdata_q;

`ifndef SYNTHESIS
  // Out-of-range addresses only exist when Depth is not a power of two.
  always_ff @(posedge clk_i) begin
    if (we_i) begin
      assert ({1'b0, waddr_i} < ($clog2(Depth) + 1)'(Depth))
        else $error("tpu_ram: write address %0d >= Depth %0d", waddr_i, Depth);
    end
    if (re_i) begin
      assert ({1'b0, raddr_i} < ($clog2(Depth) + 1)'(Depth))
        else $error("tpu_ram: read address %0d >= Depth %0d", raddr_i, Depth);
    end
    if (we_i && re_i) begin
      assert (waddr_i != raddr_i)
        else $error("tpu_ram: read and write of address %0d in the same cycle", raddr_i);
    end
  end
`endif
endmodule

`default_nettype wire
