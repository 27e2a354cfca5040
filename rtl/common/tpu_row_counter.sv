// tpu_row_counter: the rows a command has left to issue. Loaded with the command's row count
// (load_i wins over dec_i), counts down by one per issued row (dec_i, only while rows are
// left). Its "!= 0" and "== 1" decodes are registers of their own, computed from the next
// state (exact: asserted), so the acceptance and issue decisions that read them start at
// flip-flops instead of behind a Width-bit compare.
// Latency: left_o, nz_o and one_o change in the cycle after load_i / dec_i.
// Reset (synchronous): 0 rows left.
`default_nettype none

module tpu_row_counter #(
  parameter int unsigned Width = 14
) (
  input  logic             clk_i,
  input  logic             rst_i,
  input  logic             load_i,
  input  logic [Width-1:0] rows_i,
  input  logic             dec_i,
  output logic [Width-1:0] left_o,
  output logic             nz_o,   // left_o != 0
  output logic             one_o   // left_o == 1
);
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      left_o <= '0;
      nz_o   <= 1'b0;
      one_o  <= 1'b0;
    end else if (load_i) begin
      left_o <= rows_i;
      nz_o   <= rows_i != '0;
      one_o  <= rows_i == Width'(1);
    end else if (dec_i) begin
      left_o <= left_o - 1'b1;
      nz_o   <= !one_o;
      one_o  <= left_o == Width'(2);
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      assert (nz_o == (left_o != '0) && one_o == (left_o == Width'(1)))
        else $error("tpu_row_counter: registered decodes differ from the count");
      assert (!dec_i || load_i || nz_o)
        else $error("tpu_row_counter: count down with no rows left");
    end
  end
`endif
endmodule

`default_nettype wire
