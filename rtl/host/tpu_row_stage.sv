// tpu_row_stage: a command's own rows through the staging ring of tpu_cmd_proc, for the
// sequencer's states SRowWait, SCommit, SCommitLast and SPush (tpu_cmd_seq: this engine gives
// the next values of its row counters and the next state):
//   READ_HOST     one DMA row stream of all ROWS (many MRDs in flight, rows delivered in order)
//                 into the ring of 2 x StageRows rows (bytes COLS..N-1 zeroed: tpu_cmd_proc),
//                 committed chunk by chunk (StageRows rows): when a chunk is complete and no
//                 MATMUL is in flight in the datapath, UB_WRITEs (one per cycle, through the
//                 command slot; the staging row read one cycle ahead) commit it while the stream
//                 fills the other half (rs_limit, tpu_cmd_seq, holds the stream back so that it
//                 never overwrites rows not yet committed). A failed row ends the command before
//                 its chunk is committed (transfers of ROWS <= StageRows are all-or-nothing; see
//                 docs/device.md for longer ones). With ReadAhead, once every row is in the
//                 status is final: the rows left commit in the background (bg_start_o,
//                 tpu_bg_commit) and the command completes.
//   LOAD_WEIGHTS  rows staged the same way (ROWS <= N), then N rows pushed on wpush (rows >=
//                 ROWS zero: tpu_cmd_proc), one row per cycle (the next row read while the
//                 current one is taken); the tile counts in the logical FIFO when its last row
//                 is taken (fifo_push_o). A tile read ahead is pushed the same way from its
//                 region (push_base_i).
//   LutStage      a LOAD_PARAMS LUT: its 256 / N packed rows, then SParWrite.
// Ends: a stream error (DMA_XFER_ERROR), the watchdog with no row in (CMD_TIMEOUT, the stream
// abandoned), rdy_i low (no completion; a commit or push in progress is finished first).
`default_nettype none

module tpu_row_stage #(
  parameter int unsigned N         = 16,
  parameter int unsigned StageRows = 64,
  parameter int unsigned SAw       = 9,
  parameter bit          ReadAhead = 1'b1,
  parameter int unsigned RB = N,  // UB row bytes (2N on a bf16 device): the command width
  localparam int unsigned Ring     = 2 * StageRows,
  localparam int unsigned CmdWidth = tpu_pkg::DpCmdDataLsb + 8 * RB
) (
  // the sequencer's state and registers
  input  logic                wait_i,          // SRowWait
  input  logic                commit_i,        // SCommit
  input  logic                commit_last_i,   // SCommitLast
  input  logic                push_i,          // SPush
  input  logic                rdy_i,
  input  logic                watchdog_i,
  input  logic                aborted_i,
  input  logic                status_ok_i,     // no error so far
  input  logic                is_lw_i,
  input  logic                lut_rs_i,
  input  logic [31:0]         rows_i,          // ROWS, the stream's rows, LOCAL_ADDR
  input  logic [31:0]         rows_eff_i,
  input  logic [31:0]         local_i,
  input  logic [63:0]         stride_i,
  input  logic [31:0]         rows_in_i,       // rows in, chunk base, commit / push index
  input  logic [31:0]         base_i,
  input  logic [31:0]         index_i,
  input  logic                rd_valid_i,      // the staging RAM's output holds row index
  input  logic [63:0]         host_addr_i,
  input  logic [SAw-1:0]      push_base_i,     // staging row of the tile to push
  output logic [31:0]         rows_in_o,       // ... their next values
  output logic [31:0]         base_o,
  output logic [31:0]         index_o,
  output logic                rd_valid_o,
  output logic [63:0]         host_addr_o,
  // the next state
  output logic                to_done_o,
  output logic                to_wait_o,
  output logic                to_commit_o,
  output logic                to_commit_last_o,
  output logic                to_push_o,
  output logic                to_par_write_o,
  output logic                complete_o,      // success: RESULT = ROWS x COLS
  output logic                status_set_o,
  output logic [7:0]          status_o,
  output logic                abort_o,         // the row stream abandoned
  output logic                bg_start_o,      // the rows from staging row bg_from_o commit
  output logic [31:0]         bg_from_o,       // in the background
  // the row stream, the staging RAM, the command slot, the weight rows
  input  logic                rs_row_valid_i,
  input  logic                rs_err_i,
  output logic                st_we_o,         // (at rows_in_i % Ring)
  output logic                st_re_o,
  output logic [SAw-1:0]      st_raddr_o,
  input  logic [RB*8-1:0]     st_rdata_i,
  input  logic                slot_free_i,
  input  logic                slot_mm_i,       // the slot holds a MATMUL
  input  logic                mm_idle_i,       // no MATMUL in flight
  output logic                slot_load_o,
  output logic [CmdWidth-1:0] slot_cmd_o,
  output logic                wpush_valid_o,
  input  logic                wpush_ready_i,
  output logic                fifo_push_o
);
  logic [31:0] cnt;  // rows of the current chunk
  assign cnt = (rows_i - base_i > 32'(StageRows)) ? 32'(StageRows) : rows_i - base_i;
  assign wpush_valid_o = push_i && rd_valid_i;

  always_comb begin
    logic last_row, chunk_full;
    rows_in_o = rows_in_i;  base_o = base_i;  index_o = index_i;  rd_valid_o = 1'b0;
    host_addr_o = host_addr_i;
    to_done_o = 1'b0;  to_wait_o = 1'b0;  to_commit_o = 1'b0;  to_commit_last_o = 1'b0;
    to_push_o = 1'b0;  to_par_write_o = 1'b0;  complete_o = 1'b0;
    status_set_o = 1'b0;  status_o = tpu_pkg::ScSuccess;  abort_o = 1'b0;
    bg_start_o = 1'b0;  bg_from_o = '0;
    st_we_o = 1'b0;  st_re_o = 1'b0;  st_raddr_o = SAw'((base_i + index_i) % Ring);
    slot_load_o = 1'b0;  slot_cmd_o = '0;  fifo_push_o = 1'b0;
    last_row = 1'b0;  chunk_full = 1'b0;
    if (wait_i) begin
      if (!rdy_i) begin
        to_done_o = 1'b1;
      end else if (rs_err_i) begin
        status_set_o = 1'b1;  status_o = tpu_pkg::ScDmaXferError;
        to_done_o = 1'b1;
      end else if (rs_row_valid_i) begin
        // the stream delivers the chunk's rows in order; its last one ends the chunk
        st_we_o = 1'b1;
        rows_in_o = rows_in_i + 32'd1;
        host_addr_o = host_addr_i + stride_i;
        last_row = rows_in_i + 32'd1 == rows_eff_i;
        chunk_full = rows_in_i + 32'd1 - base_i == StageRows;
        if (is_lw_i) begin
          to_push_o = last_row;
          index_o = '0;
        end else if (lut_rs_i) begin
          to_par_write_o = last_row;  // the LUT is in the ring (Ring >= LutRows)
          index_o = '0;
        end else if (ReadAhead && last_row && !aborted_i && rdy_i) begin
          // every row is in: the status is final, the chunk commits in the background
          bg_start_o = 1'b1;  bg_from_o = base_i;
        end else if (last_row || chunk_full) begin
          to_commit_o = 1'b1;
          index_o = '0;
        end
      end else if (watchdog_i) begin
        abort_o = 1'b1;
        status_set_o = 1'b1;  status_o = tpu_pkg::ScCmdTimeout;
        to_done_o = 1'b1;
      end
    end
    // commit the chunk's staged rows [base, base + cnt) to the UB once no MATMUL may still
    // read the UB; the stream meanwhile delivers the next chunk's rows into the ring
    if (commit_i || commit_last_i) begin
      // (rows and errors of the READ_HOST's stream: once it is complete, they are a
      // read-ahead stream's)
      if (rs_row_valid_i && rows_in_i != rows_i) begin
        st_we_o = 1'b1;
        rows_in_o = rows_in_i + 32'd1;
        host_addr_o = host_addr_i + stride_i;
      end
      if (rs_err_i && rows_in_i != rows_i) begin  // reported once the chunk is in
        status_set_o = 1'b1;  status_o = tpu_pkg::ScDmaXferError;
      end
    end
    if (commit_i) begin
      if (rd_valid_i && !slot_free_i) begin
        rd_valid_o = 1'b1;  // hold: the read data stays in the RAM output register
      end else begin
        if (rd_valid_i) begin
          slot_cmd_o[tpu_pkg::DpCmdOpLsb +: 4]    = tpu_pkg::DpOpUbWrite;
          slot_cmd_o[tpu_pkg::DpCmdALsb +: 32]    = local_i + base_i + index_i - 32'd1;
          slot_cmd_o[tpu_pkg::DpCmdRowsLsb +: 32] = 32'd1;
          slot_cmd_o[tpu_pkg::DpCmdDataLsb +: RB*8] = st_rdata_i;
          slot_load_o = 1'b1;
        end
        if (index_i < cnt && mm_idle_i && !slot_mm_i) begin
          st_re_o = 1'b1;
          rd_valid_o = 1'b1;
          index_o = index_i + 32'd1;
        end else if (index_i == cnt) begin
          to_commit_last_o = 1'b1;
        end
      end
    end
    if (commit_last_i && slot_free_i) begin
      if (!status_ok_i || (rs_err_i && rows_in_i != rows_i)) begin
        to_done_o = 1'b1;  // a later chunk failed: the chunks before it stay committed
      end else if (base_i + cnt == rows_i) begin
        complete_o = 1'b1;
        to_done_o = 1'b1;
      end else begin
        // next chunk: commit it at once when all of it is in, else wait for its rows
        base_o = base_i + cnt;
        index_o = '0;
        if (aborted_i) begin
          abort_o = 1'b1;
          to_done_o = 1'b1;
        end else if (ReadAhead && rows_in_o == rows_i && rdy_i) begin
          // the rest is in: commit it in the background (see SRowWait)
          bg_start_o = 1'b1;  bg_from_o = base_i + cnt;
        end else if (rows_in_o == rows_i || rows_in_o - (base_i + cnt) == 32'(StageRows) ||
                     (rows_in_o - (base_i + cnt) > 32'(StageRows) &&
                      rows_i - (base_i + cnt) > 32'(Ring))) begin
          // (on a fast link the stream may be up to a ring less one row past the committed
          // rows here, see rs_limit; SRowWait sees no chunk end then, only the last row,
          // which its rs_limit of base + Ring lets in only when ROWS - base <= Ring: else
          // the chunk is committed now)
          to_commit_o = 1'b1;
        end else begin
          to_wait_o = 1'b1;
        end
      end
    end
    // N rows onto the FIFO (staging row push_base + k, zero beyond ROWS), one per cycle: the
    // next row is read while the current one is taken
    if (push_i) begin
      st_raddr_o = push_base_i + SAw'(index_i);
      if (!rd_valid_i) begin
        st_re_o = 1'b1;
        rd_valid_o = 1'b1;
      end else if (wpush_ready_i) begin
        index_o = index_i + 32'd1;
        if (index_i + 32'd1 != N) begin
          st_re_o = 1'b1;
          st_raddr_o = push_base_i + SAw'(index_i + 32'd1);
          rd_valid_o = 1'b1;
        end
        if (index_i + 32'd1 == N) begin
          fifo_push_o = 1'b1;
          complete_o = 1'b1;
          to_done_o = 1'b1;
        end
      end else begin
        rd_valid_o = 1'b1;
      end
    end
  end
endmodule

`default_nettype wire
