// tpu_cmd_proc: the command processor. Takes one SQE at a time from the queue engine, runs the
// checks of docs/spec.md 6.1 in the spec's order (the same order and conditions as the golden
// model, sw/golden/golden_cmd.c and golden_xfer.c/golden_compute.c), executes the command on
// the DMA engine and the datapath (rtl/tpu_datapath.sv command/weight/read streams) and returns
// (status, result) on cpl_* plus the accounting of spec 6.1 on acct_* and mm_*.
//
// Pipeline: IDLE -> [FENCE wait: datapath idle and writes sent] -> CHECK1 (register row bytes,
// span = (ROWS-1) x stride + row bytes, 64-bit) -> CHECK2 (status in spec order; the window
// check is tpu_win_check outside, on chk_*) -> execute -> DONE (cpl_valid_o one cycle).
// Execution:
//   READ_HOST     one DMA row stream of all ROWS (many MRDs in flight, rows delivered in
//                 order) into a staging ring of 2 x StageRows rows (bytes COLS..N-1 zeroed),
//                 committed chunk by chunk (StageRows rows): when a chunk is complete and no
//                 MATMUL is in flight in the datapath, UB_WRITE commands commit it while the
//                 stream fills the other half (rs_limit_o holds the stream back so that it never
//                 overwrites rows not yet committed). A failed row ends the command before its
//                 chunk is committed (transfers of ROWS <= StageRows are all-or-nothing; see
//                 docs/device.md for longer ones).
//   LOAD_WEIGHTS  rows staged the same way, then N rows pushed on wpush (rows >= ROWS zero,
//                 one row per cycle).
//                 FIFO occupancy, the active tile and its K/columns (for PERF_MACS) are kept
//                 here as the spec's logical state: a POP takes effect when the MATMUL is
//                 accepted by the datapath, exactly as the golden model orders it.
//   LOAD_PARAMS   one DMA read job of the whole vector, value checks on all of it, then PARAM
//                 writes; OUTPUT is one PARAM write from the SQE.
//   MATMUL        one datapath command; completes when the datapath accepts it (its effects
//                 are ordered before every later datapath command, so the queue can run on:
//                 the next command's DMA overlaps the MXU).
//   ACTIVATE      one datapath command; completes on act_done_i with the saturation count.
//   WRITE_HOST    UB_READ/ACC_READ; each row read out becomes one DMA write job, or, when rows
//                 are packed (STRIDE == row bytes), consecutive rows are gathered into one job
//                 of up to WrBytes bytes (one MWR header per job instead of per row).
//   FENCE         waits (see above); optional 8-byte write. IDENTIFY: 4096 bytes in chunks.
// LOAD_WEIGHTS read-ahead: while a command that neither streams rows nor writes host memory
// waits (MATMUL, ACTIVATE, LOAD_PARAMS, a LOAD_WEIGHTS pushing its tile), and no earlier write
// job is left (wr_idle_i), or while a WRITE_HOST streams (no data write pending at its start,
// the tile's span apart from the WRITE_HOST's), the next SQE the queue engine holds (pk_*; the one after it when the
// next is a MATMUL) is looked at: when it is a
// LOAD_WEIGHTS without the FENCE flag whose ROWS/COLS/STRIDE/LENGTH are well formed and whose
// span passes the window check and touches no completion ring or MSI address (pk_chk_ok_i), its
// rows are streamed into one of two read-ahead regions of the staging RAM. The next command to
// reach CHECK2 adopts them when it is that same SQE (all 512 bits and the queue) and all of its
// checks pass (a failed read-ahead row then ends it with DMA_XFER_ERROR, as its own read would
// have); a MATMUL passes them on; any other command drops them (the stream is aborted).
// Chained: when a second LOAD_WEIGHTS in the peek (after the candidate, or after a MATMUL behind
// it) continues the candidate's rows (candidate ROWS = N, same COLS/STRIDE, HOST_ADDR N x
// stride on), both tiles are one stream into a region pair (window check on the union); the
// first adopter takes the head tile once its rows are in, the second tile waits for the next
// LOAD_WEIGHTS. A failure before the head tile is complete may be either tile's: the adopter
// then reads its own rows; after it, it is the second tile's (DMA_XFER_ERROR for it). The
// rows are read while earlier commands run, with every earlier write sent and no host write
// possible before the adopting command but CQEs/MSIs (excluded by pk_chk_ok_i), so they equal
// what the command's own read would return; statuses and their order are unchanged.
// Watchdog: a command still waiting on the link after timeout_units_i x 1024 cycles (0 = off)
// ends with CMD_TIMEOUT (its read job is abandoned; a WRITE_HOST drains its read stream).
// rdy_i low aborts: DMA waits end at once; datapath work in progress (a commit, a tile push, a
// read stream) is finished so local state stays consistent; no completion is reported.
// Size options for small FPGAs (defaults: as above): ReadAhead = 0 leaves out the LOAD_WEIGHTS
// read-ahead (its SQE copies, decode and staging regions); LutStage = 1 reads the 256-byte LUT
// of LOAD_PARAMS as a row stream of LutEntries / N packed rows into the staging ring (then
// PARAM writes from there, still only after every byte is in), so read jobs need only hold
// an SQE or a 4N-byte vector (RdBytes >= max(4N, 64)); SpanSerial = 1 computes CHECK1's span
// product with a shift-add multiplier (CHECK1 then takes 2 + bit length of ROWS - 1 cycles)
// instead of a 32 x 32 one.
`default_nettype none

module tpu_cmd_proc #(
  parameter int unsigned N         = 16,
  parameter int unsigned UbRows    = 8192,
  parameter int unsigned AccRows   = 2048,
  parameter int unsigned Tiles     = 4,
  parameter int unsigned StageRows = 64,
  parameter int unsigned RdBytes   = 256,
  parameter int unsigned WrBytes   = 64,
  parameter int unsigned LenW      = 11,
  parameter bit          ReadAhead = 1'b1,   // LOAD_WEIGHTS read-ahead (see above)
  parameter bit          LutStage  = 1'b0,   // LUT load through the staging ring (see above)
  parameter bit          SpanSerial = 1'b0,  // CHECK1's product bit-serial (see above)
  localparam int unsigned CmdWidth = tpu_pkg::DpCmdDataLsb + 8 * N
) (
  input  logic                  clk_i,
  input  logic                  rst_i,
  input  logic                  rdy_i,
  input  logic [15:0]           timeout_units_i,
  input  logic [255:0]          ident_i,          // bytes 0..31 of the IDENTIFY page
  // from / to the queue engine
  input  logic                  cmd_valid_i,
  output logic                  cmd_ready_o,
  input  logic [511:0]          cmd_sqe_i,
  input  logic [7:0]            cmd_qid_i,
  input  logic [3:0]            pk_valid_i,       // the next four SQEs the queue engine holds
  input  logic [2047:0]         pk_sqe_i,
  input  logic [7:0]            pk_qid_i,
  output logic [63:0]           pk_chk_addr_o,    // its span for the read window check
  output logic [31:0]           pk_chk_len_o,
  input  logic                  pk_chk_ok_i,
  output logic                  cpl_valid_o,
  output logic [7:0]            cpl_sc_o,
  output logic [31:0]           cpl_result_o,
  // accounting (registers)
  output logic                  acct_valid_o,
  output logic [7:0]            acct_qid_o,
  output logic [15:0]           acct_cid_o,
  output logic [7:0]            acct_opcode_o,
  output logic [7:0]            acct_sc_o,
  output logic [63:0]           acct_addr_o,
  output logic [31:0]           acct_rd_bytes_o,
  output logic [31:0]           acct_wr_bytes_o,
  output logic                  mm_valid_o,
  output logic [31:0]           mm_rows_o,
  output logic [63:0]           mm_macs_o,
  // window check
  output logic [63:0]           chk_addr_o,
  output logic [31:0]           chk_len_o,
  output logic                  chk_write_o,
  input  logic                  chk_ok_i,
  // DMA
  output logic                  rd_req_valid_o,
  input  logic                  rd_req_ready_i,
  output logic [63:0]           rd_req_addr_o,
  output logic [LenW-1:0]       rd_req_len_o,
  output logic                  rd_abort_o,
  output logic                  rd_hold_o,     // rd_buf_i in use: no other read job may start
  input  logic                  rd_done_i,
  input  logic                  rd_err_i,
  input  logic [RdBytes*8-1:0]  rd_buf_i,
  output logic                  rs_req_valid_o,
  input  logic                  rs_req_ready_i,
  output logic [63:0]           rs_req_addr_o,
  output logic [$clog2(N+1)-1:0] rs_req_rb_o,
  output logic [63:0]           rs_req_stride_o,
  output logic [31:0]           rs_req_rows_o,
  output logic [31:0]           rs_limit_o,    // rows of the stream that may be requested
  input  logic                  rs_row_valid_i,
  input  logic [N*8-1:0]        rs_row_data_i,
  input  logic                  rs_err_i,
  output logic                  rs_abort_o,
  output logic                  wr_req_valid_o,
  input  logic                  wr_req_ready_i,
  output logic [63:0]           wr_req_addr_o,
  output logic [LenW-1:0]       wr_req_len_o,
  output logic [WrBytes*8-1:0]  wr_req_data_o,
  input  logic                  wr_idle_i,
  // datapath
  output logic                  dp_valid_o,
  input  logic                  dp_ready_i,
  output logic [CmdWidth-1:0]   dp_cmd_o,
  output logic                  wpush_valid_o,
  input  logic                  wpush_ready_i,
  output logic [N*8-1:0]        wpush_row_o,
  output logic                  wpush_transpose_o,
  input  logic                  dp_rd_valid_i,
  output logic                  dp_rd_ready_o,
  input  logic [N*32-1:0]       dp_rd_data_i,
  input  logic                  dp_rd_last_i,
  input  logic                  mm_done_i,
  input  logic                  act_done_i,
  input  logic [31:0]           act_result_i,
  input  logic                  dp_idle_i
);
  // datapath command format (rtl/tpu_datapath.sv header)
  // datapath command bus (tpu_pkg, spec/tpu.toml [dp_cmd] / [dp_op])
  localparam logic [3:0] DpUbWrite = tpu_pkg::DpOpUbWrite, DpParam = tpu_pkg::DpOpParam,
                         DpMatmul = tpu_pkg::DpOpMatmul, DpActivate = tpu_pkg::DpOpActivate,
                         DpUbRead = tpu_pkg::DpOpUbRead, DpAccRead = tpu_pkg::DpOpAccRead;
  localparam int unsigned COp = tpu_pkg::DpCmdOpLsb, CFl = tpu_pkg::DpCmdFlagsLsb,
                          CA = tpu_pkg::DpCmdALsb, CB = tpu_pkg::DpCmdBLsb,
                          CRows = tpu_pkg::DpCmdRowsLsb, CData = tpu_pkg::DpCmdDataLsb;
  localparam int unsigned IdChunk = 64;  // IDENTIFY write job size (divides 4096, <= WrBytes)
  localparam int unsigned Ring    = 2 * StageRows;       // READ_HOST staging ring
  localparam int unsigned StDepth = Ring + (ReadAhead ? 4 * N : 0);  // + two read-ahead tile pairs
  localparam int unsigned LutRows = tpu_pkg::LutEntries / N;  // LutStage: rows of the LUT
  localparam int unsigned SAw = $clog2(StDepth);
  localparam int unsigned TW  = Tiles > 1 ? $clog2(Tiles) : 1;
  localparam int unsigned KW  = $clog2(N + 1);

  if (StageRows < N || StageRows < 2 || (StageRows & (StageRows - 1)) != 0) begin : g_bad_stage
    $error("tpu_cmd_proc: StageRows must be a power of two >= N (a weight tile is staged whole)");
  end
  if (RdBytes < 4 * N || (!LutStage && RdBytes < tpu_pkg::LutEntries) || WrBytes < 4 * N ||
      WrBytes < IdChunk)
  begin : g_bad_bytes
    $error("tpu_cmd_proc: DMA job sizes too small");
  end
  if (LutStage && (tpu_pkg::LutEntries % N != 0 || Ring < LutRows)) begin : g_bad_lut
    $error("tpu_cmd_proc: LutStage needs N dividing 256 and 2 x StageRows >= 256 / N rows");
  end

  typedef enum logic [4:0] {
    SIdle, SFence, SCheck1, SCheck2, SRowRead, SRowWait, SCommit, SCommitLast, SPush,
    SParRead, SParWait, SParWrite, SDpCmd, SActWait, SWhStream, SWhDrain, SWrJob, SDone,
    SPreWait
  } state_e;
  typedef enum logic [1:0] { PIdle, PWait, PDone, PErr } pre_e;

  // ---------------------------------------------------------------- command fields
  logic [511:0] sqe_q, sqe_d;
  logic [7:0]   qid_q, qid_d;
  logic [7:0]   f_op, f_flags;
  logic [15:0]  f_cid;
  logic [63:0]  f_addr;
  logic [31:0]  f_len, f_stride, f_la, f_la2, f_rows, f_cols, f_op0, f_op1, f_op2, f_op3;
  logic [31:0]  f_r14, f_r15;
  always_comb begin
    f_op     = sqe_q[tpu_pkg::SqeOpcodeLsb +: 8];
    f_flags  = sqe_q[tpu_pkg::SqeFlagsLsb +: 8];
    f_cid    = sqe_q[tpu_pkg::SqeCidLsb +: 16];
    f_addr   = {sqe_q[tpu_pkg::SqeHostAddrHiLsb +: 32], sqe_q[tpu_pkg::SqeHostAddrLoLsb +: 32]};
    f_len    = sqe_q[tpu_pkg::SqeLengthLsb +: 32];
    f_stride = sqe_q[tpu_pkg::SqeStrideLsb +: 32];
    f_la     = sqe_q[tpu_pkg::SqeLocalAddrLsb +: 32];
    f_la2    = sqe_q[tpu_pkg::SqeLocalAddr2Lsb +: 32];
    f_rows   = sqe_q[tpu_pkg::SqeRowsLsb +: 32];
    f_cols   = sqe_q[tpu_pkg::SqeColsLsb +: 32];
    f_op0    = sqe_q[tpu_pkg::SqeOp0Lsb +: 32];
    f_op1    = sqe_q[tpu_pkg::SqeOp1Lsb +: 32];
    f_op2    = sqe_q[tpu_pkg::SqeOp2Lsb +: 32];
    f_op3    = sqe_q[tpu_pkg::SqeOp3Lsb +: 32];
    f_r14    = sqe_q[tpu_pkg::SqeRsvd14Lsb +: 32];
    f_r15    = sqe_q[tpu_pkg::SqeRsvd15Lsb +: 32];
  end

  function automatic logic range_ok(input logic [31:0] first, input logic [31:0] count,
                                    input logic [31:0] size);
    range_ok = first <= size && count <= size - first;
  endfunction
  function automatic logic int8_ok(input logic [31:0] v);
    int8_ok = $signed(v) >= -32'sd128 && $signed(v) <= 32'sd127;
  endfunction

  // ---------------------------------------------------------------- state
  state_e         state_q, state_d;
  logic           aborted_q, aborted_d;
  logic [7:0]     sc_q, sc_d;
  logic [31:0]    result_q, result_d;
  logic [31:0]    rdb_q, rdb_d, wrb_q, wrb_d;      // data bytes moved (counted on success)
  logic [63:0]    rb_d;                            // row bytes
  logic [31:0]    rb_q;                            // (<= 4N where used)
  logic [63:0]    stride_q, stride_d;              // effective stride
  logic [WrBytes*8-1:0] wg_q, wg_d;                // WRITE_HOST: packed rows gathered
  logic [LenW-1:0]      wgn_q, wgn_d;              // ... their bytes (0: none)
  logic                 wg_flush;                  // the row read out now ends the job
  logic [WrBytes*8-1:0] wg_row;                    // that row, bytes >= row bytes cleared
  logic           span_ok_q, span_ok_d;
  logic [63:0]    haddr_q, haddr_d;                // host address of the next row / chunk
  logic [31:0]    row_q, row_d;                    // rows done (DMA side)
  logic [31:0]    cbase_q, cbase_d;                // first row of the current staging chunk
  logic [31:0]    crow_q, crow_d;                  // commit / push / param index
  logic           cval_q, cval_d;                  // staging read data valid (commit, push)
  logic [CmdWidth-1:0] dpc_q, dpc_d;
  logic           dpv_q, dpv_d;
  logic [31:0]    wd_q, wd_d;                      // watchdog cycles / 1024 and remainder
  logic [9:0]     wdf_q, wdf_d;
  logic [15:0]    mm_flight_q, mm_flight_d;        // MATMULs accepted, last row not written
  // logical weight FIFO (spec state) and parameter loaded flags
  logic [Tiles*KW-1:0] fk_q, fk_d, fc_q, fc_d;
  logic [TW-1:0]  fhead_q, fhead_d;
  logic [TW:0]    fcount_q, fcount_d;
  logic [KW-1:0]  ak_q, ak_d, ac_q, ac_d;
  logic           avalid_q, avalid_d;
  logic [4:0]     loaded_q, loaded_d;
  logic [TW-1:0]  ftail;  // FIFO slot of the next pushed tile
  // staging RAM
  logic           st_we, st_re;
  logic [SAw-1:0] st_waddr, st_raddr;
  logic [N*8-1:0] st_wdata, st_rdata;
  logic [7:0]     lut_byte;                        // LUT byte crow (job buffer or staging)

  // read-ahead (LOAD_WEIGHTS of the next SQE)
  pre_e           pre_q, pre_d;
  logic [511:0]   pre_sqe_q, pre_sqe_d;
  logic [7:0]     pre_qid_q, pre_qid_d;
  logic [KW-1:0]  pre_rows_q, pre_rows_d, pre_cols_q, pre_cols_d;  // head tile's rows, cols
  logic [KW:0]    pre_cnt_q, pre_cnt_d;                // stream rows in (stops at a failure)
  logic [KW:0]    pre_tot_q, pre_tot_d;                // stream rows (one or two tiles)
  logic [KW:0]    pre_off_q, pre_off_d;                // stream row of the head tile (0 or N)
  logic           pre_two_q, pre_two_d;                // a second tile follows the head tile
  logic [511:0]   pre_sqe2_q, pre_sqe2_d;              // ... its SQE
  logic [KW-1:0]  pre_rows2_q, pre_rows2_d;            // ... and rows
  logic           pre_slot_q, pre_slot_d;              // region pair of the read-ahead in flight
  logic           pre_head_in;                         // the head tile's rows are all in
  logic [SAw-1:0] pbase_q, pbase_d;                    // staging row of the tile being pushed
  logic           pre_go, pre_wh;
  logic           wh_clean_q, wh_clean_d;             // no data write pending when WRITE_HOST began
  logic           dw_pend_q;                          // a data write job may not be sent yet

  // No accesses during reset: before the first reset edge the state is random (Verilator's random
  // initial state) and would address a random, possibly out-of-range, staging row.
  tpu_ram #(.Width(N * 8), .Depth(StDepth)) u_stage (
    .clk_i, .we_i(st_we && !rst_i), .waddr_i(st_waddr), .wdata_i(st_wdata),
    .re_i(st_re && !rst_i), .raddr_i(st_raddr), .rdata_o(st_rdata)
  );

  // ---------------------------------------------------------------- checks (CHECK1 / CHECK2)
  logic        is_lw, is_wh, is_fence, is_id;
  logic        lp_lut, lp_out, wh_acc, act_raw, act_lut, mm_pop, lut_rs;
  logic [63:0] span1, span_prod;  // (ROWS - 1) x stride (+ row bytes)
  logic        span_busy;          // SpanSerial: the product is not ready yet
  always_comb begin
    is_lw    = f_op == tpu_pkg::OpLoadWeights;
    is_wh    = f_op == tpu_pkg::OpWriteHost;
    is_fence = f_op == tpu_pkg::OpFence;
    is_id    = f_op == tpu_pkg::OpIdentify;
    lp_lut   = f_op0 == 32'(tpu_pkg::ParamLut);
    lp_out   = f_op0 == 32'(tpu_pkg::ParamOutput);
    wh_acc   = (f_op0 & tpu_pkg::WriteHostFromAcc) != 0;
    act_raw  = (f_op0 & tpu_pkg::ActivateRaw32) != 0;
    act_lut  = (f_op0 & tpu_pkg::ActivateLut) != 0;
    mm_pop   = (f_op0 & tpu_pkg::MatmulPop) != 0;
    lut_rs   = LutStage && f_op == tpu_pkg::OpLoadParams && lp_lut;
    // row bytes and span (only meaningful when COLS <= N, which the checks test first)
    rb_d     = (is_wh && wh_acc) ? {30'd0, f_cols, 2'b00} : {32'd0, f_cols};
    // (LutStage: the LUT's packed N-byte rows; LOAD_PARAMS has no span check)
    stride_d = lut_rs ? 64'(N) : (f_stride != 0) ? {32'd0, f_stride} : rb_d;
  end
  always_comb begin  // apart: span_prod depends on stride_d
    span1    = span_prod + rb_d;
    span_ok_d = f_rows != 0 && !(f_stride != 0 && {32'd0, f_stride} < rb_d) &&
                span1 == {32'd0, f_len};
  end

  // ROWS - 1 fits 32 bits whenever it matters (ROWS = 0 fails span_ok_d anyway)
  if (SpanSerial) begin : g_span_serial
    // shift-add in CHECK1: load, then one multiplier bit per cycle until none is left
    logic [31:0] sa_q;
    logic [63:0] sb_q, sp_q;
    logic        sv_q;
    always_ff @(posedge clk_i) begin
      if (state_q != SCheck1) begin
        sv_q <= 1'b0;
      end else if (!sv_q) begin
        sv_q <= 1'b1;
        sa_q <= f_rows - 32'd1;
        sb_q <= {32'd0, stride_d[31:0]};  // (stride_d < 2^32)
        sp_q <= '0;
      end else if (sa_q != '0) begin
        if (sa_q[0]) sp_q <= sp_q + sb_q;
        sa_q <= sa_q >> 1;
        sb_q <= sb_q << 1;
      end
    end
    assign span_busy = !sv_q || sa_q != '0;
    assign span_prod = sp_q;
  end else begin : g_span_mul
    assign span_busy = 1'b0;
    assign span_prod = {32'd0, f_rows - 32'd1} * stride_d;
  end

  // ---------------------------------------------------------------- read-ahead candidate
  // the next SQE, or the one after it when the next one is a MATMUL (that neither writes host
  // memory nor streams rows, so the read-ahead stays valid across it). Chained: when the SQE
  // after the candidate (or after a MATMUL behind it) is a LOAD_WEIGHTS whose rows continue the
  // candidate's (the candidate has N rows, the same COLS and STRIDE, its rows start N x stride
  // after the candidate's), both tiles are one row stream (one round trip for two tiles); the
  // window check then covers the union of the two spans.
  function automatic logic [511:0] pk_ent(input logic [2047:0] v, input logic [1:0] i);
    pk_ent = v[512*i +: 512];
  endfunction
  function automatic logic [7:0] pk_ent_op(input logic [2047:0] v, input logic [1:0] i);
    pk_ent_op = v[512*i + tpu_pkg::SqeOpcodeLsb +: 8];
  endfunction
  logic [7:0]   pk_op, pk_flags, pk2_op, pk2_flags;
  logic [31:0]  pk_len, pk_stride, pk_rows, pk_cols, pk2_len, pk2_stride, pk2_rows, pk2_cols;
  logic [63:0]  pk_addr, pk_stride_eff, pk_span, pk2_addr, pk2_span, pk_chain_len;
  logic [511:0] pk_sqe, pk2_sqe;
  logic [1:0]   pk_i, pk2_i;
  logic         pk_ok, pk_val, pk2_val, pk_chain;
  always_comb begin
    pk_i      = (pk_ent_op(pk_sqe_i, 2'd0) == tpu_pkg::OpMatmul) ? 2'd1 : 2'd0;
    pk_val    = pk_valid_i[pk_i];
    pk_sqe    = pk_ent(pk_sqe_i, pk_i);
    pk2_i     = (pk_ent_op(pk_sqe_i, pk_i + 2'd1) == tpu_pkg::OpMatmul) ? pk_i + 2'd2
                                                                             : pk_i + 2'd1;
    pk2_val   = pk_valid_i[pk2_i] && pk2_i > pk_i;  // (no wrap past entry 3)
    pk2_sqe   = pk_ent(pk_sqe_i, pk2_i);
    pk_op     = pk_sqe[tpu_pkg::SqeOpcodeLsb +: 8];
    pk_flags  = pk_sqe[tpu_pkg::SqeFlagsLsb +: 8];
    pk_addr   = {pk_sqe[tpu_pkg::SqeHostAddrHiLsb +: 32], pk_sqe[tpu_pkg::SqeHostAddrLoLsb +: 32]};
    pk_len    = pk_sqe[tpu_pkg::SqeLengthLsb +: 32];
    pk_stride = pk_sqe[tpu_pkg::SqeStrideLsb +: 32];
    pk_rows   = pk_sqe[tpu_pkg::SqeRowsLsb +: 32];
    pk_cols   = pk_sqe[tpu_pkg::SqeColsLsb +: 32];
    pk_stride_eff = (pk_stride != 0) ? {32'd0, pk_stride} : {32'd0, pk_cols};
    pk_span   = ({32'd0, pk_rows} - 64'd1) * pk_stride_eff + {32'd0, pk_cols};
    pk2_op    = pk2_sqe[tpu_pkg::SqeOpcodeLsb +: 8];
    pk2_flags = pk2_sqe[tpu_pkg::SqeFlagsLsb +: 8];
    pk2_addr  = {pk2_sqe[tpu_pkg::SqeHostAddrHiLsb +: 32],
                 pk2_sqe[tpu_pkg::SqeHostAddrLoLsb +: 32]};
    pk2_len   = pk2_sqe[tpu_pkg::SqeLengthLsb +: 32];
    pk2_stride = pk2_sqe[tpu_pkg::SqeStrideLsb +: 32];
    pk2_rows  = pk2_sqe[tpu_pkg::SqeRowsLsb +: 32];
    pk2_cols  = pk2_sqe[tpu_pkg::SqeColsLsb +: 32];
    pk2_span  = ({32'd0, pk2_rows} - 64'd1) * pk_stride_eff + {32'd0, pk2_cols};
    pk_chain  = pk2_val && pk2_op == tpu_pkg::OpLoadWeights &&
                (pk2_flags & tpu_pkg::SqeFlagFence) == 0 &&
                pk_rows == N && pk2_rows != 0 && pk2_rows <= N && pk2_cols == pk_cols &&
                pk2_stride == pk_stride && pk2_span == {32'd0, pk2_len} &&
                pk2_addr == pk_addr + 64'(N) * pk_stride_eff;
    pk_chain_len = pk_chain ? 64'(N) * pk_stride_eff + {32'd0, pk2_len} : {32'd0, pk_len};
  end
  always_comb begin  // apart from the decode: pk_chk_ok_i depends on pk_chk_addr_o/len_o
    pk_ok     = pk_val && pk_op == tpu_pkg::OpLoadWeights &&
                (pk_flags & tpu_pkg::SqeFlagFence) == 0 &&
                pk_rows != 0 && pk_rows <= N && pk_cols != 0 && pk_cols <= N &&
                !(pk_stride != 0 && pk_stride < pk_cols) && pk_span == {32'd0, pk_len} &&
                pk_chain_len[63:32] == '0 && pk_chk_ok_i;
  end
  assign pk_chk_addr_o = ReadAhead ? pk_addr : '0;
  assign pk_chk_len_o  = ReadAhead ? pk_chain_len[31:0] : '0;

  // window check operands: the whole span, R for transfers into the device, W otherwise
  assign chk_addr_o  = f_addr;
  assign chk_len_o   = f_len;
  assign chk_write_o = is_wh || is_fence || is_id;

  logic [7:0] check_sc;
  always_comb begin
    logic nz_addr;
    nz_addr  = f_addr != 64'd0;
    check_sc = tpu_pkg::ScSuccess;
    if (32'(f_op) >= tpu_pkg::OpCount) begin
      check_sc = tpu_pkg::ScInvalidOpcode;
    end else if ((f_flags & ~tpu_pkg::SqeFlagsValid) != 0 || f_r14 != 0 || f_r15 != 0) begin
      check_sc = tpu_pkg::ScInvalidField;
    end else begin
      unique case (f_op)
        tpu_pkg::OpNop: begin
          if (sqe_q[tpu_pkg::SqeHostAddrLoLsb +: 12*32] != '0) check_sc = tpu_pkg::ScInvalidField;
        end
        tpu_pkg::OpReadHost: begin
          if (f_la2 != 0 || f_op0 != 0 || f_op1 != 0 || f_op2 != 0 || f_op3 != 0 ||
              f_cols == 0 || f_cols > N || !span_ok_q)
            check_sc = tpu_pkg::ScInvalidField;
          else if (!range_ok(f_la, f_rows, UbRows)) check_sc = tpu_pkg::ScLocalRange;
          else if (!chk_ok_i) check_sc = tpu_pkg::ScDmaAccessViolation;
        end
        tpu_pkg::OpLoadWeights: begin
          if (f_la != 0 || f_la2 != 0 || f_op1 != 0 || f_op2 != 0 || f_op3 != 0 ||
              f_rows == 0 || f_rows > N || f_cols == 0 || f_cols > N ||
              (f_op0 & ~tpu_pkg::LoadWeightsTranspose) != 0 || !span_ok_q)
            check_sc = tpu_pkg::ScInvalidField;
          else if (32'(fcount_q) == Tiles) check_sc = tpu_pkg::ScSequenceError;
          else if (!chk_ok_i) check_sc = tpu_pkg::ScDmaAccessViolation;
        end
        tpu_pkg::OpLoadParams: begin
          if (lp_out) begin
            if (nz_addr || f_len != 0 || f_stride != 0 || f_la != 0 || f_la2 != 0 ||
                f_rows != 0 || f_cols != 0 || !int8_ok(f_op1) || !int8_ok(f_op2) ||
                !int8_ok(f_op3) || $signed(f_op2) > $signed(f_op3))
              check_sc = tpu_pkg::ScInvalidField;
          end else if (f_op0 > 32'(tpu_pkg::ParamOutput) || f_la2 != 0 || f_op1 != 0 ||
                       f_op2 != 0 || f_op3 != 0 || f_rows != 1 || f_stride != 0 ||
                       (lp_lut && (f_cols != tpu_pkg::LutEntries ||
                                   f_len != tpu_pkg::LutEntries || f_la != 0)) ||
                       (!lp_lut && (f_cols == 0 || f_cols > N ||
                                    {32'd0, f_len} != {30'd0, f_cols, 2'b00}))) begin
            check_sc = tpu_pkg::ScInvalidField;
          end else if (!lp_lut && !range_ok(f_la, f_cols, N)) begin
            check_sc = tpu_pkg::ScLocalRange;
          end else if (!chk_ok_i) begin
            check_sc = tpu_pkg::ScDmaAccessViolation;
          end
        end
        tpu_pkg::OpMatmul: begin
          if (nz_addr || f_len != 0 || f_stride != 0 || f_cols != 0 || f_op1 != 0 ||
              f_op2 != 0 || f_op3 != 0 || f_rows == 0 ||
              (f_op0 & ~(tpu_pkg::MatmulAccumulate | tpu_pkg::MatmulPop)) != 0)
            check_sc = tpu_pkg::ScInvalidField;
          else if (!range_ok(f_la, f_rows, UbRows) || !range_ok(f_la2, f_rows, AccRows))
            check_sc = tpu_pkg::ScLocalRange;
          else if (mm_pop ? fcount_q == '0 : !avalid_q)
            check_sc = tpu_pkg::ScSequenceError;
        end
        tpu_pkg::OpActivate: begin
          if (nz_addr || f_len != 0 || f_stride != 0 || f_cols != 0 || f_op1 != 0 ||
              f_op2 != 0 || f_op3 != 0 || f_rows == 0 ||
              (f_op0 & ~(tpu_pkg::ActivateLut | tpu_pkg::ActivateRaw32)) != 0 ||
              (act_raw && act_lut) ||
              (act_raw && f_la != f_la2 && {1'b0, f_la} + {1'b0, f_rows} > {1'b0, f_la2} &&
               {1'b0, f_la2} + {1'b0, f_rows} > {1'b0, f_la}))
            check_sc = tpu_pkg::ScInvalidField;
          else if (!range_ok(f_la, f_rows, AccRows) ||
                   !range_ok(f_la2, f_rows, act_raw ? AccRows : UbRows))
            check_sc = tpu_pkg::ScLocalRange;
          else if (!loaded_q[tpu_pkg::ParamBias] ||
                   (!act_raw && (!loaded_q[tpu_pkg::ParamMult] || !loaded_q[tpu_pkg::ParamShift] ||
                                 !loaded_q[tpu_pkg::ParamOutput] ||
                                 (act_lut && !loaded_q[tpu_pkg::ParamLut]))))
            check_sc = tpu_pkg::ScSequenceError;
        end
        tpu_pkg::OpWriteHost: begin
          if (f_la2 != 0 || f_op1 != 0 || f_op2 != 0 || f_op3 != 0 || f_cols == 0 ||
              f_cols > N || (f_op0 & ~tpu_pkg::WriteHostFromAcc) != 0 || !span_ok_q)
            check_sc = tpu_pkg::ScInvalidField;
          else if (!range_ok(f_la, f_rows, wh_acc ? AccRows : UbRows))
            check_sc = tpu_pkg::ScLocalRange;
          else if (!chk_ok_i) check_sc = tpu_pkg::ScDmaAccessViolation;
        end
        tpu_pkg::OpFence: begin
          if (f_stride != 0 || f_la != 0 || f_la2 != 0 || f_rows != 0 || f_cols != 0 ||
              f_op2 != 0 || f_op3 != 0)
            check_sc = tpu_pkg::ScInvalidField;
          else if (!nz_addr) begin
            if (f_len != 0 || f_op0 != 0 || f_op1 != 0) check_sc = tpu_pkg::ScInvalidField;
          end else if (f_len != 8 || f_addr[2:0] != 3'd0) check_sc = tpu_pkg::ScInvalidField;
          else if (!chk_ok_i) check_sc = tpu_pkg::ScDmaAccessViolation;
        end
        default: begin  // IDENTIFY
          if (f_stride != 0 || f_la != 0 || f_la2 != 0 || f_rows != 0 || f_cols != 0 ||
              f_op0 != 0 || f_op1 != 0 || f_op2 != 0 || f_op3 != 0 ||
              f_len != tpu_pkg::IdentifyBytes)
            check_sc = tpu_pkg::ScInvalidField;
          else if (!chk_ok_i) check_sc = tpu_pkg::ScDmaAccessViolation;
        end
      endcase
    end
  end

  // ---------------------------------------------------------------- param value checks
  logic params_ok;
  always_comb begin
    params_ok = 1'b1;
    for (int unsigned i = 0; i < N; i++) begin
      logic [31:0] v;
      v = rd_buf_i[32*i +: 32];
      if (32'(i) < f_cols) begin
        if (f_op0 == 32'(tpu_pkg::ParamMult) && v[31]) params_ok = 1'b0;
        if (f_op0 == 32'(tpu_pkg::ParamShift) &&
            ($signed(v) < tpu_pkg::ShiftMin || $signed(v) > tpu_pkg::ShiftMax)) params_ok = 1'b0;
      end
    end
  end

  // ---------------------------------------------------------------- outputs
  logic [N*8-1:0] row_mask;
  always_comb begin
    for (int unsigned i = 0; i < N; i++) row_mask[8*i +: 8] = (32'(i) < f_cols) ? 8'hFF : 8'h00;
  end
  logic [N*8-1:0] pre_mask;
  always_comb begin
    for (int unsigned i = 0; i < N; i++)
      pre_mask[8*i +: 8] = (32'(i) < 32'(pre_cols_q)) ? 8'hFF : 8'h00;
  end

  assign cmd_ready_o    = state_q == SIdle;
  assign rd_req_valid_o = state_q == SParRead && rdy_i;
  // LOAD_PARAMS reads the job buffer until its last PARAM write
  assign rd_hold_o      = state_q == SParRead || state_q == SParWait || state_q == SParWrite;
  assign rd_req_addr_o  = haddr_q;
  assign rd_req_len_o   = LenW'(f_len);
  logic [31:0] f_rows_eff;  // rows of the row stream (LutStage: the LUT's)
  assign f_rows_eff = lut_rs ? 32'(LutRows) : f_rows;
  // one row stream per staging chunk: the rows left, at most StageRows
  // ... or the read-ahead's stream (never both: see pre_go)
  always_comb begin
    // a WRITE_HOST streaming rows: the read may start beside its writes when every write
    // before it had been sent when it started (wh_clean) and the tile's bytes are apart from
    // the WRITE_HOST's span, so the read cannot pass a write to the bytes it reads
    pre_wh = state_q == SWhStream && wh_clean_q &&
             (pk_addr + pk_chain_len <= f_addr || f_addr + 64'(f_len) <= pk_addr);
    pre_go = ReadAhead && rdy_i && (wr_idle_i || pre_wh) && pre_q == PIdle && pk_ok &&
             ((state_q == SDpCmd && !is_wh) || state_q == SActWait || state_q == SPush ||
              state_q == SParRead || state_q == SParWait || state_q == SParWrite || pre_wh);
  end
  assign rs_req_valid_o  = (state_q == SRowRead && rdy_i) || pre_go;
  assign rs_req_addr_o   = pre_go ? pk_addr : haddr_q;
  assign rs_req_rb_o     = pre_go ? KW'(pk_cols) : lut_rs ? KW'(N) : KW'(f_cols);
  assign rs_req_stride_o = pre_go ? pk_stride_eff : stride_q;
  assign rs_req_rows_o   = !pre_go ? f_rows_eff - row_q : pk_chain ? 32'(N) + pk2_rows : pk_rows;
  // a READ_HOST stream may run up to a ring ahead of the rows committed so far (a ring slot is
  // free once its row has been read out for the commit; one row of slack for the read)
  assign rs_limit_o      = (pre_go || pre_q == PWait) ? 32'hFFFF_FFFF :
                           (state_q == SCommit || state_q == SCommitLast) ?
                           cbase_q + crow_q + 32'(Ring) - 32'd1 : cbase_q + 32'(Ring);
  assign dp_valid_o     = dpv_q;
  assign dp_cmd_o       = dpc_q;
  assign wpush_valid_o  = state_q == SPush && cval_q;
  assign wpush_row_o    = (crow_q < f_rows) ? st_rdata : '0;
  assign wpush_transpose_o = (f_op0 & tpu_pkg::LoadWeightsTranspose) != 0;
  assign dp_rd_ready_o  = (state_q == SWhStream && (wr_req_ready_i || !wg_flush)) ||
                          state_q == SWhDrain;
  // WRITE_HOST gathering: a job ends with the last row, with unpacked rows, or when the next
  // row would not fit in WrBytes
  always_comb begin
    wg_flush = stride_q != {32'd0, rb_q} || dp_rd_last_i ||
               32'(wgn_q) + 2 * rb_q > 32'(WrBytes);
    for (int unsigned i = 0; i < WrBytes; i++) begin
      wg_row[8*i +: 8] = (32'(i) < rb_q && i < N * 4) ? dp_rd_data_i[8*(i % (N * 4)) +: 8] : 8'd0;
    end
  end
  assign st_wdata       = rs_row_data_i & ((pre_q == PWait) ? pre_mask : row_mask);

  always_comb begin
    wr_req_valid_o = 1'b0;
    wr_req_addr_o  = haddr_q;
    wr_req_len_o   = LenW'(rb_q);
    wr_req_data_o  = (WrBytes*8)'(dp_rd_data_i);
    if (state_q == SWhStream) begin
      // the gathered rows start wgn bytes before the current row (packed)
      wr_req_valid_o = dp_rd_valid_i && wg_flush;
      wr_req_addr_o  = haddr_q - 64'(wgn_q);
      wr_req_len_o   = wgn_q + LenW'(rb_q);
      wr_req_data_o  = wg_q | (wg_row << (8 * wgn_q));
    end else if (state_q == SWrJob) begin
      wr_req_valid_o = 1'b1;
      if (is_fence) begin
        wr_req_len_o  = LenW'(8);
        wr_req_data_o = (WrBytes*8)'({f_op1, f_op0});
      end else begin
        wr_req_len_o  = LenW'(IdChunk);
        wr_req_data_o = (crow_q == 0) ? (WrBytes*8)'(ident_i) : '0;
      end
    end
  end

  // ---------------------------------------------------------------- next state
  always_comb begin
    logic          watchdog, last_row, chunk_full;
    logic [CmdWidth-1:0] c;
    logic [31:0]   cnt;

    state_d = state_q;  aborted_d = aborted_q || !rdy_i;
    sqe_d = sqe_q;  qid_d = qid_q;  sc_d = sc_q;  result_d = result_q;
    rdb_d = rdb_q;  wrb_d = wrb_q;
    wg_d = wg_q;  wgn_d = wgn_q;  wh_clean_d = wh_clean_q;
    haddr_d = haddr_q;  row_d = row_q;  cbase_d = cbase_q;  crow_d = crow_q;  cval_d = 1'b0;
    dpc_d = dpc_q;  dpv_d = dpv_q && !dp_ready_i;
    fk_d = fk_q;  fc_d = fc_q;  fhead_d = fhead_q;  fcount_d = fcount_q;
    ak_d = ak_q;  ac_d = ac_q;  avalid_d = avalid_q;  loaded_d = loaded_q;
    mm_flight_d = mm_flight_q + 16'(dp_valid_o && dp_ready_i && dpc_q[COp +: 4] == DpMatmul)
                  - 16'(mm_done_i);
    wd_d = wd_q;  wdf_d = wdf_q + 10'd1;
    if (wdf_q == 10'h3FF) wd_d = wd_q + 32'd1;
    watchdog = timeout_units_i != 0 && wd_q >= 32'(timeout_units_i);
    st_we = 1'b0;  st_waddr = SAw'(row_q % Ring);
    st_re = 1'b0;  st_raddr = SAw'((cbase_q + crow_q) % Ring);
    rd_abort_o = 1'b0;
    rs_abort_o = 1'b0;
    cpl_valid_o = 1'b0;  acct_valid_o = 1'b0;
    mm_valid_o = 1'b0;  mm_rows_o = f_rows;
    mm_macs_o = 64'(f_rows) * 64'(mm_pop ? 64'(fk_q[KW*fhead_q +: KW]) : 64'(ak_q)) *
                64'(mm_pop ? 64'(fc_q[KW*fhead_q +: KW]) : 64'(ac_q));
    c = '0;  cnt = '0;
    last_row = 1'b0;  chunk_full = 1'b0;
    pre_d = pre_q;  pre_sqe_d = pre_sqe_q;  pre_qid_d = pre_qid_q;  pre_cnt_d = pre_cnt_q;
    pre_rows_d = pre_rows_q;  pre_cols_d = pre_cols_q;  pre_slot_d = pre_slot_q;
    pre_tot_d = pre_tot_q;  pre_off_d = pre_off_q;  pre_two_d = pre_two_q;
    pre_sqe2_d = pre_sqe2_q;  pre_rows2_d = pre_rows2_q;
    pbase_d = pbase_q;

    // ---- read-ahead: start, rows into its region, failure (the states below may override)
    if (pre_go && rs_req_ready_i) begin
      pre_d = PWait;  pre_sqe_d = pk_sqe;  pre_qid_d = pk_qid_i;  pre_cnt_d = '0;
      pre_rows_d = KW'(pk_rows);  pre_cols_d = KW'(pk_cols);  pre_slot_d = !pre_slot_q;
      pre_off_d = '0;  pre_two_d = pk_chain;  pre_sqe2_d = pk2_sqe;  pre_rows2_d = KW'(pk2_rows);
      pre_tot_d = pk_chain ? (KW+1)'(N) + (KW+1)'(pk2_rows) : (KW+1)'(pk_rows);
    end
    if (pre_q == PWait) begin
      if (rs_err_i) begin
        pre_d = PErr;
      end else if (rs_row_valid_i) begin
        st_we = 1'b1;
        st_waddr = SAw'(Ring) + (pre_slot_q ? SAw'(2 * N) : '0) + SAw'(pre_cnt_q);
        pre_cnt_d = pre_cnt_q + 1'b1;
        if (pre_cnt_q + 1'b1 == pre_tot_q) pre_d = PDone;
      end
    end
    if (!rdy_i) pre_d = PIdle;  // the DMA engine abandons the stream

    unique case (state_q)
      SIdle: begin
        aborted_d = 1'b0;
        if (cmd_valid_i) begin
          sqe_d = cmd_sqe_i;
          qid_d = cmd_qid_i;
          sc_d = tpu_pkg::ScSuccess;  result_d = '0;  rdb_d = '0;  wrb_d = '0;
          wd_d = '0;  wdf_d = '0;
          state_d = SFence;
        end
      end
      // FENCE flag or FENCE command: every earlier command complete, its writes sent
      SFence: begin
        if (!(((sqe_q[tpu_pkg::SqeFlagsLsb +: 8] & tpu_pkg::SqeFlagFence) != 0 ||
               sqe_q[tpu_pkg::SqeOpcodeLsb +: 8] == tpu_pkg::OpFence) &&
              !(dp_idle_i && mm_flight_q == 0 && !dpv_q && wr_idle_i)))
          state_d = SCheck1;
      end
      SCheck1: if (!span_busy) state_d = SCheck2;
      SCheck2: begin
        logic adopt;
        sc_d = check_sc;
        haddr_d = f_addr;  row_d = '0;  cbase_d = '0;  crow_d = '0;  pbase_d = '0;
        adopt = pre_q != PIdle && check_sc == tpu_pkg::ScSuccess && is_lw &&
                pre_sqe_q == sqe_q && pre_qid_q == qid_q;
        // a MATMUL leaves the read-ahead for the command after it
        if (!adopt && pre_q != PIdle && f_op != tpu_pkg::OpMatmul) begin
          rs_abort_o = pre_q == PWait;
          pre_d = PIdle;
        end
        if (check_sc != tpu_pkg::ScSuccess) begin
          state_d = SDone;
        end else if (adopt) begin
          state_d = SPreWait;
        end else begin
          unique case (f_op)
            tpu_pkg::OpReadHost, tpu_pkg::OpLoadWeights: state_d = SRowRead;
            tpu_pkg::OpLoadParams: begin
              if (lp_out) begin
                c[COp +: 4] = DpParam;  c[CFl +: 3] = 3'(tpu_pkg::ParamOutput);
                c[CData +: 24] = {f_op3[7:0], f_op2[7:0], f_op1[7:0]};
                dpc_d = c;  dpv_d = 1'b1;
                loaded_d[tpu_pkg::ParamOutput] = 1'b1;
                state_d = SDpCmd;
              end else begin
                state_d = lut_rs ? SRowRead : SParRead;
              end
            end
            tpu_pkg::OpMatmul: begin
              c[COp +: 4] = DpMatmul;  c[CFl] = (f_op0 & tpu_pkg::MatmulAccumulate) != 0;  c[CFl + 1] = mm_pop;
              c[CA +: 32] = f_la;  c[CB +: 32] = f_la2;  c[CRows +: 32] = f_rows;
              dpc_d = c;  dpv_d = 1'b1;
              result_d = f_rows;
              state_d = SDpCmd;
            end
            tpu_pkg::OpActivate: begin
              c[COp +: 4] = DpActivate;  c[CFl] = act_lut;  c[CFl + 1] = act_raw;
              c[CA +: 32] = f_la;  c[CB +: 32] = f_la2;  c[CRows +: 32] = f_rows;
              dpc_d = c;  dpv_d = 1'b1;
              state_d = SDpCmd;
            end
            tpu_pkg::OpWriteHost: begin
              c[COp +: 4] = wh_acc ? DpAccRead : DpUbRead;
              c[CA +: 32] = f_la;  c[CRows +: 32] = f_rows;
              dpc_d = c;  dpv_d = 1'b1;
              result_d = f_rows * 32'(rb_q[KW+1:0]);  // (row bytes <= 4N here)
              wrb_d = result_d;
              state_d = SDpCmd;
            end
            tpu_pkg::OpFence: begin
              if (f_addr != 0) begin
                wrb_d = 32'd8;
                state_d = SWrJob;
              end else begin
                state_d = SDone;
              end
            end
            tpu_pkg::OpIdentify: begin
              wrb_d = tpu_pkg::IdentifyBytes;
              result_d = tpu_pkg::IdentifyBytes;
              state_d = SWrJob;
            end
            default: state_d = SDone;  // NOP
          endcase
        end
      end

      // ---- READ_HOST / LOAD_WEIGHTS: rows into the staging RAM
      SRowRead: begin
        if (!rdy_i) state_d = SDone;
        else if (rs_req_ready_i) state_d = SRowWait;
      end
      SRowWait: begin
        if (!rdy_i) begin
          state_d = SDone;
        end else if (rs_err_i) begin
          sc_d = tpu_pkg::ScDmaXferError;
          state_d = SDone;
        end else if (rs_row_valid_i) begin
          // the stream delivers the chunk's rows in order; its last one ends the chunk
          st_we = 1'b1;
          row_d = row_q + 32'd1;
          haddr_d = haddr_q + stride_q;
          last_row = row_q + 32'd1 == f_rows_eff;
          chunk_full = row_q + 32'd1 - cbase_q == StageRows;
          if (is_lw) begin
            if (last_row) state_d = SPush;
            crow_d = '0;
          end else if (lut_rs) begin
            if (last_row) state_d = SParWrite;  // the LUT is in the ring (Ring >= LutRows)
            crow_d = '0;
          end else if (last_row || chunk_full) begin
            state_d = SCommit;
            crow_d = '0;
          end
        end else if (watchdog) begin
          rs_abort_o = 1'b1;
          sc_d = tpu_pkg::ScCmdTimeout;
          state_d = SDone;
        end
      end
      // commit the chunk's staged rows [cbase, cbase + cnt) to the UB once no MATMUL may still
      // read the UB; the stream meanwhile delivers the next chunk's rows into the ring
      SCommit: begin
        cnt = (f_rows - cbase_q > 32'(StageRows)) ? 32'(StageRows) : f_rows - cbase_q;
        if (rs_row_valid_i) begin
          st_we = 1'b1;
          row_d = row_q + 32'd1;
          haddr_d = haddr_q + stride_q;
        end
        if (rs_err_i) sc_d = tpu_pkg::ScDmaXferError;  // reported once the chunk is in
        if (cval_q && !(!dpv_q || dp_ready_i)) begin
          cval_d = 1'b1;  // hold: the read data stays in the RAM output register
        end else begin
          if (cval_q) begin
            c[COp +: 4] = DpUbWrite;
            c[CA +: 32] = f_la + cbase_q + crow_q - 32'd1;
            c[CRows +: 32] = 32'd1;
            c[CData +: N*8] = st_rdata;
            dpc_d = c;  dpv_d = 1'b1;
          end
          if (crow_q < cnt && mm_flight_q == 0 && !(dpv_q && dpc_q[COp +: 4] == DpMatmul)) begin
            st_re = 1'b1;
            cval_d = 1'b1;
            crow_d = crow_q + 32'd1;
          end else if (crow_q == cnt) begin
            state_d = SCommitLast;
          end
        end
      end
      SCommitLast: begin
        cnt = (f_rows - cbase_q > 32'(StageRows)) ? 32'(StageRows) : f_rows - cbase_q;
        if (rs_row_valid_i) begin
          st_we = 1'b1;
          row_d = row_q + 32'd1;
          haddr_d = haddr_q + stride_q;
        end
        if (rs_err_i) sc_d = tpu_pkg::ScDmaXferError;
        if (!dpv_q || dp_ready_i) begin
          if (sc_q != tpu_pkg::ScSuccess || rs_err_i) begin
            state_d = SDone;  // a later chunk failed: the chunks before it stay committed
          end else if (cbase_q + cnt == f_rows) begin
            result_d = f_rows * 32'(f_cols[KW-1:0]);  // (COLS <= N here)
            rdb_d = result_d;
            state_d = SDone;
          end else begin
            // next chunk: commit it at once when all of it is in, else wait for its rows
            cbase_d = cbase_q + cnt;
            crow_d = '0;
            if (aborted_q) begin
              rs_abort_o = 1'b1;
              state_d = SDone;
            end else if (row_d == f_rows || row_d - (cbase_q + cnt) == 32'(StageRows)) begin
              state_d = SCommit;
            end else begin
              state_d = SRowWait;
            end
          end
        end
      end
      // ---- LOAD_WEIGHTS read ahead: wait for its rows (pre_d is PWait until they are in)
      // (a chained read-ahead: the head tile's rows may be in while the next tile's stream on;
      // the next tile becomes the head, for the LOAD_WEIGHTS after this one)
      SPreWait: begin
        if (!rdy_i) begin
          state_d = SDone;
        end else if (pre_head_in) begin
          pbase_d = SAw'(Ring) + (pre_slot_q ? SAw'(2 * N) : '0) + SAw'(pre_off_q);
          if (pre_two_q) begin
            pre_two_d = 1'b0;  pre_off_d = (KW+1)'(N);
            pre_sqe_d = pre_sqe2_q;  pre_rows_d = pre_rows2_q;
          end else begin
            pre_d = PIdle;
          end
          crow_d = '0;
          state_d = SPush;
        end else if (pre_q == PErr) begin
          pre_d = PIdle;
          if (pre_two_q) begin
            // the failed row may be the next tile's (its MRDs run ahead): this one reads its
            // rows itself, which fails exactly when one of them does
            state_d = SRowRead;
          end else begin
            sc_d = tpu_pkg::ScDmaXferError;
            state_d = SDone;
          end
        end else if (watchdog) begin
          rs_abort_o = 1'b1;
          pre_d = PIdle;
          sc_d = tpu_pkg::ScCmdTimeout;
          state_d = SDone;
        end
      end
      // ---- LOAD_WEIGHTS: N rows onto the FIFO (staging row pbase + k, zero beyond ROWS), one
      // per cycle: the next row is read while the current one is taken
      SPush: begin
        st_raddr = pbase_q + SAw'(crow_q);
        if (!cval_q) begin
          st_re = 1'b1;
          cval_d = 1'b1;
        end else if (wpush_ready_i) begin
          crow_d = crow_q + 32'd1;
          if (crow_q + 32'd1 != N) begin
            st_re = 1'b1;
            st_raddr = pbase_q + SAw'(crow_q + 32'd1);
            cval_d = 1'b1;
          end
          if (crow_q + 32'd1 == N) begin
            fk_d[KW*ftail +: KW] = KW'(wpush_transpose_o ? f_cols : f_rows);
            fc_d[KW*ftail +: KW] = KW'(wpush_transpose_o ? f_rows : f_cols);
            fcount_d = fcount_q + 1'b1;
            state_d = SDone;
            result_d = f_rows * 32'(f_cols[KW-1:0]);  // (COLS <= N here)
            rdb_d = result_d;
          end
        end else begin
          cval_d = 1'b1;
        end
      end
      // ---- LOAD_PARAMS
      SParRead: begin
        if (!rdy_i) state_d = SDone;
        else if (rd_req_ready_i) state_d = SParWait;
      end
      SParWait: begin
        if (!rdy_i) begin
          state_d = SDone;
        end else if (rd_done_i) begin
          if (rd_err_i) begin
            sc_d = tpu_pkg::ScDmaXferError;
            state_d = SDone;
          end else if (!lp_lut && !params_ok) begin
            sc_d = tpu_pkg::ScInvalidField;
            state_d = SDone;
          end else begin
            crow_d = '0;
            state_d = SParWrite;
          end
        end else if (watchdog) begin
          rd_abort_o = 1'b1;
          sc_d = tpu_pkg::ScCmdTimeout;
          state_d = SDone;
        end
      end
      SParWrite: begin
        // LutStage: byte crow of the LUT is in staging row crow / N, read one cycle ahead
        // (cval: st_rdata holds that row)
        st_raddr = SAw'(crow_q / N);
        if (lut_rs && !cval_q) begin
          st_re = crow_q != f_cols;
          cval_d = 1'b1;
        end else if (!dpv_q || dp_ready_i) begin
          cval_d = cval_q;
          if (crow_q == f_cols) begin
            loaded_d[f_op0[2:0]] = 1'b1;
            result_d = f_len;
            rdb_d = f_len;
            state_d = SDone;
          end else begin
            c[COp +: 4] = DpParam;  c[CFl +: 3] = f_op0[2:0];
            c[CA +: 32] = lp_lut ? crow_q : f_la + crow_q;
            c[CData +: 32] = lp_lut ? {24'd0, lut_byte}
                                  : rd_buf_i[32*crow_q[$clog2(N)-1:0] +: 32];
            dpc_d = c;  dpv_d = 1'b1;
            crow_d = crow_q + 32'd1;
            if (lut_rs && (crow_q + 32'd1) % N == 0 && crow_q + 32'd1 != f_cols) begin
              st_re = 1'b1;  // the next row
              st_raddr = SAw'((crow_q + 32'd1) / N);
            end
          end
        end else begin
          cval_d = cval_q;
        end
      end
      // ---- one datapath command (PARAM OUTPUT, MATMUL, ACTIVATE, UB_READ/ACC_READ)
      SDpCmd: begin
        if (dp_ready_i) begin
          unique case (dpc_q[COp +: 4])
            DpMatmul: begin
              mm_valid_o = 1'b1;
              if (mm_pop) begin
                ak_d = fk_q[KW*fhead_q +: KW];
                ac_d = fc_q[KW*fhead_q +: KW];
                fhead_d = (32'(fhead_q) == Tiles - 1) ? '0 : fhead_q + 1'b1;
                fcount_d = fcount_q - 1'b1;
                avalid_d = 1'b1;
              end
              state_d = SDone;
            end
            DpActivate: state_d = SActWait;
            DpUbRead, DpAccRead: begin
              state_d = SWhStream;
              wh_clean_d = !dw_pend_q;  // CQEs/MSIs may be pending: pk_chk_ok excludes them
              wg_d    = '0;
              wgn_d   = '0;
            end
            default: state_d = SDone;
          endcase
        end
      end
      SActWait: begin
        if (act_done_i) begin
          result_d = act_raw ? 32'd0 : act_result_i;
          state_d = SDone;
        end
      end
      // ---- WRITE_HOST: each row read out becomes a write job
      SWhStream: begin
        if (dp_rd_valid_i && dp_rd_ready_o) begin
          haddr_d = haddr_q + stride_q;
          wg_d    = wg_flush ? '0 : wg_q | (wg_row << (8 * wgn_q));
          wgn_d   = wg_flush ? '0 : wgn_q + LenW'(rb_q);
          if (dp_rd_last_i) state_d = SDone;
        end else if (watchdog) begin
          sc_d = tpu_pkg::ScCmdTimeout;
          state_d = SWhDrain;
        end
      end
      SWhDrain: if (dp_rd_valid_i && dp_rd_last_i) state_d = SDone;
      // ---- FENCE semaphore, IDENTIFY page (crow = chunk)
      SWrJob: begin
        if (!rdy_i) begin
          state_d = SDone;
        end else if (wr_req_ready_i) begin
          haddr_d = haddr_q + 64'(IdChunk);
          crow_d = crow_q + 32'd1;
          if (is_fence || crow_q + 32'd1 == tpu_pkg::IdentifyBytes / IdChunk) state_d = SDone;
        end else if (watchdog) begin
          sc_d = tpu_pkg::ScCmdTimeout;
          state_d = SDone;
        end
      end
      SDone: begin
        state_d = SIdle;
        if (!aborted_q && rdy_i) begin
          cpl_valid_o = 1'b1;
          acct_valid_o = 1'b1;
        end
      end
      default: state_d = SIdle;
    endcase
  end

  assign ftail = TW'((32'(fhead_q) + 32'(fcount_q)) % Tiles);
  if (LutStage) begin : g_lut_stage
    assign lut_byte = st_rdata[8 * (crow_q % N) +: 8];
  end else begin : g_lut_buf
    assign lut_byte = rd_buf_i[8 * crow_q[7:0] +: 8];
  end
  assign pre_head_in = pre_q != PIdle && pre_cnt_q >= pre_off_q + (KW+1)'(pre_rows_q);

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      state_q <= SIdle;  aborted_q <= 1'b0;  dpv_q <= 1'b0;  cval_q <= 1'b0;
      mm_flight_q <= '0;  fhead_q <= '0;  fcount_q <= '0;  avalid_q <= 1'b0;  loaded_q <= '0;
      pre_q <= PIdle;  dw_pend_q <= 1'b0;
    end else begin
      // data writes (WRITE_HOST, FENCE, IDENTIFY) handed to the DMA and maybe not yet sent
      dw_pend_q <= (wr_req_valid_o && wr_req_ready_i) || (dw_pend_q && !wr_idle_i);
      state_q <= state_d;  aborted_q <= aborted_d;  dpv_q <= dpv_d;  cval_q <= cval_d;
      mm_flight_q <= mm_flight_d;  fhead_q <= fhead_d;  fcount_q <= fcount_d;
      avalid_q <= avalid_d;  loaded_q <= loaded_d;
      pre_q <= ReadAhead ? pre_d : PIdle;  // (constant without read-ahead: synthesis drops it)
    end
  end

  always_ff @(posedge clk_i) begin
    sqe_q <= sqe_d;  qid_q <= qid_d;  sc_q <= sc_d;  result_q <= result_d;
    rdb_q <= rdb_d;  wrb_q <= wrb_d;  rb_q <= rb_d[31:0];  stride_q <= stride_d;
    span_ok_q <= span_ok_d;  haddr_q <= haddr_d;  row_q <= row_d;  cbase_q <= cbase_d;
    crow_q <= crow_d;  dpc_q <= dpc_d;  wd_q <= wd_d;  wdf_q <= wdf_d;
    fk_q <= fk_d;  fc_q <= fc_d;  ak_q <= ak_d;  ac_q <= ac_d;
    pre_sqe_q <= pre_sqe_d;  pre_qid_q <= pre_qid_d;  pre_cnt_q <= pre_cnt_d;
    pre_rows_q <= pre_rows_d;  pre_cols_q <= pre_cols_d;  pre_slot_q <= pre_slot_d;
    pre_tot_q <= pre_tot_d;  pre_off_q <= pre_off_d;  pre_two_q <= pre_two_d;
    pre_sqe2_q <= pre_sqe2_d;  pre_rows2_q <= pre_rows2_d;
    pbase_q <= pbase_d;  wg_q <= wg_d;  wgn_q <= wgn_d;  wh_clean_q <= wh_clean_d;
  end

  assign cpl_sc_o       = sc_q;
  assign cpl_result_o   = sc_q == tpu_pkg::ScSuccess ? result_q : 32'd0;
  assign acct_qid_o     = qid_q;
  assign acct_cid_o     = f_cid;
  assign acct_opcode_o  = f_op;
  assign acct_sc_o      = sc_q;
  assign acct_addr_o    = f_addr;
  assign acct_rd_bytes_o = sc_q == tpu_pkg::ScSuccess ? rdb_q : 32'd0;
  assign acct_wr_bytes_o = sc_q == tpu_pkg::ScSuccess ? wrb_q : 32'd0;
endmodule
