// tpu_dp_acc_rmw: the accumulator read-modify-write of MATMUL rows. Each result row leaving
// the MXU (out_*, tag {ACC address, ACCUMULATE, last}) is written to its ACC row: overwritten,
// or added to the row's old value (ACCUMULATE). Rows that hit an ACC row written shortly before
// take the old value from the rows in flight (forwarding), so accumulating rows that hit the
// same ACC row back to back stay exact.
// One stage (AccSlice = 0): the ACC row is read when the result leaves the MXU (cycle t), the
// sum formed and written in stage P (t + 1); a read of the row written in t is skipped and the
// row forwarded from fwd_data_q instead (tpu_ram: no read of the row being written).
// Two stages (AccSlice, boards): the row is read a cycle early (t - 1: its tag from a delay
// line fed by the MXU's input, in_*, one stage shorter than the MXU), its old value registered
// in t (o_q), the 32-bit add runs from registers into a register (stage P, t + 1) and stage S
// (t + 2) writes it: one cycle more, and the ACC is written from flip-flops.
// AccLatency 2 (the ACC RAM's output register; with AccSlice only): the read one cycle earlier
// still (t - 2); the three rows written between the read and the use are forwarded.
// NoBackToBackHit (tpu_datapath CmdSlice: a MATMUL accepted only after the previous one has
// issued its last row, so two rows back to back never hit the same ACC row): the add takes its
// old value straight from o_q, no mux in front of the carry chain (asserted).
// Bf16 (the bf16 mode; needs AccSlice = 0): the tag gains an fp bit, {addr, accumulate, fp,
// last}; an fp row's words are fp32 and ACCUMULATE adds them with tpu_fp_pkg::f32_add (spec
// 6.12: ACC = add(ACC, column sum)), in the same single stage as the int32 add.
`default_nettype none

module tpu_dp_acc_rmw #(
  parameter int unsigned N          = 16,
  parameter int unsigned AccRows    = 2048,
  parameter int unsigned MxuLatency = 2 * N,  // tpu_mxu: in_* to out_*
  parameter int unsigned AccLatency = 1,      // 1, 2 (2 needs AccSlice)
  parameter bit          AccSlice   = 1'b0,
  parameter bit          NoBackToBackHit = 1'b0,
  parameter bit          Bf16       = 1'b0,
  localparam int unsigned AccAw     = $clog2(AccRows),
  localparam int unsigned TagWidth  = AccAw + 2 + 32'(Bf16)
) (
  input  logic                clk_i,
  input  logic                rst_i,
  // the row entering the MXU now (AccSlice: its tag starts the early read's delay line)
  input  logic                in_valid_i,
  input  logic [TagWidth-1:0] in_tag_i,
  // the MXU's result row
  input  logic                out_valid_i,
  input  logic [N*32-1:0]     out_row_i,
  input  logic [TagWidth-1:0] out_tag_i,
  // the ACC read port (data AccLatency cycles after the read): claimed for a row that
  // accumulates (the port's address select), read unless that row is being written now
  output logic                acc_claim_o,
  output logic                acc_re_o,
  output logic [AccAw-1:0]    acc_raddr_o,
  input  logic [N*32-1:0]     acc_rdata_i,
  // the row written to the ACC now
  output logic                w_valid_o,
  output logic                w_last_o,
  output logic [AccAw-1:0]    w_addr_o,
  output logic [N*32-1:0]     w_data_o,
  output logic [N*32-1:0]     fwd_data_o  // the row written in the previous cycle
);
  if (AccLatency < 1 || AccLatency > 2 || (AccLatency == 2 && !AccSlice)) begin : g_bad_latency
    $error("tpu_dp_acc_rmw: AccLatency must be 1, or 2 with AccSlice");
  end
  if (Bf16 && AccSlice) begin : g_bad_bf16
    $error("tpu_dp_acc_rmw: Bf16 needs AccSlice = 0");
  end

  logic [AccAw-1:0] out_addr;
  logic             out_accum, out_last, out_fp;
  if (Bf16) begin : g_tag_fp
    assign {out_addr, out_accum, out_fp, out_last} = out_tag_i;
  end else begin : g_tag_int
    assign {out_addr, out_accum, out_last} = out_tag_i;
    assign out_fp = 1'b0;
  end
  // stage P: the row leaving the MXU last cycle, with the ACC read data
  logic                p_valid_q, p_accum_q, p_last_q, p_fp_q;
  logic [AccAw-1:0]    p_addr_q;
  logic [N*32-1:0]     p_row_q;
  logic                fwd_valid_q, fwd_hit_q;  // the row written in the previous cycle
  logic [AccAw-1:0]    fwd_addr_q;
  logic [N*32-1:0]     fwd_data_q;
  // the row leaving the MXU now (its tag; AccSlice: from the early delay line)
  logic                x_valid, x_accum, x_last;
  logic [AccAw-1:0]    x_addr;
  logic                w_valid;
  logic [AccAw-1:0]    w_addr;
  logic [N*32-1:0]     w_data;
  logic [N*32-1:0]     mm_sum;  // stage P's row: the new ACC value
  logic                mm_acc_re;
  logic [AccAw-1:0]    mm_acc_raddr;

  if (AccSlice) begin : g_acc_slice
    // Row X (leaving the MXU in cycle t) reads its ACC row in cycle t - 1 (its tag from a
    // delay line one stage shorter than the MXU's); in cycle t its old value is chosen into
    // o_q: the ACC read data, or a row written since the read (in cycle t - 1: fwd_data_q;
    // in t: stage S's s_data_q). In stage P (t + 1) s_data_q <= o_q + X's row, or, when the
    // previous row has the same ACC row, that row's sum (now in s_data_q) + X's row; stage S
    // (t + 2) writes it. So the add's operands come from registers through one 2:1 mux, and
    // the ACC is written from a register.
    // AccLatency 2: X reads its ACC row in cycle t - 2 (the delay line one stage shorter
    // still), and its tag passes one more stage (m_*_q in t - 1). Rows written in t - 2 (the
    // read is skipped then), t - 1 and t are X's three predecessors: the hits are compared in
    // t - 2 (mz: the row leaving the MXU, in stage S in t; mp: in stage P, written in t - 1;
    // mw: written in t - 2) and registered; in t - 1 the newer of the two older rows is loaded
    // into fm_q (mp: the row written now; mw: fwd_data_q), which stands in for fwd_data_q in
    // the select, so o_q's mux keeps three inputs.
    logic                pre_valid;
    logic                pre_re;  // pre_valid && pre_accum, as a flip-flop of its own: the
                                  // ACC read address mux's select (no LUT in front of it)
    logic [TagWidth-1:0] pre_tag;
    logic [AccAw-1:0]    pre_addr;
    logic                pre_accum, pre_last;
    logic                in_accum;
    assign in_accum = in_tag_i[1];  // {addr, accum, last} (Bf16 is not built with AccSlice)
    tpu_delay #(.Width(2), .Depth(MxuLatency - AccLatency), .ResetEn(1'b1)) u_pre_valid (
      .clk_i, .rst_i, .d_i({in_valid_i, in_valid_i && in_accum}), .q_o({pre_valid, pre_re})
    );
    tpu_delay #(.Width(TagWidth), .Depth(MxuLatency - AccLatency), .ResetEn(1'b0)) u_pre_tag (
      .clk_i, .rst_i, .d_i(in_tag_i), .q_o(pre_tag)
    );
    assign {pre_addr, pre_accum, pre_last} = pre_tag;
    assign mm_acc_re    = pre_re;
    assign mm_acc_raddr = pre_addr;

    logic             x_valid_q, x_accum_q, x_last_q;
    logic [AccAw-1:0] x_addr_q;
    logic             s_valid_q, s_last_q;
    logic [AccAw-1:0] s_addr_q;
    logic [N*32-1:0]  s_data_q, o_q;
    // one-hot (none for a row that does not accumulate, so o_q = 0): o_q from stage S, from
    // the row written last cycle (AccLatency 2: fm_q), or from the ACC read data; decided a
    // cycle ahead
    logic             sel_s_q, sel_f_q, sel_r_q;
    logic             sel_y_q;  // stage P's row adds to the previous row's sum
    // X's tag and selects in cycle t - 1, and the forwarded row o_q may take in t
    logic             y_valid, y_accum, y_last, y_s, y_f, y_r;
    logic [AccAw-1:0] y_addr;
    logic [N*32-1:0]  f_data;
    if (AccLatency == 2) begin : g_pre2
      logic             m_valid_q, m_accum_q, m_last_q, mz_q, mp_q, mw_q;
      logic [AccAw-1:0] m_addr_q;
      logic [N*32-1:0]  fm_q;
      always_ff @(posedge clk_i) begin
        if (rst_i) begin
          m_valid_q <= 1'b0;
        end else begin
          m_valid_q <= pre_valid;
        end
        {m_addr_q, m_accum_q, m_last_q} <= {pre_addr, pre_accum, pre_last};
        mz_q <= x_valid_q && x_addr_q == pre_addr;
        mp_q <= p_valid_q && p_addr_q == pre_addr;
        mw_q <= s_valid_q && s_addr_q == pre_addr;
        fm_q <= mp_q ? s_data_q : fwd_data_q;
      end
      assign {y_valid, y_addr, y_accum, y_last} = {m_valid_q, m_addr_q, m_accum_q, m_last_q};
      assign y_s    = m_accum_q && mz_q;
      assign y_f    = m_accum_q && !mz_q && (mp_q || mw_q);
      assign y_r    = m_accum_q && !mz_q && !mp_q && !mw_q;
      assign f_data = fm_q;
    end else begin : g_pre1
      logic hit_z, hit_v;
      assign hit_z = p_valid_q && p_addr_q == pre_addr;  // in stage S when X leaves the MXU
      assign hit_v = w_valid && w_addr == pre_addr;      // written now: fwd_data_q then
      assign {y_valid, y_addr, y_accum, y_last} = {pre_valid, pre_addr, pre_accum, pre_last};
      assign y_s    = pre_accum && hit_z;
      assign y_f    = pre_accum && !hit_z && hit_v;
      assign y_r    = pre_accum && !hit_z && !hit_v;
      assign f_data = fwd_data_q;
    end
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        x_valid_q <= 1'b0;
        s_valid_q <= 1'b0;
      end else begin
        x_valid_q <= y_valid;
        s_valid_q <= p_valid_q;
      end
      {x_addr_q, x_accum_q, x_last_q} <= {y_addr, y_accum, y_last};
      sel_s_q  <= y_s;
      sel_f_q  <= y_f;
      sel_r_q  <= y_r;
      o_q      <= ({N*32{sel_s_q}} & s_data_q) | ({N*32{sel_f_q}} & f_data) |
                  ({N*32{sel_r_q}} & acc_rdata_i);
      sel_y_q  <= x_accum_q && p_valid_q && p_addr_q == x_addr_q;
      s_last_q <= p_last_q;
      s_addr_q <= p_addr_q;
      s_data_q <= mm_sum;
    end
    for (genvar j = 0; j < N; j++) begin : g_add
      if (NoBackToBackHit) begin : g_o
        assign mm_sum[j*32 +: 32] = o_q[j*32 +: 32] + p_row_q[j*32 +: 32];
      end else begin : g_y
        assign mm_sum[j*32 +: 32] = (sel_y_q ? s_data_q[j*32 +: 32] : o_q[j*32 +: 32]) +
                                    p_row_q[j*32 +: 32];
      end
    end
    assign x_valid = x_valid_q;
    assign x_accum = x_accum_q;
    assign x_last  = x_last_q;
    assign x_addr  = x_addr_q;
    assign w_valid = s_valid_q;
    assign w_last_o = s_last_q;
    assign w_addr  = s_addr_q;
    assign w_data  = s_data_q;
`ifndef SYNTHESIS
    // the row written two cycles ago (AccLatency 2's read of X is that early)
    logic             chk_f2_valid_q, f1_hit, f2_hit;
    logic [AccAw-1:0] chk_f2_addr_q;
    logic [N*32-1:0]  chk_f2_data_q;
    always_ff @(posedge clk_i) begin
      chk_f2_valid_q <= fwd_valid_q && !rst_i;
      chk_f2_addr_q  <= fwd_addr_q;
      chk_f2_data_q  <= fwd_data_q;
    end
    assign f1_hit = fwd_valid_q && fwd_addr_q == x_addr_q;
    assign f2_hit = AccLatency == 2 && chk_f2_valid_q && chk_f2_addr_q == x_addr_q;
    always_ff @(posedge clk_i) begin
      if (!rst_i) begin
        // the early tag is the MXU's, one cycle ahead
        assert (x_valid_q == out_valid_i && (!x_valid_q || x_addr_q == out_addr &&
                x_accum_q == out_accum && x_last_q == out_last))
          else $error("tpu_dp_acc_rmw: early ACC read tag");
        // the registered selects are the forward decisions they stand for (AccLatency 2: also
        // the row written in t - 2, chk_f2_*; f_data the newest of the two older rows)
        if (x_valid_q) begin
          assert ({sel_s_q, sel_f_q, sel_r_q} ==
                  {x_accum_q && s_valid_q && s_addr_q == x_addr_q,
                   x_accum_q && !(s_valid_q && s_addr_q == x_addr_q) && (f1_hit || f2_hit),
                   x_accum_q && !(s_valid_q && s_addr_q == x_addr_q) && !f1_hit && !f2_hit})
            else $error("tpu_dp_acc_rmw: registered ACC forward selects");
          assert (!sel_f_q || f_data == (f1_hit ? fwd_data_q : chk_f2_data_q))
            else $error("tpu_dp_acc_rmw: forwarded ACC row");
        end
        if (p_valid_q) begin
          assert (sel_y_q == (p_accum_q && s_valid_q && s_addr_q == p_addr_q))
            else $error("tpu_dp_acc_rmw: registered previous-row hit");
        end
        assert (!NoBackToBackHit || !sel_y_q)
          else $error("tpu_dp_acc_rmw: back-to-back rows on one ACC row");
      end
    end
`endif
  end else begin : g_acc_rmw
    logic [N*32-1:0] mm_old;
    assign mm_old = fwd_hit_q ? fwd_data_q : acc_rdata_i;
    for (genvar j = 0; j < N; j++) begin : g_rmw
      if (Bf16) begin : g_fp
        always_comb begin
          if (!p_accum_q) begin
            mm_sum[j*32 +: 32] = p_row_q[j*32 +: 32];
          end else if (p_fp_q) begin
            mm_sum[j*32 +: 32] = tpu_fp_pkg::f32_add(mm_old[j*32 +: 32], p_row_q[j*32 +: 32]);
          end else begin
            mm_sum[j*32 +: 32] = mm_old[j*32 +: 32] + p_row_q[j*32 +: 32];
          end
        end
      end else begin : g_int
        assign mm_sum[j*32 +: 32] = p_accum_q ? mm_old[j*32 +: 32] + p_row_q[j*32 +: 32]
                                              : p_row_q[j*32 +: 32];
      end
    end
    assign x_valid      = out_valid_i;
    assign x_accum      = out_accum;
    assign x_last       = out_last;
    assign x_addr       = out_addr;
    assign mm_acc_re    = out_valid_i && out_accum;
    assign mm_acc_raddr = out_addr;
    assign w_valid  = p_valid_q;
    assign w_last_o = p_last_q;
    assign w_addr   = p_addr_q;
    assign w_data   = mm_sum;
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      p_valid_q   <= 1'b0;
      fwd_valid_q <= 1'b0;
      fwd_hit_q   <= 1'b0;
    end else begin
      p_valid_q   <= x_valid;
      fwd_valid_q <= w_valid;
      // = fwd_valid_q && fwd_addr_q == p_addr_q next cycle, without the compare on the RMW path
      fwd_hit_q   <= w_valid && w_addr == x_addr;
    end
  end
  always_ff @(posedge clk_i) begin
    p_accum_q  <= x_accum;
    p_fp_q     <= out_fp;  // (Bf16, so AccSlice = 0: the row leaving the MXU now is X)
    p_last_q   <= x_last;
    p_addr_q   <= x_addr;
    p_row_q    <= out_row_i;
    fwd_addr_q <= w_addr;
    fwd_data_q <= w_data;
  end

  // tpu_ram forbids reading the row being written in the same cycle; that row is the one
  // forwarded next cycle anyway, so the read is skipped then. (A row that does not accumulate
  // reads nothing: an ACTIVATE beside its MATMUL has the port.)
  assign acc_claim_o = mm_acc_re;
  assign acc_re_o    = mm_acc_re && !(w_valid && w_addr == mm_acc_raddr);
  assign acc_raddr_o = mm_acc_raddr;
  assign w_valid_o   = w_valid;
  assign w_addr_o    = w_addr;
  assign w_data_o    = w_data;
  assign fwd_data_o  = fwd_data_q;

  logic unused;
  assign unused = ^{in_valid_i, in_tag_i, p_fp_q};  // (AccSlice only; p_fp_q: Bf16 only)

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      assert (fwd_hit_q == (fwd_valid_q && fwd_addr_q == p_addr_q))
        else $error("tpu_dp_acc_rmw: registered forward hit");
    end
  end
`endif
endmodule

`default_nettype wire
