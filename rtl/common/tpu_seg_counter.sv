// tpu_seg_counter: a Width-bit up-counter (+1 per cycle with inc_i) built from SegW-bit
// segments, so that no carry chain is longer than SegW bits (the FPGA boards' perf counters:
// a 64-bit carry chain is about 25 ns on an iCE40 UP5K). Segment k counts when inc_i is set
// and every segment below it is all ones; "segment j is all ones" is a flip-flop (full_q[j]),
// decided a cycle ahead from the segment's value and whether it counts. So a segment's D input
// is its + inc_i (carry in) and its enable the AND of the lower full_q flags: the same count as
// `cnt_q <= cnt_q + Width'(inc_i)` in every cycle.
// Init: the value after reset (synchronous, rst_i). Latency: cnt_o is the register (the count of
// inc_i cycles since reset, + Init, modulo 2^Width).
`default_nettype none

module tpu_seg_counter #(
  parameter int unsigned Width = 64,
  parameter int unsigned SegW  = 16,
  parameter logic [Width-1:0] Init = '0
) (
  input  logic             clk_i,
  input  logic             rst_i,
  input  logic             inc_i,
  output logic [Width-1:0] cnt_o
);
  localparam int unsigned Segs = (Width + SegW - 1) / SegW;

  if (SegW < 2 || Width < 2) begin : g_bad_width
    $error("tpu_seg_counter: Width and SegW must be >= 2");
  end

  logic [Width-1:0] cnt_q;
  logic [Segs-1:0]  low_full;  // every segment below k is all ones (from flip-flops)
  logic [Segs-1:0]  full;      // segment j is all ones (full_q; the top one's is not kept)
  always_comb begin
    logic below;
    below = 1'b1;
    for (int unsigned k = 0; k < Segs; k++) begin
      low_full[k] = below;
      below       = below && full[k];
    end
  end

  for (genvar k = 0; k < Segs; k++) begin : g_seg
    localparam int unsigned Lo = k * SegW;
    localparam int unsigned W  = (Width - Lo < SegW) ? Width - Lo : SegW;
    logic [W-1:0] seg;
    assign seg = cnt_q[Lo +: W];
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        cnt_q[Lo +: W] <= Init[Lo +: W];
      end else if (low_full[k]) begin
        cnt_q[Lo +: W] <= seg + W'(inc_i);
      end
    end
    if (k + 1 < Segs) begin : g_full
      logic full_q;  // seg is all ones
      always_ff @(posedge clk_i) begin
        if (rst_i) begin
          full_q <= Init[Lo +: W] == '1;
        end else if (low_full[k]) begin
          // all ones next: it is and does not count, or it is one below and counts
          full_q <= inc_i ? seg == W'({W{1'b1}} - 1'b1) : seg == '1;
        end
      end
      assign full[k] = full_q;
`ifndef SYNTHESIS
      always_ff @(posedge clk_i) begin
        if (!rst_i && ok_q) begin
          assert (full_q == (seg == '1)) else $error("tpu_seg_counter: full_q of segment %0d", k);
        end
      end
`endif
    end else begin : g_top
      logic unused_full;
      assign full[k]     = 1'b0;
      assign unused_full = full[k];
    end
  end

  assign cnt_o = cnt_q;

`ifndef SYNTHESIS
  logic             ok_q;  // a reset was seen
  logic [Width-1:0] ref_q;
  initial ok_q = 1'b0;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      ok_q  <= 1'b1;
      ref_q <= Init;
    end else begin
      ref_q <= ref_q + Width'(inc_i);
      if (ok_q) begin
        assert (cnt_q == ref_q) else $error("tpu_seg_counter: count");
      end
    end
  end
`endif
endmodule

`default_nettype wire
