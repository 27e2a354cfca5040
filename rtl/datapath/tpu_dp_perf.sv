// tpu_dp_perf: the datapath's performance counters (since reset): cycles with any command in
// progress (perf_busy_o, counting the current cycle), cycles a row entered the MXU, and N*N
// MACs per such row.
// The busy bit is registered first and added to the output (the same count, but the idle
// decode is not in front of the 64-bit carry chain).
// PerfSplit (board option; N a power of two): the counters as tpu_seg_counter (16-bit carry
// chains instead of 64-bit ones), perf_busy_o chosen between two of them (the count and the
// count + 1) by the registered busy bit instead of added to it, perf_macs_o = the MXU count
// shifted by log2(N*N). The same counts in every cycle.
`default_nettype none

module tpu_dp_perf #(
  parameter int unsigned N         = 16,
  parameter bit          PerfSplit = 1'b0
) (
  input  logic        clk_i,
  input  logic        rst_i,
  input  logic        idle_i,      // no command in progress
  input  logic        mxu_row_i,   // a row enters the MXU now
  output logic [63:0] perf_busy_o,
  output logic [63:0] perf_mxu_busy_o,
  output logic [63:0] perf_macs_o
);
  if (PerfSplit && (N & (N - 1)) != 0) begin : g_bad_perf_split
    $error("tpu_dp_perf: PerfSplit needs N a power of two");
  end

  logic [63:0] perf_busy_q, perf_mxu_q, perf_macs_q;
  logic        busy_q;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      busy_q <= 1'b0;
    end else begin
      busy_q <= !idle_i;
    end
  end
  if (PerfSplit) begin : g_perf_split
    // perf_busy_q + busy_q = busy_q ? (perf_busy_q + 1) : perf_busy_q, the + 1 a second counter
    logic [63:0] perf_busy1_q;
    tpu_seg_counter #(.Width(64), .SegW(16)) u_busy (
      .clk_i, .rst_i, .inc_i(busy_q), .cnt_o(perf_busy_q)
    );
    tpu_seg_counter #(.Width(64), .SegW(16), .Init(64'd1)) u_busy1 (
      .clk_i, .rst_i, .inc_i(busy_q), .cnt_o(perf_busy1_q)
    );
    tpu_seg_counter #(.Width(64), .SegW(16)) u_mxu (
      .clk_i, .rst_i, .inc_i(mxu_row_i), .cnt_o(perf_mxu_q)
    );
    assign perf_busy_o = busy_q ? perf_busy1_q : perf_busy_q;
    assign perf_macs_q = perf_mxu_q << $clog2(N * N);
  end else begin : g_perf
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        perf_busy_q <= '0;
        perf_mxu_q  <= '0;
        perf_macs_q <= '0;
      end else begin
        perf_busy_q <= perf_busy_q + 64'(busy_q);
        perf_mxu_q  <= perf_mxu_q + 64'(mxu_row_i);
        perf_macs_q <= perf_macs_q + (mxu_row_i ? 64'(N * N) : 64'd0);
      end
    end
    assign perf_busy_o = perf_busy_q + 64'(busy_q);
  end
  assign perf_mxu_busy_o = perf_mxu_q;
  assign perf_macs_o     = perf_macs_q;
endmodule

`default_nettype wire
