// tpu_dma_tags: the read tags shared by the DMA's read job engine (tpu_dma_read) and row
// stream engine (tpu_dma_stream): which MRDs are on the link, whom each belongs to, where its
// completion beats land, and how long it has waited.
//
// Allocation: tags below Tags are handed out round robin (next_tag_o), so a tag freed by a
// timeout is reused as late as possible. In a cycle where a read engine has the link's request
// output (turn_i), the tag next_tag_o is allocated to it if free (next_free_o; the MRD then
// goes out with it) and skipped if busy; either way the round robin moves on. An allocated tag
// is busy and owned; it remembers whether it belongs to the row stream, the row slot of its
// first row, and the job (or stream row) byte offsets of its next beat and just past its bytes.
// Completions (hcpl_*, always accepted): a beat for a busy tag goes to its owner (cpl_read_o
// or cpl_stream_o, with the tag's offsets and slot), which moves the tag's offset on by a beat
// when the status is OK; the beat with hcpl_last_i or a status other than OK frees the tag. A
// beat for a tag that is not busy is dropped.
// Timeouts: a busy tag without its final completion for CplTimeoutCycles is freed; if it was
// owned, its owner fails (read_timeout_o / stream_timeout_o).
// Stale tags: when a read job or a row stream ends early (error or abort: read_drop_i /
// stream_drop_i), its busy tags stop being owned; their late completions are drained and
// dropped and free them, or their own timeout does. read_pending_o: the read job still owns a
// tag after this cycle's completions and timeouts (its end waits for it).
// Latency: a tag allocated in cycle c is busy from c + 1; a completion frees its tag for c + 1.
`default_nettype none

module tpu_dma_tags #(
  parameter int unsigned LinkBytes        = 32,
  parameter int unsigned Tags             = 32,
  parameter int unsigned CplTimeoutCycles = 4096,
  parameter int unsigned Slots            = 32,
  parameter int unsigned OffsetW          = 10,  // byte offsets in a job or merged rows
  localparam int unsigned TagW   = Tags > 1 ? $clog2(Tags) : 1,
  localparam int unsigned SlotW  = Slots > 1 ? $clog2(Slots) : 1,
  localparam int unsigned TimerW = $clog2(CplTimeoutCycles + 1)
) (
  input  logic               clk_i,
  input  logic               rst_i,
  // allocation (the engine whose MRD has the request output)
  input  logic               turn_i,          // a read engine has the output: take or skip
  output logic [TagW-1:0]    next_tag_o,
  output logic               next_free_o,
  input  logic               alloc_stream_i,  // the tag goes to the row stream (else the job)
  input  logic [SlotW-1:0]   alloc_slot_i,
  input  logic [OffsetW-1:0] alloc_offset_i,
  input  logic [OffsetW-1:0] alloc_end_i,
  // early ends: the owner's tags become stale
  input  logic               read_drop_i,
  input  logic               stream_drop_i,
  // completions
  input  logic               hcpl_valid_i,
  input  logic [7:0]         hcpl_tag_i,
  input  logic [1:0]         hcpl_status_i,
  input  logic               hcpl_last_i,
  output logic               cpl_read_o,      // this beat belongs to the read job
  output logic               cpl_stream_o,    // ... to the row stream
  output logic [OffsetW-1:0] cpl_offset_o,    // the tag's offset of this beat
  output logic [OffsetW-1:0] cpl_end_o,       // the offset just past the tag's bytes
  output logic [SlotW-1:0]   cpl_slot_o,      // the tag's first row slot
  // owners' state
  output logic               read_timeout_o,
  output logic               stream_timeout_o,
  output logic               read_pending_o,
  output logic               busy_o           // any MRD without its completion
);
  logic [Tags-1:0]         busy_q, busy_d;       // MRD sent, completion not finished
  logic [Tags-1:0]         owned_q, owned_d;     // belongs to the running job/stream (else stale)
  logic [Tags-1:0]         stream_q;             // belongs to the row stream
  logic [Tags*SlotW-1:0]   slot_q;
  logic [Tags*OffsetW-1:0] offset_q;
  logic [Tags*OffsetW-1:0] end_q;
  logic [Tags-1:0]         expired;        // busy, and its timer at the timeout
`ifndef SYNTHESIS
  logic [Tags-1:0]         timer_over;     // busy, and its timer past the timeout (never)
`endif
  logic [TagW-1:0]         next_q, next_d;
  logic [TagW-1:0]         cpl_tag;
  logic                    cpl_hit, alloc;

  assign next_tag_o  = next_q;
  assign next_free_o = !busy_q[next_q];
  assign busy_o      = busy_q != '0;
  assign alloc       = turn_i && !busy_q[next_q];

  // the completion's tag and its owner
  assign cpl_tag      = TagW'(hcpl_tag_i);
  assign cpl_hit      = hcpl_valid_i && ({24'd0, hcpl_tag_i} < Tags) && busy_q[cpl_tag];
  assign cpl_read_o   = cpl_hit && owned_q[cpl_tag] && !stream_q[cpl_tag];
  assign cpl_stream_o = cpl_hit && owned_q[cpl_tag] && stream_q[cpl_tag];
  assign cpl_offset_o = offset_q[cpl_tag*OffsetW +: OffsetW];
  assign cpl_end_o    = end_q[cpl_tag*OffsetW +: OffsetW];
  assign cpl_slot_o   = slot_q[cpl_tag*SlotW +: SlotW];

  always_comb begin
    busy_d           = busy_q;
    owned_d          = owned_q;
    next_d           = next_q;
    read_timeout_o   = 1'b0;
    stream_timeout_o = 1'b0;

    // timers: a completion that never comes frees its tag and fails its owner
    busy_d           = busy_q & ~expired;
    owned_d          = owned_q & ~expired;
    stream_timeout_o = (expired & owned_q & stream_q) != '0;
    read_timeout_o   = (expired & owned_q & ~stream_q) != '0;

    // completions: the final beat (or an error) frees the tag; an owner's OK beat moves on
    if (cpl_hit) begin
      if (hcpl_last_i || hcpl_status_i != 2'd0) begin
        busy_d[cpl_tag]  = 1'b0;
        owned_d[cpl_tag] = 1'b0;
      end
    end
    read_pending_o = (owned_d & ~stream_q) != '0;

    // early ends: the owner's tags become stale
    if (read_drop_i) owned_d = owned_d & stream_q;
    if (stream_drop_i) owned_d = owned_d & ~stream_q;

    // allocation (the round robin moves on past a busy tag too)
    if (turn_i) next_d = (32'(next_q) == Tags - 1) ? '0 : next_q + 1'b1;
    if (alloc) begin
      busy_d[next_q]   = 1'b1;
      owned_d[next_q]  = 1'b1;
    end
  end

  // The timers, one register per tag apart from the block above (which reads the link's
  // completion: the simulation evaluates it on both clock phases; the timers change only at
  // the edge). A busy tag counts up to the timeout; allocation restarts it.
  for (genvar t = 0; t < Tags; t++) begin : g_timer
    logic [TimerW-1:0] timer_q;
    assign expired[t] = busy_q[t] && timer_q == TimerW'(CplTimeoutCycles);
    always_ff @(posedge clk_i) begin
      if (alloc && next_q == TagW'(t)) begin
        timer_q <= '0;
      end else if (busy_q[t] && !expired[t]) begin
        timer_q <= timer_q + 1'b1;
      end
    end
`ifndef SYNTHESIS
    assign timer_over[t] = busy_q[t] && 32'(timer_q) > CplTimeoutCycles;
`endif
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      busy_q  <= '0;
      owned_q <= '0;
      next_q  <= '0;
    end else begin
      busy_q  <= busy_d;
      owned_q <= owned_d;
      next_q  <= next_d;
    end
  end

  // per-tag data, no reset, written under its enables at the edge (not through the block
  // above, which the simulation evaluates on both clock phases and which copied all of it):
  // an owner's OK beat moves its offset on, an allocation (after it: the same tag wins)
  // takes the tag
  always_ff @(posedge clk_i) begin
    if (cpl_hit && owned_q[cpl_tag] && hcpl_status_i == 2'd0) begin
      offset_q[cpl_tag*OffsetW +: OffsetW] <= cpl_offset_o + OffsetW'(LinkBytes);
    end
    if (alloc) begin
      stream_q[next_q] <= alloc_stream_i;
      if (alloc_stream_i) slot_q[next_q*SlotW +: SlotW] <= alloc_slot_i;
      offset_q[next_q*OffsetW +: OffsetW] <= alloc_offset_i;
      end_q[next_q*OffsetW +: OffsetW]    <= alloc_end_i;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // a tag is never allocated twice: only a free tag is handed out
      if (alloc) assert (!busy_q[next_q])
        else $error("tpu_dma_tags: tag %0d allocated twice", next_q);
      assert (32'(next_q) < Tags) else $error("tpu_dma_tags: tag %0d out of range", next_q);
      // only a busy tag is owned (stale tags are busy and not owned)
      assert ((owned_q & ~busy_q) == '0) else $error("tpu_dma_tags: idle tag owned");
      // (one check for all tags' timers: a check per tag costs the simulation each cycle)
      assert (timer_over == '0)
        else $error("tpu_dma_tags: tag timers past their timeout: %b", timer_over);
    end
  end
`endif
endmodule
