// tpu_readhost_ahead: one READ_HOST read ahead (tpu_cmd_proc, ReadAhead). The first READ_HOST
// of the peek (tpu_peek_decode: when no LOAD_WEIGHTS before it can join the tile queue; 1..
// StageRows rows, COLS 1..N, no FENCE flag, a span that passes the peek window check) is read
// into a staging region that no background commit uses (region_q: ring half 0 or 1, or 2: the
// StageRows rows from SecondBase on) while earlier commands run, under the same start
// conditions as a tile (tpu_readahead_ctl): as a new row stream, or joining the running tile
// stream at its address (same row bytes and stride); tiles may join after it the same way.
// The READ_HOST reaching CHECK2 with all checks passed and the same read (match_o: HOST_ADDR,
// STRIDE, ROWS, COLS, queue) adopts it (tpu_cmd_seq SRhWait): it waits until its rows are in,
// then completes and commits them in the background (tpu_bg_commit) exactly like its own last
// chunk. A stream error while its rows are due drops it (and the incomplete tiles): the command
// reads its own rows (failing exactly when one of them fails). It is passed on and dropped by
// the same commands as the tile queue (a WRITE_HOST must be apart from its span: overlap_o), so
// its rows equal the command's own read, and nothing reaches the UB before the command runs.
// RhDepth = 2: while the head is held, the next READ_HOST of the peek (the first after the
// head's own) is read ahead the same way into a region that neither the background commit nor
// the head uses, on the stream behind the head's rows (behind_i), also while the head's command
// waits for its rows or for a commit; it becomes the head when the head's command commits it
// (shift_i: the head takes the second's next state, entry_d_o). Both are dropped together (a
// WRITE_HOST must be apart from both spans); a stream error drops every one whose rows are due.
// This module is one entry (Head: the head or the second).
// Join (load_i): its read, the free region and the tiles of tpu_tile_readahead whose rows come
// before its rows on the stream (tiles_before_i). Rows: row_i writes the next row (rows_in_q)
// into the region (waddr_o, masked to the row bytes by mask_o: cols_i is COLS, 2 x COLS for a
// bf16 READ_HOST); the entry's next row is the stream's
// (next_o) once no earlier tile or head row is due. Drops (valid_q cleared), in this order
// after the row: drop_err_i (a failed row while its rows are due), abort_i (rdy_i low), drop_i
// (the sequencer), then the shift.
// Latency: a row is written in the cycle it arrives; the entry's state is registered.
`default_nettype none

module tpu_readhost_ahead #(
  parameter int unsigned N          = 16,
  parameter int unsigned StageRows  = 64,
  parameter int unsigned SecondBase = 256,  // staging row of region 2
  parameter int unsigned SAw        = 9,
  parameter int unsigned TileW      = 3,    // tile count bits (tpu_tile_readahead)
  parameter bit          Enable     = 1'b1, // 0: never holds a READ_HOST
  parameter bit          Head       = 1'b1, // the head (shift_i: take the second's state)
  parameter int unsigned RB         = N,    // staging row bytes (2N on a bf16 device)
  localparam int unsigned RowW      = $clog2(StageRows + 1),
  localparam int unsigned EntW      = 1 + RowW + 3 * 32 + 2 * 64 + 8 + 2 + TileW
) (
  input  logic             clk_i,
  input  logic             rst_i,
  // join: the peek candidate's read, its region, the tiles whose rows come first
  input  logic             load_i,
  input  logic [63:0]      addr_i,
  input  logic [31:0]      len_i,
  input  logic [31:0]      rows_i,
  input  logic [31:0]      stride_i,          // STRIDE as given
  input  logic [31:0]      cols_i,
  input  logic [7:0]       qid_i,
  input  logic [1:0]       region_i,
  input  logic [TileW-1:0] tiles_before_i,
  // the stream
  input  logic             row_i,             // this entry's next row arrives now
  input  logic             streaming_i,       // tile rows are due (tpu_tile_readahead)
  input  logic             behind_i,          // an earlier READ_HOST's rows are due
  input  logic             tile_done_i,       // a tile completes now
  // drops
  input  logic             drop_err_i,
  input  logic             abort_i,
  input  logic             drop_i,
  // the head's command has committed it: the head takes the second's next state
  // (shift_entry_i), the second is cleared
  input  logic             shift_i,
  input  logic [EntW-1:0]  shift_entry_i,
  output logic [EntW-1:0]  entry_d_o,
  // the running command (match, overlap)
  input  logic [63:0]      cmd_addr_i,
  input  logic [31:0]      cmd_len_i,
  input  logic [31:0]      cmd_stride_i,
  input  logic [31:0]      cmd_rows_i,
  input  logic [31:0]      cmd_cols_i,
  input  logic [7:0]       cmd_qid_i,
  // state
  output logic             valid_o,           // held (its rows in or due)
  output logic             due_o,             // ... rows still due
  output logic             next_o,            // its next row is the stream's next
  output logic [1:0]       region_o,
  output logic [31:0]      base_o,            // the region's first staging row
  output logic             match_o,           // the command's read is this one
  output logic             overlap_o,         // its span meets the command's span
  output logic [SAw-1:0]   waddr_o,
  output logic [RB*8-1:0]  mask_o
);
  logic             valid_q, valid_d;
  logic [RowW-1:0]  rows_in_q, rows_in_d;
  logic [31:0]      rows_q, rows_d, stride_q, stride_d, cols_q, cols_d;
  logic [63:0]      addr_q, addr_d, end_q, end_d;
  logic [7:0]       qid_q, qid_d;
  logic [1:0]       region_q, region_d;
  logic [TileW-1:0] tiles_before_q, tiles_before_d;  // incomplete tiles before its rows

  always_comb begin
    valid_d = valid_q;  rows_in_d = rows_in_q;  rows_d = rows_q;  stride_d = stride_q;
    cols_d = cols_q;  addr_d = addr_q;  end_d = end_q;  qid_d = qid_q;  region_d = region_q;
    tiles_before_d = tiles_before_q;
    if (load_i) begin
      valid_d = 1'b1;  rows_in_d = '0;  addr_d = addr_i;  end_d = addr_i + 64'(len_i);
      rows_d = rows_i;  stride_d = stride_i;  cols_d = cols_i;  qid_d = qid_i;
      region_d = region_i;
    end
    if (drop_err_i) valid_d = 1'b0;
    else if (row_i) rows_in_d = rows_in_q + 1'b1;
    if (tile_done_i && tiles_before_q != '0) tiles_before_d = tiles_before_q - 1'b1;
    if (load_i) tiles_before_d = tiles_before_i;
    if (abort_i || drop_i) valid_d = 1'b0;
    entry_d_o = {valid_d, rows_in_d, rows_d, stride_d, cols_d, addr_d, end_d, qid_d, region_d,
                 tiles_before_d};
    if (shift_i && !Head) valid_d = 1'b0;
    if (shift_i && Head) begin
      {valid_d, rows_in_d, rows_d, stride_d, cols_d, addr_d, end_d, qid_d, region_d,
       tiles_before_d} = shift_entry_i;
    end
    if (!Enable) valid_d = 1'b0;
  end
  logic unused;
  assign unused = ^shift_entry_i;  // (the second entry's)

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      valid_q <= 1'b0;
    end else begin
      valid_q <= valid_d;
    end
  end
  always_ff @(posedge clk_i) begin
    rows_in_q <= rows_in_d;  rows_q <= rows_d;  stride_q <= stride_d;  cols_q <= cols_d;
    addr_q <= addr_d;  end_q <= end_d;  qid_q <= qid_d;  region_q <= region_d;
    tiles_before_q <= tiles_before_d;
  end

  assign valid_o   = valid_q;
  assign due_o     = valid_q && 32'(rows_in_q) != rows_q;
  assign next_o    = due_o && !behind_i && (tiles_before_q == '0 || !streaming_i);
  assign region_o  = region_q;
  assign base_o    = (region_q == 2'd2) ? 32'(SecondBase) : 32'(region_q[0]) * StageRows;
  assign waddr_o   = SAw'(base_o + 32'(rows_in_q));
  assign match_o   = cmd_addr_i == addr_q && cmd_stride_i == stride_q && cmd_rows_i == rows_q &&
                     cmd_cols_i == cols_q && cmd_qid_i == qid_q;
  assign overlap_o = {1'b0, addr_q} < {1'b0, cmd_addr_i} + {33'd0, cmd_len_i} &&
                     {1'b0, cmd_addr_i} < {1'b0, end_q};
  always_comb begin
    for (int unsigned i = 0; i < RB; i++) mask_o[8*i +: 8] = (32'(i) < cols_q) ? 8'hFF : 8'h00;
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      assert (!valid_q || (rows_q != 0 && rows_q <= StageRows && 32'(rows_in_q) <= rows_q))
        else $error("tpu_readhost_ahead: rows in beyond its rows");
      assert (!valid_q || region_q != 2'd3) else $error("tpu_readhost_ahead: no such region");
      assert (!load_i || !valid_q || shift_i)
        else $error("tpu_readhost_ahead: joined while held");
    end
  end
`endif
endmodule

`default_nettype wire
