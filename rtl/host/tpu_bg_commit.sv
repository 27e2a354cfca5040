// tpu_bg_commit: the READ_HOST background commit of tpu_cmd_proc (ReadAhead). Once every row of
// a READ_HOST is in the staging RAM without error its status is final: it completes, and the
// rows not yet committed go to the UB beside the next commands (start_i: staging rows
// [from_i, off_i + ROWS) hold UB rows LOCAL_ADDR + row - off_i; region 2 (a second READ_HOST's
// region, tpu_readhost_ahead) is addressed directly, the ring halves modulo Ring).
// Per row: the staging row is read in a cycle when the sequencer leaves the staging read port
// free (rd_ok_i), and issued as a UB_WRITE in the next cycle (issue_o, cmd_o into the command
// slot) when the slot is free and the sequencer's state issues nothing (slot_ok_i); else it is
// read again. With BgBypass the UB_WRITE may instead go beside a MATMUL waiting in the slot
// (bypass_i: taken at once, tpu_dp_slot). Rows are read only once every MATMUL accepted before
// the READ_HOST that reads its UB rows has written its last row (mm_q counts them down with
// mm_done_i; the UB rows read by the MATMULs in flight are tracked as one range, mm_lo/mm_hi,
// exact enough: tpu_gemm's MATMULs read the K-tiles below the ones read ahead). It runs on when
// rdy_i drops (the READ_HOST has completed: its rows must reach the UB).
// pass_o: the command in the SQE register may start beside it: a MATMUL that reads none of its
// UB rows still to come (rows read by MATMULs accepted after it are never written by it), a
// LOAD_WEIGHTS (its own row stream waits; a read-ahead tile is pushed from its own region), a
// LOAD_PARAMS that is no staged LUT, a NOP; everything else, and a FENCE flag, waits for its
// end (tpu_cmd_seq, in SFence).
`default_nettype none

module tpu_bg_commit #(
  parameter int unsigned N         = 16,
  parameter int unsigned StageRows = 64,
  parameter int unsigned SAw       = 9,
  parameter bit          ReadAhead = 1'b1,
  parameter int unsigned RB = N,  // UB row bytes (2N on a bf16 device): the command width
  localparam int unsigned Ring     = 2 * StageRows,
  localparam int unsigned CmdWidth = tpu_pkg::DpCmdDataLsb + 8 * RB
) (
  input  logic                clk_i,
  input  logic                rst_i,
  // start: the READ_HOST in the SQE register
  input  logic                start_i,
  input  logic [31:0]         from_i,        // first staging row to commit
  input  logic [31:0]         off_i,         // staging row of the READ_HOST's row 0
  input  logic                from_head_i,   // its rows are the READ_HOST read-ahead head's
  input  logic [1:0]          head_region_i, // ... in this region
  input  logic [31:0]         cmd_local_i,   // LOCAL_ADDR, ROWS of the command
  input  logic [31:0]         cmd_rows_i,
  input  logic [7:0]          cmd_op_i,      // (pass_o)
  input  logic                cmd_lut_staged_i,
  // MATMULs: accepted now (from the slot), in flight, done
  input  logic                mm_accept_i,
  input  logic [31:0]         mm_a_i,        // its first UB row and rows
  input  logic [31:0]         mm_rows_i,
  input  logic [15:0]         mm_flight_i,
  input  logic [15:0]         mm_flight_d_i, // (after this cycle)
  input  logic                mm_done_i,
  // the staging read port, the command slot
  input  logic                rd_ok_i,
  input  logic                slot_ok_i,
  input  logic                bypass_i,
  input  logic [RB*8-1:0]     st_rdata_i,
  output logic                re_o,
  output logic [SAw-1:0]      raddr_o,
  output logic                issue_o,
  output logic [CmdWidth-1:0] cmd_o,         // the UB_WRITE of the row read last cycle
  // state
  output logic                active_o,
  output logic                rd_valid_o,    // the staging RAM's output holds its row
  output logic [1:0]          region_o,
  output logic                pass_o,
  // (assertions: every write to the staging RAM)
  input  logic                st_we_i,
  input  logic [SAw-1:0]      st_waddr_i
);
  logic        active_q, active_d, rd_valid_q, rd_valid_d;
  logic [15:0] mm_q, mm_d;       // MATMULs accepted before it, still in flight
  logic [31:0] row_q, row_d, rows_q, rows_d, local_q, local_d;
  logic [1:0]  region_q, region_d;
  logic [31:0] mm_lo_q, mm_lo_d, mm_hi_q, mm_hi_d;  // UB rows [lo, hi) of the MATMULs in flight

  always_comb begin
    active_d = active_q;  rd_valid_d = 1'b0;  row_d = row_q;  rows_d = rows_q;
    local_d = local_q;  region_d = region_q;
    mm_d = mm_q - 16'(mm_q != '0 && mm_done_i);
    re_o = 1'b0;
    raddr_o = '0;
    issue_o = 1'b0;
    if (start_i) begin
      // (only MATMULs in flight that read the READ_HOST's UB rows hold the commit back)
      active_d = 1'b1;
      mm_d = (mm_flight_i != '0 && {1'b0, mm_lo_q} < {1'b0, cmd_local_i} + {1'b0, cmd_rows_i} &&
              cmd_local_i < mm_hi_q) ? mm_flight_d_i : '0;
      // (32-bit sums are exact: below UbRows)
      row_d = from_i;  rows_d = off_i + cmd_rows_i;  local_d = cmd_local_i - off_i;
      region_d = from_head_i ? head_region_i : {1'b0, from_i[$clog2(StageRows)]};
    end
    if (active_q) begin
      issue_o = !bypass_i && rd_valid_q && slot_ok_i;
      if (bypass_i || issue_o) begin
        row_d = row_q + 32'd1;
        if (row_q + 32'd1 == rows_q) active_d = 1'b0;
      end
      if (rd_ok_i && mm_q == '0 && row_d != rows_q) begin
        re_o = 1'b1;
        raddr_o = (region_q == 2'd2) ? SAw'(row_d) : SAw'(row_d % Ring);
        rd_valid_d = 1'b1;
      end
    end
    if (!ReadAhead) active_d = 1'b0;
    // the union of the UB rows read by the MATMULs accepted since none was in flight
    mm_lo_d = mm_lo_q;  mm_hi_d = mm_hi_q;
    if (mm_accept_i) begin
      if (mm_flight_i == '0 || mm_a_i < mm_lo_q) mm_lo_d = mm_a_i;
      if (mm_flight_i == '0 || mm_a_i + mm_rows_i > mm_hi_q) mm_hi_d = mm_a_i + mm_rows_i;
    end
  end
  always_comb begin
    cmd_o = '0;
    cmd_o[tpu_pkg::DpCmdOpLsb +: 4]    = tpu_pkg::DpOpUbWrite;
    cmd_o[tpu_pkg::DpCmdALsb +: 32]    = local_q + row_q;
    cmd_o[tpu_pkg::DpCmdRowsLsb +: 32] = 32'd1;
    cmd_o[tpu_pkg::DpCmdDataLsb +: RB*8] = st_rdata_i;
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      active_q <= 1'b0;  rd_valid_q <= 1'b0;  mm_q <= '0;
    end else begin
      active_q <= active_d;  rd_valid_q <= rd_valid_d;  mm_q <= mm_d;
    end
  end
  always_ff @(posedge clk_i) begin
    row_q <= row_d;  rows_q <= rows_d;  local_q <= local_d;  region_q <= region_d;
    mm_lo_q <= mm_lo_d;  mm_hi_q <= mm_hi_d;
  end

  always_comb begin
    pass_o = 1'b0;
    unique case (cmd_op_i)
      tpu_pkg::OpMatmul:
        pass_o = {1'b0, cmd_local_i} + {1'b0, cmd_rows_i} <= {1'b0, local_q + row_q} ||
                 {1'b0, local_q + rows_q} <= {1'b0, cmd_local_i};
      tpu_pkg::OpLoadWeights, tpu_pkg::OpNop: pass_o = 1'b1;
      tpu_pkg::OpLoadParams: pass_o = !cmd_lut_staged_i;
      default: pass_o = 1'b0;
    endcase
  end
  assign active_o   = active_q;
  assign rd_valid_o = rd_valid_q;
  assign region_o   = region_q;

`ifndef SYNTHESIS
  logic [31:0] wr_rel;  // a staging write's distance from the next row to commit
  logic        wr_hit;  // ... in the rows still to commit
  assign wr_rel = (region_q == 2'd2) ? 32'(st_waddr_i) - row_q
                                     : (32'(st_waddr_i) - row_q) % Ring;
  assign wr_hit = wr_rel < rows_q - row_q && (region_q == 2'd2 || 32'(st_waddr_i) < Ring);
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      assert (!start_i || !active_q) else $error("tpu_bg_commit: started while active");
      assert (!active_q || (row_q < rows_q && rows_q - row_q <= Ring))
        else $error("tpu_bg_commit: rows left out of range");
      // its UB_WRITEs only once the MATMULs that read those UB rows are done
      assert (!(active_q && (issue_o || bypass_i)) || (mm_q == '0 && rd_valid_q))
        else $error("tpu_bg_commit: UB_WRITE before the MATMULs in flight are done");
      // a staging row is never overwritten before it is committed
      assert (!(active_q && st_we_i && wr_hit))
        else $error("tpu_bg_commit: staging row overwritten before its commit");
    end
  end
`endif
endmodule

`default_nettype wire
