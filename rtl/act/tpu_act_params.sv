// tpu_act_params: the activation parameter memory (docs/spec.md 6.5): per-channel bias,
// multiplier and shift, the layer-wide output zero point and clamp bounds, and the 256-entry
// int8 LUT, with the per-kind "loaded" flags.
//
// Write port (from the command processor, after its value checks; one value per cycle, always
// accepted, no ready):
//   wr_valid_i   one write this cycle
//   wr_kind_i    tpu_pkg::param_kind_e: ParamBias, ParamMult, ParamShift, ParamLut, ParamOutput
//   wr_index_i   channel 0..N-1 (BIAS/MULT/SHIFT) or LUT entry 0..255 (LUT: out = LUT[v + 128],
//                so entry i belongs to v = i - 128); ignored for OUTPUT
//   wr_data_i    BIAS, MULT: the int32 value; SHIFT: the int32 value (bits [5:0] kept, -31..30);
//                LUT: entry in bits [7:0];
//                OUTPUT: zero point in [7:0], clamp min in [15:8], clamp max in [23:16] (int8 each),
//                rounding mode (OP0.ROUND) in [25:24]
//   A write of kind k sets loaded_o[k] (bit index = the param_kind_e value). The command
//   processor writes only committed values, so "first write" = "first successful load".
//   Out-of-range kinds/channels are not written (and trip an assertion in simulation).
//
// Outputs, valid the cycle after the write (plain registers, never reset; only loaded_o is):
//   bias_o[32j+31:32j], mult_o[32j+31:32j], shift_o[6j+5:6j] (two's complement, -31..30),
//   zp_o, qmin_o, qmax_o (int8), round_o (tpu_round: 0 DOUBLE, 1 SINGLE, 2 FLOAT).
//
// LUT read port, N lookups per cycle: the LUT is stored N times, one tpu_ram (256 x 8) replica
// per channel, all written together; replica j serves channel j. Registered read like tpu_ram:
// lut_rdata_o[8j+7:8j] = LUT[lut_raddr_i[8j+7:8j]] from the cycle after lut_re_i, held while
// lut_re_i is low. Cost: N block RAMs (one SB_RAM40_4K or DP16KD each) instead of N 256:1 muxes
// of 8 bits (~700 LUT4 per channel).
//
// ChanRam = 1 (for the serial activation, which reads one channel at a time): bias, multiplier
// and shift live in three small block RAMs (tpu_ram Block, N words each, instead of N x 70
// flip-flops and their channel mux) and are read on the channel port: ch_bias_o,
// ch_mult_o, ch_shift_o = channel ch_raddr_i from the cycle after ch_re_i, held while ch_re_i is
// low (registered read, like the LUT); bias_o, mult_o and shift_o are 0 then. With ChanRam = 0
// the channel port reads 0 and ch_re_i/ch_raddr_i are ignored.
//
// BiasShadow = 1 (ChanRam = 0 only; the STREAM_MATMUL devices): a BIAS write while
// bias_hold_i is high (an ACTIVATE still has rows to read bias_o: tpu_datapath takes a BIAS
// PARAM beside a running ACTIVATE) goes to a shadow bank instead, with a pending bit per
// channel; the pending channels are copied into bias_o's registers at the end of the first
// cycle with bias_hold_i low (a BIAS write in that cycle, later in command order, wins for its
// channel), so bias_o changes only between the running ACTIVATE's last row and the next one's
// first. loaded_o counts the write at once (as before).
//
// OutReg = 1 (board option, with the serial activation): the LUT replicas and the channel RAMs
// are tpu_ram OutReg (the block RAM's output register): both read ports give their data two
// cycles after the read instead of one, held the same way.
//
// Reset (synchronous, rst_i) clears loaded_o only; the values and the LUT keep their contents
// (BiasShadow: pending channels are committed in a reset cycle, not dropped).
`default_nettype none

module tpu_act_params #(
  parameter int unsigned N       = 16,  // channels (the array width)
  parameter int unsigned ChanRam = 0,   // per-channel values in RAM, read one channel at a time
  parameter bit          BiasShadow = 1'b0, // BIAS writes held in a shadow bank (see above)
  parameter bit          OutReg = 1'b0      // read ports with latency 2 (see above)
) (
  input  logic            clk_i,
  input  logic            rst_i,
  // write port
  input  logic            wr_valid_i,
  input  logic [2:0]      wr_kind_i,
  input  logic [7:0]      wr_index_i,
  input  logic [31:0]     wr_data_i,
  input  logic            bias_hold_i,  // BiasShadow: bias_o must not change now
  // per-channel and layer-wide parameters
  output logic [N*32-1:0] bias_o,
  output logic [N*32-1:0] mult_o,
  output logic [N*6-1:0]  shift_o,
  output logic [7:0]      zp_o,
  output logic [7:0]      qmin_o,
  output logic [7:0]      qmax_o,
  output logic [1:0]      round_o,
  // channel read port (ChanRam)
  input  logic            ch_re_i,
  input  logic [ChW-1:0]  ch_raddr_i,
  output logic [31:0]     ch_bias_o,
  output logic [31:0]     ch_mult_o,
  output logic [5:0]      ch_shift_o,
  // LUT read port (one lookup per channel per cycle, registered)
  input  logic            lut_re_i,
  input  logic [N*8-1:0]  lut_raddr_i,
  output logic [N*8-1:0]  lut_rdata_o,
  // loaded flags, indexed by tpu_pkg::param_kind_e
  output logic [4:0]      loaded_o
);
  localparam int unsigned ChW = N > 1 ? $clog2(N) : 1;

  if (N < 1 || N > 256) begin : g_bad_n
    $error("tpu_act_params: N must be in 1..256");
  end
  if (ChanRam != 0 && N < 2) begin : g_bad_chan_ram
    $error("tpu_act_params: ChanRam needs N >= 2");
  end
  if (ChanRam != 0 && BiasShadow) begin : g_bad_bias_shadow
    $error("tpu_act_params: BiasShadow needs ChanRam = 0");
  end
  if (!BiasShadow) begin : g_no_shadow
    logic unused_hold;
    assign unused_hold = bias_hold_i;
  end

  logic wr_bias, wr_mult, wr_shift, wr_lut, wr_output;
  always_comb begin
    wr_bias   = wr_valid_i && (wr_kind_i == tpu_pkg::ParamBias);
    wr_mult   = wr_valid_i && (wr_kind_i == tpu_pkg::ParamMult);
    wr_shift  = wr_valid_i && (wr_kind_i == tpu_pkg::ParamShift);
    wr_lut    = wr_valid_i && (wr_kind_i == tpu_pkg::ParamLut);
    wr_output = wr_valid_i && (wr_kind_i == tpu_pkg::ParamOutput);
  end

  // ---------------------------------------------------------------- per-channel values
  logic [N*32-1:0] bias_q, mult_q;
  logic [N*6-1:0]  shift_q;

  if (ChanRam != 0) begin : g_chan_ram
    // channel index checked by the command processor (< N; asserted below)
    tpu_ram #(.Width(32), .Depth(N), .Block(1), .OutReg(OutReg)) u_bias (
      .clk_i, .we_i(wr_bias), .waddr_i(ChW'(wr_index_i)), .wdata_i(wr_data_i),
      .re_i(ch_re_i), .raddr_i(ch_raddr_i), .rdata_o(ch_bias_o)
    );
    tpu_ram #(.Width(32), .Depth(N), .Block(1), .OutReg(OutReg)) u_mult (
      .clk_i, .we_i(wr_mult), .waddr_i(ChW'(wr_index_i)), .wdata_i(wr_data_i),
      .re_i(ch_re_i), .raddr_i(ch_raddr_i), .rdata_o(ch_mult_o)
    );
    tpu_ram #(.Width(6), .Depth(N), .Block(1), .OutReg(OutReg)) u_shift (
      .clk_i, .we_i(wr_shift), .waddr_i(ChW'(wr_index_i)), .wdata_i(wr_data_i[5:0]),
      .re_i(ch_re_i), .raddr_i(ch_raddr_i), .rdata_o(ch_shift_o)
    );
    assign bias_q  = '0;
    assign mult_q  = '0;
    assign shift_q = '0;
  end else begin : g_chan_regs
    for (genvar j = 0; j < N; j++) begin : g_reg
      logic sel;
      assign sel = (wr_index_i == 8'(j));
      if (BiasShadow) begin : g_shadow
        // the shadow value and its pending bit (control: reset; the reset cycle commits)
        logic [31:0] sh_q;
        logic        pend_q, hold;
        assign hold = bias_hold_i && !rst_i;
        always_ff @(posedge clk_i) begin
          if (wr_bias && sel && hold) begin
            sh_q <= wr_data_i;
          end
          if (wr_bias && sel && !hold) begin
            bias_q[32*j +: 32] <= wr_data_i;
          end else if (pend_q && !hold) begin
            bias_q[32*j +: 32] <= sh_q;
          end
          if (rst_i) begin
            pend_q <= 1'b0;
          end else if (wr_bias && sel && hold) begin
            pend_q <= 1'b1;
          end else if (!hold) begin
            pend_q <= 1'b0;
          end
        end
      end else begin : g_live
        always_ff @(posedge clk_i) begin
          if (wr_bias && sel) begin
            bias_q[32*j +: 32] <= wr_data_i;
          end
        end
      end
      always_ff @(posedge clk_i) begin
        if (wr_mult && sel) begin
          mult_q[32*j +: 32] <= wr_data_i;
        end
        if (wr_shift && sel) begin
          shift_q[6*j +: 6] <= wr_data_i[5:0];
        end
      end
    end
    assign ch_bias_o  = '0;
    assign ch_mult_o  = '0;
    assign ch_shift_o = '0;
    logic unused_ch;
    assign unused_ch = ^{ch_re_i, ch_raddr_i};
  end

  for (genvar j = 0; j < N; j++) begin : g_ch
    // LUT replica of channel j.
    tpu_ram #(
      .Width (8),
      .Depth (256),
      .OutReg(OutReg)
    ) u_lut (
      .clk_i  (clk_i),
      .we_i   (wr_lut),
      .waddr_i(wr_index_i),
      .wdata_i(wr_data_i[7:0]),
      .re_i   (lut_re_i),
      .raddr_i(lut_raddr_i[8*j +: 8]),
      .rdata_o(lut_rdata_o[8*j +: 8])
    );
  end

  // ---------------------------------------------------------------- layer-wide registers
  logic [7:0] zp_q, qmin_q, qmax_q;
  logic [1:0] round_q;
  always_ff @(posedge clk_i) begin
    if (wr_output) begin
      zp_q    <= wr_data_i[7:0];
      qmin_q  <= wr_data_i[15:8];
      qmax_q  <= wr_data_i[23:16];
      round_q <= wr_data_i[25:24];
    end
  end
  assign round_o = round_q;

  // ---------------------------------------------------------------- loaded flags (control)
  logic [4:0] loaded_q, loaded_d;
  always_comb begin
    loaded_d = loaded_q;
    if (wr_bias)   loaded_d[tpu_pkg::ParamBias]   = 1'b1;
    if (wr_mult)   loaded_d[tpu_pkg::ParamMult]   = 1'b1;
    if (wr_shift)  loaded_d[tpu_pkg::ParamShift]  = 1'b1;
    if (wr_lut)    loaded_d[tpu_pkg::ParamLut]    = 1'b1;
    if (wr_output) loaded_d[tpu_pkg::ParamOutput] = 1'b1;
  end
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      loaded_q <= '0;
    end else begin
      loaded_q <= loaded_d;
    end
  end

  assign bias_o   = bias_q;
  assign mult_o   = mult_q;
  assign shift_o  = shift_q;
  assign zp_o     = zp_q;
  assign qmin_o   = qmin_q;
  assign qmax_o   = qmax_q;
  assign loaded_o = loaded_q;

`ifndef SYNTHESIS
  // BiasShadow: bias_o holds while bias_hold_i is high
  logic            hold_prev_q;
  logic [N*32-1:0] bias_prev_q;
  always_ff @(posedge clk_i) begin
    hold_prev_q <= BiasShadow && bias_hold_i && !rst_i;
    bias_prev_q <= bias_q;
    if (!rst_i && hold_prev_q) begin
      assert (bias_q == bias_prev_q) else $error("tpu_act_params: bias changed while held");
    end
  end
  always_ff @(posedge clk_i) begin
    if (!rst_i && wr_valid_i) begin
      assert (wr_kind_i <= tpu_pkg::ParamFclamp)  // (SCALE, FCLAMP: tpu_act_fp_params')
        else $error("tpu_act_params: unknown kind %0d", wr_kind_i);
      if (wr_bias || wr_mult || wr_shift) begin
        assert (32'(wr_index_i) < N)
          else $error("tpu_act_params: channel %0d >= N %0d", wr_index_i, N);
      end
    end
  end
`endif
endmodule

`default_nettype wire
