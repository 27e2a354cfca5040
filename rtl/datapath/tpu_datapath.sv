// tpu_datapath: everything of the device but the host interface (docs/datapath.md): unified
// buffer (UB), accumulators (ACC), weight FIFO + MXU, activation pipeline and its parameters,
// driven by a command stream. The device top turns SQEs into these commands after its checks.
//
// Command stream cmd_valid_i/cmd_ready_o/cmd_i (flat bus, CmdWidth = 104 + 8*N bits):
//   [3:0] op   [7:4] flags   [39:8] a   [71:40] b   [103:72] rows   [104 +: 8N] data
//   op 0 UB_WRITE  UB[a] = data (one row; the DMA engine sends one command per row)
//   op 1 PARAM     parameter write: flags[2:0] = kind (tpu_pkg::param_kind_e), a[7:0] = index,
//                  data[31:0] = value (encoding of tpu_act_params' write port)
//   op 2 MATMUL    ACC[b+r] (+)= UB[a+r] x tile, r < rows; flags[0] ACCUMULATE, flags[1] POP,
//                  flags[2] CHAIN (MmChain devices: row r issues once UB row a+r is written,
//                  see the parameter)
//   op 3 ACTIVATE  ACC[a+r] -> activation -> UB[b+r] (int8), r < rows; flags[0] LUT,
//                  flags[1] RAW32 (ACC[b+r] = ACC[a+r] + bias instead)
//   op 4 UB_READ   UB[a+r] -> rd_* stream (int8 row in rd_data_o[8N-1:0], upper bits 0)
//   op 5 ACC_READ  ACC[a+r] -> rd_* stream (int32 row)
//   Other ops are illegal (assertion). Addresses and rows must be in range (the device top
//   checks them; assertions here). rows >= 1.
// Weight rows have their own stream (wpush_*, N rows per tile, see tpu_weight_fifo) so the
// FIFO fills while the MXU computes.
// Ordering: commands take effect in order. A command is accepted when the engines it shares
// a RAM port or a data dependence with are idle; MATMULs follow each other without a gap (the
// next one is accepted in the cycle the previous one issues its last row; CmdSlice: the cycle
// after). With UbReadPort2
// the UB has a second copy (written together with the first) whose read port serves UB_READ
// only, so a UB_READ and MATMULs run at the same time (neither writes the UB).
// An int8 ACTIVATE is accepted beside the last accepted MATMUL (instead of after the MXU has
// drained) when every earlier MATMUL's rows are written, that MATMUL does not accumulate (so it
// does not use the ACC read port), its ACC rows are not the ACTIVATE's source and its UB rows
// not the ACTIVATE's destination: the ACTIVATE then reads exactly what it would in order.
// STREAM_MATMUL devices (parameters MmBesideAct, ActChain, BiasBeside, RdChain below): a
// MATMUL beside a running ACTIVATE, an int8 ACTIVATE chained on the last MATMUL's ACC writes,
// a BIAS PARAM beside a running ACTIVATE (held in a shadow bank), a UB_READ chained on a
// running ACTIVATE's output rows.
// Completions: mm_done_o pulses in the cycle the last ACC row of a MATMUL is written (visible
// from the next cycle); act_done_o/act_result_o (saturation count, 0 for RAW32) in the cycle
// the last row of an ACTIVATE is written; a read ends with rd_last_o; UB_WRITE and PARAM are
// done when accepted (visible from the next cycle).
// Latencies (accept in cycle a; first MATMUL row issued at a+1):
//   MATMUL of R rows: UB read (1) + array (2N) + ACC read-modify-write (1): the last row is
//   written in cycle a + R + 2N + 1, so MatmulLatency = 2N + 2 cycles beyond the R issue
//   cycles. T back-to-back MATMULs with POP of M >= N rows each take T*M + 2N + 2 cycles from
//   the first accept to the last write, when the FIFO keeps up (docs/datapath.md). AccSlice,
//   ProdReg and UbOutReg (boards): one cycle more each; AccOutReg: none (the ACC row is read
//   earlier); Ub2OutReg and UbWrReg: none (they touch UB_READ and the UB write only).
// ACTIVATE with ActLanes < N: rows go through the activation one at a time (the next ACC row
//   is read when the previous result is written), about 40..100 cycles per ActLanes channels.
// Reset (rst_i, synchronous): control state only; RAMs, parameters and data registers keep
// their contents.
`default_nettype none

module tpu_datapath #(
  parameter int unsigned N       = 16,
  parameter int unsigned UbRows  = 8192,
  parameter int unsigned AccRows = 2048,
  parameter int unsigned Tiles   = 4,
  // activation channels computed at once: N = the pipelined tpu_activation (one row per
  // cycle); fewer = the small multi-cycle tpu_act_serial (one row at a time, for FPGAs)
  parameter int unsigned ActLanes = N,
  parameter bit          UbReadPort2 = 1'b1, // UB_READ on its own UB copy (overlaps MATMUL)
  // board option (FPGAs): a register stage on the command port. The command and its range
  // ends (address + rows) are registered before the acceptance decision, so no path runs from
  // the command bus through the range checks into cmd_ready_o and the engines; same results.
  // cmd_ready_o = the stage is free (a flip-flop), and the acceptance is decided a cycle ahead
  // as flip-flops (g_acc_q): a command takes at least three cycles in the stage. Also: an
  // ACTIVATE beside a MATMUL waits more (its range decision is registered), a MATMUL is
  // accepted once the previous one has issued its last row, not in that cycle, and a POP
  // MATMUL's switch row issues once its tile is complete (swap_ready, not a cycle before).
  parameter bit          CmdSlice = 1'b0,
  // board option (FPGAs): the ACC read-modify-write in two stages (see g_acc_slice). The ACC
  // row is read a cycle early and its old value (the read data, or a row written since the
  // read) registered; the 32-bit add runs from registers into a register, and the ACC row is
  // written from that register one cycle later. Forwarding covers every row still in flight,
  // so accumulating rows that hit the same ACC row back to back stay exact. Every MATMUL row
  // is written one cycle later (MatmulLatency 2N + 3); same results.
  parameter bit          AccSlice = 1'b0,
  // board option (FPGAs): every PE registers its product before the partial-sum add (tpu_pe
  // ProdReg), so a DSP's output gets a cycle to reach the fabric; the array's results, and so
  // every MATMUL row, one cycle later (MatmulLatency + 1); same results.
  parameter bit          ProdReg = 1'b0,
  // board option (FPGAs): the perf counters as tpu_seg_counter (16-bit carry chains instead of
  // 64-bit ones), perf_busy_o chosen between two of them (the count and the count + 1) by the
  // registered busy bit instead of added to it, perf_macs_o = perf_mxu_busy_o * N * N as a
  // shift (N a power of two). The same counts in every cycle.
  parameter bit          PerfSplit = 1'b0,
  // board option (FPGAs): the LUT activation's block RAM read data is registered before the
  // output mux and the UB write (tpu_act_unit LutReg): the pipelined activation's latency is
  // one cycle more (7), the serial one spends one more cycle per LUT row; same results (all
  // activation bookkeeping counts rows leaving the activation, not cycles).
  parameter bit          LutReg = 1'b0,
  // board option (FPGAs): the read stream (rd_*) leaves through a register: the UB/ACC read
  // data and its source mux are registered before rd_data_o, so no path runs from a block
  // RAM's read port into the consumer. A pipeline register (taken when empty or being
  // emptied: rd_ready_i still reaches the read issue combinationally, as without it); one
  // beat per cycle as before, every beat one cycle later; idle_o waits for it; same results.
  parameter bit          RdReg = 1'b0,
  // board option (FPGAs): the MATMUL's UB port reads through the block RAM's output register
  // (tpu_ram OutReg, u_ub only): a UB row reaches the MXU two cycles after its issue, so the
  // row, its valid, switch bit and tag pass a second stage (s2) beside the RAM's register, and
  // a POP's switch row looks two cycles ahead at the shadow tile (tpu_mxu IssueAhead = 2;
  // with CmdSlice swap_ready still suffices: no other row is in flight before the MXU then).
  // MatmulLatency one more; tiles of M >= N rows still back to back; same results. Needs
  // UbReadPort2 (without it u_ub also serves UB_READ, whose stream takes the RAM's read data
  // as its register: rejected at elaboration). The sim-only options below keep working (their
  // rules count rows in flight, which include the stage, or only get more margin).
  parameter bit          UbOutReg = 1'b0,
  // board option (FPGAs; needs AccSlice): the ACC's read data passes a second register (tpu_ram
  // OutReg: the ECP5 DP16KD output register), so no path runs from a block RAM's read port
  // into logic; read latency 2, and every user takes the data a cycle later. The MATMUL's
  // accumulating row reads its ACC row a cycle earlier still (g_acc_slice: three rows written
  // between the read and the use are forwarded), so MATMUL timing stays as with AccSlice; an
  // ACTIVATE row enters the activation a cycle later (stage a2); an ACC_READ issues at most
  // every other cycle (a read waits until the previous row has reached the stream's register:
  // the RAM's output register only holds while no read follows). UB_READ is unchanged. Not
  // with MmBesideAct, ActChain or BiasBeside (they count ACC read cycles; $error), nor without
  // AccSlice ($error); RdChain and MmChain do not touch the ACC read. Same results.
  parameter bit          AccOutReg = 1'b0,
  // board option (FPGAs; needs UbReadPort2): UB_READ's UB copy (u_ub2) reads through the block
  // RAM's output register (tpu_ram OutReg), as AccOutReg does for the ACC: a UB_READ row
  // reaches the stream's register two cycles after its read (rd_p1_q in between), so a
  // UB_READ issues at most every other cycle. Nothing else reads u_ub2. Same results.
  parameter bit          Ub2OutReg = 1'b0,
  // board option (FPGAs; needs CmdSlice): the UB write (enable, address, data: a UB_WRITE's or
  // an ACTIVATE's row) is registered before both UB copies, so the write port's mux and its
  // fan-out to every block RAM tile of the two copies get a cycle of their own. A row is
  // written a cycle later than without it; no UB read can reach it earlier: with CmdSlice a
  // command is accepted three cycles after the previous one at the soonest, and a MATMUL or
  // UB_READ after an ACTIVATE waits for act_idle (its last row's write) and then for its
  // registered acceptance, so a row is read three cycles after the cycle it is written in
  // without the option at the soonest (docs/datapath.md: one cycle to spare); a write still
  // in the register counts as busy (idle_o). Not with
  // the sim-only options that read rows written in the same command window (MmChain, RdChain,
  // MmBesideAct need CmdSlice = 0). A write still in the register is dropped by a reset, like
  // every RAM access during reset. Same results.
  parameter bit          UbWrReg = 1'b0,
  // board option (FPGAs; the serial activation, ActLanes < N): the activation's parameter
  // memory (LUT replicas, per-channel bias / multiplier / shift RAMs) reads through the block
  // RAMs' output registers (tpu_act_unit ParOutReg): a channel's parameters one cycle later
  // (one more cycle per channel and row), a LUT row's data in phase O as with LutReg (which
  // then needs no register of its own). Same results.
  parameter bit          ParOutReg = 1'b0,
  // STREAM_MATMUL devices (tpu_device StreamMm; off on the boards): a MATMUL is also accepted
  // while an int8 ACTIVATE runs, once that one has at most 2N + 1 rows left to read from ACC
  // (AccSlice: 2N),
  // when the MATMUL's UB rows lie apart from the ACTIVATE's. Its first ACC access (the read of
  // an accumulating row) comes 2N + 1 cycles after its acceptance (AccSlice: 2N), after the
  // ACTIVATE's last read; it writes no UB row, and the ACC rows it writes were read by then.
  // (Without CmdSlice and with ActLanes = N only.)
  parameter bit          MmBesideAct = 1'b0,
  // STREAM_MATMUL devices (with MmBesideAct; off on the boards): a chained ACTIVATE. An int8
  // ACTIVATE whose ACC rows start at the last accepted MATMUL's and are no more than its rows
  // is accepted while that MATMUL runs, as long as none of its rows is written yet (and its
  // UB rows lie apart from the MATMUL's): it takes each row from the MATMUL's ACC write (the
  // row written in cycle t enters the activation in t + 1, from fwd_data_q) instead of
  // reading the ACC, so it needs no ACC read port, and a next MATMUL may be accepted beside
  // it at once (UB rows apart). Its rows are what an ACC read after the MATMUL would give:
  // rows leave the MXU in order, the ACTIVATE skips the earlier MATMULs' rows still in flight
  // and takes the next ones (asserted below). act_chain_o: such an ACTIVATE would be taken in
  // the next cycle (when no other command is taken in this one).
  parameter bit          ActChain = 1'b0,
  // STREAM_MATMUL devices (off on the boards; with ActLanes = N, without CmdSlice): a PARAM of
  // kind BIAS is also accepted while an ACTIVATE runs. Its value waits in tpu_act_params'
  // shadow bank (BiasShadow) until the running ACTIVATE's last row has read the bias, and is
  // in place before any later ACTIVATE's first row (that one is accepted with the activation
  // idle), so every ACTIVATE sees exactly the BIAS writes before it.
  parameter bit          BiasBeside = 1'b0,
  // STREAM_MATMUL devices (with UbReadPort2 and ActLanes = N, without CmdSlice; off on the
  // boards): a UB_READ of a running int8 ACTIVATE's output rows, from its first row and no
  // more rows than it writes, is accepted beside it (rd_ok_o also says so) and reads each row
  // once the ACTIVATE has written it (a row written in cycle t is read from t + 1 on, from the
  // UB copy): the write-back streams out with the ACTIVATE instead of after it.
  parameter bit          RdChain = 1'b0,
  // STREAM_MATMUL devices (without CmdSlice; off on the boards): a chained MATMUL (flags[2]
  // CHAIN). Its UB rows are written after its acceptance, in order (a, a + 1, ..), by
  // UB_WRITEs on this port; it issues row r only once the UB_WRITE of row a + r has been
  // accepted in an earlier cycle (ch_n_q: the next row to be written), so the MXU follows A's
  // rows as they come in instead of waiting for all of them. A row not yet written leaves a
  // bubble in the MXU (s1_valid_q low), as a POP waiting for its tile does. Without the
  // parameter CHAIN is ignored (a chained MATMUL must then not be sent before its rows).
  parameter bit          MmChain = 1'b0
) (
  input  logic                clk_i,
  input  logic                rst_i,
  // commands
  input  logic                cmd_valid_i,
  output logic                cmd_ready_o,
  input  logic [CmdWidth-1:0] cmd_i,
  // weight rows
  input  logic                wpush_valid_i,
  output logic                wpush_ready_o,
  input  logic [N*8-1:0]      wpush_row_i,
  input  logic                wpush_transpose_i,
  // rows read out (UB_READ / ACC_READ)
  output logic                rd_valid_o,
  input  logic                rd_ready_i,
  output logic [N*32-1:0]     rd_data_o,
  output logic                rd_last_o,
  // completions and status
  output logic                mm_done_o,
  output logic                act_done_o,
  output logic [31:0]         act_result_o,
  output logic                idle_o,
  output logic                mm_ok_o,   // a MATMUL / a UB_WRITE on cmd_i would be taken now
  output logic                wr_ok_o,   // (whatever cmd_i holds; with CmdSlice = 0)
  output logic                act_chain_o, // a chained ACTIVATE offered next cycle is taken
  output logic                rd_ok_o,     // a UB_READ on cmd_i would be taken now (RdChain:
                                           // or one of the running ACTIVATE's rows)
  output logic [TileBits-1:0] tiles_o,         // weight tiles pushed, not yet popped
  output logic [4:0]          params_loaded_o, // per tpu_pkg::param_kind_e
  // performance counters (since reset)
  output logic [63:0]         perf_busy_o,     // cycles with any command in progress
  output logic [63:0]         perf_mxu_busy_o, // cycles a row entered the MXU
  output logic [63:0]         perf_macs_o      // N*N per row through the MXU
);
  // ---------------------------------------------------------------- command format
  // (shared with the command processor through the generated tpu_pkg, spec/tpu.toml [dp_cmd])
  localparam int unsigned OpLsb    = tpu_pkg::DpCmdOpLsb;
  localparam int unsigned FlagsLsb = tpu_pkg::DpCmdFlagsLsb;
  localparam int unsigned ALsb     = tpu_pkg::DpCmdALsb;
  localparam int unsigned BLsb     = tpu_pkg::DpCmdBLsb;
  localparam int unsigned RowsLsb  = tpu_pkg::DpCmdRowsLsb;
  localparam int unsigned DataLsb  = tpu_pkg::DpCmdDataLsb;
  localparam int unsigned CmdWidth = DataLsb + N * 8;

  localparam logic [3:0] OpUbWrite  = tpu_pkg::DpOpUbWrite;
  localparam logic [3:0] OpParam    = tpu_pkg::DpOpParam;
  localparam logic [3:0] OpMatmul   = tpu_pkg::DpOpMatmul;
  localparam logic [3:0] OpActivate = tpu_pkg::DpOpActivate;
  localparam logic [3:0] OpUbRead   = tpu_pkg::DpOpUbRead;
  localparam logic [3:0] OpAccRead  = tpu_pkg::DpOpAccRead;

  localparam int unsigned TileBits = $clog2(Tiles + 2);
  localparam int unsigned UbAw     = $clog2(UbRows);
  localparam int unsigned AccAw    = $clog2(AccRows);
  localparam int unsigned CntW     = $clog2((UbRows > AccRows ? UbRows : AccRows) + 1);
  // rows in flight between MATMUL issue and ACC write: 1 + 2N + 1 (+ AccSlice + ProdReg +
  // UbOutReg), plus margin
  localparam int unsigned MmFlightW  = $clog2(2 * N + 8);
  localparam int unsigned ActFlightW = CntW;  // generous: rows in flight < 16
  localparam int unsigned TagWidth   = AccAw + 2;  // {acc address, accumulate, last}
  // an in-range row address plus a row count (the range checks of ACTIVATE beside MATMUL);
  // rows issued + rows in flight of one MATMUL
  localparam int unsigned RngW = CntW + 1;
  localparam int unsigned FlW  = (CntW > MmFlightW ? CntW : MmFlightW) + 1;
  localparam int unsigned SlW  = FlW + 1;  // mm_slack_q: a row count difference, signed

  if (N < 4 || N > 256) begin : g_bad_n
    $error("tpu_datapath: N must be in 4..256");
  end
  if (PerfSplit && (N & (N - 1)) != 0) begin : g_bad_perf_split
    $error("tpu_datapath: PerfSplit needs N a power of two");
  end
  if (MmChain && CmdSlice) begin : g_bad_mm_chain
    $error("tpu_datapath: MmChain needs CmdSlice = 0");
  end
  if (UbOutReg && !UbReadPort2) begin : g_bad_ub_out_reg
    $error("tpu_datapath: UbOutReg needs UbReadPort2");
  end
  if (UbWrReg && !CmdSlice) begin : g_bad_ub_wr_reg
    $error("tpu_datapath: UbWrReg needs CmdSlice");
  end
  if (Ub2OutReg && !UbReadPort2) begin : g_bad_ub2_out_reg
    $error("tpu_datapath: Ub2OutReg needs UbReadPort2");
  end
  if (UbRows < 16 || AccRows < 16) begin : g_bad_rows
    $error("tpu_datapath: UbRows and AccRows must be >= 16");
  end
  if (AccOutReg && (!AccSlice || MmBesideAct || ActChain || BiasBeside)) begin : g_bad_acc_out
    $error("tpu_datapath: AccOutReg needs AccSlice, and not MmBesideAct, ActChain, BiasBeside");
  end

  // The command the engines see (cmd_*): the port itself, or the CmdSlice stage. Its range
  // ends: hi_a = a + rows and hi_b = b + rows in RngW bits, a and b in AdW bits: addresses and
  // rows are in range (checked by the device top, asserted below; MATMUL: a UB, b ACC;
  // ACTIVATE: a ACC, b UB), so a and b fit their RAM's width, and the sums never reach
  // 2^RngW. (No op decode: the ends are summed as the CmdSlice stage loads.)
  logic             cmd_valid;
  logic [CmdWidth-1:0] cmd;
  logic [3:0]       cmd_op;
  logic [3:0]       cmd_flags;
  logic [31:0]      cmd_a, cmd_b, cmd_rows;
  logic [N*8-1:0]   cmd_data;
  logic [RngW-1:0]  cmd_hi_a, cmd_hi_b;
  assign cmd_op    = cmd[OpLsb +: 4];
  assign cmd_flags = cmd[FlagsLsb +: 4];
  assign cmd_a     = cmd[ALsb +: 32];
  assign cmd_b     = cmd[BLsb +: 32];
  assign cmd_rows  = cmd[RowsLsb +: 32];
  assign cmd_data  = cmd[DataLsb +: N*8];

  localparam int unsigned AdW = UbAw > AccAw ? UbAw : AccAw;
  function automatic logic [2*RngW-1:0] range_ends(input logic [AdW-1:0] a,
                                                   input logic [AdW-1:0] b,
                                                   input logic [CntW-1:0] rows);
    range_ends = {RngW'(a) + RngW'(rows), RngW'(b) + RngW'(rows)};
  endfunction

  logic can_accept, cmd_fire;
  // the command is valid and of this op (OpUbWrite or OpParam for wr): with CmdSlice one
  // flip-flop each, decoded as the stage loads, so the acceptance has no op compare
  logic cv_wr, cv_par, cv_mm, cv_act, cv_ub_rd, cv_acc_rd;
  // the command is accepted now, per op (wr: UB_WRITE or PARAM; see g_acc_q)
  logic ac_wr, ac_mm, ac_act, ac_ub_rd, ac_acc_rd;
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
    assign cmd_ready_o          = can_accept;
    assign cmd_valid            = cmd_valid_i;
    assign cmd                  = cmd_i;
    assign cv_wr     = cmd_valid && (cmd_op == OpUbWrite || cmd_op == OpParam);
    assign cv_par    = cmd_valid && cmd_op == OpParam;
    assign cv_mm     = cmd_valid && cmd_op == OpMatmul;
    assign cv_act    = cmd_valid && cmd_op == OpActivate;
    assign cv_ub_rd  = cmd_valid && cmd_op == OpUbRead;
    assign cv_acc_rd = cmd_valid && cmd_op == OpAccRead;
    assign {cmd_hi_a, cmd_hi_b} = range_ends(cmd_i[ALsb +: AdW], cmd_i[BLsb +: AdW],
                                        cmd_i[RowsLsb +: CntW]);
  end

  // ---------------------------------------------------------------- RAM ports
  logic               ub_we, ub_re;
  logic [UbAw-1:0]    ub_waddr, ub_raddr;
  logic [N*8-1:0]     ub_wdata, ub_rdata;
  logic               ubw_we;                 // the UB write at the RAMs (UbWrReg: registered)
  logic [UbAw-1:0]    ubw_addr;
  logic [N*8-1:0]     ubw_data;
  logic               ub2_re;                 // UB_READ's port (the UB copy, or the UB)
  logic [N*8-1:0]     ub2_rdata;
  logic               acc_we, acc_re;
  logic [AccAw-1:0]   acc_waddr, acc_raddr;
  logic [N*32-1:0]    acc_wdata, acc_rdata;

  tpu_ram #(.Width(N * 8), .Depth(UbRows), .OutReg(UbOutReg)) u_ub (
    .clk_i, .we_i(ubw_we), .waddr_i(ubw_addr), .wdata_i(ubw_data),
    .re_i(ub_re), .raddr_i(ub_raddr), .rdata_o(ub_rdata)
  );
  if (UbReadPort2) begin : g_ub2
    tpu_ram #(.Width(N * 8), .Depth(UbRows), .OutReg(Ub2OutReg)) u_ub2 (
      .clk_i, .we_i(ubw_we), .waddr_i(ubw_addr), .wdata_i(ubw_data),
      .re_i(ub2_re), .raddr_i(rd_addr_ub_q), .rdata_o(ub2_rdata)
    );
  end else begin : g_ub1
    assign ub2_rdata = ub_rdata;
  end
  tpu_ram #(.Width(N * 32), .Depth(AccRows), .OutReg(AccOutReg)) u_acc (
    .clk_i, .we_i(acc_we), .waddr_i(acc_waddr), .wdata_i(acc_wdata),
    .re_i(acc_re), .raddr_i(acc_raddr), .rdata_o(acc_rdata)
  );

  // ---------------------------------------------------------------- engine state
  // MATMUL issue
  logic [UbAw-1:0]  mm_ub_q;
  logic [AccAw-1:0] mm_acc_q;
  logic [CntW-1:0]  mm_left_q;
  logic             mm_accum_q, mm_pop_q;
  logic             mm_active, mm_fire, mm_last_fire, mm_swap_ok;
  logic             mm_row_in;  // the row at mm_ub_q may issue (MmChain: it is written)
  // MXU input stage (UB read data arrives; UbOutReg: the stage after the RAM's read, and mi_*
  // the row entering the MXU, from stage s1 or from s2)
  logic                s1_valid_q, s1_sw_q;
  logic [TagWidth-1:0] s1_tag_q;
  logic                mi_valid, mi_sw;
  logic [TagWidth-1:0] mi_tag;
  // ACC read-modify-write stage
  logic                p_valid_q, p_accum_q, p_last_q;
  logic [AccAw-1:0]    p_addr_q;
  logic [N*32-1:0]     p_row_q;
  logic                fwd_valid_q, fwd_hit_q;  // the row written in the previous cycle
  logic                w_valid, w_last;         // the MATMUL row written to ACC now
  logic [AccAw-1:0]    w_addr;
  logic [N*32-1:0]     w_data;
  logic [AccAw-1:0]    fwd_addr_q;
  logic [N*32-1:0]     fwd_data_q;
  // rows issued and not yet written: counted from stage s1 on (mm_fl1_q, so the issue decision
  // mm_fire does not feed a carry chain) plus the row in s1 (UbOutReg: mm_fl1_q includes s2)
  logic [MmFlightW-1:0] mm_flight, mm_fl1_q;
  logic                 mxu_idle;
  // ACTIVATE
  logic [AccAw-1:0]  act_src_q;
  logic [CntW-1:0]   act_left_q;
  logic              act_lut_q, act_raw_q;
  logic [UbAw-1:0]   act_dst_ub_q;
  logic [AccAw-1:0]  act_dst_acc_q;
  logic              a1_valid_q, a1_last_q;
  // saturated values of one ACTIVATE: at most AccRows x N
  localparam int unsigned SatW = $clog2(AccRows * N + 1);
  logic [SatW-1:0]   act_sat_q, act_sat_d;
  logic [ActFlightW-1:0] act_flight_q, act_flight_d;
  logic              act_active, act_fire, act_idle;
  // UB_READ / ACC_READ
  logic              rd_acc_q;
  logic [AccAw-1:0]  rd_addr_acc_q;
  logic [UbAw-1:0]   rd_addr_ub_q;
  logic [CntW-1:0]   rd_left_q;
  logic              rd_valid_q, rd_last_q, rd_src_acc_q;
  logic              rd_active, rd_fire, rd_idle;
  logic              rd_p1_q;  // Acc/Ub2OutReg: a row read last cycle, not yet out

  // ---------------------------------------------------------------- command acceptance
  logic rd_mm_ok, act_mm_ok, ok_par;
  // a UB_READ chained on the running ACTIVATE (RdChain): its first output row, the ACTIVATE's
  // first UB row (act_ub0_q), rows written so far (act_wr_q), its rows (act_rows_q)
  localparam bit RdChainOn = RdChain && UbReadPort2 && ActLanes >= N && !CmdSlice;
  logic rd_chain_ok, rd_chain_q;
  logic [UbAw-1:0] act_ub0_q;
  logic [CntW-1:0] act_rows_q, act_wr_q, rd_n_q;
  localparam bit BiasOn = BiasBeside && ActLanes >= N && !CmdSlice;
  logic ok_wr, ok_mm, ok_act, ok_ub_rd, ok_acc_rd;  // per op: its engines can take it
  // the last accepted MATMUL (ranges, ACCUMULATE, rows)
  logic [UbAw-1:0]   lm_ub_q;
  logic [AccAw-1:0]  lm_acc_q;
  logic [CntW-1:0]   lm_rows_q;
  logic              lm_accum_q;
  logic [RngW-1:0]   lm_acc_hi_q, lm_ub_hi_q;  // ends of its ranges, summed when accepted
  // the command's ACC rows [a, a + rows) and UB rows [b, b + rows) (an ACTIVATE's) lie apart
  // from the last MATMUL's
  logic              act_apart;
  // a MATMUL beside the running ACTIVATE (MmBesideAct), and its UB rows apart from its
  logic              mm_beside_act, mm_act_apart;
  // lm_rows_q - (mm_flight + mm_left_q), signed: >= 0 when every earlier MATMUL's rows are
  // written (rows leave in order). Kept as a register, so the acceptance does not add and
  // compare: a MATMUL is accepted only when the previous one issues its last row, so then it
  // becomes -(the rows in flight next cycle); otherwise each ACC write adds 1.
  logic [SlW-1:0]    mm_slack_q;
  // a chained ACTIVATE (ActChain, see the parameter): the command can be taken chained, the
  // last MATMUL's rows are all still to be written (also counting this cycle's ACC write),
  // the command's UB rows apart from the last MATMUL's
  localparam bit     ChainOn = ActChain && MmBesideAct && !CmdSlice && ActLanes >= N;
  logic              act_chain_ok, chain_win, act_lm_ub_apart;
  always_comb begin
    // (mm_slack_q + w_valid <= 0 with rows in flight: none of the last MATMUL's rows is
    // written by the end of this cycle; its rows are the ones after -(that sum) more writes)
    chain_win = !mxu_idle && (mm_slack_q[SlW-1] || (mm_slack_q == '0 && !w_valid));
    act_lm_ub_apart = cmd_hi_b <= RngW'(lm_ub_q) || lm_ub_hi_q <= RngW'(cmd_b[UbAw-1:0]);
    act_chain_ok = ChainOn && !cmd_flags[1] && AccAw'(cmd_a) == lm_acc_q &&
                   CntW'(cmd_rows) <= lm_rows_q && chain_win && act_lm_ub_apart;
    // ACTIVATE beside the last MATMUL: only its rows are in the MXU (mm_flight counts rows
    // issued and not yet written), it leaves the ACC read port free, and the ranges are apart
    // (CmdSlice: the flag terms are in the registered act_apart)
    act_mm_ok = (CmdSlice || (!cmd_flags[1] && !lm_accum_q)) &&
                !mm_slack_q[SlW-1] && act_apart;
    // a read stream that MATMULs may run beside: a UB_READ on the UB copy (an ACC_READ or its
    // held last row would share the ACC port with the MATMUL's read-modify-write)
    rd_mm_ok = rd_idle || (UbReadPort2 && !(rd_active && rd_acc_q) && !(rd_valid_q && rd_src_acc_q) &&
                           !rd_p1_q);
    ok_wr     = act_idle;
    // (a BIAS PARAM beside a running ACTIVATE: BiasBeside; for a UB_WRITE ok_par = ok_wr)
    ok_par    = ok_wr || (BiasOn && cv_par && cmd_flags[2:0] == 3'(tpu_pkg::ParamBias));
    // (with CmdSlice not in the cycle the previous MATMUL issues its last row: that needs
    // the weight FIFO's next state, a long path on an FPGA; one cycle between MATMULs)
    ok_mm     = (act_idle || (mm_beside_act && mm_act_apart)) && rd_mm_ok &&
                (!mm_active || (!CmdSlice && mm_last_fire));
    ok_act    = (mxu_idle || act_mm_ok || act_chain_ok) && act_idle && rd_idle;
    rd_chain_ok = RdChainOn && !act_idle && !act_raw_q && UbAw'(cmd_a) == act_ub0_q &&
                  CntW'(cmd_rows) <= act_rows_q;
    ok_ub_rd  = (act_idle || rd_chain_ok) && rd_idle && (UbReadPort2 || !mm_active);
    ok_acc_rd = mxu_idle && act_idle && rd_idle;
    if (CmdSlice) begin
      can_accept = ac_wr || ac_mm || ac_act || ac_ub_rd || ac_acc_rd;
    end else begin
      unique case (cmd_op)
        OpUbWrite:          can_accept = ok_wr;
        OpParam:            can_accept = ok_par;
        OpMatmul:           can_accept = ok_mm;
        OpActivate:         can_accept = ok_act;
        OpUbRead:           can_accept = ok_ub_rd;
        OpAccRead:          can_accept = ok_acc_rd;
        default:            can_accept = 1'b0;
      endcase
    end
  end
  assign cmd_fire = cmd_valid && can_accept;

  // Each op accepted from its own condition, not through can_accept (fewer logic levels to the
  // engines' registers). CmdSlice: decided a cycle ahead, as flip-flops (ac_q), so the engines'
  // load enables start at flip-flops: the stage's command is accepted in the cycle after the
  // one in which it could have been (one more cycle per command, board only). Exact: while a
  // command waits in the stage no other is accepted, and then every ok_* that holds keeps
  // holding (engines only drain, the MATMUL slack only grows, lm_* stay; asserted below).
  if (CmdSlice) begin : g_acc_q
    logic [4:0] ac_q;
    always_ff @(posedge clk_i) begin
      if (rst_i || can_accept) begin
        ac_q <= '0;
      end else begin
        ac_q <= {cv_wr && ok_par, cv_mm && ok_mm, cv_act && ok_act, cv_ub_rd && ok_ub_rd,
                 cv_acc_rd && ok_acc_rd};
      end
    end
    assign {ac_wr, ac_mm, ac_act, ac_ub_rd, ac_acc_rd} = ac_q;
`ifndef SYNTHESIS
    always_ff @(posedge clk_i) begin
      if (!rst_i) begin
        assert (ac_q == 5'd0 || ac_q == {cv_wr && ok_par, cv_mm && ok_mm, cv_act && ok_act,
                                         cv_ub_rd && ok_ub_rd, cv_acc_rd && ok_acc_rd})
          else $error("tpu_datapath: registered acceptance no longer holds");
      end
    end
`endif
  end else begin : g_acc_comb
    assign {ac_wr, ac_mm, ac_act, ac_ub_rd, ac_acc_rd} =
      {cv_wr && ok_par, cv_mm && ok_mm, cv_act && ok_act, cv_ub_rd && ok_ub_rd,
       cv_acc_rd && ok_acc_rd};
  end
  logic acc_cmd_mm, acc_cmd_act, acc_cmd_rd;
  assign acc_cmd_mm  = ac_mm;
  assign acc_cmd_act = ac_act;
  assign acc_cmd_rd  = ac_ub_rd || ac_acc_rd;

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
          else $error("tpu_datapath: registered range decision");
      end
    end
`endif
  end else begin : g_apart
    assign act_apart = apart(RngW'(cmd_a[AccAw-1:0]), cmd_hi_a, RngW'(cmd_b[UbAw-1:0]), cmd_hi_b,
                             lm_acc_q, lm_acc_hi_q, lm_ub_q, lm_ub_hi_q);
  end

  // The engines' row counters (mm_left_q, act_left_q, rd_left_q) are loaded with a command's
  // rows and count down as rows issue; their "!= 0" and "== 1" decodes are kept as registers
  // (exact: asserted below), so the acceptance and the issue decisions start at flip-flops.
  function automatic logic [1:0] left_flags(input logic load, input logic [CntW-1:0] rows,
                                            input logic dec, input logic [CntW-1:0] left,
                                            input logic [1:0] cur);  // {!= 0, == 1}
    if (load) begin
      left_flags = {rows != '0, rows == CntW'(1)};
    end else if (dec) begin
      left_flags = {!cur[0], left == CntW'(2)};
    end else begin
      left_flags = cur;
    end
  endfunction
  logic mm_nz_q, mm_one_q, act_nz_q, act_one_q, rd_nz_q, rd_one_q;
  // mm_flight_q == 0, act_flight_q == 0, likewise registered
  logic mm_fl0_q, act_fl0_q;

  // ---------------------------------------------------------------- MXU
  logic                mxu_in_ready, mxu_out_valid, mxu_swap_ready, mxu_swap_ready_next;
  logic [N*32-1:0]     mxu_out_row;
  logic [TagWidth-1:0] mxu_out_tag;

  tpu_mxu #(.N(N), .Tiles(Tiles), .TagWidth(TagWidth), .ProdReg(ProdReg),
            .IssueAhead(UbOutReg ? 2 : 1)) u_mxu (
    .clk_i,
    .rst_i,
    .wpush_valid_i,
    .wpush_ready_o,
    .wpush_row_i,
    .wpush_transpose_i,
    .in_valid_i   (mi_valid),
    .in_ready_o   (mxu_in_ready),
    .in_row_i     (ub_rdata),
    .in_sw_i      (mi_sw),
    .in_tag_i     (mi_tag),
    .in_sw_next_i (s1_valid_q && s1_sw_q),  // (IssueAhead = 2 only: a switch row in s1)
    .out_valid_o  (mxu_out_valid),
    .out_row_o    (mxu_out_row),
    .out_tag_o    (mxu_out_tag),
    .swap_ready_o (mxu_swap_ready),
    .swap_ready_next_o (mxu_swap_ready_next),
    .tiles_o      (tiles_o)
  );

  // A switch row is read from the UB one cycle before it reaches the MXU, so it may issue when
  // the next tile will be complete in the shadow registers in the next cycle (this already
  // accounts for a switch row entering the MXU now, which uses the current one up). UbOutReg:
  // two cycles before, so two cycles ahead (also accounting for a switch row in stage s1).
  // CmdSlice: when the tile is complete now (swap_ready, a decode of flip-flops; a POP MATMUL
  // waits one cycle more when its tile completes in that cycle): a MATMUL is accepted only
  // while none is active, so while mm_pop_q is set no row is in stage s1 and the tile stays.
  assign mm_active    = mm_nz_q;
  assign mm_swap_ok   = !mm_pop_q || (CmdSlice ? mxu_swap_ready : mxu_swap_ready_next);
  assign mm_fire      = mm_active && mm_swap_ok && mm_row_in;
  assign mm_last_fire = mm_fire && mm_one_q;

  // A chained MATMUL (MmChain): the row at mm_ub_q issues once a UB_WRITE accepted since the
  // MATMUL's acceptance has written it (ch_n_q: the next of its rows to be written, counted
  // as the UB_WRITEs of its rows come in order). A row written in this cycle is read from the
  // next one on (tpu_ram: no read of the row being written).
  localparam bit MmChainOn = MmChain && !CmdSlice;
  if (MmChainOn) begin : g_mm_chain
    logic            ch_q;
    logic [RngW-1:0] ch_n_q;
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        ch_q <= 1'b0;
      end else if (acc_cmd_mm) begin
        ch_q <= cmd_flags[2];
      end
      if (acc_cmd_mm) begin
        ch_n_q <= RngW'(cmd_a[UbAw-1:0]);
      end else if (ac_wr && !cv_par && RngW'(cmd_a[UbAw-1:0]) == ch_n_q) begin
        ch_n_q <= ch_n_q + 1'b1;
      end
    end
    assign mm_row_in = !ch_q || RngW'(mm_ub_q) < ch_n_q;
`ifndef SYNTHESIS
    // The rule, checked apart from the counter: every row a chained MATMUL issues was written
    // by a UB_WRITE accepted after the MATMUL, in an earlier cycle (wr_q: per UB row, cleared
    // when a chained MATMUL is accepted).
    logic [UbRows-1:0] chk_wr_q;
    always_ff @(posedge clk_i) begin
      if (acc_cmd_mm && cmd_flags[2]) begin
        chk_wr_q <= '0;
      end else if (ac_wr && !cv_par) begin
        chk_wr_q[UbAw'(cmd_a)] <= 1'b1;
      end
      if (!rst_i && mm_fire && ch_q) begin
        assert (chk_wr_q[mm_ub_q])
          else $error("tpu_datapath: chained MATMUL reads UB row %0d before it is written",
                      mm_ub_q);
      end
    end
`endif
  end else begin : g_no_mm_chain
    assign mm_row_in = 1'b1;
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      mm_left_q  <= '0;
      s1_valid_q <= 1'b0;
    end else begin
      if (acc_cmd_mm) begin
        mm_left_q <= CntW'(cmd_rows);
      end else if (mm_fire) begin
        mm_left_q <= mm_left_q - 1'b1;
      end
      s1_valid_q <= mm_fire;
    end
  end

  always_ff @(posedge clk_i) begin
    if (acc_cmd_mm) begin
      lm_ub_q    <= UbAw'(cmd_a);
      lm_acc_q   <= AccAw'(cmd_b);
      lm_ub_hi_q  <= cmd_hi_a;
      lm_acc_hi_q <= cmd_hi_b;
      lm_rows_q  <= CntW'(cmd_rows);
      lm_accum_q <= cmd_flags[0];
      mm_ub_q    <= UbAw'(cmd_a);
      mm_acc_q   <= AccAw'(cmd_b);
      mm_accum_q <= cmd_flags[0];
      mm_pop_q   <= cmd_flags[1];
    end else if (mm_fire) begin
      mm_ub_q  <= mm_ub_q + 1'b1;
      mm_acc_q <= mm_acc_q + 1'b1;
      mm_pop_q <= 1'b0;
    end
    s1_sw_q  <= mm_fire && mm_pop_q;
    s1_tag_q <= {mm_acc_q, mm_accum_q, mm_one_q};
  end

  // UbOutReg: the row's valid, switch bit and tag wait a cycle (stage s2) beside the UB's
  // output register, so they meet the row at the MXU; no stall (the MXU takes every row).
  if (UbOutReg) begin : g_ub_out_reg
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

  // ACC read-modify-write: the ACC row is read when the MXU result appears (stage P holds
  // the row the cycle after, with the read data) and written in stage P. The read misses the
  // row written in its own cycle (that read is not even issued, see the port mux): it is
  // forwarded from fwd_data_q. AccSlice: see g_acc_slice.
  logic [AccAw-1:0] mxu_out_addr;
  logic             mxu_out_accum, mxu_out_last;
  assign {mxu_out_addr, mxu_out_accum, mxu_out_last} = mxu_out_tag;
  // the row leaving the MXU now (its tag), and the MATMUL's ACC read in this cycle
  logic             x_valid, x_accum, x_last;
  logic [AccAw-1:0] x_addr;
  logic             mm_acc_re;
  logic [AccAw-1:0] mm_acc_raddr;

  logic [N*32-1:0] mm_sum;  // stage P's row: the new ACC value
  if (AccSlice) begin : g_acc_slice
    // Row X (leaving the MXU in cycle t) reads its ACC row in cycle t - 1 (its tag from a
    // delay line one stage shorter than the MXU's); in cycle t its old value is chosen into
    // o_q: the ACC read data, or a row written since the read (in cycle t - 1: fwd_data_q;
    // in t: stage S's s_data_q). In stage P (t + 1) s_data_q <= o_q + X's row, or, when the
    // previous row has the same ACC row, that row's sum (now in s_data_q) + X's row; stage S
    // (t + 2) writes it. So the add's operands come from registers through one 2:1 mux, and
    // the ACC is written from a register.
    // AccOutReg (read latency 2): X reads its ACC row in cycle t - 2 (the delay line one stage
    // shorter still), and its tag passes one more stage (m_*_q in t - 1). Rows written in
    // t - 2 (the read is skipped then), t - 1 and t are X's three predecessors: the hits are
    // compared in t - 2 (mz: the row leaving the MXU, in stage S in t; mp: in stage P, written
    // in t - 1; mw: written in t - 2) and registered; in t - 1 the newer of the two older rows
    // is loaded into fm_q (mp: the row written now; mw: fwd_data_q), which stands in for
    // fwd_data_q in the select, so o_q's mux keeps three inputs.
    logic                pre_valid;
    logic                pre_re;  // pre_valid && pre_accum, as a flip-flop of its own: the
                                  // ACC read address mux's select (no LUT in front of it)
    logic [TagWidth-1:0] pre_tag;
    logic [AccAw-1:0]    pre_addr;
    logic                pre_accum, pre_last;
    logic                mi_accum;
    assign mi_accum = mi_tag[1];  // {addr, accum, last}
    tpu_delay #(.Width(2), .Depth(2 * N - 1 + 32'(ProdReg) - 32'(AccOutReg)),
                .ResetEn(1'b1)) u_pre_valid (
      .clk_i, .rst_i, .d_i({mi_valid, mi_valid && mi_accum}), .q_o({pre_valid, pre_re})
    );
    tpu_delay #(.Width(TagWidth), .Depth(2 * N - 1 + 32'(ProdReg) - 32'(AccOutReg)),
                .ResetEn(1'b0)) u_pre_tag (
      .clk_i, .rst_i, .d_i(mi_tag), .q_o(pre_tag)
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
    // the row written last cycle (AccOutReg: fm_q), or from the ACC read data; decided a
    // cycle ahead
    logic             sel_s_q, sel_f_q, sel_r_q;
    logic             sel_y_q;  // stage P's row adds to the previous row's sum
    // X's tag and selects in cycle t - 1, and the forwarded row o_q may take in t
    logic             y_valid, y_accum, y_last, y_s, y_f, y_r;
    logic [AccAw-1:0] y_addr;
    logic [N*32-1:0]  f_data;
    if (AccOutReg) begin : g_pre2
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
                  ({N*32{sel_r_q}} & acc_rdata);
      sel_y_q  <= x_accum_q && p_valid_q && p_addr_q == x_addr_q;
      s_last_q <= p_last_q;
      s_addr_q <= p_addr_q;
      s_data_q <= mm_sum;
    end
    // With CmdSlice a MATMUL is accepted only once the previous one has issued its last row
    // (mm_active low), so its first row enters the MXU two cycles after that one at the
    // earliest, and within a MATMUL consecutive rows have consecutive ACC rows: two rows back
    // to back never hit the same ACC row (sel_y_q is never set, asserted below), and the add
    // takes o_q straight from its register (no mux in front of the carry chain).
    for (genvar j = 0; j < N; j++) begin : g_add
      if (CmdSlice) begin : g_o
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
    assign w_last  = s_last_q;
    assign w_addr  = s_addr_q;
    assign w_data  = s_data_q;
`ifndef SYNTHESIS
    // the row written two cycles ago (AccOutReg's read of X is that early)
    logic             chk_f2_valid_q, f1_hit, f2_hit;
    logic [AccAw-1:0] chk_f2_addr_q;
    logic [N*32-1:0]  chk_f2_data_q;
    always_ff @(posedge clk_i) begin
      chk_f2_valid_q <= fwd_valid_q && !rst_i;
      chk_f2_addr_q  <= fwd_addr_q;
      chk_f2_data_q  <= fwd_data_q;
    end
    assign f1_hit = fwd_valid_q && fwd_addr_q == x_addr_q;
    assign f2_hit = AccOutReg && chk_f2_valid_q && chk_f2_addr_q == x_addr_q;
    always_ff @(posedge clk_i) begin
      if (!rst_i) begin
        // the early tag is the MXU's, one cycle ahead
        assert (x_valid_q == mxu_out_valid && (!x_valid_q || x_addr_q == mxu_out_addr &&
                x_accum_q == mxu_out_accum && x_last_q == mxu_out_last))
          else $error("tpu_datapath: early ACC read tag");
        // the registered selects are the forward decisions they stand for (AccOutReg: also
        // the row written in t - 2, chk_f2_*; f_data the newest of the two older rows)
        if (x_valid_q) begin
          assert ({sel_s_q, sel_f_q, sel_r_q} ==
                  {x_accum_q && s_valid_q && s_addr_q == x_addr_q,
                   x_accum_q && !(s_valid_q && s_addr_q == x_addr_q) && (f1_hit || f2_hit),
                   x_accum_q && !(s_valid_q && s_addr_q == x_addr_q) && !f1_hit && !f2_hit})
            else $error("tpu_datapath: registered ACC forward selects");
          assert (!sel_f_q || f_data == (f1_hit ? fwd_data_q : chk_f2_data_q))
            else $error("tpu_datapath: forwarded ACC row");
        end
        if (p_valid_q) begin
          assert (sel_y_q == (p_accum_q && s_valid_q && s_addr_q == p_addr_q))
            else $error("tpu_datapath: registered previous-row hit");
        end
        assert (!CmdSlice || !sel_y_q)
          else $error("tpu_datapath: back-to-back rows on one ACC row with CmdSlice");
      end
    end
`endif
  end else begin : g_acc_rmw
    logic [N*32-1:0] mm_old;
    assign mm_old = fwd_hit_q ? fwd_data_q : acc_rdata;
    for (genvar j = 0; j < N; j++) begin : g_rmw
      assign mm_sum[j*32 +: 32] = p_accum_q ? mm_old[j*32 +: 32] + p_row_q[j*32 +: 32]
                                            : p_row_q[j*32 +: 32];
    end
    assign x_valid      = mxu_out_valid;
    assign x_accum      = mxu_out_accum;
    assign x_last       = mxu_out_last;
    assign x_addr       = mxu_out_addr;
    assign mm_acc_re    = mxu_out_valid && mxu_out_accum;
    assign mm_acc_raddr = mxu_out_addr;
    assign w_valid = p_valid_q;
    assign w_last  = p_last_q;
    assign w_addr  = p_addr_q;
    assign w_data  = mm_sum;
  end

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
      p_valid_q   <= 1'b0;
      fwd_valid_q <= 1'b0;
      fwd_hit_q   <= 1'b0;
      mm_fl1_q    <= '0;
      mm_fl0_q    <= 1'b1;
      mm_slack_q  <= '0;
    end else begin
      p_valid_q   <= x_valid;
      fwd_valid_q <= w_valid;
      // = fwd_valid_q && fwd_addr_q == p_addr_q next cycle, without the compare on the RMW path
      fwd_hit_q   <= w_valid && w_addr == x_addr;
      mm_fl1_q    <= mm_fl1_q + MmFlightW'(s1_valid_q) - MmFlightW'(w_valid);
      // (a row written was in flight, so after an issue the count is >= 1)
      mm_fl0_q    <= !mm_fire && mm_flight == MmFlightW'(w_valid);
      // (a MATMUL accepted while one is active is accepted as that one fires its last row)
      // (p - f - a = ~f + (p + !a) = ~fl1 + (p + !a - s1), one carry chain)
      mm_slack_q  <= acc_cmd_mm ? (~(SlW'(mm_fl1_q))) + SlW'(sl_inc)
                                : mm_slack_q + SlW'(w_valid);
    end
  end
  always_ff @(posedge clk_i) begin
    p_accum_q  <= x_accum;
    p_last_q   <= x_last;
    p_addr_q   <= x_addr;
    p_row_q    <= mxu_out_row;
    fwd_addr_q <= w_addr;
    fwd_data_q <= w_data;
  end

  assign mxu_idle  = !mm_active && mm_fl0_q;
  assign mm_done_o = w_valid && w_last;

  // ---------------------------------------------------------------- activation
  logic            ap_in_ready, ap_out_valid, ap_out_last;
  logic [N*8-1:0]  ap_out_int8;
  logic [N*32-1:0] ap_out_raw;
  logic [$clog2(N+1)-1:0] ap_out_sat;

  // A PARAM reaches the parameter memory one cycle after its acceptance, from registers, so
  // the acceptance decision does not drive the write enables of the N LUT block RAMs (spread
  // over the die on big boards). Exact: a PARAM is accepted only while the activation is idle,
  // an ACTIVATE can be accepted one cycle later at the earliest and reads its first ACC row a
  // cycle after that, so every row still sees every earlier value (asserted below); the loaded
  // flags include the pending write, so they change in the same cycle as before. BiasBeside:
  // a BIAS PARAM also while an ACTIVATE runs; bias_hold_i (a row of it not yet at the
  // activation's input, or there now: a row uses the bias in its input cycle) is high from the
  // cycle after that ACTIVATE's acceptance on, so a BIAS accepted after it is held in the
  // shadow bank until its last row is in, one accepted before it is already in place.
  logic        pw_valid_q;
  logic [2:0]  pw_kind_q;
  logic [7:0]  pw_index_q;
  logic [31:0] pw_data_q;
  logic [4:0]  act_loaded;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      pw_valid_q <= 1'b0;
    end else begin
      pw_valid_q <= cv_par && ac_wr;
    end
    pw_kind_q  <= cmd_flags[2:0];
    pw_index_q <= cmd_a[7:0];
    pw_data_q  <= cmd_data[31:0];
  end
  assign params_loaded_o = act_loaded | (pw_valid_q ? 5'(1) << pw_kind_q : 5'd0);

  // The row at the activation's input: read from ACC in the cycle act_fire, there a cycle later
  // (a1), with AccOutReg two cycles later (a2: the ACC's read data comes a cycle later).
  logic ai_valid, ai_last;
  if (AccOutReg) begin : g_act_a2
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

  // parameters + the activation (pipelined, or tpu_act_serial when ActLanes < N)
  tpu_act_unit #(.N(N), .ActLanes(ActLanes), .BiasShadow(BiasOn), .LutReg(LutReg),
                 .ParOutReg(ParOutReg)) u_act_unit (
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
    .in_valid_i  (ai_valid),
    .in_ready_o  (ap_in_ready),
    .in_acc_i    (a1_chain_q ? fwd_data_q : acc_rdata),
    .in_raw_i    (act_raw_q),
    .in_lut_i    (act_lut_q),
    .in_last_i   (ai_last),
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
  assign act_active = act_nz_q;
  // (a chained ACTIVATE: in the cycle the MATMUL writes its next row, after ch_skip_q
  // earlier rows)
  logic act_chain_q, a1_chain_q;
  logic [MmFlightW-1:0] ch_skip_q;
  assign act_fire   = act_active && (ActLanes >= N || act_fl0_q) &&
                      (!act_chain_q || (w_valid && ch_skip_q == '0));
  assign act_idle   = !act_active && act_fl0_q;
  assign act_flight_d = act_flight_q + ActFlightW'(act_fire) - ActFlightW'(ap_out_valid);
  if (MmBesideAct && !CmdSlice && ActLanes >= N) begin : g_mm_beside_act
    logic [RngW-1:0] act_ub_lo_q, act_ub_hi_q;  // the ACTIVATE's UB rows [lo, hi)
    always_ff @(posedge clk_i) begin
      if (acc_cmd_act) begin
        act_ub_lo_q <= RngW'(cmd_b[UbAw-1:0]);
        act_ub_hi_q <= cmd_hi_b;
      end
    end
    // (the ACTIVATE's last of its act_left rows is read act_left - 1 cycles after the MATMUL's
    // acceptance, the MATMUL's first ACC read 2N + 1 cycles after it (AccSlice: 2N): so at
    // most 2N + 1 rows left (2N); the assertion below checks it. Was 2N - 2: measured 3 cycles
    // per STREAM_MATMUL block at 64x256x256)
    // (a chained ACTIVATE reads no ACC row: a MATMUL may go beside it at once; its ACC rows are
    // written after every row of the MATMUL the ACTIVATE takes its rows from)
    assign mm_beside_act = act_chain_q ||
                           (!act_raw_q && act_left_q <= CntW'(AccSlice ? 2 * N : 2 * N + 1));
    assign mm_act_apart  = cmd_hi_a <= act_ub_lo_q || act_ub_hi_q <= RngW'(cmd_a[UbAw-1:0]);
`ifndef SYNTHESIS
    // the ACC read port: an accumulating MATMUL row never meets an ACTIVATE's read
    always_ff @(posedge clk_i) begin
      if (!rst_i) assert (!(mm_acc_re && act_fire && !act_chain_q));
    end
`endif
  end else begin : g_no_mm_beside_act
    assign mm_beside_act = 1'b0;
    assign mm_act_apart  = 1'b0;
  end

  if (ChainOn) begin : g_act_chain
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        act_chain_q <= 1'b0;
        a1_chain_q  <= 1'b0;
        ch_skip_q   <= '0;
      end else begin
        if (acc_cmd_act) begin
          act_chain_q <= act_chain_ok;
          // -(mm_slack_q + w_valid): the earlier MATMULs' rows written after this cycle
          ch_skip_q   <= MmFlightW'(~mm_slack_q) + MmFlightW'(!w_valid);
        end else if (act_chain_q && w_valid && ch_skip_q != '0) begin
          ch_skip_q <= ch_skip_q - 1'b1;
        end
        a1_chain_q <= act_fire && act_chain_q;
      end
    end
    // (mm_slack_q + w_valid <= -1: chain_win holds next cycle, when act_idle, rd_idle and the
    // last MATMUL stay: no command taken now)
    assign act_chain_o = act_idle && rd_idle && mm_slack_q[SlW-1] && !(&mm_slack_q && w_valid);
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
        if (acc_cmd_act) begin
          chk_due_q <= (CntW + 1)'(mm_flight) + (CntW + 1)'(mm_left_q) - (CntW + 1)'(w_valid);
          chk_row_q <= '0;
          chk_lm_q  <= (CntW + 1)'(lm_rows_q);
          assert (!(act_chain_ok && act_mm_ok))
            else $error("tpu_datapath: ACTIVATE both chained and beside its MATMUL");
        end else begin
          if (w_valid && chk_due_q != '0) begin
            chk_due_q <= chk_due_q - 1'b1;
          end
          if (act_fire && act_chain_q) begin
            chk_row_q <= chk_row_q + 1'b1;
          end
        end
        if (act_fire && act_chain_q) begin
          assert (w_valid && w_addr == act_src_q && chk_due_q != '0 &&
                  chk_due_q - 1'b1 == chk_lm_q - 1'b1 - chk_row_q)
            else $error("tpu_datapath: chained ACTIVATE row %0d is not its MATMUL's row",
                        chk_row_q);
        end
      end
    end
`endif
  end else begin : g_no_act_chain
    assign act_chain_q = 1'b0;
    assign a1_chain_q  = 1'b0;
    assign ch_skip_q   = '0;
    assign act_chain_o = 1'b0;
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      act_left_q   <= '0;
      a1_valid_q   <= 1'b0;
      act_flight_q <= '0;
      act_fl0_q    <= 1'b1;
      act_sat_q    <= '0;
    end else begin
      if (acc_cmd_act) begin
        act_left_q <= CntW'(cmd_rows);
      end else if (act_fire) begin
        act_left_q <= act_left_q - 1'b1;
      end
      a1_valid_q   <= act_fire;
      act_flight_q <= act_flight_d;
      act_fl0_q    <= !act_fire && act_flight_q == ActFlightW'(ap_out_valid);
      if (ap_out_valid) begin
        act_sat_q <= ap_out_last ? '0 : act_sat_d;
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (acc_cmd_act) begin
      act_src_q     <= AccAw'(cmd_a);
      act_dst_ub_q  <= UbAw'(cmd_b);
      act_dst_acc_q <= AccAw'(cmd_b);
      act_lut_q     <= cmd_flags[0];
      act_raw_q     <= cmd_flags[1];
    end else begin
      if (act_fire) begin
        act_src_q <= act_src_q + 1'b1;
      end
      if (ap_out_valid) begin
        act_dst_ub_q  <= act_dst_ub_q + 1'b1;
        act_dst_acc_q <= act_dst_acc_q + 1'b1;
      end
    end
    a1_last_q <= act_one_q;
  end

  assign act_done_o   = ap_out_valid && ap_out_last;
  assign act_sat_d    = act_sat_q + SatW'(ap_out_sat);
  assign act_result_o = 32'(act_sat_d);

  // ---------------------------------------------------------------- UB_READ / ACC_READ
  // The RAM's output register is the stream's register: a read is issued when it is free or
  // being emptied, and it holds while rd_ready_i is low. AccOutReg: an ACC row reaches the
  // ACC's output register two cycles after its read (rd_p1_q in between), and that register
  // is loaded in the cycle after any read: so the next ACC read waits until the row is there
  // (one ACC_READ row per two cycles at most); rd_last_q and rd_src_acc_q are loaded with the
  // read as before (the stream's register is empty in the cycle after it). Ub2OutReg: the
  // same for a UB_READ row and u_ub2's output register.
  assign rd_active = rd_nz_q;
  // (RdChain: row rd_n_q of a chained read once the ACTIVATE has written it)
  logic rd_take;  // the beat in the RAM's output register leaves now (see g_rd_reg)
  assign rd_fire   = rd_active && (!rd_valid_q || rd_take) && !rd_p1_q &&
                     (!rd_chain_q || rd_n_q < act_wr_q);
  if (RdChainOn) begin : g_rd_chain
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        rd_chain_q <= 1'b0;
      end else if (acc_cmd_rd) begin
        rd_chain_q <= cv_ub_rd && !act_idle;
      end
      if (acc_cmd_rd) begin
        rd_n_q <= '0;
      end else if (rd_fire) begin
        rd_n_q <= rd_n_q + 1'b1;
      end
      if (acc_cmd_act) begin
        act_ub0_q  <= UbAw'(cmd_b);
        act_rows_q <= CntW'(cmd_rows);
        act_wr_q   <= '0;
      end else if (ap_out_valid) begin
        act_wr_q <= act_wr_q + 1'b1;
      end
    end
`ifndef SYNTHESIS
    // a chained read reads only rows the ACTIVATE wrote in an earlier cycle
    always_ff @(posedge clk_i) begin
      if (!rst_i && rd_fire && rd_chain_q) begin
        assert (!rd_acc_q && RngW'(rd_addr_ub_q) - RngW'(act_ub0_q) < RngW'(act_wr_q))
          else $error("tpu_datapath: chained UB_READ before the ACTIVATE's row is written");
      end
    end
`endif
  end else begin : g_no_rd_chain
    assign rd_chain_q = 1'b0;
    assign rd_n_q     = '0;
    assign act_ub0_q  = '0;
    assign act_rows_q = '0;
    assign act_wr_q   = '0;
  end
  assign rd_idle   = !rd_active && !rd_valid_q && !rd_p1_q;
  // the beat that reaches the stream's register now (AccOutReg / Ub2OutReg: an ACC / UB row a
  // cycle later)
  logic rd_arrive;
  if (AccOutReg || Ub2OutReg) begin : g_rd_p1
    logic rd_two;  // the RAM this read uses has an output register
    assign rd_two = rd_acc_q ? AccOutReg : Ub2OutReg;
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        rd_p1_q <= 1'b0;
      end else begin
        rd_p1_q <= rd_fire && rd_two;
      end
    end
    assign rd_arrive = (rd_fire && !rd_two) || rd_p1_q;
  end else begin : g_rd_p0
    assign rd_p1_q   = 1'b0;
    assign rd_arrive = rd_fire;
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      rd_left_q  <= '0;
      rd_valid_q <= 1'b0;
    end else begin
      if (acc_cmd_rd) begin
        rd_left_q <= CntW'(cmd_rows);
      end else if (rd_fire) begin
        rd_left_q <= rd_left_q - 1'b1;
      end
      if (rd_arrive) begin
        rd_valid_q <= 1'b1;
      end else if (rd_take) begin
        rd_valid_q <= 1'b0;
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (acc_cmd_rd) begin
      rd_acc_q      <= cv_acc_rd;
      rd_addr_ub_q  <= UbAw'(cmd_a);
      rd_addr_acc_q <= AccAw'(cmd_a);
    end else if (rd_fire) begin
      rd_addr_ub_q  <= rd_addr_ub_q + 1'b1;
      rd_addr_acc_q <= rd_addr_acc_q + 1'b1;
    end
    if (rd_fire) begin
      rd_last_q    <= rd_one_q;
      rd_src_acc_q <= rd_acc_q;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      {mm_nz_q, mm_one_q}   <= 2'b00;
      {act_nz_q, act_one_q} <= 2'b00;
      {rd_nz_q, rd_one_q}   <= 2'b00;
    end else begin
      {mm_nz_q, mm_one_q}   <= left_flags(acc_cmd_mm, CntW'(cmd_rows), mm_fire, mm_left_q,
                                          {mm_nz_q, mm_one_q});
      {act_nz_q, act_one_q} <= left_flags(acc_cmd_act, CntW'(cmd_rows), act_fire, act_left_q,
                                          {act_nz_q, act_one_q});
      {rd_nz_q, rd_one_q}   <= left_flags(acc_cmd_rd, CntW'(cmd_rows), rd_fire, rd_left_q,
                                          {rd_nz_q, rd_one_q});
    end
  end

  logic [N*32-1:0] rd_data;
  logic            rd_out_busy;  // RdReg: a beat waits in the output register
  assign rd_data = rd_src_acc_q ? acc_rdata : {{(N*24){1'b0}}, ub2_rdata};
  if (RdReg) begin : g_rd_reg
    logic            o_valid_q, o_last_q;
    logic [N*32-1:0] o_data_q;
    assign rd_take = !o_valid_q || rd_ready_i;
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        o_valid_q <= 1'b0;
      end else if (rd_take) begin
        o_valid_q <= rd_valid_q;
      end
      if (rd_take) begin
        o_last_q <= rd_last_q;
        o_data_q <= rd_data;
      end
    end
    assign rd_valid_o  = o_valid_q;
    assign rd_last_o   = o_last_q;
    assign rd_data_o   = o_data_q;
    assign rd_out_busy = o_valid_q;
  end else begin : g_rd_direct
    assign rd_take     = rd_ready_i;
    assign rd_valid_o  = rd_valid_q;
    assign rd_last_o   = rd_last_q;
    assign rd_data_o   = rd_data;
    assign rd_out_busy = 1'b0;
  end

  // ---------------------------------------------------------------- RAM port muxes
  // The acceptance rules above leave at most one user per port in any cycle.
  always_comb begin
    ub_we    = 1'b0;
    ub_waddr = act_dst_ub_q;
    ub_wdata = ap_out_int8;
    if (ac_wr && !cv_par) begin  // a UB_WRITE accepted
      ub_we    = 1'b1;
      ub_waddr = UbAw'(cmd_a);
      ub_wdata = cmd_data;
    end else if (ap_out_valid && !act_raw_q) begin
      ub_we = 1'b1;
    end

    ub2_re   = rd_fire && !rd_acc_q;
    // With UbReadPort2 this port is the MATMUL's alone: it reads mm_ub_q whenever a MATMUL is
    // active (a flip-flop), not only when a row issues, so neither the read enable nor the
    // address depends on the issue decision (mm_fire: the weight FIFO's state), a path across
    // the die on a big FPGA. Same results: the MXU takes ub_rdata only with s1_valid_q (the row
    // issued; UbOutReg: a cycle later with s2, the read's data in the RAM's second register),
    // and the row read in a stalled cycle is the one the MATMUL reads next anyway.
    // (MmChain: not while that row is not yet written: a UB_WRITE may be writing it in this
    // cycle, and a block RAM's read of the row being written is undefined; mm_row_in is 1
    // without MmChain, so the boards keep the read enable a flip-flop)
    if (UbReadPort2) begin
      ub_re    = mm_active && mm_row_in;
      ub_raddr = mm_ub_q;
    end else begin
      ub_re    = mm_fire || ub2_re;
      ub_raddr = mm_fire ? mm_ub_q : rd_addr_ub_q;
    end

    // The write's address and data are selected by w_valid alone (they matter only when
    // acc_we is set): with AccSlice w_valid is a flip-flop, so the 32N data muxes have no LUT
    // in front of their select (on the ECP5 boards this was the critical path).
    acc_we    = w_valid || (ap_out_valid && act_raw_q);
    acc_waddr = w_valid ? w_addr : act_dst_acc_q;
    acc_wdata = w_valid ? w_data : ap_out_raw;

    // The read address is chosen by registered state only (which engine owns the port), not
    // by the fire decisions (they reach back to rd_ready_i): no path runs from a stream's
    // handshake to the block RAM's address pins. An ACC_READ never runs beside an ACTIVATE
    // that reads the ACC (asserted below), and the address does not matter without acc_re.
    acc_re    = 1'b0;
    acc_raddr = mm_acc_re ? mm_acc_raddr : (act_active && !act_chain_q) ? act_src_q
                                                                       : rd_addr_acc_q;
    if (mm_acc_re) begin
      // tpu_ram forbids reading the row being written in the same cycle; that row is the one
      // forwarded next cycle anyway, so the read is skipped then. (A row that does not
      // accumulate reads nothing: an ACTIVATE beside its MATMUL has the port.)
      acc_re = !(w_valid && w_addr == mm_acc_raddr);
    end else if (act_fire && !act_chain_q) begin
      acc_re    = 1'b1;
    end else if (rd_fire && rd_acc_q) begin
      acc_re    = 1'b1;
    end

    // No RAM access during reset: the engine state is still random in the first reset cycle.
    if (rst_i) begin
      ub_we  = 1'b0;
      ub_re  = 1'b0;
      ub2_re = 1'b0;
      acc_we = 1'b0;
      acc_re = 1'b0;
    end
  end

  // The UB write at the RAMs (UbWrReg: a cycle later, from registers; the enable also off in
  // reset, as every RAM access: only one LUT after the reset then)
  logic ubw_pend;  // UbWrReg: a write waits in the register
  if (UbWrReg) begin : g_ub_wr_reg
    logic ubw_we_q;
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        ubw_we_q <= 1'b0;
      end else begin
        ubw_we_q <= ub_we;
      end
      if (ub_we) begin
        ubw_addr <= ub_waddr;
        ubw_data <= ub_wdata;
      end
    end
    assign ubw_we   = ubw_we_q && !rst_i;
    assign ubw_pend = ubw_we_q;
  end else begin : g_ub_wr_direct
    assign ubw_we   = ub_we;
    assign ubw_addr = ub_waddr;
    assign ubw_data = ub_wdata;
    assign ubw_pend = 1'b0;
  end

  // ---------------------------------------------------------------- status and counters
  // perf_busy: the busy bit is registered first and added to the output (the same count, but
  // the idle decode is not in front of the 64-bit carry chain)
  logic [63:0] perf_busy_q, perf_mxu_q, perf_macs_q;
  logic        busy_q;
  // (a command waiting in the CmdSlice stage is in progress)
  assign idle_o = mxu_idle && act_idle && rd_idle && !rd_out_busy && !(CmdSlice && cmd_valid) &&
                  !ubw_pend;
  // (as ok_mm / ok_wr, from their terms: the always block above also reads cmd_i; beside an
  // ACTIVATE without its range check, which needs cmd_i: then no UB_WRITE is taken either)
  assign mm_ok_o = (act_idle || mm_beside_act) && (rd_idle || (UbReadPort2 && !(rd_active && rd_acc_q) &&
                                            !(rd_valid_q && rd_src_acc_q) && !rd_p1_q)) &&
                   (!mm_active || (!CmdSlice && mm_last_fire));
  assign wr_ok_o = act_idle;
  // (= ok_ub_rd without the command's terms)
  assign rd_ok_o = (act_idle || (RdChainOn && !act_raw_q)) && rd_idle &&
                   (UbReadPort2 || !mm_active);

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      busy_q <= 1'b0;
    end else begin
      busy_q <= !idle_o;
    end
  end
  if (PerfSplit) begin : g_perf_split
    // perf_busy_q + busy_q = busy_q ? (perf_busy_q + 1) : perf_busy_q, the + 1 a second counter
    logic [63:0] perf_busy1_q;
    tpu_seg_counter #(.Width(64), .SegW(16)) u_busy (
      .clk_i, .rst_i, .inc_i(busy_q), .cnt_o(perf_busy_q)
    );
    tpu_seg_counter #(.Width(64), .SegW(16), .Init(64'd1)) u_busy1 (
      .clk_i, .rst_i, .inc_i(busy_q), .cnt_o(perf_busy1_q)
    );
    tpu_seg_counter #(.Width(64), .SegW(16)) u_mxu (
      .clk_i, .rst_i, .inc_i(mi_valid), .cnt_o(perf_mxu_q)
    );
    assign perf_busy_o = busy_q ? perf_busy1_q : perf_busy_q;
    assign perf_macs_q = perf_mxu_q << $clog2(N * N);
  end else begin : g_perf
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        perf_busy_q <= '0;
        perf_mxu_q  <= '0;
        perf_macs_q <= '0;
      end else begin
        perf_busy_q <= perf_busy_q + 64'(busy_q);
        perf_mxu_q  <= perf_mxu_q + 64'(mi_valid);
        perf_macs_q <= perf_macs_q + (mi_valid ? 64'(N * N) : 64'd0);
      end
    end
    assign perf_busy_o = perf_busy_q + 64'(busy_q);
  end
  assign perf_mxu_busy_o = perf_mxu_q;
  assign perf_macs_o     = perf_macs_q;

  logic unused_cmd;
  assign unused_cmd = ^{mxu_swap_ready, cmd_flags[3], cmd_a[31:8], cmd_b, cmd_rows, cmd_data};

`ifndef SYNTHESIS
  // ---------------------------------------------------------------- assertions
  logic                cmd_stall_q, rd_stall_q, lm_seen_q;
  logic [CmdWidth-1:0] cmd_prev_q;
  logic [N*32-1:0]     rd_prev_q;
  logic                rd_last_prev_q;
  logic [MmFlightW-1:0] mm_flight_chk_q;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      mm_flight_chk_q <= '0;
      cmd_stall_q <= 1'b0;
      rd_stall_q  <= 1'b0;
      lm_seen_q   <= 1'b0;
    end else begin
      // the registered MATMUL slack is what it stands for (once there was a MATMUL)
      if (lm_seen_q) begin
        assert ($signed(mm_slack_q) == $signed(SlW'(lm_rows_q)) - $signed(SlW'(mm_flight))
                                       - $signed(SlW'(mm_left_q)))
          else $error("tpu_datapath: MATMUL slack %0d", $signed(mm_slack_q));
      end
      if (acc_cmd_mm) begin
        lm_seen_q <= 1'b1;
      end
      assert (fwd_hit_q == (fwd_valid_q && fwd_addr_q == p_addr_q))
        else $error("tpu_datapath: registered forward hit");
      assert ({mm_nz_q, mm_one_q} == {mm_left_q != '0, mm_left_q == CntW'(1)} &&
              {act_nz_q, act_one_q} == {act_left_q != '0, act_left_q == CntW'(1)} &&
              {rd_nz_q, rd_one_q} == {rd_left_q != '0, rd_left_q == CntW'(1)})
        else $error("tpu_datapath: registered row counter decodes");
      assert (mm_fl0_q == (mm_flight == '0) && act_fl0_q == (act_flight_q == '0))
        else $error("tpu_datapath: registered in-flight decodes");
      // the split in-flight count is the plain one
      assert (mm_flight == mm_flight_chk_q) else $error("tpu_datapath: MATMUL rows in flight");
      mm_flight_chk_q <= mm_flight_chk_q + MmFlightW'(mm_fire) - MmFlightW'(w_valid);
      // handshakes: a stalled transfer stays offered and unchanged
      if (cmd_stall_q) begin
        assert (cmd_valid_i && cmd_i == cmd_prev_q)
          else $error("tpu_datapath: cmd changed while stalled");
      end
      if (rd_stall_q) begin
        assert (rd_valid_o && rd_data_o == rd_prev_q && rd_last_o == rd_last_prev_q)
          else $error("tpu_datapath: rd stream changed while stalled");
      end
      cmd_stall_q <= cmd_valid_i && !cmd_ready_o;
      rd_stall_q  <= rd_valid_o && !rd_ready_i;
      // internal streams never stall
      assert (!mi_valid || mxu_in_ready) else $error("tpu_datapath: MXU refused a row");
      assert (!ai_valid || ap_in_ready) else $error("tpu_datapath: activation refused a row");
      // a PARAM lands a cycle after its acceptance: nothing in the activation may use it yet
      // (BiasBeside: a BIAS value waits in the shadow bank, tpu_act_params asserts it)
      assert (!pw_valid_q || (act_idle && !a1_valid_q && !ai_valid) ||
              (BiasOn && pw_kind_q == 3'(tpu_pkg::ParamBias)))
        else $error("tpu_datapath: delayed PARAM write while the activation runs");
      // the ACC read address's select (registered state) names the engine that reads
      assert (!(rd_fire && rd_acc_q && act_active && !act_chain_q))
        else $error("tpu_datapath: ACC_READ beside an ACTIVATE that reads the ACC");
      // one user per RAM port
      assert (!(w_valid && ap_out_valid && act_raw_q)) else $error("tpu_datapath: ACC write clash");
      assert (!(cmd_fire && cmd_op == OpUbWrite && ap_out_valid && !act_raw_q))
        else $error("tpu_datapath: UB write clash");
      assert (!(mm_acc_re && ((act_fire && !act_chain_q) || (rd_fire && rd_acc_q))))
        else $error("tpu_datapath: ACC read clash");
      assert (UbReadPort2 || !(mm_fire && rd_fire && !rd_acc_q))
        else $error("tpu_datapath: UB read clash");
      // the per-op valid flags (CmdSlice: registered) are the op decode of the command
      assert ({cv_wr, cv_par, cv_mm, cv_act, cv_ub_rd, cv_acc_rd} ==
              ({6{cmd_valid}} & {cmd_op == OpUbWrite || cmd_op == OpParam, cmd_op == OpParam,
                                 cmd_op == OpMatmul, cmd_op == OpActivate, cmd_op == OpUbRead,
                                 cmd_op == OpAccRead}))
        else $error("tpu_datapath: per-op valid flags differ from the command");
      // commands (as the engines see them: the port, or the CmdSlice stage): legal op,
      // rows >= 1, addresses in range
      if (cmd_valid) begin
        assert (cmd_op <= OpAccRead) else $error("tpu_datapath: illegal op %0d", cmd_op);
        if (cmd_op == OpUbWrite) begin
          assert ({32'd0, cmd_a} < 64'(UbRows)) else $error("tpu_datapath: UB address out of range");
        end
        if (cmd_op == OpParam) begin
          assert (cmd_flags[2:0] <= 3'd4) else $error("tpu_datapath: bad param kind");
        end
        if (cmd_op >= OpMatmul && cmd_op <= OpAccRead) begin
          assert (cmd_rows != 0) else $error("tpu_datapath: rows = 0");
        end
        if (cmd_op == OpMatmul) begin
          assert ({32'd0, cmd_a} + {32'd0, cmd_rows} <= 64'(UbRows))
            else $error("tpu_datapath: MATMUL UB range");
          assert ({32'd0, cmd_b} + {32'd0, cmd_rows} <= 64'(AccRows))
            else $error("tpu_datapath: MATMUL ACC address out of range");
        end
        if (cmd_op == OpActivate) begin
          assert ({32'd0, cmd_a} + {32'd0, cmd_rows} <= 64'(AccRows))
            else $error("tpu_datapath: ACTIVATE ACC address out of range");
          assert ({32'd0, cmd_b} + {32'd0, cmd_rows} <= (cmd_flags[1] ? 64'(AccRows) : 64'(UbRows)))
            else $error("tpu_datapath: ACTIVATE destination out of range");
        end
        if (cmd_op == OpUbRead) begin
          assert ({32'd0, cmd_a} + {32'd0, cmd_rows} <= 64'(UbRows))
            else $error("tpu_datapath: UB_READ range");
        end
        if (cmd_op == OpAccRead) begin
          assert ({32'd0, cmd_a} + {32'd0, cmd_rows} <= 64'(AccRows))
            else $error("tpu_datapath: ACC_READ range");
        end
      end
    end
    cmd_prev_q     <= cmd_i;
    rd_prev_q      <= rd_data_o;
    rd_last_prev_q <= rd_last_o;
  end
`endif
endmodule

`default_nettype wire
