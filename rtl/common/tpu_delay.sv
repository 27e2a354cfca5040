// tpu_delay: a fixed delay line of Depth registers (Depth = 0: a wire). Used for the array's
// input skew, output de-skew and the metadata that travels beside the MXU pipeline.
// ResetEn = 1 resets the stages to 0 (for valid bits and other control); data lines keep
// ResetEn = 0 so no datapath register is reset.
// Latency: Depth cycles. No handshake: every cycle shifts.
`default_nettype none

module tpu_delay #(
  parameter int unsigned Width   = 1,
  parameter int unsigned Depth   = 1,
  parameter bit          ResetEn = 1'b0
) (
  input  logic             clk_i,
  input  logic             rst_i,
  input  logic [Width-1:0] d_i,
  output logic [Width-1:0] q_o
);
  if (Depth == 0) begin : g_wire
    logic unused_clk_rst;
    assign unused_clk_rst = clk_i ^ rst_i;
    assign q_o = d_i;
  end else if (Depth == 1) begin : g_reg
    logic [Width-1:0] pipe_q;

    always_ff @(posedge clk_i) begin
      if (ResetEn && rst_i) begin
        pipe_q <= '0;
      end else begin
        pipe_q <= d_i;
      end
    end

    assign q_o = pipe_q;
  end else begin : g_pipe
    // Stage s in bits s*Width +: Width, all stages one packed vector that shifts by Width each
    // cycle (a simulator moves whole words; an unpacked array of stages is copied stage by
    // stage through a temporary). The same Depth x Width flip-flops.
    logic [Depth*Width-1:0] pipe_q;

    always_ff @(posedge clk_i) begin
      if (ResetEn && rst_i) begin
        pipe_q <= '0;
      end else begin
        pipe_q <= {pipe_q[(Depth-1)*Width-1:0], d_i};
      end
    end

    assign q_o = pipe_q[(Depth-1)*Width +: Width];
  end
endmodule

`default_nettype wire
