// tpu_cmd_seq: the main sequencer of tpu_cmd_proc. Takes one SQE at a time from the queue
// engine into the SQE register, runs CHECK1/CHECK2 (tpu_cmd_check), executes the command and
// returns (status, result) on cpl_* with the accounting of spec 6.1 on acct_* and mm_*.
// Pipeline: IDLE -> [FENCE: datapath idle and writes sent] -> CHECK1 -> CHECK2 -> execute ->
// DONE (cpl_valid_o one cycle). FENCE is skipped when there is nothing to wait for (no FENCE
// flag, not FENCE, no background commit), CHECK1 too for MATMUL and ACTIVATE.
// Execution (the engines of tpu_cmd_proc do the rest):
//   READ_HOST     one DMA row stream of all ROWS (many MRDs in flight, rows in order) into the
//                 staging ring of 2 x StageRows rows (bytes COLS..N-1 zeroed), committed chunk
//                 by chunk (StageRows rows) by UB_WRITEs once no MATMUL is in flight, while the
//                 stream fills the other half (rs_limit: never over rows not yet committed);
//                 with ReadAhead the last chunk, once every row is in, commits in the
//                 background (tpu_bg_commit) and the command completes. A failed row ends the
//                 command before its chunk is committed (transfers of ROWS <= StageRows are
//                 all-or-nothing; docs/device.md for longer ones).
//   LOAD_WEIGHTS  rows staged the same way, then N rows pushed on wpush (rows >= ROWS zero, one
//                 row per cycle); the logical FIFO (tpu_tile_state) counts the tile then.
//   LOAD_PARAMS   one DMA read job of the whole vector, value checks on all of it, then PARAM
//                 writes; OUTPUT is one PARAM write from the SQE; LutStage: the LUT as a row
//                 stream of 256 / N packed rows into the ring, PARAM writes from there.
//   MATMUL        one datapath command; completes when the datapath accepts it (its effects are
//                 ordered before every later datapath command: the next command's DMA overlaps
//                 the MXU). ACTIVATE: completes on act_done_i with the saturation count.
//   WRITE_HOST    UB_READ/ACC_READ; its rows become write jobs (tpu_write_gather).
//   FENCE         waits (above); optional 8-byte write. IDENTIFY: 4096 bytes in chunks.
//   STREAM_MATMUL SSm: tpu_stream_matmul and tpu_stream_epilogue drive the row counters.
// Read-aheads (ReadAhead): CHECK2 adopts what was read ahead when the command has the same read
// and passes every check (the head tile: SPreWait, then SPush from its region; the head
// READ_HOST: SRhWait, then its background commit; the LOAD_PARAMS vector: SPaWait); MATMUL,
// ACTIVATE, LOAD_PARAMS (no staged LUT) and a WRITE_HOST apart from the spans pass them on; any
// other command drops them (the stream is aborted). The states in which each may start are
// this module's (tile_ok_o, rh_ok_o, pa_ok_o: tpu_readahead_ctl).
// Watchdog: a command still waiting on the link after timeout_units_i x 1024 cycles (0 = off)
// ends with CMD_TIMEOUT (its read job is abandoned; a WRITE_HOST drains its read stream).
// rdy_i low aborts: DMA waits end at once; datapath work in progress (a commit, a tile push, a
// read stream) is finished so local state stays consistent; no completion is reported.
// Bf16 (spec 6.12; RB = 2N bytes per UB row): the MATMUL and ACTIVATE datapath commands carry
// FLAGS.BF16 (flags[3]; the float ACTIVATE's OP0 SCALE, RAW32, CLAMP in flags[0..2]), a bf16
// transfer's RESULT counts 2 x COLS bytes per row, an FCLAMP load is two PARAM writes (FMIN,
// then FMAX: SFclamp), and the float ACTIVATE's RESULT is its clamp count (RAW32 too).
`default_nettype none

module tpu_cmd_seq #(
  parameter int unsigned N         = 16,
  parameter int unsigned StageRows = 64,
  parameter int unsigned SAw       = 9,
  parameter bit          StreamMm  = 1'b1,
  parameter bit          RhTwo     = 1'b0,   // a second READ_HOST read ahead (RhDepth = 2)
  parameter bit          Bf16      = 1'b0,   // the bf16 mode (above)
  parameter int unsigned RB        = N,      // UB row bytes (2N with Bf16)
  localparam int unsigned Ring     = 2 * StageRows,
  localparam int unsigned KW       = $clog2(N + 1),
  localparam int unsigned CmdWidth = tpu_pkg::DpCmdDataLsb + 8 * RB
) (
  input  logic                 clk_i, rst_i, rdy_i,
  input  logic [15:0]          timeout_units_i,
  // the queue engine
  input  logic                 cmd_valid_i,
  output logic                 cmd_ready_o,
  input  logic [511:0]         cmd_sqe_i,
  input  logic [7:0]           cmd_qid_i,
  // the SQE register, its decode and checks (tpu_cmd_check)
  output logic [511:0]         sqe_o,
  output logic [7:0]           qid_o,
  output logic                 check1_o,
  input  logic [7:0]           op_i, flags_i, check_sc_i,
  input  logic [63:0]          addr_i, stride_i,
  input  logic [31:0]          len_i, local_i, local2_i, rows_i, op0_i, row_bytes_i,
  input  logic [KW-1:0]        cols_i,
  input  logic [25:0]          out_param_i,    // LOAD_PARAMS OUTPUT: OP0.ROUND, OP3..OP1 bytes 0
  input  logic                 is_wh_i, is_fence_i, lut_rs_i, lp_out_i, wh_acc_i, act_raw_i,
  input  logic                 act_lut_i, mm_pop_i,
  input  logic                 bf16_i, lp_fclamp_i,  // (Bf16) FLAGS.BF16, an FCLAMP load
  input  logic [63:0]          fclamp_i,             // ... its {FMAX, FMIN}
  input  logic                 span_busy_i,
  // completion and accounting; the watchdog
  output logic                 cpl_valid_o, mm_valid_o, aborted_o, watchdog_o,
  output logic [7:0]           status_o,
  output logic [31:0]          result_o, rd_bytes_o, wr_bytes_o,
  output logic [6:0]           params_loaded_o,
  // the read-aheads: tpu_tile_readahead, tpu_readhost_ahead (head, second), tpu_param_readahead
  // (tpu_readahead_ctl decides the adoptions at CHECK2 and drops what the command may not pass)
  output logic                 check2_o,
  input  logic                 adopt_i, rh_adopt_i, pa_adopt_i,
  input  logic                 tiles_i, tiles_complete_i, tiles_failed_i, tiles_pushing_i,
  input  logic [SAw-1:0]       head_base_i,
  output logic                 tile_clear_o, tile_pop_o,
  input  logic                 rh_held_i, rh_due_i, rh2_due_i,
  input  logic [31:0]          rh_base_i,
  output logic                 rh_drop_o, rh2_drop_o, rh_shift_o, pa_take_o,
  output logic                 tile_ok_o, rh_ok_o, pa_ok_o, wh_clean_o, skip_head_o,
  input  logic                 dw_pend_i,
  // the background commit (tpu_bg_commit), the logical weight FIFO (tpu_tile_state)
  input  logic                 bg_active_i, bg_pass_i,
  output logic                 bg_start_o, bg_rd_ok_o, bg_wr_ok_o,
  output logic [31:0]          bg_from_o, bg_off_o,
  output logic                 fifo_pop_o, fifo_clear_active_o,
  // the row counters, and their next values from tpu_row_stage (rs_*) and STREAM_MATMUL
  // (tpu_stream_matmul, tpu_stream_epilogue: sm_*) in their states
  output logic [31:0]          rows_in_o, base_o, index_o,
  output logic                 rd_valid_o,
  output logic [63:0]          host_addr_o,
  output logic [SAw-1:0]       push_base_o,
  output logic                 rs_wait_o, rs_commit_o, rs_commit_last_o, rs_push_o,
  input  logic [31:0]          rs_rows_in_i, rs_base_i, rs_index_i, rs_bg_from_i,
  input  logic [63:0]          rs_host_addr_i,
  input  logic                 rs_rd_valid_i, rs_st_we_i, rs_st_re_i, rs_slot_load_i,
  input  logic [SAw-1:0]       rs_st_raddr_i,
  input  logic [CmdWidth-1:0]  rs_slot_cmd_i,
  input  logic                 rs_status_set_i, rs_abort_i, rs_complete_i, rs_bg_start_i,
  input  logic [7:0]           rs_status_i,
  input  logic                 rs_to_done_i, rs_to_wait_i, rs_to_commit_i,
  input  logic                 rs_to_commit_last_i, rs_to_push_i, rs_to_par_write_i,
  output logic                 sm_start_o, sm_active_o,
  input  logic [31:0]          sm_rows_in_i, sm_base_i, sm_index_i, sm_result_i, sm_wr_bytes_i,
  input  logic                 sm_rd_valid_i, sm_st_we_i, sm_st_re_i,
  input  logic [SAw-1:0]       sm_st_raddr_i,
  input  logic                 sm_progress_i, sm_status_set_i, sm_abort_i, sm_loaded_mult_i,
  input  logic                 sm_loaded_shift_i, sm_done_i, sm_mm_valid_i,
  input  logic [7:0]           sm_status_i,
  // the write jobs (tpu_write_gather)
  output logic                 wg_clear_o, wg_wh_o, wg_drain_o, wg_job_o,
  input  logic                 wg_take_i, dp_rd_last_i, wr_req_ready_i,
  // LOAD_PARAMS (tpu_param_load: pl_*) in its states
  output logic                 pl_read_o, pl_wait_o, pl_pa_wait_o, pl_write_o,
  input  logic [31:0]          pl_index_i,
  input  logic                 pl_rd_valid_i, pl_st_re_i, pl_slot_load_i, pl_status_set_i,
  input  logic                 pl_complete_i, pl_to_done_i, pl_to_wait_i, pl_to_write_i,
  input  logic [SAw-1:0]       pl_st_raddr_i,
  input  logic [CmdWidth-1:0]  pl_slot_cmd_i,
  input  logic [7:0]           pl_status_i,
  // the DMA engine's row stream (own requests; tpu_cmd_proc adds the read-aheads')
  output logic                 rs_req_valid_o, rs_abort_o,
  output logic [31:0]          rs_limit_o,
  input  logic                 rs_req_ready_i,
  // the staging RAM (own rows; tpu_cmd_proc adds the read-aheads' and the commit's)
  output logic                 st_we_o, st_re_o,
  output logic [SAw-1:0]       st_waddr_o, st_raddr_o,
  // the command slot (tpu_cmd_slot), the datapath
  output logic                 slot_load_o,
  output logic [CmdWidth-1:0]  slot_cmd_o,
  input  logic                 slot_busy_i, slot_taken_i, slot_free_i, mm_accept_i,
  input  logic [3:0]           slot_op_i,
  output logic [15:0]          mm_flight_o, mm_flight_d_o,
  input  logic                 mm_done_i, act_done_i, dp_idle_i, wr_idle_i,
  input  logic [31:0]          act_result_i
);
  localparam logic [3:0] DpParam = tpu_pkg::DpOpParam,
                         DpMatmul = tpu_pkg::DpOpMatmul, DpActivate = tpu_pkg::DpOpActivate,
                         DpUbRead = tpu_pkg::DpOpUbRead, DpAccRead = tpu_pkg::DpOpAccRead;
  localparam int unsigned COp = tpu_pkg::DpCmdOpLsb, CFl = tpu_pkg::DpCmdFlagsLsb,
                          CA = tpu_pkg::DpCmdALsb, CB = tpu_pkg::DpCmdBLsb,
                          CRows = tpu_pkg::DpCmdRowsLsb, CData = tpu_pkg::DpCmdDataLsb;
  localparam int unsigned IdChunk = 64;                      // IDENTIFY write job size

  typedef enum logic [4:0] {
    SIdle, SFence, SCheck1, SCheck2, SRowRead, SRowWait, SCommit, SCommitLast, SPush,
    SParRead, SParWait, SParWrite, SDpCmd, SActWait, SWhStream, SWhDrain, SWrJob, SDone,
    SPreWait, SPaWait, SRhWait, SSmReq, SSm, SFclamp
  } state_e;

  state_e        state_q, state_d;
  logic          aborted_q, aborted_d;
  logic [511:0]  sqe_q, sqe_d;
  logic [7:0]    qid_q, qid_d, status_q, status_d;
  logic [31:0]   result_q, result_d, rd_bytes_q, rd_bytes_d, wr_bytes_q, wr_bytes_d;  // (success)
  logic [63:0]   host_addr_q, host_addr_d;    // host address of the next row / chunk
  logic [31:0]   rows_in_q, rows_in_d;        // rows done (DMA side)
  logic [31:0]   base_q, base_d;              // first row of the current staging chunk
  logic [31:0]   index_q, index_d;            // commit / push / param index
  logic          rd_valid_q, rd_valid_d;      // the staging RAM's read data valid
  logic [SAw-1:0] push_base_q, push_base_d;   // staging row of the tile being pushed
  logic [31:0]   wd_units_q, wd_units_d;      // watchdog: cycles / 1024 and the remainder
  logic [9:0]    wd_cycles_q, wd_cycles_d;
  logic [15:0]   mm_flight_q, mm_flight_d;    // MATMULs accepted, last row not written
  logic [7:0]    loaded_q, loaded_d;          // parameters loaded (tpu_pkg::param_kind_e)
  logic          wh_clean_q, wh_clean_d;      // no data write pending when WRITE_HOST began
  logic          watchdog;
  logic [31:0]   bytes;                       // ROWS x row bytes (COLS, or 2 x COLS for bf16)
  logic          bf16;

  assign bf16     = Bf16 && bf16_i;
  assign bytes    = Bf16 ? rows_i * 32'(row_bytes_i[KW:0]) : rows_i * 32'(cols_i);
  assign watchdog = timeout_units_i != 0 && wd_units_q >= 32'(timeout_units_i);

  always_comb begin
    state_d = state_q;  aborted_d = aborted_q || !rdy_i;
    sqe_d = sqe_q;  qid_d = qid_q;  status_d = status_q;  result_d = result_q;
    rd_bytes_d = rd_bytes_q;  wr_bytes_d = wr_bytes_q;  wh_clean_d = wh_clean_q;
    host_addr_d = host_addr_q;  rows_in_d = rows_in_q;  base_d = base_q;  index_d = index_q;
    rd_valid_d = 1'b0;  push_base_d = push_base_q;  loaded_d = loaded_q;
    mm_flight_d = mm_flight_q + 16'(mm_accept_i) - 16'(mm_done_i);
    wd_units_d = wd_units_q;  wd_cycles_d = wd_cycles_q + 10'd1;
    if (wd_cycles_q == 10'h3FF) wd_units_d = wd_units_q + 32'd1;
    st_we_o = 1'b0;  st_waddr_o = SAw'(rows_in_q % Ring);
    st_re_o = 1'b0;  st_raddr_o = SAw'((base_q + index_q) % Ring);
    rs_abort_o = 1'b0;  cpl_valid_o = 1'b0;  mm_valid_o = 1'b0;
    slot_load_o = 1'b0;  slot_cmd_o = '0;
    tile_clear_o = 1'b0;  tile_pop_o = 1'b0;
    rh_drop_o = 1'b0;  rh2_drop_o = 1'b0;  rh_shift_o = 1'b0;
    pa_take_o = 1'b0;
    bg_start_o = 1'b0;  bg_from_o = '0;  bg_off_o = '0;
    fifo_pop_o = 1'b0;  fifo_clear_active_o = 1'b0;
    wg_clear_o = 1'b0;

    unique case (state_q)
      SIdle: begin
        aborted_d = 1'b0;
        if (cmd_valid_i) begin
          sqe_d = cmd_sqe_i;
          qid_d = cmd_qid_i;
          status_d = tpu_pkg::ScSuccess;  result_d = '0;  rd_bytes_d = '0;  wr_bytes_d = '0;
          wd_units_d = '0;  wd_cycles_d = '0;
          pa_take_o = 1'b1;
          state_d = SFence;
          // nothing to wait for (no FENCE flag, not FENCE, no background commit): skip FENCE,
          // and CHECK1 too for MATMUL and ACTIVATE (no span, no window check)
          if ((cmd_sqe_i[tpu_pkg::SqeFlagsLsb +: 8] & tpu_pkg::SqeFlagFence) == 0 &&
              cmd_sqe_i[tpu_pkg::SqeOpcodeLsb +: 8] != tpu_pkg::OpFence && !bg_active_i)
            state_d = (cmd_sqe_i[tpu_pkg::SqeOpcodeLsb +: 8] == tpu_pkg::OpMatmul ||
                       cmd_sqe_i[tpu_pkg::SqeOpcodeLsb +: 8] == tpu_pkg::OpActivate) ? SCheck2
                                                                                   : SCheck1;
        end
      end
      // FENCE flag or FENCE command: every earlier command complete, its writes sent
      SFence: begin
        if (!(((flags_i & tpu_pkg::SqeFlagFence) != 0 || is_fence_i) &&
              !(dp_idle_i && mm_flight_q == 0 && !slot_busy_i && wr_idle_i && !bg_active_i)) &&
            (!bg_active_i || bg_pass_i))
          state_d = SCheck1;
      end
      // (a background commit's UB_WRITE still in the command slot goes first: CHECK2 issues)
      SCheck1: if (!span_busy_i && slot_free_i) state_d = SCheck2;
      SCheck2: begin
        status_d = check_sc_i;
        host_addr_d = addr_i;  rows_in_d = '0;  base_d = '0;  index_d = '0;  push_base_d = '0;
        if (check_sc_i != tpu_pkg::ScSuccess) begin
          state_d = SDone;
        end else if (adopt_i) begin
          state_d = SPreWait;
        end else if (rh_adopt_i) begin
          state_d = SRhWait;
        end else if (pa_adopt_i) begin
          state_d = SPaWait;
        end else begin
          unique case (op_i)
            tpu_pkg::OpReadHost, tpu_pkg::OpLoadWeights: state_d = SRowRead;
            tpu_pkg::OpLoadParams: begin
              if (lp_out_i) begin
                slot_cmd_o[COp +: 4] = DpParam;  slot_cmd_o[CFl +: 3] = 3'(tpu_pkg::ParamOutput);
                slot_cmd_o[CData +: 26] = out_param_i;
                slot_load_o = 1'b1;
                loaded_d[tpu_pkg::ParamOutput] = 1'b1;
                state_d = SDpCmd;
              end else if (Bf16 && lp_fclamp_i) begin
                slot_cmd_o[COp +: 4] = DpParam;  slot_cmd_o[CFl +: 3] = 3'(tpu_pkg::ParamFclamp);
                slot_cmd_o[CData +: 32] = fclamp_i[31:0];  // FMIN (index 0)
                slot_load_o = 1'b1;
                state_d = SFclamp;
              end else begin
                state_d = lut_rs_i ? SRowRead : SParRead;
              end
            end
            tpu_pkg::OpMatmul: begin
              slot_cmd_o[COp +: 4] = DpMatmul;
              slot_cmd_o[CFl] = (op0_i & tpu_pkg::MatmulAccumulate) != 0;
              slot_cmd_o[CFl + 1] = mm_pop_i;
              slot_cmd_o[CFl + 3] = bf16;
              slot_cmd_o[CA +: 32] = local_i;  slot_cmd_o[CB +: 32] = local2_i;
              slot_cmd_o[CRows +: 32] = rows_i;
              slot_load_o = 1'b1;
              result_d = rows_i;
              state_d = SDpCmd;
            end
            tpu_pkg::OpActivate: begin
              slot_cmd_o[COp +: 4] = DpActivate;
              slot_cmd_o[CFl] = bf16 ? (op0_i & tpu_pkg::ActivateScale) != 0 : act_lut_i;
              slot_cmd_o[CFl + 1] = act_raw_i;
              slot_cmd_o[CFl + 2] = bf16 && (op0_i & tpu_pkg::ActivateClamp) != 0;
              slot_cmd_o[CFl + 3] = bf16;
              slot_cmd_o[CA +: 32] = local_i;  slot_cmd_o[CB +: 32] = local2_i;
              slot_cmd_o[CRows +: 32] = rows_i;
              slot_load_o = 1'b1;
              state_d = SDpCmd;
            end
            tpu_pkg::OpWriteHost: begin
              slot_cmd_o[COp +: 4] = wh_acc_i ? DpAccRead : DpUbRead;
              slot_cmd_o[CA +: 32] = local_i;  slot_cmd_o[CRows +: 32] = rows_i;
              slot_load_o = 1'b1;
              result_d = rows_i * 32'(row_bytes_i[KW+1:0]);  // (row bytes <= 4N here)
              wr_bytes_d = result_d;
              state_d = SDpCmd;
            end
            tpu_pkg::OpFence: begin
              if (addr_i != 0) begin
                wr_bytes_d = 32'd8;
                state_d = SWrJob;
              end else begin
                state_d = SDone;
              end
            end
            tpu_pkg::OpStreamMatmul: begin
              // (its tiles pass through the active tile: none is active afterwards)
              fifo_clear_active_o = 1'b1;
              wg_clear_o = 1'b1;
              if ((op0_i & tpu_pkg::StreamMatmulActivate) != 0) loaded_d[tpu_pkg::ParamBias] = 1'b1;
              state_d = StreamMm ? SSmReq : SDone;  // (without it the check fails first)
            end
            tpu_pkg::OpIdentify: begin
              wr_bytes_d = tpu_pkg::IdentifyBytes;
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
        else if (rs_req_ready_i && !bg_active_i) state_d = SRowWait;
      end
      // READ_HOST / LOAD_WEIGHTS / a staged LUT: the rows, the chunk commits, the push
      // (tpu_row_stage)
      SRowWait, SCommit, SCommitLast, SPush: begin
        rows_in_d = rs_rows_in_i;  base_d = rs_base_i;  index_d = rs_index_i;
        rd_valid_d = rs_rd_valid_i;  host_addr_d = rs_host_addr_i;
        st_we_o = rs_st_we_i;  st_re_o = rs_st_re_i;  st_raddr_o = rs_st_raddr_i;
        slot_load_o = rs_slot_load_i;  slot_cmd_o = rs_slot_cmd_i;
        if (rs_status_set_i) status_d = rs_status_i;
        rs_abort_o = rs_abort_i;
        if (rs_complete_i) begin
          result_d = bytes;
          rd_bytes_d = result_d;
        end
        bg_start_o = rs_bg_start_i;  bg_from_o = rs_bg_from_i;
        if (rs_to_done_i) state_d = SDone;
        else if (rs_to_push_i) state_d = SPush;
        else if (rs_to_par_write_i) state_d = SParWrite;
        else if (rs_to_commit_i) state_d = SCommit;
        else if (rs_to_commit_last_i) state_d = SCommitLast;
        else if (rs_to_wait_i) state_d = SRowWait;
      end
      // ---- LOAD_WEIGHTS read ahead: wait until the head tile is complete, then push it from
      // its region (the region stays reserved until the push ends: tiles_pushing)
      SPreWait: begin
        if (!rdy_i) begin
          state_d = SDone;
        end else if (!tiles_i) begin
          state_d = SRowRead;  // dropped after a failure in a later tile's rows: read them
          // (its own rows go through the staging ring: a READ_HOST read ahead is dropped)
          rs_abort_o = rh_due_i || rh2_due_i;
          rh_drop_o = 1'b1;  rh2_drop_o = 1'b1;
        end else if (tiles_complete_i) begin
          push_base_d = head_base_i;
          tile_pop_o = 1'b1;
          index_d = '0;
          state_d = SPush;
        end else if (tiles_failed_i) begin
          tile_clear_o = 1'b1;
          status_d = tpu_pkg::ScDmaXferError;
          state_d = SDone;
        end else if (watchdog) begin
          rs_abort_o = 1'b1;
          tile_clear_o = 1'b1;
          status_d = tpu_pkg::ScCmdTimeout;
          state_d = SDone;
        end
      end
      // ---- READ_HOST read ahead: wait until its rows are in, then complete and commit them in
      // the background; dropped after a stream error: read its own rows
      SRhWait: begin
        if (!rdy_i) begin
          state_d = SDone;
        end else if (!rh_held_i) begin
          state_d = SRowRead;
        end else if (!rh_due_i) begin
          rh_drop_o = 1'b1;
          bg_start_o = 1'b1;  bg_off_o = rh_base_i;  bg_from_o = rh_base_i;
          rh_shift_o = 1'b1;  // (the second entry becomes the head)
        end else if (watchdog) begin
          rs_abort_o = 1'b1;
          rh_drop_o = 1'b1;  rh2_drop_o = 1'b1;
          tile_clear_o = 1'b1;
          status_d = tpu_pkg::ScCmdTimeout;
          state_d = SDone;
        end
      end
      // ---- STREAM_MATMUL: one row stream of C x K rows into the ring; the engines push the
      // tiles as their rows come in and issue their MATMULs and the block epilogues
      SSmReq: begin
        if (!rdy_i) state_d = SDone;
        else if (rs_req_ready_i && !bg_active_i) state_d = SSm;
      end
      SSm: begin
        st_we_o = sm_st_we_i;  st_re_o = sm_st_re_i;  st_raddr_o = sm_st_raddr_i;
        rows_in_d = sm_rows_in_i;  base_d = sm_base_i;  index_d = sm_index_i;
        rd_valid_d = sm_rd_valid_i;
        if (sm_progress_i) begin
          wd_units_d = '0;  wd_cycles_d = '0;
        end
        if (sm_status_set_i) status_d = sm_status_i;
        rs_abort_o = sm_abort_i;
        if (sm_loaded_mult_i) loaded_d[tpu_pkg::ParamMult] = 1'b1;
        if (sm_loaded_shift_i) loaded_d[tpu_pkg::ParamShift] = 1'b1;
        if (sm_done_i) begin
          if (sm_mm_valid_i) begin
            result_d = sm_result_i;
            rd_bytes_d = result_d;
            wr_bytes_d = sm_wr_bytes_i;
          end
          state_d = SDone;
        end
      end
      // ---- LOAD_PARAMS: the read job (or the read-ahead), the checks, the PARAM writes
      // (tpu_param_load)
      SParRead, SParWait, SPaWait, SParWrite: begin
        index_d = pl_index_i;  rd_valid_d = pl_rd_valid_i;
        st_re_o = pl_st_re_i;  st_raddr_o = pl_st_raddr_i;
        slot_load_o = pl_slot_load_i;  slot_cmd_o = pl_slot_cmd_i;
        if (pl_status_set_i) status_d = pl_status_i;
        if (pl_complete_i) begin
          loaded_d[op0_i[2:0]] = 1'b1;
          result_d = len_i;
          rd_bytes_d = len_i;
        end
        if (pl_to_done_i) state_d = SDone;
        else if (pl_to_wait_i) state_d = SParWait;
        else if (pl_to_write_i) state_d = SParWrite;
      end
      // ---- FCLAMP: FMAX (index 1) once the slot has taken FMIN
      SFclamp: begin
        if (slot_free_i) begin
          slot_cmd_o[COp +: 4] = DpParam;  slot_cmd_o[CFl +: 3] = 3'(tpu_pkg::ParamFclamp);
          slot_cmd_o[CA +: 32] = 32'd1;
          slot_cmd_o[CData +: 32] = fclamp_i[63:32];
          slot_load_o = 1'b1;
          loaded_d[tpu_pkg::ParamFclamp] = 1'b1;
          state_d = SDpCmd;
        end
      end
      // ---- one datapath command (PARAM OUTPUT, MATMUL, ACTIVATE, UB_READ/ACC_READ)
      SDpCmd: begin
        if (slot_taken_i) begin
          unique case (slot_op_i)
            DpMatmul: begin
              mm_valid_o = 1'b1;
              fifo_pop_o = mm_pop_i;
              state_d = SDone;
            end
            DpActivate: state_d = SActWait;
            DpUbRead, DpAccRead: begin
              state_d = SWhStream;
              wh_clean_d = !dw_pend_i;  // CQEs/MSIs may be pending: the peek checks exclude them
              wg_clear_o = 1'b1;
            end
            default: state_d = SDone;
          endcase
        end
      end
      SActWait: begin
        if (act_done_i) begin
          result_d = (act_raw_i && !bf16) ? 32'd0 : act_result_i;
          state_d = SDone;
        end
      end
      // ---- WRITE_HOST: each row read out becomes a write job (tpu_write_gather)
      SWhStream: begin
        if (wg_take_i) begin
          host_addr_d = host_addr_q + stride_i;
          if (dp_rd_last_i) state_d = SDone;
        end else if (watchdog) begin
          status_d = tpu_pkg::ScCmdTimeout;
          state_d = SWhDrain;
        end
      end
      SWhDrain: if (wg_take_i && dp_rd_last_i) state_d = SDone;
      // ---- FENCE semaphore, IDENTIFY page (index = chunk)
      SWrJob: begin
        if (!rdy_i) begin
          state_d = SDone;
        end else if (wr_req_ready_i) begin
          host_addr_d = host_addr_q + 64'(IdChunk);
          index_d = index_q + 32'd1;
          if (is_fence_i || index_q + 32'd1 == tpu_pkg::IdentifyBytes / IdChunk) state_d = SDone;
        end else if (watchdog) begin
          status_d = tpu_pkg::ScCmdTimeout;
          state_d = SDone;
        end
      end
      SDone: begin
        state_d = SIdle;
        cpl_valid_o = !aborted_q && rdy_i;
      end
      default: state_d = SIdle;
    endcase

    // a READ_HOST whose rows are all in completes (its RESULT); tpu_bg_commit commits them
    if (bg_start_o) begin
      result_d = bytes;
      rd_bytes_d = result_d;
      state_d = SDone;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      state_q <= SIdle;  aborted_q <= 1'b0;  rd_valid_q <= 1'b0;  mm_flight_q <= '0;
      loaded_q <= '0;
    end else begin
      state_q <= state_d;  aborted_q <= aborted_d;  rd_valid_q <= rd_valid_d;
      mm_flight_q <= mm_flight_d;  loaded_q <= loaded_d;
    end
  end
  always_ff @(posedge clk_i) begin
    sqe_q <= sqe_d;  qid_q <= qid_d;  status_q <= status_d;  result_q <= result_d;
    rd_bytes_q <= rd_bytes_d;  wr_bytes_q <= wr_bytes_d;  host_addr_q <= host_addr_d;
    rows_in_q <= rows_in_d;  base_q <= base_d;  index_q <= index_d;
    push_base_q <= push_base_d;  wd_units_q <= wd_units_d;  wd_cycles_q <= wd_cycles_d;
    wh_clean_q <= wh_clean_d;
  end

  // ---------------------------------------------------------------- outputs
  assign cmd_ready_o     = state_q == SIdle;
  assign sqe_o           = sqe_q;
  assign qid_o           = qid_q;
  assign check1_o        = state_q == SCheck1;
  assign check2_o        = state_q == SCheck2;
  assign status_o        = status_q;
  assign result_o        = result_q;
  assign rd_bytes_o      = rd_bytes_q;
  assign wr_bytes_o      = wr_bytes_q;
  assign params_loaded_o = Bf16 ? loaded_q[6:0] : {2'b00, loaded_q[4:0]};
  assign watchdog_o      = watchdog;
  assign mm_flight_o     = mm_flight_q;
  assign mm_flight_d_o   = mm_flight_d;
  assign rows_in_o       = rows_in_q;
  assign base_o          = base_q;
  assign index_o         = index_q;
  assign rd_valid_o      = rd_valid_q;
  assign host_addr_o     = host_addr_q;
  assign push_base_o     = push_base_q;
  assign aborted_o       = aborted_q;
  assign rs_wait_o       = state_q == SRowWait;
  assign rs_commit_o     = state_q == SCommit;
  assign rs_commit_last_o = state_q == SCommitLast;
  assign rs_push_o       = state_q == SPush;
  assign pl_read_o       = state_q == SParRead;
  assign pl_wait_o       = state_q == SParWait;
  assign pl_pa_wait_o    = state_q == SPaWait;
  assign pl_write_o      = state_q == SParWrite;
  assign sm_active_o     = state_q == SSm;
  // (STREAM_MATMUL starts in CHECK2 when its checks pass: no read-ahead is adopted by it)
  assign sm_start_o      = state_q == SCheck2 && check_sc_i == tpu_pkg::ScSuccess &&
                           op_i == tpu_pkg::OpStreamMatmul;
  assign wg_wh_o         = state_q == SWhStream;
  assign wg_drain_o      = state_q == SWhDrain;
  assign wg_job_o        = state_q == SWrJob;
  assign wh_clean_o      = state_q == SWhStream && wh_clean_q;
  // (a READ_HOST, LOAD_WEIGHTS or staged LUT stream writes the ring: not before a background
  // commit has read its rows)
  assign rs_req_valid_o  = (state_q == SRowRead || state_q == SSmReq) && rdy_i && !bg_active_i;
  // a READ_HOST stream may run up to a ring ahead of the rows committed so far (a ring slot is
  // free once its row has been read out for the commit; one row of slack for the read)
  // (STREAM_MATMUL: a ring ahead of the first row of the tile being pushed; a read-ahead
  // stream: no limit, tpu_cmd_proc)
  assign rs_limit_o      = (state_q == SSmReq || state_q == SSm) ? base_q + 32'(Ring) :
                           (state_q == SCommit || state_q == SCommitLast) ?
                           base_q + index_q + 32'(Ring) - 32'd1 : base_q + 32'(Ring);
  // the peek's first READ_HOST is the held head's own from FENCE to its commit in SRhWait
  assign skip_head_o     = rh_held_i && !(op_i == tpu_pkg::OpReadHost &&
                                          (state_q == SFence || state_q == SCheck1 ||
                                           state_q == SCheck2 || state_q == SRhWait));
  // the states in which each read-ahead may start (tpu_readahead_ctl adds a WRITE_HOST's)
  // (a tile also while a READ_HOST commits once its own stream has delivered every row)
  assign tile_ok_o = (state_q == SDpCmd && !is_wh_i) || state_q == SActWait || state_q == SPush ||
                     ((state_q == SCommit || state_q == SCommitLast) && rows_in_q == rows_i) ||
                     (state_q == SPreWait && tiles_i) || state_q == SParRead ||
                     state_q == SParWait || state_q == SParWrite ||
                     (state_q == SDone && bg_active_i) || state_q == SRhWait;
  // (a READ_HOST not while the state reads or writes the staging ring: a READ_HOST's commit, a
  // staged LUT, a LOAD_WEIGHTS pushing from the ring; the second entry also while the head's
  // command waits for its rows, or for the background commit before it)
  assign rh_ok_o   = (state_q == SDpCmd && !is_wh_i) || state_q == SActWait ||
                     (state_q == SPush && tiles_pushing_i) || (state_q == SPreWait && tiles_i) ||
                     state_q == SParRead || state_q == SParWait ||
                     (state_q == SParWrite && !lut_rs_i) || (state_q == SDone && bg_active_i) ||
                     (RhTwo && rh_held_i && ((state_q == SRhWait && rh_due_i) ||
                                             (state_q == SFence && op_i == tpu_pkg::OpReadHost)));
  assign pa_ok_o   = (state_q == SDpCmd && !is_wh_i) || state_q == SActWait || state_q == SPush ||
                     state_q == SPreWait || state_q == SRowWait || state_q == SCommit ||
                     state_q == SCommitLast ||
                     (state_q == SSm && (op0_i & tpu_pkg::StreamMatmulWriteBack) == 0);
  // the staging read port is the background commit's unless the state reads it (commit, push,
  // staged LUT, STREAM_MATMUL); the command slot is its in states that issue no datapath
  // command (SDpCmd only holds one: the slot is free once it is taken)
  assign bg_rd_ok_o = state_q != SPush && state_q != SCommit && state_q != SCommitLast &&
                      state_q != SParWrite && state_q != SSm;
  assign bg_wr_ok_o = state_q == SIdle || state_q == SFence || state_q == SRowRead ||
                      state_q == SRowWait || state_q == SPreWait || state_q == SPush ||
                      state_q == SParRead || state_q == SParWait || state_q == SPaWait ||
                      state_q == SActWait || state_q == SWhStream || state_q == SWhDrain ||
                      state_q == SWrJob || state_q == SDone || state_q == SDpCmd ||
                      state_q == SRhWait;

  logic unused;  // (row bytes <= 4N where used; without Bf16 no kind above OUTPUT loads)
  assign unused = ^{row_bytes_i[31:KW+2], loaded_q[7:5], fclamp_i, lp_fclamp_i};

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      assert (!(mm_done_i && mm_flight_q == '0)) else $error("tpu_cmd_seq: MATMUL done, none in flight");
      // the command's own rows never overwrite a ring row not yet committed (or pushed)
      assert (!st_we_o || rows_in_q < base_q + (state_q == SSm ? 32'd0 : index_q) + 32'(Ring))
        else $error("tpu_cmd_seq: staging row overwritten before its commit");
    end
  end
`endif
endmodule

`default_nettype wire
