// tpu_dma: the device's DMA engines on the link (docs/link.md): one read job, one row stream and
// one write job at a time, all split into link packets. This file is the structural top: the
// engines, each in a file of its own, and the request output they share:
//   tpu_dma_read    read jobs (rd_*): an SQE or a parameter vector, split into MRDs and
//                   reassembled from completions that arrive in any order
//   tpu_dma_stream  row streams (rs_*): READ_HOST / LOAD_WEIGHTS rows, merged MRDs, the limit,
//                   extensions and joints
//   tpu_dma_write   write jobs (wr_*): MWRs and MSIs, in the order accepted
//   tpu_dma_tags    the read tags the first two share: allocation, completion routing, timeouts
//   tpu_dma_pkt_len packet lengths (limit and 4 KiB boundaries), used by each engine
//
// The request output: beats go through one register (beat_*_q), so a beat is stable while
// dreq_ready_i is low. When the register is free, the write engine's beat goes first (a packet
// in progress, else a new write packet), else the row stream's MRD, else the read job's (a read
// job only runs alone, for an SQE or a parameter vector). A read engine whose turn it is takes
// the round robin's next tag if free and skips it if busy (its MRD waits a cycle).
// Completions (hcpl_*) are always accepted (hcpl_ready_o = 1) and go to the engine that owns
// their tag.
// wr_idle_o: no write job left. idle_o: nothing of any engine left on the link: no read job,
// row stream or write job, no beat waiting on dreq and no MRD without its completion (stale
// ones included), so every host access the engines were asked for has been made (tpu_regs
// holds a window write until then).
//
// Latency: a job's first beat is on dreq one cycle after it is accepted (if the link is free).
`default_nettype none

module tpu_dma #(
  parameter int unsigned LinkBytes        = 32,
  parameter int unsigned MaxPayload       = 256,
  parameter int unsigned MaxReadReq       = 512,
  parameter int unsigned Tags             = 32,
  parameter int unsigned CplTimeoutCycles = 4096,
  parameter int unsigned RdBytes          = 256,  // largest read job
  parameter int unsigned WrBytes          = 64,   // largest write job
  parameter int unsigned RowB             = 16,   // largest row of a row stream (N)
  parameter int unsigned Slots            = 32,   // rows of a row stream in flight (power of 2)
  parameter bit          Joint            = 1'b1  // rs_ext_jump_i (0: ignored, no joint state)
) (
  input  logic                     clk_i,
  input  logic                     rst_i,
  // read jobs
  input  logic                     rd_req_valid_i,
  output logic                     rd_req_ready_o,
  input  logic [63:0]              rd_req_addr_i,
  input  logic [LenW-1:0]          rd_req_len_i,
  input  logic                     rd_abort_i,
  output logic                     rd_done_o,
  output logic                     rd_err_o,
  output logic [RdBytes*8-1:0]     rd_buf_o,
  // row streams
  input  logic                     rs_req_valid_i,
  output logic                     rs_req_ready_o,
  input  logic [63:0]              rs_req_addr_i,
  input  logic [RbW-1:0]           rs_req_rb_i,
  input  logic [63:0]              rs_req_stride_i,
  input  logic [31:0]              rs_req_rows_i,
  input  logic [31:0]              rs_limit_i,     // rows below this may be requested now
  input  logic                     rs_ext_valid_i, // add rows to the running stream
  input  logic [31:0]              rs_ext_rows_i,
  input  logic                     rs_ext_jump_i,  // ... starting at rs_ext_addr_i
  input  logic [63:0]              rs_ext_addr_i,
  output logic                     rs_ext_ready_o,
  output logic                     rs_row_valid_o,
  output logic [RowB*8-1:0]        rs_row_data_o,
  output logic                     rs_err_o,
  input  logic                     rs_abort_i,
  // write jobs
  input  logic                     wr_req_valid_i,
  output logic                     wr_req_ready_o,
  input  logic [63:0]              wr_req_addr_i,
  input  logic [LenW-1:0]          wr_req_len_i,
  input  logic                     wr_req_msi_i,
  input  logic [WrBytes*8-1:0]     wr_req_data_i,
  input  logic                     wr_abort_i,
  output logic                     wr_idle_o,
  output logic                     idle_o,
  // link: device requests
  output logic                     dreq_valid_o,
  input  logic                     dreq_ready_i,
  output logic [1:0]               dreq_kind_o,
  output logic [7:0]               dreq_tag_o,
  output logic [12:0]              dreq_len_o,
  output logic [63:0]              dreq_addr_o,
  output logic [LinkBytes*8-1:0]   dreq_data_o,
  output logic                     dreq_last_o,
  // link: host completions
  input  logic                     hcpl_valid_i,
  output logic                     hcpl_ready_o,
  input  logic [7:0]               hcpl_tag_i,
  input  logic [1:0]               hcpl_status_i,
  input  logic [LinkBytes*8-1:0]   hcpl_data_i,
  input  logic                     hcpl_last_i
);
  localparam int unsigned MaxJob  = RdBytes > WrBytes ? RdBytes : WrBytes;
  localparam int unsigned LenW    = $clog2(MaxJob + 1);
  localparam int unsigned TagW    = Tags > 1 ? $clog2(Tags) : 1;
  localparam int unsigned BufB    = RdBytes + LinkBytes;  // tpu_dma_read's buffer
  localparam int unsigned MergeRows = (MaxReadReq / RowB < Slots) ? MaxReadReq / RowB : Slots;
  localparam int unsigned MergeB  = MergeRows * RowB;      // tpu_dma_stream's merged MRD
  // tag offsets: bytes in a read job or a merged MRD, and a last beat's overhang
  localparam int unsigned OffsetW = $clog2(((BufB > MergeB + LinkBytes) ? BufB
                                                                        : MergeB + LinkBytes) + 1);
  localparam int unsigned PktW    = 13;
  localparam int unsigned RbW     = $clog2(RowB + 1);
  localparam int unsigned SlotW   = Slots > 1 ? $clog2(Slots) : 1;

  localparam logic [1:0] KindMrd = 2'd0;
  localparam logic [1:0] KindMwr = 2'd1;
  localparam logic [1:0] KindMsi = 2'd2;

  if (Tags < 1 || Tags > 256) begin : g_bad_tags
    $error("tpu_dma: Tags must be in 1..256");
  end
  if (MaxPayload < 4 || MaxPayload > 4096 || MaxReadReq < 4 || MaxReadReq > 4096) begin : g_bad_pkt
    $error("tpu_dma: MaxPayload and MaxReadReq must be in 4..4096");
  end
  if (RowB < 1 || RowB > MaxReadReq || RowB >= BufB || Slots < 2 || (Slots & (Slots - 1)) != 0)
  begin : g_bad_rows
    $error("tpu_dma: RowB must be in 1..MaxReadReq, Slots a power of two >= 2");
  end
  if (LinkBytes < 4 || (LinkBytes & (LinkBytes - 1)) != 0) begin : g_bad_lb
    $error("tpu_dma: LinkBytes must be a power of two >= 4");
  end

  // ---------------------------------------------------------------- the request output
  logic                   beat_valid_q;
  logic [1:0]             beat_kind_q;
  logic [7:0]             beat_tag_q;
  logic [PktW-1:0]        beat_len_q;
  logic [63:0]            beat_addr_q;
  logic [LinkBytes*8-1:0] beat_data_q;
  logic                   beat_last_q;
  logic                   beat_free;

  // ---------------------------------------------------------------- the engines
  logic                   read_mrd_valid, read_issue, read_timeout, read_pending, read_cpl;
  logic                   read_drop, read_active;
  logic [63:0]            read_mrd_addr;
  logic [PktW-1:0]        read_mrd_len;
  logic [OffsetW-1:0]     read_mrd_offset, read_mrd_end;
  logic                   stream_mrd_valid, stream_issue, stream_timeout, stream_cpl;
  logic                   stream_drop, stream_active;
  logic [63:0]            stream_mrd_addr;
  logic [PktW-1:0]        stream_mrd_len;
  logic [SlotW-1:0]       stream_mrd_slot;
  logic [OffsetW-1:0]     stream_mrd_offset, stream_mrd_end;
  logic                   write_valid, write_msi, write_last, write_active;
  logic [PktW-1:0]        write_len;
  logic [63:0]            write_addr;
  logic [LinkBytes*8-1:0] write_data;
  logic                   tag_turn, tag_free, tags_busy;
  logic [TagW-1:0]        next_tag;
  logic [OffsetW-1:0]     cpl_offset, cpl_end;
  logic [SlotW-1:0]       cpl_slot;

  tpu_dma_tags #(
    .LinkBytes(LinkBytes), .Tags(Tags), .CplTimeoutCycles(CplTimeoutCycles), .Slots(Slots),
    .OffsetW(OffsetW)
  ) u_tags (
    .clk_i, .rst_i,
    .turn_i(tag_turn), .next_tag_o(next_tag), .next_free_o(tag_free),
    .alloc_stream_i(stream_mrd_valid), .alloc_slot_i(stream_mrd_slot),
    .alloc_offset_i(stream_mrd_valid ? stream_mrd_offset : read_mrd_offset),
    .alloc_end_i(stream_mrd_valid ? stream_mrd_end : read_mrd_end),
    .read_drop_i(read_drop), .stream_drop_i(stream_drop),
    .hcpl_valid_i, .hcpl_tag_i, .hcpl_status_i, .hcpl_last_i,
    .cpl_read_o(read_cpl), .cpl_stream_o(stream_cpl), .cpl_offset_o(cpl_offset),
    .cpl_end_o(cpl_end), .cpl_slot_o(cpl_slot),
    .read_timeout_o(read_timeout), .stream_timeout_o(stream_timeout),
    .read_pending_o(read_pending), .busy_o(tags_busy)
  );

  tpu_dma_read #(
    .LinkBytes(LinkBytes), .MaxReadReq(MaxReadReq), .RdBytes(RdBytes), .LenW(LenW),
    .OffsetW(OffsetW)
  ) u_read (
    .clk_i, .rst_i,
    .rd_req_valid_i, .rd_req_ready_o, .rd_req_addr_i, .rd_req_len_i, .rd_abort_i,
    .rd_done_o, .rd_err_o, .rd_buf_o,
    .mrd_valid_o(read_mrd_valid), .issue_i(read_issue), .mrd_addr_o(read_mrd_addr),
    .mrd_len_o(read_mrd_len), .mrd_offset_o(read_mrd_offset), .mrd_end_o(read_mrd_end),
    .timeout_i(read_timeout), .pending_i(read_pending), .cpl_valid_i(read_cpl),
    .cpl_offset_i(cpl_offset), .cpl_end_i(cpl_end), .hcpl_status_i, .hcpl_data_i,
    .drop_o(read_drop), .active_o(read_active)
  );

  tpu_dma_stream #(
    .LinkBytes(LinkBytes), .MaxReadReq(MaxReadReq), .RowB(RowB), .Slots(Slots), .Joint(Joint),
    .LenW(LenW), .OffsetW(OffsetW)
  ) u_stream (
    .clk_i, .rst_i,
    .rs_req_valid_i, .rs_req_ready_o, .rs_req_addr_i, .rs_req_rb_i, .rs_req_stride_i,
    .rs_req_rows_i, .rs_limit_i, .rs_ext_valid_i, .rs_ext_rows_i, .rs_ext_jump_i,
    .rs_ext_addr_i, .rs_ext_ready_o, .rs_row_valid_o, .rs_row_data_o, .rs_err_o, .rs_abort_i,
    .mrd_valid_o(stream_mrd_valid), .issue_i(stream_issue), .mrd_addr_o(stream_mrd_addr),
    .mrd_len_o(stream_mrd_len), .mrd_slot_o(stream_mrd_slot),
    .mrd_offset_o(stream_mrd_offset), .mrd_end_o(stream_mrd_end),
    .timeout_i(stream_timeout), .cpl_valid_i(stream_cpl), .cpl_offset_i(cpl_offset),
    .cpl_end_i(cpl_end), .cpl_slot_i(cpl_slot), .hcpl_status_i, .hcpl_data_i,
    .drop_o(stream_drop), .active_o(stream_active)
  );

  tpu_dma_write #(
    .LinkBytes(LinkBytes), .MaxPayload(MaxPayload), .WrBytes(WrBytes), .LenW(LenW)
  ) u_write (
    .clk_i, .rst_i,
    .wr_req_valid_i, .wr_req_ready_o, .wr_req_addr_i, .wr_req_len_i, .wr_req_msi_i,
    .wr_req_data_i, .wr_abort_i,
    .beat_valid_o(write_valid), .beat_free_i(beat_free), .beat_msi_o(write_msi),
    .beat_len_o(write_len), .beat_addr_o(write_addr), .beat_data_o(write_data),
    .beat_last_o(write_last), .active_o(write_active)
  );

  // the write engine first, then the row stream, then the read job
  assign beat_free    = !beat_valid_q || dreq_ready_i;
  assign tag_turn     = beat_free && !write_valid && (stream_mrd_valid || read_mrd_valid);
  assign stream_issue = tag_turn && tag_free && stream_mrd_valid;
  assign read_issue   = tag_turn && tag_free && !stream_mrd_valid;

  // The beat register's next state at the edge (not an always_comb of *_d signals: beat_free
  // reads dreq_ready_i, and the simulation evaluates combinational logic on the link's inputs
  // on both clock phases; the logic is the same)
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      beat_valid_q <= 1'b0;
    end else begin
      beat_valid_q <= (beat_valid_q && !dreq_ready_i) || (beat_free && write_valid) ||
                      stream_issue || read_issue;
    end
  end

  // the beat's fields: no reset
  always_ff @(posedge clk_i) begin
    if (beat_free && write_valid) begin
      beat_kind_q  <= write_msi ? KindMsi : KindMwr;
      beat_tag_q   <= '0;
      beat_len_q   <= write_len;
      beat_addr_q  <= write_addr;
      beat_data_q  <= write_data;
      beat_last_q  <= write_last;
    end else if (stream_issue || read_issue) begin
      beat_kind_q  <= KindMrd;
      beat_tag_q   <= 8'(next_tag);
      beat_len_q   <= stream_issue ? stream_mrd_len : read_mrd_len;
      beat_addr_q  <= stream_issue ? stream_mrd_addr : read_mrd_addr;
      beat_data_q  <= '0;
      beat_last_q  <= 1'b1;
    end
  end

  assign dreq_valid_o = beat_valid_q;
  assign dreq_kind_o  = beat_kind_q;
  assign dreq_tag_o   = beat_tag_q;
  assign dreq_len_o   = beat_len_q;
  assign dreq_addr_o  = beat_addr_q;
  assign dreq_data_o  = beat_data_q;
  assign dreq_last_o  = beat_last_q;
  assign hcpl_ready_o = 1'b1;
  assign wr_idle_o    = !write_active && !beat_valid_q;
  assign idle_o       = !read_active && !stream_active && !write_active && !beat_valid_q &&
                        !tags_busy;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    // dreq: valid is held and the beat stable until accepted
    if (!rst_i && $past(!rst_i) && $past(dreq_valid_o && !dreq_ready_i)) begin
      assert (dreq_valid_o && dreq_kind_o == $past(dreq_kind_o) && dreq_tag_o == $past(dreq_tag_o)
              && dreq_len_o == $past(dreq_len_o) && dreq_addr_o == $past(dreq_addr_o)
              && dreq_data_o == $past(dreq_data_o) && dreq_last_o == $past(dreq_last_o))
        else $error("tpu_dma: dreq beat changed while stalled");
    end
    if (!rst_i && dreq_valid_o) begin
      assert ({19'd0, dreq_len_o} >= 1 && ({2'b0, dreq_addr_o[11:0]} + {1'b0, dreq_len_o} <= 14'd4096))
        else $error("tpu_dma: packet of %0d bytes at %h crosses 4 KiB", dreq_len_o, dreq_addr_o);
      // packet limits: an MRD within MaxReadReq with a tag below Tags, an MWR within MaxPayload
      assert (dreq_kind_o == KindMrd ? ({19'd0, dreq_len_o} <= MaxReadReq && dreq_last_o &&
                                        {24'd0, dreq_tag_o} < Tags)
                                     : {19'd0, dreq_len_o} <= MaxPayload)
        else $error("tpu_dma: packet of kind %0d, %0d bytes, tag %0d", dreq_kind_o, dreq_len_o,
                    dreq_tag_o);
    end
    // one engine at a time on the request output
    if (!rst_i) assert (!(stream_issue && read_issue) && !(beat_free && write_valid &&
                        (stream_issue || read_issue)))
      else $error("tpu_dma: two engines on the request output");
  end
`endif
endmodule
