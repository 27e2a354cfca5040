// equiv_tb: random GEMM traffic into tpu_datapath, every output event written to a trace file.
// Run twice with the same +seed: on the RTL (Verilator) and on a synthesized netlist (iverilog
// with the vendor cell models, -DNETLIST); the two traces must be identical (scripts/fpga/
// equiv.py compares them). Plain Verilog-2005 plus $value$plusargs so both simulators take it;
// the random numbers come from an xorshift64 here, not from the simulator.
//
// Program per round: UB_WRITE R random rows, PARAM (bias, multiplier, shift of every channel,
// OUTPUT zero point/clamp; the LUT once), push T weight tiles (random, half of them transposed),
// per tile one or two MATMULs (the first of a round without ACCUMULATE, POP on a tile's last
// one), then ACTIVATE (random LUT / RAW32), ACC_READ and UB_READ with random back-pressure;
// then a MATMUL with an int8 ACTIVATE beside it (disjoint ranges) and both read back.
// Only rows written earlier are ever read, so no uninitialised RAM content reaches the trace.
// Trace lines (sampled at each rising edge, with the cycle number): "RD" read beats,
// "MM" mm_done, "ACT" act_done + act_result, "ST" idle/tiles/params_loaded when they change.
// Plusargs: +seed=<n> +rounds=<n> +trace=<file>. The size parameters must match the netlist's.
`timescale 1ns / 1ps
`default_nettype none

module equiv_tb;
  parameter N       = 4;
  parameter UbRows  = 64;
  parameter AccRows = 32;
  parameter Tiles   = 2;
  localparam CmdWidth = 104 + 8 * N;
  localparam TileBits = $clog2(Tiles + 2);
  localparam RMax     = (AccRows / 2 < UbRows / 2 ? AccRows / 2 : UbRows / 2);

  reg                 clk = 1'b0;
  reg                 rst = 1'b1;
  reg                 cmd_valid = 1'b0;
  wire                cmd_ready;
  reg  [CmdWidth-1:0] cmd = {CmdWidth{1'b0}};
  reg                 wpush_valid = 1'b0;
  wire                wpush_ready;
  reg  [N*8-1:0]      wpush_row = {N*8{1'b0}};
  reg                 wpush_transpose = 1'b0;
  wire                rd_valid;
  reg                 rd_ready = 1'b1;
  wire [N*32-1:0]     rd_data;
  wire                rd_last, mm_done, act_done, idle;
  wire [31:0]         act_result;
  wire [TileBits-1:0] tiles;
  wire [4:0]          params_loaded;
  wire [63:0]         perf_busy, perf_mxu_busy, perf_macs;

  // the netlist has its parameters built in; the RTL gets the profile's (all of them, the
  // sizes included) from scripts/fpga/equiv.py's equiv_dut_params.vh
`ifdef NETLIST
  tpu_datapath dut (
`else
  tpu_datapath
`include "equiv_dut_params.vh"
  dut (
`endif
    .clk_i(clk), .rst_i(rst),
    .cmd_valid_i(cmd_valid), .cmd_ready_o(cmd_ready), .cmd_i(cmd),
    .wpush_valid_i(wpush_valid), .wpush_ready_o(wpush_ready), .wpush_row_i(wpush_row),
    .wpush_transpose_i(wpush_transpose),
    .rd_valid_o(rd_valid), .rd_ready_i(rd_ready), .rd_data_o(rd_data), .rd_last_o(rd_last),
    .mm_done_o(mm_done), .act_done_o(act_done), .act_result_o(act_result), .idle_o(idle),
    .tiles_o(tiles), .params_loaded_o(params_loaded),
    .perf_busy_o(perf_busy), .perf_mxu_busy_o(perf_mxu_busy), .perf_macs_o(perf_macs)
  );

  always #5 clk = ~clk;

  // ---------------------------------------------------------------- random numbers
  reg [63:0] rs;
  task next;
    begin
      rs = rs ^ (rs << 13);
      rs = rs ^ (rs >> 7);
      rs = rs ^ (rs << 17);
    end
  endtask
  function [31:0] below;  // rs mod n (after next)
    input [31:0] n;
    begin
      below = rs[63:32] % n;
    end
  endfunction

  // ---------------------------------------------------------------- trace
  integer fd, cycle = 0;
  reg [TileBits+5:0] st_q = {(TileBits+6){1'b1}};
  reg cmd_fire_q = 1'b0, wp_fire_q = 1'b0;
  always @(posedge clk) begin
    cycle <= cycle + 1;
    cmd_fire_q <= cmd_valid && cmd_ready;
    wp_fire_q  <= wpush_valid && wpush_ready;
    if (!rst) begin
      if (rd_valid && rd_ready) $fdisplay(fd, "%0d RD %h %b", cycle, rd_data, rd_last);
      // (with the perf counters: they are compared at every MATMUL's end)
      if (mm_done) $fdisplay(fd, "%0d MM %h %h %h", cycle, perf_busy, perf_mxu_busy, perf_macs);
      if (act_done) $fdisplay(fd, "%0d ACT %h", cycle, act_result);
      if ({idle, tiles, params_loaded} !== st_q) begin
        $fdisplay(fd, "%0d ST %b %h %b", cycle, idle, tiles, params_loaded);
        st_q <= {idle, tiles, params_loaded};
      end
    end
  end

  // random read back-pressure, decided at the falling edge
  reg [63:0] bp = 64'h9e3779b97f4a7c15;
  always @(negedge clk) begin
    bp = bp ^ (bp << 13);
    bp = bp ^ (bp >> 7);
    bp = bp ^ (bp << 17);
    rd_ready = bp[40:38] != 3'd0;
  end

  // ---------------------------------------------------------------- stimulus (at falling edges)
  // send: present one command and wait (falling edge by falling edge) until it was taken
  task send;
    input [3:0]  op;
    input [3:0]  flags;
    input [31:0] a, b, rows;
    input [N*8-1:0] data;
    begin
      cmd_valid = 1'b1;
      cmd = {data, rows, b, a, flags, op};
      @(negedge clk);
      while (!cmd_fire_q) @(negedge clk);
      cmd_valid = 1'b0;
    end
  endtask

  task push_row;
    input [N*8-1:0] row;
    input           tr;
    begin
      wpush_valid = 1'b1;
      wpush_row = row;
      wpush_transpose = tr;
      @(negedge clk);
      while (!wp_fire_q) @(negedge clk);
      wpush_valid = 1'b0;
    end
  endtask

  task wait_idle;
    begin
      @(negedge clk);
      while (!idle || rd_valid) @(negedge clk);
    end
  endtask

  function [N*8-1:0] rand_row;  // N random bytes from rs (advanced by the caller per 8 bytes)
    input [63:0] s0;
    input [63:0] s1;
    reg [127:0] w;
    integer k;
    begin
      w = {s1, s0};
      for (k = 0; k < N; k = k + 1) rand_row[8*k +: 8] = w[(8*k) % 128 +: 8] ^ (k * 8'h3b);
    end
  endfunction

  function [N*8-1:0] wide;  // zero-extends a parameter value to a UB row
    input [31:0] x;
    begin
      wide = {N*8{1'b0}};
      wide[31:0] = x;
    end
  endfunction

  integer seed, rounds, round, r, j, t, k, R, T, nmm, first;
  reg [63:0] s0;
  reg [31:0] v;
  reg [7:0]  qa, qb;
  reg [3:0]  fl;
  reg [256*8-1:0] tracefile;

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("rounds=%d", rounds)) rounds = 4;
    if (!$value$plusargs("trace=%s", tracefile)) tracefile = "trace.txt";
    fd = $fopen(tracefile, "w");
    rs = 64'h2545f4914f6cdd1d ^ seed;
    repeat (4) @(negedge clk);
    rst = 1'b0;
    @(negedge clk);
    // the LUT once (256 writes), a pseudo-random permutation-ish table
    for (k = 0; k < 256; k = k + 1) begin
      next;
      send(4'd1, 4'd3, k, 0, 1, wide(rs[47:40]));
    end
    for (round = 0; round < rounds; round = round + 1) begin
      next; R = 1 + below(RMax);
      next; T = 1 + below(Tiles);
      // activations
      for (r = 0; r < R; r = r + 1) begin
        next; s0 = rs; next;
        send(4'd0, 4'd0, r, 0, 1, rand_row(s0, rs));
      end
      // per-channel parameters: bias (small or any), multiplier (any int32), shift -31..30
      for (j = 0; j < N; j = j + 1) begin
        next; v = rs[20] ? rs[63:32] : {{12{rs[19]}}, rs[19:0]};
        send(4'd1, 4'd0, j, 0, 1, wide(v));
        next; v = rs[21] ? rs[63:32] : {2'b01, rs[61:32]};
        send(4'd1, 4'd1, j, 0, 1, wide(v));
        next; v = below(62) - 31;
        send(4'd1, 4'd2, j, 0, 1, wide(v));
      end
      next; qa = rs[47:40]; qb = rs[55:48];
      if ($signed(qa) > $signed(qb)) begin qa = rs[55:48]; qb = rs[47:40]; end
      if (rs[3]) begin qa = 8'h80; qb = 8'h7f; end
      send(4'd1, 4'd4, 0, 0, 1, wide({qb, qa, rs[63:56]}));
      // weight tiles
      for (t = 0; t < T; t = t + 1) begin
        next; k = rs[5];
        for (r = 0; r < N; r = r + 1) begin
          next; s0 = rs; next;
          push_row(rand_row(s0, rs), k[0]);
        end
      end
      // MATMULs: ACC[0..R) (+)= UB[0..R) x tile
      first = 1;
      for (t = 0; t < T; t = t + 1) begin
        next; nmm = 1 + rs[9];
        for (k = 0; k < nmm; k = k + 1) begin
          fl = {2'b00, k == nmm - 1, first == 0};
          send(4'd2, fl, 0, 0, R, {N*8{1'b0}});
          first = 0;
        end
      end
      // ACTIVATE: LUT or RAW32 (RAW32 writes ACC[AccRows/2 ..]), then read everything back
      next;
      if (rs[7:6] == 2'd0) begin
        send(4'd3, 4'd2, 0, AccRows / 2, R, {N*8{1'b0}});
        send(4'd5, 4'd0, AccRows / 2, 0, R, {N*8{1'b0}});
      end else begin
        send(4'd3, {3'b000, rs[8]}, 0, UbRows / 2, R, {N*8{1'b0}});
        send(4'd4, 4'd0, UbRows / 2, 0, R, {N*8{1'b0}});
      end
      send(4'd5, 4'd0, 0, 0, R, {N*8{1'b0}});
      send(4'd4, 4'd0, 0, 0, R, {N*8{1'b0}});
      wait_idle;
      // an int8 ACTIVATE beside a MATMUL (accepted while the MXU still works: the MATMUL does
      // not accumulate and its ranges, ACC[AccRows/2 ..) and UB[0 ..), lie apart from the
      // ACTIVATE's, ACC[0 ..) and UB[UbRows/2 ..)), then both results read back
      send(4'd2, 4'd0, 0, AccRows / 2, R, {N*8{1'b0}});
      send(4'd3, {3'b000, rs[10]}, 0, UbRows / 2, R, {N*8{1'b0}});
      send(4'd5, 4'd0, AccRows / 2, 0, R, {N*8{1'b0}});
      send(4'd4, 4'd0, UbRows / 2, 0, R, {N*8{1'b0}});
      wait_idle;
    end
    repeat (8) @(negedge clk);
    $fdisplay(fd, "END %0d %h %h %h", cycle, perf_busy, perf_mxu_busy, perf_macs);
    $fclose(fd);
    $finish;
  end
endmodule

`default_nettype wire
