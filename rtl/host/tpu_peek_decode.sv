// tpu_peek_decode: the read-ahead candidates among the next PeekN SQEs the queue engine holds
// (pk_*). Part of tpu_cmd_proc; combinational (the peek window checks run outside, in
// tpu_device, on pk_chk_* and pa_chk_*, and their answers come back in the same cycle).
// Weight tile / READ_HOST candidate (one at a time, for tpu_tile_readahead and
// tpu_readhost_ahead):
//   - with no tile queued: the next SQE, or the one after it when the next is a MATMUL (that
//     neither writes host memory nor streams rows, so the read-ahead stays valid across it);
//   - with tiles queued: the first LOAD_WEIGHTS of the peek whose rows continue the last queued
//     tile's (that tile has N rows; same COLS, STRIDE and queue; HOST_ADDR N x stride on): it
//     joins the queue and, while the stream runs, extends it (no new round trip);
//   - the first READ_HOST of the peek (with the head READ_HOST held: the one after the head's
//     own, skip_head_i) when no LOAD_WEIGHTS before it can join the tile queue.
//   A tile needs 1..N rows and 1..N columns, a READ_HOST 1..StageRows rows and 1..N columns;
//   both no FENCE flag, STRIDE 0 or >= the row bytes, LENGTH = the span, and a span that passes
//   the read window check and touches no completion ring or MSI address (pk_chk_ok_i). A
//   candidate's row bytes (cols_o, and the tail's) are COLS, or 2 x COLS with FLAGS.BF16 on a
//   bf16 device (Bf16): the bytes read are the same whichever command's flag names them, so a
//   tile or READ_HOST read ahead is adopted by the read (address, stride, rows, row bytes).
// LOAD_PARAMS candidate (tpu_param_readahead): the first BIAS/MULT/SHIFT LOAD_PARAMS of the
// peek, read ahead when it has 1..N channels (LENGTH = 4 x COLS), no FENCE flag, and its vector
// passes pa_chk_ok_i.
// A candidate is only a hint: the command that reaches CHECK2 with the same read adopts what
// was read (tpu_cmd_seq). ReadAhead = 0: no candidate (constant outputs).
`default_nettype none

module tpu_peek_decode #(
  parameter int unsigned N         = 16,
  parameter int unsigned StageRows = 64,
  parameter int unsigned PeekN     = 4,
  parameter bit          ReadAhead = 1'b1,
  parameter bit          RhTwo     = 1'b0,  // a second READ_HOST may be held (RhDepth = 2)
  parameter bit          Bf16      = 1'b0,  // FLAGS.BF16 doubles a row's bytes (above)
  localparam int unsigned KW       = $clog2(N + 1),
  localparam int unsigned CW       = $clog2((Bf16 ? 2 * N : N) + 1)
) (
  input  logic [PeekN-1:0]     pk_valid_i,
  input  logic [PeekN*512-1:0] pk_sqe_i,
  input  logic [7:0]           pk_qid_i,
  // the read-ahead state: READ_HOSTs held, the tile queue and its last (tail) tile
  input  logic                 rh_held_i,      // a READ_HOST is held (the head)
  input  logic                 rh_second_i,    // ... and a second one (RhDepth = 2)
  input  logic                 skip_head_i,    // the peek's first READ_HOST is the head's own
  input  logic                 tiles_i,        // tiles are queued
  input  logic [7:0]           tile_qid_i,     // their queue
  input  logic [63:0]          tail_addr_i,
  input  logic [31:0]          tail_stride_i,
  input  logic [KW-1:0]        tail_rows_i,
  input  logic [CW-1:0]        tail_cols_i,    // its row bytes
  // the tile / READ_HOST candidate and its window check
  output logic [63:0]          pk_chk_addr_o,
  output logic [31:0]          pk_chk_len_o,
  input  logic                 pk_chk_ok_i,
  output logic [63:0]          addr_o,
  output logic [31:0]          len_o,
  output logic [31:0]          rows_o,
  output logic [31:0]          cols_o,         // row bytes (above)
  output logic [31:0]          stride_o,       // STRIDE as given
  output logic [63:0]          stride_eff_o,   // effective stride
  output logic                 tile_ok_o,      // a LOAD_WEIGHTS that may join the tile queue
  output logic                 rh_ok_o,        // a READ_HOST that may be read ahead
  // the LOAD_PARAMS candidate and its window check
  output logic [63:0]          pa_chk_addr_o,
  output logic [31:0]          pa_chk_len_o,
  input  logic                 pa_chk_ok_i,
  output logic [63:0]          pa_addr_o,
  output logic [31:0]          pa_len_o,
  output logic                 pa_ok_o
);
  localparam int unsigned PkW = $clog2(PeekN);

  // The fields of each peeked SQE, sliced once at constant offsets (indexing the whole
  // PeekN x 512-bit vector with a variable entry number in every use costs a simulator a copy
  // and a variable shift of the whole vector per use; the logic is the same).
  logic [PeekN*8-1:0]  e_op, e_flags;     // entry i in bits i*8 +: 8
  logic [PeekN*64-1:0] e_addr;            // ... i*64 +: 64
  logic [PeekN*32-1:0] e_len, e_stride, e_rows, e_cols, e_op0;  // ... i*32 +: 32
  for (genvar i = 0; i < PeekN; i++) begin : g_ent
    assign e_op[i*8 +: 8]      = pk_sqe_i[512*i + tpu_pkg::SqeOpcodeLsb +: 8];
    assign e_flags[i*8 +: 8]   = pk_sqe_i[512*i + tpu_pkg::SqeFlagsLsb +: 8];
    assign e_addr[i*64 +: 64]  = {pk_sqe_i[512*i + tpu_pkg::SqeHostAddrHiLsb +: 32],
                                  pk_sqe_i[512*i + tpu_pkg::SqeHostAddrLoLsb +: 32]};
    assign e_len[i*32 +: 32]    = pk_sqe_i[512*i + tpu_pkg::SqeLengthLsb +: 32];
    assign e_stride[i*32 +: 32] = pk_sqe_i[512*i + tpu_pkg::SqeStrideLsb +: 32];
    assign e_rows[i*32 +: 32]   = pk_sqe_i[512*i + tpu_pkg::SqeRowsLsb +: 32];
    assign e_cols[i*32 +: 32]   = pk_sqe_i[512*i + tpu_pkg::SqeColsLsb +: 32];
    assign e_op0[i*32 +: 32]    = pk_sqe_i[512*i + tpu_pkg::SqeOp0Lsb +: 32];
  end
  logic unused_sqe;  // (the fields no read-ahead decision looks at)
  assign unused_sqe = ^pk_sqe_i;

  // ---------------------------------------------------------------- tile / READ_HOST
  logic [7:0]     pk_op, pk_flags;
  logic [31:0]    pk_len, pk_stride, pk_rows, pk_cols, pk_rb;
  logic [63:0]    pk_addr, pk_stride_eff, pk_span, tail_next, tail_stride_eff;
  logic [PkW-1:0] pk_i, rh_i;
  logic           pk_val, pk_cont, pk_rh, rh_hit, rh_seen, rh_found;
  always_comb begin
    // the first READ_HOST of the peek (past the head's own when skip_head_i)
    rh_i = '0;
    rh_hit = 1'b0;
    rh_seen = 1'b0;
    for (int i = 0; i < PeekN; i++) begin
      if (pk_valid_i[i] && e_op[i*8 +: 8] == tpu_pkg::OpReadHost) begin
        if (!rh_hit && (rh_seen || !skip_head_i)) begin
          rh_i = PkW'(i);
          rh_hit = 1'b1;
        end
        rh_seen = 1'b1;
      end
    end
    rh_found = ReadAhead && rh_hit && (!rh_held_i || (RhTwo && !rh_second_i));
    tail_stride_eff = (tail_stride_i != 0) ? {32'd0, tail_stride_i} : 64'(tail_cols_i);
    tail_next = tail_addr_i + 64'(N) * tail_stride_eff;
    pk_i    = (e_op[7:0] == tpu_pkg::OpMatmul) ? PkW'(1) : '0;
    pk_cont = 1'b0;
    if (tiles_i) begin
      pk_i = '0;
      for (int i = PeekN - 1; i >= 0; i--) begin
        if (pk_valid_i[i] && e_op[i*8 +: 8] == tpu_pkg::OpLoadWeights &&
            e_addr[i*64 +: 64] == tail_next && (!rh_found || PkW'(i) < rh_i)) begin
          pk_i = PkW'(i);
          pk_cont = 1'b1;
        end
      end
    end
    // no tile before it in command order: the READ_HOST is the candidate
    pk_rh = rh_found && !(tiles_i ? pk_cont :
                          pk_valid_i[pk_i] && e_op[pk_i*8 +: 8] == tpu_pkg::OpLoadWeights);
    if (pk_rh) pk_i = rh_i;
    pk_val    = pk_valid_i[pk_i];
    pk_op     = e_op[pk_i*8 +: 8];
    pk_flags  = e_flags[pk_i*8 +: 8];
    pk_addr   = e_addr[pk_i*64 +: 64];
    pk_len    = e_len[pk_i*32 +: 32];
    pk_stride = e_stride[pk_i*32 +: 32];
    pk_rows   = e_rows[pk_i*32 +: 32];
    pk_cols   = e_cols[pk_i*32 +: 32];
    // (a bf16 COLS above N fails the checks below whatever its doubled value)
    pk_rb     = (Bf16 && (pk_flags & tpu_pkg::SqeFlagBf16) != 0) ? {pk_cols[30:0], 1'b0}
                                                                 : pk_cols;
    pk_stride_eff = (pk_stride != 0) ? {32'd0, pk_stride} : {32'd0, pk_rb};
    pk_span   = ({32'd0, pk_rows} - 64'd1) * pk_stride_eff + {32'd0, pk_rb};
  end
  always_comb begin  // apart from the decode: pk_chk_ok_i depends on pk_chk_addr_o/len_o
    tile_ok_o = pk_val && pk_op == tpu_pkg::OpLoadWeights &&
                (pk_flags & tpu_pkg::SqeFlagFence) == 0 &&
                pk_rows != 0 && pk_rows <= N && pk_cols != 0 && pk_cols <= N &&
                !(pk_stride != 0 && pk_stride < pk_rb) && pk_span == {32'd0, pk_len} &&
                pk_chk_ok_i &&
                (!tiles_i ||
                 (pk_cont && 32'(tail_rows_i) == N && pk_qid_i == tile_qid_i &&
                  pk_rb == 32'(tail_cols_i) && pk_stride == tail_stride_i));
    rh_ok_o   = pk_rh && pk_val && (pk_flags & tpu_pkg::SqeFlagFence) == 0 &&
                pk_rows != 0 && pk_rows <= StageRows && pk_cols != 0 && pk_cols <= N &&
                !(pk_stride != 0 && pk_stride < pk_rb) && pk_span == {32'd0, pk_len} &&
                pk_chk_ok_i;
  end
  assign pk_chk_addr_o = ReadAhead ? pk_addr : '0;
  assign pk_chk_len_o  = ReadAhead ? pk_len : '0;
  assign addr_o        = pk_addr;
  assign len_o         = pk_len;
  assign rows_o        = pk_rows;
  assign cols_o        = pk_rb;
  assign stride_o      = pk_stride;
  assign stride_eff_o  = pk_stride_eff;

  // ---------------------------------------------------------------- LOAD_PARAMS
  logic [PkW-1:0] pp_i;
  logic           pp_found;
  logic [31:0]    pp_len, pp_cols;
  logic [63:0]    pp_addr;
  always_comb begin
    pp_i = '0;
    pp_found = 1'b0;
    for (int i = PeekN - 1; i >= 0; i--) begin
      if (pk_valid_i[i] && e_op[i*8 +: 8] == tpu_pkg::OpLoadParams &&
          e_op0[i*32 +: 32] <= 32'(tpu_pkg::ParamShift)) begin
        pp_i = PkW'(i);
        pp_found = 1'b1;
      end
    end
    pp_addr = e_addr[pp_i*64 +: 64];
    pp_len  = e_len[pp_i*32 +: 32];
    pp_cols = e_cols[pp_i*32 +: 32];
  end
  always_comb begin  // apart from the decode: pa_chk_ok_i depends on pa_chk_addr_o/len_o
    pa_ok_o = pp_found &&
              (e_flags[pp_i*8 +: 8] & tpu_pkg::SqeFlagFence) == 0 &&
              pp_cols != 0 && pp_cols <= N &&
              {32'd0, pp_len} == {30'd0, pp_cols, 2'b00} && pa_chk_ok_i;
  end
  assign pa_chk_addr_o = ReadAhead ? pp_addr : '0;
  assign pa_chk_len_o  = ReadAhead ? pp_len : '0;
  assign pa_addr_o     = pp_addr;
  assign pa_len_o      = pp_len;
endmodule

`default_nettype wire
