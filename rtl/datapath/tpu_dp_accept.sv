// tpu_dp_accept: the datapath's command acceptance (tpu_datapath's command port and hazard
// rules). Decodes the command the engines see, decides per op whether the engines it shares a
// RAM port or a data dependence with can take it now, and tells each engine when its command
// is accepted (ac_*). Keeps the last accepted MATMUL (ranges, ACCUMULATE, rows) for the rules
// that let an ACTIVATE run beside it.
// Rules (tpu_datapath header): UB_WRITE / PARAM once the activation is idle (StreamMm: a BIAS
// PARAM also beside a running ACTIVATE); a MATMUL once the activation is idle (StreamMm: or
// beside an ACTIVATE near its end with the UB rows apart), beside a UB_READ on the UB copy, and
// in the cycle the previous MATMUL issues its last row (CmdSlice: the cycle after); an ACTIVATE
// once the MXU has drained, or beside the last MATMUL (its rows written, no ACCUMULATE, ranges
// apart), or chained on it (StreamMm); reads once the engines they share a port with are idle
// (StreamMm: a UB_READ of a running ACTIVATE's output rows chained on it). AccReadPort2 (ACC_READ
// on the ACC copy): an ACC_READ also beside the last MATMUL once every earlier MATMUL's rows
// are written and its ACC rows lie apart from the last MATMUL's, and a MATMUL beside a running
// ACC_READ whose rows lie apart from its ACC rows (so the read sees exactly the rows of the
// commands before it in order).
// CmdSlice (board option): a register stage on the command port. The command and its range
// ends are registered before the acceptance decision, cmd_ready_o is "the stage is free" (a
// flip-flop), and the decision is made a cycle ahead as flip-flops (g_acc_q): a command takes at
// least three cycles in the stage. An ACTIVATE beside a MATMUL waits two cycles more (its range
// decision is registered). Same results.
`default_nettype none

module tpu_dp_accept #(
  parameter int unsigned N           = 16,
  parameter int unsigned UbRows      = 8192,
  parameter int unsigned AccRows     = 2048,
  parameter bit          UbReadPort2 = 1'b1,
  parameter bit          AccReadPort2 = 1'b0,  // ACC_READ on the ACC copy (tpu_datapath)
  parameter bit          CmdSlice    = 1'b0,
  // the StreamMm overlaps (tpu_datapath): a BIAS PARAM beside an ACTIVATE (BiasOn), a chained
  // ACTIVATE (ChainOn), a chained UB_READ (RdChainOn)
  parameter bit          BiasOn      = 1'b0,
  parameter bit          ChainOn     = 1'b0,
  parameter bit          RdChainOn   = 1'b0,
  parameter int unsigned UbW         = N * 8,  // UB row bits (tpu_datapath Bf16: 16N)
  localparam int unsigned CmdWidth   = tpu_pkg::DpCmdDataLsb + UbW,
  localparam int unsigned UbAw       = $clog2(UbRows),
  localparam int unsigned AccAw      = $clog2(AccRows),
  localparam int unsigned CntW       = $clog2((UbRows > AccRows ? UbRows : AccRows) + 1),
  localparam int unsigned RngW       = CntW + 1,
  localparam int unsigned MmFlightW  = $clog2(2 * N + 8),
  localparam int unsigned SlW        = (CntW > MmFlightW ? CntW : MmFlightW) + 2
) (
  input  logic                clk_i,
  input  logic                rst_i,
  // the command port
  input  logic                cmd_valid_i,
  output logic                cmd_ready_o,
  input  logic [CmdWidth-1:0] cmd_i,
  // the command the engines see (the port, or the CmdSlice stage), and its range ends
  // (a + rows, b + rows)
  output logic [3:0]          cmd_flags_o,
  output logic [31:0]         cmd_a_o,
  output logic [31:0]         cmd_b_o,
  output logic [31:0]         cmd_rows_o,
  output logic [UbW-1:0]      cmd_data_o,
  output logic [RngW-1:0]     cmd_hi_a_o,
  output logic [RngW-1:0]     cmd_hi_b_o,
  output logic                cmd_held_o,  // CmdSlice: a command waits in the stage
  // accepted now, per op (wr: a UB_WRITE or a PARAM; par tells which)
  output logic                ac_wr_o,
  output logic                ac_par_o,
  output logic                ac_mm_o,
  output logic                ac_act_o,
  output logic                ac_ub_rd_o,
  output logic                ac_acc_rd_o,
  output logic                act_chain_ok_o,  // the ACTIVATE accepted now is chained
  output logic [CntW-1:0]     lm_rows_o,       // the last accepted MATMUL's rows
  // the engines' state
  input  logic                mm_active_i,     // a MATMUL has rows to issue
  input  logic                mm_last_fire_i,  // ... and issues its last one now
  input  logic                mxu_idle_i,      // no MATMUL row left to issue or in flight
  input  logic [SlW-1:0]      mm_slack_i,      // tpu_dp_matmul mm_slack_o
  input  logic                acc_w_valid_i,   // a MATMUL row is written to the ACC now
  input  logic                act_idle_i,
  input  logic                act_raw_i,       // the running ACTIVATE is RAW32
  input  logic                mm_beside_act_i, // a MATMUL may go beside the running ACTIVATE
  input  logic [RngW-1:0]     act_ub_lo_i,     // ... if its UB rows lie apart from [lo, hi)
  input  logic [RngW-1:0]     act_ub_hi_i,
  input  logic [UbAw-1:0]     act_ub0_i,       // the running ACTIVATE's first UB row, rows
  input  logic [CntW-1:0]     act_rows_i,
  input  logic                rd_idle_i,
  input  logic                rd_mm_ok_i,      // the read stream lets MATMULs run beside it
  input  logic                rd_acc_i,        // an ACC_READ runs, of the ACC rows [lo, hi)
  input  logic [RngW-1:0]     rd_acc_lo_i,
  input  logic [RngW-1:0]     rd_acc_hi_i,
  // status for the command processor (tpu_datapath ports of the same names)
  output logic                mm_ok_o,
  output logic                wr_ok_o,
  output logic                act_chain_o,
  output logic                rd_ok_o
);
  localparam int unsigned OpLsb    = tpu_pkg::DpCmdOpLsb;
  localparam int unsigned FlagsLsb = tpu_pkg::DpCmdFlagsLsb;
  localparam int unsigned ALsb     = tpu_pkg::DpCmdALsb;
  localparam int unsigned BLsb     = tpu_pkg::DpCmdBLsb;
  localparam int unsigned RowsLsb  = tpu_pkg::DpCmdRowsLsb;
  localparam int unsigned DataLsb  = tpu_pkg::DpCmdDataLsb;
  localparam logic [3:0] OpUbWrite  = tpu_pkg::DpOpUbWrite;
  localparam logic [3:0] OpParam    = tpu_pkg::DpOpParam;
  localparam logic [3:0] OpMatmul   = tpu_pkg::DpOpMatmul;
  localparam logic [3:0] OpActivate = tpu_pkg::DpOpActivate;
  localparam logic [3:0] OpUbRead   = tpu_pkg::DpOpUbRead;
  localparam logic [3:0] OpAccRead  = tpu_pkg::DpOpAccRead;
  localparam int unsigned AdW = UbAw > AccAw ? UbAw : AccAw;

  // The command the engines see: its range ends hi_a = a + rows and hi_b = b + rows in RngW
  // bits, a and b in AdW bits: addresses and rows are in range (checked by the device top,
  // asserted below; MATMUL: a UB, b ACC; ACTIVATE: a ACC, b UB), so a and b fit their RAM's
  // width, and the sums never reach 2^RngW. (No op decode: the ends are summed as the CmdSlice
  // stage loads.)
  logic                cmd_valid;
  logic [CmdWidth-1:0] cmd;
  logic [3:0]          cmd_op, cmd_flags;
  logic [31:0]         cmd_a, cmd_b, cmd_rows;
  logic [RngW-1:0]     cmd_hi_a, cmd_hi_b;
  assign cmd_op    = cmd[OpLsb +: 4];
  assign cmd_flags = cmd[FlagsLsb +: 4];
  assign cmd_a     = cmd[ALsb +: 32];
  assign cmd_b     = cmd[BLsb +: 32];
  assign cmd_rows  = cmd[RowsLsb +: 32];
  assign cmd_flags_o = cmd_flags;
  assign cmd_a_o     = cmd_a;
  assign cmd_b_o     = cmd_b;
  assign cmd_rows_o  = cmd_rows;
  assign cmd_data_o  = cmd[DataLsb +: UbW];
  assign cmd_hi_a_o  = cmd_hi_a;
  assign cmd_hi_b_o  = cmd_hi_b;
  assign cmd_held_o  = CmdSlice && cmd_valid;

  function automatic logic [2*RngW-1:0] range_ends(input logic [AdW-1:0] a,
                                                   input logic [AdW-1:0] b,
                                                   input logic [CntW-1:0] rows);
    range_ends = {RngW'(a) + RngW'(rows), RngW'(b) + RngW'(rows)};
  endfunction

  logic can_accept;
  // the command is valid and of this op (OpUbWrite or OpParam for wr): with CmdSlice one
  // flip-flop each, decoded as the stage loads, so the acceptance has no op compare
  logic cv_wr, cv_par, cv_mm, cv_act, cv_ub_rd, cv_acc_rd;
  if (CmdSlice) begin : g_cmd_slice
    logic                v_q;
    logic [CmdWidth-1:0] c_q;
    logic [RngW-1:0]     hi_a_q, hi_b_q;
    logic [5:0]          cv_q;
    logic [3:0]          op_i;
    assign op_i        = cmd_i[OpLsb +: 4];
    // (the stage is free: a flip-flop, so the acceptance decision drives no load enable of the
    // stage's registers; the next command is taken the cycle after one is accepted)
    assign cmd_ready_o = !v_q;
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        v_q  <= 1'b0;
        cv_q <= '0;
      end else if (!v_q) begin
        v_q  <= cmd_valid_i;
        cv_q <= {6{cmd_valid_i}} & {op_i == OpUbWrite || op_i == OpParam, op_i == OpParam,
                                    op_i == OpMatmul, op_i == OpActivate, op_i == OpUbRead,
                                    op_i == OpAccRead};
      end else if (can_accept) begin
        v_q  <= 1'b0;
        cv_q <= '0;
      end
    end
    assign {cv_wr, cv_par, cv_mm, cv_act, cv_ub_rd, cv_acc_rd} = cv_q;
    always_ff @(posedge clk_i) begin
      if (!v_q) begin
        c_q              <= cmd_i;
        {hi_a_q, hi_b_q} <= range_ends(cmd_i[ALsb +: AdW], cmd_i[BLsb +: AdW],
                                        cmd_i[RowsLsb +: CntW]);
      end
    end
    assign cmd_valid = v_q;
    assign cmd       = c_q;
    assign cmd_hi_a  = hi_a_q;
    assign cmd_hi_b  = hi_b_q;
  end else begin : g_cmd_port
    assign cmd_ready_o = can_accept;
    assign cmd_valid   = cmd_valid_i;
    assign cmd         = cmd_i;
    assign cv_wr     = cmd_valid && (cmd_op == OpUbWrite || cmd_op == OpParam);
    assign cv_par    = cmd_valid && cmd_op == OpParam;
    assign cv_mm     = cmd_valid && cmd_op == OpMatmul;
    assign cv_act    = cmd_valid && cmd_op == OpActivate;
    assign cv_ub_rd  = cmd_valid && cmd_op == OpUbRead;
    assign cv_acc_rd = cmd_valid && cmd_op == OpAccRead;
    assign {cmd_hi_a, cmd_hi_b} = range_ends(cmd_i[ALsb +: AdW], cmd_i[BLsb +: AdW],
                                             cmd_i[RowsLsb +: CntW]);
  end

  // ---------------------------------------------------------------- the last MATMUL
  logic [UbAw-1:0]  lm_ub_q;
  logic [AccAw-1:0] lm_acc_q;
  logic [CntW-1:0]  lm_rows_q;
  logic             lm_accum_q;
  logic [RngW-1:0]  lm_acc_hi_q, lm_ub_hi_q;  // ends of its ranges, summed when accepted
  always_ff @(posedge clk_i) begin
    if (ac_mm_o) begin
      lm_ub_q     <= UbAw'(cmd_a);
      lm_acc_q    <= AccAw'(cmd_b);
      lm_ub_hi_q  <= cmd_hi_a;
      lm_acc_hi_q <= cmd_hi_b;
      lm_rows_q   <= CntW'(cmd_rows);
      lm_accum_q  <= cmd_flags[0];
    end
  end
  assign lm_rows_o = lm_rows_q;

  // ---------------------------------------------------------------- the rules
  logic ok_wr, ok_par, ok_mm, ok_act, ok_ub_rd, ok_acc_rd;  // per op: its engines can take it
  // the command's ACC rows [a, a + rows) and UB rows [b, b + rows) (an ACTIVATE's) lie apart
  // from the last MATMUL's
  logic act_apart;
  logic act_mm_ok, chain_win, act_lm_ub_apart, rd_chain_ok, mm_act_apart;
  logic mm_rd_apart, acc_rd_beside;
  always_comb begin
    // (mm_slack_i + acc_w_valid_i <= 0 with rows in flight: none of the last MATMUL's rows is
    // written by the end of this cycle; its rows are the ones after -(that sum) more writes)
    chain_win = !mxu_idle_i && (mm_slack_i[SlW-1] || (mm_slack_i == '0 && !acc_w_valid_i));
    act_lm_ub_apart = cmd_hi_b <= RngW'(lm_ub_q) || lm_ub_hi_q <= RngW'(cmd_b[UbAw-1:0]);
    act_chain_ok_o = ChainOn && !cmd_flags[1] && AccAw'(cmd_a) == lm_acc_q &&
                     CntW'(cmd_rows) <= lm_rows_q && chain_win && act_lm_ub_apart;
    // ACTIVATE beside the last MATMUL: only its rows are in the MXU, it leaves the ACC read
    // port free, and the ranges are apart (CmdSlice: the flag terms are in the registered
    // act_apart)
    act_mm_ok = (CmdSlice || (!cmd_flags[1] && !lm_accum_q)) && !mm_slack_i[SlW-1] && act_apart;
    // a MATMUL beside the running ACTIVATE: its UB rows apart from the ACTIVATE's
    mm_act_apart = cmd_hi_a <= act_ub_lo_i || act_ub_hi_i <= RngW'(cmd_a[UbAw-1:0]);
    ok_wr     = act_idle_i;
    // (a BIAS PARAM beside a running ACTIVATE; for a UB_WRITE ok_par = ok_wr)
    ok_par    = ok_wr || (BiasOn && cv_par && cmd_flags[2:0] == 3'(tpu_pkg::ParamBias));
    // AccReadPort2: a MATMUL beside the running ACC_READ: its ACC rows apart from the read's
    mm_rd_apart = AccReadPort2 && rd_acc_i &&
                  (cmd_hi_b <= rd_acc_lo_i || rd_acc_hi_i <= RngW'(cmd_b[AccAw-1:0]));
    // ... and an ACC_READ beside the last MATMUL: only its rows are in the MXU (as for an
    // ACTIVATE beside it), and the read's ACC rows lie apart from them
    acc_rd_beside = AccReadPort2 && !mm_slack_i[SlW-1] &&
                    (cmd_hi_a <= RngW'(lm_acc_q) || lm_acc_hi_q <= RngW'(cmd_a[AccAw-1:0]));
    // (with CmdSlice not in the cycle the previous MATMUL issues its last row: that needs
    // the weight FIFO's next state, a long path on an FPGA; one cycle between MATMULs)
    ok_mm     = (act_idle_i || (mm_beside_act_i && mm_act_apart)) &&
                (rd_mm_ok_i || mm_rd_apart) &&
                (!mm_active_i || (!CmdSlice && mm_last_fire_i));
    ok_act    = (mxu_idle_i || act_mm_ok || act_chain_ok_o) && act_idle_i && rd_idle_i;
    rd_chain_ok = RdChainOn && !act_idle_i && !act_raw_i && UbAw'(cmd_a) == act_ub0_i &&
                  CntW'(cmd_rows) <= act_rows_i;
    ok_ub_rd  = (act_idle_i || rd_chain_ok) && rd_idle_i && (UbReadPort2 || !mm_active_i);
    ok_acc_rd = (mxu_idle_i || acc_rd_beside) && act_idle_i && rd_idle_i;
    if (CmdSlice) begin
      can_accept = ac_wr_o || ac_mm_o || ac_act_o || ac_ub_rd_o || ac_acc_rd_o;
    end else begin
      unique case (cmd_op)
        OpUbWrite:  can_accept = ok_wr;
        OpParam:    can_accept = ok_par;
        OpMatmul:   can_accept = ok_mm;
        OpActivate: can_accept = ok_act;
        OpUbRead:   can_accept = ok_ub_rd;
        OpAccRead:  can_accept = ok_acc_rd;
        default:    can_accept = 1'b0;
      endcase
    end
  end
  assign ac_par_o = cv_par;

  // Each op accepted from its own condition, not through can_accept (fewer logic levels to the
  // engines' registers). CmdSlice: decided a cycle ahead, as flip-flops (ac_q), so the engines'
  // load enables start at flip-flops: the stage's command is accepted in the cycle after the
  // one in which it could have been (one more cycle per command, board only). Exact: while a
  // command waits in the stage no other is accepted, and then every ok_* that holds keeps
  // holding (engines only drain, the MATMUL slack only grows, lm_* stay; asserted below).
  logic [4:0] ac_now;
  assign ac_now = {cv_wr && ok_par, cv_mm && ok_mm, cv_act && ok_act, cv_ub_rd && ok_ub_rd,
                   cv_acc_rd && ok_acc_rd};
  if (CmdSlice) begin : g_acc_q
    logic [4:0] ac_q;
    always_ff @(posedge clk_i) begin
      if (rst_i || can_accept) begin
        ac_q <= '0;
      end else begin
        ac_q <= ac_now;
      end
    end
    assign {ac_wr_o, ac_mm_o, ac_act_o, ac_ub_rd_o, ac_acc_rd_o} = ac_q;
`ifndef SYNTHESIS
    always_ff @(posedge clk_i) begin
      if (!rst_i) begin
        assert (ac_q == 5'd0 || ac_q == ac_now)
          else $error("tpu_dp_accept: registered acceptance no longer holds");
      end
    end
`endif
  end else begin : g_acc_comb
    assign {ac_wr_o, ac_mm_o, ac_act_o, ac_ub_rd_o, ac_acc_rd_o} = ac_now;
  end

  // The ranges in RngW bits (see cmd_hi_a): narrow compares keep the acceptance term short.
  function automatic logic apart(input logic [RngW-1:0] acc_lo, input logic [RngW-1:0] acc_hi,
                                 input logic [RngW-1:0] ub_lo, input logic [RngW-1:0] ub_hi,
                                 input logic [AccAw-1:0] m_acc, input logic [RngW-1:0] m_acc_hi,
                                 input logic [UbAw-1:0] m_ub, input logic [RngW-1:0] m_ub_hi);
    apart = (acc_hi <= RngW'(m_acc) || m_acc_hi <= acc_lo) &&
            (ub_hi <= RngW'(m_ub) || m_ub_hi <= ub_lo);
  endfunction
  if (CmdSlice) begin : g_apart_q
    // Decided from registers only, in two steps: the four compares of the stage's command
    // with the last MATMUL registered (cmp_q), then combined (apart_q), used from the
    // command's third cycle in the stage (settled2_q). In the two cycles before, the command
    // was already there and, as it was not accepted, no MATMUL was either, so lm_* are the
    // same. An ACTIVATE beside a MATMUL waits two cycles more for it. apart_q also holds
    // act_mm_ok's other flip-flop terms (not RAW32, the last MATMUL does not accumulate), which
    // stay the same for the same reason.
    logic [3:0] cmp_q;
    logic       apart_q, settled_q, settled2_q;
    always_ff @(posedge clk_i) begin
      cmp_q   <= {cmd_hi_a <= RngW'(lm_acc_q), lm_acc_hi_q <= RngW'(cmd_a[AccAw-1:0]),
                  cmd_hi_b <= RngW'(lm_ub_q), lm_ub_hi_q <= RngW'(cmd_b[UbAw-1:0])};
      apart_q <= (cmp_q[3] || cmp_q[2]) && (cmp_q[1] || cmp_q[0]) && !cmd_flags[1] &&
                 !lm_accum_q;
      if (rst_i) begin
        settled_q  <= 1'b0;
        settled2_q <= 1'b0;
      end else begin
        settled_q  <= cmd_valid && !can_accept;
        settled2_q <= settled_q && cmd_valid && !can_accept;
      end
    end
    assign act_apart = apart_q && settled2_q;
`ifndef SYNTHESIS
    always_ff @(posedge clk_i) begin
      if (!rst_i && cmd_valid && cmd_op == OpActivate && settled2_q) begin
        assert (apart_q == (apart(RngW'(cmd_a[AccAw-1:0]), cmd_hi_a, RngW'(cmd_b[UbAw-1:0]),
                                  cmd_hi_b, lm_acc_q, lm_acc_hi_q, lm_ub_q, lm_ub_hi_q) &&
                            !cmd_flags[1] && !lm_accum_q))
          else $error("tpu_dp_accept: registered range decision");
      end
    end
`endif
  end else begin : g_apart
    assign act_apart = apart(RngW'(cmd_a[AccAw-1:0]), cmd_hi_a, RngW'(cmd_b[UbAw-1:0]), cmd_hi_b,
                             lm_acc_q, lm_acc_hi_q, lm_ub_q, lm_ub_hi_q);
  end

  // ---------------------------------------------------------------- status
  // (as ok_mm / ok_wr, from their terms without the command's: beside an ACTIVATE without its
  // range check, which needs cmd_i: then no UB_WRITE is taken either)
  assign mm_ok_o = (act_idle_i || mm_beside_act_i) && rd_mm_ok_i &&
                   (!mm_active_i || (!CmdSlice && mm_last_fire_i));
  assign wr_ok_o = act_idle_i;
  // (= ok_ub_rd without the command's terms)
  assign rd_ok_o = (act_idle_i || (RdChainOn && !act_raw_i)) && rd_idle_i &&
                   (UbReadPort2 || !mm_active_i);
  // a chained ACTIVATE offered next cycle is taken: (mm_slack_i + acc_w_valid_i <= -1:
  // chain_win holds next cycle, when act_idle, rd_idle and the last MATMUL stay: no command
  // taken now)
  assign act_chain_o = ChainOn && act_idle_i && rd_idle_i && mm_slack_i[SlW-1] &&
                       !(&mm_slack_i && acc_w_valid_i);

`ifndef SYNTHESIS
  // ---------------------------------------------------------------- assertions
  logic                cmd_stall_q;
  logic [CmdWidth-1:0] cmd_prev_q;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      cmd_stall_q <= 1'b0;
    end else begin
      // handshake: a stalled command stays offered and unchanged
      if (cmd_stall_q) begin
        assert (cmd_valid_i && cmd_i == cmd_prev_q)
          else $error("tpu_dp_accept: cmd changed while stalled");
      end
      cmd_stall_q <= cmd_valid_i && !cmd_ready_o;
      assert (!(ac_act_o && act_chain_ok_o && act_mm_ok))
        else $error("tpu_dp_accept: ACTIVATE both chained and beside its MATMUL");
      // the per-op valid flags (CmdSlice: registered) are the op decode of the command
      assert ({cv_wr, cv_par, cv_mm, cv_act, cv_ub_rd, cv_acc_rd} ==
              ({6{cmd_valid}} & {cmd_op == OpUbWrite || cmd_op == OpParam, cmd_op == OpParam,
                                 cmd_op == OpMatmul, cmd_op == OpActivate, cmd_op == OpUbRead,
                                 cmd_op == OpAccRead}))
        else $error("tpu_dp_accept: per-op valid flags differ from the command");
      // commands (as the engines see them: the port, or the CmdSlice stage): legal op,
      // rows >= 1, addresses in range
      if (cmd_valid) begin
        assert (cmd_op <= OpAccRead) else $error("tpu_dp_accept: illegal op %0d", cmd_op);
        if (cmd_op == OpUbWrite) begin
          assert ({32'd0, cmd_a} < 64'(UbRows)) else $error("tpu_dp_accept: UB address out of range");
        end
        if (cmd_op == OpParam) begin
          // (a bf16 datapath, UbW = 16N, also has SCALE and FCLAMP)
          assert (cmd_flags[2:0] <= (UbW == 16 * N ? 3'(tpu_pkg::ParamFclamp)
                                                    : 3'(tpu_pkg::ParamOutput)))
            else $error("tpu_dp_accept: bad param kind");
        end
        if (cmd_op >= OpMatmul && cmd_op <= OpAccRead) begin
          assert (cmd_rows != 0) else $error("tpu_dp_accept: rows = 0");
        end
        if (cmd_op == OpMatmul) begin
          assert ({32'd0, cmd_a} + {32'd0, cmd_rows} <= 64'(UbRows))
            else $error("tpu_dp_accept: MATMUL UB range");
          assert ({32'd0, cmd_b} + {32'd0, cmd_rows} <= 64'(AccRows))
            else $error("tpu_dp_accept: MATMUL ACC address out of range");
        end
        if (cmd_op == OpActivate) begin
          assert ({32'd0, cmd_a} + {32'd0, cmd_rows} <= 64'(AccRows))
            else $error("tpu_dp_accept: ACTIVATE ACC address out of range");
          assert ({32'd0, cmd_b} + {32'd0, cmd_rows} <= (cmd_flags[1] ? 64'(AccRows) : 64'(UbRows)))
            else $error("tpu_dp_accept: ACTIVATE destination out of range");
        end
        if (cmd_op == OpUbRead) begin
          assert ({32'd0, cmd_a} + {32'd0, cmd_rows} <= 64'(UbRows))
            else $error("tpu_dp_accept: UB_READ range");
        end
        if (cmd_op == OpAccRead) begin
          assert ({32'd0, cmd_a} + {32'd0, cmd_rows} <= 64'(AccRows))
            else $error("tpu_dp_accept: ACC_READ range");
        end
      end
    end
    cmd_prev_q <= cmd_i;
  end
`endif
endmodule

`default_nettype wire
