// tpu_dp_activate: the datapath's ACTIVATE engine and the activation parameters. Reads an
// ACTIVATE's ACC rows (one per cycle into the pipelined activation, ActLanes = N; one at a
// time into the serial one, ActLanes < N: the next row once the previous result is out), and
// writes each result row to the UB (int8) or back to the ACC (RAW32: ACC row + bias). PARAM
// writes reach the parameter memory (tpu_act_unit) one cycle after their acceptance.
// Latency: the row read in cycle t (act_fire) enters the activation in t + AccLatency.
// StreamMm overlaps (all off on the boards):
//   BesideOn  a MATMUL may be accepted beside an int8 ACTIVATE that has at most BesideRows
//             rows left to read from the ACC (mm_beside_act_o; tpu_dp_accept checks the UB
//             ranges against act_ub_lo_o / act_ub_hi_o): the MATMUL's first ACC access comes
//             BesideRows cycles after its acceptance, after the ACTIVATE's last read.
//   ChainOn   a chained ACTIVATE (tpu_dp_accept act_chain_ok_o) takes each row from the last
//             MATMUL's ACC write (the row written in cycle t enters in t + 1, from
//             acc_fwd_data_i) instead of reading the ACC: it skips the earlier MATMULs' rows
//             still in flight and takes the next ones (asserted).
//   BiasOn    a BIAS PARAM beside a running ACTIVATE waits in tpu_act_params' shadow bank
//             until that ACTIVATE's last row has read the bias.
//   RdChainOn the first UB row, rows and rows written so far of the running ACTIVATE, for a
//             UB_READ chained on its output (tpu_dp_read).
// Bf16 (tpu_datapath Bf16): UB rows of 16N bits, and a float ACTIVATE: flags[3] BF16, with it
// flags[0] SCALE, flags[1] RAW32, flags[2] CLAMP (tpu_activation's float path): its rows go to
// the UB as N bf16 or, with RAW32, to the ACC as N fp32; an int8 row is written zero-extended.
`default_nettype none

module tpu_dp_activate #(
  parameter int unsigned N          = 16,
  parameter int unsigned UbRows     = 8192,
  parameter int unsigned AccRows    = 2048,
  parameter int unsigned ActLanes   = N,
  parameter bit          LutReg     = 1'b0,  // tpu_act_unit options (board timing)
  parameter bit          ParOutReg  = 1'b0,
  parameter int unsigned AccLatency = 1,     // the ACC read port's latency (1, 2)
  parameter bit          BesideOn   = 1'b0,
  parameter bit          ChainOn    = 1'b0,
  parameter bit          BiasOn     = 1'b0,
  parameter bit          RdChainOn  = 1'b0,
  parameter int unsigned BesideRows = 2 * N + 1,
  parameter bit          Bf16       = 1'b0,
  parameter bit          Round      = 1'b0,  // the SINGLE and FLOAT roundings (tpu_act_unit)
  localparam int unsigned UbW       = N * (Bf16 ? 16 : 8),
  localparam int unsigned UbAw      = $clog2(UbRows),
  localparam int unsigned AccAw     = $clog2(AccRows),
  localparam int unsigned CntW      = $clog2((UbRows > AccRows ? UbRows : AccRows) + 1),
  localparam int unsigned RngW      = CntW + 1,
  localparam int unsigned MmFlightW = $clog2(2 * N + 8),
  localparam int unsigned SlW       = (CntW > MmFlightW ? CntW : MmFlightW) + 2
) (
  input  logic                 clk_i,
  input  logic                 rst_i,
  // accepted now (tpu_dp_accept) and the command's fields: an ACTIVATE (a ACC rows, b UB or
  // ACC rows, flags {RAW32, LUT}; Bf16 above) or a PARAM (flags kind, a index, data value)
  input  logic                 ac_act_i,
  input  logic                 act_chain_ok_i,
  input  logic                 ac_param_i,
  input  logic [3:0]           cmd_flags_i,
  input  logic [31:0]          cmd_a_i,
  input  logic [31:0]          cmd_b_i,
  input  logic [CntW-1:0]      cmd_rows_i,
  input  logic [RngW-1:0]      cmd_hi_b_i,
  input  logic [31:0]          cmd_data_i,
  // the MATMUL engine (chained rows and their order)
  input  logic                 acc_w_valid_i,   // a MATMUL row is written to the ACC now
  input  logic [AccAw-1:0]     acc_w_addr_i,
  input  logic [N*32-1:0]      acc_fwd_data_i,  // the row written in the previous cycle
  input  logic [SlW-1:0]       mm_slack_i,
  input  logic [MmFlightW-1:0] mm_flight_i,
  input  logic [CntW-1:0]      mm_left_i,
  input  logic [CntW-1:0]      lm_rows_i,
  // the ACC read port (claimed while an ACTIVATE reads; read on act_acc_re_o)
  output logic                 acc_claim_o,
  output logic                 acc_re_o,
  output logic [AccAw-1:0]     acc_raddr_o,
  input  logic [N*32-1:0]      acc_rdata_i,
  // result rows: to the UB (int8) or the ACC (RAW32)
  output logic                 ub_we_o,
  output logic [UbAw-1:0]      ub_waddr_o,
  output logic [UbW-1:0]       ub_wdata_o,
  output logic                 acc_we_o,
  output logic [AccAw-1:0]     acc_waddr_o,
  output logic [N*32-1:0]      acc_wdata_o,
  // state for the other engines
  output logic                 act_idle_o,
  output logic                 act_raw_o,
  output logic                 mm_beside_act_o,
  output logic [RngW-1:0]      act_ub_lo_o,
  output logic [RngW-1:0]      act_ub_hi_o,
  output logic [UbAw-1:0]      act_ub0_o,
  output logic [CntW-1:0]      act_rows_o,
  output logic [CntW-1:0]      act_wr_o,
  // completions and status
  output logic                 act_done_o,
  output logic [31:0]          act_result_o,
  output logic [4:0]           params_loaded_o,
  output logic [1:0]           fp_loaded_o      // Bf16: {FCLAMP, SCALE} (else 0)
);
  localparam int unsigned ActFlightW = CntW;  // generous: rows in flight < 16
  // saturated values of one ACTIVATE: at most AccRows x N
  localparam int unsigned SatW = $clog2(AccRows * N + 1);

  logic [AccAw-1:0]      act_src_q;
  logic                  act_lut_q, act_raw_q, act_fp_q, act_scl_q, act_clp_q;
  logic [UbAw-1:0]       act_dst_ub_q;
  logic [AccAw-1:0]      act_dst_acc_q;
  logic                  a1_valid_q, a1_last_q;
  logic [SatW-1:0]       act_sat_q, act_sat_d;
  logic [ActFlightW-1:0] act_flight_q;
  logic                  act_fl0_q;  // act_flight_q == 0, registered
  logic                  act_active, act_one, act_fire, act_idle;
  logic [CntW-1:0]       act_left;
  logic                  ap_in_ready, ap_out_valid, ap_out_last;
  logic [N*8-1:0]        ap_out_int8;
  logic [N*32-1:0]       ap_out_raw;
  logic [$clog2(N+1)-1:0] ap_out_sat;

  tpu_row_counter #(.Width(CntW)) u_left (
    .clk_i, .rst_i, .load_i(ac_act_i), .rows_i(cmd_rows_i), .dec_i(act_fire),
    .left_o(act_left), .nz_o(act_active), .one_o(act_one)
  );

  // A PARAM reaches the parameter memory one cycle after its acceptance, from registers, so
  // the acceptance decision does not drive the write enables of the N LUT block RAMs (spread
  // over the die on big boards). Exact: a PARAM is accepted only while the activation is idle,
  // an ACTIVATE can be accepted one cycle later at the earliest and reads its first ACC row a
  // cycle after that, so every row still sees every earlier value (asserted below); the loaded
  // flags include the pending write, so they change in the same cycle as before. BiasOn: a
  // BIAS PARAM also while an ACTIVATE runs; bias_hold_i (a row of it not yet at the
  // activation's input, or there now: a row uses the bias in its input cycle) is high from the
  // cycle after that ACTIVATE's acceptance on, so a BIAS accepted after it is held in the
  // shadow bank until its last row is in, one accepted before it is already in place.
  logic        pw_valid_q;
  logic [2:0]  pw_kind_q;
  logic [7:0]  pw_index_q;
  logic [31:0] pw_data_q;
  logic [4:0]  act_loaded;
  logic [1:0]  act_fp_loaded;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      pw_valid_q <= 1'b0;
    end else begin
      pw_valid_q <= ac_param_i;
    end
    pw_kind_q  <= cmd_flags_i[2:0];
    pw_index_q <= cmd_a_i[7:0];
    pw_data_q  <= cmd_data_i;
  end
  assign params_loaded_o = act_loaded | (pw_valid_q ? 5'(1) << pw_kind_q : 5'd0);
  assign fp_loaded_o     = act_fp_loaded |
                           {pw_valid_q && pw_kind_q == tpu_pkg::ParamFclamp && Bf16,
                            pw_valid_q && pw_kind_q == tpu_pkg::ParamScale && Bf16};

  // The row at the activation's input: read from ACC in the cycle act_fire, there a cycle later
  // (a1), with AccLatency 2 two cycles later (a2: the ACC's read data comes a cycle later).
  logic ai_valid, ai_last;
  if (AccLatency == 2) begin : g_act_a2
    logic a2_valid_q, a2_last_q;
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        a2_valid_q <= 1'b0;
      end else begin
        a2_valid_q <= a1_valid_q;
      end
      a2_last_q <= a1_last_q;
    end
    assign ai_valid = a2_valid_q;
    assign ai_last  = a2_last_q;
  end else begin : g_act_a1
    assign ai_valid = a1_valid_q;
    assign ai_last  = a1_last_q;
  end

  // (a chained ACTIVATE: in the cycle the MATMUL writes its next row, after ch_skip_q
  // earlier rows)
  logic act_chain_q, a1_chain_q;
  logic [MmFlightW-1:0] ch_skip_q;

  // parameters + the activation (pipelined, or tpu_act_serial when ActLanes < N)
  tpu_act_unit #(.N(N), .ActLanes(ActLanes), .BiasShadow(BiasOn), .LutReg(LutReg),
                 .ParOutReg(ParOutReg), .Bf16(Bf16), .Round(Round)) u_act_unit (
    .clk_i,
    .rst_i,
    // (not during reset: before the first reset edge pw_valid_q is random in simulation, and a
    // LUT write beside a random LUT read trips tpu_ram's same-address assertion)
    .wr_valid_i  (pw_valid_q && !rst_i),
    .wr_kind_i   (pw_kind_q),
    .wr_index_i  (pw_index_q),
    .wr_data_i   (pw_data_q),
    // (a row of the running ACTIVATE still to read the bias: not fired yet, or at the input)
    .bias_hold_i (act_active || a1_valid_q || ai_valid),
    .loaded_o    (act_loaded),
    .fp_loaded_o (act_fp_loaded),
    .in_valid_i  (ai_valid),
    .in_ready_o  (ap_in_ready),
    .in_acc_i    (a1_chain_q ? acc_fwd_data_i : acc_rdata_i),
    .in_raw_i    (act_raw_q),
    .in_lut_i    (act_lut_q),
    .in_last_i   (ai_last),
    .in_fp_i     (act_fp_q),
    .in_scale_i  (act_scl_q),
    .in_clamp_i  (act_clp_q),
    .out_valid_o (ap_out_valid),
    .out_ready_i (1'b1),
    .out_int8_o  (ap_out_int8),
    .out_raw_o   (ap_out_raw),
    .out_sat_o   (ap_out_sat),
    .out_last_o  (ap_out_last)
  );

  // The pipeline's output is always taken, so its input is always ready: rows are read from
  // ACC one per cycle and enter the pipeline the cycle after. The serial unit takes one row at
  // a time: the next row is read once the previous one has come out (then it is ready again).
  assign act_fire = act_active && (ActLanes >= N || act_fl0_q) &&
                    (!act_chain_q || (acc_w_valid_i && ch_skip_q == '0));
  assign act_idle = !act_active && act_fl0_q;

  if (BesideOn) begin : g_mm_beside_act
    logic [RngW-1:0] act_ub_lo_q, act_ub_hi_q;  // the ACTIVATE's UB rows [lo, hi)
    always_ff @(posedge clk_i) begin
      if (ac_act_i) begin
        act_ub_lo_q <= RngW'(cmd_b_i[UbAw-1:0]);
        act_ub_hi_q <= cmd_hi_b_i;
      end
    end
    // (the ACTIVATE's last of its act_left rows is read act_left - 1 cycles after the MATMUL's
    // acceptance, the MATMUL's first ACC read BesideRows cycles after it; the ACC read port
    // assertion of tpu_datapath checks it)
    // (a chained ACTIVATE reads no ACC row: a MATMUL may go beside it at once; its ACC rows are
    // written after every row of the MATMUL the ACTIVATE takes its rows from)
    assign mm_beside_act_o = act_chain_q || (!act_raw_q && act_left <= CntW'(BesideRows));
    assign act_ub_lo_o     = act_ub_lo_q;
    assign act_ub_hi_o     = act_ub_hi_q;
  end else begin : g_no_mm_beside_act
    assign mm_beside_act_o = 1'b0;
    assign act_ub_lo_o     = '0;
    assign act_ub_hi_o     = '0;
  end

  if (ChainOn) begin : g_act_chain
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        act_chain_q <= 1'b0;
        a1_chain_q  <= 1'b0;
        ch_skip_q   <= '0;
      end else begin
        if (ac_act_i) begin
          act_chain_q <= act_chain_ok_i;
          // -(mm_slack_i + acc_w_valid_i): the earlier MATMULs' rows written after this cycle
          ch_skip_q   <= MmFlightW'(~mm_slack_i) + MmFlightW'(!acc_w_valid_i);
        end else if (act_chain_q && acc_w_valid_i && ch_skip_q != '0) begin
          ch_skip_q <= ch_skip_q - 1'b1;
        end
        a1_chain_q <= act_fire && act_chain_q;
      end
    end
`ifndef SYNTHESIS
    // Exactness: each chained row is the write of the ACTIVATE's next source row by a MATMUL
    // accepted before it, and no row of such a MATMUL that is still to be written goes to that
    // ACC row: the rows still due from before the ACTIVATE (counted from the in-flight counts
    // at its acceptance) are exactly the last MATMUL's rows after this one.
    logic [CntW:0] chk_due_q, chk_row_q, chk_lm_q;
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        chk_due_q <= '0;
      end else begin
        if (ac_act_i) begin
          chk_due_q <= (CntW + 1)'(mm_flight_i) + (CntW + 1)'(mm_left_i) -
                       (CntW + 1)'(acc_w_valid_i);
          chk_row_q <= '0;
          chk_lm_q  <= (CntW + 1)'(lm_rows_i);
        end else begin
          if (acc_w_valid_i && chk_due_q != '0) begin
            chk_due_q <= chk_due_q - 1'b1;
          end
          if (act_fire && act_chain_q) begin
            chk_row_q <= chk_row_q + 1'b1;
          end
        end
        if (act_fire && act_chain_q) begin
          assert (acc_w_valid_i && acc_w_addr_i == act_src_q && chk_due_q != '0 &&
                  chk_due_q - 1'b1 == chk_lm_q - 1'b1 - chk_row_q)
            else $error("tpu_dp_activate: chained ACTIVATE row %0d is not its MATMUL's row",
                        chk_row_q);
        end
      end
    end
`endif
  end else begin : g_no_act_chain
    assign act_chain_q = 1'b0;
    assign a1_chain_q  = 1'b0;
    assign ch_skip_q   = '0;
  end

  if (RdChainOn) begin : g_rd_chain
    logic [UbAw-1:0] act_ub0_q;
    logic [CntW-1:0] act_rows_q, act_wr_q;
    always_ff @(posedge clk_i) begin
      if (ac_act_i) begin
        act_ub0_q  <= UbAw'(cmd_b_i);
        act_rows_q <= cmd_rows_i;
        act_wr_q   <= '0;
      end else if (ap_out_valid) begin
        act_wr_q <= act_wr_q + 1'b1;
      end
    end
    assign act_ub0_o  = act_ub0_q;
    assign act_rows_o = act_rows_q;
    assign act_wr_o   = act_wr_q;
  end else begin : g_no_rd_chain
    assign act_ub0_o  = '0;
    assign act_rows_o = '0;
    assign act_wr_o   = '0;
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      a1_valid_q   <= 1'b0;
      act_flight_q <= '0;
      act_fl0_q    <= 1'b1;
      act_sat_q    <= '0;
    end else begin
      a1_valid_q   <= act_fire;
      act_flight_q <= act_flight_q + ActFlightW'(act_fire) - ActFlightW'(ap_out_valid);
      act_fl0_q    <= !act_fire && act_flight_q == ActFlightW'(ap_out_valid);
      if (ap_out_valid) begin
        act_sat_q <= ap_out_last ? '0 : act_sat_d;
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (ac_act_i) begin
      act_src_q     <= AccAw'(cmd_a_i);
      act_dst_ub_q  <= UbAw'(cmd_b_i);
      act_dst_acc_q <= AccAw'(cmd_b_i);
      act_fp_q      <= Bf16 && cmd_flags_i[3];
      act_lut_q     <= cmd_flags_i[0] && !(Bf16 && cmd_flags_i[3]);
      act_scl_q     <= cmd_flags_i[0] && Bf16 && cmd_flags_i[3];
      act_clp_q     <= cmd_flags_i[2] && Bf16 && cmd_flags_i[3];
      act_raw_q     <= cmd_flags_i[1];
    end else begin
      if (act_fire) begin
        act_src_q <= act_src_q + 1'b1;
      end
      if (ap_out_valid) begin
        act_dst_ub_q  <= act_dst_ub_q + 1'b1;
        act_dst_acc_q <= act_dst_acc_q + 1'b1;
      end
    end
    a1_last_q <= act_one;
  end

  assign act_sat_d    = act_sat_q + SatW'(ap_out_sat);
  assign act_done_o   = ap_out_valid && ap_out_last;
  assign act_result_o = 32'(act_sat_d);

  assign acc_claim_o = act_active && !act_chain_q;
  assign acc_re_o    = act_fire && !act_chain_q;
  assign acc_raddr_o = act_src_q;
  assign ub_we_o     = ap_out_valid && !act_raw_q;
  assign ub_waddr_o  = act_dst_ub_q;
  if (Bf16) begin : g_ub_bf16
    // a float row: the bf16 values from the lanes' low halves (tpu_activation); an int8 row in
    // bytes 0..N-1, the rest 0 (spec 6.12)
    logic [UbW-1:0] bf_row;
    for (genvar j = 0; j < N; j++) begin : g_lane
      assign bf_row[16*j +: 16] = ap_out_raw[32*j +: 16];
    end
    assign ub_wdata_o = act_fp_q ? bf_row : UbW'(ap_out_int8);
  end else begin : g_ub_int8
    assign ub_wdata_o = ap_out_int8;
  end
  assign acc_we_o    = ap_out_valid && act_raw_q;
  assign acc_waddr_o = act_dst_acc_q;
  assign acc_wdata_o = ap_out_raw;
  assign act_idle_o  = act_idle;
  assign act_raw_o   = act_raw_q;

  logic unused;
  // (the StreamMm overlaps' inputs, and the chained rows' order inputs used by assertions)
  assign unused = ^{cmd_b_i, cmd_a_i, act_left, act_chain_ok_i, cmd_hi_b_i, acc_w_addr_i,
                    mm_slack_i, mm_flight_i, mm_left_i, lm_rows_i};

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      assert (act_fl0_q == (act_flight_q == '0))
        else $error("tpu_dp_activate: registered in-flight decode");
      // the activation takes every row offered
      assert (!ai_valid || ap_in_ready) else $error("tpu_dp_activate: activation refused a row");
      // a PARAM lands a cycle after its acceptance: nothing in the activation may use it yet
      // (BiasOn: a BIAS value waits in the shadow bank, tpu_act_params asserts it)
      assert (!pw_valid_q || (act_idle && !a1_valid_q && !ai_valid) ||
              (BiasOn && pw_kind_q == 3'(tpu_pkg::ParamBias)))
        else $error("tpu_dp_activate: delayed PARAM write while the activation runs");
    end
  end
`endif
endmodule

`default_nettype wire
