// tpu_skid: a register slice (skid buffer) on a valid/ready stream: both directions are
// registered, so no combinational path crosses it (valid/data forward, ready backward). Two
// entries: the output register and a skid register that catches the beat accepted while the
// output stalls, so it still moves one beat per cycle. Beats leave in order, unchanged.
// Enable = 0: wires (busy_o = 0). busy_o: a beat is held (the consumer has not taken it yet),
// for a producer's "everything I sent has arrived" checks.
// Latency: 1 cycle (Enable = 1), 0 (Enable = 0).
`default_nettype none

module tpu_skid #(
  parameter int unsigned Width  = 1,
  parameter bit          Enable = 1'b1
) (
  input  logic             clk_i,
  input  logic             rst_i,
  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [Width-1:0] in_data_i,
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [Width-1:0] out_data_o,
  output logic             busy_o
);
  if (!Enable) begin : g_wire
    logic unused_clk_rst;
    assign unused_clk_rst = clk_i ^ rst_i;
    assign in_ready_o  = out_ready_i;
    assign out_valid_o = in_valid_i;
    assign out_data_o  = in_data_i;
    assign busy_o      = 1'b0;
  end else begin : g_slice
    logic             out_valid_q, skid_valid_q;
    logic [Width-1:0] out_data_q, skid_data_q;

    assign in_ready_o  = !skid_valid_q;
    assign out_valid_o = out_valid_q;
    assign out_data_o  = out_data_q;
    assign busy_o      = out_valid_q || skid_valid_q;

    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        out_valid_q  <= 1'b0;
        skid_valid_q <= 1'b0;
      end else if (!out_valid_q || out_ready_i) begin
        // the output register is free next cycle: the skid beat first, else the input
        if (skid_valid_q) begin
          out_valid_q  <= 1'b1;
          skid_valid_q <= 1'b0;
        end else begin
          out_valid_q <= in_valid_i;
        end
      end else if (in_valid_i && !skid_valid_q) begin
        skid_valid_q <= 1'b1;
      end
    end

    // data registers are not reset (only the valid bits are control)
    always_ff @(posedge clk_i) begin
      if (!out_valid_q || out_ready_i) begin
        out_data_q <= skid_valid_q ? skid_data_q : in_data_i;
      end
      if (out_valid_q && !out_ready_i && in_valid_i && !skid_valid_q) begin
        skid_data_q <= in_data_i;
      end
    end
  end
endmodule

`default_nettype wire
