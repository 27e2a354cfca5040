// tpu_tile_readahead: the LOAD_WEIGHTS read-ahead queue of tpu_cmd_proc (ReadAhead). Up to RaT
// weight tiles in RaT regions of N staging rows each (region r: staging rows Base + r x N ..),
// filled in command order by one row stream while earlier commands run, so a LOAD_WEIGHTS
// finds its rows staged and only pushes them (N cycles instead of a link round trip + N rows).
// Queue: tiles head_q .. head_q + count - 1 (mod RaT); the first `complete` are in, the next
// one fills (fill_rows_q rows in); the incomplete ones are the rows still due on the stream.
// A tile joins (join_i, one cycle; tpu_cmd_seq decides when, from tpu_peek_decode's candidate)
// while a region is free (free_o: the one being pushed is not) and the stream has not failed:
// as a new stream when none runs, else as its extension. A stream error ends the stream:
// complete tiles stay; if only the last tile was incomplete the failed row is its own
// (failed_o: its LOAD_WEIGHTS gets DMA_XFER_ERROR), else the incomplete tiles are dropped and
// their commands read their own rows (failing exactly when one of them does). A READ_HOST read
// ahead on the same stream (tpu_readhost_ahead) may own the arriving row (rh_next_i) or its
// rows may be due (rh_due_i): an error then drops every incomplete tile too.
// The sequencer adopts the head tile at CHECK2 (a LOAD_WEIGHTS with the same read: the head_*
// outputs), waits until it is complete and takes it (pop_i): its region stays reserved until
// its N rows are pushed (pushing_o, push_end_i). It drops the incomplete tiles (drop_due_i,
// with the stream aborted) or every tile (clear_i) for the commands that may not pass the
// queue; abort_i (rdy_i low): the DMA engine abandons the stream, every tile is dropped.
// Latency: a row arriving on the stream is written to the staging RAM in the same cycle
// (we_o, waddr_o, the row masked to the tile's row bytes by mask_o); the queue's state is
// registered (one cycle from join/row/drop to count/complete).
`default_nettype none

module tpu_tile_readahead #(
  parameter int unsigned N         = 16,
  parameter int unsigned RaT       = 4,    // regions (power of two >= 2)
  parameter int unsigned Base      = 128,  // staging row of region 0
  parameter int unsigned SAw       = 9,    // staging row address bits
  parameter bit          ReadAhead = 1'b1, // 0: the queue stays empty
  // staging row bytes: N, or 2N on a bf16 device (a tile's "cols" are its row bytes: COLS,
  // 2 x COLS with FLAGS.BF16)
  parameter int unsigned RB        = N,
  localparam int unsigned KW       = $clog2(N + 1),
  localparam int unsigned CW       = $clog2(RB + 1),
  localparam int unsigned RaW      = $clog2(RaT)
) (
  input  logic            clk_i,
  input  logic            rst_i,
  // a tile joins the queue now: the peek candidate
  input  logic            join_i,
  input  logic [63:0]     join_addr_i,
  input  logic [31:0]     join_len_i,
  input  logic [31:0]     join_stride_i,   // STRIDE as given
  input  logic [KW-1:0]   join_rows_i,
  input  logic [CW-1:0]   join_cols_i,
  input  logic [7:0]      join_qid_i,
  // the row stream (rows in order) and the READ_HOST read-ahead on it
  input  logic            rs_row_valid_i,
  input  logic            rs_err_i,
  input  logic            rh_due_i,        // READ_HOST read-ahead rows are due
  input  logic            rh_next_i,       // the next row is a READ_HOST read-ahead's
  // the sequencer (applied in this order, after the stream's row or error)
  input  logic            abort_i,         // rdy_i low: every tile dropped
  input  logic            drop_due_i,      // the incomplete tiles dropped
  input  logic            clear_i,         // every tile dropped
  input  logic            pop_i,           // the (complete) head tile taken for its push
  input  logic            push_end_i,      // its push has ended: its region is free
  // the running command's span (for apart_o)
  input  logic [63:0]     cmd_addr_i,
  input  logic [31:0]     cmd_len_i,
  // the queue
  output logic [RaW:0]    count_o,         // tiles queued
  output logic [RaW:0]    complete_o,      // ... of them complete
  output logic            failed_o,        // the stream failed in the last tile's rows
  output logic            pushing_o,       // the tile being pushed is in region head - 1
  output logic            streaming_o,     // rows of queued tiles still to come
  output logic            free_o,          // a region is free for one more tile
  output logic [7:0]      qid_o,           // the queue of every tile
  output logic [63:0]     head_addr_o,     // the head tile's read (HOST_ADDR, STRIDE, ROWS, COLS)
  output logic [31:0]     head_stride_o,
  output logic [KW-1:0]   head_rows_o,
  output logic [CW-1:0]   head_cols_o,
  output logic [SAw-1:0]  head_base_o,     // its first staging row
  output logic [63:0]     tail_addr_o,     // the last tile's read
  output logic [31:0]     tail_stride_o,
  output logic [KW-1:0]   tail_rows_o,
  output logic [CW-1:0]   tail_cols_o,
  output logic            apart_o,         // every queued tile's span apart from cmd_addr/len
  output logic [RaW:0]    due_after_o,     // tiles still incomplete after this cycle's row
  output logic            tile_done_o,     // a tile completes with this cycle's row
  // the staging RAM's write port
  output logic            we_o,
  output logic [SAw-1:0]  waddr_o,
  output logic [RB*8-1:0] mask_o
);
  if (RaT < 2 || (RaT & (RaT - 1)) != 0) begin : g_bad_rat
    $error("tpu_tile_readahead: RaT must be a power of two >= 2");
  end

  logic [RaW:0]      count_q, count_d, complete_q, complete_d;
  logic [RaW-1:0]    head_q, head_d;
  logic [KW-1:0]     fill_rows_q, fill_rows_d;     // rows in of the tile filling
  logic              failed_q, failed_d, pushing_q, pushing_d;
  logic [7:0]        qid_q, qid_d;
  logic [RaT*64-1:0] addr_q, addr_d, end_q, end_d;  // per region: HOST_ADDR, end of its span
  logic [RaT*32-1:0] stride_q, stride_d;
  logic [RaT*KW-1:0] rows_q, rows_d;
  logic [RaT*CW-1:0] cols_q, cols_d;
  logic [RaW-1:0]    fill, tail, slot_new;          // region filling, of the tail, of a new tile
  logic              streaming;

  assign streaming = complete_q != count_q && !failed_q;
  assign fill      = RaW'(32'(head_q) + 32'(complete_q));
  assign tail      = RaW'(32'(head_q) + 32'(count_q) - 32'd1);
  assign slot_new  = RaW'(32'(head_q) + 32'(count_q));

  always_comb begin
    count_d = count_q;  complete_d = complete_q;  head_d = head_q;  fill_rows_d = fill_rows_q;
    failed_d = failed_q;  pushing_d = pushing_q;  qid_d = qid_q;
    addr_d = addr_q;  end_d = end_q;  stride_d = stride_q;  rows_d = rows_q;  cols_d = cols_q;
    we_o = 1'b0;
    tile_done_o = 1'b0;
    if (join_i) begin
      addr_d[64*slot_new +: 64]   = join_addr_i;
      stride_d[32*slot_new +: 32] = join_stride_i;
      end_d[64*slot_new +: 64]    = join_addr_i + 64'(join_len_i);
      rows_d[KW*slot_new +: KW]   = join_rows_i;
      cols_d[CW*slot_new +: CW]   = join_cols_i;
      count_d = count_q + 1'b1;
      if (count_q == '0) qid_d = join_qid_i;
    end
    // a failed row while READ_HOST rows are due: every read-ahead still due is dropped
    if (rh_due_i && rs_err_i) begin
      count_d = complete_q;
      fill_rows_d = '0;
    end
    if (streaming && !(rh_due_i && (rs_err_i || rh_next_i))) begin
      if (rs_err_i) begin
        // the failed row is one of the incomplete tiles': when only the last tile is
        // incomplete it is that tile's (its command gets DMA_XFER_ERROR), else the incomplete
        // tiles are dropped and their commands read their own rows
        if (32'(complete_q) + 32'd1 == 32'(count_q)) failed_d = 1'b1;
        else count_d = complete_q;
        fill_rows_d = '0;
      end else if (rs_row_valid_i) begin
        we_o = 1'b1;
        if (fill_rows_q + 1'b1 == rows_q[KW*fill +: KW]) begin
          fill_rows_d = '0;
          complete_d = complete_q + 1'b1;
          tile_done_o = 1'b1;
        end else begin
          fill_rows_d = fill_rows_q + 1'b1;
        end
      end
    end
    due_after_o = streaming ? count_q - complete_d : '0;
    if (abort_i) begin
      count_d = '0;  complete_d = '0;  fill_rows_d = '0;  failed_d = 1'b0;
    end
    if (drop_due_i && streaming) begin
      count_d = complete_q;
      fill_rows_d = '0;
    end
    if (clear_i) begin
      count_d = '0;  complete_d = '0;  fill_rows_d = '0;  failed_d = 1'b0;
    end
    if (pop_i) begin
      head_d = head_q + 1'b1;
      count_d = count_d - 1'b1;
      complete_d = complete_d - 1'b1;
      pushing_d = 1'b1;
    end
    if (push_end_i) pushing_d = 1'b0;
    if (!ReadAhead) count_d = '0;  // (constant: synthesis drops the queue)
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      count_q <= '0;  complete_q <= '0;  head_q <= '0;  fill_rows_q <= '0;  failed_q <= 1'b0;
      pushing_q <= 1'b0;
    end else begin
      count_q <= count_d;  complete_q <= complete_d;  head_q <= head_d;
      fill_rows_q <= fill_rows_d;  failed_q <= failed_d;  pushing_q <= pushing_d;
    end
  end
  always_ff @(posedge clk_i) begin
    qid_q <= qid_d;  addr_q <= addr_d;  end_q <= end_d;  stride_q <= stride_d;
    rows_q <= rows_d;  cols_q <= cols_d;
  end

  always_comb begin
    apart_o = 1'b1;
    for (int unsigned r = 0; r < RaT; r++) begin
      if (32'(RaW'(r - 32'(head_q))) < 32'(count_q) &&
          {1'b0, addr_q[64*r +: 64]} < {1'b0, cmd_addr_i} + {33'd0, cmd_len_i} &&
          {1'b0, cmd_addr_i} < {1'b0, end_q[64*r +: 64]})
        apart_o = 1'b0;
    end
    for (int unsigned i = 0; i < RB; i++)
      mask_o[8*i +: 8] = (32'(i) < 32'(cols_q[CW*fill +: CW])) ? 8'hFF : 8'h00;
  end
  assign waddr_o       = SAw'(Base) + SAw'(32'(fill) * N) + SAw'(fill_rows_q);
  assign count_o       = count_q;
  assign complete_o    = complete_q;
  assign failed_o      = failed_q;
  assign pushing_o     = pushing_q;
  assign streaming_o   = streaming;
  assign free_o        = 32'(count_q) + 32'(pushing_q) < RaT;
  assign qid_o         = qid_q;
  assign head_addr_o   = addr_q[64*head_q +: 64];
  assign head_stride_o = stride_q[32*head_q +: 32];
  assign head_rows_o   = rows_q[KW*head_q +: KW];
  assign head_cols_o   = cols_q[CW*head_q +: CW];
  assign head_base_o   = SAw'(Base) + SAw'(32'(head_q) * N);
  assign tail_addr_o   = addr_q[64*tail +: 64];
  assign tail_stride_o = stride_q[32*tail +: 32];
  assign tail_rows_o   = rows_q[KW*tail +: KW];
  assign tail_cols_o   = cols_q[CW*tail +: CW];

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // the queue's counts (common_cells-style FIFO checks)
      assert (32'(count_q) + 32'(pushing_q) <= RaT)
        else $error("tpu_tile_readahead: more tiles than regions");
      assert (complete_q <= count_q) else $error("tpu_tile_readahead: more complete than queued");
      assert (!streaming || 32'(fill_rows_q) < 32'(rows_q[KW*fill +: KW]))
        else $error("tpu_tile_readahead: the filling tile has all its rows");
      assert (!failed_q || 32'(complete_q) + 32'd1 == 32'(count_q))
        else $error("tpu_tile_readahead: the failed tile is not the last");
      assert (!join_i || free_o) else $error("tpu_tile_readahead: join without a free region");
      assert (!pop_i || complete_q != '0) else $error("tpu_tile_readahead: pop of an incomplete tile");
      // a region is never written while its tile is pushed from it
      assert (!(we_o && pushing_q && fill == head_q - 1'b1))
        else $error("tpu_tile_readahead: row written into the region being pushed");
    end
  end
`endif
endmodule

`default_nettype wire
