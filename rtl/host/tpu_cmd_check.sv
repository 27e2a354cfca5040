// tpu_cmd_check: the field decode and the checks of one command (docs/spec.md 6.1), in the
// spec's order and with the golden model's conditions (sw/golden/golden_cmd.c, golden_xfer.c,
// golden_compute.c). Part of tpu_cmd_proc.
// The SQE register of the sequencer (tpu_cmd_seq) is decoded here once: the fields and the
// opcode/flag decodes go to every engine of the command processor.
// CHECK1 (check1_i, one cycle, or 2 + the bit length of ROWS - 1 cycles with SpanSerial):
// the register row bytes (row_bytes_o), the effective stride (stride_o), the span check
// (span = (ROWS - 1) x stride + row bytes == LENGTH, 64-bit) and STREAM_MATMUL's products
// (C x K rows of the stream, T = ceil(K / N) K-tiles, T x R A rows, C x R output rows) are
// registered: they are computed in every cycle from the SQE, which is stable from CHECK1 on.
// With WRITE_BACK, CHECK1 also runs the write region (HOST_ADDR2, C x R x N bytes) through the
// window checker (chk_*, W) and registers the answer for CHECK2.
// CHECK2 (one cycle, no register): status_o is the command's status in the spec's order (the
// window check of the whole span: chk_* to tpu_win_check outside, R for transfers into the
// device, W for host writes). (The value checks of a LOAD_PARAMS vector: tpu_param_load.)
// SpanSerial = 1 (small FPGAs) computes CHECK1's span product with a shift-add multiplier
// (span_busy_o until it is done) instead of a 32 x 32 one.
// Bf16 (a device with the bf16 mode, spec 6.12): FLAGS.BF16 is valid on READ_HOST,
// LOAD_WEIGHTS, MATMUL, ACTIVATE and WRITE_HOST from the UB (row bytes 2 x COLS), the LOAD_PARAMS
// kinds SCALE (a vector as BIAS; its NaN check is tpu_param_load's) and FCLAMP (no DMA; the
// limits after the input rules on fclamp_o), a MATMUL of the other type than its tile is a
// SEQUENCE_ERROR (mm_bf16_i: tpu_tile_state), and the float ACTIVATE takes OP0 RAW32, SCALE and
// CLAMP. Without Bf16 the flag and the kinds are INVALID_FIELD (as reserved values).
`default_nettype none

module tpu_cmd_check #(
  parameter int unsigned N          = 16,
  parameter int unsigned UbRows     = 8192,
  parameter int unsigned AccRows    = 2048,
  parameter int unsigned Tiles      = 4,
  parameter bit          LutStage   = 1'b0,
  parameter bit          SpanSerial = 1'b0,
  parameter bit          StreamMm   = 1'b1,
  parameter bit          Bf16       = 1'b0,
  parameter bit          Round      = 1'b0,  // OUTPUT's OP0.ROUND may be SINGLE or FLOAT
  localparam int unsigned TW        = Tiles > 1 ? $clog2(Tiles) : 1,
  localparam int unsigned KW        = $clog2(N + 1)
) (
  input  logic           clk_i,
  input  logic           check1_i,        // the sequencer is in CHECK1
  input  logic [511:0]   sqe_i,           // the SQE register
  // the spec state the checks read
  input  logic [TW:0]    fifo_count_i,    // weight tiles pushed, not popped
  input  logic           active_valid_i,  // a tile is active
  input  logic [6:0]     params_loaded_i, // per tpu_pkg::param_kind_e
  input  logic           mm_bf16_i,       // (Bf16) the type of the tile a MATMUL would use
  // window check of the span (or, in CHECK1 of a WRITE_BACK STREAM_MATMUL, its write region)
  output logic [63:0]    chk_addr_o,
  output logic [31:0]    chk_len_o,
  output logic           chk_write_o,
  input  logic           chk_ok_i,
  // the decoded SQE
  output logic [7:0]     op_o,
  output logic [7:0]     flags_o,
  output logic [15:0]    cid_o,
  output logic [63:0]    addr_o,
  output logic [31:0]    len_o,
  output logic [31:0]    stride_field_o,  // STRIDE as given (0: packed)
  output logic [31:0]    local_o,         // LOCAL_ADDR
  output logic [31:0]    local2_o,        // LOCAL_ADDR2
  output logic [31:0]    rows_o,
  output logic [31:0]    cols_o,
  output logic [31:0]    op0_o,
  output logic [31:0]    op1_o,
  output logic [31:0]    op2_o,
  output logic [31:0]    op3_o,
  output logic [63:0]    addr2_o,         // HOST_ADDR2
  output logic           is_load_weights_o,
  output logic           is_write_host_o,
  output logic           is_fence_o,
  output logic           is_identify_o,
  output logic           is_stream_mm_o,  // (StreamMm only)
  output logic           lut_staged_o,    // a LUT load through the staging ring (LutStage)
  output logic           lp_lut_o,        // LOAD_PARAMS of the LUT
  output logic           lp_output_o,     // LOAD_PARAMS of OUTPUT
  output logic           wh_acc_o,        // WRITE_HOST from the ACC
  output logic           act_raw_o,       // ACTIVATE RAW32
  output logic           act_lut_o,       // ACTIVATE LUT
  output logic           mm_pop_o,        // MATMUL POP
  output logic           bf16_o,          // (Bf16) FLAGS.BF16
  output logic           lp_fclamp_o,     // (Bf16) LOAD_PARAMS of FCLAMP
  output logic [63:0]    fclamp_o,        // (Bf16) its {FMAX, FMIN} after the input rules
  // CHECK1 results (registered) and CHECK2's status
  output logic           span_busy_o,     // SpanSerial: CHECK1's product not ready yet
  output logic [31:0]    row_bytes_o,     // row bytes (<= 4N where used)
  output logic [63:0]    stride_o,        // effective stride
  output logic [31:0]    sm_stream_rows_o, // STREAM_MATMUL: C x K (+ bias, A, PARAMS rows)
  output logic [31:0]    sm_ktiles_o,     // T
  output logic [KW-1:0]  sm_last_k_o,     // rows of a block's last K-tile (1..N)
  output logic [31:0]    sm_acc_rows_o,   // C x R
  output logic [7:0]     status_o
);

  // FLAGS bits this device accepts: without the bf16 mode FLAGS.BF16 is INVALID_FIELD like a
  // reserved bit (spec 6.1 step 2, 6.12)
  localparam logic [7:0] FlagsOk = Bf16 ? tpu_pkg::SqeFlagsValid
                                        : tpu_pkg::SqeFlagsValid & ~tpu_pkg::SqeFlagBf16;
  // ---------------------------------------------------------------- fields
  logic [7:0]  f_op, f_flags;
  logic [63:0] f_addr, f_addr2;
  logic [31:0] f_len, f_stride, f_la, f_la2, f_rows, f_cols, f_op0, f_op1, f_op2, f_op3;
  always_comb begin
    f_op     = sqe_i[tpu_pkg::SqeOpcodeLsb +: 8];
    f_flags  = sqe_i[tpu_pkg::SqeFlagsLsb +: 8];
    f_addr   = {sqe_i[tpu_pkg::SqeHostAddrHiLsb +: 32], sqe_i[tpu_pkg::SqeHostAddrLoLsb +: 32]};
    f_len    = sqe_i[tpu_pkg::SqeLengthLsb +: 32];
    f_stride = sqe_i[tpu_pkg::SqeStrideLsb +: 32];
    f_la     = sqe_i[tpu_pkg::SqeLocalAddrLsb +: 32];
    f_la2    = sqe_i[tpu_pkg::SqeLocalAddr2Lsb +: 32];
    f_rows   = sqe_i[tpu_pkg::SqeRowsLsb +: 32];
    f_cols   = sqe_i[tpu_pkg::SqeColsLsb +: 32];
    f_op0    = sqe_i[tpu_pkg::SqeOp0Lsb +: 32];
    f_op1    = sqe_i[tpu_pkg::SqeOp1Lsb +: 32];
    f_op2    = sqe_i[tpu_pkg::SqeOp2Lsb +: 32];
    f_op3    = sqe_i[tpu_pkg::SqeOp3Lsb +: 32];
    f_addr2  = {sqe_i[tpu_pkg::SqeHostAddr2HiLsb +: 32], sqe_i[tpu_pkg::SqeHostAddr2LoLsb +: 32]};
  end
  assign op_o           = f_op;
  assign flags_o        = f_flags;
  assign cid_o          = sqe_i[tpu_pkg::SqeCidLsb +: 16];
  assign addr_o         = f_addr;
  assign len_o          = f_len;
  assign stride_field_o = f_stride;
  assign local_o        = f_la;
  assign local2_o       = f_la2;
  assign rows_o         = f_rows;
  assign cols_o         = f_cols;
  assign op0_o          = f_op0;
  assign op1_o          = f_op1;
  assign op2_o          = f_op2;
  assign op3_o          = f_op3;
  assign addr2_o        = f_addr2;

  function automatic logic range_ok(input logic [31:0] first, input logic [31:0] count,
                                    input logic [31:0] size);
    range_ok = first <= size && count <= size - first;
  endfunction
  function automatic logic int8_ok(input logic [31:0] v);
    int8_ok = $signed(v) >= -32'sd128 && $signed(v) <= 32'sd127;
  endfunction

  // ---------------------------------------------------------------- decodes
  logic        is_lw, is_wh, is_fence, is_id, is_sm;
  logic        lp_lut, lp_out, wh_acc, act_raw, act_lut, mm_pop, lut_rs;
  logic        bf16, lp_fcl, lp_scale, bf_op_ok;
  logic [31:0] fcl_lo, fcl_hi, act_ok_bits;
  logic        sm_act, sm_lut, sm_astr, sm_wb, sm_kmaj, sm_prm, sm_wf;
  logic [63:0] sm_wlen;      // WRITE_BACK: C x R x N bytes (when the limits hold)
  logic [63:0] rb_d;         // row bytes
  logic [63:0] stride_d;     // effective stride
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
    sm_wlen  = 64'(f_op2[7:0]) * 64'(f_op1[15:0]) * 64'(N);
    lp_lut   = f_op0 == 32'(tpu_pkg::ParamLut);
    lp_out   = (f_op0 & ~tpu_pkg::LoadParamsRoundMask) == 32'(tpu_pkg::ParamOutput);
    wh_acc   = (f_op0 & tpu_pkg::WriteHostFromAcc) != 0;
    act_raw  = (f_op0 & tpu_pkg::ActivateRaw32) != 0;
    act_lut  = (f_op0 & tpu_pkg::ActivateLut) != 0;
    mm_pop   = (f_op0 & tpu_pkg::MatmulPop) != 0;
    lut_rs   = LutStage && f_op == tpu_pkg::OpLoadParams && lp_lut;
    bf16     = Bf16 && (f_flags & tpu_pkg::SqeFlagBf16) != 0;
    lp_fcl   = Bf16 && f_op0 == 32'(tpu_pkg::ParamFclamp);
    lp_scale = Bf16 && f_op0 == 32'(tpu_pkg::ParamScale);
    fcl_lo   = tpu_fp_pkg::f32_canon(f_op2);
    fcl_hi   = tpu_fp_pkg::f32_canon(f_op3);
    // (the commands that take FLAGS.BF16; WRITE_HOST FROM_ACC refuses it in its own step 2)
    bf_op_ok = f_op == tpu_pkg::OpReadHost || f_op == tpu_pkg::OpLoadWeights ||
               f_op == tpu_pkg::OpMatmul || f_op == tpu_pkg::OpActivate ||
               f_op == tpu_pkg::OpWriteHost;
    // ACTIVATE's OP0 bits: LUT and RAW32, or with FLAGS.BF16 RAW32, SCALE and CLAMP
    act_ok_bits = bf16 ? (tpu_pkg::ActivateRaw32 | tpu_pkg::ActivateScale | tpu_pkg::ActivateClamp)
                       : (tpu_pkg::ActivateLut | tpu_pkg::ActivateRaw32);
    // row bytes and span (only meaningful when COLS <= N, which the checks test first)
    rb_d     = (is_wh && wh_acc) ? {30'd0, f_cols, 2'b00} :
               bf16 ? {31'd0, f_cols, 1'b0} : {32'd0, f_cols};
    // (LutStage: the LUT's packed N-byte rows; LOAD_PARAMS has no span check)
    stride_d = lut_rs ? 64'(N) : (f_stride != 0) ? {32'd0, f_stride} : rb_d;
  end
  assign is_load_weights_o = is_lw;
  assign is_write_host_o   = is_wh;
  assign is_fence_o        = is_fence;
  assign is_identify_o     = is_id;
  assign is_stream_mm_o    = is_sm;
  assign lut_staged_o      = lut_rs;
  assign lp_lut_o          = lp_lut;
  assign lp_output_o       = lp_out;
  assign wh_acc_o          = wh_acc;
  assign act_raw_o         = act_raw;
  assign act_lut_o         = act_lut;
  assign mm_pop_o          = mm_pop;
  assign bf16_o            = bf16;
  assign lp_fclamp_o       = lp_fcl;
  assign fclamp_o          = {fcl_hi, fcl_lo};

  // ---------------------------------------------------------------- CHECK1
  // rows of the span: STREAM_MATMUL streams C x K rows, + 4 per block with ACTIVATE, + T x R
  // with A_STREAM (< 2^29 when its limits hold; checked in the same step)
  logic [31:0] span_rows, sm_ktiles_d;
  logic [63:0] span_prod;   // (ROWS - 1) x stride
  logic        span_ok_q, span_ok_d;
  assign sm_ktiles_d = (32'(f_rows[15:0]) + N - 1) / N;
  assign span_rows = is_sm ? 32'(f_op2[7:0]) *
                             (32'(f_rows[15:0]) + (sm_act ? tpu_pkg::StreamMatmulBiasRows : 32'd0)) +
                             (sm_astr ? sm_ktiles_d * 32'(f_op1[15:0]) : 32'd0) +
                             (sm_prm ? tpu_pkg::StreamMatmulParamsRows : 32'd0)
                           : f_rows;
  always_comb begin  // apart: span_prod depends on stride_d
    span_ok_d = span_rows != 0 && !(f_stride != 0 && {32'd0, f_stride} < rb_d) &&
                span_prod + rb_d == {32'd0, f_len};
  end

  // ROWS - 1 fits 32 bits whenever it matters (ROWS = 0 fails span_ok_d anyway)
  if (SpanSerial) begin : g_span_serial
    // shift-add in CHECK1: load, then one multiplier bit per cycle until none is left
    logic [31:0] mul_a_q, mul_a_d;
    logic [63:0] mul_b_q, mul_b_d, mul_p_q, mul_p_d;
    logic        mul_loaded_q, mul_loaded_d;
    always_comb begin
      mul_loaded_d = mul_loaded_q;  mul_a_d = mul_a_q;  mul_b_d = mul_b_q;  mul_p_d = mul_p_q;
      if (!check1_i) begin
        mul_loaded_d = 1'b0;
      end else if (!mul_loaded_q) begin
        mul_loaded_d = 1'b1;
        mul_a_d = span_rows - 32'd1;
        mul_b_d = {32'd0, stride_d[31:0]};  // (stride_d < 2^32)
        mul_p_d = '0;
      end else if (mul_a_q != '0) begin
        if (mul_a_q[0]) mul_p_d = mul_p_q + mul_b_q;
        mul_a_d = mul_a_q >> 1;
        mul_b_d = mul_b_q << 1;
      end
    end
    always_ff @(posedge clk_i) begin
      mul_loaded_q <= mul_loaded_d;  mul_a_q <= mul_a_d;  mul_b_q <= mul_b_d;  mul_p_q <= mul_p_d;
    end
    assign span_busy_o = !mul_loaded_q || mul_a_q != '0;
    assign span_prod   = mul_p_q;
  end else begin : g_span_mul
    assign span_busy_o = 1'b0;
    assign span_prod   = {32'd0, span_rows - 32'd1} * stride_d;
  end

  // STREAM_MATMUL's products, from the SQE (stable from CHECK1 on); only meaningful when its
  // step-3 limits hold (K < 2^16, R < 2^16, C < 2^8), which CHECK2 tests first (constant
  // without StreamMm: synthesis drops the products)
  logic [31:0]   sm_rows_q, sm_ktiles_q, sm_ub_q, sm_acc_q;
  logic [KW-1:0] sm_last_k_q;
  logic          sm_wok_q, sm_wok_d;  // WRITE_BACK: the write region passed the window check
  assign sm_wok_d = check1_i ? StreamMm && chk_ok_i : sm_wok_q;
  always_ff @(posedge clk_i) begin
    row_bytes_o <= rb_d[31:0];
    stride_o    <= stride_d;
    span_ok_q   <= span_ok_d;
    sm_wok_q    <= sm_wok_d;
    sm_rows_q   <= StreamMm ? span_rows : '0;
    sm_ktiles_q <= StreamMm ? sm_ktiles_d : '0;
    sm_last_k_q <= StreamMm ? KW'(f_rows - (sm_ktiles_d - 32'd1) * N) : '0;
    sm_ub_q     <= StreamMm ? sm_ktiles_d * 32'(f_op1[15:0]) : '0;
    sm_acc_q    <= StreamMm ? 32'(f_op2[7:0]) * 32'(f_op1[15:0]) : '0;
  end
  assign sm_stream_rows_o = sm_rows_q;
  assign sm_ktiles_o      = sm_ktiles_q;
  assign sm_last_k_o      = sm_last_k_q;
  assign sm_acc_rows_o    = sm_acc_q;

  // window check operands: the whole span, R for transfers into the device, W otherwise
  // (STREAM_MATMUL with WRITE_BACK: its write region in CHECK1, the stream in CHECK2)
  logic chk_wb;
  assign chk_wb      = check1_i && is_sm && sm_wb;
  assign chk_addr_o  = chk_wb ? f_addr2 : f_addr;
  assign chk_len_o   = chk_wb ? sm_wlen[31:0] : f_len;
  assign chk_write_o = is_wh || is_fence || is_id || chk_wb;

  // ---------------------------------------------------------------- CHECK2
  // K_MAJOR with ACTIVATE: the output rows must not meet A's UB rows (step 4)
  logic sm_olap;
  assign sm_olap = sm_kmaj && sm_act && f_op3 < f_la + sm_ub_q && f_la < f_op3 + sm_acc_q;
  always_comb begin
    logic nz_addr;
    nz_addr  = f_addr != 64'd0;
    status_o = tpu_pkg::ScSuccess;
    if (32'(f_op) >= tpu_pkg::OpCount || (!StreamMm && f_op == tpu_pkg::OpStreamMatmul)) begin
      status_o = tpu_pkg::ScInvalidOpcode;
    end else if ((f_flags & ~FlagsOk) != 0 ||
                 (!is_sm && f_addr2 != 0) ||  // (STREAM_MATMUL: below)
                 (bf16 && !bf_op_ok)) begin
      status_o = tpu_pkg::ScInvalidField;
    end else begin
      unique case (f_op)
        tpu_pkg::OpNop: begin
          if (sqe_i[tpu_pkg::SqeHostAddrLoLsb +: 12*32] != '0) status_o = tpu_pkg::ScInvalidField;
        end
        tpu_pkg::OpReadHost: begin
          if (f_la2 != 0 || f_op0 != 0 || f_op1 != 0 || f_op2 != 0 || f_op3 != 0 ||
              f_cols == 0 || f_cols > N || !span_ok_q)
            status_o = tpu_pkg::ScInvalidField;
          else if (!range_ok(f_la, f_rows, UbRows)) status_o = tpu_pkg::ScLocalRange;
          else if (!chk_ok_i) status_o = tpu_pkg::ScDmaAccessViolation;
        end
        tpu_pkg::OpLoadWeights: begin
          if (f_la != 0 || f_la2 != 0 || f_op1 != 0 || f_op2 != 0 || f_op3 != 0 ||
              f_rows == 0 || f_rows > N || f_cols == 0 || f_cols > N ||
              (f_op0 & ~tpu_pkg::LoadWeightsTranspose) != 0 || !span_ok_q)
            status_o = tpu_pkg::ScInvalidField;
          else if (32'(fifo_count_i) == Tiles) status_o = tpu_pkg::ScSequenceError;
          else if (!chk_ok_i) status_o = tpu_pkg::ScDmaAccessViolation;
        end
        tpu_pkg::OpLoadParams: begin
          if (lp_out) begin
            if (nz_addr || f_len != 0 || f_stride != 0 || f_la != 0 || f_la2 != 0 ||
                f_rows != 0 || f_cols != 0 || !int8_ok(f_op1) || !int8_ok(f_op2) ||
                !int8_ok(f_op3) || $signed(f_op2) > $signed(f_op3) || f_op0[9:8] == 2'd3 ||
                (!Round && f_op0[9:8] != 2'd0))
              status_o = tpu_pkg::ScInvalidField;
          end else if (lp_fcl) begin
            if (nz_addr || f_len != 0 || f_stride != 0 || f_la != 0 || f_la2 != 0 ||
                f_rows != 0 || f_cols != 0 || f_op1 != 0 || tpu_fp_pkg::f32_is_nan(fcl_lo) ||
                tpu_fp_pkg::f32_is_nan(fcl_hi) || tpu_fp_pkg::f32_lt(fcl_hi, fcl_lo))
              status_o = tpu_pkg::ScInvalidField;
          end else if ((f_op0 > 32'(tpu_pkg::ParamOutput) && !lp_scale) || f_la2 != 0 || f_op1 != 0 ||
                       f_op2 != 0 || f_op3 != 0 || f_rows != 1 || f_stride != 0 ||
                       (lp_lut && (f_cols != tpu_pkg::LutEntries ||
                                   f_len != tpu_pkg::LutEntries || f_la != 0)) ||
                       (!lp_lut && (f_cols == 0 || f_cols > N ||
                                    {32'd0, f_len} != {30'd0, f_cols, 2'b00}))) begin
            status_o = tpu_pkg::ScInvalidField;
          end else if (!lp_lut && !range_ok(f_la, f_cols, N)) begin
            status_o = tpu_pkg::ScLocalRange;
          end else if (!chk_ok_i) begin
            status_o = tpu_pkg::ScDmaAccessViolation;
          end
        end
        tpu_pkg::OpMatmul: begin
          if (nz_addr || f_len != 0 || f_stride != 0 || f_cols != 0 || f_op1 != 0 ||
              f_op2 != 0 || f_op3 != 0 || f_rows == 0 ||
              (f_op0 & ~(tpu_pkg::MatmulAccumulate | tpu_pkg::MatmulPop)) != 0)
            status_o = tpu_pkg::ScInvalidField;
          else if (!range_ok(f_la, f_rows, UbRows) || !range_ok(f_la2, f_rows, AccRows))
            status_o = tpu_pkg::ScLocalRange;
          else if ((mm_pop ? fifo_count_i == '0 : !active_valid_i) || (Bf16 && mm_bf16_i != bf16))
            status_o = tpu_pkg::ScSequenceError;
        end
        tpu_pkg::OpActivate: begin
          if (nz_addr || f_len != 0 || f_stride != 0 || f_cols != 0 || f_op1 != 0 ||
              f_op2 != 0 || f_op3 != 0 || f_rows == 0 ||
              (f_op0 & ~act_ok_bits) != 0 || (act_raw && act_lut) ||
              (act_raw && f_la != f_la2 && {1'b0, f_la} + {1'b0, f_rows} > {1'b0, f_la2} &&
               {1'b0, f_la2} + {1'b0, f_rows} > {1'b0, f_la}))
            status_o = tpu_pkg::ScInvalidField;
          else if (!range_ok(f_la, f_rows, AccRows) ||
                   !range_ok(f_la2, f_rows, act_raw ? AccRows : UbRows))
            status_o = tpu_pkg::ScLocalRange;
          else if (bf16 ? (!params_loaded_i[tpu_pkg::ParamBias] ||
                           ((f_op0 & tpu_pkg::ActivateScale) != 0 &&
                            !params_loaded_i[tpu_pkg::ParamScale]) ||
                           ((f_op0 & tpu_pkg::ActivateClamp) != 0 &&
                            !params_loaded_i[tpu_pkg::ParamFclamp]))
                        : !params_loaded_i[tpu_pkg::ParamBias] ||
                   (!act_raw && (!params_loaded_i[tpu_pkg::ParamMult] ||
                                 !params_loaded_i[tpu_pkg::ParamShift] ||
                                 !params_loaded_i[tpu_pkg::ParamOutput] ||
                                 (act_lut && !params_loaded_i[tpu_pkg::ParamLut]))))
            status_o = tpu_pkg::ScSequenceError;
        end
        tpu_pkg::OpWriteHost: begin
          if ((wh_acc && bf16) || f_la2 != 0 || f_op1 != 0 || f_op2 != 0 || f_op3 != 0 ||
              f_cols == 0 || f_cols > N || (f_op0 & ~tpu_pkg::WriteHostFromAcc) != 0 ||
              !span_ok_q)
            status_o = tpu_pkg::ScInvalidField;
          else if (!range_ok(f_la, f_rows, wh_acc ? AccRows : UbRows))
            status_o = tpu_pkg::ScLocalRange;
          else if (!chk_ok_i) status_o = tpu_pkg::ScDmaAccessViolation;
        end
        tpu_pkg::OpFence: begin
          if (f_stride != 0 || f_la != 0 || f_la2 != 0 || f_rows != 0 || f_cols != 0 ||
              f_op2 != 0 || f_op3 != 0)
            status_o = tpu_pkg::ScInvalidField;
          else if (!nz_addr) begin
            if (f_len != 0 || f_op0 != 0 || f_op1 != 0) status_o = tpu_pkg::ScInvalidField;
          end else if (f_len != 8 || f_addr[2:0] != 3'd0) status_o = tpu_pkg::ScInvalidField;
          else if (!chk_ok_i) status_o = tpu_pkg::ScDmaAccessViolation;
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
              (!sm_wb && f_addr2 != 0) ||
              (sm_wb && sm_wlen[63:32] != '0) ||
              f_rows == 0 || f_rows > tpu_pkg::StreamMatmulMaxK || f_cols == 0 || f_cols > N ||
              ((sm_act || sm_astr) && f_cols != N) ||
              f_op1 == 0 || f_op1 > tpu_pkg::StreamMatmulMaxR || f_op2 == 0 ||
              f_op2 > tpu_pkg::StreamMatmulMaxBlocks || !span_ok_q ||
              32'(f_op0[15:8]) > f_op2)
            status_o = tpu_pkg::ScInvalidField;
          else if (!range_ok(f_la, sm_ub_q, UbRows) || !range_ok(f_la2, sm_acc_q, AccRows) ||
                   (sm_act && !range_ok(f_op3, sm_acc_q, UbRows)) || sm_olap)
            status_o = tpu_pkg::ScLocalRange;
          else if (fifo_count_i != '0 ||
                   (sm_act && ((!sm_prm && (!params_loaded_i[tpu_pkg::ParamMult] ||
                                             !params_loaded_i[tpu_pkg::ParamShift])) ||
                               !params_loaded_i[tpu_pkg::ParamOutput] ||
                               (sm_lut && !params_loaded_i[tpu_pkg::ParamLut]))))
            status_o = tpu_pkg::ScSequenceError;
          else if (!chk_ok_i || (sm_wb && !sm_wok_q)) status_o = tpu_pkg::ScDmaAccessViolation;
        end
        default: begin  // IDENTIFY
          if (f_stride != 0 || f_la != 0 || f_la2 != 0 || f_rows != 0 || f_cols != 0 ||
              f_op0 != 0 || f_op1 != 0 || f_op2 != 0 || f_op3 != 0 ||
              f_len != tpu_pkg::IdentifyBytes)
            status_o = tpu_pkg::ScInvalidField;
          else if (!chk_ok_i) status_o = tpu_pkg::ScDmaAccessViolation;
        end
      endcase
    end
  end

  logic unused_user_tag;  // (the queue engine's, for the CQE)
  assign unused_user_tag = ^sqe_i[tpu_pkg::SqeUserTagLsb +: tpu_pkg::SqeUserTagWidth];

endmodule

`default_nettype wire
