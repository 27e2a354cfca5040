// tpu_dma: the device's DMA engines on the link (docs/link.md): one read job, one row stream and
// one write job at a time, all split into link packets; output beats go through one register so
// a beat is stable while dreq_ready_i is low.
//
// Row streams (rs_req_*: ROWS rows of RB (1..RowB) bytes, row r at ADDR + r x STRIDE): the bulk
// read path of READ_HOST / LOAD_WEIGHTS. Rows are requested back to back, one MRD per row (two
// where a row crosses a 4 KiB boundary), as long as a tag is free and one of Slots row slots is
// free, so up to min(Tags, Slots) rows are in flight and the link stays busy. Packed full rows
// (RB == STRIDE == RowB) are merged: one MRD asks for up to MergeRows consecutive rows (at most
// MaxReadReq bytes, never across 4 KiB, only as many as free slots), which saves a packet
// header per row; a beat's bytes land in the rows they belong to. A packed stream waits until
// MergeRows / 2 slots are free (or as many as it may still ask for before its end, its limit or
// the page end): slots free one per cycle as rows leave, and an MRD per freed slot would cost
// a header and a whole completion beat per row (~3 link cycles instead of ~1). Completion beats
// land in their row's slot in any order across tags; rows leave on rs_row_valid_o /
// rs_row_data_o strictly in row order (one per cycle, no back-pressure; bytes RB..RowB-1 are
// 0), each as soon as it and every earlier row are complete. A completion with a status other
// than OK, or a tag without completion for CplTimeoutCycles, ends the stream with rs_err_o (one
// cycle) and no further row; its other tags become stale and are drained as for read jobs.
// After the last row the stream is over (rs_req_ready_o again). rs_abort_i ends it silently.
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
//
// Read jobs (rd_req_*, len 1..RdBytes): split at MaxReadReq and at 4 KiB boundaries of the host
// address into MRDs, each with a free tag below Tags (allocated round robin, so a tag freed by a
// timeout is reused as late as possible). Completion beats of different tags may interleave and
// arrive out of order: each tag remembers its byte offset in the job, and beats land in a
// reassembly buffer (bytes outside their request are masked). rd_done_o pulses once per job,
// with rd_err_o when any completion had a status other than OK or did not arrive within
// CplTimeoutCycles of its request; then rd_buf_o[8*i +: 8] holds job byte i (valid until the
// next job is accepted). On error the job ends at once: its outstanding tags become stale,
// their late completions are drained and dropped, and the tags are freed by them (or by their
// own timeout). A job accepted in the cycle rd_done_o pulses is fine.
// rd_abort_i abandons the read job (no rd_done_o), like an error.
//
// Write jobs (wr_req_*, len 1..WrBytes, data byte i in wr_req_data_i[8*i +: 8]): accepted when
// wr_req_ready_o, copied, and sent as MWRs of at most MaxPayload bytes that never cross a 4 KiB
// boundary, in order; wr_req_msi_i sends the job (len 4) as one MSI packet instead. Jobs are
// sent in the order accepted, after any earlier job, so a CQE follows its data and an MSI its
// CQE. wr_idle_o: no write job left. wr_abort_i drops the queued job after the packet in
// progress (a started packet is always finished: a valid beat is never withdrawn).
// idle_o: nothing of any engine left on the link: no read job, row stream or write job, no beat
// waiting on dreq and no MRD without its completion (stale ones included), so every host access
// the engines were asked for has been made (tpu_regs holds a window write until then).
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
  localparam int unsigned BufB    = RdBytes + LinkBytes;  // slack for a last beat's overhang
  // packed rows merged into one MRD: as many as MaxReadReq and the slots allow
  localparam int unsigned MergeRows = (MaxReadReq / RowB < Slots) ? MaxReadReq / RowB : Slots;
  localparam int unsigned MergeB  = MergeRows * RowB;
  localparam int unsigned MkW     = $clog2(MergeRows + 1);
  localparam int unsigned OffW    = $clog2(((BufB > MergeB + LinkBytes) ? BufB : MergeB + LinkBytes) + 1);
  localparam int unsigned RowsPerBeat = LinkBytes / RowB + 2;  // rows one beat may touch
  localparam int unsigned TmrW    = $clog2(CplTimeoutCycles + 1);
  localparam int unsigned BeatW   = $clog2(LinkBytes + 1);
  localparam int unsigned PktW    = 13;
  localparam int unsigned RbW     = $clog2(RowB + 1);
  localparam int unsigned SlW     = Slots > 1 ? $clog2(Slots) : 1;

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

  // smallest of the remaining bytes, a packet limit and the distance to the next 4 KiB boundary
  function automatic logic [PktW-1:0] pkt_len(input logic [LenW-1:0] left,
                                               input logic [11:0] addr_lo,
                                               input logic [PktW-1:0] lim);
    logic [PktW-1:0] to_4k, l;
    to_4k = 13'd4096 - {1'b0, addr_lo};
    l = PktW'(left);
    if (lim < l) l = lim;
    if (to_4k < l) l = to_4k;
    pkt_len = l;
  endfunction

  // min(x, MergeRows) in MkW bits (the merge count's terms, compared side by side)
  function automatic logic [MkW-1:0] clamp_mr(input logic [31:0] x);
    clamp_mr = (x < 32'(MergeRows)) ? MkW'(x) : MkW'(MergeRows);
  endfunction

  // ---------------------------------------------------------------- output beat register
  logic                   ov_valid_q, ov_valid_d;
  logic [1:0]             ov_kind_q, ov_kind_d;
  logic [7:0]             ov_tag_q, ov_tag_d;
  logic [12:0]            ov_len_q, ov_len_d;
  logic [63:0]            ov_addr_q, ov_addr_d;
  logic [LinkBytes*8-1:0] ov_data_q, ov_data_d;
  logic                   ov_last_q, ov_last_d;
  logic                   ov_free;

  assign ov_free      = !ov_valid_q || dreq_ready_i;
  assign dreq_valid_o = ov_valid_q;
  assign dreq_kind_o  = ov_kind_q;
  assign dreq_tag_o   = ov_tag_q;
  assign dreq_len_o   = ov_len_q;
  assign dreq_addr_o  = ov_addr_q;
  assign dreq_data_o  = ov_data_q;
  assign dreq_last_o  = ov_last_q;

  // ---------------------------------------------------------------- read engine state
  logic              rj_active_q, rj_active_d;
  logic [63:0]       rj_addr_q, rj_addr_d;     // next MRD address
  logic [LenW-1:0]   rj_left_q, rj_left_d;     // bytes not yet requested
  logic [OffW-1:0]   rj_off_q, rj_off_d;       // job offset of the next MRD
  logic [Tags-1:0]   tag_busy_q, tag_busy_d;   // MRD sent, completion not finished
  logic [Tags-1:0]   tag_own_q, tag_own_d;     // belongs to the current job (else stale)
  logic [Tags*OffW-1:0] tag_off_q, tag_off_d;  // job offset of the tag's next beat
  logic [Tags*OffW-1:0] tag_end_q, tag_end_d;  // job offset just past the tag's bytes
  logic [Tags*TmrW-1:0] tag_tmr_q, tag_tmr_d;
  logic [TagW-1:0]   next_tag_q, next_tag_d;
  logic [BufB*8-1:0] buf_q, buf_d;
  logic              done_q, done_d, err_q, err_d;
  logic [Tags-1:0]   tag_rs_q, tag_rs_d;       // tag belongs to the row stream
  logic [Tags*SlW-1:0] tag_slot_q, tag_slot_d; // its row slot

  // ---------------------------------------------------------------- row stream state
  logic                 rs_active_q, rs_active_d;
  logic [63:0]          rs_raddr_q, rs_raddr_d;    // host address of the row being requested
  logic [RbW-1:0]       rs_roff_q, rs_roff_d;      // its bytes already requested
  logic [RbW-1:0]       rs_rb_q, rs_rb_d;
  logic [63:0]          rs_stride_q, rs_stride_d;
  logic [31:0]          rs_rows_q, rs_rows_d;
  logic [31:0]          rs_issue_q, rs_issue_d;    // rows whose every MRD is sent
  logic [31:0]          rs_head_q, rs_head_d;      // rows delivered
  logic [Slots-1:0]     sl_req_q, sl_req_d;        // slot's row fully requested
  logic [Slots*2-1:0]   sl_pend_q, sl_pend_d;      // its MRDs without final completion
  logic [Slots*RowB*8-1:0] sl_buf_q, sl_buf_d;
  logic                 rsv_q, rsv_d, rserr_q, rserr_d;
  logic [RowB*8-1:0]    rsdata_q, rsdata_d;
  logic                 jp_q, jp_d;                // a joint (rs_ext_jump_i) not reached yet:
  logic [31:0]          jp_row_q, jp_row_d;        // ... row jp_row is at jp_addr
  logic [63:0]          jp_addr_q, jp_addr_d;

  // ---------------------------------------------------------------- write engine state
  logic                 wj_active_q, wj_active_d;
  logic [63:0]          wj_addr_q, wj_addr_d;
  logic [LenW-1:0]      wj_left_q, wj_left_d;
  logic                 wj_msi_q, wj_msi_d;
  logic [WrBytes*8-1:0] wj_data_q, wj_data_d;
  logic                 pk_active_q, pk_active_d;  // an MWR packet is being sent
  logic [PktW-1:0]      pk_left_q, pk_left_d;      // bytes of the packet not yet sent
  logic [PktW-1:0]      pk_len_q, pk_len_d;
  logic [63:0]          pk_addr_q, pk_addr_d;
  logic                 wdrop_q, wdrop_d;          // abort seen: drop the job after the packet

  assign rd_req_ready_o = !rj_active_q;
  assign rd_done_o      = done_q;
  assign rd_err_o       = err_q;
  assign rd_buf_o       = buf_q[RdBytes*8-1:0];
  assign rs_req_ready_o = !rs_active_q;
  assign rs_ext_ready_o = rs_active_q && rs_rows_q - rs_head_q > 32'd1 && !jp_q;
  assign rs_row_valid_o = rsv_q;
  assign rs_row_data_o  = rsdata_q;
  assign rs_err_o       = rserr_q;
  assign wr_req_ready_o = !wj_active_q;
  assign wr_idle_o      = !wj_active_q && !ov_valid_q;
  assign idle_o         = !rj_active_q && !rs_active_q && !wj_active_q && !ov_valid_q &&
                          tag_busy_q == '0;
  assign hcpl_ready_o   = 1'b1;

  // ---------------------------------------------------------------- next state
  always_comb begin
    logic [PktW-1:0]  plen;
    logic [BeatW-1:0] bbytes;
    logic [TagW-1:0]  ct;
    logic             ct_ok, job_fail;
    logic [OffW-1:0]  o, e;
    logic             beat_taken;
    logic [PktW-1:0]  pleft;
    logic             rs_fail, rs_can;
    logic [31:0]      rs_want;
    logic [12:0]      rs_pgr;
    logic [SlW-1:0]   cs, hs, is, ms;
    logic [RbW-1:0]   rleft;
    logic [63:0]      maddr;
    logic [OffW:0]    x, rs0, rend;
    logic [31:0]      mk, room;
    logic [PktW-1:0]  pg;
    logic             merge;
    // row slot bookkeeping changes of this cycle, per slot (static indices): completions that
    // finish a row's MRD (dn), MRDs issued (up), rows fully requested (set), the head row
    // delivered (clr); applied once at the end, so the completion and the issue logic do not
    // form one chain of dynamically indexed read-modify-writes (the ECP5 critical path)
    logic [Slots*2-1:0] sl_dn, sl_up;
    logic [MkW-1:0]     mk_a, mk_b, mk_c, mk_d, mk_e;
    logic [Slots-1:0]   sl_set, sl_clr;

    ov_valid_d = ov_valid_q && !dreq_ready_i;
    ov_kind_d  = ov_kind_q;
    ov_tag_d   = ov_tag_q;
    ov_len_d   = ov_len_q;
    ov_addr_d  = ov_addr_q;
    ov_data_d  = ov_data_q;
    ov_last_d  = ov_last_q;

    rj_active_d = rj_active_q;
    rj_addr_d   = rj_addr_q;
    rj_left_d   = rj_left_q;
    rj_off_d    = rj_off_q;
    tag_busy_d  = tag_busy_q;
    tag_own_d   = tag_own_q;
    tag_off_d   = tag_off_q;
    tag_end_d   = tag_end_q;
    tag_tmr_d   = tag_tmr_q;
    next_tag_d  = next_tag_q;
    buf_d       = buf_q;
    done_d      = 1'b0;
    err_d       = 1'b0;
    job_fail    = 1'b0;
    tag_rs_d    = tag_rs_q;
    tag_slot_d  = tag_slot_q;
    rs_active_d = rs_active_q;
    rs_raddr_d  = rs_raddr_q;
    rs_roff_d   = rs_roff_q;
    rs_rb_d     = rs_rb_q;
    rs_stride_d = rs_stride_q;
    rs_rows_d   = rs_rows_q + ((rs_ext_valid_i && rs_ext_ready_o) ? rs_ext_rows_i : 32'd0);
    jp_d        = jp_q;
    jp_row_d    = jp_row_q;
    jp_addr_d   = jp_addr_q;
    if (Joint && rs_ext_valid_i && rs_ext_ready_o && rs_ext_jump_i) begin
      jp_d      = 1'b1;
      jp_row_d  = rs_rows_q;
      jp_addr_d = rs_ext_addr_i;
    end
    rs_issue_d  = rs_issue_q;
    rs_head_d   = rs_head_q;
    sl_req_d    = sl_req_q;
    sl_pend_d   = sl_pend_q;
    sl_buf_d    = sl_buf_q;
    rsv_d       = 1'b0;
    rserr_d     = 1'b0;
    rsdata_d    = rsdata_q;
    rs_fail     = 1'b0;
    rs_can      = 1'b0;
    cs          = '0;
    hs          = '0;
    is          = '0;
    ms          = '0;
    rleft       = '0;
    maddr       = '0;
    x           = '0;
    rs0         = '0;
    rend        = '0;
    mk          = '0;
    room        = '0;
    pg          = '0;
    merge       = 1'b0;
    sl_dn       = '0;
    mk_a        = '0;
    mk_b        = '0;
    mk_c        = '0;
    mk_d        = '0;
    mk_e        = '0;
    sl_up       = '0;
    sl_set      = '0;
    sl_clr      = '0;

    wj_active_d = wj_active_q;
    wj_addr_d   = wj_addr_q;
    wj_left_d   = wj_left_q;
    wj_msi_d    = wj_msi_q;
    wj_data_d   = wj_data_q;
    pk_active_d = pk_active_q;
    pk_left_d   = pk_left_q;
    pk_len_d    = pk_len_q;
    pk_addr_d   = pk_addr_q;
    wdrop_d     = wdrop_q || wr_abort_i;
    plen        = '0;
    bbytes      = '0;
    beat_taken  = 1'b0;
    pleft       = '0;
    o           = '0;
    e           = '0;

    // ---- tag timers: a completion that never comes frees its tag and fails its job
    for (int unsigned t = 0; t < Tags; t++) begin
      if (tag_busy_q[t]) begin
        if (tag_tmr_q[t*TmrW +: TmrW] == TmrW'(CplTimeoutCycles)) begin
          tag_busy_d[t] = 1'b0;
          tag_own_d[t]  = 1'b0;
          if (tag_own_q[t]) begin
            if (tag_rs_q[t]) rs_fail = 1'b1;
            else job_fail = 1'b1;
          end
        end else begin
          tag_tmr_d[t*TmrW +: TmrW] = tag_tmr_q[t*TmrW +: TmrW] + 1'b1;
        end
      end
    end

    // ---- host completions (always accepted)
    ct    = TagW'(hcpl_tag_i);
    ct_ok = hcpl_valid_i && ({24'd0, hcpl_tag_i} < Tags) && tag_busy_q[ct];
    if (ct_ok) begin
      if (hcpl_last_i || hcpl_status_i != 2'd0) begin
        tag_busy_d[ct] = 1'b0;
        tag_own_d[ct]  = 1'b0;
      end
      if (tag_own_q[ct] && tag_rs_q[ct]) begin
        // row stream: the tag covers one row (or part of one: offsets within the row) or, when
        // merged, several packed rows from its first slot (offset x is byte x % RowB of row
        // x / RowB); a row's MRD is complete with the beat that holds its last byte
        cs = tag_slot_q[ct*SlW +: SlW];
        if (hcpl_status_i != 2'd0) begin
          rs_fail = 1'b1;
        end else begin
          o = tag_off_q[ct*OffW +: OffW];
          e = tag_end_q[ct*OffW +: OffW];
          for (int unsigned i = 0; i < LinkBytes; i++) begin
            x = (OffW+1)'(o) + (OffW+1)'(i);
            if (x < (OffW+1)'(e)) begin
              sl_buf_d[8*(32'(SlW'(32'(cs) + 32'(x) / RowB)) * RowB + 32'(x) % RowB) +: 8] =
                hcpl_data_i[8*i +: 8];
            end
          end
          tag_off_d[ct*OffW +: OffW] = o + OffW'(LinkBytes);
          for (int unsigned j = 0; j < RowsPerBeat; j++) begin
            rs0  = (OffW+1)'((32'(o) / RowB + j) * RowB);
            rend = (rs0 + (OffW+1)'(RowB) < (OffW+1)'(e)) ? rs0 + (OffW+1)'(RowB) : (OffW+1)'(e);
            if (rs0 < (OffW+1)'(e) && rend > (OffW+1)'(o) &&
                rend <= (OffW+1)'(o) + (OffW+1)'(LinkBytes)) begin
              ms = SlW'(32'(cs) + 32'(o) / RowB + j);
              for (int unsigned s = 0; s < Slots; s++)
                if (ms == SlW'(s)) sl_dn[2*s +: 2] = sl_dn[2*s +: 2] + 2'd1;
            end
          end
        end
      end else if (tag_own_q[ct]) begin
        if (hcpl_status_i != 2'd0) begin
          job_fail = 1'b1;
        end else begin
          o = tag_off_q[ct*OffW +: OffW];
          e = tag_end_q[ct*OffW +: OffW];
          for (int unsigned i = 0; i < LinkBytes; i++) begin
            if (OffW'(o + OffW'(i)) < e) begin
              buf_d[8*(o + OffW'(i)) +: 8] = hcpl_data_i[8*i +: 8];
            end
          end
          tag_off_d[ct*OffW +: OffW] = o + OffW'(LinkBytes);
        end
      end
    end

    // ---- read job end: all bytes requested and every owned completion in, or a failure
    if (rj_active_q) begin
      if (rd_abort_i || job_fail) begin
        rj_active_d = 1'b0;
        tag_own_d   = tag_own_d & tag_rs_q;  // the job's tags become stale
        done_d      = !rd_abort_i;
        err_d       = 1'b1;
      end else if (rj_left_q == '0 && ((tag_own_d & ~tag_rs_q) == '0)) begin
        rj_active_d = 1'b0;
        done_d      = 1'b1;
      end
    end

    // ---- row stream: deliver the head row once complete; a failure or abort ends the stream
    if (rs_active_q) begin
      if (rs_abort_i || rs_fail) begin
        rs_active_d = 1'b0;
        rserr_d     = !rs_abort_i;
        for (int unsigned t = 0; t < Tags; t++) if (tag_rs_q[t]) tag_own_d[t] = 1'b0;
      end else begin
        hs = SlW'(rs_head_q);
        if (sl_req_q[hs] && sl_pend_q[2*hs +: 2] == 2'd0) begin
          rsv_d        = 1'b1;
          for (int unsigned i = 0; i < RowB; i++) begin
            rsdata_d[8*i +: 8] = (32'(i) < 32'(rs_rb_q)) ? sl_buf_q[(32'(hs)*RowB + i)*8 +: 8] : 8'd0;
          end
          sl_clr[hs]   = 1'b1;
          rs_head_d    = rs_head_q + 32'd1;
          if (rs_head_q + 32'd1 == rs_rows_q) rs_active_d = 1'b0;
        end
      end
    end
    // a new row may be requested when its slot is free (fewer than Slots rows not delivered);
    // a packed stream waits until half a merged MRD fits the free slots (or what it may still
    // ask for before its end, its limit or the 4 KiB page end): slots free one row per cycle,
    // and an MRD per free slot would cost a header and a whole beat per row on the link
    rs_want = rs_rows_q - rs_issue_q;
    if (rs_limit_i - rs_issue_q < rs_want) rs_want = rs_limit_i - rs_issue_q;
    if (32'(MergeRows / 2) < rs_want) rs_want = 32'(MergeRows / 2);
    rs_pgr = (13'd4096 - {1'b0, rs_raddr_q[11:0]}) / 13'(RowB);
    if (32'(rs_pgr) < rs_want) rs_want = 32'(rs_pgr);
    if (jp_q && jp_row_q - rs_issue_q < rs_want) rs_want = jp_row_q - rs_issue_q;
    rs_can = rs_active_q && !rs_abort_i && !rs_fail && rs_issue_q != rs_rows_q &&
             (rs_issue_q - rs_head_q) < 32'(Slots) && rs_issue_q < rs_limit_i &&
             !(32'(rs_rb_q) == RowB && rs_stride_q == 64'(RowB) && rs_roff_q == '0 &&
               32'(Slots) - (rs_issue_q - rs_head_q) < rs_want);

    // ---- output beat: packet in progress, else a new write packet, else an MRD (row stream
    // first: a read job only runs alone, for an SQE or a parameter vector)
    if (ov_free) begin
      if (pk_active_q) begin
        beat_taken = 1'b1;
      end else if (wj_active_q && !wdrop_q && !wr_abort_i) begin
        plen        = wj_msi_q ? PktW'(4) : pkt_len(wj_left_q, wj_addr_q[11:0], PktW'(MaxPayload));
        pk_active_d = 1'b1;
        pk_len_d    = plen;
        pk_left_d   = plen;
        pk_addr_d   = wj_addr_q;
        beat_taken  = 1'b1;
      end else if (rs_can) begin
        if (tag_busy_q[next_tag_q]) begin
          next_tag_d = (32'(next_tag_q) == Tags - 1) ? '0 : next_tag_q + 1'b1;  // skip it
        end else begin
          is    = SlW'(rs_issue_q);
          rleft = rs_rb_q - rs_roff_q;
          maddr = rs_raddr_q + 64'(rs_roff_q);
          plen  = pkt_len(LenW'(rleft), maddr[11:0], PktW'(MaxReadReq));
          // packed full rows: as many whole rows as fit before 4 KiB, in free slots, up to
          // MergeRows (one row, or a row crossing 4 KiB, takes the per-row path)
          room  = 32'(Slots) - (rs_issue_q - rs_head_q);
          pg    = (13'd4096 - {1'b0, maddr[11:0]}) / PktW'(RowB);
          // the least of the rows left, the free slots, the rows below the limit, MergeRows
          // and the rows before 4 KiB: each term clamped to MergeRows first, so the compares
          // run side by side instead of as one chain (the same minimum)
          mk_a  = clamp_mr(rs_rows_q - rs_issue_q);
          mk_b  = clamp_mr(room);
          mk_c  = clamp_mr(rs_limit_i - rs_issue_q);
          mk_d  = clamp_mr(32'(pg));
          mk_e  = jp_q ? clamp_mr(jp_row_q - rs_issue_q) : MkW'(MergeRows);  // not past a joint
          if (mk_b < mk_a) mk_a = mk_b;
          if (mk_d < mk_c) mk_c = mk_d;
          if (mk_e < mk_a) mk_a = mk_e;
          if (mk_c < mk_a) mk_a = mk_c;
          mk    = 32'(mk_a);
          merge = 32'(rs_rb_q) == RowB && rs_stride_q == 64'(RowB) && rs_roff_q == '0 &&
                  mk >= 32'd2;
          if (merge) plen = PktW'(mk * RowB);
          ov_valid_d = 1'b1;
          ov_kind_d  = KindMrd;
          ov_tag_d   = 8'(next_tag_q);
          ov_len_d   = plen;
          ov_addr_d  = maddr;
          ov_data_d  = '0;
          ov_last_d  = 1'b1;
          tag_busy_d[next_tag_q] = 1'b1;
          tag_own_d[next_tag_q]  = 1'b1;
          tag_rs_d[next_tag_q]   = 1'b1;
          tag_slot_d[next_tag_q*SlW +: SlW] = is;
          tag_off_d[next_tag_q*OffW +: OffW] = OffW'(rs_roff_q);
          tag_end_d[next_tag_q*OffW +: OffW] = OffW'(rs_roff_q) + OffW'(plen);
          tag_tmr_d[next_tag_q*TmrW +: TmrW] = '0;
          next_tag_d = (32'(next_tag_q) == Tags - 1) ? '0 : next_tag_q + 1'b1;
          if (merge) begin
            for (int unsigned j = 0; j < MergeRows; j++) begin
              if (32'(j) < mk) begin
                ms = SlW'(32'(is) + j);
                for (int unsigned s = 0; s < Slots; s++) begin
                  if (ms == SlW'(s)) begin
                    sl_up[2*s +: 2] = sl_up[2*s +: 2] + 2'd1;
                    sl_set[s]       = 1'b1;
                  end
                end
              end
            end
            rs_issue_d  = rs_issue_q + mk;
            rs_raddr_d  = rs_raddr_q + 64'(plen);
          end else begin
            sl_up[2*is +: 2] = 2'd1;
            if (PktW'(rleft) == plen) begin
              sl_set[is]   = 1'b1;
              rs_issue_d   = rs_issue_q + 32'd1;
              rs_raddr_d   = rs_raddr_q + rs_stride_q;
              rs_roff_d    = '0;
            end else begin
              rs_roff_d    = rs_roff_q + RbW'(plen);
  end
          end
        end
      end else if (rj_active_q && !rd_abort_i && !job_fail && rj_left_q != '0) begin
        if (tag_busy_q[next_tag_q]) begin
          next_tag_d = (32'(next_tag_q) == Tags - 1) ? '0 : next_tag_q + 1'b1;  // skip it
        end else begin
          plen       = pkt_len(rj_left_q, rj_addr_q[11:0], PktW'(MaxReadReq));
          ov_valid_d = 1'b1;
          ov_kind_d  = KindMrd;
          ov_tag_d   = 8'(next_tag_q);
          ov_len_d   = plen;
          ov_addr_d  = rj_addr_q;
          ov_data_d  = '0;
          ov_last_d  = 1'b1;
          tag_busy_d[next_tag_q] = 1'b1;
          tag_own_d[next_tag_q]  = 1'b1;
          tag_rs_d[next_tag_q]   = 1'b0;
          tag_off_d[next_tag_q*OffW +: OffW] = rj_off_q;
          tag_end_d[next_tag_q*OffW +: OffW] = rj_off_q + OffW'(plen);
          tag_tmr_d[next_tag_q*TmrW +: TmrW] = '0;
          next_tag_d = (32'(next_tag_q) == Tags - 1) ? '0 : next_tag_q + 1'b1;
          rj_addr_d  = rj_addr_q + 64'(plen);
          rj_left_d  = rj_left_q - LenW'(plen);
          rj_off_d   = rj_off_q + OffW'(plen);
        end
      end
    end
    if (beat_taken) begin
      pleft  = pk_active_q ? pk_left_q : plen;
      bbytes = (pleft > PktW'(LinkBytes)) ? BeatW'(LinkBytes) : BeatW'(pleft);
      ov_valid_d = 1'b1;
      ov_kind_d  = wj_msi_q ? KindMsi : KindMwr;
      ov_tag_d   = '0;
      ov_len_d   = pk_active_q ? pk_len_q : plen;
      ov_addr_d  = pk_active_q ? pk_addr_q : wj_addr_q;
      for (int unsigned i = 0; i < LinkBytes; i++) begin
        ov_data_d[8*i +: 8] = (BeatW'(i) < bbytes && i < WrBytes) ? wj_data_q[8*(i % WrBytes) +: 8]
                                                                  : 8'd0;
      end
      ov_last_d  = (pleft <= PktW'(LinkBytes));
      wj_data_d  = wj_data_q >> (8 * bbytes);
      wj_left_d  = wj_left_q - LenW'(bbytes);
      pk_left_d  = pleft - PktW'(bbytes);
      if (pleft <= PktW'(LinkBytes)) begin
        pk_active_d = 1'b0;
        wj_addr_d   = (pk_active_q ? pk_addr_q : wj_addr_q) + {51'd0, (pk_active_q ? pk_len_q : plen)};
        if (wj_left_q == LenW'(bbytes) || wj_msi_q) wj_active_d = 1'b0;
      end
    end
    // an abort drops what is left of the write job once no packet is in progress
    if (wdrop_d && !pk_active_d) begin
      wj_active_d = 1'b0;
      wdrop_d     = 1'b0;
    end

    // the row slots: completions first, then the issue (mod 4, so the order does not matter)
    for (int unsigned s = 0; s < Slots; s++)
      sl_pend_d[2*s +: 2] = sl_pend_q[2*s +: 2] - sl_dn[2*s +: 2] + sl_up[2*s +: 2];
    sl_req_d = (sl_req_q & ~sl_clr) | sl_set;

    // ---- new jobs
    if (rd_req_valid_i && rd_req_ready_o) begin
      rj_active_d = 1'b1;
      rj_addr_d   = rd_req_addr_i;
      rj_left_d   = rd_req_len_i;
      rj_off_d    = '0;
    end
    if (rs_req_valid_i && rs_req_ready_o && rs_req_rows_i != 0) begin
      rs_active_d = 1'b1;
      rs_raddr_d  = rs_req_addr_i;
      rs_roff_d   = '0;
      rs_rb_d     = rs_req_rb_i;
      rs_stride_d = rs_req_stride_i;
      rs_rows_d   = rs_req_rows_i;
      rs_issue_d  = '0;
      rs_head_d   = '0;
      sl_req_d    = '0;
      sl_pend_d   = '0;
      jp_d        = 1'b0;
    end
    // the requests reach a joint: the next row is at its address
    if (jp_d && rs_issue_d == jp_row_d) begin
      rs_raddr_d = jp_addr_d;
      jp_d       = 1'b0;
    end
    if (!rs_active_d) jp_d = 1'b0;
    if (wr_req_valid_i && wr_req_ready_o) begin
      wj_active_d = 1'b1;
      wj_addr_d   = wr_req_addr_i;
      wj_left_d   = wr_req_len_i;
      wj_msi_d    = wr_req_msi_i;
      wj_data_d   = wr_req_data_i;
      wdrop_d     = 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      ov_valid_q  <= 1'b0;
      rj_active_q <= 1'b0;
      tag_busy_q  <= '0;
      tag_own_q   <= '0;
      next_tag_q  <= '0;
      done_q      <= 1'b0;
      err_q       <= 1'b0;
      wj_active_q <= 1'b0;
      pk_active_q <= 1'b0;
      wdrop_q     <= 1'b0;
      rs_active_q <= 1'b0;
      rsv_q       <= 1'b0;
      rserr_q     <= 1'b0;
      jp_q        <= 1'b0;
    end else begin
      ov_valid_q  <= ov_valid_d;
      rj_active_q <= rj_active_d;
      tag_busy_q  <= tag_busy_d;
      tag_own_q   <= tag_own_d;
      next_tag_q  <= next_tag_d;
      done_q      <= done_d;
      err_q       <= err_d;
      wj_active_q <= wj_active_d;
      pk_active_q <= pk_active_d;
      wdrop_q     <= wdrop_d;
      rs_active_q <= rs_active_d;
      rsv_q       <= rsv_d;
      rserr_q     <= rserr_d;
      jp_q        <= Joint ? jp_d : 1'b0;
    end
  end

  // datapath registers: no reset
  always_ff @(posedge clk_i) begin
    ov_kind_q <= ov_kind_d;
    ov_tag_q  <= ov_tag_d;
    ov_len_q  <= ov_len_d;
    ov_addr_q <= ov_addr_d;
    ov_data_q <= ov_data_d;
    ov_last_q <= ov_last_d;
    rj_addr_q <= rj_addr_d;
    rj_left_q <= rj_left_d;
    rj_off_q  <= rj_off_d;
    tag_off_q <= tag_off_d;
    tag_end_q <= tag_end_d;
    tag_tmr_q <= tag_tmr_d;
    buf_q     <= buf_d;
    wj_addr_q <= wj_addr_d;
    wj_left_q <= wj_left_d;
    wj_msi_q  <= wj_msi_d;
    wj_data_q <= wj_data_d;
    pk_left_q <= pk_left_d;
    pk_len_q  <= pk_len_d;
    pk_addr_q <= pk_addr_d;
    tag_rs_q    <= tag_rs_d;
    tag_slot_q  <= tag_slot_d;
    rs_raddr_q  <= rs_raddr_d;
    rs_roff_q   <= rs_roff_d;
    rs_rb_q     <= rs_rb_d;
    rs_stride_q <= rs_stride_d;
    rs_rows_q   <= rs_rows_d;
    rs_issue_q  <= rs_issue_d;
    rs_head_q   <= rs_head_d;
    sl_req_q    <= sl_req_d;
    sl_pend_q   <= sl_pend_d;
    sl_buf_q    <= sl_buf_d;
    rsdata_q    <= rsdata_d;
    jp_row_q    <= jp_row_d;
    jp_addr_q   <= jp_addr_d;
  end

`ifndef SYNTHESIS
  // dreq: valid is held and the beat stable until accepted
  always_ff @(posedge clk_i) begin
    if (!rst_i && $past(!rst_i) && $past(dreq_valid_o && !dreq_ready_i)) begin
      assert (dreq_valid_o && dreq_kind_o == $past(dreq_kind_o) && dreq_tag_o == $past(dreq_tag_o)
              && dreq_len_o == $past(dreq_len_o) && dreq_addr_o == $past(dreq_addr_o)
              && dreq_data_o == $past(dreq_data_o) && dreq_last_o == $past(dreq_last_o))
        else $error("tpu_dma: dreq beat changed while stalled");
    end
    if (!rst_i && dreq_valid_o) begin
      assert ({19'd0, dreq_len_o} >= 1 && ({2'b0, dreq_addr_o[11:0]} + {1'b0, dreq_len_o} <= 14'd4096))
        else $error("tpu_dma: packet of %0d bytes at %h crosses 4 KiB", dreq_len_o, dreq_addr_o);
    end
  end
`endif
endmodule
