// tpu_dma_read: the DMA's read job engine (tpu_dma): one read of up to RdBytes host bytes at a
// time, for an SQE or a parameter vector.
//
// Read jobs (rd_req_*, len 1..RdBytes): split at MaxReadReq and at 4 KiB boundaries of the host
// address into MRDs (mrd_*: offered to tpu_dma's request output, sent when issue_i, each with a
// free tag of tpu_dma_tags). Completion beats of different tags may interleave and arrive out
// of order: each tag remembers its byte offset in the job, and beats land in a reassembly
// buffer (bytes outside their request are masked). rd_done_o pulses once per job, with rd_err_o
// when any completion had a status other than OK or did not arrive within CplTimeoutCycles of
// its request; then rd_buf_o[8*i +: 8] holds job byte i (valid until the next job is accepted).
// On error the job ends at once: its outstanding tags become stale (drop_o), their late
// completions are drained and dropped, and the tags are freed by them (or by their own
// timeout). A job accepted in the cycle rd_done_o pulses is fine.
// rd_abort_i abandons the read job (no rd_done_o), like an error.
// Latency: the first MRD is offered the cycle after the job is accepted; rd_done_o pulses the
// cycle after the last completion beat.
`default_nettype none

module tpu_dma_read #(
  parameter int unsigned LinkBytes  = 32,
  parameter int unsigned MaxReadReq = 512,
  parameter int unsigned RdBytes    = 256,
  parameter int unsigned LenW       = 9,   // job lengths (tpu_dma: the larger job's)
  parameter int unsigned OffsetW    = 10,  // tag offsets (tpu_dma_tags)
  localparam int unsigned BufB      = RdBytes + LinkBytes,  // slack for a last beat's overhang
  localparam int unsigned PktW      = 13
) (
  input  logic                 clk_i,
  input  logic                 rst_i,
  // jobs
  input  logic                 rd_req_valid_i,
  output logic                 rd_req_ready_o,
  input  logic [63:0]          rd_req_addr_i,
  input  logic [LenW-1:0]      rd_req_len_i,
  input  logic                 rd_abort_i,
  output logic                 rd_done_o,
  output logic                 rd_err_o,
  output logic [RdBytes*8-1:0] rd_buf_o,
  // the next MRD, sent with a tag when issue_i
  output logic                 mrd_valid_o,
  input  logic                 issue_i,
  output logic [63:0]          mrd_addr_o,
  output logic [PktW-1:0]      mrd_len_o,
  output logic [OffsetW-1:0]   mrd_offset_o,
  output logic [OffsetW-1:0]   mrd_end_o,
  // the job's tags (tpu_dma_tags) and their completions
  input  logic                 timeout_i,
  input  logic                 pending_i,
  input  logic                 cpl_valid_i,
  input  logic [OffsetW-1:0]   cpl_offset_i,
  input  logic [OffsetW-1:0]   cpl_end_i,
  input  logic [1:0]           hcpl_status_i,
  input  logic [LinkBytes*8-1:0] hcpl_data_i,
  output logic                 drop_o,          // the job ends early: its tags become stale
  output logic                 active_o
);
  logic              active_q;
  logic [63:0]       addr_q;              // next MRD address
  logic [LenW-1:0]   left_q;              // bytes not yet requested
  logic [OffsetW-1:0] offset_q;           // job offset of the next MRD
  logic [BufB*8-1:0] buffer_q;
  logic              done_q, error_q;
  logic              fail;                // a completion failed or timed out

  assign rd_req_ready_o = !active_q;
  assign rd_done_o      = done_q;
  assign rd_err_o       = error_q;
  assign rd_buf_o       = buffer_q[RdBytes*8-1:0];
  logic unused_overhang;  // (the slack the beat byte index may address: cpl_end_i <= RdBytes)
  assign unused_overhang = ^buffer_q[BufB*8-1:RdBytes*8];
  assign active_o       = active_q;

  assign fail         = timeout_i || (cpl_valid_i && hcpl_status_i != 2'd0);
  assign drop_o       = active_q && (rd_abort_i || fail);
  assign mrd_valid_o  = active_q && !rd_abort_i && !fail && left_q != '0;
  assign mrd_addr_o   = addr_q;
  assign mrd_offset_o = offset_q;
  assign mrd_end_o    = offset_q + OffsetW'(mrd_len_o);

  tpu_dma_pkt_len #(.LeftW(LenW)) u_len (
    .left_i(left_q), .addr_low_i(addr_q[11:0]), .limit_i(PktW'(MaxReadReq)), .len_o(mrd_len_o)
  );

  // Next state, at the edge, and the buffer in a block of its own. (Not an always_comb of *_d
  // signals: this logic reads the link's completion inputs, and the simulation evaluates
  // combinational logic that does on both clock phases and after the edge. The logic is the
  // same.)
  always_ff @(posedge clk_i) begin
    logic              active_d, done_d, error_d;
    logic [63:0]       addr_d;
    logic [LenW-1:0]   left_d;
    logic [OffsetW-1:0] offset_d;

    active_d = active_q;
    addr_d   = addr_q;
    left_d   = left_q;
    offset_d = offset_q;
    done_d   = 1'b0;
    error_d  = 1'b0;

    // the end: all bytes requested and every completion in, or a failure
    if (active_q) begin
      if (rd_abort_i || fail) begin
        active_d = 1'b0;
        done_d   = !rd_abort_i;
        error_d  = 1'b1;
      end else if (left_q == '0 && !pending_i) begin
        active_d = 1'b0;
        done_d   = 1'b1;
      end
    end

    if (issue_i) begin
      addr_d   = addr_q + 64'(mrd_len_o);
      left_d   = left_q - LenW'(mrd_len_o);
      offset_d = offset_q + OffsetW'(mrd_len_o);
    end

    if (rd_req_valid_i && rd_req_ready_o) begin
      active_d = 1'b1;
      addr_d   = rd_req_addr_i;
      left_d   = rd_req_len_i;
      offset_d = '0;
    end

    if (rst_i) begin
      active_q <= 1'b0;
      done_q   <= 1'b0;
      error_q  <= 1'b0;
    end else begin
      active_q <= active_d;
      done_q   <= done_d;
      error_q  <= error_d;
    end
    // job state: no reset
    addr_q   <= addr_d;
    left_q   <= left_d;
    offset_q <= offset_d;
  end

  // a completion beat: its bytes land at the tag's offset (the buffer: no reset)
  always_ff @(posedge clk_i) begin
    if (cpl_valid_i && hcpl_status_i == 2'd0) begin
      for (int unsigned i = 0; i < LinkBytes; i++) begin
        if (OffsetW'(cpl_offset_i + OffsetW'(i)) < cpl_end_i) begin
          buffer_q[8*(cpl_offset_i + OffsetW'(i)) +: 8] <= hcpl_data_i[8*i +: 8];
        end
      end
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // a job is taken only when ready, with a length the buffer holds
      if (rd_req_valid_i && rd_req_ready_o) begin
        assert (!active_q) else $error("tpu_dma_read: job accepted while busy");
        assert (rd_req_len_i != '0 && 32'(rd_req_len_i) <= RdBytes)
          else $error("tpu_dma_read: job of %0d bytes (1..%0d)", rd_req_len_i, RdBytes);
      end
      // an MRD is only sent when offered, and never asks past the job's buffer
      if (issue_i) begin
        assert (mrd_valid_o) else $error("tpu_dma_read: MRD sent without a job");
        assert (32'(mrd_offset_o) + 32'(mrd_len_o) <= RdBytes)
          else $error("tpu_dma_read: MRD past the job's %0d bytes", RdBytes);
      end
      // the job's beats land inside the buffer
      if (cpl_valid_i) begin
        assert (32'(cpl_offset_i) < 32'(cpl_end_i) && 32'(cpl_end_i) <= RdBytes)
          else $error("tpu_dma_read: completion at %0d..%0d outside the job", cpl_offset_i,
                      cpl_end_i);
      end
      // rd_done_o pulses once, for the job that just ended
      if (done_q) assert ($past(active_q) && !active_q)
        else $error("tpu_dma_read: rd_done_o without a job ending");
    end
  end
`endif
endmodule
