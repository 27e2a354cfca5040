// tpu_device: the whole device behind the link (docs/link.md, docs/device.md): BAR0 registers
// (tpu_regs), queue engine (tpu_queue_engine), command processor (tpu_cmd_proc), DMA engines
// (tpu_dma) with the window checkers (tpu_win_check) and the datapath (tpu_datapath).
//
// Ports (exact names, see docs/link.md "Device top ports"):
//   clk_i, rst_i (synchronous, active high)
//   dreq  device -> host:  dreq_valid_o, dreq_ready_i, dreq_kind_o[1:0], dreq_tag_o[7:0],
//                          dreq_len_o[12:0], dreq_addr_o[63:0], dreq_data_o[LinkBytes*8-1:0],
//                          dreq_last_o
//   hcpl  host -> device:  hcpl_valid_i, hcpl_ready_o (always 1), hcpl_tag_i[7:0],
//                          hcpl_status_i[1:0], hcpl_data_i[LinkBytes*8-1:0], hcpl_last_i
//   mreq  host -> device:  mreq_valid_i, mreq_ready_o, mreq_write_i, mreq_addr_i[15:0],
//                          mreq_wdata_i[31:0], mreq_tag_i[7:0]
//   mcpl  device -> host:  mcpl_valid_o, mcpl_ready_i, mcpl_tag_o[7:0], mcpl_rdata_o[31:0]
// WatchdogUnits is CAP.TIMEOUT (units of 1024 cycles; 64 like the golden model). RESET
// (RESET_MAGIC) resets every block but the register file's MMIO completion register.
// Host interface size options for small FPGAs (defaults: everything on, as docs/device.md):
//   SqePrefetch 0: no SQE prefetch (tpu_queue_engine PfEntries = 0): each SQE is fetched when
//               its queue is picked, so the LOAD_WEIGHTS read-ahead never finds a candidate
//   ReadAhead   0: no LOAD_WEIGHTS / LOAD_PARAMS read-ahead logic and no READ_HOST background
//               commit (tpu_cmd_proc); write jobs of max(4N, 64) bytes
//   LutStage    1: LOAD_PARAMS LUT as a row stream through the staging ring (tpu_cmd_proc), so
//               read jobs (RdBytes, the DMA's reassembly buffer) shrink from 256 bytes to
//               max(4N, 64)
//   SpanSerial  1: CHECK1's (ROWS - 1) x stride product by a shift-add multiplier (tpu_cmd_proc;
//               up to 33 more cycles per command) instead of a 32 x 32 multiplier
// None of them changes a status, a completion or a memory effect, only timing.
// RegSlices 1: register slices for FPGA clock rates (the board top sets it): a skid buffer
//             (tpu_skid) on the command processor -> datapath command stream, so the
//             datapath's command acceptance (range compares) no longer runs combinationally
//             into the command processor and on into the DMA; and the MATMUL PERF update
//             (mm_valid/rows/macs: a product) reaches tpu_regs one cycle later. Each datapath
//             command starts one cycle later (the slice still moves one per cycle); statuses,
//             completions and memory effects are unchanged (the datapath takes commands in
//             order, and the command processor sees the datapath idle only once the slice is
//             empty).
// Bf16 1: the bf16 x bf16 -> fp32 mode (docs/spec.md 6.12; FEATURES.BF16): UB rows of 2N bytes
//             through the row streams, the read-aheads, the staging RAM and the datapath;
//             needs StreamMm = 0 (tpu_cmd_proc) and a datapath without AccSlice; the datapath's
//             ACC copy for ACC_READ (AccReadPort2), so the fp32 write-back runs beside MATMULs.
// Round 1: the SINGLE and FLOAT requantization roundings (docs/spec.md 7, FEATURES.ROUND) in
//             the pipelined activation (ActLanes = N; ignored with the serial one). Every
//             simulated device has it (rtl/profiles.toml); it costs about 2.8 k LUT4 a channel.
`default_nettype none

module tpu_device #(
  parameter int unsigned N                = 16,
  parameter int unsigned UbRows           = 8192,
  parameter int unsigned AccRows          = 2048,
  parameter int unsigned Tiles            = 4,
  parameter int unsigned NumQueues        = 2,
  parameter int unsigned NumWindows       = 4,
  parameter int unsigned MaxQueueEntries  = 4096,
  parameter int unsigned LinkBytes        = 32,
  parameter int unsigned MaxPayload       = 256,
  parameter int unsigned MaxReadReq       = 512,
  parameter int unsigned Tags             = 32,
  parameter int unsigned CplTimeoutCycles = 4096,
  parameter int unsigned WatchdogUnits    = 64,
  parameter int unsigned StageRows        = 256,
  parameter int unsigned PrefetchSqes     = 8,     // SQEs per prefetch read job (>= 2)
  parameter int unsigned ReadAheadTiles   = 4,     // LOAD_WEIGHTS read-ahead queue (power of 2)
  parameter int unsigned ActLanes         = N,     // tpu_datapath: activation channels at once
  parameter bit          UbReadPort2      = 1'b1,  // tpu_datapath: UB copy for UB_READ
  parameter bit          SqePrefetch      = 1'b1,  // size options: see above
  parameter bit          ReadAhead        = 1'b1,
  parameter bit          LutStage         = 1'b0,
  parameter bit          SpanSerial       = 1'b0,
  parameter bit          RegSlices        = 1'b0,
  parameter bit          StreamMm         = 1'b1,  // STREAM_MATMUL (tpu_cmd_proc; OPCODES bit 9)
  parameter int unsigned RhDepth          = 2,     // tpu_cmd_proc: READ_HOSTs read ahead (1, 2)
  parameter bit          Bf16             = 1'b0,  // the bf16 mode (above)
  // the SINGLE and FLOAT requantization roundings (FEATURES.ROUND; the pipelined activation
  // only, ActLanes = N): LOAD_PARAMS OUTPUT's OP0.ROUND 1 and 2
  parameter bit          Round            = 1'b0
) (
  input  logic                   clk_i,
  input  logic                   rst_i,
  output logic                   dreq_valid_o,
  input  logic                   dreq_ready_i,
  output logic [1:0]             dreq_kind_o,
  output logic [7:0]             dreq_tag_o,
  output logic [12:0]            dreq_len_o,
  output logic [63:0]            dreq_addr_o,
  output logic [LinkBytes*8-1:0] dreq_data_o,
  output logic                   dreq_last_o,
  input  logic                   hcpl_valid_i,
  output logic                   hcpl_ready_o,
  input  logic [7:0]             hcpl_tag_i,
  input  logic [1:0]             hcpl_status_i,
  input  logic [LinkBytes*8-1:0] hcpl_data_i,
  input  logic                   hcpl_last_i,
  input  logic                   mreq_valid_i,
  output logic                   mreq_ready_o,
  input  logic                   mreq_write_i,
  input  logic [15:0]            mreq_addr_i,
  input  logic [31:0]            mreq_wdata_i,
  input  logic [7:0]             mreq_tag_i,
  output logic                   mcpl_valid_o,
  input  logic                   mcpl_ready_i,
  output logic [7:0]             mcpl_tag_o,
  output logic [31:0]            mcpl_rdata_o
);
  // DMA job sizes: a read job holds a block of PrefetchSqes SQEs (the queue engine's prefetch:
  // one job per round trip, so the block size bounds the command rate at about PrefetchSqes
  // per ~130 cycles; one SQE without SqePrefetch), a parameter vector (4N) or the LUT (unless
  // LutStage); a write job a CQE, an ACC row (4N) or an IDENTIFY chunk (64), and with
  // ReadAhead (the performance build) MaxPayload bytes of packed WRITE_HOST rows: one MWR header
  // per 256 bytes instead of per 64 (1.06 instead of 1.25 link cycles per 16-byte row)
  localparam bit          RoundOn  = Round && ActLanes >= N;  // (the serial activation has none)
  localparam int unsigned PfSqes   = SqePrefetch ? PrefetchSqes : 0;
  localparam int unsigned RdPf     = SqePrefetch ? PrefetchSqes * tpu_pkg::SqeBytes : tpu_pkg::SqeBytes;
  localparam int unsigned RdMin    = LutStage ? tpu_pkg::SqeBytes : tpu_pkg::LutEntries;
  localparam int unsigned RdBytesP = (4 * N > RdMin) ? 4 * N : RdMin;
  localparam int unsigned RdBytes  = (RdPf > RdBytesP) ? RdPf : RdBytesP;
  localparam int unsigned WrMin    = (ReadAhead && MaxPayload > 64) ? MaxPayload : 64;
  localparam int unsigned WrBytes  = (4 * N > WrMin) ? 4 * N : WrMin;
  localparam int unsigned MaxJob   = RdBytes > WrBytes ? RdBytes : WrBytes;
  localparam int unsigned LenW     = $clog2(MaxJob + 1);
  localparam int unsigned RB       = Bf16 ? 2 * N : N;  // UB row bytes
  localparam int unsigned CmdWidth = tpu_pkg::DpCmdDataLsb + 8 * RB;
  localparam int unsigned TileBits = $clog2(Tiles + 2);

  logic dev_rst, func_rst, en, rdy, unmask, msi_allowed, msi_win_ok, chk_ok;
  // window writes take effect at a command boundary (docs/spec.md section 5): tpu_regs holds
  // one until the queue engine has no command running or fetchable and the DMA is idle; while
  // it is held no read-ahead starts (pk_ok, pa_ok), so none can use the old window afterwards
  logic win_pend, qe_quiet, dma_idle;
  assign dev_rst = rst_i || func_rst;

  // ---------------------------------------------------------------- registers
  logic [NumQueues*64-1:0]  sq_base, cq_base;
  logic [NumQueues*32-1:0]  sq_size, cq_size;
  logic [NumWindows*64-1:0] win_base, win_limit;
  logic [NumWindows*32-1:0] win_perm;
  logic [63:0]  msi_addr;
  logic [31:0]  msi_data;
  logic [15:0]  timeout_units;
  logic [287:0] ident;
  logic         db_valid, db_cq;
  logic [7:0]   db_qid;
  logic [31:0]  db_value;
  logic [NumQueues*16-1:0] q_sq_head, q_cq_tail;
  logic [NumQueues-1:0]    q_active, q_broken;
  logic [8:0]   gstat_set;
  logic         fatal, irq;
  logic         acct_valid;
  logic [7:0]   acct_qid, acct_opcode, acct_sc;
  logic [15:0]  acct_cid;
  logic [63:0]  acct_addr;
  logic [31:0]  acct_rd_bytes, acct_wr_bytes;
  logic         mm_valid, mm_valid_s;
  logic [31:0]  mm_rows_s;
  logic [63:0]  mm_macs_s;
  logic [31:0]  mm_rows;
  logic [63:0]  mm_macs;

  tpu_regs #(
    .N(N), .UbRows(UbRows), .AccRows(AccRows), .Tiles(Tiles), .NumQueues(NumQueues),
    .NumWindows(NumWindows), .MaxQueueEntries(MaxQueueEntries), .WatchdogUnits(WatchdogUnits),
    .Opcodes(32'((64'd1 << tpu_pkg::OpCount) - 64'd1) &
             ~(StreamMm ? 32'd0 : 32'd1 << tpu_pkg::OpStreamMatmul)),
    .Features((Bf16 ? 32'd1 << tpu_pkg::FeaturesBf16Lsb : 32'd0) |
              (RoundOn ? 32'd1 << tpu_pkg::FeaturesRoundLsb : 32'd0))
  ) u_regs (
    .clk_i, .rst_i,
    .mreq_valid_i, .mreq_ready_o, .mreq_write_i, .mreq_addr_i, .mreq_wdata_i, .mreq_tag_i,
    .mcpl_valid_o, .mcpl_ready_i, .mcpl_tag_o, .mcpl_rdata_o,
    .en_o(en), .rdy_o(rdy), .func_rst_o(func_rst), .unmask_o(unmask),
    .win_quiet_i(qe_quiet && dma_idle), .win_pend_o(win_pend),
    .sq_base_o(sq_base), .cq_base_o(cq_base), .sq_size_o(sq_size), .cq_size_o(cq_size),
    .win_base_o(win_base), .win_limit_o(win_limit), .win_perm_o(win_perm),
    .msi_addr_o(msi_addr), .msi_data_o(msi_data), .msi_allowed_o(msi_allowed),
    .timeout_units_o(timeout_units), .ident_o(ident),
    .db_valid_o(db_valid), .db_cq_o(db_cq), .db_qid_o(db_qid), .db_value_o(db_value),
    .q_sq_head_i(q_sq_head), .q_cq_tail_i(q_cq_tail), .q_active_i(q_active),
    .q_broken_i(q_broken),
    .gstat_set_i(gstat_set), .fatal_i(fatal), .irq_i(irq),
    .acct_valid_i(acct_valid), .acct_qid_i(acct_qid), .acct_cid_i(acct_cid),
    .acct_opcode_i(acct_opcode), .acct_sc_i(acct_sc), .acct_addr_i(acct_addr),
    .acct_rd_bytes_i(acct_rd_bytes), .acct_wr_bytes_i(acct_wr_bytes),
    .mm_valid_i(mm_valid_s), .mm_rows_i(mm_rows_s), .mm_macs_i(mm_macs_s)
  );

  // RegSlices: the MATMUL PERF update one cycle later (cuts the product -> PERF adder path)
  tpu_delay #(.Width(97), .Depth(RegSlices ? 1 : 0), .ResetEn(1'b1)) u_mm_slice (
    .clk_i, .rst_i, .d_i({mm_valid, mm_rows, mm_macs}), .q_o({mm_valid_s, mm_rows_s, mm_macs_s})
  );

  // ---------------------------------------------------------------- DMA and its two users
  logic                 rd_req_valid, rd_req_ready, rd_done, rd_err;
  logic [63:0]          rd_req_addr;
  logic [LenW-1:0]      rd_req_len;
  logic [RdBytes*8-1:0] rd_buf;
  // row streams (READ_HOST / LOAD_WEIGHTS rows, command processor only); RowSlots rows in
  // flight: at least as many as tags, and 2 KiB of packed rows (merged into MRDs of up to
  // MaxReadReq bytes), which covers a read round trip (~105 cycles at 16 bytes per cycle), but
  // at most 4 x Tags (small-N builds with few tags stay small)
  localparam int unsigned RowSlotsB   = (2048 / RB < 4 * Tags) ? 2048 / RB : 4 * Tags;
  localparam int unsigned RowSlotsMin = (Tags > RowSlotsB) ? Tags : RowSlotsB;
  localparam int unsigned RowSlots = 1 << $clog2(RowSlotsMin < 2 ? 2 : RowSlotsMin);
  logic                 rs_req_valid, rs_req_ready, rs_row_valid, rs_err;
  logic                 rs_ext_valid, rs_ext_ready;
  logic [31:0]          rs_ext_rows;
  logic                 rs_ext_jump;
  logic [63:0]          rs_ext_addr;
  logic [63:0]          rs_req_addr, rs_req_stride;
  logic [$clog2(RB+1)-1:0] rs_req_rb;
  logic [31:0]          rs_req_rows, rs_limit;
  logic [RB*8-1:0]      rs_row_data;
  logic                 cp_rs_abort, qe_rd_ready, cp_rd_hold;
  logic                 wr_req_valid, wr_req_ready, wr_req_msi, wr_idle;
  logic [63:0]          wr_req_addr;
  logic [LenW-1:0]      wr_req_len;
  logic [WrBytes*8-1:0] wr_req_data;
  // queue engine side
  logic                 qe_rd_valid, qe_wr_valid, qe_wr_msi;
  logic [63:0]          qe_rd_addr, qe_wr_addr;
  logic [LenW-1:0]      qe_rd_len, qe_wr_len;
  logic [WrBytes*8-1:0] qe_wr_data;
  // command processor side
  logic                 cp_rd_valid, cp_wr_valid, cp_rd_abort;
  logic [63:0]          cp_rd_addr, cp_wr_addr;
  logic [LenW-1:0]      cp_rd_len, cp_wr_len;
  logic [WrBytes*8-1:0] cp_wr_data;

  // Read jobs: the queue engine fetches SQEs (and prefetches the next ones while a command runs);
  // the command processor reads parameter vectors. Only one job runs at a time; the command
  // processor wins a tie (a prefetch is only a head start) and holds the engine off while it
  // reads its job's buffer (LOAD_PARAMS); each side takes rd_done only while its own job is
  // outstanding. Writes: the queue engine posts only while the command
  // processor is idle or done; it wins a tie all the same.
  always_comb begin
    rd_req_valid = (qe_rd_valid && !cp_rd_hold) || cp_rd_valid;
    rd_req_addr  = cp_rd_valid ? cp_rd_addr : qe_rd_addr;
    rd_req_len   = cp_rd_valid ? cp_rd_len : qe_rd_len;
    qe_rd_ready  = rd_req_ready && !cp_rd_valid && !cp_rd_hold;
    wr_req_valid = qe_wr_valid || cp_wr_valid;
    wr_req_addr  = qe_wr_valid ? qe_wr_addr : cp_wr_addr;
    wr_req_len   = qe_wr_valid ? qe_wr_len : cp_wr_len;
    wr_req_msi   = qe_wr_valid && qe_wr_msi;
    wr_req_data  = qe_wr_valid ? qe_wr_data : cp_wr_data;
  end

  tpu_dma #(
    .LinkBytes(LinkBytes), .MaxPayload(MaxPayload), .MaxReadReq(MaxReadReq), .Tags(Tags),
    .CplTimeoutCycles(CplTimeoutCycles), .RdBytes(RdBytes), .WrBytes(WrBytes), .RowB(RB),
    .Slots(RowSlots), .Joint(ReadAhead)
  ) u_dma (
    .clk_i, .rst_i,
    .rd_req_valid_i(rd_req_valid), .rd_req_ready_o(rd_req_ready), .rd_req_addr_i(rd_req_addr),
    .rd_req_len_i(rd_req_len), .rd_abort_i(!rdy || cp_rd_abort || func_rst),
    .rs_abort_i(!rdy || cp_rs_abort || func_rst),
    .rd_done_o(rd_done), .rd_err_o(rd_err), .rd_buf_o(rd_buf),
    .rs_req_valid_i(rs_req_valid), .rs_req_ready_o(rs_req_ready), .rs_req_addr_i(rs_req_addr),
    .rs_req_rb_i(rs_req_rb), .rs_req_stride_i(rs_req_stride), .rs_req_rows_i(rs_req_rows), .rs_limit_i(rs_limit),
    .rs_ext_valid_i(rs_ext_valid), .rs_ext_rows_i(rs_ext_rows), .rs_ext_ready_o(rs_ext_ready),
    .rs_ext_jump_i(rs_ext_jump), .rs_ext_addr_i(rs_ext_addr),
    .rs_row_valid_o(rs_row_valid), .rs_row_data_o(rs_row_data), .rs_err_o(rs_err),
    .wr_req_valid_i(wr_req_valid), .wr_req_ready_o(wr_req_ready), .wr_req_addr_i(wr_req_addr),
    .wr_req_len_i(wr_req_len), .wr_req_msi_i(wr_req_msi), .wr_req_data_i(wr_req_data),
    .wr_abort_i(!rdy || func_rst), .wr_idle_o(wr_idle), .idle_o(dma_idle),
    .dreq_valid_o, .dreq_ready_i, .dreq_kind_o, .dreq_tag_o, .dreq_len_o, .dreq_addr_o,
    .dreq_data_o, .dreq_last_o,
    .hcpl_valid_i, .hcpl_ready_o, .hcpl_tag_i, .hcpl_status_i, .hcpl_data_i, .hcpl_last_i
  );

  tpu_win_check #(.NumWindows(NumWindows)) u_win_cmd (
    .win_base_i(win_base), .win_limit_i(win_limit), .win_perm_i(win_perm),
    .addr_i(chk_addr), .len_i(chk_len), .write_i(chk_write), .ok_o(chk_ok)
  );
  // the command processor's read-aheads (LOAD_WEIGHTS tiles: pk_*, a LOAD_PARAMS vector: pa_*):
  // readable, and clear of every completion ring and the MSI address (the only host memory
  // written between the read-ahead and the command's own start: the previous commands' CQEs
  // and MSIs)
  function automatic logic ring_clash(input logic [63:0] addr, input logic [31:0] len,
                                      input logic [63:0] msi,
                                      input logic [NumQueues*64-1:0] cqb,
                                      input logic [NumQueues*32-1:0] cqs);
    logic [64:0] e, lo, hi;
    e = {1'b0, addr} + 65'(len);
    ring_clash = {1'b0, addr} < {1'b0, msi} + 65'd4 && {1'b0, msi} < e;
    for (int unsigned q = 0; q < NumQueues; q++) begin
      lo = {1'b0, cqb[64*q +: 64]};
      hi = lo + {29'd0, cqs[32*q +: 32], 4'd0};
      if ({1'b0, addr} < hi && lo < e) ring_clash = 1'b1;
    end
  endfunction
  logic [63:0] pk_addr, pa_addr;
  logic [31:0] pk_len, pa_len;
  logic        pk_win_ok, pk_ok, pa_win_ok, pa_ok;
  if (ReadAhead) begin : g_pk_win
    tpu_win_check #(.NumWindows(NumWindows)) u_win_pk (
      .win_base_i(win_base), .win_limit_i(win_limit), .win_perm_i(win_perm),
      .addr_i(pk_addr), .len_i(pk_len), .write_i(1'b0), .ok_o(pk_win_ok)
    );
    tpu_win_check #(.NumWindows(NumWindows)) u_win_pa (
      .win_base_i(win_base), .win_limit_i(win_limit), .win_perm_i(win_perm),
      .addr_i(pa_addr), .len_i(pa_len), .write_i(1'b0), .ok_o(pa_win_ok)
    );
  end else begin : g_no_pk_win
    assign pk_win_ok = 1'b0;
    assign pa_win_ok = 1'b0;
    logic unused_pk;
    assign unused_pk = ^{pk_addr, pk_len, pa_addr, pa_len};
  end
  assign pk_ok = ReadAhead && !win_pend && pk_win_ok &&
                 !ring_clash(pk_addr, pk_len, msi_addr, cq_base, cq_size);
  assign pa_ok = ReadAhead && !win_pend && pa_win_ok &&
                 !ring_clash(pa_addr, pa_len, msi_addr, cq_base, cq_size);
  tpu_win_check #(.NumWindows(NumWindows)) u_win_msi (
    .win_base_i(win_base), .win_limit_i(win_limit), .win_perm_i(win_perm),
    .addr_i(msi_addr), .len_i(32'd4), .write_i(1'b1), .ok_o(msi_win_ok)
  );

  // ---------------------------------------------------------------- queue engine
  logic         cmd_valid, cmd_ready, cpl_valid;
  // the peek: two prefetch blocks are buffered; up to 2 x ReadAheadTiles SQEs (as many
  // LOAD_WEIGHTS ahead as the read-ahead queue holds in tpu_gemm's MATMUL / LOAD_WEIGHTS steady
  // state) are shown to the read-ahead
  localparam int unsigned PeekN = (PrefetchSqes < ReadAheadTiles) ? 2 * PrefetchSqes
                                                                  : 2 * ReadAheadTiles;
  logic [PeekN-1:0] pk_valid;
  logic [511:0] cmd_sqe;
  logic [PeekN*512-1:0] pk_sqe;
  logic [7:0]   cmd_qid, cpl_sc, pk_qid;
  logic [31:0]  cpl_result;

  tpu_queue_engine #(
    .NumQueues(NumQueues), .MaxQueueEntries(MaxQueueEntries), .WrBytes(WrBytes), .LenW(LenW),
    .RdBytes(RdBytes), .PfEntries(PfSqes), .PeekN(PeekN)
  ) u_queue (
    .clk_i, .rst_i(dev_rst), .en_i(en), .rdy_i(rdy),
    .sq_base_i(sq_base), .cq_base_i(cq_base), .sq_size_i(sq_size), .cq_size_i(cq_size),
    .db_valid_i(db_valid), .db_cq_i(db_cq), .db_qid_i(db_qid), .db_value_i(db_value),
    .msi_addr_i(msi_addr), .msi_data_i(msi_data), .msi_allowed_i(msi_allowed),
    .msi_win_ok_i(msi_win_ok), .unmask_i(unmask),
    .q_sq_head_o(q_sq_head), .q_cq_tail_o(q_cq_tail), .q_active_o(q_active),
    .q_broken_o(q_broken), .gstat_set_o(gstat_set), .fatal_o(fatal), .irq_o(irq),
    .quiet_o(qe_quiet),
    .cmd_valid_o(cmd_valid), .cmd_ready_i(cmd_ready), .cmd_sqe_o(cmd_sqe), .cmd_qid_o(cmd_qid),
    .pk_valid_o(pk_valid), .pk_sqe_o(pk_sqe), .pk_qid_o(pk_qid),
    .cpl_valid_i(cpl_valid), .cpl_sc_i(cpl_sc), .cpl_result_i(cpl_result),
    .rd_req_valid_o(qe_rd_valid), .rd_req_ready_i(qe_rd_ready), .rd_req_addr_o(qe_rd_addr),
    .rd_req_len_o(qe_rd_len), .rd_done_i(rd_done), .rd_err_i(rd_err),
    .rd_buf_i(rd_buf),
    .wr_req_valid_o(qe_wr_valid), .wr_req_ready_i(wr_req_ready), .wr_req_addr_o(qe_wr_addr),
    .wr_req_len_o(qe_wr_len), .wr_req_msi_o(qe_wr_msi), .wr_req_data_o(qe_wr_data)
  );

  // ---------------------------------------------------------------- command processor
  logic [63:0]          chk_addr;
  logic [31:0]          chk_len;
  logic                 chk_write;
  logic                 dp_valid, dp_ready, wpush_valid, wpush_ready, wpush_transpose;
  logic                 dp_mm_ok, dp_wr_ok, dp_act_chain, dp_rd_ok;
  logic [CmdWidth-1:0]  dp_cmd;
  logic [RB*8-1:0]      wpush_row;
  logic                 dp_rd_valid, dp_rd_ready, dp_rd_last, mm_done, act_done, dp_idle;
  logic [N*32-1:0]      dp_rd_data;
  logic [31:0]          act_result;

  tpu_cmd_proc #(
    .N(N), .UbRows(UbRows), .AccRows(AccRows), .Tiles(Tiles), .StageRows(StageRows),
    .RdBytes(RdBytes), .WrBytes(WrBytes), .LenW(LenW), .PeekN(PeekN), .RaT(ReadAheadTiles),
    .ReadAhead(ReadAhead), .LutStage(LutStage), .SpanSerial(SpanSerial),
    .BgBypass(ReadAhead && !RegSlices), .StreamMm(StreamMm),
    .RdChain(StreamMm && UbReadPort2 && ActLanes >= N), .RhDepth(RhDepth), .Bf16(Bf16),
    .Round(RoundOn)
  ) u_cmd (
    .clk_i, .rst_i(dev_rst), .rdy_i(rdy), .timeout_units_i(timeout_units), .ident_i(ident),
    .cmd_valid_i(cmd_valid), .cmd_ready_o(cmd_ready), .cmd_sqe_i(cmd_sqe), .cmd_qid_i(cmd_qid),
    .pk_valid_i(pk_valid), .pk_sqe_i(pk_sqe), .pk_qid_i(pk_qid),
    .pk_chk_addr_o(pk_addr), .pk_chk_len_o(pk_len), .pk_chk_ok_i(pk_ok),
    .pa_chk_addr_o(pa_addr), .pa_chk_len_o(pa_len), .pa_chk_ok_i(pa_ok),
    .cpl_valid_o(cpl_valid), .cpl_sc_o(cpl_sc), .cpl_result_o(cpl_result),
    .acct_valid_o(acct_valid), .acct_qid_o(acct_qid), .acct_cid_o(acct_cid),
    .acct_opcode_o(acct_opcode), .acct_sc_o(acct_sc), .acct_addr_o(acct_addr),
    .acct_rd_bytes_o(acct_rd_bytes), .acct_wr_bytes_o(acct_wr_bytes),
    .mm_valid_o(mm_valid), .mm_rows_o(mm_rows), .mm_macs_o(mm_macs),
    .chk_addr_o(chk_addr), .chk_len_o(chk_len), .chk_write_o(chk_write), .chk_ok_i(chk_ok),
    .rd_req_valid_o(cp_rd_valid), .rd_req_ready_i(rd_req_ready), .rd_req_addr_o(cp_rd_addr),
    .rd_req_len_o(cp_rd_len), .rd_abort_o(cp_rd_abort), .rd_hold_o(cp_rd_hold),
    .rd_done_i(rd_done), .rd_err_i(rd_err),
    .rd_buf_i(rd_buf),
    .rs_req_valid_o(rs_req_valid), .rs_req_ready_i(rs_req_ready), .rs_req_addr_o(rs_req_addr),
    .rs_req_rb_o(rs_req_rb), .rs_req_stride_o(rs_req_stride), .rs_req_rows_o(rs_req_rows), .rs_limit_o(rs_limit),
    .rs_ext_valid_o(rs_ext_valid), .rs_ext_rows_o(rs_ext_rows), .rs_ext_ready_i(rs_ext_ready),
    .rs_ext_jump_o(rs_ext_jump), .rs_ext_addr_o(rs_ext_addr),
    .rs_row_valid_i(rs_row_valid), .rs_row_data_i(rs_row_data), .rs_err_i(rs_err),
    .rs_abort_o(cp_rs_abort),
    .wr_req_valid_o(cp_wr_valid), .wr_req_ready_i(wr_req_ready), .wr_req_addr_o(cp_wr_addr),
    .wr_req_len_o(cp_wr_len), .wr_req_data_o(cp_wr_data), .wr_idle_i(wr_idle),
    .dp_valid_o(dp_valid), .dp_ready_i(dp_ready), .dp_cmd_o(dp_cmd),
    .dp_mm_ok_i(dp_mm_ok), .dp_wr_ok_i(dp_wr_ok), .dp_act_chain_i(dp_act_chain),
    .dp_rd_ok_i(dp_rd_ok),
    .wpush_valid_o(wpush_valid), .wpush_ready_i(wpush_ready), .wpush_row_o(wpush_row),
    .wpush_transpose_o(wpush_transpose),
    .dp_rd_valid_i(dp_rd_valid), .dp_rd_ready_o(dp_rd_ready), .dp_rd_data_i(dp_rd_data),
    .dp_rd_last_i(dp_rd_last), .mm_done_i(mm_done), .act_done_i(act_done),
    .act_result_i(act_result), .dp_idle_i(dp_idle)
  );

  // RegSlices: the command stream through a skid buffer; the datapath counts as idle for the
  // command processor only when the slice holds no command
  logic                dps_valid, dps_ready, dps_busy, dp_idle_raw;
  logic [CmdWidth-1:0] dps_cmd;
  tpu_skid #(.Width(CmdWidth), .Enable(RegSlices)) u_dp_slice (
    .clk_i, .rst_i(dev_rst), .in_valid_i(dp_valid), .in_ready_o(dp_ready), .in_data_i(dp_cmd),
    .out_valid_o(dps_valid), .out_ready_i(dps_ready), .out_data_o(dps_cmd), .busy_o(dps_busy)
  );
  assign dp_idle = dp_idle_raw && !dps_busy;

  // ---------------------------------------------------------------- datapath
  logic [TileBits-1:0] dp_tiles;
  logic [4:0]          dp_loaded;
  logic [1:0]          dp_fp_loaded;
  logic [63:0]         dp_perf_busy, dp_perf_mxu, dp_perf_macs;

  // (STREAM_MATMUL runs on any datapath; the datapath's overlaps for it need the pipelined
  // activation, so a device with the serial one runs it without them)
  tpu_datapath #(.N(N), .UbRows(UbRows), .AccRows(AccRows), .Tiles(Tiles),
                 .ActLanes(ActLanes), .UbReadPort2(UbReadPort2), .AccReadPort2(Bf16),
                 .StreamMm(StreamMm && ActLanes >= N), .Bf16(Bf16), .Round(RoundOn)) u_dp (
    .clk_i, .rst_i(dev_rst),
    .cmd_valid_i(dps_valid), .cmd_ready_o(dps_ready), .cmd_i(dps_cmd),
    .wpush_valid_i(wpush_valid), .wpush_ready_o(wpush_ready), .wpush_row_i(wpush_row),
    .wpush_transpose_i(wpush_transpose),
    .rd_valid_o(dp_rd_valid), .rd_ready_i(dp_rd_ready), .rd_data_o(dp_rd_data),
    .rd_last_o(dp_rd_last),
    .mm_done_o(mm_done), .act_done_o(act_done), .act_result_o(act_result), .idle_o(dp_idle_raw),
    .mm_ok_o(dp_mm_ok), .wr_ok_o(dp_wr_ok), .act_chain_o(dp_act_chain),
    .rd_ok_o(dp_rd_ok),
    .tiles_o(dp_tiles), .params_loaded_o(dp_loaded), .fp_loaded_o(dp_fp_loaded),
    .perf_busy_o(dp_perf_busy), .perf_mxu_busy_o(dp_perf_mxu), .perf_macs_o(dp_perf_macs)
  );

  // The spec's counters and state are kept by the command processor (exact, as the golden
  // model defines them); the datapath's own status outputs are not needed here.
  logic unused_dp;
  assign unused_dp = ^{dp_tiles, dp_loaded, dp_fp_loaded, dp_perf_busy, dp_perf_mxu,
                       dp_perf_macs};

`ifndef SYNTHESIS
  // dreq and mcpl stability are asserted in tpu_dma and tpu_regs; mreq/hcpl are the host's
  // (the link model checks them)
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      assert (hcpl_ready_o) else $error("tpu_device: hcpl must never be back-pressured");
    end
  end
`endif
endmodule
