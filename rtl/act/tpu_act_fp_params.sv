// tpu_act_fp_params: the parameters of the float ACTIVATE path (docs/spec.md 6.12), beside
// tpu_act_params on a bf16 device: the per-channel fp32 SCALE and the fp32 clamp limits FMIN,
// FMAX (kind FCLAMP), with their loaded flags. (BIAS is shared: tpu_act_params' bias words,
// read as fp32 bits.)
//
// Write port: tpu_act_params' (one value per cycle, always accepted), kinds ParamScale (index =
// channel 0..N-1, data = the fp32 bits) and ParamFclamp (index 0 = FMIN, 1 = FMAX); other kinds
// are tpu_act_params' and ignored here. The command processor writes committed values only,
// already through the input rules (spec: a subnormal limit is stored as a zero), and writes
// both limits of an FCLAMP load back to back; either write sets loaded_o[1].
// Outputs: plain registers (never reset), valid the cycle after the write; loaded_o =
// {FCLAMP, SCALE}, cleared by reset.
`default_nettype none

module tpu_act_fp_params #(
  parameter int unsigned N = 16
) (
  input  logic            clk_i,
  input  logic            rst_i,
  input  logic            wr_valid_i,
  input  logic [2:0]      wr_kind_i,
  input  logic [7:0]      wr_index_i,
  input  logic [31:0]     wr_data_i,
  output logic [N*32-1:0] scale_o,
  output logic [31:0]     fmin_o,
  output logic [31:0]     fmax_o,
  output logic [1:0]      loaded_o  // {FCLAMP, SCALE}
);
  logic wr_scale, wr_fclamp;
  assign wr_scale  = wr_valid_i && wr_kind_i == tpu_pkg::ParamScale;
  assign wr_fclamp = wr_valid_i && wr_kind_i == tpu_pkg::ParamFclamp;

  logic [N*32-1:0] scale_q;
  logic [31:0]     fmin_q, fmax_q;
  logic [1:0]      loaded_q;

  for (genvar j = 0; j < N; j++) begin : g_ch
    always_ff @(posedge clk_i) begin
      if (wr_scale && wr_index_i == 8'(j)) begin
        scale_q[32*j +: 32] <= wr_data_i;
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (wr_fclamp && !wr_index_i[0]) begin
      fmin_q <= wr_data_i;
    end
    if (wr_fclamp && wr_index_i[0]) begin
      fmax_q <= wr_data_i;
    end
    if (rst_i) begin
      loaded_q <= '0;
    end else begin
      loaded_q <= loaded_q | {wr_fclamp, wr_scale};
    end
  end

  assign scale_o  = scale_q;
  assign fmin_o   = fmin_q;
  assign fmax_o   = fmax_q;
  assign loaded_o = loaded_q;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i && wr_scale) begin
      assert (32'(wr_index_i) < N) else $error("tpu_act_fp_params: channel %0d >= N", wr_index_i);
    end
    if (!rst_i && wr_fclamp) begin
      assert (wr_index_i < 8'd2) else $error("tpu_act_fp_params: FCLAMP index %0d", wr_index_i);
    end
  end
`endif
endmodule

`default_nettype wire
