// tpu_cmd_proc: the command processor. Takes one SQE at a time from the queue engine, runs the
// checks of docs/spec.md 6.1 in the spec's order (the same order and conditions as the golden
// model, sw/golden/golden_cmd.c and golden_xfer.c/golden_compute.c), executes the command on
// the DMA engine and the datapath (rtl/datapath/tpu_datapath.sv command/weight/read streams) and
// returns (status, result) on cpl_* plus the accounting of spec 6.1 on acct_* and mm_*.
// This file is the structural top: the engines, each in a file of its own that documents its
// part, and the muxes of the DMA requests (the command's own or a read-ahead's) and outputs:
//   tpu_cmd_seq          the main sequencer: IDLE, FENCE, CHECK1/CHECK2, execution, DONE
//   tpu_cmd_check        the field decode and the checks (SpanSerial)
//   tpu_row_stage        a command's own rows through the staging ring (READ_HOST's chunked
//                        commit, LOAD_WEIGHTS' push, a staged LUT)
//   tpu_param_load       LOAD_PARAMS: the read job, the value checks, the PARAM writes
//   tpu_cmd_stage        the staging RAM and its ports
//   tpu_cmd_slot         the datapath command slot (BgBypass)
//   tpu_tile_state       the spec's logical weight FIFO and active tile
//   tpu_peek_decode      the read-ahead candidates among the queue engine's next SQEs
//   tpu_readahead_ctl    when the read-aheads start, who adopts or drops them
//   tpu_tile_readahead   the LOAD_WEIGHTS read-ahead queue (RaT tiles)
//   tpu_readhost_ahead   a READ_HOST read ahead (two: the head and, RhDepth = 2, the second)
//   tpu_param_readahead  the LOAD_PARAMS read-ahead
//   tpu_bg_commit        the READ_HOST background commit
//   tpu_stream_matmul    STREAM_MATMUL's tile sequencing (StreamMm)
//   tpu_stream_epilogue  STREAM_MATMUL's block epilogue and write-back (StreamMm, RdChain)
//   tpu_write_gather     the write jobs: WRITE_HOST's gathered rows, the write-back, FENCE,
//                        IDENTIFY
// Staging RAM (StDepth rows of RB bytes: N, 2N with Bf16): the READ_HOST ring of 2 x StageRows
// rows (also LOAD_WEIGHTS' rows, a staged LUT, STREAM_MATMUL's stream), then with ReadAhead the
// RaT tile regions of N rows and with RhDepth = 2 a third READ_HOST region of StageRows rows.
// Size options for small FPGAs (defaults: everything on): ReadAhead = 0 leaves out the
// LOAD_WEIGHTS, READ_HOST and LOAD_PARAMS read-aheads and the background commit (the queue,
// peek decode, staging regions, the parameter buffer); LutStage = 1 reads the 256-byte LUT of
// LOAD_PARAMS as a row stream of LutEntries / N packed rows into the staging ring (then PARAM
// writes from there, still only after every byte is in), so read jobs need only hold an SQE or
// a 4N-byte vector (RdBytes >= max(4N, 64)); SpanSerial = 1 computes CHECK1's span product
// with a shift-add multiplier (CHECK1 then takes 2 + bit length of ROWS - 1 cycles) instead of
// a 32 x 32 one.
// Bf16 (a device with the bf16 mode, spec 6.12; needs StreamMm = 0): UB rows and staging rows
// of RB = 2N bytes; a bf16 READ_HOST / LOAD_WEIGHTS streams 2 x COLS bytes per row (an int8 one
// COLS, the rest of the row zero), and so does its read-ahead (the read-aheads keep row bytes,
// tpu_peek_decode); weight rows go to the datapath as N 16-bit lanes (a bf16 tile's row as it
// is, an int8 tile's bytes each in the low byte of its lane: the adopting command's flag); the
// checks and the tile types of tpu_cmd_check and tpu_tile_state, the FCLAMP load of tpu_cmd_seq.
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
  parameter bit          ReadAhead = 1'b1,   // the read-aheads and background commit (above)
  parameter bit          LutStage  = 1'b0,   // LUT load through the staging ring (above)
  parameter bit          SpanSerial = 1'b0,  // CHECK1's product bit-serial (above)
  parameter bit          BgBypass  = 1'b0,   // commands beside a waiting MATMUL (tpu_cmd_slot)
  parameter bit          StreamMm  = 1'b1,   // STREAM_MATMUL (0: INVALID_OPCODE, logic left out)
  // the datapath takes a UB_READ of a running ACTIVATE's rows (tpu_datapath StreamMm with UbReadPort2):
  // STREAM_MATMUL's write-back read then goes right after the block's ACTIVATE
  parameter bit          RdChain   = 1'b0,
  // READ_HOST read-ahead depth (ReadAhead): 2 reads a second READ_HOST ahead while the first
  // is held, into a third staging region of StageRows rows; 1: one at a time
  parameter int unsigned RhDepth   = 1,
  parameter bit          Bf16      = 1'b0,   // the bf16 mode (above)
  // the SINGLE and FLOAT roundings (LOAD_PARAMS OUTPUT OP0.ROUND; the pipelined activation)
  parameter bit          Round     = 1'b0,
  localparam int unsigned RB       = Bf16 ? 2 * N : N,  // UB row bytes
  localparam int unsigned RbW      = $clog2(RB + 1),
  localparam int unsigned CmdWidth = tpu_pkg::DpCmdDataLsb + 8 * RB
) (
  input  logic                  clk_i,
  input  logic                  rst_i,
  input  logic                  rdy_i,
  input  logic [15:0]           timeout_units_i,
  input  logic [287:0]          ident_i,          // bytes 0..35 of the IDENTIFY page
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
  output logic [RbW-1:0]        rs_req_rb_o,
  output logic [63:0]           rs_req_stride_o,
  output logic [31:0]           rs_req_rows_o,
  output logic [31:0]           rs_limit_o,    // rows of the stream that may be requested
  output logic                  rs_ext_valid_o,  // extend the running read-ahead stream
  output logic [31:0]           rs_ext_rows_o,
  output logic                  rs_ext_jump_o,   // ... by rows at rs_ext_addr_o (not continuing)
  output logic [63:0]           rs_ext_addr_o,
  input  logic                  rs_ext_ready_i,
  input  logic                  rs_row_valid_i,
  input  logic [RB*8-1:0]       rs_row_data_i,
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
  output logic [RB*8-1:0]       wpush_row_o,
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
  localparam int unsigned Ring    = 2 * StageRows;       // READ_HOST staging ring
  localparam int unsigned RaW     = $clog2(RaT);
  localparam bit          Rh2     = ReadAhead && RhDepth >= 2;  // a second READ_HOST read ahead
  localparam int unsigned Rb2     = Ring + (ReadAhead ? RaT * N : 0);  // its region's first row
  localparam int unsigned StDepth = Rb2 + (Rh2 ? StageRows : 0);
  localparam int unsigned LutRows = tpu_pkg::LutEntries / N;  // LutStage: rows of the LUT
  localparam int unsigned SAw     = $clog2(StDepth);
  localparam int unsigned TW      = Tiles > 1 ? $clog2(Tiles) : 1;
  localparam int unsigned KW      = $clog2(N + 1);
  localparam int unsigned RhEntW  = 1 + $clog2(StageRows + 1) + 3 * 32 + 2 * 64 + 8 + 2 + RaW + 1;

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
      WrBytes < 64)
  begin : g_bad_bytes
    $error("tpu_cmd_proc: DMA job sizes too small");
  end
  if (Bf16 && StreamMm) begin : g_bad_bf16
    $error("tpu_cmd_proc: Bf16 needs StreamMm = 0");
  end
  if (LutStage && (tpu_pkg::LutEntries % N != 0 || Ring < LutRows)) begin : g_bad_lut
    $error("tpu_cmd_proc: LutStage needs N dividing 256 and 2 x StageRows >= 256 / N rows");
  end

  // ---------------------------------------------------------------- wires between the engines
  // the command (tpu_cmd_check)
  logic [511:0]  sqe;
  logic [7:0]    qid, f_op, f_flags, check_sc;
  logic [15:0]   f_cid;
  logic [63:0]   f_addr, f_addr2, stride;
  logic [31:0]   f_len, f_stride, f_la, f_la2, f_rows, f_cols, f_op0, f_op1, f_op2, f_op3;
  logic          is_lw, is_wh, is_fence, is_id, is_sm, lut_rs, lp_lut, lp_out, wh_acc;
  logic          act_raw, act_lut, mm_pop, span_busy, check1, check2;
  logic          f_bf16, lp_fcl, mm_bf16;  // (Bf16) FLAGS.BF16, an FCLAMP load, the tile's type
  logic [63:0]   fclamp;
  logic [31:0]   stage_cols;              // the command's row bytes for the staging RAM
  logic [31:0]   row_bytes, sm_stream_rows, sm_ktiles, sm_acc_rows, rows_eff;
  logic [KW-1:0] sm_last_k;
  // the sequencer and its row counters
  logic [7:0]    status;
  logic [6:0]    loaded;
  logic [31:0]   result, rd_bytes, wr_bytes, rows_in, base, index, bg_from, bg_off, seq_rs_limit;
  logic [63:0]   host_addr;
  logic [15:0]   mm_flight, mm_flight_d;
  logic          rd_valid, watchdog, aborted, seq_cpl, seq_mm_valid, seq_rs_req, seq_rs_abort;
  logic          seq_slot_load, seq_we, seq_re, skip_head, seq_tile_clear, seq_rh_drop;
  logic          seq_rh2_drop, tile_pop, rh_shift, pa_take, tile_ok, rh_ok, pa_ok, wh_clean;
  logic          bg_start, bg_rd_ok, bg_wr_ok, fifo_push, fifo_pop, fifo_clear_active;
  logic          sm_start, sm_active, wg_clear, wg_wh, wg_drain, wg_job;
  logic [SAw-1:0] seq_waddr, seq_raddr, push_base;
  logic [CmdWidth-1:0] seq_slot_cmd;
  // the command's own rows (tpu_row_stage: rs_*), LOAD_PARAMS (tpu_param_load: pl_*)
  logic          rs_wait, rs_commit, rs_commit_last, rs_push, rs_rd_valid, rs_we, rs_re;
  logic          rs_slot_load, rs_status_set, rs_abort, rs_complete, rs_bg_start, rs_to_done;
  logic          rs_to_wait, rs_to_commit, rs_to_commit_last, rs_to_push, rs_to_par_write;
  logic          rs_wpush, pl_read, pl_wait, pl_pa_wait, pl_write, pl_rd_valid, pl_re;
  logic          pl_slot_load, pl_status_set, pl_complete, pl_to_done, pl_to_wait, pl_to_write;
  logic          pl_rd_req, pl_abandon;
  logic [31:0]   rs_rows_in, rs_base, rs_index, rs_bg_from, pl_index;
  logic [63:0]   rs_host_addr;
  logic [SAw-1:0] rs_raddr, pl_raddr;
  logic [CmdWidth-1:0] rs_slot_cmd, pl_slot_cmd;
  logic [7:0]    rs_status, pl_status;
  // the read-aheads: candidates, starts and adoptions, the tiles, READ_HOSTs, vector
  logic [63:0]   pk_addr, pk_stride_eff, pp_addr;
  logic [31:0]   pk_len, pk_rows, pk_cols, pk_stride, pp_len;
  logic          pk_tile, pk_rh, pp_ok, dw_pend, tile_join, rh_join, pa_start, ra_stream;
  logic          ra_go, pa_go, adopt, rh_adopt, pa_adopt, ctl_abort, tile_drop_due;
  logic          tile_clear, rh_drop, rh2_drop, pa_drop;
  logic [RaW:0]  ra_count, ra_complete, ra_due_after;
  logic          ra_failed, ra_pushing, ra_streaming, ra_free, ra_apart, ra_tile_done, ra_we;
  logic [7:0]    ra_qid;
  logic [63:0]   ra_head_addr, ra_tail_addr;
  logic [31:0]   ra_head_stride, ra_tail_stride, rh_base, rh2_base;
  logic [KW-1:0] ra_head_rows, ra_tail_rows;
  logic [RbW-1:0] ra_head_cols, ra_tail_cols;  // (row bytes)
  logic [SAw-1:0] ra_head_base, ra_waddr, rh_waddr, rh2_waddr;
  logic [RB*8-1:0] ra_mask, rh_mask, rh2_mask;
  logic          rh_valid, rh_due, rh_next, rh_match, rh_overlap, rh_row;
  logic          rh2_valid, rh2_due, rh2_next, rh2_match, rh2_overlap, rh2_row;
  logic [1:0]    rh_region, rh2_region, rh_free;
  logic [RhEntW-1:0] rh_entry_d, rh2_entry_d;
  logic          pa_valid, pa_busy, pa_err, pa_match, pa_apart;
  logic [4*N*8-1:0] pa_vec;
  // the background commit, the slot, the logical FIFO, STREAM_MATMUL, the write jobs
  logic          bg_active, bg_rd_valid, bg_pass, bg_re, bg_issue;
  logic [1:0]    bg_region;
  logic [SAw-1:0] bg_raddr, sm_raddr;
  logic [CmdWidth-1:0] bg_cmd, sm_slot_cmd, sm_a_cmd, ep_slot_cmd, ep_rd_cmd;
  logic          slot_busy, slot_taken, slot_free, slot_bypass, slot_mm, slot_mm_accept;
  logic [31:0]   slot_mm_a, slot_mm_rows;
  logic [3:0]    slot_op;
  logic [TW:0]   fifo_count;
  logic          fifo_active;
  logic [63:0]   fifo_macs, sm_mm_macs, ep_wb_addr;
  logic [31:0]   sm_rows_in, sm_base, sm_index, sm_last_a, ep_acc_row, ep_out_row;
  logic [31:0]   sm_result, sm_wr_bytes, sm_mm_rows;
  logic          sm_rd_valid, sm_we, sm_re, sm_slot_load, sm_a_byp, sm_wpush, sm_err, sm_end;
  logic          sm_mm_issued, sm_progress, sm_status_set, sm_abort, sm_loaded_mult;
  logic          sm_loaded_shift, sm_done, sm_mm_valid;
  logic          ep_start_act, ep_complete, ep_chain, ep_start_vec, ep_writer, ep_busy, ep_hold;
  logic          ep_rd_go, ep_rd_byp, ep_slot_load, ep_wb;
  logic [2:0]    ep_kind;
  logic [7:0]    sm_status;
  logic [KW-1:0] sm_tile_k;
  logic [4*N*8-1:0] sm_vec;
  logic          wg_take, st_we;
  logic [SAw-1:0] st_waddr;
  logic [RB*8-1:0] st_rdata;

  // ---------------------------------------------------------------- the command and sequencer
  tpu_cmd_check #(
    .N(N), .UbRows(UbRows), .AccRows(AccRows), .Tiles(Tiles), .LutStage(LutStage),
    .SpanSerial(SpanSerial), .StreamMm(StreamMm), .Bf16(Bf16), .Round(Round)
  ) u_check (
    .clk_i, .check1_i(check1), .sqe_i(sqe), .fifo_count_i(fifo_count),
    .active_valid_i(fifo_active), .params_loaded_i(loaded), .mm_bf16_i(mm_bf16),
    .chk_addr_o, .chk_len_o, .chk_write_o, .chk_ok_i,
    .op_o(f_op), .flags_o(f_flags), .cid_o(f_cid), .addr_o(f_addr), .len_o(f_len),
    .stride_field_o(f_stride), .local_o(f_la), .local2_o(f_la2), .rows_o(f_rows),
    .cols_o(f_cols), .op0_o(f_op0), .op1_o(f_op1), .op2_o(f_op2), .op3_o(f_op3),
    .addr2_o(f_addr2), .is_load_weights_o(is_lw), .is_write_host_o(is_wh), .is_fence_o(is_fence),
    .is_identify_o(is_id), .is_stream_mm_o(is_sm), .lut_staged_o(lut_rs), .lp_lut_o(lp_lut),
    .lp_output_o(lp_out), .wh_acc_o(wh_acc), .act_raw_o(act_raw), .act_lut_o(act_lut),
    .mm_pop_o(mm_pop), .bf16_o(f_bf16), .lp_fclamp_o(lp_fcl), .fclamp_o(fclamp),
    .span_busy_o(span_busy), .row_bytes_o(row_bytes), .stride_o(stride),
    .sm_stream_rows_o(sm_stream_rows), .sm_ktiles_o(sm_ktiles), .sm_last_k_o(sm_last_k),
    .sm_acc_rows_o(sm_acc_rows), .status_o(check_sc)
  );
  tpu_cmd_seq #(
    .N(N), .StageRows(StageRows), .SAw(SAw), .StreamMm(StreamMm), .RhTwo(Rh2), .Bf16(Bf16),
    .RB(RB)
  ) u_seq (
    .clk_i, .rst_i, .rdy_i, .timeout_units_i, .cmd_valid_i, .cmd_ready_o, .cmd_sqe_i, .cmd_qid_i,
    .sqe_o(sqe), .qid_o(qid), .check1_o(check1), .op_i(f_op), .flags_i(f_flags),
    .check_sc_i(check_sc), .addr_i(f_addr), .stride_i(stride), .len_i(f_len), .local_i(f_la),
    .local2_i(f_la2), .rows_i(f_rows), .cols_i(f_cols[KW-1:0]), .op0_i(f_op0),
    .row_bytes_i(row_bytes), .out_param_i({f_op0[9:8], f_op3[7:0], f_op2[7:0], f_op1[7:0]}),
    .is_wh_i(is_wh), .is_fence_i(is_fence), .lut_rs_i(lut_rs), .lp_out_i(lp_out),
    .wh_acc_i(wh_acc), .act_raw_i(act_raw),
    .act_lut_i(act_lut), .mm_pop_i(mm_pop), .bf16_i(f_bf16), .lp_fclamp_i(lp_fcl),
    .fclamp_i(fclamp), .span_busy_i(span_busy),
    .cpl_valid_o(seq_cpl), .mm_valid_o(seq_mm_valid), .aborted_o(aborted),
    .watchdog_o(watchdog), .status_o(status), .result_o(result), .rd_bytes_o(rd_bytes),
    .wr_bytes_o(wr_bytes), .params_loaded_o(loaded), .check2_o(check2), .adopt_i(adopt),
    .rh_adopt_i(rh_adopt), .pa_adopt_i(pa_adopt), .tiles_i(ra_count != '0),
    .tiles_complete_i(ra_complete != '0), .tiles_failed_i(ra_failed),
    .tiles_pushing_i(ra_pushing), .head_base_i(ra_head_base), .tile_clear_o(seq_tile_clear),
    .tile_pop_o(tile_pop), .rh_held_i(rh_valid), .rh_due_i(rh_due), .rh2_due_i(rh2_due),
    .rh_base_i(rh_base), .rh_drop_o(seq_rh_drop), .rh2_drop_o(seq_rh2_drop),
    .rh_shift_o(rh_shift), .pa_take_o(pa_take), .tile_ok_o(tile_ok), .rh_ok_o(rh_ok),
    .pa_ok_o(pa_ok), .wh_clean_o(wh_clean), .skip_head_o(skip_head), .dw_pend_i(dw_pend),
    .bg_active_i(bg_active), .bg_pass_i(bg_pass), .bg_start_o(bg_start), .bg_rd_ok_o(bg_rd_ok),
    .bg_wr_ok_o(bg_wr_ok), .bg_from_o(bg_from), .bg_off_o(bg_off), .fifo_pop_o(fifo_pop),
    .fifo_clear_active_o(fifo_clear_active),
    .rows_in_o(rows_in), .base_o(base), .index_o(index), .rd_valid_o(rd_valid),
    .host_addr_o(host_addr), .push_base_o(push_base), .rs_wait_o(rs_wait),
    .rs_commit_o(rs_commit), .rs_commit_last_o(rs_commit_last), .rs_push_o(rs_push),
    .rs_rows_in_i(rs_rows_in), .rs_base_i(rs_base), .rs_index_i(rs_index),
    .rs_bg_from_i(rs_bg_from), .rs_host_addr_i(rs_host_addr), .rs_rd_valid_i(rs_rd_valid),
    .rs_st_we_i(rs_we), .rs_st_re_i(rs_re), .rs_slot_load_i(rs_slot_load),
    .rs_st_raddr_i(rs_raddr), .rs_slot_cmd_i(rs_slot_cmd), .rs_status_set_i(rs_status_set),
    .rs_abort_i(rs_abort), .rs_complete_i(rs_complete), .rs_bg_start_i(rs_bg_start),
    .rs_status_i(rs_status), .rs_to_done_i(rs_to_done), .rs_to_wait_i(rs_to_wait),
    .rs_to_commit_i(rs_to_commit), .rs_to_commit_last_i(rs_to_commit_last),
    .rs_to_push_i(rs_to_push), .rs_to_par_write_i(rs_to_par_write),
    .sm_start_o(sm_start), .sm_active_o(sm_active), .sm_rows_in_i(sm_rows_in),
    .sm_base_i(sm_base), .sm_index_i(sm_index), .sm_result_i(sm_result),
    .sm_wr_bytes_i(sm_wr_bytes), .sm_rd_valid_i(sm_rd_valid), .sm_st_we_i(sm_we),
    .sm_st_re_i(sm_re), .sm_st_raddr_i(sm_raddr), .sm_progress_i(sm_progress),
    .sm_status_set_i(sm_status_set), .sm_abort_i(sm_abort), .sm_loaded_mult_i(sm_loaded_mult),
    .sm_loaded_shift_i(sm_loaded_shift), .sm_done_i(sm_done), .sm_mm_valid_i(sm_mm_valid),
    .sm_status_i(sm_status), .pl_read_o(pl_read), .pl_wait_o(pl_wait),
    .pl_pa_wait_o(pl_pa_wait), .pl_write_o(pl_write), .pl_index_i(pl_index),
    .pl_rd_valid_i(pl_rd_valid), .pl_st_re_i(pl_re), .pl_slot_load_i(pl_slot_load),
    .pl_status_set_i(pl_status_set), .pl_complete_i(pl_complete), .pl_to_done_i(pl_to_done),
    .pl_to_wait_i(pl_to_wait), .pl_to_write_i(pl_to_write), .pl_st_raddr_i(pl_raddr),
    .pl_slot_cmd_i(pl_slot_cmd), .pl_status_i(pl_status),
    .wg_clear_o(wg_clear), .wg_wh_o(wg_wh), .wg_drain_o(wg_drain), .wg_job_o(wg_job),
    .wg_take_i(wg_take), .dp_rd_last_i, .wr_req_ready_i, .rs_req_valid_o(seq_rs_req),
    .rs_abort_o(seq_rs_abort), .rs_limit_o(seq_rs_limit), .rs_req_ready_i,
    .st_we_o(seq_we), .st_re_o(seq_re), .st_waddr_o(seq_waddr), .st_raddr_o(seq_raddr),
    .slot_load_o(seq_slot_load), .slot_cmd_o(seq_slot_cmd),
    .slot_busy_i(slot_busy), .slot_taken_i(slot_taken), .slot_free_i(slot_free),
    .mm_accept_i(slot_mm_accept), .slot_op_i(slot_op), .mm_flight_o(mm_flight),
    .mm_flight_d_o(mm_flight_d), .mm_done_i, .act_done_i, .dp_idle_i, .wr_idle_i, .act_result_i
  );
  tpu_row_stage #(.N(N), .StageRows(StageRows), .SAw(SAw), .ReadAhead(ReadAhead), .RB(RB)) u_rows (
    .wait_i(rs_wait), .commit_i(rs_commit), .commit_last_i(rs_commit_last), .push_i(rs_push),
    .rdy_i, .watchdog_i(watchdog), .aborted_i(aborted),
    .status_ok_i(status == tpu_pkg::ScSuccess), .is_lw_i(is_lw), .lut_rs_i(lut_rs),
    .rows_i(f_rows), .rows_eff_i(rows_eff), .local_i(f_la), .stride_i(stride),
    .rows_in_i(rows_in), .base_i(base), .index_i(index), .rd_valid_i(rd_valid),
    .host_addr_i(host_addr), .push_base_i(push_base), .rows_in_o(rs_rows_in),
    .base_o(rs_base), .index_o(rs_index), .rd_valid_o(rs_rd_valid), .host_addr_o(rs_host_addr),
    .to_done_o(rs_to_done), .to_wait_o(rs_to_wait), .to_commit_o(rs_to_commit),
    .to_commit_last_o(rs_to_commit_last), .to_push_o(rs_to_push),
    .to_par_write_o(rs_to_par_write), .complete_o(rs_complete), .status_set_o(rs_status_set),
    .status_o(rs_status), .abort_o(rs_abort), .bg_start_o(rs_bg_start), .bg_from_o(rs_bg_from),
    .rs_row_valid_i, .rs_err_i, .st_we_o(rs_we), .st_re_o(rs_re), .st_raddr_o(rs_raddr),
    .st_rdata_i(st_rdata), .slot_free_i(slot_free), .slot_mm_i(slot_mm),
    .mm_idle_i(mm_flight == '0), .slot_load_o(rs_slot_load), .slot_cmd_o(rs_slot_cmd),
    .wpush_valid_o(rs_wpush), .wpush_ready_i, .fifo_push_o(fifo_push)
  );
  tpu_param_load #(
    .N(N), .RdBytes(RdBytes), .SAw(SAw), .LutStage(LutStage), .Bf16(Bf16), .RB(RB)
  ) u_params (
    .read_i(pl_read), .wait_i(pl_wait), .pa_wait_i(pl_pa_wait), .write_i(pl_write), .rdy_i,
    .watchdog_i(watchdog), .lp_lut_i(lp_lut), .lut_rs_i(lut_rs), .op0_i(f_op0), .cols_i(f_cols),
    .local_i(f_la), .index_i(index), .rd_valid_i(rd_valid), .index_o(pl_index),
    .rd_valid_o(pl_rd_valid), .to_done_o(pl_to_done), .to_wait_o(pl_to_wait),
    .to_write_o(pl_to_write), .complete_o(pl_complete), .status_set_o(pl_status_set),
    .status_o(pl_status), .rd_req_valid_o(pl_rd_req), .rd_req_ready_i, .rd_hold_o, .rd_abort_o,
    .rd_done_i, .rd_err_i, .rd_buf_i, .param_vec_i(pa_vec), .pa_busy_i(pa_busy),
    .pa_err_i(pa_err), .pa_abandon_o(pl_abandon), .st_re_o(pl_re), .st_raddr_o(pl_raddr),
    .st_rdata_i(st_rdata[N*8-1:0]), .slot_free_i(slot_free), .slot_load_o(pl_slot_load),
    .slot_cmd_o(pl_slot_cmd)
  );

  // ---------------------------------------------------------------- read-aheads
  tpu_peek_decode #(
    .N(N), .StageRows(StageRows), .PeekN(PeekN), .ReadAhead(ReadAhead), .RhTwo(Rh2), .Bf16(Bf16)
  ) u_peek (
    .pk_valid_i, .pk_sqe_i, .pk_qid_i, .rh_held_i(rh_valid), .rh_second_i(rh2_valid),
    .skip_head_i(skip_head), .tiles_i(ra_count != '0), .tile_qid_i(ra_qid),
    .tail_addr_i(ra_tail_addr), .tail_stride_i(ra_tail_stride), .tail_rows_i(ra_tail_rows),
    .tail_cols_i(ra_tail_cols), .pk_chk_addr_o, .pk_chk_len_o, .pk_chk_ok_i,
    .addr_o(pk_addr), .len_o(pk_len), .rows_o(pk_rows), .cols_o(pk_cols), .stride_o(pk_stride),
    .stride_eff_o(pk_stride_eff), .tile_ok_o(pk_tile), .rh_ok_o(pk_rh),
    .pa_chk_addr_o, .pa_chk_len_o, .pa_chk_ok_i, .pa_addr_o(pp_addr), .pa_len_o(pp_len),
    .pa_ok_o(pp_ok)
  );
  tpu_readahead_ctl #(.N(N), .ReadAhead(ReadAhead), .RB(RB)) u_ctl (
    .clk_i, .rst_i, .rdy_i, .tile_ok_i(tile_ok), .rh_ok_i(rh_ok), .pa_ok_i(pa_ok),
    .wh_clean_i(wh_clean), .cmd_addr_i(f_addr), .cmd_len_i(f_len), .check2_i(check2),
    .check_ok_i(check_sc == tpu_pkg::ScSuccess), .cmd_op_i(f_op), .cmd_op0_i(f_op0),
    .is_lw_i(is_lw), .is_wh_i(is_wh), .is_fence_i(is_fence), .is_id_i(is_id), .is_sm_i(is_sm),
    .lut_rs_i(lut_rs), .lp_out_i(lp_out), .lp_lut_i(lp_lut),
    .head_match_i(f_addr == ra_head_addr && f_stride == ra_head_stride &&
                  f_rows == 32'(ra_head_rows) && stage_cols == 32'(ra_head_cols) && qid == ra_qid),
    .tiles_apart_i(ra_apart), .rh_held_i(rh_valid), .rh_match_i(rh_match),
    .rh_apart_i(!rh_overlap && !(rh2_valid && rh2_overlap)), .pa_held_i(pa_valid),
    .pa_match_i(pa_match), .pa_apart_i(pa_apart), .seq_tile_clear_i(seq_tile_clear),
    .seq_rh_drop_i(seq_rh_drop), .seq_rh2_drop_i(seq_rh2_drop), .adopt_o(adopt),
    .rh_adopt_o(rh_adopt), .pa_adopt_o(pa_adopt), .abort_o(ctl_abort),
    .tile_drop_due_o(tile_drop_due), .tile_clear_o(tile_clear), .rh_drop_o(rh_drop),
    .rh2_drop_o(rh2_drop), .pa_drop_o(pa_drop), .pk_tile_i(pk_tile), .pk_rh_i(pk_rh),
    .pk_addr_i(pk_addr), .pk_len_i(pk_len), .pk_rows_i(pk_rows), .pk_cols_i(RbW'(pk_cols)),
    .pk_stride_eff_i(pk_stride_eff), .pa_cand_i(pp_ok), .pa_addr_i(pp_addr), .pa_len_i(pp_len),
    .tile_free_i(ra_free && !ra_failed), .tiles_i(ra_count != '0), .streaming_i(ra_streaming),
    .rh_due_i(rh_due), .rh2_due_i(rh2_due), .pa_idle_i(!pa_valid && !pa_busy),
    .wr_fire_i(wr_req_valid_o && wr_req_ready_i), .wr_idle_i, .dw_pend_o(dw_pend),
    .tile_join_o(tile_join), .rh_join_o(rh_join), .pa_start_o(pa_start), .stream_o(ra_stream),
    .rs_go_o(ra_go), .rs_req_ready_i, .rs_ext_valid_o, .rs_ext_rows_o, .rs_ext_jump_o,
    .rs_ext_addr_o, .rs_ext_ready_i, .rd_go_o(pa_go), .rd_req_ready_i
  );
  tpu_tile_readahead #(
    .N(N), .RaT(RaT), .Base(Ring), .SAw(SAw), .ReadAhead(ReadAhead), .RB(RB)
  ) u_tiles (
    .clk_i, .rst_i, .join_i(tile_join), .join_addr_i(pk_addr), .join_len_i(pk_len),
    .join_stride_i(pk_stride), .join_rows_i(KW'(pk_rows)), .join_cols_i(RbW'(pk_cols)),
    .join_qid_i(pk_qid_i), .rs_row_valid_i, .rs_err_i, .rh_due_i(rh_due || rh2_due),
    .rh_next_i(rh_next || rh2_next), .abort_i(!rdy_i), .drop_due_i(tile_drop_due),
    .clear_i(tile_clear), .pop_i(tile_pop), .push_end_i(fifo_push), .cmd_addr_i(f_addr),
    .cmd_len_i(f_len), .count_o(ra_count), .complete_o(ra_complete), .failed_o(ra_failed),
    .pushing_o(ra_pushing), .streaming_o(ra_streaming), .free_o(ra_free), .qid_o(ra_qid),
    .head_addr_o(ra_head_addr), .head_stride_o(ra_head_stride), .head_rows_o(ra_head_rows),
    .head_cols_o(ra_head_cols), .head_base_o(ra_head_base), .tail_addr_o(ra_tail_addr),
    .tail_stride_o(ra_tail_stride), .tail_rows_o(ra_tail_rows), .tail_cols_o(ra_tail_cols),
    .apart_o(ra_apart), .due_after_o(ra_due_after), .tile_done_o(ra_tile_done), .we_o(ra_we),
    .waddr_o(ra_waddr), .mask_o(ra_mask)
  );
  // the READ_HOSTs read ahead: a joining one takes a region that neither the background commit
  // nor the head uses; the head's rows come first on the stream, then the second's
  always_comb begin
    rh_free = 2'd0;
    if ((bg_active && bg_region == 2'd0) || (rh_valid && rh_region == 2'd0)) begin
      rh_free = 2'd1;
      if (Rh2 && ((bg_active && bg_region == 2'd1) || (rh_valid && rh_region == 2'd1)))
        rh_free = 2'd2;
    end
  end
  assign rh_row  = rs_row_valid_i && !rs_err_i && rh_next;
  assign rh2_row = rs_row_valid_i && !rs_err_i && rh2_next;
  tpu_readhost_ahead #(
    .N(N), .StageRows(StageRows), .SecondBase(Rb2), .SAw(SAw), .TileW(RaW + 1),
    .Enable(ReadAhead), .Head(1'b1), .RB(RB)
  ) u_rh (
    .clk_i, .rst_i, .load_i(rh_join && !rh_valid), .addr_i(pk_addr), .len_i(pk_len),
    .rows_i(pk_rows), .stride_i(pk_stride), .cols_i(pk_cols), .qid_i(pk_qid_i),
    .region_i(rh_free), .tiles_before_i(ra_due_after), .row_i(rh_row),
    .streaming_i(ra_streaming), .behind_i(1'b0), .tile_done_i(ra_tile_done),
    .drop_err_i(rs_err_i && rh_due), .abort_i(!rdy_i), .drop_i(rh_drop), .shift_i(rh_shift),
    .shift_entry_i(rh2_entry_d), .entry_d_o(rh_entry_d), .cmd_addr_i(f_addr),
    .cmd_len_i(f_len), .cmd_stride_i(f_stride), .cmd_rows_i(f_rows), .cmd_cols_i(stage_cols),
    .cmd_qid_i(qid), .valid_o(rh_valid), .due_o(rh_due), .next_o(rh_next),
    .region_o(rh_region), .base_o(rh_base), .match_o(rh_match), .overlap_o(rh_overlap),
    .waddr_o(rh_waddr), .mask_o(rh_mask)
  );
  tpu_readhost_ahead #(
    .N(N), .StageRows(StageRows), .SecondBase(Rb2), .SAw(SAw), .TileW(RaW + 1),
    .Enable(Rh2), .Head(1'b0), .RB(RB)
  ) u_rh2 (
    .clk_i, .rst_i, .load_i(rh_join && rh_valid), .addr_i(pk_addr), .len_i(pk_len),
    .rows_i(pk_rows), .stride_i(pk_stride), .cols_i(pk_cols), .qid_i(pk_qid_i),
    .region_i(rh_free), .tiles_before_i(ra_due_after), .row_i(rh2_row),
    .streaming_i(ra_streaming), .behind_i(rh_due), .tile_done_i(ra_tile_done),
    .drop_err_i(rs_err_i && (rh_due || rh2_due)), .abort_i(!rdy_i), .drop_i(rh2_drop),
    .shift_i(rh_shift), .shift_entry_i('0), .entry_d_o(rh2_entry_d), .cmd_addr_i(f_addr),
    .cmd_len_i(f_len), .cmd_stride_i(f_stride), .cmd_rows_i(f_rows), .cmd_cols_i(stage_cols),
    .cmd_qid_i(qid), .valid_o(rh2_valid), .due_o(rh2_due), .next_o(rh2_next),
    .region_o(rh2_region), .base_o(rh2_base), .match_o(rh2_match), .overlap_o(rh2_overlap),
    .waddr_o(rh2_waddr), .mask_o(rh2_mask)
  );
  tpu_param_readahead #(.N(N), .ReadAhead(ReadAhead)) u_pa (
    .clk_i, .rst_i, .start_i(pa_start), .addr_i(pp_addr), .len_i(pp_len), .qid_i(pk_qid_i),
    .rd_done_i, .rd_err_i, .rd_vec_i(rd_buf_i[4*N*8-1:0]), .take_i(pa_take), .check2_i(check2),
    .adopt_i(pa_adopt), .drop_i(pa_drop), .abandon_i(pl_abandon), .abort_i(!rdy_i),
    .cmd_addr_i(f_addr), .cmd_len_i(f_len), .cmd_qid_i(qid), .valid_o(pa_valid),
    .busy_o(pa_busy), .err_o(pa_err), .match_o(pa_match), .apart_o(pa_apart), .vec_o(pa_vec)
  );
  tpu_bg_commit #(.N(N), .StageRows(StageRows), .SAw(SAw), .ReadAhead(ReadAhead), .RB(RB)) u_bg (
    .clk_i, .rst_i, .start_i(bg_start), .from_i(bg_from), .off_i(bg_off),
    .from_head_i(rh_shift), .head_region_i(rh_region), .cmd_local_i(f_la), .cmd_rows_i(f_rows),
    .cmd_op_i(f_op), .cmd_lut_staged_i(lut_rs), .mm_accept_i(slot_mm_accept),
    .mm_a_i(slot_mm_a), .mm_rows_i(slot_mm_rows), .mm_flight_i(mm_flight),
    .mm_flight_d_i(mm_flight_d), .mm_done_i, .rd_ok_i(bg_rd_ok),
    .slot_ok_i(bg_wr_ok && slot_free), .bypass_i(slot_bypass), .st_rdata_i(st_rdata),
    .re_o(bg_re), .raddr_o(bg_raddr), .issue_o(bg_issue), .cmd_o(bg_cmd),
    .active_o(bg_active), .rd_valid_o(bg_rd_valid), .region_o(bg_region), .pass_o(bg_pass),
    .st_we_i(st_we), .st_waddr_i(st_waddr)
  );

  // ---------------------------------------------------------------- datapath side
  tpu_cmd_slot #(.N(N), .BgBypass(BgBypass), .RB(RB)) u_slot (
    .clk_i, .rst_i, .seq_load_i(seq_slot_load || rs_slot_load || pl_slot_load),
    .seq_cmd_i(rs_slot_load ? rs_slot_cmd : pl_slot_load ? pl_slot_cmd : seq_slot_cmd),
    .sm_load_i(sm_slot_load), .sm_cmd_i(sm_slot_cmd), .ep_load_i(ep_slot_load),
    .ep_cmd_i(ep_slot_cmd), .bg_load_i(bg_issue), .bg_cmd_i(bg_cmd),
    .bg_byp_i(bg_active && bg_rd_valid), .a_byp_i(sm_a_byp), .a_cmd_i(sm_a_cmd),
    .rd_byp_i(ep_rd_byp), .rd_cmd_i(ep_rd_cmd), .dp_valid_o, .dp_ready_i, .dp_cmd_o,
    .dp_mm_ok_i, .dp_wr_ok_i, .busy_o(slot_busy), .taken_o(slot_taken),
    .free_o(slot_free), .bypass_o(slot_bypass), .mm_o(slot_mm), .op_o(slot_op),
    .mm_accept_o(slot_mm_accept), .mm_a_o(slot_mm_a), .mm_rows_o(slot_mm_rows)
  );
  tpu_tile_state #(.N(N), .Tiles(Tiles), .Bf16(Bf16)) u_fifo (
    .clk_i, .rst_i, .push_i(fifo_push),
    .push_k_i(KW'(wpush_transpose_o ? f_cols : f_rows)),
    .push_cols_i(KW'(wpush_transpose_o ? f_rows : f_cols)), .push_bf16_i(f_bf16),
    .pop_i(fifo_pop),
    .clear_active_i(fifo_clear_active), .mm_rows_i(f_rows), .mm_pop_i(mm_pop),
    .count_o(fifo_count), .active_valid_o(fifo_active), .macs_o(fifo_macs),
    .mm_bf16_o(mm_bf16)
  );
  tpu_stream_matmul #(.N(N), .StageRows(StageRows), .SAw(SAw), .StreamMm(StreamMm), .RB(RB)) u_sm (
    .clk_i, .start_i(sm_start), .active_i(sm_active), .rdy_i, .watchdog_i(watchdog),
    .op0_i(f_op0), .op1_i(f_op1), .op2_i(f_op2), .op3_i(f_op3), .local_i(f_la),
    .local2_i(f_la2), .rows_i(f_rows), .cols_i(f_cols[KW-1:0]),
    .stream_rows_i(sm_stream_rows), .ktiles_i(sm_ktiles), .last_k_i(sm_last_k),
    .acc_rows_i(sm_acc_rows), .rows_in_i(rows_in), .base_i(base), .index_i(index),
    .rd_valid_i(rd_valid), .rows_in_o(sm_rows_in), .base_o(sm_base), .index_o(sm_index),
    .rd_valid_o(sm_rd_valid), .rs_row_valid_i, .rs_err_i, .st_we_o(sm_we), .st_re_o(sm_re),
    .st_raddr_o(sm_raddr), .st_rdata_i(st_rdata[N*8-1:0]), .slot_busy_i(slot_busy),
    .slot_taken_i(slot_taken), .bypass_i(slot_bypass), .bg_active_i(bg_active),
    .slot_load_o(sm_slot_load), .slot_cmd_o(sm_slot_cmd), .a_byp_o(sm_a_byp),
    .a_cmd_o(sm_a_cmd), .mm_flight_d_i(mm_flight_d), .mm_done_i, .wpush_valid_o(sm_wpush),
    .wpush_ready_i, .tile_k_o(sm_tile_k), .err_o(sm_err), .ep_writer_i(ep_writer),
    .ep_busy_i(ep_busy), .ep_hold_i(ep_hold), .ep_rdgo_i(ep_rd_go), .ep_rdbyp_i(ep_rd_byp),
    .end_o(sm_end), .last_a_row_o(sm_last_a), .mm_issued_o(sm_mm_issued), .vec_o(sm_vec),
    .ep_start_act_o(ep_start_act), .ep_acc_row_o(ep_acc_row), .ep_out_row_o(ep_out_row),
    .ep_complete_o(ep_complete), .ep_chain_o(ep_chain), .ep_start_vec_o(ep_start_vec),
    .ep_kind_o(ep_kind), .progress_o(sm_progress), .status_set_o(sm_status_set),
    .status_o(sm_status), .abort_o(sm_abort), .loaded_mult_o(sm_loaded_mult),
    .loaded_shift_o(sm_loaded_shift), .done_o(sm_done), .result_o(sm_result),
    .wr_bytes_o(sm_wr_bytes), .mm_valid_o(sm_mm_valid), .mm_rows_o(sm_mm_rows),
    .mm_macs_o(sm_mm_macs)
  );
  tpu_stream_epilogue #(.N(N), .StreamMm(StreamMm), .RdChain(RdChain), .RB(RB)) u_ep (
    .clk_i, .rst_i, .start_i(sm_start), .active_i(sm_active), .op0_i(f_op0), .op1_i(f_op1),
    .addr2_i(f_addr2), .start_act_i(ep_start_act), .acc_row_i(ep_acc_row),
    .out_row_i(ep_out_row), .complete_i(ep_complete), .chain_i(ep_chain),
    .start_vec_i(ep_start_vec), .kind_i(ep_kind), .vec_i(sm_vec), .mm_issued_i(sm_mm_issued),
    .end_i(sm_end), .last_a_row_i(sm_last_a), .slot_busy_i(slot_busy),
    .slot_taken_i(slot_taken), .bypass_i(slot_bypass), .dp_act_chain_i, .dp_rd_ok_i,
    .act_done_i, .rd_take_i(wg_take), .dp_rd_last_i, .slot_load_o(ep_slot_load),
    .slot_cmd_o(ep_slot_cmd), .rd_go_o(ep_rd_go), .rd_byp_o(ep_rd_byp), .rd_cmd_o(ep_rd_cmd),
    .writer_o(ep_writer), .hold_o(ep_hold), .busy_o(ep_busy), .wb_o(ep_wb),
    .wb_addr_o(ep_wb_addr)
  );
  tpu_write_gather #(.N(N), .WrBytes(WrBytes), .LenW(LenW)) u_gather (
    .clk_i, .rst_i, .rdy_i, .clear_i(wg_clear), .wh_i(wg_wh), .drain_i(wg_drain), .wb_i(ep_wb),
    .job_i(wg_job), .fence_i(is_fence), .semaphore_i({f_op1, f_op0}),
    .ident_first_i(index == 0), .ident_i, .row_bytes_i(row_bytes), .stride_i(stride),
    .wh_addr_i(host_addr), .wb_addr_i(ep_wb_addr), .dp_rd_valid_i, .dp_rd_ready_o,
    .dp_rd_data_i, .dp_rd_last_i, .take_o(wg_take), .wr_req_valid_o, .wr_req_ready_i,
    .wr_req_addr_o, .wr_req_len_o, .wr_req_data_o
  );

  // ---------------------------------------------------------------- staging RAM
  assign stage_cols = f_bf16 ? {f_cols[30:0], 1'b0} : f_cols;
  tpu_cmd_stage #(.N(N), .Depth(StDepth), .RB(RB)) u_stage (
    .clk_i, .rst_i, .rs_row_data_i, .seq_we_i(seq_we), .seq_waddr_i(seq_waddr),
    .cols_i(stage_cols), .rh_we_i(rh_row), .rh_next_i(rh_next), .rh_waddr_i(rh_waddr),
    .rh_mask_i(rh_mask), .rh2_we_i(rh2_row), .rh2_next_i(rh2_next),
    .rh2_waddr_i(rh2_waddr), .rh2_mask_i(rh2_mask), .ra_we_i(ra_we),
    .ra_streaming_i(ra_streaming), .ra_waddr_i(ra_waddr), .ra_mask_i(ra_mask),
    .seq_re_i(seq_re), .seq_raddr_i(seq_raddr),
    .bg_re_i(bg_re), .bg_raddr_i(bg_raddr), .we_o(st_we), .waddr_o(st_waddr),
    .rdata_o(st_rdata)
  );

  // ---------------------------------------------------------------- outputs
  // DMA requests: the command's own, or a read-ahead's (never both: the join's conditions)
  assign rd_req_valid_o  = pl_rd_req || pa_go;
  assign rd_req_addr_o   = pa_go ? pp_addr : host_addr;
  assign rd_req_len_o    = pa_go ? LenW'(pp_len) : LenW'(f_len);
  assign rs_req_valid_o  = seq_rs_req || ra_go;
  assign rs_req_addr_o   = ra_go ? pk_addr : host_addr;
  assign rs_req_rb_o     = ra_go ? RbW'(pk_cols) : lut_rs ? RbW'(N) : RbW'(stage_cols);
  assign rs_req_stride_o = ra_go ? pk_stride_eff : stride;
  // (the command's own stream: its rows left; STREAM_MATMUL's and a staged LUT's rows)
  assign rows_eff        = lut_rs ? 32'(LutRows) : is_sm ? sm_stream_rows : f_rows;
  assign rs_abort_o      = seq_rs_abort || ctl_abort;
  assign rs_req_rows_o   = ra_go ? pk_rows : rows_eff - rows_in;
  assign rs_limit_o      = ra_stream ? 32'hFFFF_FFFF : seq_rs_limit;
  // weight rows: a LOAD_WEIGHTS' push or STREAM_MATMUL's (rows beyond the tile's K zero, all
  // zero after a failed stream)
  assign wpush_valid_o     = rs_wpush || sm_wpush;
  // (Bf16: an int8 tile's byte k into lane k's low byte)
  logic [RB*8-1:0] wpush_lanes;
  if (Bf16) begin : g_lanes
    always_comb begin
      for (int unsigned k = 0; k < N; k++)
        wpush_lanes[16*k +: 16] = f_bf16 ? st_rdata[16*k +: 16] : {8'd0, st_rdata[8*k +: 8]};
    end
  end else begin : g_no_lanes
    assign wpush_lanes = st_rdata;
  end
  assign wpush_row_o       = (index < (is_sm ? 32'(sm_tile_k) : f_rows) && !(is_sm && sm_err)) ?
                             wpush_lanes : '0;
  assign wpush_transpose_o = is_lw && (f_op0 & tpu_pkg::LoadWeightsTranspose) != 0;
  assign mm_valid_o      = seq_mm_valid || sm_mm_valid;
  assign mm_rows_o       = sm_mm_valid ? sm_mm_rows : f_rows;
  assign mm_macs_o       = sm_mm_valid ? sm_mm_macs : fifo_macs;
  assign cpl_valid_o     = seq_cpl;
  assign cpl_sc_o        = status;
  assign cpl_result_o    = status == tpu_pkg::ScSuccess ? result : 32'd0;
  assign acct_valid_o    = seq_cpl;
  assign acct_qid_o      = qid;
  assign acct_cid_o      = f_cid;
  assign acct_opcode_o   = f_op;
  assign acct_sc_o       = status;
  assign acct_addr_o     = f_addr;
  assign acct_rd_bytes_o = status == tpu_pkg::ScSuccess ? rd_bytes : 32'd0;
  assign acct_wr_bytes_o = status == tpu_pkg::ScSuccess ? wr_bytes : 32'd0;

  logic unused;
  assign unused = ^{rh_entry_d, rh2_base, rh2_match};  // (the second entry is never adopted)

`ifndef SYNTHESIS
  // valid/ready on the outbound streams (a row stream request may be withdrawn by its abort).
  // A read job request is an offer instead: tpu_dma takes it in a cycle with valid and ready,
  // and LOAD_PARAMS' request (rdy_i) and the read-ahead's start (tpu_readahead_ctl) may go
  // away while tpu_dma is busy; only the request taken counts.
  tpu_handshake_check #(.Width(64), .Name("tpu_cmd_proc rs_req")) u_rs_check (
    .clk_i, .rst_i, .valid_i(rs_req_valid_o), .ready_i(rs_req_ready_i),
    .data_i(rs_req_addr_o), .drop_i(rs_abort_o));
  tpu_handshake_check #(.Width(RB * 8), .Name("tpu_cmd_proc wpush")) u_wpush_check (
    .clk_i, .rst_i, .valid_i(wpush_valid_o), .ready_i(wpush_ready_i),
    .data_i(wpush_row_o), .drop_i(1'b0));

  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // the read-ahead requests keep to the free job engines (never beside the command's own)
      assert (!(seq_rs_req && ra_go)) else $error("tpu_cmd_proc: two row stream requests");
      assert (!(pl_rd_req && pa_go)) else $error("tpu_cmd_proc: two read job requests");
      // the READ_HOSTs held use distinct regions, none the background commit reads
      assert (!(rh_valid && rh2_valid && rh_region == rh2_region))
        else $error("tpu_cmd_proc: two READ_HOSTs read ahead into one region");
      assert (!rh2_valid || rh_valid) else $error("tpu_cmd_proc: a second READ_HOST, no head");
      assert (!(bg_active && rh_valid && rh_due && bg_region == rh_region))
        else $error("tpu_cmd_proc: a READ_HOST read ahead into the region being committed");
    end
  end
`endif
endmodule

`default_nettype wire
