// tpu_datapath: everything of the device but the host interface (docs/datapath.md): unified
// buffer (UB), accumulators (ACC), weight FIFO + MXU, activation pipeline and its parameters,
// driven by a command stream. The device top turns SQEs into these commands after its checks.
// This file is the structural top: the RAMs, their port muxes and the engines, each in a file
// of its own that owns its options:
//   tpu_dp_accept    command acceptance and hazards (CmdSlice)
//   tpu_dp_matmul    MATMUL issue, MXU and the ACC read-modify-write (tpu_dp_acc_rmw:
//                    AccSlice; ProdReg in the PEs)
//   tpu_dp_activate  the ACTIVATE sequencer and the activation parameters (ActLanes, LutReg,
//                    ParOutReg)
//   tpu_dp_read      the UB_READ / ACC_READ stream (RdReg)
//   tpu_dp_perf      the performance counters (PerfSplit)
//
// Command stream cmd_valid_i/cmd_ready_o/cmd_i (flat bus, CmdWidth = 104 + 8*N bits: op, flags,
// a, b, rows, data; ops UB_WRITE, PARAM, MATMUL, ACTIVATE, UB_READ, ACC_READ): the encoding, the
// acceptance rules, the completions (mm_done_o, act_done_o, rd_last_o) and the latencies are in
// docs/datapath.md. Weight rows have their own stream (wpush_*, N rows per tile, see
// tpu_weight_fifo) so the FIFO fills while the MXU computes. Commands take effect in order;
// illegal ops and out-of-range addresses are assertions here (the device top checks them).
// Reset (rst_i, synchronous): control state only; RAMs, parameters and data registers keep
// their contents.
// Bf16 (the bf16 mode, spec 6.12; needs AccSlice = 0): UB rows of 2N bytes (cmd data, UB_WRITE
// and UB_READ rows 16N bits; an int8 row in bytes 0..N-1, ACTIVATE's int8 rows zero-extended),
// weight rows of N 16-bit lanes (int8 in the low byte), MATMUL flags[3] BF16 (tpu_dp_matmul).
// ACTIVATE flags[3] BF16 (the float path, tpu_dp_activate), PARAM kinds SCALE and FCLAMP
// (fp_loaded_o). tpu_device builds it with Bf16 for its bf16 mode (the sim:bf16=1 model).
// AccReadPort2 (tpu_device's bf16 mode): ACC_READ on a copy of the ACC (written with every ACC
// write, read by ACC_READ alone), so an ACC_READ runs beside MATMULs whose ACC rows lie apart
// from its rows (tpu_dp_accept): the fp32 write-back of one column tile streams out while the
// next tile's MATMULs accumulate. Same results (the rows it reads are written before it
// starts, and no MATMUL accepted while it runs writes them).
`default_nettype none

module tpu_datapath #(
  parameter int unsigned N        = 16,
  parameter int unsigned UbRows   = 8192,
  parameter int unsigned AccRows  = 2048,
  parameter int unsigned Tiles    = 4,
  // activation channels computed at once: N = the pipelined tpu_activation (one row per
  // cycle); fewer = the small multi-cycle tpu_act_serial (one row at a time, for FPGAs)
  parameter int unsigned ActLanes = N,
  parameter bit          UbReadPort2 = 1'b1, // UB_READ on its own UB copy (overlaps MATMUL)
  parameter bit          AccReadPort2 = 1'b0, // ACC_READ on its own ACC copy (above)
  // STREAM_MATMUL devices (tpu_device StreamMm; needs ActLanes = N and CmdSlice = 0): the
  // engines overlap further: a MATMUL beside an ACTIVATE near its end, an ACTIVATE chained on
  // the last MATMUL's ACC writes, a BIAS PARAM beside a running ACTIVATE (held in a shadow
  // bank), a UB_READ chained on a running ACTIVATE's output rows (with UbReadPort2), a MATMUL
  // chained on the UB_WRITEs of its rows (CHAIN). Same results, fewer cycles.
  parameter bit          StreamMm = 1'b0,
  // Board timing options (FPGAs; docs/fpga.md; each adds registers, same results):
  parameter bit          CmdSlice   = 1'b0,  // tpu_dp_accept: a register stage on cmd_*
  parameter bit          AccSlice   = 1'b0,  // tpu_dp_acc_rmw: the RMW in two stages
  parameter bit          ProdReg    = 1'b0,  // tpu_pe: the product registered
  parameter bit          PerfSplit  = 1'b0,  // tpu_dp_perf: segmented counters
  parameter bit          LutReg     = 1'b0,  // tpu_act_unit: the LUT read data registered
  parameter bit          ParOutReg  = 1'b0,  // tpu_act_unit: parameter RAMs' output registers
  parameter bit          RdReg      = 1'b0,  // tpu_dp_read: the stream leaves a register
  parameter bit          UbWrReg    = 1'b0,  // the UB write registered (needs CmdSlice)
  // read latencies of the RAMs (1, or 2: through the block RAM's output register):
  parameter int unsigned UbLatency  = 1,     // the MATMUL's UB port (needs UbReadPort2)
  parameter int unsigned Ub2Latency = 1,     // UB_READ's UB copy (needs UbReadPort2)
  parameter int unsigned AccLatency = 1,     // the ACC (needs AccSlice, not StreamMm)
  parameter bit          Bf16       = 1'b0,  // the bf16 mode (see above)
  parameter bit          Round      = 1'b0,  // the SINGLE and FLOAT roundings (tpu_act_unit)
  localparam int unsigned LaneW     = Bf16 ? 16 : 8,
  localparam int unsigned UbW       = N * LaneW
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
  input  logic [N*LaneW-1:0]  wpush_row_i,
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
  output logic                rd_ok_o,     // a UB_READ on cmd_i would be taken now (StreamMm:
                                           // or one of the running ACTIVATE's rows)
  output logic [TileBits-1:0] tiles_o,         // weight tiles pushed, not yet popped
  output logic [4:0]          params_loaded_o, // per tpu_pkg::param_kind_e
  output logic [1:0]          fp_loaded_o,     // Bf16: {FCLAMP, SCALE} loaded (else 0)
  // performance counters (since reset)
  output logic [63:0]         perf_busy_o,     // cycles with any command in progress
  output logic [63:0]         perf_mxu_busy_o, // cycles a row entered the MXU
  output logic [63:0]         perf_macs_o      // N*N per row through the MXU
);
  localparam int unsigned CmdWidth  = tpu_pkg::DpCmdDataLsb + UbW;
  localparam int unsigned TileBits  = $clog2(Tiles + 2);
  localparam int unsigned UbAw      = $clog2(UbRows);
  localparam int unsigned AccAw     = $clog2(AccRows);
  localparam int unsigned CntW      = $clog2((UbRows > AccRows ? UbRows : AccRows) + 1);
  localparam int unsigned RngW      = CntW + 1;
  localparam int unsigned MmFlightW = $clog2(2 * N + 8);
  localparam int unsigned SlW       = (CntW > MmFlightW ? CntW : MmFlightW) + 2;
  // the StreamMm overlaps, per engine (a UB_READ chained on an ACTIVATE needs the UB copy)
  localparam bit          RdChainOn = StreamMm && UbReadPort2;

  if (N < 4 || N > 256) begin : g_bad_n
    $error("tpu_datapath: N must be in 4..256");
  end
  if (UbRows < 16 || AccRows < 16) begin : g_bad_rows
    $error("tpu_datapath: UbRows and AccRows must be >= 16");
  end
  if (StreamMm && (CmdSlice || ActLanes < N)) begin : g_bad_stream
    $error("tpu_datapath: StreamMm needs CmdSlice = 0 and ActLanes = N");
  end
  if ((UbLatency != 1 || Ub2Latency != 1) && !UbReadPort2) begin : g_bad_ub_latency
    $error("tpu_datapath: UbLatency / Ub2Latency 2 need UbReadPort2");
  end
  // (a write still in the register must not be read: with CmdSlice a row is read three cycles
  // after the cycle it is written in without UbWrReg at the soonest, docs/datapath.md)
  if (UbWrReg && !CmdSlice) begin : g_bad_ub_wr_reg
    $error("tpu_datapath: UbWrReg needs CmdSlice");
  end
  if (Bf16 && AccSlice) begin : g_bad_bf16
    $error("tpu_datapath: Bf16 needs AccSlice = 0");
  end
  if (AccReadPort2 && (CmdSlice || AccLatency != 1)) begin : g_bad_acc_port2
    $error("tpu_datapath: AccReadPort2 needs CmdSlice = 0 and AccLatency = 1");
  end
  if (AccLatency != 1 && (!AccSlice || StreamMm)) begin : g_bad_acc_latency
    $error("tpu_datapath: AccLatency 2 needs AccSlice, and not StreamMm");
  end

  // ---------------------------------------------------------------- RAMs
  logic               ub_we, ub_re;
  logic [UbAw-1:0]    ub_waddr, ub_raddr;
  logic [UbW-1:0]     ub_wdata, ub_rdata;
  logic               ubw_we;                 // the UB write at the RAMs (UbWrReg: registered)
  logic               ubw_pend;               // UbWrReg: a write waits in the register
  logic [UbAw-1:0]    ubw_addr;
  logic [UbW-1:0]     ubw_data;
  logic               ub2_re;                 // UB_READ's port (the UB copy, or the UB)
  logic [UbW-1:0]     ub2_rdata;
  logic               acc_we, acc_re;
  logic               acc2_re;                // ACC_READ's read on the ACC copy (AccReadPort2)
  logic [AccAw-1:0]   acc_waddr, acc_raddr;
  logic [N*32-1:0]    acc_wdata, acc_rdata;
  logic [N*32-1:0]    acc2_rdata;             // ACC_READ's port (the ACC copy, or the ACC)

  // ---------------------------------------------------------------- engines
  // the command (tpu_dp_accept)
  logic [3:0]       cmd_flags;
  logic [31:0]      cmd_a, cmd_b, cmd_rows;
  logic [UbW-1:0]   cmd_data;
  logic [RngW-1:0]  cmd_hi_a, cmd_hi_b;
  logic             cmd_held;
  logic             ac_wr, ac_par, ac_mm, ac_act, ac_ub_rd, ac_acc_rd, act_chain_ok;
  logic [CntW-1:0]  lm_rows;
  // MATMUL
  logic             mm_active, mm_fire, mm_last_fire, mxu_idle, mxu_row;
  logic [SlW-1:0]   mm_slack;
  logic [MmFlightW-1:0] mm_flight;
  logic [CntW-1:0]  mm_left;
  logic             mm_ub_re;
  logic [UbAw-1:0]  mm_ub_raddr;
  logic             mm_acc_claim, mm_acc_re, mm_acc_we;
  logic [AccAw-1:0] mm_acc_raddr, mm_acc_waddr;
  logic [N*32-1:0]  mm_acc_wdata, acc_fwd_data;
  // ACTIVATE
  logic             act_idle, act_raw, mm_beside_act;
  logic [RngW-1:0]  act_ub_lo, act_ub_hi;
  logic [UbAw-1:0]  act_ub0;
  logic [CntW-1:0]  act_rows, act_wr;
  logic             act_acc_claim, act_acc_re, act_ub_we, act_acc_we;
  logic [AccAw-1:0] act_acc_raddr, act_acc_waddr;
  logic [UbAw-1:0]  act_ub_waddr;
  logic [UbW-1:0]   act_ub_wdata;
  logic [N*32-1:0]  act_acc_wdata;
  // reads
  logic             rd_idle, rd_held, rd_mm_ok, rd_ub_re, rd_acc_re, rd_acc;
  logic [RngW-1:0]  rd_acc_lo, rd_acc_hi;
  logic [UbAw-1:0]  rd_ub_raddr;
  logic [AccAw-1:0] rd_acc_raddr;

  tpu_dp_accept #(.N(N), .UbRows(UbRows), .AccRows(AccRows), .UbReadPort2(UbReadPort2),
                  .AccReadPort2(AccReadPort2),
                  .CmdSlice(CmdSlice), .BiasOn(StreamMm), .ChainOn(StreamMm),
                  .RdChainOn(RdChainOn), .UbW(UbW)) u_accept (
    .clk_i, .rst_i, .cmd_valid_i, .cmd_ready_o, .cmd_i,
    .cmd_flags_o (cmd_flags), .cmd_a_o(cmd_a), .cmd_b_o(cmd_b), .cmd_rows_o(cmd_rows),
    .cmd_data_o  (cmd_data), .cmd_hi_a_o(cmd_hi_a), .cmd_hi_b_o(cmd_hi_b),
    .cmd_held_o  (cmd_held),
    .ac_wr_o (ac_wr), .ac_par_o(ac_par), .ac_mm_o(ac_mm), .ac_act_o(ac_act),
    .ac_ub_rd_o (ac_ub_rd), .ac_acc_rd_o(ac_acc_rd), .act_chain_ok_o(act_chain_ok),
    .lm_rows_o (lm_rows),
    .mm_active_i (mm_active), .mm_last_fire_i(mm_last_fire), .mxu_idle_i(mxu_idle),
    .mm_slack_i (mm_slack), .acc_w_valid_i(mm_acc_we),
    .act_idle_i (act_idle), .act_raw_i(act_raw), .mm_beside_act_i(mm_beside_act),
    .act_ub_lo_i (act_ub_lo), .act_ub_hi_i(act_ub_hi), .act_ub0_i(act_ub0),
    .act_rows_i (act_rows),
    .rd_idle_i (rd_idle), .rd_mm_ok_i(rd_mm_ok), .rd_acc_i(rd_acc), .rd_acc_lo_i(rd_acc_lo),
    .rd_acc_hi_i (rd_acc_hi),
    .mm_ok_o, .wr_ok_o, .act_chain_o, .rd_ok_o
  );

  tpu_dp_matmul #(.N(N), .UbRows(UbRows), .AccRows(AccRows), .Tiles(Tiles),
                  .BackToBack(!CmdSlice), .ProdReg(ProdReg), .UbLatency(UbLatency),
                  .AccLatency(AccLatency), .AccSlice(AccSlice), .MmChainOn(StreamMm),
                  .Bf16(Bf16)) u_matmul (
    .clk_i, .rst_i,
    .ac_mm_i (ac_mm), .cmd_a_i(UbAw'(cmd_a)), .cmd_b_i(AccAw'(cmd_b)),
    .cmd_rows_i (CntW'(cmd_rows)), .cmd_flags_i(cmd_flags),
    .ub_write_i (ac_wr && !ac_par),
    .wpush_valid_i, .wpush_ready_o, .wpush_row_i, .wpush_transpose_i,
    .ub_re_o (mm_ub_re), .ub_raddr_o(mm_ub_raddr), .ub_rdata_i(ub_rdata),
    .acc_claim_o (mm_acc_claim), .acc_re_o(mm_acc_re), .acc_raddr_o(mm_acc_raddr),
    .acc_rdata_i (acc_rdata),
    .acc_we_o (mm_acc_we), .acc_waddr_o(mm_acc_waddr), .acc_wdata_o(mm_acc_wdata),
    .acc_fwd_data_o (acc_fwd_data),
    .mm_active_o (mm_active), .mm_fire_o(mm_fire), .mm_last_fire_o(mm_last_fire),
    .mxu_idle_o (mxu_idle), .mm_slack_o(mm_slack), .mm_flight_o(mm_flight),
    .mm_left_o (mm_left), .mxu_in_valid_o(mxu_row), .mm_done_o, .tiles_o
  );

  tpu_dp_activate #(.N(N), .UbRows(UbRows), .AccRows(AccRows), .ActLanes(ActLanes),
                    .LutReg(LutReg), .ParOutReg(ParOutReg), .AccLatency(AccLatency),
                    .BesideOn(StreamMm), .ChainOn(StreamMm), .BiasOn(StreamMm),
                    .RdChainOn(RdChainOn), .Bf16(Bf16), .Round(Round),
                    // the MATMUL's first ACC read comes this many cycles after its acceptance
                    .BesideRows(AccSlice ? 2 * N : 2 * N + 1)) u_activate (
    .clk_i, .rst_i,
    .ac_act_i (ac_act), .act_chain_ok_i(act_chain_ok), .ac_param_i(ac_wr && ac_par),
    .cmd_flags_i (cmd_flags), .cmd_a_i(cmd_a), .cmd_b_i(cmd_b),
    .cmd_rows_i (CntW'(cmd_rows)), .cmd_hi_b_i(cmd_hi_b), .cmd_data_i(cmd_data[31:0]),
    .acc_w_valid_i (mm_acc_we), .acc_w_addr_i(mm_acc_waddr), .acc_fwd_data_i(acc_fwd_data),
    .mm_slack_i (mm_slack), .mm_flight_i(mm_flight), .mm_left_i(mm_left), .lm_rows_i(lm_rows),
    .acc_claim_o (act_acc_claim), .acc_re_o(act_acc_re), .acc_raddr_o(act_acc_raddr),
    .acc_rdata_i (acc_rdata),
    .ub_we_o (act_ub_we), .ub_waddr_o(act_ub_waddr), .ub_wdata_o(act_ub_wdata),
    .acc_we_o (act_acc_we), .acc_waddr_o(act_acc_waddr), .acc_wdata_o(act_acc_wdata),
    .act_idle_o (act_idle), .act_raw_o(act_raw), .mm_beside_act_o(mm_beside_act),
    .act_ub_lo_o (act_ub_lo), .act_ub_hi_o(act_ub_hi), .act_ub0_o(act_ub0),
    .act_rows_o (act_rows), .act_wr_o(act_wr),
    .act_done_o, .act_result_o, .params_loaded_o, .fp_loaded_o
  );

  tpu_dp_read #(.N(N), .UbRows(UbRows), .AccRows(AccRows), .UbReadPort2(UbReadPort2),
                .AccLatency(AccLatency), .Ub2Latency(Ub2Latency), .RdReg(RdReg),
                .RdChainOn(RdChainOn), .UbW(UbW)) u_read (
    .clk_i, .rst_i,
    .ac_ub_rd_i (ac_ub_rd), .ac_acc_rd_i(ac_acc_rd), .cmd_a_i(cmd_a),
    .cmd_rows_i (CntW'(cmd_rows)),
    .act_idle_i (act_idle), .act_ub0_i(act_ub0), .act_wr_i(act_wr),
    .ub_re_o (rd_ub_re), .ub_raddr_o(rd_ub_raddr), .ub_rdata_i(ub2_rdata),
    .acc_re_o (rd_acc_re), .acc_raddr_o(rd_acc_raddr), .acc_rdata_i(acc2_rdata),
    .rd_valid_o, .rd_ready_i, .rd_data_o, .rd_last_o,
    .rd_idle_o (rd_idle), .rd_held_o(rd_held), .rd_mm_ok_o(rd_mm_ok), .rd_acc_o(rd_acc),
    .rd_acc_lo_o (rd_acc_lo), .rd_acc_hi_o(rd_acc_hi)
  );

  // (a command waiting in the CmdSlice stage is in progress)
  assign idle_o = mxu_idle && act_idle && rd_idle && !rd_held && !cmd_held && !ubw_pend;
  tpu_dp_perf #(.N(N), .PerfSplit(PerfSplit)) u_perf (
    .clk_i, .rst_i, .idle_i(idle_o), .mxu_row_i(mxu_row),
    .perf_busy_o, .perf_mxu_busy_o, .perf_macs_o
  );

  // ---------------------------------------------------------------- RAMs and port muxes
  // The acceptance rules leave at most one user per port in any cycle (asserted below).
  tpu_ram #(.Width(UbW), .Depth(UbRows), .OutReg(UbLatency == 2)) u_ub (
    .clk_i, .we_i(ubw_we), .waddr_i(ubw_addr), .wdata_i(ubw_data),
    .re_i(ub_re), .raddr_i(ub_raddr), .rdata_o(ub_rdata)
  );
  if (UbReadPort2) begin : g_ub2
    tpu_ram #(.Width(UbW), .Depth(UbRows), .OutReg(Ub2Latency == 2)) u_ub2 (
      .clk_i, .we_i(ubw_we), .waddr_i(ubw_addr), .wdata_i(ubw_data),
      .re_i(ub2_re), .raddr_i(rd_ub_raddr), .rdata_o(ub2_rdata)
    );
  end else begin : g_ub1
    assign ub2_rdata = ub_rdata;
  end
  tpu_ram #(.Width(N * 32), .Depth(AccRows), .OutReg(AccLatency == 2)) u_acc (
    .clk_i, .we_i(acc_we), .waddr_i(acc_waddr), .wdata_i(acc_wdata),
    .re_i(acc_re), .raddr_i(acc_raddr), .rdata_o(acc_rdata)
  );
  if (AccReadPort2) begin : g_acc2
    tpu_ram #(.Width(N * 32), .Depth(AccRows), .OutReg(1'b0)) u_acc2 (
      .clk_i, .we_i(acc_we), .waddr_i(acc_waddr), .wdata_i(acc_wdata),
      .re_i(acc2_re), .raddr_i(rd_acc_raddr), .rdata_o(acc2_rdata)
    );
  end else begin : g_acc1
    assign acc2_rdata = acc_rdata;
  end

  always_comb begin
    // the UB write: a UB_WRITE accepted, or an ACTIVATE's result row
    ub_we    = act_ub_we;
    ub_waddr = act_ub_waddr;
    ub_wdata = act_ub_wdata;
    if (ac_wr && !ac_par) begin
      ub_we    = 1'b1;
      ub_waddr = UbAw'(cmd_a);
      ub_wdata = cmd_data;
    end

    // the UB read port: the MATMUL's alone with UbReadPort2 (tpu_dp_matmul ub_re_o), else
    // shared with UB_READ
    ub2_re = rd_ub_re;
    if (UbReadPort2) begin
      ub_re    = mm_ub_re;
      ub_raddr = mm_ub_raddr;
    end else begin
      ub_re    = mm_fire || rd_ub_re;
      ub_raddr = mm_fire ? mm_ub_raddr : rd_ub_raddr;
    end

    // The write's address and data are selected by the MATMUL's write alone (they matter only
    // when acc_we is set): with AccSlice it is a flip-flop, so the 32N data muxes have no LUT
    // in front of their select (on the ECP5 boards this was the critical path).
    acc_we    = mm_acc_we || act_acc_we;
    acc_waddr = mm_acc_we ? mm_acc_waddr : act_acc_waddr;
    acc_wdata = mm_acc_we ? mm_acc_wdata : act_acc_wdata;

    // The read address is chosen by registered state only (which engine owns the port), not
    // by the fire decisions (they reach back to rd_ready_i): no path runs from a stream's
    // handshake to the block RAM's address pins. An ACC_READ never runs beside an ACTIVATE
    // that reads the ACC (asserted below), and the address does not matter without acc_re.
    // (AccReadPort2: ACC_READ reads the copy alone)
    acc_raddr = mm_acc_claim ? mm_acc_raddr : act_acc_claim ? act_acc_raddr : rd_acc_raddr;
    acc_re    = mm_acc_claim ? mm_acc_re : act_acc_re || (rd_acc_re && !AccReadPort2);
    acc2_re   = rd_acc_re && AccReadPort2;

    // No RAM access during reset: the engine state is still random in the first reset cycle.
    if (rst_i) begin
      ub_we  = 1'b0;
      ub_re  = 1'b0;
      ub2_re = 1'b0;
      acc_we = 1'b0;
      acc_re = 1'b0;
      acc2_re = 1'b0;
    end
  end

  // The UB write at the RAMs (UbWrReg: a cycle later, from registers; the enable also off in
  // reset, as every RAM access: only one LUT after the reset then)
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

  logic unused_cmd;
  // (ub2_re, acc2_re: no UB / ACC copy without UbReadPort2 / AccReadPort2)
  assign unused_cmd = ^{cmd_hi_a, cmd_b, cmd_rows, cmd_data, ub2_re, acc2_re};

`ifndef SYNTHESIS
  // one user per RAM port
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      assert (!(mm_acc_we && act_acc_we)) else $error("tpu_datapath: ACC write clash");
      assert (!(ac_wr && !ac_par && act_ub_we)) else $error("tpu_datapath: UB write clash");
      assert (!(mm_acc_claim && (act_acc_re || (rd_acc_re && !AccReadPort2))))
        else $error("tpu_datapath: ACC read clash");
      assert (!(act_acc_claim && rd_acc_re))
        else $error("tpu_datapath: ACC_READ beside an ACTIVATE that reads the ACC");
      assert (UbReadPort2 || !(mm_fire && rd_ub_re)) else $error("tpu_datapath: UB read clash");
    end
  end
`endif
endmodule

`default_nettype wire
