// tpu_ram: simple dual-port RAM (one write port, one read port, one clock) with a registered
// read, written in the shape Yosys maps to block RAM (iCE40 SB_RAM40_4K, ECP5 DP16KD). Every
// buffer of the design (UB, ACC, LUT replicas) is an instance of this module.
//
// Ports:
//   write: when we_i, mem[waddr_i] <= wdata_i at the rising edge.
//   read:  when re_i, rdata_o shows mem[raddr_i] from the next cycle on; rdata_o holds its value
//          while re_i is low (so a stalled pipeline can keep the read data in place).
// Latency: 1 cycle (read address in cycle t, data in cycle t+1); OutReg = 1: 2 cycles, the read
// data passes a second register (the block RAM's output register where the family has one,
// e.g. ECP5 DP16KD REGMODE OUTREG, see fpga/ecp5/tpu_ram.sv), loaded in the cycle after a read
// (re_i in t: rdata_o shows mem[raddr_i] from t + 2 on and holds until the next read's t + 2).
// A board option for clock rates where a block RAM read plus any wire or logic is too slow.
// Read and write of the same address in one cycle is NOT allowed (rdata_o would be undefined):
// block RAMs differ there, and emulating one behaviour costs ~2 x Width flip-flops per RAM, so
// the memory carries Yosys' no_rw_check attribute and an assertion flags such a cycle in
// simulation. (The simulation model itself returns the old word.)
// Contents are never reset and start undefined (random under Verilator's +verilator+rand+reset+2).
// Addresses at or above Depth (non-power-of-two Depth) are illegal: an assertion flags them.
// Block = 1 asks synthesis for block RAM even when the memory is tiny (Yosys' ram_style
// attribute; iCE40 has no distributed RAM, so a small memory would otherwise become flip-flops
// and a read mux).
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

  logic [Width-1:0] rdata_q;

  // the same memory twice: an attribute cannot depend on a parameter
  if (Block != 0) begin : g_block
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
  end else begin : g_auto
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

  if (OutReg) begin : g_out_reg
    logic             re_q;
    logic [Width-1:0] rdata2_q;
    // re_q is control state, but the read data it gates is undefined until written anyway, so
    // it needs no reset: a stray load after power-up only moves undefined data.
    always_ff @(posedge clk_i) begin
      re_q <= re_i;
      if (re_q) begin
        rdata2_q <= rdata_q;
      end
    end
    assign rdata_o = rdata2_q;
  end else begin : g_out_direct
    assign rdata_o = rdata_q;
  end

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
