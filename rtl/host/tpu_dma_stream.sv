// tpu_dma_stream: the DMA's row stream engine (tpu_dma): the bulk read path of READ_HOST /
// LOAD_WEIGHTS.
//
// Row streams (rs_req_*: ROWS rows of RB (1..RowB) bytes, row r at ADDR + r x STRIDE): rows are
// requested back to back, one MRD per row (two where a row crosses a 4 KiB boundary), as long
// as a tag is free and one of Slots row slots is free, so up to min(Tags, Slots) rows are in
// flight and the link stays busy. The next MRD is offered on mrd_* and sent, with a tag of
// tpu_dma_tags, when issue_i. Packed full rows (RB == STRIDE == RowB) are merged: one MRD asks
// for up to MergeRows consecutive rows (at most MaxReadReq bytes, never across 4 KiB, only as
// many as free slots), which saves a packet header per row; a beat's bytes land in the rows
// they belong to. A packed stream waits until MergeRows / 2 slots are free (or as many as it
// may still ask for before its end, its limit or the page end): slots free one per cycle as
// rows leave, and an MRD per freed slot would cost a header and a whole completion beat per
// row (~3 link cycles instead of ~1).
// Completion beats land in their row's slot in any order across tags; rows leave on
// rs_row_valid_o / rs_row_data_o strictly in row order (one per cycle, no back-pressure; bytes
// RB..RowB-1 are 0), each as soon as it and every earlier row are complete. A completion with a
// status other than OK, or a tag without completion for CplTimeoutCycles, ends the stream with
// rs_err_o (one cycle) and no further row; its other tags become stale (drop_o) and are drained
// as for read jobs. After the last row the stream is over (rs_req_ready_o again). rs_abort_i
// ends it silently.
// rs_limit_i (stream row index, may grow while the stream runs) holds requests back: row r is
// requested only when r < rs_limit_i, so a consumer with a bounded buffer is never overrun.
// rs_ext_*: a running stream is extended by rs_ext_rows_i rows that continue it in host memory
// (the next row at the address after the last one, same row bytes and stride), taken while
// rs_ext_ready_o (the stream has at least two rows left to deliver, so it cannot end in the
// same cycle); their MRDs follow the stream's at once, without a new round trip. With
// rs_ext_jump_i the added rows start at rs_ext_addr_i instead (same row bytes and stride: the
// READ_HOST read-ahead of tpu_cmd_proc joins a weight-tile stream, and tiles join it): the
// requests reach that address when every earlier row is requested (merged MRDs stop at the
// joint); one such joint at a time (rs_ext_ready_o is low while one is not reached yet).
// Joint = 0: rs_ext_jump_i is ignored and there is no joint state.
// Latency: the first MRD is offered the cycle after the stream is accepted; a row leaves the
// cycle after its last completion beat (when every earlier row has left).
`default_nettype none

module tpu_dma_stream #(
  parameter int unsigned LinkBytes  = 32,
  parameter int unsigned MaxReadReq = 512,
  parameter int unsigned RowB       = 16,   // largest row (N)
  parameter int unsigned Slots      = 32,   // rows in flight (power of 2)
  parameter bit          Joint      = 1'b1,
  parameter int unsigned LenW       = 9,    // tpu_dma's job length width (tpu_dma_pkt_len)
  parameter int unsigned OffsetW    = 10,   // tag offsets (tpu_dma_tags)
  // packed rows merged into one MRD: as many as MaxReadReq and the slots allow
  localparam int unsigned MergeRows   = (MaxReadReq / RowB < Slots) ? MaxReadReq / RowB : Slots,
  localparam int unsigned MergeW      = $clog2(MergeRows + 1),
  localparam int unsigned RowsPerBeat = LinkBytes / RowB + 2,  // rows one beat may touch
  localparam int unsigned RbW         = $clog2(RowB + 1),
  localparam int unsigned SlotW       = Slots > 1 ? $clog2(Slots) : 1,
  localparam int unsigned PktW        = 13
) (
  input  logic                 clk_i,
  input  logic                 rst_i,
  // streams
  input  logic                 rs_req_valid_i,
  output logic                 rs_req_ready_o,
  input  logic [63:0]          rs_req_addr_i,
  input  logic [RbW-1:0]       rs_req_rb_i,
  input  logic [63:0]          rs_req_stride_i,
  input  logic [31:0]          rs_req_rows_i,
  input  logic [31:0]          rs_limit_i,
  input  logic                 rs_ext_valid_i,
  input  logic [31:0]          rs_ext_rows_i,
  input  logic                 rs_ext_jump_i,
  input  logic [63:0]          rs_ext_addr_i,
  output logic                 rs_ext_ready_o,
  output logic                 rs_row_valid_o,
  output logic [RowB*8-1:0]    rs_row_data_o,
  output logic                 rs_err_o,
  input  logic                 rs_abort_i,
  // the next MRD, sent with a tag when issue_i
  output logic                 mrd_valid_o,
  input  logic                 issue_i,
  output logic [63:0]          mrd_addr_o,
  output logic [PktW-1:0]      mrd_len_o,
  output logic [SlotW-1:0]     mrd_slot_o,    // the slot of its first row
  output logic [OffsetW-1:0]   mrd_offset_o,  // its first byte within that row
  output logic [OffsetW-1:0]   mrd_end_o,
  // the stream's tags (tpu_dma_tags) and their completions
  input  logic                 timeout_i,
  input  logic                 cpl_valid_i,
  input  logic [OffsetW-1:0]   cpl_offset_i,
  input  logic [OffsetW-1:0]   cpl_end_i,
  input  logic [SlotW-1:0]     cpl_slot_i,
  input  logic [1:0]           hcpl_status_i,
  input  logic [LinkBytes*8-1:0] hcpl_data_i,
  output logic                 drop_o,        // the stream ends early: its tags become stale
  output logic                 active_o
);
  logic                 active_q;
  logic [63:0]          row_addr_q;      // host address of the row being requested
  logic [RbW-1:0]       row_offset_q;    // its bytes already requested
  logic [RbW-1:0]       row_bytes_q;
  logic [63:0]          stride_q;
  logic [31:0]          rows_q;
  logic [31:0]          issued_q;        // rows whose every MRD is sent
  logic [31:0]          head_q;          // rows delivered
  logic [Slots-1:0]     slot_requested_q;  // slot's row fully requested
  logic [Slots*2-1:0]   slot_pending_q;    // its MRDs without final completion
  logic [Slots*RowB*8-1:0] slot_buffer_q;
  logic                 row_valid_q, error_q;
  logic [RowB*8-1:0]    row_data_q;
  logic                 cpl_ok;          // a completion beat without error
  logic [SlotW-1:0]     head_slot;
  logic                 deliver;         // the head row is complete: it leaves now
  logic                 joint_q;         // a joint (rs_ext_jump_i) not reached yet:
  logic [31:0]          joint_row_q;     // ... row joint_row is at joint_addr
  logic [63:0]          joint_addr_q;

  logic                 fail, ext_taken, packed_rows, merge;
  logic [RbW-1:0]       row_left;      // bytes of the current row not yet requested
  logic [PktW-1:0]      row_len;       // the per-row MRD's length
  logic [31:0]          merge_rows;    // rows a merged MRD asks for

  // min(x, MergeRows) in MergeW bits (the merge count's terms, compared side by side)
  function automatic logic [MergeW-1:0] clamp_merge(input logic [31:0] x);
    clamp_merge = (x < 32'(MergeRows)) ? MergeW'(x) : MergeW'(MergeRows);
  endfunction

  assign rs_req_ready_o = !active_q;
  assign rs_ext_ready_o = active_q && rows_q - head_q > 32'd1 && !joint_q;
  assign rs_row_valid_o = row_valid_q;
  assign rs_row_data_o  = row_data_q;
  assign rs_err_o       = error_q;
  assign active_o       = active_q;

  assign fail        = timeout_i || (cpl_valid_i && hcpl_status_i != 2'd0);
  assign cpl_ok      = cpl_valid_i && hcpl_status_i == 2'd0;
  assign head_slot   = SlotW'(head_q);
  assign deliver     = active_q && !rs_abort_i && !fail && slot_requested_q[head_slot] &&
                       slot_pending_q[2*head_slot +: 2] == 2'd0;
  assign drop_o      = active_q && (rs_abort_i || fail);
  assign ext_taken   = rs_ext_valid_i && rs_ext_ready_o;
  assign packed_rows = 32'(row_bytes_q) == RowB && stride_q == 64'(RowB) && row_offset_q == '0;
  assign row_left    = row_bytes_q - row_offset_q;
  assign mrd_addr_o  = row_addr_q + 64'(row_offset_q);
  assign mrd_slot_o  = SlotW'(issued_q);
  assign mrd_offset_o = OffsetW'(row_offset_q);
  assign mrd_end_o   = OffsetW'(row_offset_q) + OffsetW'(mrd_len_o);

  tpu_dma_pkt_len #(.LeftW(LenW)) u_len (
    .left_i(LenW'(row_left)), .addr_low_i(mrd_addr_o[11:0]), .limit_i(PktW'(MaxReadReq)),
    .len_o(row_len)
  );

  // the next MRD: may a row be requested, and how many packed rows go in one MRD
  always_comb begin
    logic [31:0]      want, room;
    logic [12:0]      page_rows;
    logic [PktW-1:0]  mrd_page_rows;
    logic [MergeW-1:0] mk_a, mk_b, mk_c, mk_d, mk_e;

    // a new row may be requested when its slot is free (fewer than Slots rows not delivered);
    // a packed stream waits until half a merged MRD fits the free slots (or what it may still
    // ask for before its end, its limit or the 4 KiB page end): slots free one row per cycle,
    // and an MRD per free slot would cost a header and a whole beat per row on the link
    want = rows_q - issued_q;
    if (rs_limit_i - issued_q < want) want = rs_limit_i - issued_q;
    if (32'(MergeRows / 2) < want) want = 32'(MergeRows / 2);
    page_rows = (13'd4096 - {1'b0, row_addr_q[11:0]}) / 13'(RowB);
    if (32'(page_rows) < want) want = 32'(page_rows);
    if (joint_q && joint_row_q - issued_q < want) want = joint_row_q - issued_q;
    room = 32'(Slots) - (issued_q - head_q);
    mrd_valid_o = active_q && !rs_abort_i && !fail && issued_q != rows_q &&
                  (issued_q - head_q) < 32'(Slots) && issued_q < rs_limit_i &&
                  !(packed_rows && room < want);

    // packed full rows: as many whole rows as fit before 4 KiB, in free slots, up to
    // MergeRows (one row, or a row crossing 4 KiB, takes the per-row path). The least of the
    // rows left, the free slots, the rows below the limit, MergeRows and the rows before
    // 4 KiB: each term clamped to MergeRows first, so the compares run side by side instead
    // of as one chain (the same minimum)
    mrd_page_rows = (13'd4096 - {1'b0, mrd_addr_o[11:0]}) / PktW'(RowB);
    mk_a = clamp_merge(rows_q - issued_q);
    mk_b = clamp_merge(room);
    mk_c = clamp_merge(rs_limit_i - issued_q);
    mk_d = clamp_merge(32'(mrd_page_rows));
    mk_e = joint_q ? clamp_merge(joint_row_q - issued_q) : MergeW'(MergeRows);  // not past a joint
    if (mk_b < mk_a) mk_a = mk_b;
    if (mk_d < mk_c) mk_c = mk_d;
    if (mk_e < mk_a) mk_a = mk_e;
    if (mk_c < mk_a) mk_a = mk_c;
    merge_rows = 32'(mk_a);
    merge      = packed_rows && merge_rows >= 32'd2;
    mrd_len_o  = merge ? PktW'(merge_rows * RowB) : row_len;
  end

  // Next state, at the edge. (An always_ff with the next values as block variables rather than
  // an always_comb of *_d signals: this logic reads the link's completion inputs, and the
  // simulation evaluates combinational logic that does on both clock phases and after the
  // edge; the slot buffer and the row out are written by the blocks after this one. The logic
  // is the same.)
  always_ff @(posedge clk_i) begin
    logic               active_d, error_d, joint_d;
    logic [63:0]        row_addr_d, stride_d, joint_addr_d;
    logic [RbW-1:0]     row_offset_d, row_bytes_d;
    logic [31:0]        rows_d, issued_d, head_d, joint_row_d;
    logic [Slots-1:0]   slot_requested_d;
    logic [Slots*2-1:0] slot_pending_d;
    logic [SlotW-1:0]   slot;
    logic [OffsetW:0]   row_start, row_end;
    // row slot bookkeeping changes of this cycle, per slot (static indices): completions that
    // finish a row's MRD (done), MRDs issued (up), rows fully requested (set), the head row
    // delivered (clear); applied once at the end, so the completion and the issue logic do not
    // form one chain of dynamically indexed read-modify-writes (the ECP5 critical path)
    logic [Slots*2-1:0] slot_done, slot_up;
    logic [Slots-1:0]   slot_set, slot_clear;

    active_d         = active_q;
    row_addr_d       = row_addr_q;
    row_offset_d     = row_offset_q;
    row_bytes_d      = row_bytes_q;
    stride_d         = stride_q;
    rows_d           = rows_q + (ext_taken ? rs_ext_rows_i : 32'd0);
    issued_d         = issued_q;
    head_d           = head_q;
    slot_requested_d = slot_requested_q;
    slot_pending_d   = slot_pending_q;
    error_d          = 1'b0;
    joint_d          = joint_q;
    joint_row_d      = joint_row_q;
    joint_addr_d     = joint_addr_q;
    slot             = '0;
    row_start        = '0;
    row_end          = '0;
    slot_done        = '0;
    slot_up          = '0;
    slot_set         = '0;
    slot_clear       = '0;

    if (Joint && ext_taken && rs_ext_jump_i) begin
      joint_d      = 1'b1;
      joint_row_d  = rows_q;
      joint_addr_d = rs_ext_addr_i;
    end

    // a completion beat (its bytes go into the slot buffer, below): a row's MRD is complete
    // with the beat that holds its last byte
    if (cpl_ok) begin
      for (int unsigned j = 0; j < RowsPerBeat; j++) begin
        row_start = (OffsetW+1)'((32'(cpl_offset_i) / RowB + j) * RowB);
        row_end   = (row_start + (OffsetW+1)'(RowB) < (OffsetW+1)'(cpl_end_i))
                    ? row_start + (OffsetW+1)'(RowB) : (OffsetW+1)'(cpl_end_i);
        if (row_start < (OffsetW+1)'(cpl_end_i) && row_end > (OffsetW+1)'(cpl_offset_i) &&
            row_end <= (OffsetW+1)'(cpl_offset_i) + (OffsetW+1)'(LinkBytes)) begin
          slot = SlotW'(32'(cpl_slot_i) + 32'(cpl_offset_i) / RowB + j);
          for (int unsigned s = 0; s < Slots; s++)
            if (slot == SlotW'(s)) slot_done[2*s +: 2] = slot_done[2*s +: 2] + 2'd1;
        end
      end
    end

    // deliver the head row once complete; a failure or abort ends the stream
    if (active_q) begin
      if (rs_abort_i || fail) begin
        active_d = 1'b0;
        error_d  = !rs_abort_i;
      end else begin
        if (deliver) begin
          slot_clear[head_slot] = 1'b1;
          head_d = head_q + 32'd1;
          if (head_q + 32'd1 == rows_q) active_d = 1'b0;
        end
      end
    end

    // the MRD goes out: its rows' slots wait for it
    if (issue_i) begin
      if (merge) begin
        // the merge_rows slots from mrd_slot_o on (merge_rows <= MergeRows <= Slots: each at
        // most once), as a test per slot rather than a decode per row
        for (int unsigned s = 0; s < Slots; s++) begin
          if (32'(SlotW'(32'(s) - 32'(mrd_slot_o))) < merge_rows) begin
            slot_up[2*s +: 2] = slot_up[2*s +: 2] + 2'd1;
            slot_set[s]       = 1'b1;
          end
        end
        issued_d   = issued_q + merge_rows;
        row_addr_d = row_addr_q + 64'(mrd_len_o);
      end else begin
        slot_up[2*mrd_slot_o +: 2] = 2'd1;
        if (PktW'(row_left) == mrd_len_o) begin
          slot_set[mrd_slot_o] = 1'b1;
          issued_d     = issued_q + 32'd1;
          row_addr_d   = row_addr_q + stride_q;
          row_offset_d = '0;
        end else begin
          row_offset_d = row_offset_q + RbW'(mrd_len_o);
        end
      end
    end

    // the row slots: completions first, then the issue (mod 4, so the order does not matter);
    // only in a cycle with either (Verilator evaluated the 32 counters on every cycle)
    if (cpl_ok || issue_i) begin
      for (int unsigned s = 0; s < Slots; s++)
        slot_pending_d[2*s +: 2] = slot_pending_q[2*s +: 2] - slot_done[2*s +: 2] +
                                   slot_up[2*s +: 2];
    end
    slot_requested_d = (slot_requested_q & ~slot_clear) | slot_set;

    // a new stream
    if (rs_req_valid_i && rs_req_ready_o && rs_req_rows_i != 0) begin
      active_d         = 1'b1;
      row_addr_d       = rs_req_addr_i;
      row_offset_d     = '0;
      row_bytes_d      = rs_req_rb_i;
      stride_d         = rs_req_stride_i;
      rows_d           = rs_req_rows_i;
      issued_d         = '0;
      head_d           = '0;
      slot_requested_d = '0;
      slot_pending_d   = '0;
      joint_d          = 1'b0;
    end
    // the requests reach a joint: the next row is at its address
    if (joint_d && issued_d == joint_row_d) begin
      row_addr_d = joint_addr_d;
      joint_d    = 1'b0;
    end
    if (!active_d || !Joint) joint_d = 1'b0;

    if (rst_i) begin
      active_q    <= 1'b0;
      row_valid_q <= 1'b0;
      error_q     <= 1'b0;
      joint_q     <= 1'b0;
    end else begin
      active_q    <= active_d;
      row_valid_q <= deliver;
      error_q     <= error_d;
      joint_q     <= joint_d;
    end
    // stream state, slots and rows: no reset
    row_addr_q       <= row_addr_d;
    row_offset_q     <= row_offset_d;
    row_bytes_q      <= row_bytes_d;
    stride_q         <= stride_d;
    rows_q           <= rows_d;
    issued_q         <= issued_d;
    head_q           <= head_d;
    slot_requested_q <= slot_requested_d;
    slot_pending_q   <= slot_pending_d;
    joint_row_q      <= joint_row_d;
    joint_addr_q     <= joint_addr_d;
  end

  // a completion beat's bytes into the slot buffer: the tag covers one row (or part of one:
  // offsets within the row) or, when merged, several packed rows from its first slot (offset x
  // is byte x % RowB of row x / RowB)
  always_ff @(posedge clk_i) begin
    if (cpl_ok) begin
      for (int unsigned i = 0; i < LinkBytes; i++) begin
        logic [OffsetW:0] x;
        x = (OffsetW+1)'(cpl_offset_i) + (OffsetW+1)'(i);
        if (x < (OffsetW+1)'(cpl_end_i)) begin
          slot_buffer_q[8*(32'(SlotW'(32'(cpl_slot_i) + 32'(x) / RowB)) * RowB + 32'(x) % RowB)
                        +: 8] <= hcpl_data_i[8*i +: 8];
        end
      end
    end
  end
  // the head row out, once complete (bytes past its length 0)
  always_ff @(posedge clk_i) begin
    if (deliver) begin
      for (int unsigned i = 0; i < RowB; i++) begin
        row_data_q[8*i +: 8] <= (32'(i) < 32'(row_bytes_q))
                                ? slot_buffer_q[(32'(head_slot)*RowB + i)*8 +: 8] : 8'd0;
      end
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    logic [31:0]        cnt;           // slots in flight, from head_slot on
    logic [Slots-1:0]   run, infl;     // ... as a run from slot 0, and from head_slot
    logic [2*Slots-1:0] run2, infl2;   // the same over the 2-bit pending counters
    if (!rst_i) begin
      // a stream is taken only when ready, with a row size in range
      if (rs_req_valid_i && rs_req_ready_o && rs_req_rows_i != 0) begin
        assert (!active_q) else $error("tpu_dma_stream: stream accepted while busy");
        assert (rs_req_rb_i != '0 && 32'(rs_req_rb_i) <= RowB)
          else $error("tpu_dma_stream: rows of %0d bytes (1..%0d)", rs_req_rb_i, RowB);
      end
      if (active_q) begin
        // rows leave in order: delivered <= requested <= rows, at most Slots in flight
        assert (head_q <= issued_q && issued_q <= rows_q && issued_q - head_q <= 32'(Slots))
          else $error("tpu_dma_stream: rows %0d delivered, %0d requested of %0d", head_q,
                      issued_q, rows_q);
        // the requests never pass a joint
        assert (!joint_q || issued_q <= joint_row_q)
          else $error("tpu_dma_stream: requests past the joint at row %0d", joint_row_q);
        // a slot outside the rows in flight holds nothing: the slots in flight are the cnt
        // slots from head_slot on (all of them from Slots on), as a rotated mask, so that the
        // check is a few vector operations (a test per slot cost the simulation each cycle)
        cnt   = issued_q - head_q + (row_offset_q != '0 ? 32'd1 : 32'd0);
        run   = (cnt >= 32'(Slots)) ? '1 : ~({Slots{1'b1}} << cnt);
        run2  = (cnt >= 32'(Slots)) ? '1 : ~({2*Slots{1'b1}} << (2 * cnt));
        infl  = (run << head_slot) | (run >> (32'(Slots) - 32'(head_slot)));
        infl2 = (run2 << (2 * 32'(head_slot))) | (run2 >> (2 * (32'(Slots) - 32'(head_slot))));
        assert ((slot_requested_q & ~infl) == '0 && (slot_pending_q & ~infl2) == '0)
          else $error("tpu_dma_stream: slots busy outside the rows in flight: %b, MRDs %b",
                      slot_requested_q & ~infl, slot_pending_q & ~infl2);
      end
      if (issue_i) begin
        assert (mrd_valid_o) else $error("tpu_dma_stream: MRD sent without a row to request");
        // no row requested at or beyond rs_limit_i or the stream's end
        assert (issued_q + (merge ? merge_rows : 32'd1) <= rs_limit_i &&
                issued_q + (merge ? merge_rows : 32'd1) <= rows_q)
          else $error("tpu_dma_stream: row %0d requested, limit %0d, rows %0d", issued_q,
                      rs_limit_i, rows_q);
        assert (!merge || (merge_rows <= MergeRows && 32'(mrd_len_o) <= MaxReadReq))
          else $error("tpu_dma_stream: merged MRD of %0d rows", merge_rows);
      end
      // a row leaves only after every MRD of it went out, and never with an error
      if (deliver) assert (head_q < issued_q)
        else $error("tpu_dma_stream: row %0d not requested", head_q);
      assert (!(rs_row_valid_o && rs_err_o))
        else $error("tpu_dma_stream: a row and an error at once");
    end
  end
`endif
endmodule
