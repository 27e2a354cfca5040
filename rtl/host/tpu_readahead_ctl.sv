// tpu_readahead_ctl: when the read-aheads of tpu_cmd_proc start (ReadAhead), the read-ahead
// row stream they share, and which command adopts or drops them. The rows and vectors are read while earlier commands run,
// with every earlier data write sent and no host write possible before the adopting command
// but CQEs/MSIs (excluded by the peek window checks) and WRITE_HOSTs apart from them, so they
// equal what the command's own read would return; statuses and their order are unchanged.
//   - A weight tile (tpu_tile_readahead) joins while the sequencer's state lets it (tile_ok_i:
//     a command that neither streams rows nor writes host memory waits, or a READ_HOST's
//     commit once its own stream is done, or a background commit runs) and no data write is
//     unsent (dw_pend), or while a WRITE_HOST streams (no data write pending at its start:
//     wh_clean_i, and the tile's span apart from the WRITE_HOST's); a region must be free and
//     the stream not failed. The first tile starts a stream (rs_req_*), a continuing one
//     extends the running stream (rs_ext_*), at another address than the next row's when the
//     stream's last rows are a READ_HOST's (jump: same row bytes and stride needed).
//   - A READ_HOST (tpu_readhost_ahead) joins the same way under rh_ok_i: as a new stream, or
//     extending the running one at its address (same row bytes and stride); the head entry
//     when none is held, else the second.
//   - The LOAD_PARAMS vector (tpu_param_readahead) is read by a read job under pa_ok_i (as a
//     tile, and also while a READ_HOST or LOAD_WEIGHTS streams or commits), one vector at a
//     time, never while a LOAD_PARAMS of its own uses the job engine.
// CHECK2 (check2_i) of a command whose checks all pass adopts the head tile when it is a
// LOAD_WEIGHTS with the same read (HOST_ADDR, STRIDE, ROWS, COLS, queue), the head READ_HOST
// when it is a READ_HOST with the same read, the LOAD_PARAMS vector when it is a BIAS/MULT/
// SHIFT LOAD_PARAMS with the same read (HOST_ADDR, LENGTH, queue). MATMUL, ACTIVATE,
// LOAD_PARAMS (no staged LUT) and a WRITE_HOST apart from every queued tile and READ_HOST pass
// the tiles and READ_HOSTs on; any other command drops them (the stream is aborted: abort_o),
// keeping only what is complete for a WRITE_HOST apart from it. The vector is dropped by any
// other BIAS/MULT/SHIFT load (it is stale then) and by the commands that may write its bytes
// (FENCE, IDENTIFY, a WRITE_HOST not apart from it, a STREAM_MATMUL with WRITE_BACK). The
// sequencer's other drops (seq_*_i: a timeout, a failed tile, a committed READ_HOST) are
// merged into the drop outputs here.
// Handshakes: a read-ahead request is a hint offered while its conditions hold (it may be
// withdrawn when the peek changes); it starts when the DMA engine takes it (rs_req_ready_i,
// rs_ext_ready_i, rd_req_ready_i in the same cycle).
`default_nettype none

module tpu_readahead_ctl #(
  parameter int unsigned N         = 16,
  parameter bit          ReadAhead = 1'b1,
  parameter int unsigned RB        = N,   // staging row bytes (2N on a bf16 device)
  localparam int unsigned CW       = $clog2(RB + 1)
) (
  input  logic           clk_i,
  input  logic           rst_i,
  input  logic           rdy_i,
  // the sequencer's state lets a read-ahead start
  input  logic           tile_ok_i,
  input  logic           rh_ok_i,
  input  logic           pa_ok_i,
  input  logic           wh_clean_i,      // a WRITE_HOST streams, no data write pending at its start
  input  logic [63:0]    cmd_addr_i,      // the running command's span
  input  logic [31:0]    cmd_len_i,
  // CHECK2 of the command (its checks passed: check_ok_i) and its decode
  input  logic           check2_i,
  input  logic           check_ok_i,
  input  logic [7:0]     cmd_op_i,
  input  logic [31:0]    cmd_op0_i,
  input  logic           is_lw_i, is_wh_i, is_fence_i, is_id_i, is_sm_i, lut_rs_i,
  input  logic           lp_out_i, lp_lut_i,
  input  logic           head_match_i,    // the head tile's read is the command's
  input  logic           tiles_apart_i,   // every queued tile's span apart from the command's
  input  logic           rh_held_i,       // the head READ_HOST: held, its read the command's,
  input  logic           rh_match_i,      // every READ_HOST held apart from the command's span
  input  logic           rh_apart_i,
  input  logic           pa_held_i,       // the LOAD_PARAMS vector: held, same read, apart
  input  logic           pa_match_i,
  input  logic           pa_apart_i,
  input  logic           seq_tile_clear_i,  // the sequencer's other drops
  input  logic           seq_rh_drop_i,
  input  logic           seq_rh2_drop_i,
  output logic           adopt_o,         // the command adopts the head tile
  output logic           rh_adopt_o,      // ... the head READ_HOST
  output logic           pa_adopt_o,      // ... the LOAD_PARAMS vector
  output logic           abort_o,         // the read-ahead stream is abandoned
  output logic           tile_drop_due_o, // the incomplete tiles dropped
  output logic           tile_clear_o,    // every tile dropped
  output logic           rh_drop_o,       // the head / second READ_HOST dropped
  output logic           rh2_drop_o,
  output logic           pa_drop_o,       // the vector dropped (at CHECK2)
  // the candidates (tpu_peek_decode)
  input  logic           pk_tile_i,       // a LOAD_WEIGHTS that may join
  input  logic           pk_rh_i,         // a READ_HOST that may be read ahead
  input  logic [63:0]    pk_addr_i,
  input  logic [31:0]    pk_len_i,
  input  logic [31:0]    pk_rows_i,
  input  logic [CW-1:0]  pk_cols_i,       // the candidate's row bytes
  input  logic [63:0]    pk_stride_eff_i,
  input  logic           pa_cand_i,       // a LOAD_PARAMS that may be read ahead
  input  logic [63:0]    pa_addr_i,
  input  logic [31:0]    pa_len_i,
  // the read-aheads
  input  logic           tile_free_i,     // tpu_tile_readahead: a region free, stream not failed
  input  logic           tiles_i,         // ... tiles queued
  input  logic           streaming_i,     // ... tile rows due
  input  logic           rh_due_i,        // the head's / the second READ_HOST's rows due
  input  logic           rh2_due_i,
  input  logic           pa_idle_i,       // tpu_param_readahead: none held, no job
  // data writes handed to the DMA engine and maybe not yet sent
  input  logic           wr_fire_i,
  input  logic           wr_idle_i,
  output logic           dw_pend_o,
  // starts
  output logic           tile_join_o,     // a tile joins now
  output logic           rh_join_o,       // a READ_HOST joins now
  output logic           pa_start_o,      // the LOAD_PARAMS read job starts now
  output logic           stream_o,        // a read-ahead stream runs or starts
  // the DMA engine
  output logic           rs_go_o,         // a new read-ahead stream (rs_req_*)
  input  logic           rs_req_ready_i,
  output logic           rs_ext_valid_o,  // extend the running stream
  output logic [31:0]    rs_ext_rows_o,
  output logic           rs_ext_jump_o,   // ... by rows at rs_ext_addr_o (not continuing)
  output logic [63:0]    rs_ext_addr_o,
  input  logic           rs_ext_ready_i,
  output logic           rd_go_o,         // the LOAD_PARAMS read job (rd_req_*)
  input  logic           rd_req_ready_i
);
  logic          tl_rh_q, tl_rh_d;        // the stream's last rows are the READ_HOST's
  logic [CW-1:0] st_rb_q, st_rb_d;        // row bytes and stride of the running stream
  logic [63:0]   st_stride_q, st_stride_d;
  logic          dw_pend_q, dw_pend_d;
  logic          tile_wh, pa_wh, st_run, st_compat, jump, tile_add, tile_go, rh_add, rh_go, rh_ext;

  always_comb begin
    // a WRITE_HOST streaming rows: the read may start beside its writes when every write
    // before it had been sent when it started and the bytes read are apart from its span, so
    // the read cannot pass a write to the bytes it reads
    tile_wh   = wh_clean_i &&
                (pk_addr_i + 64'(pk_len_i) <= cmd_addr_i || cmd_addr_i + 64'(cmd_len_i) <= pk_addr_i);
    pa_wh     = wh_clean_i &&
                (pa_addr_i + 64'(pa_len_i) <= cmd_addr_i || cmd_addr_i + 64'(cmd_len_i) <= pa_addr_i);
    // a read-ahead joining the running stream (tile rows due, or a READ_HOST's) at another
    // address than the next row's needs its row bytes and stride
    st_run    = streaming_i || rh_due_i || rh2_due_i;
    st_compat = pk_cols_i == st_rb_q && pk_stride_eff_i == st_stride_q;
    jump      = st_run && (tl_rh_q || !tiles_i);
    tile_add  = ReadAhead && rdy_i && (!dw_pend_q || tile_wh) && pk_tile_i && tile_free_i &&
                (!jump || st_compat) && (tile_ok_i || tile_wh);
    tile_go   = tile_add && !st_run;
    rh_add    = ReadAhead && rdy_i && (!dw_pend_q || tile_wh) && pk_rh_i && (rh_ok_i || tile_wh);
    rh_go     = rh_add && !st_run;
    rh_ext    = rh_add && st_run && st_compat;
    rs_go_o   = tile_go || rh_go;
    rd_go_o   = ReadAhead && rdy_i && (!dw_pend_q || pa_wh) && pa_cand_i && pa_idle_i &&
                (pa_ok_i || pa_wh);
  end
  assign tile_join_o    = (tile_go && rs_req_ready_i) || (tile_add && st_run && rs_ext_ready_i);
  assign rh_join_o      = (rh_go && rs_req_ready_i) || (rh_ext && rs_ext_ready_i);
  assign pa_start_o     = rd_go_o && rd_req_ready_i;
  assign stream_o       = rs_go_o || st_run;
  assign rs_ext_valid_o = (tile_add && st_run) || rh_ext;
  assign rs_ext_rows_o  = pk_rows_i;
  assign rs_ext_jump_o  = rh_ext || jump;
  assign rs_ext_addr_o  = pk_addr_i;
  assign dw_pend_o      = dw_pend_q;

  // ---------------------------------------------------------------- CHECK2
  // (the adoptions apart from the drops: the sequencer's drops and clears, which the block
  // below folds in, are computed from the adoptions, so one block would form a combinational
  // loop for Verilator: UNOPTFLAT, the block settled more than once a cycle)
  assign adopt_o    = check2_i && check_ok_i && tiles_i && is_lw_i && head_match_i;
  assign rh_adopt_o = check2_i && check_ok_i && rh_held_i && cmd_op_i == tpu_pkg::OpReadHost &&
                      rh_match_i;
  assign pa_adopt_o = check2_i && check_ok_i && pa_held_i && cmd_op_i == tpu_pkg::OpLoadParams &&
                      !lp_out_i && !lp_lut_i && pa_match_i;
  always_comb begin
    logic keep, drop;
    // a command that neither streams rows nor writes host memory (MATMUL, ACTIVATE,
    // LOAD_PARAMS unless its LUT streams rows), or a WRITE_HOST apart from every queued tile,
    // leaves the read-ahead for the commands after it (the READ_HOST read-ahead is kept or
    // dropped by the same rule, and a READ_HOST adopting it keeps the tiles)
    keep = adopt_o || rh_adopt_o || cmd_op_i == tpu_pkg::OpMatmul ||
           cmd_op_i == tpu_pkg::OpActivate || (cmd_op_i == tpu_pkg::OpLoadParams && !lut_rs_i);
    drop = check2_i && ((tiles_i && !keep && !(is_wh_i && tiles_apart_i)) ||
                        (rh_held_i && !keep && !(is_wh_i && rh_apart_i)));
    // one stream carries both: what is still due of it is dropped with it
    abort_o         = drop && (streaming_i || rh_due_i || rh2_due_i);
    tile_drop_due_o = drop;
    tile_clear_o    = (drop && !(is_wh_i && tiles_apart_i)) || seq_tile_clear_i;
    rh_drop_o       = (drop && (rh_due_i || !(is_wh_i && rh_apart_i))) || seq_rh_drop_i;
    rh2_drop_o      = (drop && (rh2_due_i || !(is_wh_i && rh_apart_i))) || seq_rh2_drop_i;
    pa_drop_o       = pa_adopt_o ||
                      (cmd_op_i == tpu_pkg::OpLoadParams && cmd_op0_i <= 32'(tpu_pkg::ParamShift)) ||
                      is_fence_i || is_id_i || (is_wh_i && !pa_apart_i) ||
                      (is_sm_i && (cmd_op0_i & tpu_pkg::StreamMatmulWriteBack) != 0);
  end

  // ---------------------------------------------------------------- the read-ahead stream
  always_comb begin
    st_rb_d = st_rb_q;  st_stride_d = st_stride_q;  tl_rh_d = tl_rh_q;
    if (rs_go_o && rs_req_ready_i) begin  // a new stream: its row bytes and stride
      st_rb_d = pk_cols_i;
      st_stride_d = pk_stride_eff_i;
    end
    if (rh_join_o) tl_rh_d = 1'b1;
    if (tile_join_o) tl_rh_d = 1'b0;
    dw_pend_d = wr_fire_i || (dw_pend_q && !wr_idle_i);
  end
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      dw_pend_q <= 1'b0;
    end else begin
      dw_pend_q <= dw_pend_d;
    end
  end
  always_ff @(posedge clk_i) begin
    st_rb_q <= st_rb_d;  st_stride_q <= st_stride_d;  tl_rh_q <= tl_rh_d;
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // one candidate at a time: a tile and a READ_HOST never join in the same cycle
      assert (!(tile_join_o && rh_join_o)) else $error("tpu_readahead_ctl: two joins at once");
    end
  end
`endif
endmodule

`default_nettype wire
