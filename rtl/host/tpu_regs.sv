// tpu_regs: the BAR0 register file (docs/spec.md sections 2 and 3) behind the link's MMIO
// channels (docs/link.md: mreq in, mcpl out).
//
// MMIO: one request per cycle, in order; a read is answered on mcpl the cycle after it is
// accepted (one-entry output register; mreq_ready_o is low while that register is full and
// mcpl_ready_i is low, and in the cycle of a function reset). Writes have no answer.
// Window writes take effect at a command boundary (docs/spec.md section 5): a write to a
// WIN_* register is accepted into a one-entry hold register (wp_*; CSTS.WPEND = 1, win_pend_o)
// and applied in the first cycle with win_quiet_i (no command running or fetchable, the DMA idle:
// every access through the old window made); meanwhile reads are answered (but a read of a WIN_*
// register waits, so it sees the write) and every further write waits (mreq_ready_o low), except
// RESET, which drops the held write with everything else.
// CSTS.RDY reads 1 while the DMA still has work on the link after a stop (win_quiet_i low), so
// a host that sees RDY = 0 sees every access of the device made.
// Owns: CC, CSTS (RDY, CFS), GSTAT, INT_MASK/INT_STATUS, ERRLOG, per-queue configuration
// (writes ignored while CC.EN = 1), DMA windows (BASE/LIMIT writes ignored while VALID), MSI
// registers and the PERF counters (64-bit with the LO-read HI latch, PERF_CTRL clear).
// Ring state (SQ head, CQ tail, ACTIVE, BROKEN) lives in tpu_queue_engine and is only read here;
// doorbell writes are passed to it as db_* pulses (it checks them).
// Control outputs:
//   en_o         pulse: CC.EN 0 -> 1 while CSTS.CFS = 0 (the queue engine resets and checks its
//                rings in that cycle; RDY is 1 from the next cycle)
//   rdy_o        CSTS.RDY: engines run only while it is 1; 1 -> 0 on CC.EN 1 -> 0, a fatal
//                error (fatal_i) or RESET: every engine stops and abandons its DMA
//   func_rst_o   one-cycle pulse after a RESET_MAGIC write: resets every other block (this
//                block resets its own registers in the same cycle)
//   unmask_o     pulse: INT_MASK.MASK 1 -> 0 while INT_STATUS.CQE = 1 (one pending MSI)
// Events in: gstat_set_i (OR into GSTAT), fatal_i (CFS, RDY = 0), irq_i (INT_STATUS.CQE),
// acct_* (one finished command: PERF_CMDS/ERRORS, DMA byte counters, error log and GSTAT as
// spec 6.1), mm_valid_i (a MATMUL started: PERF_MXU_BUSY += rows, PERF_MACS += macs).
`default_nettype none

module tpu_regs #(
  parameter int unsigned N               = 16,
  parameter int unsigned UbRows          = 8192,
  parameter int unsigned AccRows         = 2048,
  parameter int unsigned Tiles           = 4,
  parameter int unsigned NumQueues       = 2,
  parameter int unsigned NumWindows      = 4,
  parameter int unsigned MaxQueueEntries = 4096,
  parameter int unsigned WatchdogUnits   = 64,
  // implemented opcodes (OPCODES register, IDENTIFY byte 24): STREAM_MATMUL is optional
  parameter logic [31:0] Opcodes         = 32'((64'd1 << tpu_pkg::OpCount) - 64'd1),
  // FEATURES (IDENTIFY byte 32): bit FeaturesBf16Lsb on a device with the bf16 mode
  parameter logic [31:0] Features        = 32'd0
) (
  input  logic                      clk_i,
  input  logic                      rst_i,
  // MMIO requests and read completions
  input  logic                      mreq_valid_i,
  output logic                      mreq_ready_o,
  input  logic                      mreq_write_i,
  input  logic [15:0]               mreq_addr_i,
  input  logic [31:0]               mreq_wdata_i,
  input  logic [7:0]                mreq_tag_i,
  output logic                      mcpl_valid_o,
  input  logic                      mcpl_ready_i,
  output logic [7:0]                mcpl_tag_o,
  output logic [31:0]               mcpl_rdata_o,
  // control
  output logic                      en_o,
  output logic                      rdy_o,
  output logic                      func_rst_o,
  output logic                      unmask_o,
  input  logic                      win_quiet_i,    // command boundary, DMA idle (see above)
  output logic                      win_pend_o,     // a window write is held
  // configuration
  output logic [NumQueues*64-1:0]   sq_base_o,
  output logic [NumQueues*64-1:0]   cq_base_o,
  output logic [NumQueues*32-1:0]   sq_size_o,
  output logic [NumQueues*32-1:0]   cq_size_o,
  output logic [NumWindows*64-1:0]  win_base_o,
  output logic [NumWindows*64-1:0]  win_limit_o,
  output logic [NumWindows*32-1:0]  win_perm_o,
  output logic [63:0]               msi_addr_o,
  output logic [31:0]               msi_data_o,
  output logic                      msi_allowed_o,  // RDY, MSI_CTRL.EN and not masked
  output logic [15:0]               timeout_units_o,
  output logic [287:0]              ident_o,        // IDENTIFY page bytes 0..35 (spec 6.10)
  // doorbells
  output logic                      db_valid_o,
  output logic                      db_cq_o,
  output logic [7:0]                db_qid_o,
  output logic [31:0]               db_value_o,
  // queue state (read-only here)
  input  logic [NumQueues*16-1:0]   q_sq_head_i,
  input  logic [NumQueues*16-1:0]   q_cq_tail_i,
  input  logic [NumQueues-1:0]      q_active_i,
  input  logic [NumQueues-1:0]      q_broken_i,
  // events
  input  logic [8:0]                gstat_set_i,
  input  logic                      fatal_i,
  input  logic                      irq_i,
  input  logic                      acct_valid_i,
  input  logic [7:0]                acct_qid_i,
  input  logic [15:0]               acct_cid_i,
  input  logic [7:0]                acct_opcode_i,
  input  logic [7:0]                acct_sc_i,
  input  logic [63:0]               acct_addr_i,
  input  logic [31:0]               acct_rd_bytes_i,
  input  logic [31:0]               acct_wr_bytes_i,
  input  logic                      mm_valid_i,
  input  logic [31:0]               mm_rows_i,
  input  logic [63:0]               mm_macs_i
);
  if (NumQueues < 1 || NumQueues > 8 || NumWindows < 1 || NumWindows > 15) begin : g_bad_cnt
    $error("tpu_regs: NumQueues must be in 1..8 and NumWindows in 1..15");
  end
  if (MaxQueueEntries < 2 || MaxQueueEntries > 65536 || WatchdogUnits > 65535) begin : g_bad_q
    $error("tpu_regs: MaxQueueEntries must be in 2..65536, WatchdogUnits below 65536");
  end

  localparam logic [15:0] QEnd = 16'(32'(tpu_pkg::RegSqBaseLo) + NumQueues * tpu_pkg::RegSqBaseLoStride);
  localparam logic [15:0] WEnd = 16'(32'(tpu_pkg::RegWinBaseLo) + NumWindows * tpu_pkg::RegWinBaseLoStride);
  localparam logic [15:0] DbEnd = 16'(32'(tpu_pkg::RegSqTailDb) + NumQueues * tpu_pkg::RegSqTailDbStride);
  localparam int unsigned NumPerf = 5;  // 64-bit counters: cycles, mxu busy, macs, dma rd, dma wr
  localparam int unsigned PerfCycles = 0, PerfMxuBusy = 1, PerfMacs = 2, PerfDmaRd = 3,
                          PerfDmaWr = 4;

  localparam logic [31:0] Hwcfg0 = 32'((N << tpu_pkg::Hwcfg0ArrayNLsb) |
                                       (Tiles << tpu_pkg::Hwcfg0FifoTilesLsb) |
                                       (NumQueues << tpu_pkg::Hwcfg0NumQueuesLsb) |
                                       (NumWindows << tpu_pkg::Hwcfg0NumWindowsLsb));
  localparam logic [31:0] Cap = 32'(((MaxQueueEntries - 1) << tpu_pkg::CapMqesLsb) |
                                    (WatchdogUnits << tpu_pkg::CapTimeoutLsb));

  // ---------------------------------------------------------------- state
  logic        cc_en_q, cc_en_d, rdy_q, rdy_d, cfs_q, cfs_d;
  logic [8:0]  gstat_q, gstat_d;
  logic        int_mask_q, int_mask_d, int_cqe_q, int_cqe_d;
  logic [31:0] errlog0_q, errlog0_d, errlog1_q, errlog1_d;
  logic [63:0] errlog_addr_q, errlog_addr_d;
  logic [63:0] msi_addr_q, msi_addr_d;
  logic [31:0] msi_data_q, msi_data_d;
  logic        msi_en_q, msi_en_d;
  logic [NumQueues*64-1:0]  sq_base_q, sq_base_d, cq_base_q, cq_base_d;
  logic [NumQueues*32-1:0]  sq_size_q, sq_size_d, cq_size_q, cq_size_d;
  logic [NumWindows*64-1:0] win_base_q, win_base_d, win_limit_q, win_limit_d;
  logic [NumWindows*32-1:0] win_perm_q, win_perm_d;
  logic [NumPerf*64-1:0]    perf_q, perf_d;
  logic [NumPerf*32-1:0]    perf_hi_q, perf_hi_d;
  logic [31:0] perf_cmds_q, perf_cmds_d, perf_errors_q, perf_errors_d;
  logic        soft_rst_q, soft_rst_d;
  logic        mcpl_valid_q, mcpl_valid_d;
  logic [7:0]  mcpl_tag_q, mcpl_tag_d;
  logic [31:0] mcpl_rdata_q, mcpl_rdata_d;
  logic        en_d, en_q, unmask_d, unmask_q;
  logic        db_valid_d, db_valid_q, db_cq_d, db_cq_q;
  logic [7:0]  db_qid_d, db_qid_q;
  logic [31:0] db_value_d, db_value_q;
  logic        wp_valid_q, wp_valid_d;  // held window write: offset, data
  logic [15:0] wp_off_q, wp_off_d;
  logic [31:0] wp_data_q, wp_data_d;

  logic        req_fire, rd_fire, wr_fire;
  logic [15:0] off;
  logic [31:0] wdata, rdata;

  assign req_fire     = mreq_valid_i && mreq_ready_o;
  assign rd_fire      = req_fire && !mreq_write_i;
  assign wr_fire      = req_fire && mreq_write_i;
  assign off          = mreq_addr_i;
  assign wdata        = mreq_wdata_i;

  assign mcpl_valid_o   = mcpl_valid_q;
  assign mcpl_tag_o     = mcpl_tag_q;
  assign mcpl_rdata_o   = mcpl_rdata_q;
  assign en_o           = en_q;
  assign rdy_o          = rdy_q;
  assign func_rst_o     = soft_rst_q;
  assign unmask_o       = unmask_q;
  assign win_pend_o     = wp_valid_q;
  assign sq_base_o      = sq_base_q;
  assign cq_base_o      = cq_base_q;
  assign sq_size_o      = sq_size_q;
  assign cq_size_o      = cq_size_q;
  assign win_base_o     = win_base_q;
  assign win_limit_o    = win_limit_q;
  assign win_perm_o     = win_perm_q;
  assign msi_addr_o     = msi_addr_q;
  assign msi_data_o     = msi_data_q;
  assign msi_allowed_o  = rdy_q && msi_en_q && !int_mask_q;
  assign timeout_units_o = 16'(WatchdogUnits);
  assign ident_o = {Features, tpu_pkg::KNoOverflow, Opcodes, Cap,
                    32'(AccRows), 32'(UbRows), Hwcfg0, tpu_pkg::VersionWord, tpu_pkg::IdMagic};
  assign db_valid_o     = db_valid_q;
  assign db_cq_o        = db_cq_q;
  assign db_qid_o       = db_qid_q;
  assign db_value_o     = db_value_q;

  // ---------------------------------------------------------------- address decode helpers
  logic        in_q, in_w, in_db, in_perf;
  logic [15:0] q_rel, w_rel, db_rel;
  logic [15:0] q_idx, w_idx, wp_idx;
  logic [7:0]  db_idx;
  logic [15:0] q_reg, w_reg, db_reg, wp_rel, wp_reg;
  always_comb begin
    in_q    = off >= tpu_pkg::RegSqBaseLo && off < QEnd;
    in_w    = off >= tpu_pkg::RegWinBaseLo && off < WEnd;
    in_db   = off >= tpu_pkg::RegSqTailDb && off < DbEnd;
    in_perf = off >= tpu_pkg::RegPerfCyclesLo && off <= tpu_pkg::RegPerfDmaWrHi;
    q_rel   = off - tpu_pkg::RegSqBaseLo;
    w_rel   = off - tpu_pkg::RegWinBaseLo;
    db_rel  = off - tpu_pkg::RegSqTailDb;
    q_idx   = q_rel / tpu_pkg::RegSqBaseLoStride;
    w_idx   = w_rel / tpu_pkg::RegWinBaseLoStride;
    db_idx  = 8'(db_rel / tpu_pkg::RegSqTailDbStride);
    q_reg   = q_rel % tpu_pkg::RegSqBaseLoStride + tpu_pkg::RegSqBaseLo;  // as queue 0's offset
    w_reg   = w_rel % tpu_pkg::RegWinBaseLoStride + tpu_pkg::RegWinBaseLo;
    db_reg  = db_rel % tpu_pkg::RegSqTailDbStride + tpu_pkg::RegSqTailDb;
    // the held window write
    wp_rel  = wp_off_q - tpu_pkg::RegWinBaseLo;
    wp_idx  = wp_rel / tpu_pkg::RegWinBaseLoStride;
    wp_reg  = wp_rel % tpu_pkg::RegWinBaseLoStride + tpu_pkg::RegWinBaseLo;
  end

  // (while a window write is held: every write but RESET waits, and so does a read of a window
  // register, so that it returns what was written; other reads are answered)
  assign mreq_ready_o = (!mcpl_valid_q || mcpl_ready_i) && !soft_rst_q &&
                        !(wp_valid_q && (mreq_write_i ? mreq_addr_i != tpu_pkg::RegReset : in_w));

  // ---------------------------------------------------------------- read mux
  always_comb begin
    logic [2:0] pid;
    rdata = 32'd0;
    pid   = 3'((off - tpu_pkg::RegPerfCyclesLo) >> 3);
    if (off[1:0] != 2'b00) begin
      rdata = 32'd0;
    end else if (in_q) begin
      unique case (q_reg)
        tpu_pkg::RegSqBaseLo: rdata = sq_base_q[64*q_idx +: 32];
        tpu_pkg::RegSqBaseHi: rdata = sq_base_q[64*q_idx + 32 +: 32];
        tpu_pkg::RegSqSize:   rdata = sq_size_q[32*q_idx +: 32];
        tpu_pkg::RegCqBaseLo: rdata = cq_base_q[64*q_idx +: 32];
        tpu_pkg::RegCqBaseHi: rdata = cq_base_q[64*q_idx + 32 +: 32];
        tpu_pkg::RegCqSize:   rdata = cq_size_q[32*q_idx +: 32];
        tpu_pkg::RegQStatus: begin
          rdata = 32'(q_sq_head_i[16*q_idx +: 16]) << tpu_pkg::QStatusSqHeadLsb;
          rdata[tpu_pkg::QStatusActiveLsb] = |(q_active_i & (NumQueues'(1) << q_idx));
          rdata[tpu_pkg::QStatusBrokenLsb] = |(q_broken_i & (NumQueues'(1) << q_idx));
        end
        tpu_pkg::RegQCqTail:  rdata = 32'(q_cq_tail_i[16*q_idx +: 16]);
        default:              rdata = 32'd0;
      endcase
    end else if (in_w) begin
      unique case (w_reg)
        tpu_pkg::RegWinBaseLo:  rdata = win_base_q[64*w_idx +: 32];
        tpu_pkg::RegWinBaseHi:  rdata = win_base_q[64*w_idx + 32 +: 32];
        tpu_pkg::RegWinLimitLo: rdata = win_limit_q[64*w_idx +: 32];
        tpu_pkg::RegWinLimitHi: rdata = win_limit_q[64*w_idx + 32 +: 32];
        tpu_pkg::RegWinPerm:    rdata = win_perm_q[32*w_idx +: 32];
        default:                rdata = 32'd0;
      endcase
    end else if (in_perf) begin
      rdata = off[2] ? perf_hi_q[32*pid +: 32] : perf_q[64*pid +: 32];
    end else begin
      unique case (off)
        tpu_pkg::RegId:           rdata = tpu_pkg::IdMagic;
        tpu_pkg::RegVersion:      rdata = tpu_pkg::VersionWord;
        tpu_pkg::RegHwcfg0:       rdata = Hwcfg0;
        tpu_pkg::RegHwcfg1:       rdata = 32'(UbRows);
        tpu_pkg::RegHwcfg2:       rdata = 32'(AccRows);
        tpu_pkg::RegCap:          rdata = Cap;
        tpu_pkg::RegOpcodes:      rdata = Opcodes;
        tpu_pkg::RegFeatures:     rdata = Features;
        tpu_pkg::RegCc:           rdata = 32'(cc_en_q) << tpu_pkg::CcEnLsb;
        tpu_pkg::RegCsts:         rdata = (32'(rdy_q || !win_quiet_i) << tpu_pkg::CstsRdyLsb) |
                                          (32'(cfs_q) << tpu_pkg::CstsCfsLsb) |
                                          (32'(wp_valid_q) << tpu_pkg::CstsWpendLsb);
        tpu_pkg::RegGstat:        rdata = 32'(gstat_q);
        tpu_pkg::RegIntMask:      rdata = 32'(int_mask_q) << tpu_pkg::IntMaskMaskLsb;
        tpu_pkg::RegIntStatus:    rdata = 32'(int_cqe_q) << tpu_pkg::IntStatusCqeLsb;
        tpu_pkg::RegErrlog0:      rdata = errlog0_q;
        tpu_pkg::RegErrlog1:      rdata = errlog1_q;
        tpu_pkg::RegErrlogAddrLo: rdata = errlog_addr_q[31:0];
        tpu_pkg::RegErrlogAddrHi: rdata = errlog_addr_q[63:32];
        tpu_pkg::RegMsiAddrLo:    rdata = msi_addr_q[31:0];
        tpu_pkg::RegMsiAddrHi:    rdata = msi_addr_q[63:32];
        tpu_pkg::RegMsiData:      rdata = msi_data_q;
        tpu_pkg::RegMsiCtrl:      rdata = 32'(msi_en_q) << tpu_pkg::MsiCtrlEnLsb;
        tpu_pkg::RegPerfCmds:     rdata = perf_cmds_q;
        tpu_pkg::RegPerfErrors:   rdata = perf_errors_q;
        default:                  rdata = 32'd0;
      endcase
    end
  end

  // ---------------------------------------------------------------- next state
  always_comb begin
    logic [2:0]  pid;
    logic [15:0] count;
    logic        aligned;
    pid     = 3'((off - tpu_pkg::RegPerfCyclesLo) >> 3);
    aligned = off[1:0] == 2'b00;

    cc_en_d = cc_en_q;  rdy_d = rdy_q;  cfs_d = cfs_q;
    gstat_d = gstat_q | gstat_set_i;
    int_mask_d = int_mask_q;  int_cqe_d = int_cqe_q || irq_i;
    errlog0_d = errlog0_q;  errlog1_d = errlog1_q;  errlog_addr_d = errlog_addr_q;
    msi_addr_d = msi_addr_q;  msi_data_d = msi_data_q;  msi_en_d = msi_en_q;
    sq_base_d = sq_base_q;  cq_base_d = cq_base_q;  sq_size_d = sq_size_q;  cq_size_d = cq_size_q;
    win_base_d = win_base_q;  win_limit_d = win_limit_q;  win_perm_d = win_perm_q;
    perf_d = perf_q;  perf_hi_d = perf_hi_q;
    perf_cmds_d = perf_cmds_q;  perf_errors_d = perf_errors_q;
    soft_rst_d = 1'b0;
    mcpl_valid_d = mcpl_valid_q && !mcpl_ready_i;
    mcpl_tag_d = mcpl_tag_q;  mcpl_rdata_d = mcpl_rdata_q;
    en_d = 1'b0;  unmask_d = 1'b0;
    db_valid_d = 1'b0;  db_cq_d = db_cq_q;  db_qid_d = db_qid_q;  db_value_d = db_value_q;
    wp_valid_d = wp_valid_q;  wp_off_d = wp_off_q;  wp_data_d = wp_data_q;
    count = errlog1_q[tpu_pkg::Errlog1CountLsb +: 16];

    // ---- events from the engines
    if (rdy_q) perf_d[64*PerfCycles +: 64] = perf_q[64*PerfCycles +: 64] + 64'd1;
    if (fatal_i) begin
      cfs_d = 1'b1;
      rdy_d = 1'b0;
    end
    if (mm_valid_i) begin
      perf_d[64*PerfMxuBusy +: 64] = perf_q[64*PerfMxuBusy +: 64] + 64'(mm_rows_i);
      perf_d[64*PerfMacs +: 64]    = perf_q[64*PerfMacs +: 64] + mm_macs_i;
    end
    if (acct_valid_i) begin
      perf_cmds_d = perf_cmds_q + 32'd1;
      perf_d[64*PerfDmaRd +: 64] = perf_q[64*PerfDmaRd +: 64] + 64'(acct_rd_bytes_i);
      perf_d[64*PerfDmaWr +: 64] = perf_q[64*PerfDmaWr +: 64] + 64'(acct_wr_bytes_i);
      if (acct_sc_i != tpu_pkg::ScSuccess) begin
        perf_errors_d = perf_errors_q + 32'd1;
        errlog0_d = (32'(acct_cid_i) << tpu_pkg::Errlog0CidLsb) |
                    (32'(acct_opcode_i) << tpu_pkg::Errlog0OpcodeLsb) |
                    (32'(acct_qid_i) << tpu_pkg::Errlog0QidLsb);
        if (count != 16'hFFFF) count = count + 16'd1;
        errlog1_d = (32'(acct_sc_i) << tpu_pkg::Errlog1ScLsb) |
                    (32'(count) << tpu_pkg::Errlog1CountLsb);
        gstat_d[tpu_pkg::GstatCmdErrorLsb] = 1'b1;
        errlog_addr_d = 64'd0;
        if (acct_sc_i == tpu_pkg::ScDmaAccessViolation) begin
          gstat_d[tpu_pkg::GstatDmaViolationLsb] = 1'b1;
          errlog_addr_d = acct_addr_i;
        end else if (acct_sc_i == tpu_pkg::ScDmaXferError) begin
          gstat_d[tpu_pkg::GstatDmaXferErrLsb] = 1'b1;
          errlog_addr_d = acct_addr_i;
        end else if (acct_sc_i == tpu_pkg::ScCmdTimeout) begin
          gstat_d[tpu_pkg::GstatWatchdogLsb] = 1'b1;
        end
      end
    end

    // ---- the held window write, at a command boundary (no other write is accepted meanwhile)
    if (wp_valid_q && win_quiet_i) begin
      wp_valid_d = 1'b0;
      if (wp_reg == tpu_pkg::RegWinPerm) begin
        win_perm_d[32*wp_idx +: 32] = wp_data_q & ((32'd1 << tpu_pkg::WinPermRLsb) |
                                                   (32'd1 << tpu_pkg::WinPermWLsb) |
                                                   (32'd1 << tpu_pkg::WinPermValidLsb));
      end else if (!win_perm_q[32*wp_idx + tpu_pkg::WinPermValidLsb]) begin
        unique case (wp_reg)
          tpu_pkg::RegWinBaseLo:  win_base_d[64*wp_idx +: 32]       = wp_data_q;
          tpu_pkg::RegWinBaseHi:  win_base_d[64*wp_idx + 32 +: 32]  = wp_data_q;
          tpu_pkg::RegWinLimitLo: win_limit_d[64*wp_idx +: 32]      = wp_data_q;
          tpu_pkg::RegWinLimitHi: win_limit_d[64*wp_idx + 32 +: 32] = wp_data_q;
          default: ;
        endcase
      end
    end

    // ---- MMIO read
    if (rd_fire) begin
      mcpl_valid_d = 1'b1;
      mcpl_tag_d   = mreq_tag_i;
      mcpl_rdata_d = rdata;
      if (aligned && in_perf && !off[2]) perf_hi_d[32*pid +: 32] = perf_q[64*pid + 32 +: 32];
    end

    // ---- MMIO write
    if (wr_fire && aligned) begin
      if (in_q) begin
        if (!cc_en_q) begin
          unique case (q_reg)
            tpu_pkg::RegSqBaseLo: sq_base_d[64*q_idx +: 32]      = wdata;
            tpu_pkg::RegSqBaseHi: sq_base_d[64*q_idx + 32 +: 32] = wdata;
            tpu_pkg::RegSqSize:   sq_size_d[32*q_idx +: 32]      = wdata;
            tpu_pkg::RegCqBaseLo: cq_base_d[64*q_idx +: 32]      = wdata;
            tpu_pkg::RegCqBaseHi: cq_base_d[64*q_idx + 32 +: 32] = wdata;
            tpu_pkg::RegCqSize:   cq_size_d[32*q_idx +: 32]      = wdata;
            default: ;
          endcase
        end
      end else if (in_w) begin
        wp_valid_d = 1'b1;  // applied at the next command boundary (above)
        wp_off_d   = off;
        wp_data_d  = wdata;
      end else if (in_db) begin
        if (db_reg == tpu_pkg::RegSqTailDb || db_reg == tpu_pkg::RegCqHeadDb) begin
          db_valid_d = 1'b1;
          db_cq_d    = db_reg == tpu_pkg::RegCqHeadDb;
          db_qid_d   = db_idx;
          db_value_d = wdata;
        end
      end else begin
        unique case (off)
          tpu_pkg::RegCc: begin
            cc_en_d = wdata[tpu_pkg::CcEnLsb];
            if (wdata[tpu_pkg::CcEnLsb] && !cc_en_q && !cfs_q && !fatal_i) begin
              en_d  = 1'b1;
              rdy_d = 1'b1;
            end else if (!wdata[tpu_pkg::CcEnLsb] && cc_en_q) begin
              rdy_d = 1'b0;
            end
          end
          tpu_pkg::RegReset:     if (wdata == tpu_pkg::ResetMagic) soft_rst_d = 1'b1;
          tpu_pkg::RegGstat:     gstat_d = gstat_d & ~wdata[8:0];
          tpu_pkg::RegIntMask: begin
            int_mask_d = wdata[tpu_pkg::IntMaskMaskLsb];
            if (int_mask_q && !int_mask_d && int_cqe_q) unmask_d = 1'b1;
          end
          tpu_pkg::RegIntStatus: if (wdata[tpu_pkg::IntStatusCqeLsb]) int_cqe_d = irq_i;
          tpu_pkg::RegErrlog1:   errlog1_d[tpu_pkg::Errlog1CountLsb +: 16] = 16'd0;
          tpu_pkg::RegMsiAddrLo: msi_addr_d[31:0]  = wdata;
          tpu_pkg::RegMsiAddrHi: msi_addr_d[63:32] = wdata;
          tpu_pkg::RegMsiData:   msi_data_d = wdata;
          tpu_pkg::RegMsiCtrl:   msi_en_d = wdata[tpu_pkg::MsiCtrlEnLsb];
          tpu_pkg::RegPerfCtrl: begin
            if (wdata[0]) begin
              perf_d = '0;
              perf_cmds_d = 32'd0;
              perf_errors_d = 32'd0;
            end
          end
          default: ;
        endcase
      end
    end
  end

  // ---------------------------------------------------------------- registers
  // Everything here is control state (the register file itself), reset by rst_i and by RESET;
  // the MMIO completion register only by rst_i so a read answered before RESET is not lost.
  always_ff @(posedge clk_i) begin
    if (rst_i || soft_rst_q) begin
      cc_en_q <= 1'b0;  rdy_q <= 1'b0;  cfs_q <= 1'b0;
      gstat_q <= '0;  int_mask_q <= 1'b0;  int_cqe_q <= 1'b0;
      errlog0_q <= '0;  errlog1_q <= '0;  errlog_addr_q <= '0;
      msi_addr_q <= '0;  msi_data_q <= '0;  msi_en_q <= 1'b0;
      sq_base_q <= '0;  cq_base_q <= '0;  sq_size_q <= '0;  cq_size_q <= '0;
      win_base_q <= '0;  win_limit_q <= '0;  win_perm_q <= '0;
      perf_q <= '0;  perf_hi_q <= '0;  perf_cmds_q <= '0;  perf_errors_q <= '0;
      en_q <= 1'b0;  unmask_q <= 1'b0;  db_valid_q <= 1'b0;  wp_valid_q <= 1'b0;
    end else begin
      cc_en_q <= cc_en_d;  rdy_q <= rdy_d;  cfs_q <= cfs_d;
      gstat_q <= gstat_d;  int_mask_q <= int_mask_d;  int_cqe_q <= int_cqe_d;
      errlog0_q <= errlog0_d;  errlog1_q <= errlog1_d;  errlog_addr_q <= errlog_addr_d;
      msi_addr_q <= msi_addr_d;  msi_data_q <= msi_data_d;  msi_en_q <= msi_en_d;
      sq_base_q <= sq_base_d;  cq_base_q <= cq_base_d;  sq_size_q <= sq_size_d;
      cq_size_q <= cq_size_d;
      win_base_q <= win_base_d;  win_limit_q <= win_limit_d;  win_perm_q <= win_perm_d;
      perf_q <= perf_d;  perf_hi_q <= perf_hi_d;
      perf_cmds_q <= perf_cmds_d;  perf_errors_q <= perf_errors_d;
      en_q <= en_d;  unmask_q <= unmask_d;  db_valid_q <= db_valid_d;  wp_valid_q <= wp_valid_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      soft_rst_q   <= 1'b0;
      mcpl_valid_q <= 1'b0;
    end else begin
      soft_rst_q   <= soft_rst_d;
      mcpl_valid_q <= mcpl_valid_d;
    end
  end

  always_ff @(posedge clk_i) begin
    mcpl_tag_q   <= mcpl_tag_d;
    mcpl_rdata_q <= mcpl_rdata_d;
    db_cq_q      <= db_cq_d;
    db_qid_q     <= db_qid_d;
    db_value_q   <= db_value_d;
    wp_off_q     <= wp_off_d;
    wp_data_q    <= wp_data_d;
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i && $past(!rst_i) && $past(mcpl_valid_o && !mcpl_ready_i)) begin
      assert (mcpl_valid_o && mcpl_tag_o == $past(mcpl_tag_o) &&
              mcpl_rdata_o == $past(mcpl_rdata_o))
        else $error("tpu_regs: mcpl beat changed while stalled");
    end
  end
`endif
endmodule
