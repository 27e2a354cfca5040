// tpu_dp_matmul: the datapath's MATMUL engine: issues a MATMUL's rows from the UB into the MXU
// (weight FIFO + systolic array, tpu_mxu) and writes each result row into the ACC through the
// accumulator read-modify-write (tpu_dp_acc_rmw). Counts the rows in flight and keeps the slack
// of the last MATMUL that tpu_dp_accept's rules read.
// A MATMUL of R rows accepted in cycle a issues a row per cycle from a + 1 (a POP's switch row
// waits for its tile, see mm_swap_ok); a row's UB read takes UbLatency cycles, the MXU
// 2N (+ ProdReg), the read-modify-write 1 (+ AccSlice): the last row is written in cycle
// a + R + 2N + UbLatency (+ ProdReg + AccSlice), and mm_done_o pulses then.
// BackToBack: a MATMUL may be accepted in the cycle the previous one issues its last row (its
// POP switch row then looks ahead at the tile, swap_ready_next); without it (tpu_datapath
// CmdSlice) one cycle later, so no row is ever in the issue stages when a POP issues.
// MmChainOn (StreamMm devices): a chained MATMUL (flags[2] CHAIN) issues row r only once the
// UB_WRITE of its UB row a + r was accepted in an earlier cycle.
// Bf16 (the bf16 mode; needs AccSlice = 0): UB rows and weight rows are N 16-bit lanes; a
// MATMUL with flags[3] BF16 feeds its UB rows to the MXU as bf16 rows (fp32 column sums, fp32
// ACCUMULATE), one without it takes int8 element k from byte k of the row (spec 6.12) into
// lane k's low byte. Same issue timing and latency either way.
`default_nettype none

module tpu_dp_matmul #(
  parameter int unsigned N          = 16,
  parameter int unsigned UbRows     = 8192,
  parameter int unsigned AccRows    = 2048,
  parameter int unsigned Tiles      = 4,
  parameter bit          BackToBack = 1'b1,
  parameter bit          ProdReg    = 1'b0,  // tpu_pe's product register (+1 latency)
  parameter int unsigned UbLatency  = 1,     // the UB read port's latency (1, 2)
  parameter int unsigned AccLatency = 1,     // the ACC read port's latency (1, 2)
  parameter bit          AccSlice   = 1'b0,  // tpu_dp_acc_rmw in two stages
  parameter bit          MmChainOn  = 1'b0,
  parameter bit          Bf16       = 1'b0,
  localparam int unsigned LaneW     = Bf16 ? 16 : 8,
  localparam int unsigned UbAw      = $clog2(UbRows),
  localparam int unsigned AccAw     = $clog2(AccRows),
  localparam int unsigned CntW      = $clog2((UbRows > AccRows ? UbRows : AccRows) + 1),
  localparam int unsigned RngW      = CntW + 1,
  localparam int unsigned MmFlightW = $clog2(2 * N + 8),
  localparam int unsigned SlW       = (CntW > MmFlightW ? CntW : MmFlightW) + 2,
  localparam int unsigned TileBits  = $clog2(Tiles + 2)
) (
  input  logic                 clk_i,
  input  logic                 rst_i,
  // the MATMUL accepted now (tpu_dp_accept) and its fields: a UB rows, b ACC rows,
  // flags {BF16, CHAIN, POP, ACCUMULATE}
  input  logic                 ac_mm_i,
  input  logic [UbAw-1:0]      cmd_a_i,
  input  logic [AccAw-1:0]     cmd_b_i,
  input  logic [CntW-1:0]      cmd_rows_i,
  input  logic [3:0]           cmd_flags_i,
  input  logic                 ub_write_i,  // a UB_WRITE of row cmd_a_i accepted now
  // weight rows
  input  logic                 wpush_valid_i,
  output logic                 wpush_ready_o,
  input  logic [N*LaneW-1:0]   wpush_row_i,
  input  logic                 wpush_transpose_i,
  // the UB read port (read the row at ub_raddr_o while ub_re_o; its data UbLatency later)
  output logic                 ub_re_o,
  output logic [UbAw-1:0]      ub_raddr_o,
  input  logic [N*LaneW-1:0]   ub_rdata_i,
  // the ACC ports (read: claimed, read, data AccLatency later; write)
  output logic                 acc_claim_o,
  output logic                 acc_re_o,
  output logic [AccAw-1:0]     acc_raddr_o,
  input  logic [N*32-1:0]      acc_rdata_i,
  output logic                 acc_we_o,
  output logic [AccAw-1:0]     acc_waddr_o,
  output logic [N*32-1:0]      acc_wdata_o,
  output logic [N*32-1:0]      acc_fwd_data_o,  // the row written in the previous cycle
  // state for the other engines
  output logic                 mm_active_o,     // rows left to issue
  output logic                 mm_fire_o,       // a row issues now (reads the UB)
  output logic                 mm_last_fire_o,  // the last of them issues now
  output logic                 mxu_idle_o,      // none left, none in flight
  output logic [SlW-1:0]       mm_slack_o,      // see mm_slack_q
  output logic [MmFlightW-1:0] mm_flight_o,     // rows issued and not yet written
  output logic [CntW-1:0]      mm_left_o,       // rows left to issue
  output logic                 mxu_in_valid_o,  // a row enters the MXU now
  output logic                 mm_done_o,       // a MATMUL's last row is written now
  output logic [TileBits-1:0]  tiles_o          // weight tiles pushed, not yet popped
);
  // {acc address, accumulate, last}; Bf16: {acc address, accumulate, fp, last}
  localparam int unsigned TagWidth = AccAw + 2 + 32'(Bf16);

  if (Bf16 && AccSlice) begin : g_bad_bf16
    $error("tpu_dp_matmul: Bf16 needs AccSlice = 0");
  end
  if (UbLatency < 1 || UbLatency > 2) begin : g_bad_ub_latency
    $error("tpu_dp_matmul: UbLatency must be 1 or 2");
  end

  // ---------------------------------------------------------------- issue
  logic [UbAw-1:0]  mm_ub_q;
  logic [AccAw-1:0] mm_acc_q;
  logic             mm_accum_q, mm_pop_q, mm_bf_q;
  logic             mm_active, mm_one, mm_fire, mm_swap_ok;
  logic             mm_row_in;  // the row at mm_ub_q may issue (MmChainOn: it is written)
  // MXU input stage (UB read data arrives; UbLatency 2: the stage after the RAM's read, and
  // mi_* the row entering the MXU, from stage s1 or from s2)
  logic                s1_valid_q, s1_sw_q;
  logic [TagWidth-1:0] s1_tag_q;
  logic                mi_valid, mi_sw;
  logic [TagWidth-1:0] mi_tag;
  logic                mxu_in_ready, mxu_swap_ready, mxu_swap_ready_next;
  logic                mxu_out_valid;
  logic [N*32-1:0]     mxu_out_row;
  logic [TagWidth-1:0] mxu_out_tag;

  tpu_row_counter #(.Width(CntW)) u_left (
    .clk_i, .rst_i, .load_i(ac_mm_i), .rows_i(cmd_rows_i), .dec_i(mm_fire),
    .left_o(mm_left_o), .nz_o(mm_active), .one_o(mm_one)
  );

  // the row entering the MXU: Bf16's int8 rows spread from bytes to the lanes' low bytes
  logic [N*LaneW-1:0] mi_row;
  logic               mi_bf;
  if (Bf16) begin : g_mi_bf16
    assign mi_bf = mi_tag[1];  // the tag's fp bit
    for (genvar k = 0; k < N; k++) begin : g_lane
      assign mi_row[k*16 +: 16] = mi_bf ? ub_rdata_i[k*16 +: 16] : {8'd0, ub_rdata_i[k*8 +: 8]};
    end
  end else begin : g_mi_int8
    assign mi_bf  = 1'b0;
    assign mi_row = ub_rdata_i;
  end

  tpu_mxu #(.N(N), .Tiles(Tiles), .TagWidth(TagWidth), .ProdReg(ProdReg),
            .IssueAhead(UbLatency), .Bf16(Bf16)) u_mxu (
    .clk_i,
    .rst_i,
    .wpush_valid_i,
    .wpush_ready_o,
    .wpush_row_i,
    .wpush_transpose_i,
    .in_valid_i   (mi_valid),
    .in_ready_o   (mxu_in_ready),
    .in_row_i     (mi_row),
    .in_bf_i      (mi_bf),
    .in_sw_i      (mi_sw),
    .in_tag_i     (mi_tag),
    .in_sw_next_i (s1_valid_q && s1_sw_q),  // (IssueAhead = 2 only: a switch row in s1)
    .out_valid_o  (mxu_out_valid),
    .out_row_o    (mxu_out_row),
    .out_tag_o    (mxu_out_tag),
    .swap_ready_o (mxu_swap_ready),
    .swap_ready_next_o (mxu_swap_ready_next),
    .tiles_o
  );

  // A switch row is read from the UB one cycle before it reaches the MXU, so it may issue when
  // the next tile will be complete in the shadow registers in the next cycle (this already
  // accounts for a switch row entering the MXU now, which uses the current one up). UbLatency
  // 2: two cycles before, so two cycles ahead (also accounting for a switch row in stage s1).
  // Without BackToBack: when the tile is complete now (swap_ready, a decode of flip-flops; a
  // POP MATMUL waits one cycle more when its tile completes in that cycle): a MATMUL is
  // accepted only while none is active, so while mm_pop_q is set no row is in stage s1 and the
  // tile stays.
  assign mm_swap_ok     = !mm_pop_q || (BackToBack ? mxu_swap_ready_next : mxu_swap_ready);
  assign mm_fire        = mm_active && mm_swap_ok && mm_row_in;
  assign mm_active_o    = mm_active;
  assign mm_fire_o      = mm_fire;
  assign mm_last_fire_o = mm_fire && mm_one;

  // A chained MATMUL (MmChainOn): the row at mm_ub_q issues once a UB_WRITE accepted since the
  // MATMUL's acceptance has written it (ch_n_q: the next of its rows to be written, counted
  // as the UB_WRITEs of its rows come in order). A row written in this cycle is read from the
  // next one on (tpu_ram: no read of the row being written).
  if (MmChainOn) begin : g_mm_chain
    logic            ch_q;
    logic [RngW-1:0] ch_n_q;
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        ch_q <= 1'b0;
      end else if (ac_mm_i) begin
        ch_q <= cmd_flags_i[2];
      end
      if (ac_mm_i) begin
        ch_n_q <= RngW'(cmd_a_i);
      end else if (ub_write_i && RngW'(cmd_a_i) == ch_n_q) begin
        ch_n_q <= ch_n_q + 1'b1;
      end
    end
    assign mm_row_in = !ch_q || RngW'(mm_ub_q) < ch_n_q;
`ifndef SYNTHESIS
    // The rule, checked apart from the counter: every row a chained MATMUL issues was written
    // by a UB_WRITE accepted after the MATMUL, in an earlier cycle (chk_wr_q: per UB row,
    // cleared when a chained MATMUL is accepted).
    logic [UbRows-1:0] chk_wr_q;
    always_ff @(posedge clk_i) begin
      if (ac_mm_i && cmd_flags_i[2]) begin
        chk_wr_q <= '0;
      end else if (ub_write_i) begin
        chk_wr_q[cmd_a_i] <= 1'b1;
      end
      if (!rst_i && mm_fire && ch_q) begin
        assert (chk_wr_q[mm_ub_q])
          else $error("tpu_dp_matmul: chained MATMUL reads UB row %0d before it is written",
                      mm_ub_q);
      end
    end
`endif
  end else begin : g_no_mm_chain
    assign mm_row_in = 1'b1;
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      s1_valid_q <= 1'b0;
    end else begin
      s1_valid_q <= mm_fire;
    end
  end
  always_ff @(posedge clk_i) begin
    if (ac_mm_i) begin
      mm_ub_q    <= cmd_a_i;
      mm_acc_q   <= cmd_b_i;
      mm_accum_q <= cmd_flags_i[0];
      mm_pop_q   <= cmd_flags_i[1];
      mm_bf_q    <= Bf16 && cmd_flags_i[3];
    end else if (mm_fire) begin
      mm_ub_q  <= mm_ub_q + 1'b1;
      mm_acc_q <= mm_acc_q + 1'b1;
      mm_pop_q <= 1'b0;
    end
    s1_sw_q  <= mm_fire && mm_pop_q;
    if (Bf16) begin
      s1_tag_q <= TagWidth'({mm_acc_q, mm_accum_q, mm_bf_q, mm_one});
    end else begin
      s1_tag_q <= TagWidth'({mm_acc_q, mm_accum_q, mm_one});
    end
  end

  // With UbReadPort2 the UB port is the MATMUL's alone: it reads mm_ub_q whenever a MATMUL is
  // active (a flip-flop), not only when a row issues, so neither the read enable nor the
  // address depends on the issue decision (mm_fire: the weight FIFO's state), a path across
  // the die on a big FPGA. Same results: the MXU takes the read data only with s1_valid_q (the
  // row issued; UbLatency 2: a cycle later with s2), and the row read in a stalled cycle is the
  // one the MATMUL reads next anyway. (MmChainOn: not while that row is not yet written: a
  // UB_WRITE may be writing it in this cycle, and a block RAM's read of the row being written
  // is undefined; mm_row_in is 1 without it, so the boards keep the read enable a flip-flop.)
  // Without UbReadPort2 the port is shared with UB_READ: the top reads only on mm_fire_o then.
  assign ub_re_o    = mm_active && mm_row_in;
  assign ub_raddr_o = mm_ub_q;

  // UbLatency 2: the row's valid, switch bit and tag wait a cycle (stage s2) beside the UB's
  // output register, so they meet the row at the MXU; no stall (the MXU takes every row).
  if (UbLatency == 2) begin : g_ub_out_reg
    logic                s2_valid_q, s2_sw_q;
    logic [TagWidth-1:0] s2_tag_q;
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        s2_valid_q <= 1'b0;
      end else begin
        s2_valid_q <= s1_valid_q;
      end
      s2_sw_q  <= s1_sw_q;
      s2_tag_q <= s1_tag_q;
    end
    assign mi_valid = s2_valid_q;
    assign mi_sw    = s2_sw_q;
    assign mi_tag   = s2_tag_q;
  end else begin : g_ub_out_direct
    assign mi_valid = s1_valid_q;
    assign mi_sw    = s1_sw_q;
    assign mi_tag   = s1_tag_q;
  end
  assign mxu_in_valid_o = mi_valid;

  // ---------------------------------------------------------------- ACC read-modify-write
  logic             w_valid, w_last;
  logic [AccAw-1:0] w_addr;
  tpu_dp_acc_rmw #(.N(N), .AccRows(AccRows), .MxuLatency(2 * N + 32'(ProdReg)),
                   .AccLatency(AccLatency), .AccSlice(AccSlice),
                   .NoBackToBackHit(!BackToBack), .Bf16(Bf16)) u_rmw (
    .clk_i,
    .rst_i,
    .in_valid_i   (mi_valid),
    .in_tag_i     (mi_tag),
    .out_valid_i  (mxu_out_valid),
    .out_row_i    (mxu_out_row),
    .out_tag_i    (mxu_out_tag),
    .acc_claim_o,
    .acc_re_o,
    .acc_raddr_o,
    .acc_rdata_i,
    .w_valid_o    (w_valid),
    .w_last_o     (w_last),
    .w_addr_o     (w_addr),
    .w_data_o     (acc_wdata_o),
    .fwd_data_o   (acc_fwd_data_o)
  );
  assign acc_we_o    = w_valid;
  assign acc_waddr_o = w_addr;
  assign mm_done_o   = w_valid && w_last;

  // ---------------------------------------------------------------- rows in flight, slack
  // rows issued and not yet written: counted from stage s1 on (mm_fl1_q, so the issue decision
  // mm_fire does not feed a carry chain) plus the row in s1 (UbLatency 2: mm_fl1_q includes s2)
  logic [MmFlightW-1:0] mm_flight, mm_fl1_q;
  logic                 mm_fl0_q;  // mm_flight == 0, registered
  // lm_rows - (mm_flight + mm_left), signed: >= 0 when every earlier MATMUL's rows are written
  // (rows leave in order). Kept as a register, so the acceptance does not add and compare: a
  // MATMUL is accepted only when the previous one issues its last row, so then it becomes
  // -(the rows in flight next cycle); otherwise each ACC write adds 1.
  logic [SlW-1:0]       mm_slack_q;
  assign mm_flight = mm_fl1_q + MmFlightW'(s1_valid_q);
  // the slack's load value - (mm_flight + 1) + w_valid + !mm_active, as ~mm_fl1_q + sl_inc
  // (a table, not adders: one LUT level per bit, no carry chain in front of the slack's)
  logic signed [2:0] sl_inc;
  always_comb begin
    unique case ({w_valid, !mm_active, s1_valid_q})
      3'b001:         sl_inc = -3'sd1;
      3'b000, 3'b011,
      3'b101:         sl_inc = 3'sd0;
      3'b110:         sl_inc = 3'sd2;
      default:        sl_inc = 3'sd1;  // 010, 100, 111
    endcase
  end
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      mm_fl1_q   <= '0;
      mm_fl0_q   <= 1'b1;
      mm_slack_q <= '0;
    end else begin
      mm_fl1_q   <= mm_fl1_q + MmFlightW'(s1_valid_q) - MmFlightW'(w_valid);
      // (a row written was in flight, so after an issue the count is >= 1)
      mm_fl0_q   <= !mm_fire && mm_flight == MmFlightW'(w_valid);
      // (a MATMUL accepted while one is active is accepted as that one fires its last row)
      // (p - f - a = ~f + (p + !a) = ~fl1 + (p + !a - s1), one carry chain)
      mm_slack_q <= ac_mm_i ? (~(SlW'(mm_fl1_q))) + SlW'(sl_inc) : mm_slack_q + SlW'(w_valid);
    end
  end
  assign mxu_idle_o  = !mm_active && mm_fl0_q;
  assign mm_slack_o  = mm_slack_q;
  assign mm_flight_o = mm_flight;

  logic unused;
  assign unused = ^{mxu_swap_ready, mxu_swap_ready_next, cmd_flags_i, ub_write_i};

`ifndef SYNTHESIS
  logic                 lm_seen_q;
  logic [CntW-1:0]      lm_rows_q;
  logic [MmFlightW-1:0] mm_flight_chk_q;
  always_ff @(posedge clk_i) begin
    if (ac_mm_i) begin
      lm_rows_q <= cmd_rows_i;
    end
    if (rst_i) begin
      mm_flight_chk_q <= '0;
      lm_seen_q       <= 1'b0;
    end else begin
      // the registered MATMUL slack is what it stands for (once there was a MATMUL)
      if (lm_seen_q) begin
        assert ($signed(mm_slack_q) == $signed(SlW'(lm_rows_q)) - $signed(SlW'(mm_flight))
                                       - $signed(SlW'(mm_left_o)))
          else $error("tpu_dp_matmul: MATMUL slack %0d", $signed(mm_slack_q));
      end
      if (ac_mm_i) begin
        lm_seen_q <= 1'b1;
      end
      assert (mm_fl0_q == (mm_flight == '0))
        else $error("tpu_dp_matmul: registered in-flight decode");
      // the split in-flight count is the plain one
      assert (mm_flight == mm_flight_chk_q) else $error("tpu_dp_matmul: MATMUL rows in flight");
      mm_flight_chk_q <= mm_flight_chk_q + MmFlightW'(mm_fire) - MmFlightW'(w_valid);
      // the MXU takes every row (a switch row issues only with its tile ready)
      assert (!mi_valid || mxu_in_ready) else $error("tpu_dp_matmul: MXU refused a row");
    end
  end
`endif
endmodule

`default_nettype wire
