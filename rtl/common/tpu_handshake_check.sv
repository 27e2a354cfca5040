// tpu_handshake_check: simulation-only checker of one valid/ready stream (AXI-stream rule):
// a transfer offered (valid_i) and not taken (!ready_i) is offered again in the next cycle with
// the same data_i, unless drop_i (an abort that may withdraw it) is set in the stalled cycle or
// the next. Instantiate it beside a stream's source; it has no outputs and synthesizes to
// nothing.
`default_nettype none

module tpu_handshake_check #(
  parameter int unsigned Width = 1,
  parameter              Name  = "stream"  // for the error message
) (
  input  logic             clk_i,
  input  logic             rst_i,
  input  logic             valid_i,
  input  logic             ready_i,
  input  logic [Width-1:0] data_i,
  input  logic             drop_i
);
`ifndef SYNTHESIS
  logic             stall_q;
  logic [Width-1:0] data_q;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      stall_q <= 1'b0;
    end else begin
      if (stall_q && !drop_i) begin
        assert (valid_i) else $error("%s: valid withdrawn while stalled", Name);
        assert (!valid_i || data_i == data_q) else $error("%s: data changed while stalled", Name);
      end
      stall_q <= valid_i && !ready_i && !drop_i;
    end
    data_q <= data_i;
  end
`endif
endmodule

`default_nettype wire
