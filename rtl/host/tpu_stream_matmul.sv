// tpu_stream_matmul: STREAM_MATMUL's tile sequencing in tpu_cmd_proc (StreamMm; docs/spec.md
// 6.11, docs/device.md). The command's one row stream of all C x K weight rows (with A_STREAM,
// PARAMS and ACTIVATE also A's rows, the MULT/SHIFT vectors and each block's bias rows) fills
// the staging ring (rs_limit keeps the stream at most a ring ahead of the first row still
// needed: base_q, tpu_cmd_seq); this engine consumes it in stream order while the sequencer
// is in SSm, one phase at a time:
//   - A rows (A_STREAM): before block 0's K-tile t, R rows of A's K-tile t, each issued as a
//     UB_WRITE to UB row LOCAL_ADDR + t x R + i, through the command slot once the MATMULs
//     accepted before the command are done (they may read the rows A overwrites), or beside
//     the MATMUL waiting in the slot (BgBypass: a_byp_o, a_cmd_o). W_FIRST: block 0's first
//     tile comes first and its MATMUL is chained (CHAIN: it issues each row once written);
//     A's K-tile 0 rows follow it, through the slot only;
//   - PARAMS: the MULT, then the SHIFT vector (4 rows each) into the 4N-byte vector register,
//     checked as LOAD_PARAMS checks it (INVALID_FIELD ends the stream), then written by the
//     epilogue's writer (tpu_stream_epilogue);
//   - tiles: each tile's N rows (rows beyond the block's K zero, not read from the ring) pushed
//     on wpush as soon as each is in (read from the ring one cycle ahead, one row per cycle),
//     and its MATMUL (POP, ACCUMULATE after the block's first K-tile or with OP0.ACCUMULATE)
//     into the command slot with its last row: the next tile is pushed while the MXU
//     multiplies. A tile's last row waits for the slot and for the writer (hold_i);
//   - bias rows (ACTIVATE): after a block's last tile its 4 bias rows into the vector register,
//     then the writer takes the block's epilogue (ep_start_act_o) while the next block's tiles
//     go on. With K_MAJOR the tiles go in the stream's order (next_*): the first G blocks
//     interleaved K-tile by K-tile.
// A stream error, the watchdog (no row in and no row pushed for its budget: progress_o
// restarts it) or rdy_i low ends the stream: a tile whose push had begun is completed with
// zero rows and multiplied, so the FIFO is empty again and every pushed tile popped; the
// command ends once every MATMUL is in the slot and the epilogue is idle (done_o; PERF only
// on success). The row counters (rows in, the tile's first stream row, its row, the ring's
// read data valid) are the sequencer's registers: this engine gives their next values.
`default_nettype none

module tpu_stream_matmul #(
  parameter int unsigned N         = 16,
  parameter int unsigned StageRows = 64,
  parameter int unsigned SAw       = 9,
  parameter bit          StreamMm  = 1'b1,
  parameter int unsigned RB = N,  // UB row bytes (2N on a bf16 device): the command width
  localparam int unsigned Ring     = 2 * StageRows,
  localparam int unsigned KW       = $clog2(N + 1),
  localparam int unsigned CmdWidth = tpu_pkg::DpCmdDataLsb + 8 * RB
) (
  input  logic                clk_i,
  input  logic                start_i,       // CHECK2 starts the command
  input  logic                active_i,      // the sequencer is in SSm
  input  logic                rdy_i,
  input  logic                watchdog_i,
  // the command
  input  logic [31:0]         op0_i,
  input  logic [31:0]         op1_i,         // R
  input  logic [31:0]         op2_i,         // C
  input  logic [31:0]         op3_i,         // OP3: the output UB rows (ACTIVATE)
  input  logic [31:0]         local_i,       // LOCAL_ADDR (A), LOCAL_ADDR2 (ACC)
  input  logic [31:0]         local2_i,
  input  logic [31:0]         rows_i,        // K
  input  logic [KW-1:0]       cols_i,        // COLS (<= N here)
  input  logic [31:0]         stream_rows_i, // tpu_cmd_check's products
  input  logic [31:0]         ktiles_i,
  input  logic [KW-1:0]       last_k_i,
  input  logic [31:0]         acc_rows_i,
  // the sequencer's row counters: current values, next values in SSm
  input  logic [31:0]         rows_in_i,     // stream rows in
  input  logic [31:0]         base_i,        // stream row of the current tile / phase
  input  logic [31:0]         index_i,       // its row being read / pushed
  input  logic                rd_valid_i,    // the staging RAM's output holds that row
  output logic [31:0]         rows_in_o,
  output logic [31:0]         base_o,
  output logic [31:0]         index_o,
  output logic                rd_valid_o,
  // the row stream and the staging ring
  input  logic                rs_row_valid_i,
  input  logic                rs_err_i,
  output logic                st_we_o,       // (at rows_in_i % Ring)
  output logic                st_re_o,
  output logic [SAw-1:0]      st_raddr_o,
  input  logic [N*8-1:0]      st_rdata_i,
  // the command slot (tpu_dp_slot)
  input  logic                slot_busy_i,
  input  logic                slot_taken_i,
  input  logic                bypass_i,
  input  logic                bg_active_i,
  output logic                slot_load_o,
  output logic [CmdWidth-1:0] slot_cmd_o,
  output logic                a_byp_o,       // an A row may go beside the MATMUL waiting
  output logic [CmdWidth-1:0] a_cmd_o,       // ... its UB_WRITE
  input  logic [15:0]         mm_flight_d_i,
  input  logic                mm_done_i,
  // the weight rows
  output logic                wpush_valid_o,
  input  logic                wpush_ready_i,
  output logic [KW-1:0]       tile_k_o,      // rows of the tile being pushed (the rest zero)
  output logic                err_o,         // the stream failed (rows pushed as zeros)
  // the epilogue (tpu_stream_epilogue)
  input  logic                ep_writer_i,   // the writer runs
  input  logic                ep_busy_i,     // ... or an ACTIVATE / write-back is not done
  input  logic                ep_hold_i,     // a tile's MATMUL must wait for the writer
  input  logic                ep_rdgo_i,     // the write-back read goes into the slot now
  input  logic                ep_rdbyp_i,    // ... or beside the waiting MATMUL
  output logic                end_o,         // every tile multiplied, or failed between tiles
  output logic [31:0]         last_a_row_o,  // UB rows of the last MATMUL put in the slot
  output logic                mm_issued_o,   // a tile's MATMUL goes into the slot now
  output logic [4*N*8-1:0]    vec_o,         // the bias / MULT / SHIFT vector
  output logic                ep_start_act_o,  // a block's bias is in: its epilogue
  output logic [31:0]         ep_acc_row_o,
  output logic [31:0]         ep_out_row_o,
  output logic                ep_complete_o,   // ... all its stream rows came in
  output logic                ep_chain_o,      // ... its ACTIVATE after the next MATMUL
  output logic                ep_start_vec_o,  // a MULT / SHIFT vector to write
  output logic [2:0]          ep_kind_o,
  // the command's outcome
  output logic                progress_o,    // a row in or pushed: the watchdog restarts
  output logic                status_set_o,
  output logic [7:0]          status_o,
  output logic                abort_o,       // the stream is abandoned
  output logic                loaded_mult_o,
  output logic                loaded_shift_o,
  output logic                done_o,        // the command ends (SDone)
  output logic [31:0]         result_o,      // RESULT, bytes read / written (success)
  output logic [31:0]         wr_bytes_o,
  output logic                mm_valid_o,    // PERF (success)
  output logic [31:0]         mm_rows_o,
  output logic [63:0]         mm_macs_o
);
  localparam logic [3:0] DpUbWrite = tpu_pkg::DpOpUbWrite, DpMatmul = tpu_pkg::DpOpMatmul;
  localparam int unsigned COp = tpu_pkg::DpCmdOpLsb, CFl = tpu_pkg::DpCmdFlagsLsb,
                          CA = tpu_pkg::DpCmdALsb, CB = tpu_pkg::DpCmdBLsb,
                          CRows = tpu_pkg::DpCmdRowsLsb, CData = tpu_pkg::DpCmdDataLsb;
  localparam int unsigned BiasRows = tpu_pkg::StreamMatmulBiasRows;

  logic          act, astr, wb, kmaj, prm, wfirst;   // OP0 flags
  assign act    = (op0_i & tpu_pkg::StreamMatmulActivate) != 0;
  assign astr   = (op0_i & tpu_pkg::StreamMatmulAStream) != 0;
  assign wb     = (op0_i & tpu_pkg::StreamMatmulWriteBack) != 0;
  assign kmaj   = (op0_i & tpu_pkg::StreamMatmulKMajor) != 0;
  assign prm    = (op0_i & tpu_pkg::StreamMatmulParams) != 0;
  assign wfirst = (op0_i & tpu_pkg::StreamMatmulWFirst) != 0;

  // the tile being pushed: K-tile ktile_q of block block_q, A rows from UB row a_row_q, ACC
  // rows from acc_row_q; out_row_q: the output rows of the block whose bias comes next
  logic [31:0]    ktile_q, ktile_d, block_q, block_d, a_row_q, a_row_d, acc_row_q, acc_row_d;
  logic [31:0]    out_row_q, out_row_d, a_index_q, a_index_d, last_a_q, last_a_d;
  logic           err_q, err_d;
  logic           bias_q, bias_d;                // the block's bias rows are read
  logic [1:0]     params_q, params_d;            // PARAMS: 1 MULT, 2 SHIFT vector read
  logic [4*N*8-1:0] vec_q, vec_d;
  logic           a_q, a_d;                      // A's K-tile rows before this tile
  logic           wf_tile_q, wf_tile_d;          // W_FIRST: block 0's first tile to come
  logic           wf_a_q, wf_a_d;                // ... then A's K-tile 0 rows
  logic [15:0]    mm_before_q, mm_before_d;      // MATMULs from before the command in flight
  logic [KW-1:0]  tile_k;
  logic           stream_end, vec_ok;
  // K_MAJOR (spec 6.11): the stream order of the tiles. Block b < G: K-tile t of every such
  // block, then K-tile t + 1 (A's rows first with A_STREAM); after block G - 1's last K-tile,
  // block G's first; block b >= G: its K-tiles, then block b + 1's. (G = 1: block-major.)
  // next_*: the tile after the one whose MATMUL (or bias) ends now
  logic [31:0]    groups, next_ktile, next_block, next_a_row, next_acc_row;
  logic           interleaved, next_a, next_acc;

  assign tile_k = (ktile_q + 32'd1 == ktiles_i) ? last_k_i : KW'(N);
  // (not before W_FIRST's A rows are all written: the chained MATMUL waits for them)
  assign stream_end  = !wf_a_q && (block_q == op2_i || (err_q && index_i == '0 && !bias_q));
  assign groups = !kmaj ? 32'd1 : (op0_i[15:8] == '0) ? 32'(op2_i[7:0]) : 32'(op0_i[15:8]);
  assign interleaved = block_q < groups;
  always_comb begin
    next_ktile = '0;  next_block = block_q + 32'd1;  next_a_row = local_i;
    next_acc_row = acc_row_q + op1_i;  next_a = 1'b0;
    if (interleaved && block_q + 32'd1 < groups) begin  // the next interleaved block, same K-tile
      next_ktile = ktile_q;  next_a_row = a_row_q;
    end else if (ktile_q + 32'd1 != ktiles_i) begin  // the next K-tile (of block 0 if interleaved)
      next_ktile = ktile_q + 32'd1;  next_a_row = a_row_q + op1_i;
      next_block = interleaved ? '0 : block_q;
      next_acc_row = interleaved ? local2_i : acc_row_q;
      next_a = astr && interleaved;
    end
    // the next tile's MATMUL accumulates (its K-tile is not the first, or OP0.ACCUMULATE)
    next_acc = next_ktile != '0 || (op0_i & tpu_pkg::StreamMatmulAccumulate) != 0;
  end
  // PARAMS: the vector passes LOAD_PARAMS' value checks (MULT >= 0, SHIFT in range)
  always_comb begin
    vec_ok = 1'b1;
    for (int unsigned i = 0; i < N; i++) begin
      logic [31:0] v;
      v = vec_q[32*i +: 32];
      if (params_q == 2'd1 && v[31]) vec_ok = 1'b0;
      if (params_q == 2'd2 &&
          ($signed(v) < tpu_pkg::ShiftMin || $signed(v) > tpu_pkg::ShiftMax)) vec_ok = 1'b0;
    end
  end

  // A row beside the MATMUL waiting in the slot (BgBypass, tpu_dp_slot): no MATMUL from before
  // the command left, no W_FIRST row (those go through the slot only), no failure
  assign a_byp_o = StreamMm && active_i && a_q && params_q == '0 && rd_valid_i &&
                   mm_before_q == '0 && !wf_a_q && !err_q && !bg_active_i;
  always_comb begin
    a_cmd_o = '0;
    a_cmd_o[COp +: 4]     = DpUbWrite;
    a_cmd_o[CA +: 32]     = (wf_a_q ? local_i : a_row_q) + a_index_q;
    a_cmd_o[CRows +: 32]  = 32'd1;
    a_cmd_o[CData +: N*8] = err_q ? '0 : st_rdata_i;
  end
  // a tile's last row only when its MATMUL can go into the command slot
  assign wpush_valid_o = active_i && !bias_q && !a_q && !wf_a_q && params_q == '0 &&
                         rd_valid_i && !stream_end &&
                         (index_i != N - 1 || (!ep_hold_i && (!slot_busy_i || slot_taken_i) &&
                                               !ep_rdgo_i));

  always_comb begin
    logic slot_free, due, rd0, rd1;
    ktile_d = ktile_q;  block_d = block_q;  a_row_d = a_row_q;  acc_row_d = acc_row_q;
    out_row_d = out_row_q;  a_index_d = a_index_q;  last_a_d = last_a_q;  err_d = err_q;
    bias_d = bias_q;  params_d = params_q;  vec_d = vec_q;  a_d = a_q;
    wf_tile_d = wf_tile_q;  wf_a_d = wf_a_q;
    mm_before_d = mm_before_q - 16'(mm_before_q != '0 && mm_done_i);
    rows_in_o = rows_in_i;  base_o = base_i;  index_o = index_i;  rd_valid_o = 1'b0;
    st_we_o = 1'b0;  st_re_o = 1'b0;  st_raddr_o = SAw'((base_i + index_i) % Ring);
    slot_load_o = 1'b0;  slot_cmd_o = '0;
    progress_o = 1'b0;  status_set_o = 1'b0;  status_o = tpu_pkg::ScSuccess;  abort_o = 1'b0;
    loaded_mult_o = 1'b0;  loaded_shift_o = 1'b0;
    done_o = 1'b0;  result_o = '0;  wr_bytes_o = '0;
    mm_valid_o = 1'b0;  mm_rows_o = '0;  mm_macs_o = '0;
    mm_issued_o = 1'b0;
    ep_start_act_o = 1'b0;  ep_chain_o = 1'b0;  ep_complete_o = 1'b0;
    ep_start_vec_o = 1'b0;  ep_kind_o = 3'(tpu_pkg::ParamBias);
    slot_free = !slot_busy_i || slot_taken_i;
    due = !err_q && rows_in_i != stream_rows_i;  // rows still to come
    rd0 = 1'b0;  rd1 = 1'b0;
    if (start_i) begin
      ktile_d = '0;  block_d = '0;  a_row_d = local_i;  acc_row_d = local2_i;  err_d = 1'b0;
      bias_d = 1'b0;  out_row_d = op3_i;
      a_d = astr && !wfirst;  a_index_d = '0;  mm_before_d = mm_flight_d_i;
      wf_tile_d = astr && wfirst;  wf_a_d = 1'b0;
      params_d = prm ? 2'd1 : 2'd0;
    end
    if (active_i) begin
      if (rs_row_valid_i && due) begin
        st_we_o = 1'b1;
        rows_in_o = rows_in_i + 32'd1;
        progress_o = 1'b1;
      end
      if (rs_err_i && due) begin
        status_set_o = 1'b1;  status_o = tpu_pkg::ScDmaXferError;
        err_d = 1'b1;
      end else if (due && (!rdy_i || watchdog_i)) begin
        abort_o = 1'b1;
        if (rdy_i) begin
          status_set_o = 1'b1;  status_o = tpu_pkg::ScCmdTimeout;
        end
        err_d = 1'b1;
      end
      // row x of the tile may be pushed: zero padding, in the ring, or the stream failed (the
      // tile is completed for the FIFO's sake; the ACC rows are unspecified then)
      rd0 = 32'(index_i) >= 32'(tile_k) || rows_in_i > base_i + index_i || err_q;
      rd1 = 32'(index_i) + 32'd1 >= 32'(tile_k) || rows_in_i > base_i + index_i + 32'd1 || err_q;
      if (stream_end) begin
        // every tile multiplied, or failed between tiles: end once the last MATMUL is taken
        // (and the last ACTIVATE issued and done: its act_done_i is not a later ACTIVATE's)
        if (slot_free && !ep_busy_i) begin
          if (!err_q) begin
            result_o = stream_rows_i * 32'(cols_i);
            wr_bytes_o = wb ? acc_rows_i * N : '0;
            mm_valid_o = 1'b1;
            mm_rows_o = acc_rows_i * ktiles_i;
            mm_macs_o = 64'(acc_rows_i) * 64'(rows_i) * 64'(cols_i);
          end
          done_o = 1'b1;
        end
      end else if (wf_a_q || (a_q && params_q == '0)) begin
        // A_STREAM: A's rows before block 0's K-tile, ring row base (read one cycle ahead)
        // to UB row a_row + a_index; the previous tile's MATMUL reads other UB rows, and the
        // UB_WRITEs are ordered before this tile's MATMUL (a failed stream ends at once above)
        // (W_FIRST, wf_a: A's K-tile 0 after block 0's first tile, to UB row LOCAL_ADDR +
        // a_index, through the slot only, so after its chained MATMUL has been taken: the
        // datapath counts the rows written from then on; a failed stream writes the rest as
        // zeros, since that MATMUL waits for every row)
        if (!rd_valid_i && !(wf_a_q && err_q)) begin
          if (rows_in_i > base_i) begin
            st_re_o = 1'b1;
            rd_valid_o = 1'b1;
          end
        end else if ((slot_free && mm_before_q == '0 && !ep_rdgo_i && !ep_writer_i) ||
                     (bypass_i && a_byp_o && !ep_rdbyp_i)) begin
          // (not while the writer has the slot: PARAMS' MULT/SHIFT writes at the start)
          // (through the slot, or beside the MATMUL waiting there: the bypass)
          if (!bypass_i) begin
            slot_load_o = 1'b1;
            slot_cmd_o = a_cmd_o;
          end
          progress_o = 1'b1;
          base_o = base_i + 32'd1;
          if (a_index_q + 32'd1 == op1_i) begin
            if (wf_a_q) wf_a_d = 1'b0;
            else a_d = 1'b0;
            a_index_d = '0;
          end else begin
            a_index_d = a_index_q + 32'd1;
          end
          // the next row (A's or the tile's first) when it is in: one row per cycle (not
          // the bias rows after W_FIRST's A rows: that phase reads its own, from index 0)
          rd_valid_o = 1'b0;
          if (rows_in_i > base_i + 32'd1 && !(wf_a_q && a_index_q + 32'd1 == op1_i && bias_q)) begin
            st_re_o = 1'b1;
            st_raddr_o = SAw'((base_i + 32'd1) % Ring);
            rd_valid_o = 1'b1;
          end
        end else begin
          rd_valid_o = rd_valid_i;  // hold
        end
      end else if (bias_q) begin
        // the block's bias rows (after its tiles) into the vector, read one cycle ahead
        if (rd_valid_i) vec_d[N*8*(index_i - 32'd1) +: N*8] = st_rdata_i;
        if (index_i != BiasRows) begin
          if (rows_in_i > base_i + index_i || err_q) begin
            st_re_o = 1'b1;
            rd_valid_o = 1'b1;
            index_o = index_i + 32'd1;
          end
        end else if (!rd_valid_i && !ep_writer_i) begin
          // the writer takes the block's epilogue; the next block's tiles go on meanwhile
          // (with one K-tile per block the previous block's writer may still wait: above)
          bias_d = 1'b0;
          // (its ACTIVATE after the next block's first MATMUL, not when its UB rows meet that
          // block's first A rows: spec 6.11 orders them; nor when the next MATMUL accumulates,
          // as the next interleaved block's last K-tile does: the ACTIVATE needs the ACC read
          // port, so it goes after this MATMUL when the MXU has drained)
          ep_start_act_o = 1'b1;
          ep_chain_o = block_q + 32'd1 != op2_i && !next_acc &&
                       (out_row_q + op1_i <= local_i || local_i + op1_i <= out_row_q);
          ep_complete_o = !err_q || rows_in_i >= base_i + BiasRows;
          index_o = '0;
          base_o = base_i + BiasRows;
          ktile_d = next_ktile;  block_d = next_block;  a_row_d = next_a_row;
          acc_row_d = next_acc_row;
          out_row_d = out_row_q + op1_i;
        end
      end else if (params_q != '0) begin
        // PARAMS: the MULT, then the SHIFT vector (4 rows each) into the vector (read one
        // cycle ahead, as the bias rows), once the writer has written the previous one;
        // checked as LOAD_PARAMS checks it (INVALID_FIELD ends the stream), then the writer's
        // N PARAM writes (no ACTIVATE); A's rows and the tiles wait
        if (err_q) begin
          params_d = '0;  index_o = '0;  // (ends: stream_end)
        end else if (!ep_writer_i) begin
          if (rd_valid_i) vec_d[N*8*(index_i - 32'd1) +: N*8] = st_rdata_i;
          if (index_i != BiasRows) begin
            if (rows_in_i > base_i + index_i) begin
              st_re_o = 1'b1;
              rd_valid_o = 1'b1;
              index_o = index_i + 32'd1;
            end
          end else if (!rd_valid_i) begin
            index_o = '0;
            base_o = base_i + BiasRows;
            if (!vec_ok) begin
              status_set_o = 1'b1;  status_o = tpu_pkg::ScInvalidField;
              err_d = 1'b1;
              abort_o = 1'b1;
              params_d = '0;
            end else begin
              loaded_mult_o = params_q == 2'd1;
              loaded_shift_o = params_q != 2'd1;
              ep_start_vec_o = 1'b1;
              ep_kind_o = params_q == 2'd1 ? 3'(tpu_pkg::ParamMult) : 3'(tpu_pkg::ParamShift);
              params_d = params_q == 2'd1 ? 2'd2 : 2'd0;
            end
          end
        end
      end else if (!rd_valid_i) begin
        if (rd0) begin
          // (a zero padding row is not read: its ring slot may be taking a later stream row
          // in this very cycle, and wpush sends zeros for it anyway)
          st_re_o = 32'(index_i) < 32'(tile_k);
          rd_valid_o = 1'b1;
        end
      end else if (wpush_valid_o && wpush_ready_i) begin
        progress_o = 1'b1;
        index_o = index_i + 32'd1;
        if (index_i + 32'd1 == N) begin
          slot_load_o = 1'b1;
          slot_cmd_o[COp +: 4] = DpMatmul;
          slot_cmd_o[CFl] = ktile_q != '0 || (op0_i & tpu_pkg::StreamMatmulAccumulate) != 0;
          slot_cmd_o[CFl + 1] = 1'b1;        // POP
          slot_cmd_o[CFl + 2] = wf_tile_q;   // (CHAIN: W_FIRST's first tile, A's rows follow)
          slot_cmd_o[CA +: 32] = a_row_q;  slot_cmd_o[CB +: 32] = acc_row_q;
          slot_cmd_o[CRows +: 32] = op1_i;
          wf_tile_d = 1'b0;
          wf_a_d = wf_tile_q;
          last_a_d = a_row_q;
          mm_issued_o = 1'b1;  // (a waiting writer's ACTIVATE goes next)
          index_o = '0;
          base_o = base_i + 32'(tile_k);
          // the next tile's first row is read now when it is in (no bubble between tiles:
          // the push is one row per cycle, the link's rate; harmless after the last tile)
          if (!(ktile_q + 32'd1 == ktiles_i && act) &&
              (rows_in_i > base_i + 32'(tile_k) || err_q)) begin
            st_re_o = 1'b1;
            st_raddr_o = SAw'((base_i + 32'(tile_k)) % Ring);
            rd_valid_o = 1'b1;
          end
          if (ktile_q + 32'd1 == ktiles_i && act) begin
            bias_d = 1'b1;  // the block's epilogue (index 0: no bias row read yet)
          end else begin
            // the next tile in stream order (A's next K-tile first when next_a: its row
            // read above)
            ktile_d = next_ktile;  block_d = next_block;  a_row_d = next_a_row;
            acc_row_d = next_acc_row;
            a_d = next_a;
          end
        end else if (rd1) begin
          st_re_o = 32'(index_i) + 32'd1 < 32'(tile_k);  // (as above)
          st_raddr_o = SAw'((base_i + index_i + 32'd1) % Ring);
          rd_valid_o = 1'b1;
        end
      end else begin
        rd_valid_o = 1'b1;  // hold: the read data stays in the RAM output register
      end
    end
    if (!StreamMm) begin  // (constant: synthesis drops the engine)
      ktile_d = '0;  block_d = '0;  a_row_d = '0;  acc_row_d = '0;  out_row_d = '0;
      a_index_d = '0;  last_a_d = '0;  err_d = 1'b0;  bias_d = 1'b0;  params_d = '0;
      vec_d = '0;  a_d = 1'b0;  wf_tile_d = 1'b0;  wf_a_d = 1'b0;  mm_before_d = '0;
    end
  end
  always_ff @(posedge clk_i) begin
    ktile_q <= ktile_d;  block_q <= block_d;  a_row_q <= a_row_d;  acc_row_q <= acc_row_d;
    out_row_q <= out_row_d;  a_index_q <= a_index_d;  last_a_q <= last_a_d;  err_q <= err_d;
    bias_q <= bias_d;  params_q <= params_d;  vec_q <= vec_d;  a_q <= a_d;
    wf_tile_q <= wf_tile_d;  wf_a_q <= wf_a_d;  mm_before_q <= mm_before_d;
  end

  assign tile_k_o     = tile_k;
  assign err_o        = err_q;
  assign end_o        = stream_end;
  assign last_a_row_o = last_a_q;
  assign vec_o        = vec_q;
  assign ep_acc_row_o = acc_row_q;
  assign ep_out_row_o = out_row_q;
endmodule

`default_nettype wire
