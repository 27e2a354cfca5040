// tpu_act_unit: the activation engine as one block: tpu_act_params (parameter memory, LUT
// replicas, loaded flags) wired to tpu_activation (the pipeline), as tpu_datapath uses it.
//
// Write port: as tpu_act_params (wr_valid_i/wr_kind_i/wr_index_i/wr_data_i, loaded_o).
// Streams, latency and the parameter-stability rule: as tpu_activation (Latency = 6) with
// ActLanes = N (the default); with ActLanes < N the small multi-cycle tpu_act_serial (same
// results, one row at a time, in_ready_o low while a row is processed; for FPGAs). With
// ActLanes = 1 the per-channel parameters live in RAM (tpu_act_params ChanRam) and the serial
// unit reads them one channel at a time.
// ParOutReg (board option, serial only): the parameter memory's block RAMs (LUT replicas,
// channel RAMs) read through their output registers (tpu_act_params OutReg); the serial unit
// waits a cycle more for each channel's parameters and takes the LUT data two cycles after
// its read (tpu_act_serial ParOutReg). Same results.
// Round: the rounding modes (OP0.ROUND of OUTPUT, FEATURES.ROUND), pipelined only; without it,
// and in the serial unit, rows round as DOUBLE, and the device refuses the others (tpu_device,
// tpu_cmd_check).
// Bf16 (pipelined only): the float path of tpu_activation (rows with in_fp_i) and its
// parameters (tpu_act_fp_params: SCALE, FCLAMP; fp_loaded_o = {FCLAMP, SCALE}).
`default_nettype none

module tpu_act_unit #(
  parameter int unsigned N        = 16,  // channels (the array width)
  parameter int unsigned ActLanes = N,   // channels computed at once: N = pipelined, else serial
  parameter bit          LutReg   = 1'b0, // board option: registered LUT read data (one cycle)
  // BIAS writes beside a running ACTIVATE (tpu_act_params BiasShadow; pipelined only)
  parameter bit          BiasShadow = 1'b0,
  parameter bit          ParOutReg  = 1'b0, // board option: RAM output registers (see above)
  parameter bit          Bf16       = 1'b0, // the float path (see above)
  parameter bit          Round      = 1'b0  // the SINGLE and FLOAT roundings (see above)
) (
  input  logic                   clk_i,
  input  logic                   rst_i,
  // parameter write port
  input  logic                   wr_valid_i,
  input  logic [2:0]             wr_kind_i,
  input  logic [7:0]             wr_index_i,
  input  logic [31:0]            wr_data_i,
  input  logic                   bias_hold_i,  // BiasShadow: an ACTIVATE still reads the bias
  output logic [4:0]             loaded_o,
  output logic [1:0]             fp_loaded_o,  // Bf16: {FCLAMP, SCALE} (else 0)
  // input stream: accumulator rows
  input  logic                   in_valid_i,
  output logic                   in_ready_o,
  input  logic [N*32-1:0]        in_acc_i,
  input  logic                   in_raw_i,
  input  logic                   in_lut_i,
  input  logic                   in_last_i,
  input  logic                   in_fp_i,     // Bf16: a float row, scaled, clamped
  input  logic                   in_scale_i,
  input  logic                   in_clamp_i,
  // output stream: result rows
  output logic                   out_valid_o,
  input  logic                   out_ready_i,
  output logic [N*8-1:0]         out_int8_o,
  output logic [N*32-1:0]        out_raw_o,
  output logic [$clog2(N+1)-1:0] out_sat_o,
  output logic                   out_last_o
);
  logic [N*32-1:0] bias, mult;
  logic [N*6-1:0]  shift;
  logic [7:0]      zp, qmin, qmax;
  logic [1:0]      round;  // OP0.ROUND of the last OUTPUT load
  logic            lut_re;
  logic [N*8-1:0]  lut_raddr, lut_rdata;
  // channel read port (ActLanes = 1)
  localparam int unsigned ChanRam = (ActLanes == 1 && N > 1) ? 1 : 0;
  localparam int unsigned ChW     = N > 1 ? $clog2(N) : 1;
  logic            ch_re;
  logic [ChW-1:0]  ch_raddr;
  logic [31:0]     ch_bias, ch_mult;
  logic [5:0]      ch_shift;

  tpu_act_params #(
    .N         (N),
    .ChanRam   (ChanRam),
    .BiasShadow(BiasShadow && ActLanes >= N),
    .OutReg    (ParOutReg)
  ) u_params (
    .clk_i      (clk_i),
    .rst_i      (rst_i),
    .wr_valid_i (wr_valid_i),
    .wr_kind_i  (wr_kind_i),
    .wr_index_i (wr_index_i),
    .wr_data_i  (wr_data_i),
    .bias_hold_i(bias_hold_i),
    .bias_o     (bias),
    .mult_o     (mult),
    .shift_o    (shift),
    .zp_o       (zp),
    .qmin_o     (qmin),
    .qmax_o     (qmax),
    .round_o    (round),
    .ch_re_i    (ch_re),
    .ch_raddr_i (ch_raddr),
    .ch_bias_o  (ch_bias),
    .ch_mult_o  (ch_mult),
    .ch_shift_o (ch_shift),
    .lut_re_i   (lut_re),
    .lut_raddr_i(lut_raddr),
    .lut_rdata_o(lut_rdata),
    .loaded_o   (loaded_o)
  );

  // the float path's parameters (Bf16)
  logic [N*32-1:0] scale;
  logic [31:0]     fmin, fmax;
  if (Bf16) begin : g_fp_params
    tpu_act_fp_params #(.N(N)) u_fp_params (
      .clk_i, .rst_i, .wr_valid_i, .wr_kind_i, .wr_index_i, .wr_data_i,
      .scale_o(scale), .fmin_o(fmin), .fmax_o(fmax), .loaded_o(fp_loaded_o)
    );
  end else begin : g_no_fp_params
    assign scale       = '0;
    assign fmin        = '0;
    assign fmax        = '0;
    assign fp_loaded_o = '0;
  end
  if (Bf16 && ActLanes < N) begin : g_bad_bf16
    $error("tpu_act_unit: Bf16 needs the pipelined activation (ActLanes = N)");
  end

  if (Round && ActLanes < N) begin : g_bad_round
    $error("tpu_act_unit: Round needs the pipelined activation (ActLanes = N)");
  end

  if (ParOutReg && ActLanes >= N) begin : g_bad_par_out_reg
    $error("tpu_act_unit: ParOutReg needs the serial activation (ActLanes < N)");
  end

  if (ActLanes >= N) begin : g_pipe
    assign ch_re    = 1'b0;
    assign ch_raddr = '0;
    logic unused_ch;
    assign unused_ch = ^{ch_bias, ch_mult, ch_shift};
    tpu_activation #(
      .N     (N),
      .LutReg(LutReg),
      .Bf16  (Bf16),
      .Round (Round)
    ) u_act (
      .clk_i      (clk_i),
      .rst_i      (rst_i),
      .bias_i     (bias),
      .mult_i     (mult),
      .shift_i    (shift),
      .zp_i       (zp),
      .qmin_i     (qmin),
      .qmax_i     (qmax),
      .round_i    (round),
      .scale_i    (scale),
      .fmin_i     (fmin),
      .fmax_i     (fmax),
      .lut_re_o   (lut_re),
      .lut_raddr_o(lut_raddr),
      .lut_rdata_i(lut_rdata),
      .in_valid_i (in_valid_i),
      .in_ready_o (in_ready_o),
      .in_acc_i   (in_acc_i),
      .in_raw_i   (in_raw_i),
      .in_lut_i   (in_lut_i),
      .in_last_i  (in_last_i),
      .in_fp_i    (in_fp_i),
      .in_scale_i (in_scale_i),
      .in_clamp_i (in_clamp_i),
      .out_valid_o(out_valid_o),
      .out_ready_i(out_ready_i),
      .out_int8_o (out_int8_o),
      .out_raw_o  (out_raw_o),
      .out_sat_o  (out_sat_o),
      .out_last_o (out_last_o)
    );
  end else begin : g_serial
    // the serial unit's group index (= the channel with ChanRam, where Lanes = 1)
    localparam int unsigned Groups = N / (ActLanes > 0 ? ActLanes : 1);
    localparam int unsigned GrpW   = Groups > 1 ? $clog2(Groups) : 1;
    logic [GrpW-1:0] par_addr;
    tpu_act_serial #(
      .N      (N),
      .Lanes  (ActLanes),
      .ChanRam  (ChanRam),
      .LutReg   (LutReg),
      .ParOutReg(ParOutReg)
    ) u_act (
      .clk_i      (clk_i),
      .rst_i      (rst_i),
      .bias_i     (bias),
      .mult_i     (mult),
      .shift_i    (shift),
      .zp_i       (zp),
      .qmin_i     (qmin),
      .qmax_i     (qmax),
      .par_re_o   (ch_re),
      .par_addr_o (par_addr),
      .par_bias_i (ch_bias),
      .par_mult_i (ch_mult),
      .par_shift_i(ch_shift),
      .lut_re_o   (lut_re),
      .lut_raddr_o(lut_raddr),
      .lut_rdata_i(lut_rdata),
      .in_valid_i (in_valid_i),
      .in_ready_o (in_ready_o),
      .in_acc_i   (in_acc_i),
      .in_raw_i   (in_raw_i),
      .in_lut_i   (in_lut_i),
      .in_last_i  (in_last_i),
      .out_valid_o(out_valid_o),
      .out_ready_i(out_ready_i),
      .out_int8_o (out_int8_o),
      .out_raw_o  (out_raw_o),
      .out_sat_o  (out_sat_o),
      .out_last_o (out_last_o)
    );
    assign ch_raddr = ChW'(par_addr);
    logic unused_fp;
    assign unused_fp = ^{scale, fmin, fmax, in_fp_i, in_scale_i, in_clamp_i};
    // (DOUBLE only: the device without FEATURES.ROUND refuses other modes, tpu_cmd_check)
    logic unused_round;
    assign unused_round = ^round;
  end
endmodule

`default_nettype wire
