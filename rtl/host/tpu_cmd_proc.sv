// tpu_cmd_proc: the command processor. Takes one SQE at a time from the queue engine, runs the
// checks of docs/spec.md 6.1 in the spec's order (the same order and conditions as the golden
// model, sw/golden/golden_cmd.c and golden_xfer.c/golden_compute.c), executes the command on
// the DMA engine and the datapath (rtl/datapath/tpu_datapath.sv command/weight/read streams) and returns
// (status, result) on cpl_* plus the accounting of spec 6.1 on acct_* and mm_*.
//
// Pipeline: IDLE -> [FENCE wait: datapath idle and writes sent] -> CHECK1 (register row bytes,
// span = (ROWS-1) x stride + row bytes, 64-bit) -> CHECK2 (status in spec order; the window
// check is tpu_win_check outside, on chk_*) -> execute -> DONE (cpl_valid_o one cycle). FENCE
// is skipped when there is nothing to wait for, CHECK1 too for MATMUL and ACTIVATE.
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
//   STREAM_MATMUL one row stream of all C x K weight rows into the staging ring (used as a ring
//                 of rows: rs_limit_o keeps the stream at most Ring rows ahead of the first row
//                 of the tile being pushed); each tile (N rows, rows beyond the block's K zero)
//                 is pushed on wpush as soon as each of its rows is in, and its MATMUL (POP,
//                 ACCUMULATE after the block's first tile or with OP0.ACCUMULATE) goes into the
//                 command slot when its last row is pushed: the next tile is pushed while the
//                 MXU multiplies. A stream error (or the watchdog: no row in and no row pushed
//                 for the budget, or rdy_i low) ends the stream; a tile whose push had begun is
//                 completed with zero rows and multiplied, so the FIFO is empty again and every
//                 pushed tile popped. No tile is active afterwards (avalid).
// LOAD_WEIGHTS read-ahead: a queue of up to RaT weight tiles in RaT regions of the staging RAM,
// filled in command order by one row stream. A tile joins while a command that neither streams
// rows nor writes host memory waits (MATMUL, ACTIVATE, LOAD_PARAMS, a LOAD_WEIGHTS pushing or
// waiting for its tile) and no data write is unsent (dw_pend), or while a WRITE_HOST streams (no
// data write pending at its start, the tile's span apart from the WRITE_HOST's). Candidate: with
// the queue empty, the next SQE the queue engine holds (pk_*; the one after it when the next is
// a MATMUL); else the first LOAD_WEIGHTS of the peek that continues the last queued tile (that
// tile has N rows, same COLS/STRIDE, HOST_ADDR N x stride on). It needs no FENCE flag,
// well-formed ROWS/COLS/STRIDE/LENGTH and a span that passes the window check and touches no
// completion ring or MSI address (pk_chk_ok_i). The first tile starts a stream; a continuing one
// extends the running stream (rs_ext_*) or starts a new one when it has ended. A command reaching
// CHECK2 adopts the head tile when it is a LOAD_WEIGHTS with the same read (HOST_ADDR, STRIDE,
// ROWS, COLS, queue) and all of its checks pass; MATMUL, ACTIVATE, LOAD_PARAMS and a WRITE_HOST
// apart from every queued tile pass the queue on; any other command drops it (the stream is
// aborted). A failure ends the stream: complete tiles stay; if only the last tile was incomplete
// the failed row is its own (its LOAD_WEIGHTS gets DMA_XFER_ERROR), else the incomplete tiles
// are dropped and their commands read their own rows (failing exactly when one of them does).
// The rows are read while earlier commands run, with every earlier data write sent and no host
// write possible before the adopting command but CQEs/MSIs (excluded by pk_chk_ok_i) and
// WRITE_HOSTs apart from them, so they equal what the command's own read would return;
// statuses and their order are unchanged.
// Tiles may also join while a READ_HOST commits once its own stream has delivered every row
// (rh_tail: the row stream is free then), and in SDone while a background commit runs (the
// READ_HOST's own, or of a command that may run beside it).
// LOAD_PARAMS read-ahead (pa_*): the first BIAS/MULT/SHIFT LOAD_PARAMS of the peek (1..N
// channels, LENGTH = 4 x COLS, no FENCE flag, readable and clear of the rings and the MSI
// address: pa_chk_ok_i) is read by a read job under the same start conditions as a tile (also
// while a READ_HOST or LOAD_WEIGHTS streams or commits, never while a LOAD_PARAMS uses the job
// engine), one vector at a time, and copied into pa_buf when the job ends (rd_hold_o until
// then). A LOAD_PARAMS reaching CHECK2 with all checks passed and the same read (HOST_ADDR,
// LENGTH, queue) adopts it: it waits for the job (under the watchdog), gets DMA_XFER_ERROR if
// the job failed, else checks and writes the values from pa_buf exactly as from its own read.
// Any other BIAS/MULT/SHIFT load, FENCE, IDENTIFY and a WRITE_HOST not apart from the vector
// drop it (a job still running ends unused; a LOAD_PARAMS of its own waits for it).
// READ_HOST background commit (bg_*, ReadAhead): when every row of a READ_HOST is in the staging
// ring (so no error can follow) it completes, and the rows not yet committed go to the UB beside
// the next commands: a staging row is read when the state leaves the staging read port free,
// and issued as a UB_WRITE in the next cycle when the state issues no datapath command (else it
// is read again), once the MATMULs accepted before the READ_HOST are done (bg_mm). Meanwhile only
// a MATMUL apart from the rows left, LOAD_WEIGHTS (its own stream waits in SRowRead), a LOAD_PARAMS
// that is no staged LUT and NOP start (bg_pass); the rest and a FENCE flag wait in SFence. It is
// not stopped by rdy_i (the READ_HOST completed).
// READ_HOST read-ahead (rh_*, ReadAhead): the first READ_HOST of the peek (when no LOAD_WEIGHTS
// before it can join the tile queue) with 1..StageRows rows, COLS 1..N, no FENCE flag and a
// span that passes pk_chk_ok_i is read into the half of the staging ring that no background
// commit uses, under the same start conditions as a tile: as a new row stream, or joining the
// running tile stream at its address (rs_ext_jump_o: same row bytes and stride); tiles may join
// after it the same way. The READ_HOST reaching CHECK2 with all checks passed and the same read
// (HOST_ADDR, STRIDE, ROWS, COLS, queue) adopts it: it waits until its rows are in (SRhWait),
// then completes and commits them in the background exactly like its own last chunk. A stream
// error while its rows are due drops it (and the incomplete tiles): the command reads its own
// rows (failing exactly when one of them fails). It is passed on and dropped by the same
// commands as the tile queue (a WRITE_HOST must be apart from its span), so its rows equal the
// command's own read, and nothing reaches the UB before the command runs.
// RhDepth = 2: while that READ_HOST (the head) is held, the next READ_HOST of the peek (rh2_*;
// the first after the head's own) is read ahead the same way into a region that neither the
// background commit nor the head uses (ring halves 0/1, region Rb2), on the stream behind the
// head's rows (also in SRhWait, and in SFence while the head's command waits for a commit);
// it becomes the head when the head's command commits. Both are dropped together (a WRITE_HOST
// must be apart from both spans); a stream error drops every one whose rows are still due.
// Watchdog: a command still waiting on the link after timeout_units_i x 1024 cycles (0 = off)
// ends with CMD_TIMEOUT (its read job is abandoned; a WRITE_HOST drains its read stream).
// rdy_i low aborts: DMA waits end at once; datapath work in progress (a commit, a tile push, a
// read stream) is finished so local state stays consistent; no completion is reported.
// Size options for small FPGAs (defaults: as above): ReadAhead = 0 leaves out the LOAD_WEIGHTS
// and LOAD_PARAMS read-aheads (the tile queue, peek decode and staging regions, pa_buf); LutStage = 1 reads the
// 256-byte LUT of LOAD_PARAMS as a row stream of LutEntries / N packed rows into the staging
// ring (then PARAM writes from there, still only after every byte is in), so read jobs need only hold
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
  parameter int unsigned PeekN     = 4,     // SQEs the queue engine shows on pk_* (>= 2)
  parameter int unsigned RaT       = 4,     // read-ahead weight tiles (power of two >= 2)
  parameter bit          ReadAhead = 1'b1,   // LOAD_WEIGHTS read-ahead (see above)
  parameter bit          LutStage  = 1'b0,   // LUT load through the staging ring (see above)
  parameter bit          SpanSerial = 1'b0,  // CHECK1's product bit-serial (see above)
  parameter bit          BgBypass  = 1'b0,   // background commit beside a waiting MATMUL (below)
  parameter bit          StreamMm  = 1'b1,   // STREAM_MATMUL (0: INVALID_OPCODE, logic left out)
  // the datapath takes a UB_READ of a running ACTIVATE's rows (tpu_datapath StreamMm with UbReadPort2):
  // STREAM_MATMUL's write-back read then goes right after the block's ACTIVATE
  parameter bit          RdChain   = 1'b0,
  // READ_HOST read-ahead depth (ReadAhead): 2 reads a second READ_HOST ahead while the first
  // is held, into a third staging region of StageRows rows (see the header); 1: one at a time
  parameter int unsigned RhDepth   = 1,
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
  input  logic [PeekN-1:0]      pk_valid_i,       // the next PeekN SQEs the queue engine holds
  input  logic [PeekN*512-1:0]  pk_sqe_i,
  input  logic [7:0]            pk_qid_i,
  output logic [63:0]           pk_chk_addr_o,    // its span for the read window check
  output logic [31:0]           pk_chk_len_o,
  input  logic                  pk_chk_ok_i,
  output logic [63:0]           pa_chk_addr_o,    // the LOAD_PARAMS read-ahead candidate's read
  output logic [31:0]           pa_chk_len_o,
  input  logic                  pa_chk_ok_i,
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
  output logic                  rs_ext_valid_o,  // extend the running read-ahead stream
  output logic [31:0]           rs_ext_rows_o,
  output logic                  rs_ext_jump_o,   // ... by rows at rs_ext_addr_o (not continuing)
  output logic [63:0]           rs_ext_addr_o,
  input  logic                  rs_ext_ready_i,
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
  input  logic                  dp_mm_ok_i,    // the datapath would take a MATMUL / UB_WRITE now
  input  logic                  dp_wr_ok_i,
  input  logic                  dp_act_chain_i, // a chained ACTIVATE offered next cycle is taken
  input  logic                  dp_rd_ok_i,     // the datapath would take a UB_READ now
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
  // datapath command format (rtl/datapath/tpu_datapath.sv header)
  // datapath command bus (tpu_pkg, spec/tpu.toml [dp_cmd] / [dp_op])
  localparam logic [3:0] DpUbWrite = tpu_pkg::DpOpUbWrite, DpParam = tpu_pkg::DpOpParam,
                         DpMatmul = tpu_pkg::DpOpMatmul, DpActivate = tpu_pkg::DpOpActivate,
                         DpUbRead = tpu_pkg::DpOpUbRead, DpAccRead = tpu_pkg::DpOpAccRead;
  localparam int unsigned COp = tpu_pkg::DpCmdOpLsb, CFl = tpu_pkg::DpCmdFlagsLsb,
                          CA = tpu_pkg::DpCmdALsb, CB = tpu_pkg::DpCmdBLsb,
                          CRows = tpu_pkg::DpCmdRowsLsb, CData = tpu_pkg::DpCmdDataLsb;
  localparam int unsigned IdChunk = 64;  // IDENTIFY write job size (divides 4096, <= WrBytes)
  localparam int unsigned Ring    = 2 * StageRows;       // READ_HOST staging ring
  localparam int unsigned RaW     = $clog2(RaT);
  localparam bit          Rh2     = ReadAhead && RhDepth >= 2;  // a second READ_HOST read ahead
  localparam int unsigned Rb2     = Ring + (ReadAhead ? RaT * N : 0);  // its region's first row
  // + the read-ahead regions (tiles; with Rh2 the third READ_HOST region)
  localparam int unsigned StDepth = Rb2 + (Rh2 ? StageRows : 0);
  localparam int unsigned LutRows = tpu_pkg::LutEntries / N;  // LutStage: rows of the LUT
  localparam int unsigned SAw = $clog2(StDepth);
  localparam int unsigned TW  = Tiles > 1 ? $clog2(Tiles) : 1;
  localparam int unsigned KW  = $clog2(N + 1);
  localparam int unsigned PkW = $clog2(PeekN);

  if (RaT < 2 || (RaT & (RaT - 1)) != 0 || PeekN < 2) begin : g_bad_ra
    $error("tpu_cmd_proc: RaT must be a power of two >= 2, PeekN >= 2");
  end
  if (RhDepth < 1 || RhDepth > 2) begin : g_bad_rh
    $error("tpu_cmd_proc: RhDepth must be 1 or 2");
  end
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
    SPreWait, SPaWait, SRhWait, SSmReq, SSm
  } state_e;

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
    f_r14    = sqe_q[tpu_pkg::SqeHostAddr2LoLsb +: 32];
    f_r15    = sqe_q[tpu_pkg::SqeHostAddr2HiLsb +: 32];
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

  // read-ahead: a queue of up to RaT LOAD_WEIGHTS tiles in regions ra_hd .. ra_hd + ra_n - 1
  // (mod RaT) of the staging RAM, in command order; the first ra_in are complete, the next one
  // fills (ra_rin rows in); the incomplete ones are one row stream (stream_on)
  logic [RaW:0]     ra_n_q, ra_n_d, ra_in_q, ra_in_d;
  logic [RaW-1:0]   ra_hd_q, ra_hd_d;
  logic [KW-1:0]    ra_rin_q, ra_rin_d;
  logic             ra_fail_q, ra_fail_d;     // the stream failed in the last tile, ra_n - 1
  logic [7:0]       ra_qid_q, ra_qid_d;       // queue of every tile
  logic             ra_push_q, ra_push_d;     // the tile being pushed is in region ra_hd - 1
  logic [RaT*64-1:0] ra_addr_q, ra_addr_d;    // per region: HOST_ADDR, STRIDE, ROWS, COLS
  logic [RaT*32-1:0] ra_stride_q, ra_stride_d;
  logic [RaT*64-1:0] ra_end_q, ra_end_d;      // ... and the end of its span (HOST_ADDR + LENGTH)
  logic             ra_apart;                 // every queued tile's span apart from f_addr/f_len
  logic [RaT*KW-1:0] ra_rows_q, ra_rows_d, ra_cols_q, ra_cols_d;
  logic             stream_on;                // rows of queued tiles still to come
  logic [RaW-1:0]   ra_fill, ra_tl, ra_new;   // region filling, of the tail tile, of a new one
  logic [SAw-1:0] pbase_q, pbase_d;                    // staging row of the tile being pushed
  logic           pre_go, pre_add, pre_wh;
  logic           wh_clean_q, wh_clean_d;             // no data write pending when WRITE_HOST began
  // LOAD_PARAMS read-ahead: one parameter vector (BIAS/MULT/SHIFT, 4 x COLS bytes) read by a
  // read job while earlier commands run, kept in pa_buf for the command with the same read
  logic           pa_valid_q, pa_valid_d;    // a read-ahead for pa_addr/len/qid is held
  logic           pa_busy_q, pa_busy_d;      // its read job is outstanding (also once dropped)
  logic           pa_err_q, pa_err_d;        // ... and ended with an error
  logic           pa_use_q, pa_use_d;        // the running LOAD_PARAMS adopted it
  logic [63:0]    pa_addr_q, pa_addr_d;
  logic [31:0]    pa_len_q, pa_len_d;
  logic [7:0]     pa_qid_q, pa_qid_d;
  logic [4*N*8-1:0] pa_buf, pbuf;            // the vector read ahead; the running command's
  logic           pa_go, pa_wh, pa_apart, rh_tail;
  logic           dw_pend_q;                          // a data write job may not be sent yet
  // READ_HOST background commit (ReadAhead): once every row of a READ_HOST is in the staging
  // ring without error its status is final; it completes, and rows [bg_row, bg_rows) are
  // committed to UB rows bg_la + row beside the next commands (see the header)
  logic           bg_active_q, bg_active_d;
  logic           bg_cval_q, bg_cval_d;        // st_rdata holds staging row bg_row (read last cycle)
  logic [15:0]    bg_mm_q, bg_mm_d;            // MATMULs accepted before it, still in flight
  logic [31:0]    bg_row_q, bg_row_d, bg_rows_q, bg_rows_d, bg_la_q, bg_la_d;
  logic           bg_pass;                     // the command in sqe_q may start beside it
  logic           bg_rd_ok, bg_wr_ok;          // the staging read port / command slot are free
  logic [1:0]     bg_reg_q, bg_reg_d;          // the staging region its rows are in (2: Rb2)
  logic [31:0]    mu_lo_q, mu_hi_q;            // UB rows [lo, hi) read by the MATMULs in flight
  logic           mm_acc;                      // a MATMUL is accepted now
  // READ_HOST read-ahead (ReadAhead): one READ_HOST of at most StageRows rows read into staging
  // ring half rh_half while earlier commands run, adopted by the READ_HOST with the same read
  localparam int unsigned RhW = $clog2(StageRows + 1);
  logic           rh_v_q, rh_v_d;              // held (its rows in or due)
  logic [RhW-1:0] rh_in_q, rh_in_d;            // rows in
  logic [31:0]    rh_rows_q, rh_rows_d, rh_stride_q, rh_stride_d, rh_cols_q, rh_cols_d;
  logic [63:0]    rh_addr_q, rh_addr_d, rh_end_q, rh_end_d;
  logic [7:0]     rh_qid_q, rh_qid_d;
  logic [1:0]     rh_reg_q, rh_reg_d;          // its staging region: ring half 0/1, 2 (Rb2)
  logic [RaW:0]   rh_tb_q, rh_tb_d;            // incomplete tiles whose rows come before its rows
  logic           st_tlrh_q, st_tlrh_d;        // the stream's last rows are the READ_HOST's
  logic [KW-1:0]  st_rb_q, st_rb_d;            // row bytes and stride of the running stream
  logic [63:0]    st_stride_q, st_stride_d;
  logic           rh_on, rh_rown, rh_ok, rh_add, rh_go, rh_ext, rh_apart, pk_rh;
  // RhDepth = 2: the second entry (rh2_*, its rows after the head's in the stream; held only
  // while the head is), which becomes the head when the head's command commits it
  logic           rh2_v_q, rh2_v_d;
  logic [RhW-1:0] rh2_in_q, rh2_in_d;
  logic [31:0]    rh2_rows_q, rh2_rows_d, rh2_stride_q, rh2_stride_d, rh2_cols_q, rh2_cols_d;
  logic [63:0]    rh2_addr_q, rh2_addr_d, rh2_end_q, rh2_end_d;
  logic [7:0]     rh2_qid_q, rh2_qid_d;
  logic [1:0]     rh2_reg_q, rh2_reg_d, rh_free;
  logic [RaW:0]   rh2_tb_q, rh2_tb_d;
  logic           rh2_on, rh2_rown, rh_shift;
  logic [N*8-1:0] rh2_mask;
  logic           pr_skip, pr_hit, pr_seen;
  function automatic logic [31:0] rh_base(input logic [1:0] r);  // a region's first row
    rh_base = (r == 2'd2) ? 32'(Rb2) : 32'(r[0]) * StageRows;
  endfunction
  // STREAM_MATMUL: CHECK1 products (registered for CHECK2), the tile being pushed: its block
  // sm_b and K-tile sm_t, its UB (A) and ACC rows, the stream's failure
  logic           is_sm;
  logic [31:0]    sm_tot_q, sm_tn_q, sm_ubn_q, sm_accn_q;  // C x K, T (K-tiles), T x R, C x R
  logic [KW-1:0]  sm_lastk_q;                  // rows of a block's last K-tile (1..N)
  logic [31:0]    sm_tn_d;
  logic [31:0]    sm_t_q, sm_t_d, sm_b_q, sm_b_d, sm_ua_q, sm_ua_d, sm_aa_q, sm_aa_d;
  logic           sm_err_q, sm_err_d;
  // ... with OP0.ACTIVATE: after a block's last tile, its bias vector (4 stream rows) into
  // sm_bias (sm_ph), then the writer (sm_pw) issues its N PARAM writes (sm_pc) and the ACTIVATE
  // of ACC rows sm_wa into UB rows sm_wo through the command slot while the next block's tiles
  // are pushed; sm_actw: that ACTIVATE not yet done (act_done_i); sm_pm: the writer's ACTIVATE
  // waits for the next block's first MATMUL to enter the slot (it does not accumulate, so the
  // datapath runs the ACTIVATE beside it instead of after the MXU has drained)
  logic           sm_act, sm_lut, sm_astr, sm_wb;
  // ... with OP0.K_MAJOR: the first sm_gn blocks (OP0.K_GROUP, 0 = all C; 1 without K_MAJOR:
  // the block-major order) interleaved K-tile by K-tile (sm_il: the tile's block is one of
  // them), in stream order; sm_nx*: the tile after the one whose MATMUL (or bias) ends now
  logic           sm_kmaj, sm_il, sm_olap;
  // ... with OP0.PARAMS: the MULT (sm_pp = 1) and SHIFT (2) vectors at the stream's start, 4
  // rows each, read like a bias vector into sm_bias, checked (sm_pvok), then written by the
  // writer as N PARAM writes of kind sm_wk (BIAS: the block epilogue's, then its ACTIVATE)
  logic           sm_prm, sm_pvok;
  logic [1:0]     sm_pp_q, sm_pp_d;
  logic [2:0]     sm_wk_q, sm_wk_d;
  logic [31:0]    sm_gn, sm_nxt, sm_nxb, sm_nxua, sm_nxaa;
  logic           sm_nxap, sm_nxacc;
  // ... with OP0.WRITE_BACK: the write region's window check (CHECK1, registered), and after
  // each block's ACTIVATE a UB_READ of its R output rows (sm_rp: to issue, from UB row sm_ro;
  // sm_rd: its rows still coming), gathered into write jobs to host address sm_ha on
  // (after a failed stream only the blocks whose rows all came in are written back, as the
  // golden model does: sm_wcl for the writer's block, sm_rcl for the ACTIVATE running)
  logic           sm_wok_q, sm_rp_q, sm_rp_d, sm_rd_q, sm_rd_d, sm_wflush;
  logic           sm_wcl_q, sm_wcl_d, sm_rcl_q, sm_rcl_d;
  // the write-back's UB_READ goes into the free command slot before anything else (a tile's
  // MATMUL waits a cycle: it only has to be there when the running one issues its last row;
  // behind the MATMULs the read waited a whole block and held the next ACTIVATE: measured
  // ~40 MXU-idle cycles per block at 64x256x256)
  logic           sm_rdgo;
  logic [31:0]    sm_ro_q, sm_ro_d;
  logic [63:0]    sm_ha_q, sm_ha_d, sm_wlen;
  // ... with OP0.A_STREAM: before each K-tile of block 0, R rows of A's K-tile (sm_ap), row
  // sm_ai of them into UB row sm_ua + sm_ai by a UB_WRITE in the command slot
  // (sm_mm0: MATMULs accepted before the command not yet done; A's UB_WRITEs wait for them, as
  // they may read the rows A overwrites)
  logic           sm_ap_q, sm_ap_d;
  // ... with OP0.W_FIRST (A_STREAM): block 0's first tile comes before A's K-tile 0 in the
  // stream; its MATMUL goes into the slot chained (tpu_datapath StreamMm: it issues each row
  // once written), then A's K-tile 0 rows follow it (sm_wfp: that tile still to come; sm_wfa:
  // A's K-tile 0 rows being written, to UB row LOCAL_ADDR + sm_ai)
  logic           sm_wf, sm_wfp_q, sm_wfp_d, sm_wfa_q, sm_wfa_d;
  logic [31:0]    sm_ai_q, sm_ai_d;
  logic [15:0]    sm_mm0_q, sm_mm0_d;
  logic           sm_ph_q, sm_ph_d, sm_pw_q, sm_pw_d, sm_pm_q, sm_pm_d;
  logic [4*N*8-1:0] sm_bias_q, sm_bias_d;
  logic [31:0]    sm_oa_q, sm_oa_d, sm_pc_q, sm_pc_d, sm_wa_q, sm_wa_d, sm_wo_q, sm_wo_d;
  // the writer's ACTIVATE chained (tpu_datapath StreamMm) on the block's last MATMUL, the
  // datapath's last one (its UB rows sm_lua): it goes into the slot before the next block's
  // first MATMUL instead of after it (sm_pm), as the datapath takes it at once and takes the
  // MATMUL beside it; measured: see docs/performance.md session 11
  logic [31:0]    sm_lua_q, sm_lua_d;
  logic           sm_chgo;
  logic           sm_actw_q, sm_actw_d;
  logic [KW-1:0]  sm_kn;                       // rows of the tile being pushed (the rest zero)
  logic           sm_end;                      // every tile multiplied, or failed between tiles
  logic           ra_go, tl_jump, st_run, st_compat;
  logic [N*8-1:0] rh_mask;

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
    is_sm    = StreamMm && f_op == tpu_pkg::OpStreamMatmul;
    sm_act   = (f_op0 & tpu_pkg::StreamMatmulActivate) != 0;
    sm_lut   = (f_op0 & tpu_pkg::StreamMatmulLut) != 0;
    sm_astr  = (f_op0 & tpu_pkg::StreamMatmulAStream) != 0;
    sm_wb    = (f_op0 & tpu_pkg::StreamMatmulWriteBack) != 0;
    sm_kmaj  = (f_op0 & tpu_pkg::StreamMatmulKMajor) != 0;
    sm_prm   = (f_op0 & tpu_pkg::StreamMatmulParams) != 0;
    sm_wf    = (f_op0 & tpu_pkg::StreamMatmulWFirst) != 0;
    sm_wlen  = 64'(f_op2[7:0]) * 64'(f_op1[15:0]) * 64'(N);  // C x R x N (when the limits hold)
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
  // rows of the span: STREAM_MATMUL streams C x K rows, + 4 per block with ACTIVATE, + T x R
  // with A_STREAM (< 2^29 when its limits hold; checked in the same step)
  logic [31:0] span_rows;
  assign span_rows = is_sm ? 32'(f_op2[7:0]) *
                             (32'(f_rows[15:0]) + (sm_act ? tpu_pkg::StreamMatmulBiasRows : 32'd0)) +
                             (sm_astr ? sm_tn_d * 32'(f_op1[15:0]) : 32'd0) +
                             (sm_prm ? tpu_pkg::StreamMatmulParamsRows : 32'd0)
                           : f_rows;
  always_comb begin  // apart: span_prod depends on stride_d
    span1    = span_prod + rb_d;
    span_ok_d = span_rows != 0 && !(f_stride != 0 && {32'd0, f_stride} < rb_d) &&
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
        sa_q <= span_rows - 32'd1;
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
    assign span_prod = {32'd0, span_rows - 32'd1} * stride_d;
  end

  // ---------------------------------------------------------------- read-ahead candidate
  // With no tile queued: the next SQE, or the one after it when the next one is a MATMUL (that
  // neither writes host memory nor streams rows, so the read-ahead stays valid across it). With
  // tiles queued: the first LOAD_WEIGHTS of the peek whose rows continue the last queued tile's
  // (that tile has N rows; same COLS and STRIDE; HOST_ADDR N x stride on): it joins the queue
  // and, while the stream runs, extends it (no new round trip). The candidate is only a hint:
  // a tile is used by the command that reaches CHECK2 with the same read (HOST_ADDR, STRIDE,
  // ROWS, COLS, queue) while it is the queue's head.
  function automatic logic [31:0] pk_ent_dw(input logic [PeekN*512-1:0] v, input logic [PkW-1:0] i,
                                            input int unsigned lsb);
    pk_ent_dw = v[512*i + lsb +: 32];
  endfunction
  function automatic logic [7:0] pk_ent_op(input logic [PeekN*512-1:0] v, input logic [PkW-1:0] i);
    pk_ent_op = v[512*i + tpu_pkg::SqeOpcodeLsb +: 8];
  endfunction
  function automatic logic [63:0] pk_ent_addr(input logic [PeekN*512-1:0] v,
                                              input logic [PkW-1:0] i);
    pk_ent_addr = {v[512*i + tpu_pkg::SqeHostAddrHiLsb +: 32],
                   v[512*i + tpu_pkg::SqeHostAddrLoLsb +: 32]};
  endfunction
  logic [7:0]   pk_op, pk_flags;
  logic [31:0]  pk_len, pk_stride, pk_rows, pk_cols;
  logic [63:0]  pk_addr, pk_stride_eff, pk_span, tl_next, tl_stride_eff;
  logic [PkW-1:0] pk_i, pr_i;
  logic         pk_ok, pk_val, pk_cont, pr_found;
  always_comb begin
    // the first READ_HOST of the peek (READ_HOST read-ahead), when none is held; with the
    // head held (Rh2), the one after the head's own READ_HOST, which is the peek's first
    // unless it is the current command (from SFence to its commit in SRhWait)
    pr_skip = rh_v_q && !(f_op == tpu_pkg::OpReadHost &&
                          (state_q == SFence || state_q == SCheck1 || state_q == SCheck2 ||
                           state_q == SRhWait));
    pr_i = '0;
    pr_hit = 1'b0;
    pr_seen = 1'b0;
    for (int i = 0; i < PeekN; i++) begin
      if (pk_valid_i[i] && pk_ent_op(pk_sqe_i, PkW'(i)) == tpu_pkg::OpReadHost) begin
        if (!pr_hit && (pr_seen || !pr_skip)) begin
          pr_i = PkW'(i);
          pr_hit = 1'b1;
        end
        pr_seen = 1'b1;
      end
    end
    pr_found = ReadAhead && pr_hit && (!rh_v_q || (Rh2 && !rh2_v_q));
    ra_tl   = RaW'(32'(ra_hd_q) + 32'(ra_n_q) - 32'd1);
    tl_stride_eff = (ra_stride_q[32*ra_tl +: 32] != 0) ? {32'd0, ra_stride_q[32*ra_tl +: 32]}
                                                       : 64'(ra_cols_q[KW*ra_tl +: KW]);
    tl_next = ra_addr_q[64*ra_tl +: 64] + 64'(N) * tl_stride_eff;
    pk_i    = (pk_ent_op(pk_sqe_i, '0) == tpu_pkg::OpMatmul) ? PkW'(1) : '0;
    pk_cont = 1'b0;
    if (ra_n_q != '0) begin
      pk_i = '0;
      for (int i = PeekN - 1; i >= 0; i--) begin
        if (pk_valid_i[i] && pk_ent_op(pk_sqe_i, PkW'(i)) == tpu_pkg::OpLoadWeights &&
            pk_ent_addr(pk_sqe_i, PkW'(i)) == tl_next && (!pr_found || PkW'(i) < pr_i)) begin
          pk_i = PkW'(i);
          pk_cont = 1'b1;
        end
      end
    end
    // no tile before it in command order: the READ_HOST is the candidate
    pk_rh = pr_found && !(ra_n_q != '0 ? pk_cont :
                          pk_valid_i[pk_i] && pk_ent_op(pk_sqe_i, pk_i) == tpu_pkg::OpLoadWeights);
    if (pk_rh) pk_i = pr_i;
    pk_val    = pk_valid_i[pk_i];
    pk_op     = pk_ent_op(pk_sqe_i, pk_i);
    pk_flags  = pk_sqe_i[512*pk_i + tpu_pkg::SqeFlagsLsb +: 8];
    pk_addr   = pk_ent_addr(pk_sqe_i, pk_i);
    pk_len    = pk_ent_dw(pk_sqe_i, pk_i, tpu_pkg::SqeLengthLsb);
    pk_stride = pk_ent_dw(pk_sqe_i, pk_i, tpu_pkg::SqeStrideLsb);
    pk_rows   = pk_ent_dw(pk_sqe_i, pk_i, tpu_pkg::SqeRowsLsb);
    pk_cols   = pk_ent_dw(pk_sqe_i, pk_i, tpu_pkg::SqeColsLsb);
    pk_stride_eff = (pk_stride != 0) ? {32'd0, pk_stride} : {32'd0, pk_cols};
    pk_span   = ({32'd0, pk_rows} - 64'd1) * pk_stride_eff + {32'd0, pk_cols};
  end
  always_comb begin  // apart from the decode: pk_chk_ok_i depends on pk_chk_addr_o/len_o
    pk_ok     = pk_val && pk_op == tpu_pkg::OpLoadWeights &&
                (pk_flags & tpu_pkg::SqeFlagFence) == 0 &&
                pk_rows != 0 && pk_rows <= N && pk_cols != 0 && pk_cols <= N &&
                !(pk_stride != 0 && pk_stride < pk_cols) && pk_span == {32'd0, pk_len} &&
                pk_chk_ok_i &&
                (ra_n_q == '0 ||
                 (pk_cont && 32'(ra_rows_q[KW*ra_tl +: KW]) == N && pk_qid_i == ra_qid_q &&
                  pk_cols == 32'(ra_cols_q[KW*ra_tl +: KW]) &&
                  pk_stride == ra_stride_q[32*ra_tl +: 32]));
    rh_ok     = pk_rh && pk_val && (pk_flags & tpu_pkg::SqeFlagFence) == 0 &&
                pk_rows != 0 && pk_rows <= StageRows && pk_cols != 0 && pk_cols <= N &&
                !(pk_stride != 0 && pk_stride < pk_cols) && pk_span == {32'd0, pk_len} &&
                pk_chk_ok_i;
  end
  assign pk_chk_addr_o = ReadAhead ? pk_addr : '0;
  assign pk_chk_len_o  = ReadAhead ? pk_len : '0;

  // LOAD_PARAMS read-ahead candidate: the first BIAS/MULT/SHIFT LOAD_PARAMS of the peek; it is
  // read ahead when it has 1..N channels (LENGTH = 4 x COLS), no FENCE flag, and its vector is
  // readable and clear of the rings and the MSI address
  logic [PkW-1:0] pp_i;
  logic           pp_found, pp_ok;
  logic [31:0]    pp_len, pp_cols;
  logic [63:0]    pp_addr;
  always_comb begin
    pp_i = '0;
    pp_found = 1'b0;
    for (int i = PeekN - 1; i >= 0; i--) begin
      if (pk_valid_i[i] && pk_ent_op(pk_sqe_i, PkW'(i)) == tpu_pkg::OpLoadParams &&
          pk_ent_dw(pk_sqe_i, PkW'(i), tpu_pkg::SqeOp0Lsb) <= 32'(tpu_pkg::ParamShift)) begin
        pp_i = PkW'(i);
        pp_found = 1'b1;
      end
    end
    pp_addr = pk_ent_addr(pk_sqe_i, pp_i);
    pp_len  = pk_ent_dw(pk_sqe_i, pp_i, tpu_pkg::SqeLengthLsb);
    pp_cols = pk_ent_dw(pk_sqe_i, pp_i, tpu_pkg::SqeColsLsb);
  end
  always_comb begin  // apart from the decode: pa_chk_ok_i depends on pa_chk_addr_o/len_o
    pp_ok = pp_found && (pk_sqe_i[512*pp_i + tpu_pkg::SqeFlagsLsb +: 8] & tpu_pkg::SqeFlagFence) == 0 &&
            pp_cols != 0 && pp_cols <= N &&
            {32'd0, pp_len} == {30'd0, pp_cols, 2'b00} && pa_chk_ok_i;
  end
  assign pa_chk_addr_o = ReadAhead ? pp_addr : '0;
  assign pa_chk_len_o  = ReadAhead ? pp_len : '0;
  assign pa_apart = {1'b0, pa_addr_q} + {33'd0, pa_len_q} <= {1'b0, f_addr} ||
                    {1'b0, f_addr} + {33'd0, f_len} <= {1'b0, pa_addr_q};
  if (ReadAhead) begin : g_pa_buf
    logic [4*N*8-1:0] pa_buf_q;
    always_ff @(posedge clk_i) if (pa_busy_q && rd_done_i) pa_buf_q <= rd_buf_i[4*N*8-1:0];
    assign pa_buf = pa_buf_q;
  end else begin : g_no_pa_buf
    assign pa_buf = '0;
  end
  assign pbuf = pa_use_q ? pa_buf : rd_buf_i[4*N*8-1:0];
  logic unused_rd_buf;  // (the bytes beyond a vector serve the LUT, without LutStage)
  assign unused_rd_buf = ^rd_buf_i;
  always_comb begin
    ra_apart = 1'b1;
    for (int unsigned r = 0; r < RaT; r++) begin
      if (32'(RaW'(r - 32'(ra_hd_q))) < 32'(ra_n_q) &&
          {1'b0, ra_addr_q[64*r +: 64]} < {1'b0, f_addr} + {33'd0, f_len} &&
          {1'b0, f_addr} < {1'b0, ra_end_q[64*r +: 64]})
        ra_apart = 1'b0;
    end
  end

  // (every READ_HOST held apart from f_addr/f_len)
  assign rh_apart = !({1'b0, rh_addr_q} < {1'b0, f_addr} + {33'd0, f_len} &&
                      {1'b0, f_addr} < {1'b0, rh_end_q}) &&
                    !(rh2_v_q && {1'b0, rh2_addr_q} < {1'b0, f_addr} + {33'd0, f_len} &&
                      {1'b0, f_addr} < {1'b0, rh2_end_q});
  always_comb begin
    for (int unsigned i = 0; i < N; i++) begin
      rh_mask[8*i +: 8] = (32'(i) < rh_cols_q) ? 8'hFF : 8'h00;
      rh2_mask[8*i +: 8] = (32'(i) < rh2_cols_q) ? 8'hFF : 8'h00;
    end
  end
  // a free region for a READ_HOST joining: none the background commit reads or the head holds
  always_comb begin
    rh_free = 2'd0;
    if ((bg_active_q && bg_reg_q == 2'd0) || (rh_v_q && rh_reg_q == 2'd0)) begin
      rh_free = 2'd1;
      if (Rh2 && ((bg_active_q && bg_reg_q == 2'd1) || (rh_v_q && rh_reg_q == 2'd1)))
        rh_free = 2'd2;
    end
  end

  // window check operands: the whole span, R for transfers into the device, W otherwise
  // (STREAM_MATMUL with WRITE_BACK: its write region in CHECK1, the stream in CHECK2)
  logic chk_wb;
  assign chk_wb      = state_q == SCheck1 && is_sm && sm_wb;
  assign chk_addr_o  = chk_wb ? {f_r15, f_r14} : f_addr;
  assign chk_len_o   = chk_wb ? sm_wlen[31:0] : f_len;
  assign chk_write_o = is_wh || is_fence || is_id || chk_wb;

  logic [7:0] check_sc;
  always_comb begin
    logic nz_addr;
    nz_addr  = f_addr != 64'd0;
    check_sc = tpu_pkg::ScSuccess;
    if (32'(f_op) >= tpu_pkg::OpCount || (!StreamMm && f_op == tpu_pkg::OpStreamMatmul)) begin
      check_sc = tpu_pkg::ScInvalidOpcode;
    end else if ((f_flags & ~tpu_pkg::SqeFlagsValid) != 0 ||
                 (!is_sm && (f_r14 != 0 || f_r15 != 0))) begin  // (STREAM_MATMUL: below)
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
        tpu_pkg::OpStreamMatmul: begin
          if ((f_op0 & ~(tpu_pkg::StreamMatmulAccumulate | tpu_pkg::StreamMatmulActivate |
                         tpu_pkg::StreamMatmulLut | tpu_pkg::StreamMatmulAStream |
                         tpu_pkg::StreamMatmulWriteBack | tpu_pkg::StreamMatmulKMajor |
                         tpu_pkg::StreamMatmulKGroupMask | tpu_pkg::StreamMatmulParams |
                         tpu_pkg::StreamMatmulWFirst)) != 0 ||
              (!sm_kmaj && (f_op0 & tpu_pkg::StreamMatmulKGroupMask) != 0) ||
              (sm_wf && !sm_astr) ||
              ((sm_lut || sm_wb || sm_prm) && !sm_act) || (!sm_act && f_op3 != 0) ||
              (!sm_wb && (f_r14 != 0 || f_r15 != 0)) ||
              (sm_wb && sm_wlen[63:32] != '0) ||
              f_rows == 0 || f_rows > tpu_pkg::StreamMatmulMaxK || f_cols == 0 || f_cols > N ||
              ((sm_act || sm_astr) && f_cols != N) ||
              f_op1 == 0 || f_op1 > tpu_pkg::StreamMatmulMaxR || f_op2 == 0 ||
              f_op2 > tpu_pkg::StreamMatmulMaxBlocks || !span_ok_q ||
              32'(f_op0[15:8]) > f_op2)
            check_sc = tpu_pkg::ScInvalidField;
          else if (!range_ok(f_la, sm_ubn_q, UbRows) || !range_ok(f_la2, sm_accn_q, AccRows) ||
                   (sm_act && !range_ok(f_op3, sm_accn_q, UbRows)) || sm_olap)
            check_sc = tpu_pkg::ScLocalRange;
          else if (fcount_q != '0 ||
                   (sm_act && ((!sm_prm && (!loaded_q[tpu_pkg::ParamMult] ||
                                             !loaded_q[tpu_pkg::ParamShift])) ||
                               !loaded_q[tpu_pkg::ParamOutput] ||
                               (sm_lut && !loaded_q[tpu_pkg::ParamLut]))))
            check_sc = tpu_pkg::ScSequenceError;
          else if (!chk_ok_i || (sm_wb && !sm_wok_q)) check_sc = tpu_pkg::ScDmaAccessViolation;
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
      v = pbuf[32*i +: 32];
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
      pre_mask[8*i +: 8] = (32'(i) < 32'(ra_cols_q[KW*ra_fill +: KW])) ? 8'hFF : 8'h00;
  end

  assign cmd_ready_o    = state_q == SIdle;
  // (a LOAD_PARAMS waits until a read-ahead job has ended: the job engine is shared)
  assign rd_req_valid_o = (state_q == SParRead && rdy_i && !pa_busy_q) || pa_go;
  // LOAD_PARAMS reads the job buffer until its last PARAM write; a read-ahead until its copy
  assign rd_hold_o      = state_q == SParRead || state_q == SParWait || state_q == SParWrite ||
                          pa_busy_q;
  assign rd_req_addr_o  = pa_go ? pp_addr : haddr_q;
  assign rd_req_len_o   = pa_go ? LenW'(pp_len) : LenW'(f_len);
  logic [31:0] f_rows_eff;  // rows of the row stream (LutStage: the LUT's)
  assign f_rows_eff = lut_rs ? 32'(LutRows) : is_sm ? sm_tot_q : f_rows;
  // RESULT of READ_HOST and LOAD_WEIGHTS: bytes read, ROWS x COLS (used where COLS <= N)
  logic [31:0] f_bytes;
  assign f_bytes = f_rows * 32'(f_cols[KW-1:0]);
  // one row stream per staging chunk: the rows left, at most StageRows
  // ... or the read-ahead's stream (never both: see pre_go)
  always_comb begin
    // a WRITE_HOST streaming rows: the read may start beside its writes when every write
    // before it had been sent when it started (wh_clean) and the tile's bytes are apart from
    // the WRITE_HOST's span, so the read cannot pass a write to the bytes it reads
    pre_wh = state_q == SWhStream && wh_clean_q &&
             (pk_addr + 64'(pk_len) <= f_addr || f_addr + 64'(f_len) <= pk_addr);
    // a tile joins the queue when a region is free (the one being pushed is not) and the
    // stream is not failed: as a new stream when none runs, else as its extension
    // (a READ_HOST's commit once its own stream has delivered every row: rh_tail)
    rh_tail = (state_q == SCommit || state_q == SCommitLast) && row_q == f_rows;
    // a read-ahead joining the running stream (tile rows due, or the READ_HOST's) at another
    // address than the next row's needs its row bytes and stride
    st_run    = stream_on || rh_on || rh2_on;
    st_compat = KW'(pk_cols) == st_rb_q && pk_stride_eff == st_stride_q;
    tl_jump   = st_run && (st_tlrh_q || ra_n_q == '0);
    pre_add = ReadAhead && rdy_i && (!dw_pend_q || pre_wh) && pk_ok && !ra_fail_q &&
              32'(ra_n_q) + 32'(ra_push_q) < RaT &&
              (!tl_jump || st_compat) &&
              ((state_q == SDpCmd && !is_wh) || state_q == SActWait || state_q == SPush || rh_tail ||
               (state_q == SPreWait && ra_n_q != '0) || state_q == SParRead || state_q == SParWait ||
               state_q == SParWrite || pre_wh || (state_q == SDone && bg_active_q) ||
               state_q == SRhWait);
    pre_go = pre_add && !st_run;
    // the READ_HOST read-ahead: as a tile, but not while the state reads or writes the staging
    // ring (a READ_HOST's commit, a staged LUT, a LOAD_WEIGHTS pushing from the ring)
    rh_add = ReadAhead && rdy_i && (!dw_pend_q || pre_wh) && rh_ok &&
             ((state_q == SDpCmd && !is_wh) || state_q == SActWait ||
              (state_q == SPush && ra_push_q) || (state_q == SPreWait && ra_n_q != '0) ||
              state_q == SParRead || state_q == SParWait || (state_q == SParWrite && !lut_rs) ||
              pre_wh || (state_q == SDone && bg_active_q) ||
              // (the second entry also while the head's command waits for its rows, or for
              // the background commit before it)
              (Rh2 && rh_v_q && ((state_q == SRhWait && rh_on) ||
                                 (state_q == SFence && f_op == tpu_pkg::OpReadHost))));
    rh_go  = rh_add && !st_run;
    rh_ext = rh_add && st_run && st_compat;
    ra_go  = pre_go || rh_go;
    // the LOAD_PARAMS read-ahead starts under the same conditions as a tile (not while a
    // LOAD_PARAMS of its own uses the job engine), one vector at a time
    pa_wh = state_q == SWhStream && wh_clean_q &&
            (pp_addr + 64'(pp_len) <= f_addr || f_addr + 64'(f_len) <= pp_addr);
    pa_go = ReadAhead && rdy_i && (!dw_pend_q || pa_wh) && pp_ok && !pa_valid_q && !pa_busy_q &&
            ((state_q == SDpCmd && !is_wh) || state_q == SActWait || state_q == SPush ||
             state_q == SPreWait || state_q == SRowWait || state_q == SCommit ||
             state_q == SCommitLast || (state_q == SSm && !sm_wb) || pa_wh);
  end
  assign stream_on       = ra_in_q != ra_n_q && !ra_fail_q;
  assign rh_on           = rh_v_q && 32'(rh_in_q) != rh_rows_q;
  assign rh_rown         = rh_on && (rh_tb_q == '0 || !stream_on);  // the next row is its
  assign rh2_on          = rh2_v_q && 32'(rh2_in_q) != rh2_rows_q;
  assign rh2_rown        = rh2_on && !rh_on && (rh2_tb_q == '0 || !stream_on);
  assign ra_fill         = RaW'(32'(ra_hd_q) + 32'(ra_in_q));
  assign ra_new          = RaW'(32'(ra_hd_q) + 32'(ra_n_q));
  assign rs_ext_valid_o  = (pre_add && st_run) || rh_ext;
  assign rs_ext_rows_o   = pk_rows;
  assign rs_ext_jump_o   = rh_ext || tl_jump;
  assign rs_ext_addr_o   = pk_addr;
  // (a READ_HOST, LOAD_WEIGHTS or staged LUT stream writes the ring: not before a background
  // commit has read its rows)
  assign rs_req_valid_o  = ((state_q == SRowRead || state_q == SSmReq) && rdy_i && !bg_active_q) ||
                           ra_go;
  assign rs_req_addr_o   = ra_go ? pk_addr : haddr_q;
  assign rs_req_rb_o     = ra_go ? KW'(pk_cols) : lut_rs ? KW'(N) : KW'(f_cols);
  assign rs_req_stride_o = ra_go ? pk_stride_eff : stride_q;
  assign rs_req_rows_o   = ra_go ? pk_rows : f_rows_eff - row_q;
  // a READ_HOST stream may run up to a ring ahead of the rows committed so far (a ring slot is
  // free once its row has been read out for the commit; one row of slack for the read)
  // (STREAM_MATMUL: a ring ahead of the first row of the tile being pushed)
  assign rs_limit_o      = (ra_go || st_run) ? 32'hFFFF_FFFF :
                           (state_q == SSmReq || state_q == SSm) ? cbase_q + 32'(Ring) :
                           (state_q == SCommit || state_q == SCommitLast) ?
                           cbase_q + crow_q + 32'(Ring) - 32'd1 : cbase_q + 32'(Ring);
  // BgBypass (the datapath right behind, no register slice): a MATMUL in the command slot is
  // offered only when the datapath takes it at once (it would stall there until the running
  // MATMUL issues its last row); meanwhile the port carries the background commit's UB_WRITEs
  // (taken at once too), which the MATMUL, later and apart from the rows committed, may pass
  // STREAM_MATMUL's A rows (A_STREAM) go the same way (sm_byp): the waiting MATMUL reads the
  // previous K-tile's UB rows, A's row goes to the next K-tile's (and no MATMUL from before
  // the command is left: sm_mm0); otherwise A's R rows per K-tile had to wait for the slot,
  // behind the MATMUL, and the next tile's MATMUL behind them (measured: K_MAJOR did not pay
  // without it)
  // The write-back's UB_READ (sm_rdbyp) too: the MATMUL waiting in the slot reads A's UB rows
  // and writes ACC rows, the read reads the block's output rows (the ACTIVATE is done) from
  // the UB copy; otherwise the read waited for that MATMUL (up to R cycles) and the next
  // ACTIVATE for the read (measured 470 cycles at 512x64x64 with BIAS PARAMs beside the
  // ACTIVATE, which let the next MATMUL into the slot before the ACTIVATE was done)
  logic mm_hold, byp, dp_rdy, sm_byp, sm_rdbyp;
  logic [CmdWidth-1:0] bgc;
  always_comb begin
    bgc = '0;
    if (sm_rdbyp) begin
      bgc[COp +: 4] = DpUbRead;
      bgc[CA +: 32] = sm_ro_q;  bgc[CRows +: 32] = f_op1;
    end else begin
      bgc[COp +: 4] = DpUbWrite;
      bgc[CA +: 32] = sm_byp ? sm_ua_q + sm_ai_q : bg_la_q + bg_row_q;
      bgc[CRows +: 32] = 32'd1;
      bgc[CData +: N*8] = st_rdata;
    end
  end
  assign mm_hold    = BgBypass && dpv_q && dpc_q[COp +: 4] == DpMatmul && !dp_mm_ok_i;
  assign sm_byp     = StreamMm && state_q == SSm && sm_ap_q && sm_pp_q == '0 && cval_q &&
                      sm_mm0_q == '0 && !sm_wfa_q &&
                      !sm_err_q && !bg_active_q;
  assign sm_rdbyp   = StreamMm && state_q == SSm && sm_rp_q && !sm_rd_q && dp_rd_ok_i;
  assign byp        = mm_hold && ((((bg_active_q && bg_cval_q) || sm_byp) && dp_wr_ok_i) ||
                                  sm_rdbyp);
  assign dp_valid_o = byp || (dpv_q && !mm_hold);
  assign dp_cmd_o   = byp ? bgc : dpc_q;
  assign dp_rdy     = dp_ready_i && !byp;  // the slot's command is taken
  // (STREAM_MATMUL: a tile's last row only when its MATMUL can go into the command slot)
  assign sm_rdgo        = state_q == SSm && sm_rp_q && !sm_rd_q && (!dpv_q || dp_rdy);
  // (the writer's ACTIVATE chained when the datapath takes it so in the next cycle and its UB
  // rows lie apart from the last MATMUL's: else it would wait there for the MXU to drain)
  assign sm_chgo        = state_q == SSm && sm_pw_q && sm_pm_q && sm_pc_q == N &&
                          dp_act_chain_i &&
                          (sm_wo_q + f_op1 <= sm_lua_q || sm_lua_q + f_op1 <= sm_wo_q) &&
                          (!sm_wb || (!sm_actw_q && !sm_rp_q));
  assign wpush_valid_o  = (state_q == SPush && cval_q) ||
                          (state_q == SSm && !sm_ph_q && !sm_ap_q && !sm_wfa_q && sm_pp_q == '0 &&
                           cval_q &&
                           !sm_end &&
                           (crow_q != N - 1 || ((!sm_pw_q || (sm_pm_q && sm_pc_q == N && !sm_chgo)) &&
                                                (!dpv_q || dp_rdy) && !sm_rdgo)));
  assign wpush_row_o    = (crow_q < (is_sm ? 32'(sm_kn) : f_rows) && !(is_sm && sm_err_q)) ?
                          st_rdata : '0;
  assign wpush_transpose_o = is_lw && (f_op0 & tpu_pkg::LoadWeightsTranspose) != 0;
  assign dp_rd_ready_o  = (state_q == SWhStream && (wr_req_ready_i || !wg_flush)) ||
                          state_q == SWhDrain ||
                          (state_q == SSm && sm_rd_q && (wr_req_ready_i || !sm_wflush || !rdy_i));
  // WRITE_HOST gathering: a job ends with the last row, with unpacked rows, or when the next
  // row would not fit in WrBytes
  always_comb begin
    wg_flush = stride_q != {32'd0, rb_q} || dp_rd_last_i ||
               32'(wgn_q) + 2 * rb_q > 32'(WrBytes);
    // (STREAM_MATMUL's write-back: packed N-byte rows)
    sm_wflush = dp_rd_last_i || 32'(wgn_q) + 2 * N > 32'(WrBytes);
    for (int unsigned i = 0; i < WrBytes; i++) begin
      wg_row[8*i +: 8] = (32'(i) < rb_q && i < N * 4) ? dp_rd_data_i[8*(i % (N * 4)) +: 8] : 8'd0;
    end
  end
  assign st_wdata       = rs_row_data_i & (rh_rown ? rh_mask : rh2_rown ? rh2_mask :
                                           stream_on ? pre_mask : row_mask);

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
    end else if (state_q == SSm && sm_rd_q) begin
      wr_req_valid_o = rdy_i && dp_rd_valid_i && sm_wflush;
      wr_req_addr_o  = sm_ha_q - 64'(wgn_q);
      wr_req_len_o   = wgn_q + LenW'(N);
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
    logic          bg_go;    // start a background commit from staging row bg_from
    logic [31:0]   bg_from, bg_off;  // (bg_off: staging row of the READ_HOST's row 0)
    logic [CmdWidth-1:0] c;
    logic [31:0]   cnt;

    state_d = state_q;  aborted_d = aborted_q || !rdy_i;
    sqe_d = sqe_q;  qid_d = qid_q;  sc_d = sc_q;  result_d = result_q;
    rdb_d = rdb_q;  wrb_d = wrb_q;
    wg_d = wg_q;  wgn_d = wgn_q;  wh_clean_d = wh_clean_q;
    haddr_d = haddr_q;  row_d = row_q;  cbase_d = cbase_q;  crow_d = crow_q;  cval_d = 1'b0;
    dpc_d = dpc_q;  dpv_d = dpv_q && !dp_rdy;
    fk_d = fk_q;  fc_d = fc_q;  fhead_d = fhead_q;  fcount_d = fcount_q;
    ak_d = ak_q;  ac_d = ac_q;  avalid_d = avalid_q;  loaded_d = loaded_q;
    mm_acc = dp_valid_o && dp_rdy && dpc_q[COp +: 4] == DpMatmul;
    mm_flight_d = mm_flight_q + 16'(mm_acc) - 16'(mm_done_i);
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
    ra_n_d = ra_n_q;  ra_in_d = ra_in_q;  ra_hd_d = ra_hd_q;  ra_rin_d = ra_rin_q;
    ra_fail_d = ra_fail_q;  ra_qid_d = ra_qid_q;  ra_push_d = ra_push_q;
    ra_addr_d = ra_addr_q;  ra_stride_d = ra_stride_q;  ra_end_d = ra_end_q;  ra_rows_d = ra_rows_q;
    ra_cols_d = ra_cols_q;
    pbase_d = pbase_q;
    pa_valid_d = pa_valid_q;  pa_busy_d = pa_busy_q;  pa_err_d = pa_err_q;  pa_use_d = pa_use_q;
    pa_addr_d = pa_addr_q;  pa_len_d = pa_len_q;  pa_qid_d = pa_qid_q;
    bg_active_d = bg_active_q;  bg_cval_d = 1'b0;  bg_row_d = bg_row_q;  bg_rows_d = bg_rows_q;
    bg_la_d = bg_la_q;  bg_mm_d = bg_mm_q - 16'(bg_mm_q != '0 && mm_done_i);
    bg_go = 1'b0;  bg_from = '0;  bg_off = '0;  bg_reg_d = bg_reg_q;  rh_shift = 1'b0;
    rh_v_d = rh_v_q;  rh_in_d = rh_in_q;  rh_rows_d = rh_rows_q;  rh_stride_d = rh_stride_q;
    rh_cols_d = rh_cols_q;  rh_addr_d = rh_addr_q;  rh_end_d = rh_end_q;  rh_qid_d = rh_qid_q;
    rh_reg_d = rh_reg_q;  rh_tb_d = rh_tb_q;  st_tlrh_d = st_tlrh_q;
    rh2_v_d = rh2_v_q;  rh2_in_d = rh2_in_q;  rh2_rows_d = rh2_rows_q;  rh2_stride_d = rh2_stride_q;
    rh2_cols_d = rh2_cols_q;  rh2_addr_d = rh2_addr_q;  rh2_end_d = rh2_end_q;
    rh2_qid_d = rh2_qid_q;  rh2_reg_d = rh2_reg_q;  rh2_tb_d = rh2_tb_q;
    st_rb_d = st_rb_q;  st_stride_d = st_stride_q;
    sm_t_d = sm_t_q;  sm_b_d = sm_b_q;  sm_ua_d = sm_ua_q;  sm_aa_d = sm_aa_q;  sm_err_d = sm_err_q;
    sm_ph_d = sm_ph_q;  sm_bias_d = sm_bias_q;  sm_oa_d = sm_oa_q;  sm_pw_d = sm_pw_q;
    sm_pc_d = sm_pc_q;  sm_wa_d = sm_wa_q;  sm_wo_d = sm_wo_q;  sm_pm_d = sm_pm_q;
    sm_lua_d = sm_lua_q;
    sm_actw_d = sm_actw_q && !act_done_i;
    sm_ap_d = sm_ap_q;  sm_ai_d = sm_ai_q;  sm_mm0_d = sm_mm0_q - 16'(sm_mm0_q != '0 && mm_done_i);
    sm_wfp_d = sm_wfp_q;  sm_wfa_d = sm_wfa_q;
    sm_rp_d = sm_rp_q;  sm_rd_d = sm_rd_q;  sm_ro_d = sm_ro_q;  sm_ha_d = sm_ha_q;
    sm_wcl_d = sm_wcl_q;  sm_rcl_d = sm_rcl_q;  sm_pp_d = sm_pp_q;  sm_wk_d = sm_wk_q;
    // ---- LOAD_PARAMS read-ahead: start, end of its job (the buffer is copied then)
    if (pa_go && rd_req_ready_i) begin
      pa_valid_d = 1'b1;  pa_busy_d = 1'b1;  pa_err_d = 1'b0;
      pa_addr_d = pp_addr;  pa_len_d = pp_len;  pa_qid_d = pk_qid_i;
    end
    if (pa_busy_q && rd_done_i) begin
      pa_busy_d = 1'b0;
      pa_err_d = rd_err_i;
    end

    // ---- read-ahead: a tile joins (new stream or extension), rows into the filling tile's
    // region, failure (the states below may override)
    if (ra_go && rs_req_ready_i) begin  // a new stream: its row bytes and stride
      st_rb_d = KW'(pk_cols);  st_stride_d = pk_stride_eff;
    end
    if ((rh_go && rs_req_ready_i) || (rh_ext && rs_ext_ready_i)) begin
      if (!rh_v_q) begin
        rh_v_d = 1'b1;  rh_in_d = '0;  rh_addr_d = pk_addr;  rh_end_d = pk_addr + 64'(pk_len);
        rh_rows_d = pk_rows;  rh_stride_d = pk_stride;  rh_cols_d = pk_cols;  rh_qid_d = pk_qid_i;
        rh_reg_d = rh_free;
      end else begin  // (Rh2: the second entry, its rows after the head's)
        rh2_v_d = 1'b1;  rh2_in_d = '0;  rh2_addr_d = pk_addr;
        rh2_end_d = pk_addr + 64'(pk_len);  rh2_rows_d = pk_rows;  rh2_stride_d = pk_stride;
        rh2_cols_d = pk_cols;  rh2_qid_d = pk_qid_i;  rh2_reg_d = rh_free;
      end
      st_tlrh_d = 1'b1;
    end
    if ((pre_go && rs_req_ready_i) || (pre_add && st_run && rs_ext_ready_i)) begin
      st_tlrh_d = 1'b0;
      ra_addr_d[64*ra_new +: 64] = pk_addr;
      ra_stride_d[32*ra_new +: 32] = pk_stride;
      ra_end_d[64*ra_new +: 64] = pk_addr + 64'(pk_len);
      ra_rows_d[KW*ra_new +: KW] = KW'(pk_rows);
      ra_cols_d[KW*ra_new +: KW] = KW'(pk_cols);
      ra_n_d = ra_n_q + 1'b1;
      if (ra_n_q == '0) ra_qid_d = pk_qid_i;
    end
    if ((rh_on || rh2_on) && (rs_err_i || rs_row_valid_i)) begin
      if (rs_err_i) begin
        // the failed row may be a READ_HOST's or a tile's: every one whose rows are due is
        // dropped (the second's come after the head's), and their commands read their own rows
        if (rh_on) rh_v_d = 1'b0;
        rh2_v_d = 1'b0;
        ra_n_d = ra_in_q;  ra_rin_d = '0;
      end else if (rh_rown) begin
        st_we = 1'b1;
        st_waddr = SAw'(rh_base(rh_reg_q) + 32'(rh_in_q));
        rh_in_d = rh_in_q + 1'b1;
      end else if (rh2_rown) begin
        st_we = 1'b1;
        st_waddr = SAw'(rh_base(rh2_reg_q) + 32'(rh2_in_q));
        rh2_in_d = rh2_in_q + 1'b1;
      end
    end
    if (stream_on && !((rh_on || rh2_on) && (rs_err_i || rh_rown || rh2_rown))) begin
      if (rs_err_i) begin
        // the failed row is one of the incomplete tiles': when only the last tile is
        // incomplete it is that tile's (its command gets DMA_XFER_ERROR), else the incomplete
        // tiles are dropped and their commands read their own rows
        if (32'(ra_in_q) + 32'd1 == 32'(ra_n_q)) ra_fail_d = 1'b1;
        else ra_n_d = ra_in_q;
        ra_rin_d = '0;
      end else if (rs_row_valid_i) begin
        st_we = 1'b1;
        st_waddr = SAw'(Ring) + SAw'(32'(ra_fill) * N) + SAw'(ra_rin_q);
        if (ra_rin_q + 1'b1 == ra_rows_q[KW*ra_fill +: KW]) begin
          ra_rin_d = '0;
          ra_in_d = ra_in_q + 1'b1;
          if (rh_tb_q != '0) rh_tb_d = rh_tb_q - 1'b1;
          if (rh2_tb_q != '0) rh2_tb_d = rh2_tb_q - 1'b1;
        end else begin
          ra_rin_d = ra_rin_q + 1'b1;
        end
      end
    end
    // (the tiles still incomplete after this cycle's row: their rows come first)
    if (((rh_go && rs_req_ready_i) || (rh_ext && rs_ext_ready_i)) && !rh_v_q)
      rh_tb_d = stream_on ? ra_n_q - ra_in_d : '0;
    if (((rh_go && rs_req_ready_i) || (rh_ext && rs_ext_ready_i)) && rh_v_q)
      rh2_tb_d = stream_on ? ra_n_q - ra_in_d : '0;
    if (!rdy_i) begin  // the DMA engine abandons the stream and the read job
      ra_n_d = '0;  ra_in_d = '0;  ra_rin_d = '0;  ra_fail_d = 1'b0;
      pa_valid_d = 1'b0;  pa_busy_d = 1'b0;
      rh_v_d = 1'b0;  rh2_v_d = 1'b0;
    end

    unique case (state_q)
      SIdle: begin
        aborted_d = 1'b0;
        if (cmd_valid_i) begin
          sqe_d = cmd_sqe_i;
          qid_d = cmd_qid_i;
          sc_d = tpu_pkg::ScSuccess;  result_d = '0;  rdb_d = '0;  wrb_d = '0;
          wd_d = '0;  wdf_d = '0;
          pa_use_d = 1'b0;
          state_d = SFence;
          // nothing to wait for (no FENCE flag, not FENCE, no background commit): skip FENCE,
          // and CHECK1 too for MATMUL and ACTIVATE (no span, no window check)
          if ((cmd_sqe_i[tpu_pkg::SqeFlagsLsb +: 8] & tpu_pkg::SqeFlagFence) == 0 &&
              cmd_sqe_i[tpu_pkg::SqeOpcodeLsb +: 8] != tpu_pkg::OpFence && !bg_active_q)
            state_d = (cmd_sqe_i[tpu_pkg::SqeOpcodeLsb +: 8] == tpu_pkg::OpMatmul ||
                       cmd_sqe_i[tpu_pkg::SqeOpcodeLsb +: 8] == tpu_pkg::OpActivate) ? SCheck2
                                                                                   : SCheck1;
        end
      end
      // FENCE flag or FENCE command: every earlier command complete, its writes sent
      SFence: begin
        if (!(((sqe_q[tpu_pkg::SqeFlagsLsb +: 8] & tpu_pkg::SqeFlagFence) != 0 ||
               sqe_q[tpu_pkg::SqeOpcodeLsb +: 8] == tpu_pkg::OpFence) &&
              !(dp_idle_i && mm_flight_q == 0 && !dpv_q && wr_idle_i && !bg_active_q)) &&
            (!bg_active_q || bg_pass))
          state_d = SCheck1;
      end
      // (a background commit's UB_WRITE still in the command slot goes first: CHECK2 issues)
      SCheck1: if (!span_busy && (!dpv_q || dp_rdy)) state_d = SCheck2;
      SCheck2: begin
        logic adopt, pa_adopt, rh_adopt, keep;
        sc_d = check_sc;
        haddr_d = f_addr;  row_d = '0;  cbase_d = '0;  crow_d = '0;  pbase_d = '0;
        adopt = ra_n_q != '0 && check_sc == tpu_pkg::ScSuccess && is_lw &&
                f_addr == ra_addr_q[64*ra_hd_q +: 64] && f_stride == ra_stride_q[32*ra_hd_q +: 32] &&
                f_rows == 32'(ra_rows_q[KW*ra_hd_q +: KW]) &&
                f_cols == 32'(ra_cols_q[KW*ra_hd_q +: KW]) && qid_q == ra_qid_q;
        // a command that neither streams rows nor writes host memory (MATMUL, ACTIVATE,
        // LOAD_PARAMS unless its LUT streams rows (LutStage)), or a WRITE_HOST apart from every
        // queued tile, leaves the read-ahead for the commands after it
        rh_adopt = rh_v_q && check_sc == tpu_pkg::ScSuccess && f_op == tpu_pkg::OpReadHost &&
                   f_addr == rh_addr_q && f_stride == rh_stride_q && f_rows == rh_rows_q &&
                   f_cols == rh_cols_q && qid_q == rh_qid_q;
        // (the READ_HOST read-ahead is kept or dropped by the same rule, and a READ_HOST
        // adopting it keeps the tiles)
        keep = adopt || rh_adopt || f_op == tpu_pkg::OpMatmul || f_op == tpu_pkg::OpActivate ||
               (f_op == tpu_pkg::OpLoadParams && !lut_rs);
        if ((ra_n_q != '0 && !keep && !(is_wh && ra_apart)) ||
            (rh_v_q && !keep && !(is_wh && rh_apart))) begin
          // one stream carries both: what is still due of it is dropped with it
          rs_abort_o = stream_on || rh_on || rh2_on;
          if (stream_on) begin
            ra_n_d = ra_in_q;  ra_rin_d = '0;
          end
          if (rh_on || !(is_wh && rh_apart)) rh_v_d = 1'b0;
          if (rh2_on || !(is_wh && rh_apart)) rh2_v_d = 1'b0;
          if (!(is_wh && ra_apart)) begin
            ra_n_d = '0;  ra_in_d = '0;  ra_rin_d = '0;  ra_fail_d = 1'b0;
          end
        end
        // the LOAD_PARAMS read-ahead: adopted by a LOAD_PARAMS with the same read whose checks
        // all pass; dropped by any other BIAS/MULT/SHIFT load (it is stale then) and by
        // commands that may write its bytes (FENCE, IDENTIFY, a WRITE_HOST not apart from it)
        pa_adopt = pa_valid_q && check_sc == tpu_pkg::ScSuccess &&
                   f_op == tpu_pkg::OpLoadParams && !lp_out && !lp_lut &&
                   f_addr == pa_addr_q && f_len == pa_len_q && qid_q == pa_qid_q;
        if (pa_adopt || (f_op == tpu_pkg::OpLoadParams && f_op0 <= 32'(tpu_pkg::ParamShift)) ||
            is_fence || is_id || (is_wh && !pa_apart) || (is_sm && sm_wb))
          pa_valid_d = 1'b0;
        pa_use_d = pa_adopt;
        if (check_sc != tpu_pkg::ScSuccess) begin
          state_d = SDone;
        end else if (adopt) begin
          state_d = SPreWait;
        end else if (rh_adopt) begin
          state_d = SRhWait;
        end else if (pa_adopt) begin
          state_d = SPaWait;
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
            tpu_pkg::OpStreamMatmul: begin
              // (its tiles pass through the active tile: none is active afterwards)
              avalid_d = 1'b0;
              sm_t_d = '0;  sm_b_d = '0;  sm_ua_d = f_la;  sm_aa_d = f_la2;  sm_err_d = 1'b0;
              sm_ph_d = 1'b0;  sm_pw_d = 1'b0;  sm_pm_d = 1'b0;  sm_oa_d = f_op3;
              sm_ap_d = sm_astr && !sm_wf;  sm_ai_d = '0;  sm_mm0_d = mm_flight_d;
              sm_wfp_d = sm_astr && sm_wf;  sm_wfa_d = 1'b0;
              sm_pp_d = sm_prm ? 2'd1 : 2'd0;  sm_wk_d = 3'(tpu_pkg::ParamBias);
              sm_rp_d = 1'b0;  sm_rd_d = 1'b0;  sm_ha_d = {f_r15, f_r14};  wg_d = '0;  wgn_d = '0;
              if (sm_act) loaded_d[tpu_pkg::ParamBias] = 1'b1;
              state_d = StreamMm ? SSmReq : SDone;  // (without it the check fails first)
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
        else if (rs_req_ready_i && !bg_active_q) state_d = SRowWait;
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
          end else if (ReadAhead && last_row && !aborted_q && rdy_i) begin
            // every row is in: the status is final, the chunk commits in the background
            bg_go = 1'b1;  bg_from = cbase_q;
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
        // (rows and errors of the READ_HOST's stream: once it is complete, they are a
        // read-ahead stream's)
        if (rs_row_valid_i && row_q != f_rows) begin
          st_we = 1'b1;
          row_d = row_q + 32'd1;
          haddr_d = haddr_q + stride_q;
        end
        if (rs_err_i && row_q != f_rows) sc_d = tpu_pkg::ScDmaXferError;  // reported once the chunk is in
        if (cval_q && !(!dpv_q || dp_rdy)) begin
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
        // (rows and errors of the READ_HOST's stream: once it is complete, they are a
        // read-ahead stream's)
        if (rs_row_valid_i && row_q != f_rows) begin
          st_we = 1'b1;
          row_d = row_q + 32'd1;
          haddr_d = haddr_q + stride_q;
        end
        if (rs_err_i && row_q != f_rows) sc_d = tpu_pkg::ScDmaXferError;
        if (!dpv_q || dp_rdy) begin
          if (sc_q != tpu_pkg::ScSuccess || (rs_err_i && row_q != f_rows)) begin
            state_d = SDone;  // a later chunk failed: the chunks before it stay committed
          end else if (cbase_q + cnt == f_rows) begin
            result_d = f_bytes;
            rdb_d = result_d;
            state_d = SDone;
          end else begin
            // next chunk: commit it at once when all of it is in, else wait for its rows
            cbase_d = cbase_q + cnt;
            crow_d = '0;
            if (aborted_q) begin
              rs_abort_o = 1'b1;
              state_d = SDone;
            end else if (ReadAhead && row_d == f_rows && rdy_i) begin
              // the rest is in: commit it in the background (see SRowWait)
              bg_go = 1'b1;  bg_from = cbase_q + cnt;
            end else if (row_d == f_rows || row_d - (cbase_q + cnt) == 32'(StageRows) ||
                         (row_d - (cbase_q + cnt) > 32'(StageRows) &&
                          f_rows - (cbase_q + cnt) > 32'(Ring))) begin
              // (on a fast link the stream may be up to a ring less one row past the committed
              // rows here, see rs_limit_o; SRowWait sees no chunk end then, only the last row,
              // which its rs_limit_o of cbase + Ring lets in only when ROWS - cbase <= Ring:
              // else the chunk is committed now)
              state_d = SCommit;
            end else begin
              state_d = SRowWait;
            end
          end
        end
      end
      // ---- LOAD_WEIGHTS read ahead: wait until the head tile is complete, then push it from
      // its region (the region stays reserved until the push ends: ra_push)
      SPreWait: begin
        if (!rdy_i) begin
          state_d = SDone;
        end else if (ra_n_q == '0) begin
          state_d = SRowRead;  // dropped after a failure in a later tile's rows: read them
          // (its own rows go through the staging ring: a READ_HOST read ahead is dropped)
          rs_abort_o = rh_on || rh2_on;
          rh_v_d = 1'b0;  rh2_v_d = 1'b0;
        end else if (ra_in_q != '0) begin
          pbase_d = SAw'(Ring) + SAw'(32'(ra_hd_q) * N);
          ra_hd_d = ra_hd_q + 1'b1;
          ra_n_d = ra_n_d - 1'b1;
          ra_in_d = ra_in_d - 1'b1;
          ra_push_d = 1'b1;
          crow_d = '0;
          state_d = SPush;
        end else if (ra_fail_q) begin
          ra_n_d = '0;  ra_in_d = '0;  ra_rin_d = '0;  ra_fail_d = 1'b0;
          sc_d = tpu_pkg::ScDmaXferError;
          state_d = SDone;
        end else if (watchdog) begin
          rs_abort_o = 1'b1;
          ra_n_d = '0;  ra_in_d = '0;  ra_rin_d = '0;  ra_fail_d = 1'b0;
          sc_d = tpu_pkg::ScCmdTimeout;
          state_d = SDone;
        end
      end
      // ---- READ_HOST read ahead: wait until its rows are in, then complete and commit them in
      // the background (bg_go); dropped after a stream error: read its own rows
      SRhWait: begin
        if (!rdy_i) begin
          state_d = SDone;
        end else if (!rh_v_q) begin
          state_d = SRowRead;
        end else if (!rh_on) begin
          rh_v_d = 1'b0;
          bg_go = 1'b1;  bg_off = rh_base(rh_reg_q);  bg_from = bg_off;
          rh_shift = 1'b1;  // (the second entry becomes the head: below)
        end else if (watchdog) begin
          rs_abort_o = 1'b1;
          rh_v_d = 1'b0;  rh2_v_d = 1'b0;
          ra_n_d = '0;  ra_in_d = '0;  ra_rin_d = '0;  ra_fail_d = 1'b0;
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
            ra_push_d = 1'b0;
            fk_d[KW*ftail +: KW] = KW'(wpush_transpose_o ? f_cols : f_rows);
            fc_d[KW*ftail +: KW] = KW'(wpush_transpose_o ? f_rows : f_cols);
            fcount_d = fcount_q + 1'b1;
            state_d = SDone;
            result_d = f_bytes;
            rdb_d = result_d;
          end
        end else begin
          cval_d = 1'b1;
        end
      end
      // ---- STREAM_MATMUL: one row stream of C x K rows into the ring; tiles pushed row by row
      // as their rows come in (cbase: the tile's first stream row, crow: its row being pushed,
      // read from the ring one cycle ahead), each followed by its MATMUL in the command slot
      SSmReq: begin
        if (!rdy_i) state_d = SDone;
        else if (rs_req_ready_i && !bg_active_q) state_d = SSm;
      end
      SSm: begin
        logic slot_free, due, rd0, rd1;
        slot_free = !dpv_q || dp_rdy;
        due = !sm_err_q && row_q != sm_tot_q;  // rows still to come
        if (rs_row_valid_i && due) begin
          st_we = 1'b1;  // (at row_q % Ring)
          row_d = row_q + 32'd1;
          wd_d = '0;  wdf_d = '0;
        end
        if (rs_err_i && due) begin
          sc_d = tpu_pkg::ScDmaXferError;
          sm_err_d = 1'b1;
        end else if (due && (!rdy_i || watchdog)) begin
          rs_abort_o = 1'b1;
          if (rdy_i) sc_d = tpu_pkg::ScCmdTimeout;
          sm_err_d = 1'b1;
        end
        // row x of the tile may be pushed: zero padding, in the ring, or the stream failed (the
        // tile is completed for the FIFO's sake; the ACC rows are unspecified then)
        rd0 = 32'(crow_q) >= 32'(sm_kn) || row_q > cbase_q + crow_q || sm_err_q;
        rd1 = 32'(crow_q) + 32'd1 >= 32'(sm_kn) || row_q > cbase_q + crow_q + 32'd1 || sm_err_q;
        st_raddr = SAw'((cbase_q + crow_q) % Ring);
        if (sm_end) begin
          // every tile multiplied, or failed between tiles: end once the last MATMUL is taken
          // (and the last ACTIVATE issued and done: its act_done_i is not a later ACTIVATE's)
          if (slot_free && !sm_pw_q && !sm_actw_q && !sm_rp_q && !sm_rd_q) begin
            if (!sm_err_q) begin
              result_d = sm_tot_q * 32'(f_cols[KW-1:0]);
              rdb_d = result_d;
              wrb_d = sm_wb ? sm_accn_q * N : '0;
              mm_valid_o = 1'b1;
              mm_rows_o = sm_accn_q * sm_tn_q;
              mm_macs_o = 64'(sm_accn_q) * 64'(f_rows) * 64'(f_cols[KW-1:0]);
            end
            state_d = SDone;
          end
        end else if (sm_wfa_q || (sm_ap_q && sm_pp_q == '0)) begin
          // A_STREAM: A's rows before block 0's K-tile, ring row cbase (read one cycle ahead)
          // to UB row sm_ua + sm_ai; the previous tile's MATMUL reads other UB rows, and the
          // UB_WRITEs are ordered before this tile's MATMUL (a failed stream ends at once above)
          // (W_FIRST, sm_wfa: A's K-tile 0 after block 0's first tile, to UB row LOCAL_ADDR +
          // sm_ai, through the slot only, so after its chained MATMUL has been taken: the
          // datapath counts the rows written from then on; a failed stream writes the rest as
          // zeros, since that MATMUL waits for every row)
          if (!cval_q && !(sm_wfa_q && sm_err_q)) begin
            if (row_q > cbase_q) begin
              st_re = 1'b1;
              cval_d = 1'b1;
            end
          end else if ((slot_free && sm_mm0_q == '0 && !sm_rdgo && !sm_pw_q) ||
                       (byp && sm_byp && !sm_rdbyp)) begin
            // (not while the writer has the slot: PARAMS' MULT/SHIFT writes at the start)
            // (through the slot, or beside the MATMUL waiting there: the bypass, above)
            if (!byp) begin
              c[COp +: 4] = DpUbWrite;
              c[CA +: 32] = (sm_wfa_q ? f_la : sm_ua_q) + sm_ai_q;
              c[CRows +: 32] = 32'd1;
              c[CData +: N*8] = sm_err_q ? '0 : st_rdata;
              dpc_d = c;  dpv_d = 1'b1;
            end
            wd_d = '0;  wdf_d = '0;
            cbase_d = cbase_q + 32'd1;
            if (sm_ai_q + 32'd1 == f_op1) begin
              if (sm_wfa_q) sm_wfa_d = 1'b0;
              else sm_ap_d = 1'b0;
              sm_ai_d = '0;
            end else begin
              sm_ai_d = sm_ai_q + 32'd1;
            end
            // the next row (A's or the tile's first) when it is in: one row per cycle (not
            // the bias rows after W_FIRST's A rows: that phase reads its own, from crow 0)
            cval_d = 1'b0;
            if (row_q > cbase_q + 32'd1 && !(sm_wfa_q && sm_ai_q + 32'd1 == f_op1 && sm_ph_q)) begin
              st_re = 1'b1;
              st_raddr = SAw'((cbase_q + 32'd1) % Ring);
              cval_d = 1'b1;
            end
          end else begin
            cval_d = cval_q;  // hold
          end
        end else if (sm_ph_q) begin
          // the block's bias rows (after its tiles) into sm_bias, read one cycle ahead
          st_raddr = SAw'((cbase_q + crow_q) % Ring);
          if (cval_q) sm_bias_d[N*8*(crow_q - 32'd1) +: N*8] = st_rdata;
          if (crow_q != tpu_pkg::StreamMatmulBiasRows) begin
            if (row_q > cbase_q + crow_q || sm_err_q) begin
              st_re = 1'b1;
              cval_d = 1'b1;
              crow_d = crow_q + 32'd1;
            end
          end else if (!cval_q && !sm_pw_q) begin
            // the writer takes the block's epilogue; the next block's tiles go on meanwhile
            // (with one K-tile per block the previous block's writer may still wait: above)
            sm_ph_d = 1'b0;
            // (not when its UB rows meet the next block's first A rows: spec 6.11 orders them;
            // nor when the next MATMUL accumulates, as the next interleaved block's last
            // K-tile does: the ACTIVATE needs the ACC read port, so it goes after this MATMUL
            // when the MXU has drained)
            sm_pm_d = sm_b_q + 32'd1 != f_op2 && !sm_nxacc &&
                      (sm_oa_q + f_op1 <= f_la || f_la + f_op1 <= sm_oa_q);
            crow_d = '0;
            cbase_d = cbase_q + tpu_pkg::StreamMatmulBiasRows;
            sm_pw_d = 1'b1;  sm_pc_d = '0;  sm_wa_d = sm_aa_q;  sm_wo_d = sm_oa_q;
            sm_wcl_d = !sm_err_q || row_q >= cbase_q + tpu_pkg::StreamMatmulBiasRows;
            sm_t_d = sm_nxt;  sm_b_d = sm_nxb;  sm_ua_d = sm_nxua;  sm_aa_d = sm_nxaa;
            sm_oa_d = sm_oa_q + f_op1;
          end
        end else if (sm_pp_q != '0) begin
          // PARAMS: the MULT, then the SHIFT vector (4 rows each) into sm_bias (read one cycle
          // ahead, as the bias rows), once the writer has written the previous one; checked as
          // LOAD_PARAMS checks it (INVALID_FIELD ends the stream), then the writer's N PARAM
          // writes (no ACTIVATE); A's rows and the tiles wait
          st_raddr = SAw'((cbase_q + crow_q) % Ring);
          if (sm_err_q) begin
            sm_pp_d = '0;  crow_d = '0;  // (ends: sm_end)
          end else if (!sm_pw_q) begin
            if (cval_q) sm_bias_d[N*8*(crow_q - 32'd1) +: N*8] = st_rdata;
            if (crow_q != tpu_pkg::StreamMatmulBiasRows) begin
              if (row_q > cbase_q + crow_q) begin
                st_re = 1'b1;
                cval_d = 1'b1;
                crow_d = crow_q + 32'd1;
              end
            end else if (!cval_q) begin
              crow_d = '0;
              cbase_d = cbase_q + tpu_pkg::StreamMatmulBiasRows;
              if (!sm_pvok) begin
                sc_d = tpu_pkg::ScInvalidField;
                sm_err_d = 1'b1;
                rs_abort_o = 1'b1;
                sm_pp_d = '0;
              end else begin
                if (sm_pp_q == 2'd1) loaded_d[tpu_pkg::ParamMult] = 1'b1;
                else loaded_d[tpu_pkg::ParamShift] = 1'b1;
                sm_pw_d = 1'b1;  sm_pc_d = '0;
                sm_wk_d = sm_pp_q == 2'd1 ? 3'(tpu_pkg::ParamMult) : 3'(tpu_pkg::ParamShift);
                sm_pp_d = sm_pp_q == 2'd1 ? 2'd2 : 2'd0;
              end
            end
          end
        end else if (!cval_q) begin
          if (rd0) begin
            // (a zero padding row is not read: its ring slot may be taking a later stream row
            // in this very cycle, and wpush_row_o sends zeros for it anyway)
            st_re = 32'(crow_q) < 32'(sm_kn);
            cval_d = 1'b1;
          end
        end else if (wpush_valid_o && wpush_ready_i) begin
          wd_d = '0;  wdf_d = '0;
          crow_d = crow_q + 32'd1;
          if (crow_q + 32'd1 == N) begin
            c[COp +: 4] = DpMatmul;
            c[CFl] = sm_t_q != '0 || (f_op0 & tpu_pkg::StreamMatmulAccumulate) != 0;
            c[CFl + 1] = 1'b1;  // POP
            c[CFl + 2] = sm_wfp_q;  // (CHAIN: W_FIRST's first tile, A's rows follow)
            c[CA +: 32] = sm_ua_q;  c[CB +: 32] = sm_aa_q;  c[CRows +: 32] = f_op1;
            sm_wfp_d = 1'b0;
            sm_wfa_d = sm_wfp_q;
            dpc_d = c;  dpv_d = 1'b1;
            sm_lua_d = sm_ua_q;
            sm_pm_d = 1'b0;  // (a waiting writer's ACTIVATE goes next)
            crow_d = '0;
            cbase_d = cbase_q + 32'(sm_kn);
            // the next tile's first row is read now when it is in (no bubble between tiles:
            // the push is one row per cycle, the link's rate; harmless after the last tile)
            if (!(sm_t_q + 32'd1 == sm_tn_q && sm_act) &&
                (row_q > cbase_q + 32'(sm_kn) || sm_err_q)) begin
              st_re = 1'b1;
              st_raddr = SAw'((cbase_q + 32'(sm_kn)) % Ring);
              cval_d = 1'b1;
            end
            if (sm_t_q + 32'd1 == sm_tn_q && sm_act) begin
              sm_ph_d = 1'b1;  // the block's epilogue (crow = 0: no bias row read yet)
            end else begin
              // the next tile in stream order (A's next K-tile first when sm_nxap: its row
              // read above)
              sm_t_d = sm_nxt;  sm_b_d = sm_nxb;  sm_ua_d = sm_nxua;  sm_aa_d = sm_nxaa;
              sm_ap_d = sm_nxap;
            end
          end else if (rd1) begin
            st_re = 32'(crow_q) + 32'd1 < 32'(sm_kn);  // (as above)
            st_raddr = SAw'((cbase_q + crow_q + 32'd1) % Ring);
            cval_d = 1'b1;
          end
        end else begin
          cval_d = 1'b1;  // hold: the read data stays in the RAM output register
        end
        // the writer: the block's N bias channels, then its ACTIVATE (ACC rows sm_wa -> UB
        // rows sm_wo), in the command slot between the previous tile's MATMUL and the next
        // (a tile's MATMUL waits for it: see wpush_valid_o); the ACTIVATE after the next
        // block's first MATMUL (sm_pm), which is then the datapath's last accepted MATMUL and
        // does not accumulate: the ACTIVATE is accepted beside it once the block's last
        // MATMUL has drained, not after the next one (measured ~75 MXU-idle cycles per block
        // at R = 64); sm_end: no next MATMUL comes (a failed stream)
        // (WRITE_BACK: the ACTIVATE only when the previous one is done and its write-back
        // read issued, so that act_done_i and sm_ro are this one's)
        // (sm_chgo: chained, before the next block's MATMUL after all)
        if (sm_pw_q && slot_free && !sm_rdgo && (sm_pc_q != N || !sm_pm_q || sm_end || sm_chgo) &&
            (sm_pc_q != N || !sm_wb || (!sm_actw_q && !sm_rp_q))) begin
          c = '0;
          if (sm_pc_q != N) begin
            c[COp +: 4] = DpParam;  c[CFl +: 3] = sm_wk_q;
            c[CA +: 32] = sm_pc_q;
            c[CData +: 32] = sm_bias_q[32*sm_pc_q[$clog2(N)-1:0] +: 32];
            sm_pc_d = sm_pc_q + 32'd1;
            // (PARAMS: the vector written, no ACTIVATE; the bias epilogues follow later)
            if (sm_pc_q + 32'd1 == N && sm_wk_q != 3'(tpu_pkg::ParamBias)) begin
              sm_pw_d = 1'b0;  sm_wk_d = 3'(tpu_pkg::ParamBias);
            end
          end else begin
            c[COp +: 4] = DpActivate;  c[CFl] = sm_lut;
            c[CA +: 32] = sm_wa_q;  c[CB +: 32] = sm_wo_q;  c[CRows +: 32] = f_op1;
            sm_actw_d = 1'b1;
            sm_pw_d = 1'b0;
            sm_pm_d = 1'b0;
            sm_ro_d = sm_wo_q;  sm_rcl_d = sm_wcl_q;
            if (RdChain && sm_wb && sm_wcl_q) sm_rp_d = 1'b1;
          end
          dpc_d = c;  dpv_d = 1'b1;
        end
        // WRITE_BACK: the block's ACTIVATE done -> a UB_READ of its output rows (on the UB's
        // second read port, beside the MATMULs) when nothing else goes into the slot; its rows
        // become write jobs of up to WrBytes (the next ACTIVATE waits for the read: rd_idle)
        // (RdChain: issued right after the ACTIVATE, it reads each row once written)
        if (sm_wb && sm_actw_q && act_done_i && sm_rcl_q && !RdChain) sm_rp_d = 1'b1;
        if (sm_rdgo) begin
          c = '0;
          c[COp +: 4] = DpUbRead;
          c[CA +: 32] = sm_ro_q;  c[CRows +: 32] = f_op1;
          dpc_d = c;  dpv_d = 1'b1;
          sm_rp_d = 1'b0;  sm_rd_d = 1'b1;
        end else if (byp && sm_rdbyp) begin
          sm_rp_d = 1'b0;  sm_rd_d = 1'b1;  // (beside the waiting MATMUL: above)
        end
        if (sm_rd_q && dp_rd_valid_i && dp_rd_ready_o) begin
          sm_ha_d = sm_ha_q + 64'(N);
          wg_d    = sm_wflush ? '0 : wg_q | (wg_row << (8 * wgn_q));
          wgn_d   = sm_wflush ? '0 : wgn_q + LenW'(N);
          if (dp_rd_last_i) sm_rd_d = 1'b0;
        end
      end
      // ---- LOAD_PARAMS
      SParRead: begin
        if (!rdy_i) state_d = SDone;
        else if (rd_req_ready_i && !pa_busy_q) state_d = SParWait;  // (the request went out)
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
      // the vector was read ahead: wait for its job, then check and write it as SParWait does
      SPaWait: begin
        if (!rdy_i) begin
          state_d = SDone;
        end else if (!pa_busy_q) begin
          if (pa_err_q) begin
            sc_d = tpu_pkg::ScDmaXferError;
            state_d = SDone;
          end else if (!params_ok) begin
            sc_d = tpu_pkg::ScInvalidField;
            state_d = SDone;
          end else begin
            crow_d = '0;
            state_d = SParWrite;
          end
        end else if (watchdog) begin
          rd_abort_o = 1'b1;
          pa_busy_d = 1'b0;
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
        end else if (!dpv_q || dp_rdy) begin
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
                                  : pbuf[32*crow_q[$clog2(N)-1:0] +: 32];
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
        if (dp_rdy) begin
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

    // ---- a READ_HOST whose rows are all in completes (its RESULT), and its rows from staging
    // row bg_from on are committed in the background
    if (bg_go) begin
      // (only MATMULs in flight that read the READ_HOST's UB rows hold the commit back; the
      // union of their rows is exact enough: tpu_gemm's MATMULs read the K-tiles below the
      // ones read ahead)
      bg_active_d = 1'b1;
      bg_mm_d = (mm_flight_q != '0 && {1'b0, mu_lo_q} < {1'b0, f_la} + {1'b0, f_rows} &&
                 f_la < mu_hi_q) ? mm_flight_d : '0;
      // (staging row r holds UB row f_la + r - bg_off; 32-bit sums are exact: below UbRows)
      bg_row_d = bg_from;  bg_rows_d = bg_off + f_rows;  bg_la_d = f_la - bg_off;
      bg_reg_d = rh_shift ? rh_reg_q : {1'b0, bg_from[$clog2(StageRows)]};
      result_d = f_bytes;
      rdb_d = result_d;
      state_d = SDone;
    end

    // ---- READ_HOST background commit: staging row bg_row is read in one cycle (when the
    // staging read port is free) and handed to the datapath as a UB_WRITE in the next (when
    // the command slot is free and the current state issues nothing; else it is read again),
    // once every MATMUL accepted before the READ_HOST has written its last row. It runs on
    // when rdy_i drops (the READ_HOST has completed: its rows must reach the UB).
    if (bg_active_q) begin
      logic issue;
      issue = bg_cval_q && bg_wr_ok && (!dpv_q || dp_rdy);
      if (byp) begin  // (taken at once, beside the waiting MATMUL)
        bg_row_d = bg_row_q + 32'd1;
        if (bg_row_q + 32'd1 == bg_rows_q) bg_active_d = 1'b0;
      end else if (issue) begin
        c = '0;
        c[COp +: 4] = DpUbWrite;
        c[CA +: 32] = bg_la_q + bg_row_q;
        c[CRows +: 32] = 32'd1;
        c[CData +: N*8] = st_rdata;
        dpc_d = c;  dpv_d = 1'b1;
        bg_row_d = bg_row_q + 32'd1;
        if (bg_row_q + 32'd1 == bg_rows_q) bg_active_d = 1'b0;
      end
      if (bg_rd_ok && bg_mm_q == '0 && bg_row_d != bg_rows_q) begin
        st_re = 1'b1;
        st_raddr = (bg_reg_q == 2'd2) ? SAw'(bg_row_d) : SAw'(bg_row_d % Ring);
        bg_cval_d = 1'b1;
      end
    end
    // the head's command has committed it: the second entry (after this cycle's row, tile
    // or failure) becomes the head
    if (rh_shift) begin
      rh_v_d = rh2_v_d;  rh_in_d = rh2_in_d;  rh_rows_d = rh2_rows_d;  rh_stride_d = rh2_stride_d;
      rh_cols_d = rh2_cols_d;  rh_addr_d = rh2_addr_d;  rh_end_d = rh2_end_d;
      rh_qid_d = rh2_qid_d;  rh_reg_d = rh2_reg_d;  rh_tb_d = rh2_tb_d;
      rh2_v_d = 1'b0;
    end
    if (!ReadAhead) begin
      bg_active_d = 1'b0;
      rh_v_d = 1'b0;
    end
    if (!Rh2) rh2_v_d = 1'b0;
  end

  // the command in sqe_q may start beside a background commit: a MATMUL that reads none of
  // its UB rows (rows read by MATMULs accepted after it are never written by it), a
  // LOAD_WEIGHTS (its own row stream waits in SRowRead; a read-ahead tile is pushed from its
  // region), a LOAD_PARAMS that is no staged LUT, a NOP; everything else waits for its end
  always_comb begin
    bg_pass = 1'b0;
    unique case (f_op)
      tpu_pkg::OpMatmul:
        bg_pass = {1'b0, f_la} + {1'b0, f_rows} <= {1'b0, bg_la_q + bg_row_q} ||
                  {1'b0, bg_la_q + bg_rows_q} <= {1'b0, f_la};
      tpu_pkg::OpLoadWeights, tpu_pkg::OpNop: bg_pass = 1'b1;
      tpu_pkg::OpLoadParams: bg_pass = !lut_rs;
      default: bg_pass = 1'b0;
    endcase
    // the staging read port is the background commit's unless the state reads it (commit,
    // push, staged LUT); the command slot is its in states that issue no datapath command
    // (SDpCmd only holds one: the slot is free once it is taken)
    bg_rd_ok = state_q != SPush && state_q != SCommit && state_q != SCommitLast &&
               state_q != SParWrite && state_q != SSm;
    bg_wr_ok = state_q == SIdle || state_q == SFence || state_q == SRowRead ||
               state_q == SRowWait || state_q == SPreWait || state_q == SPush ||
               state_q == SParRead || state_q == SParWait || state_q == SPaWait ||
               state_q == SActWait || state_q == SWhStream || state_q == SWhDrain ||
               state_q == SWrJob || state_q == SDone || state_q == SDpCmd || state_q == SRhWait;
  end

  // the union of the UB rows read by the MATMULs accepted since none was in flight
  always_ff @(posedge clk_i) begin
    if (mm_acc) begin
      if (mm_flight_q == '0 || dpc_q[CA +: 32] < mu_lo_q) mu_lo_q <= dpc_q[CA +: 32];
      if (mm_flight_q == '0 || dpc_q[CA +: 32] + dpc_q[CRows +: 32] > mu_hi_q)
        mu_hi_q <= dpc_q[CA +: 32] + dpc_q[CRows +: 32];
    end
  end

  assign ftail = TW'((32'(fhead_q) + 32'(fcount_q)) % Tiles);
  if (LutStage) begin : g_lut_stage
    assign lut_byte = st_rdata[8 * (crow_q % N) +: 8];
  end else begin : g_lut_buf
    assign lut_byte = rd_buf_i[8 * crow_q[7:0] +: 8];
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      state_q <= SIdle;  aborted_q <= 1'b0;  dpv_q <= 1'b0;  cval_q <= 1'b0;
      mm_flight_q <= '0;  fhead_q <= '0;  fcount_q <= '0;  avalid_q <= 1'b0;  loaded_q <= '0;
      ra_n_q <= '0;  ra_in_q <= '0;  ra_hd_q <= '0;  ra_rin_q <= '0;  ra_fail_q <= 1'b0;
      ra_push_q <= 1'b0;  dw_pend_q <= 1'b0;
      pa_valid_q <= 1'b0;  pa_busy_q <= 1'b0;  pa_use_q <= 1'b0;
      bg_active_q <= 1'b0;  bg_cval_q <= 1'b0;  bg_mm_q <= '0;
      rh_v_q <= 1'b0;  rh2_v_q <= 1'b0;  sm_actw_q <= 1'b0;  sm_pw_q <= 1'b0;  sm_pm_q <= 1'b0;
      sm_rp_q <= 1'b0;  sm_rd_q <= 1'b0;
    end else begin
      // data writes (WRITE_HOST, FENCE, IDENTIFY) handed to the DMA and maybe not yet sent
      dw_pend_q <= (wr_req_valid_o && wr_req_ready_i) || (dw_pend_q && !wr_idle_i);
      state_q <= state_d;  aborted_q <= aborted_d;  dpv_q <= dpv_d;  cval_q <= cval_d;
      mm_flight_q <= mm_flight_d;  fhead_q <= fhead_d;  fcount_q <= fcount_d;
      avalid_q <= avalid_d;  loaded_q <= loaded_d;
      // (constant without read-ahead: synthesis drops the queue)
      ra_n_q <= ReadAhead ? ra_n_d : '0;  ra_in_q <= ra_in_d;  ra_hd_q <= ra_hd_d;
      ra_rin_q <= ra_rin_d;  ra_fail_q <= ra_fail_d;  ra_push_q <= ra_push_d;
      pa_valid_q <= ReadAhead ? pa_valid_d : 1'b0;  pa_busy_q <= ReadAhead ? pa_busy_d : 1'b0;
      pa_use_q <= ReadAhead ? pa_use_d : 1'b0;
      bg_active_q <= bg_active_d;  bg_cval_q <= bg_cval_d;  bg_mm_q <= bg_mm_d;
      rh_v_q <= ReadAhead ? rh_v_d : 1'b0;
      rh2_v_q <= Rh2 ? rh2_v_d : 1'b0;
      sm_actw_q <= StreamMm && sm_actw_d;  sm_pw_q <= StreamMm && sm_pw_d;
      sm_rp_q <= StreamMm && sm_rp_d;  sm_rd_q <= StreamMm && sm_rd_d;
      sm_pm_q <= StreamMm && sm_pm_d;
    end
  end

  always_ff @(posedge clk_i) begin
    sqe_q <= sqe_d;  qid_q <= qid_d;  sc_q <= sc_d;  result_q <= result_d;
    rdb_q <= rdb_d;  wrb_q <= wrb_d;  rb_q <= rb_d[31:0];  stride_q <= stride_d;
    span_ok_q <= span_ok_d;  haddr_q <= haddr_d;  row_q <= row_d;  cbase_q <= cbase_d;
    crow_q <= crow_d;  dpc_q <= dpc_d;  wd_q <= wd_d;  wdf_q <= wdf_d;
    fk_q <= fk_d;  fc_q <= fc_d;  ak_q <= ak_d;  ac_q <= ac_d;
    ra_qid_q <= ra_qid_d;  ra_addr_q <= ra_addr_d;  ra_stride_q <= ra_stride_d;  ra_end_q <= ra_end_d;
    ra_rows_q <= ra_rows_d;  ra_cols_q <= ra_cols_d;
    pa_err_q <= pa_err_d;  pa_addr_q <= pa_addr_d;  pa_len_q <= pa_len_d;  pa_qid_q <= pa_qid_d;
    pbase_q <= pbase_d;  wg_q <= wg_d;  wgn_q <= wgn_d;  wh_clean_q <= wh_clean_d;
    bg_row_q <= bg_row_d;  bg_rows_q <= bg_rows_d;  bg_la_q <= bg_la_d;  bg_reg_q <= bg_reg_d;
    rh_in_q <= rh_in_d;  rh_rows_q <= rh_rows_d;  rh_stride_q <= rh_stride_d;
    rh_cols_q <= rh_cols_d;  rh_addr_q <= rh_addr_d;  rh_end_q <= rh_end_d;  rh_qid_q <= rh_qid_d;
    rh_reg_q <= rh_reg_d;  rh_tb_q <= rh_tb_d;  st_tlrh_q <= st_tlrh_d;
    rh2_in_q <= rh2_in_d;  rh2_rows_q <= rh2_rows_d;  rh2_stride_q <= rh2_stride_d;
    rh2_cols_q <= rh2_cols_d;  rh2_addr_q <= rh2_addr_d;  rh2_end_q <= rh2_end_d;
    rh2_qid_q <= rh2_qid_d;  rh2_reg_q <= rh2_reg_d;  rh2_tb_q <= rh2_tb_d;
    st_rb_q <= st_rb_d;  st_stride_q <= st_stride_d;
    sm_t_q <= StreamMm ? sm_t_d : '0;  sm_b_q <= StreamMm ? sm_b_d : '0;
    sm_ua_q <= StreamMm ? sm_ua_d : '0;  sm_aa_q <= StreamMm ? sm_aa_d : '0;
    sm_err_q <= StreamMm && sm_err_d;
    sm_ap_q <= StreamMm && sm_ap_d;  sm_ai_q <= StreamMm ? sm_ai_d : '0;
    sm_wfp_q <= StreamMm && sm_wfp_d;  sm_wfa_q <= StreamMm && sm_wfa_d;
    sm_mm0_q <= StreamMm ? sm_mm0_d : '0;
    sm_ro_q <= StreamMm ? sm_ro_d : '0;  sm_ha_q <= StreamMm ? sm_ha_d : '0;
    sm_wcl_q <= StreamMm && sm_wcl_d;  sm_rcl_q <= StreamMm && sm_rcl_d;
    if (state_q == SCheck1) sm_wok_q <= StreamMm && chk_ok_i;
    sm_ph_q <= StreamMm && sm_ph_d;  sm_bias_q <= StreamMm ? sm_bias_d : '0;
    sm_oa_q <= StreamMm ? sm_oa_d : '0;  sm_pc_q <= StreamMm ? sm_pc_d : '0;
    sm_pp_q <= StreamMm ? sm_pp_d : '0;  sm_wk_q <= StreamMm ? sm_wk_d : '0;
    sm_wa_q <= StreamMm ? sm_wa_d : '0;  sm_wo_q <= StreamMm ? sm_wo_d : '0;
    sm_lua_q <= StreamMm ? sm_lua_d : '0;
    // STREAM_MATMUL's products, from the SQE (stable from CHECK1 on); only meaningful when its
    // step-3 limits hold (K < 2^16, R < 2^16, C < 2^8), which CHECK2 tests first
    // (constant without StreamMm: synthesis drops the products and the counters)
    sm_tot_q <= StreamMm ? span_rows : '0;
    sm_tn_q <= StreamMm ? sm_tn_d : '0;
    sm_lastk_q <= StreamMm ? KW'(f_rows - (sm_tn_d - 32'd1) * N) : '0;
    sm_ubn_q <= StreamMm ? sm_tn_d * 32'(f_op1[15:0]) : '0;
    sm_accn_q <= StreamMm ? 32'(f_op2[7:0]) * 32'(f_op1[15:0]) : '0;
  end
  assign sm_tn_d = (32'(f_rows[15:0]) + N - 1) / N;
  assign sm_kn   = (sm_t_q + 32'd1 == sm_tn_q) ? sm_lastk_q : KW'(N);
  // (not before W_FIRST's A rows are all written: the chained MATMUL waits for them)
  assign sm_end  = !sm_wfa_q && (sm_b_q == f_op2 || (sm_err_q && crow_q == '0 && !sm_ph_q));
  // K_MAJOR (spec 6.11): the stream order of the tiles. Block b < G: K-tile t of every such
  // block, then K-tile t + 1 (A's rows first with A_STREAM); after block G - 1's last K-tile,
  // block G's first; block b >= G: its K-tiles, then block b + 1's. (G = 1: block-major.)
  assign sm_gn   = !sm_kmaj ? 32'd1 : (f_op0[15:8] == '0) ? 32'(f_op2[7:0]) : 32'(f_op0[15:8]);
  assign sm_il   = sm_b_q < sm_gn;
  assign sm_olap = sm_kmaj && sm_act && f_op3 < f_la + sm_ubn_q && f_la < f_op3 + sm_accn_q;
  // PARAMS: the vector in sm_bias passes LOAD_PARAMS' value checks (MULT >= 0, SHIFT in range)
  always_comb begin
    sm_pvok = 1'b1;
    for (int unsigned i = 0; i < N; i++) begin
      logic [31:0] v;
      v = sm_bias_q[32*i +: 32];
      if (sm_pp_q == 2'd1 && v[31]) sm_pvok = 1'b0;
      if (sm_pp_q == 2'd2 &&
          ($signed(v) < tpu_pkg::ShiftMin || $signed(v) > tpu_pkg::ShiftMax)) sm_pvok = 1'b0;
    end
  end
  always_comb begin
    sm_nxt = '0;  sm_nxb = sm_b_q + 32'd1;  sm_nxua = f_la;  sm_nxaa = sm_aa_q + f_op1;
    sm_nxap = 1'b0;
    if (sm_il && sm_b_q + 32'd1 < sm_gn) begin  // the next interleaved block, same K-tile
      sm_nxt = sm_t_q;  sm_nxua = sm_ua_q;
    end else if (sm_t_q + 32'd1 != sm_tn_q) begin  // the next K-tile (of block 0 when sm_il)
      sm_nxt = sm_t_q + 32'd1;  sm_nxua = sm_ua_q + f_op1;
      sm_nxb = sm_il ? '0 : sm_b_q;
      sm_nxaa = sm_il ? f_la2 : sm_aa_q;
      sm_nxap = sm_astr && sm_il;
    end
    // the next tile's MATMUL accumulates (its K-tile is not the first, or OP0.ACCUMULATE)
    sm_nxacc = sm_nxt != '0 || (f_op0 & tpu_pkg::StreamMatmulAccumulate) != 0;
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
