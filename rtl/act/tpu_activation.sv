// tpu_activation: the activation pipeline (docs/spec.md 6.7 and 7), one row of N int32
// accumulator values per cycle, fully pipelined, valid/ready on both sides.
//
// Per channel j, with the parameters of channel j (bias, M, s; ls = max(s,0), rs = max(-s,0)):
//   stage 1  x = acc + bias (wrapping); a = x << ls (wrapping); b = M          (operand regs)
//   stage 2  p = a * b, signed 32 x 32 -> 64                                    (DSP product)
//   stage 3  t = SRDHM = (p + 2^30) >>> 31, or INT32_MAX when a = b = INT32_MIN
//   stage 4  y = RoundingDivideByPOT(t, rs) = (t + 2^(rs-1) - [t < 0]) >>> rs (ties away from 0)
//   stage 5  z = y + zp (exact, 33 bits); v = clamp(z, qmin, qmax); sat = (v != z)
//   stage 6  LUT read (address v + 128, registered read in tpu_act_params) and the row's
//            saturation count (popcount of sat); out_int8 = lut ? LUT[v + 128] : v
// The rounding mode round_i (a parameter, as zp_i: tpu_round; with the Round option) changes
// stages 1, 3 and 4:
//   SINGLE   stage 1: a = x (no left shift); stage 3: t = sat32((p + 2^(30-s)) >>> (31-s))
//            (one rounding, ties toward +inf); stage 4 passes t
//   FLOAT    stage 1: a = x rounded to 24 significant bits half to even (fp32(x)), as its
//            signed significand with the bits dropped (d, 0..8) beside it; stage 3: |p|
//            rounded to 24 significant bits half to even (the fp32 product) as q with its
//            exponent E = d + the bits dropped; stage 4: y = sat32(+-round_half_even(q x
//            2^(E + s - 31))), the sign being p's (M >= 0)
//   (numerics.c requantize_float is the same in C.)
// RAW32 rows (in_raw_i): b = 1, ls = rs = 0, stage 3 passes p[31:0], stage 5 passes y, so
//   out_raw_o = acc + bias (wrapping); out_sat_o = 0; out_int8_o is meaningless.
// Non-RAW rows: out_int8_o is the result; out_raw_o holds sign-extended v (not meaningful).
//
// Latency: Latency = 6 cycles from an input transfer to out_valid_o when the output is not
// stalled; throughput one row per cycle.
// LutReg (board option, FPGAs): a stage 7 registers stage 6's outputs and the LUT read data
// (so no path runs from the LUT block RAM's read port through the output mux to the UB write);
// Latency = 7, same results.
// Handshake: a global pipeline enable, en = out_ready_i || !out_valid_o; in_ready_o = en (so
// in_ready_o depends combinationally on out_ready_i). A row transfers on valid && ready.
// out_valid_o never waits on out_ready_i, and the outputs hold steady while stalled. The
// per-row flags in_raw_i, in_lut_i and in_last_i travel with the row (out_last_o marks the
// row that entered with in_last_i).
// Parameters (bias_i .. qmax_i and the LUT behind lut_*) are read at different stages, so they
// must stay stable from the first row's input transfer until the last row's output transfer.
// LUT port (to tpu_act_params): lut_re_o = en when stage 5 holds a valid LUT row, and
// lut_raddr_o[8j+7:8j] = v_j + 128 of that row; lut_rdata_i must be the registered read of that
// address (1 cycle, held while lut_re_o is low), exactly what tpu_act_params provides. The LUT
// is read only for LUT rows, so LUT writes may overlap rows without the LUT (tpu_ram forbids a
// read and a write of one address in the same cycle).
// Bf16 (the float path of a bf16 device, spec 6.12): a row with in_fp_i holds fp32 values and
// runs, in the same stages and latency:
//   stage 1  x = f32_add(acc, bias)   (the bias words read as fp32)
//   stage 2  x = f32_mul(x, scale)    with in_scale_i (OP0.SCALE), else x
//   stage 3  clamp to [fmin, fmax]    with in_clamp_i (OP0.CLAMP): IEEE comparisons, a NaN x
//            stays, sat = the value changed
//   stage 5  r = x (in_raw_i: the fp32 word) or f32_to_bf16(x) in the low 16 bits
// so out_raw_o holds the fp32 words (RAW32) or the bf16 values in each lane's low half, and
// out_sat_o counts the clamped values. The fp steps sit in their registers' `if`, so Verilator
// evaluates them only for fp rows. in_lut_i must be 0 on fp rows.
// A stage's data registers load only when a row enters the stage (an empty stage holds, so
// a simulation evaluates a stage's logic only for rows in flight); no output is meaningful
// without out_valid_o. Reset (synchronous, rst_i) clears the stage valid bits only.
`default_nettype none

module tpu_activation #(
  parameter int unsigned N = 16,     // channels per row (the array width)
  parameter bit          LutReg = 1'b0, // stage 7: registered LUT read data (see above)
  parameter bit          Bf16   = 1'b0, // the float path (see above)
  // the SINGLE and FLOAT roundings (round_i); without them every row rounds as DOUBLE
  // (their logic, about 2.8 k LUT4 a channel on iCE40, is left out: docs/datapath.md)
  parameter bit          Round  = 1'b0
) (
  input  logic                       clk_i,
  input  logic                       rst_i,
  // parameters (from tpu_act_params; stable while rows are in flight)
  input  logic [N*32-1:0]            bias_i,
  input  logic [N*32-1:0]            mult_i,
  input  logic [N*6-1:0]             shift_i,
  input  logic [7:0]                 zp_i,
  input  logic [7:0]                 qmin_i,
  input  logic [7:0]                 qmax_i,
  input  logic [1:0]                 round_i,  // rounding mode (tpu_round; 3 = DOUBLE)
  input  logic [N*32-1:0]            scale_i,  // Bf16: fp32 per channel
  input  logic [31:0]                fmin_i,   // Bf16: the fp32 clamp limits
  input  logic [31:0]                fmax_i,
  // LUT read port (to tpu_act_params)
  output logic                       lut_re_o,
  output logic [N*8-1:0]             lut_raddr_o,
  input  logic [N*8-1:0]             lut_rdata_i,
  // input stream: one accumulator row
  input  logic                       in_valid_i,
  output logic                       in_ready_o,
  input  logic [N*32-1:0]            in_acc_i,
  input  logic                       in_raw_i,
  input  logic                       in_lut_i,
  input  logic                       in_last_i,
  input  logic                       in_fp_i,     // Bf16: a float row
  input  logic                       in_scale_i,  // Bf16: ... multiplied by the scale
  input  logic                       in_clamp_i,  // Bf16: ... clamped
  // output stream: one result row
  output logic                       out_valid_o,
  input  logic                       out_ready_i,
  output logic [N*8-1:0]             out_int8_o,
  output logic [N*32-1:0]            out_raw_o,
  output logic [$clog2(N+1)-1:0]     out_sat_o,
  output logic                       out_last_o
);
  localparam int unsigned LutStage = 6;  // the LUT read data arrives with the row in stage 6
  localparam int unsigned Latency  = LutStage + (LutReg ? 1 : 0);
  localparam int unsigned SatWidth = $clog2(N + 1);
  localparam logic [1:0]  RoundSingle = 2'd1;
  localparam logic [1:0]  RoundFloat  = 2'd2;
  // the mode of the rows in flight (DOUBLE without Round)
  logic rnd_single, rnd_float;
  assign rnd_single = Round && round_i == RoundSingle;
  assign rnd_float  = Round && round_i == RoundFloat;
  if (!Round) begin : g_no_round
    logic unused_round;
    assign unused_round = ^round_i;
  end

  if (N < 1 || N > 256) begin : g_bad_n
    $error("tpu_activation: N must be in 1..256");
  end

  // ---------------------------------------------------------------- pipeline control
  logic en;
  assign en = out_ready_i || !out_valid_o;
  assign in_ready_o = en;

  // Stage k's valid bit and row flags live at index k (1..Latency).
  // RAW32 is read by stages 3..5 (from the stage 2..4 registers); stage 6 treats rows alike.
  logic [Latency:1]   vld_q, vld_d, lut_q, lut_d, last_q, last_d;
  logic [LutStage-2:1] raw_q, raw_d;
  // Bf16: the float row's flags, read by stages 2..5
  logic [LutStage-2:1] fp_q, fp_d, scl_q, scl_d, clp_q, clp_d;

  always_comb begin
    vld_d  = {vld_q[Latency-1:1], in_valid_i};
    raw_d  = {raw_q[LutStage-3:1], in_raw_i};
    fp_d   = {fp_q[LutStage-3:1], Bf16 && in_fp_i};
    scl_d  = {scl_q[LutStage-3:1], in_scale_i};
    clp_d  = {clp_q[LutStage-3:1], in_clamp_i};
    lut_d  = {lut_q[Latency-1:1], in_lut_i};
    last_d = {last_q[Latency-1:1], in_last_i};
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      vld_q <= '0;
    end else if (en) begin
      vld_q <= vld_d;
    end
  end

  always_ff @(posedge clk_i) begin
    if (en) begin
      raw_q  <= raw_d;
      fp_q   <= fp_d;
      scl_q  <= scl_d;
      clp_q  <= clp_d;
      lut_q  <= lut_d;
      last_q <= last_d;
    end
  end

  // ---------------------------------------------------------------- FLOAT rounding helpers
  // v (a magnitude below 2^32) rounded to 24 significant bits, half to even: the significand
  // (up to 2^24 after a carry) and the bits dropped (0..8).
  function automatic logic [24:0] round24(input logic [31:0] v, output logic [3:0] dropped);
    logic [4:0]  msb;
    logic [31:0] low;
    logic [24:0] q;
    logic        guard, sticky;
    msb = '0;
    for (int i = 0; i < 32; i++) begin
      if (v[i]) msb = 5'(i);
    end
    dropped = msb > 5'd23 ? 4'(msb - 5'd23) : 4'd0;
    q      = 25'(v >> dropped);
    low    = v & ((32'd1 << dropped) - 32'd1);
    guard  = dropped != 0 && v[5'(dropped - 4'd1)];
    sticky = dropped > 4'd1 && (low & ((32'd1 << (dropped - 4'd1)) - 32'd1)) != 0;
    round24 = q + 25'(guard && (sticky || q[0]));
  endfunction
  // The same for a magnitude below 2^57 (the product): bits dropped 0..33. (Two sized copies:
  // stage 1 through this wide one measured 631 LUT4 more at N = 4 on iCE40, make synth-round.)
  function automatic logic [24:0] round24_wide(input logic [63:0] v, output logic [5:0] dropped);
    logic [5:0]  msb;
    logic [63:0] low;
    logic [24:0] q;
    logic        guard, sticky;
    msb = '0;
    for (int i = 0; i < 57; i++) begin
      if (v[i]) msb = 6'(i);
    end
    dropped = msb > 6'd23 ? msb - 6'd23 : 6'd0;
    q      = 25'(v >> dropped);
    low    = v & ((64'd1 << dropped) - 64'd1);
    guard  = dropped != 0 && v[dropped - 6'd1];
    sticky = dropped > 6'd1 && (low & ((64'd1 << (dropped - 6'd1)) - 64'd1)) != 0;
    round24_wide = q + 25'(guard && (sticky || q[0]));
  endfunction
  // q x 2^-r rounded to an integer half to even (r in -128..127; q <= 2^24): a left shift for
  // r <= 0 (by at most 39 here: q x 2^39 < 2^64), 0 for r >= 26.
  function automatic logic [63:0] rne_shift(input logic [24:0] q, input logic signed [7:0] r);
    logic [24:0] t, low;
    logic        guard, sticky;
    if (r <= 0) begin
      rne_shift = (r < -8'sd39) ? 64'hffff_ffff_ffff_ffff : 64'(q) << (-r);
    end else if (r >= 8'sd26) begin
      rne_shift = '0;
    end else begin
      t      = q >> r;
      low    = q & ((25'd1 << r) - 25'd1);
      guard  = q[5'(r - 8'sd1)];
      sticky = (low & ((25'd1 << (r - 8'sd1)) - 25'd1)) != 0;
      rne_shift = 64'(t) + 64'(guard && (sticky || t[0]));
    end
  endfunction

  // ---------------------------------------------------------------- per-channel datapath
  logic [N-1:0]    sat5_q;       // stage 5: the clamp changed this channel
  logic [N*32-1:0] r6_q;         // stage 6: result (v sign-extended, or the RAW32 value)

  for (genvar j = 0; j < N; j++) begin : g_ch
    // parameters of channel j
    logic signed [31:0] bias, mult;
    logic signed [5:0]  shift;
    logic [4:0]         ls, rs;
    assign bias  = $signed(bias_i[32*j +: 32]);
    assign mult  = $signed(mult_i[32*j +: 32]);
    assign shift = $signed(shift_i[6*j +: 6]);
    // -32 is not a legal shift; its rs wraps to 0.
    assign ls = shift[5] ? 5'd0 : shift[4:0];
    assign rs = shift[5] ? 5'(-shift) : 5'd0;

    // The integer stages 1..4. Each stage's registers load a row only when the stage before
    // holds one (stage 1: in_valid_i), and the stage's logic sits in that `if`, so Verilator
    // evaluates it only for rows in flight; an empty stage holds, and no output of it is read
    // (out_valid_o qualifies every output).
    //   stage 1: bias add and left shift (operand registers of the multiplier)
    //   stage 2: the 32 x 32 -> 64 product; the one SRDHM overflow case is flagged beside it
    //   stage 3: SRDHM = floor((p + 2^30) / 2^31), ties toward +inf (equal to gemmlowp's nudge
    //            and truncating division); RAW rows pass p = a (b = 1). Bit 63 of the sum equals
    //            bit 62 except in the flagged overflow case; the low bits round away.
    //   stage 4: RoundingDivideByPOT, rounding to nearest with ties away from zero: add
    //            2^(rs-1), less one for negative values, then shift arithmetically (33 bits: no
    //            overflow; for rs4 >= 1 the shifted sum always fits in 32 bits, and for
    //            rs4 = 0, sum4 = t3_q)
    // FLOAT keeps beside them: the bits fp32(x) dropped (d1, d2), and the product's 24-bit
    // significand, sign and exponent (q3, n3, e3).
    logic signed [31:0] a1_q, b1_q, t3_q, y4_q;
    logic signed [63:0] p2_q;
    logic               ovf2_q;
    logic [3:0]         d1_q, d2_q;
    logic [24:0]        q3_q;
    logic               n3_q;
    logic [5:0]         e3_q;
    always_ff @(posedge clk_i) begin
      logic signed [31:0] x1;
      logic [4:0]         rs4;
      logic signed [32:0] rnd4, sum4;
      logic [5:0]         ts3;
      logic signed [63:0] s3, r3;
      logic [24:0]        m1;
      logic [63:0]        mag3;
      logic [3:0]         d1;
      logic [5:0]         e3;
      logic signed [7:0]  r4;
      logic [63:0]        f4;
      if (en && in_valid_i) begin
        x1 = $signed(in_acc_i[32*j +: 32]) + bias;
        b1_q <= in_raw_i ? 32'sd1 : mult;
        d1_q <= '0;
        if (in_raw_i) begin
          a1_q <= x1;
        end else if (rnd_float) begin
          // fp32(x): |x| rounded to 24 significant bits, half to even
          m1 = round24(x1[31] ? 32'(-x1) : 32'(x1), d1);
          a1_q <= x1[31] ? -$signed(32'(m1)) : $signed(32'(m1));
          d1_q <= d1;
        end else if (rnd_single) begin
          a1_q <= x1;
        end else begin
          a1_q <= x1 <<< ls;
        end
      end
      if (en && vld_q[1]) begin
        p2_q   <= a1_q * b1_q;
        ovf2_q <= (a1_q == 32'sh8000_0000) && (b1_q == 32'sh8000_0000);
        d2_q   <= d1_q;
      end
      if (en && vld_q[2]) begin
        if (raw_q[2]) begin
          t3_q <= p2_q[31:0];
        end else if (rnd_float) begin
          // the fp32 product: |p| (< 2^56) rounded to 24 significant bits, half to even
          mag3 = p2_q[63] ? 64'(-p2_q) : 64'(p2_q);
          q3_q <= round24_wide(mag3, e3);
          n3_q <= p2_q[63];
          e3_q <= e3 + 6'(d2_q);
        end else if (rnd_single) begin
          // one rounding: (p + 2^(ts-1)) >>> ts, ts = 31 - s in 1..62, saturated to int32
          ts3  = 6'(7'sd31 - 7'(shift));
          s3   = p2_q + (64'sd1 <<< (ts3 - 6'd1));
          r3   = s3 >>> ts3;
          t3_q <= (r3 > 64'sh7fff_ffff) ? 32'sh7fff_ffff :
                  (r3 < -64'sh8000_0000) ? 32'sh8000_0000 : 32'(r3);
        end else if (ovf2_q) begin
          t3_q <= 32'sh7fff_ffff;
        end else begin
          t3_q <= 32'((p2_q + 64'sh4000_0000) >>> 31);
        end
      end
      if (en && vld_q[3]) begin
        if (!raw_q[3] && rnd_float) begin
          // q x 2^-r4, r4 = 31 - s - E, rounded half to even, signed, saturated to int32
          r4 = 8'sd31 - 8'(shift) - 8'(e3_q);
          f4 = rne_shift(q3_q, r4);
          if (n3_q) begin
            y4_q <= (f4 > 64'h8000_0000) ? 32'sh8000_0000 : -$signed(32'(f4));
          end else begin
            y4_q <= (f4 > 64'h7fff_ffff) ? 32'sh7fff_ffff : $signed(32'(f4));
          end
        end else begin
          rs4 = (raw_q[3] || rnd_single) ? 5'd0 : rs;
          if (rs4 == 5'd0) begin
            rnd4 = '0;
          end else begin
            rnd4 = (33'sd1 <<< (rs4 - 5'd1)) - {32'd0, t3_q[31]};
          end
          sum4 = {t3_q[31], t3_q} + rnd4;
          y4_q <= 32'(sum4 >>> rs4);
        end
      end
    end

    // the float path's stages 1..4 (Bf16): x, its clamp flag
    logic [31:0] f1_q, f2_q, f3_q, f4_q;
    logic        fs3_q, fs4_q;
    if (Bf16) begin : g_fp
      logic [31:0] scale;
      assign scale = scale_i[32*j +: 32];
      always_ff @(posedge clk_i) begin
        if (en && in_fp_i) begin
          f1_q <= tpu_fp_pkg::f32_add(in_acc_i[32*j +: 32], bias_i[32*j +: 32]);
        end
        if (en && fp_q[1]) begin
          f2_q <= scl_q[1] ? tpu_fp_pkg::f32_mul(f1_q, scale) : f1_q;
        end
        if (en && fp_q[2]) begin
          // (x is canonical: every step's result is)
          fs3_q <= 1'b0;
          f3_q  <= f2_q;
          if (clp_q[2] && tpu_fp_pkg::f32_lt(f2_q, fmin_i) && !tpu_fp_pkg::f32_is_nan(f2_q)) begin
            f3_q  <= fmin_i;
            fs3_q <= 1'b1;
          end else if (clp_q[2] && tpu_fp_pkg::f32_lt(fmax_i, f2_q) &&
                       !tpu_fp_pkg::f32_is_nan(f2_q)) begin
            f3_q  <= fmax_i;
            fs3_q <= 1'b1;
          end
        end
        if (en && fp_q[3]) begin
          f4_q  <= f3_q;
          fs4_q <= fs3_q;
        end
      end
    end else begin : g_no_fp
      assign {f1_q, f2_q, f3_q, f4_q, fs3_q, fs4_q} = '0;
    end
    logic unused_fp;
    assign unused_fp = ^{f1_q, f2_q, f3_q, fs3_q};

    // stage 5: + zero point (exact), clamp, saturation flag (a float row: its result);
    // stage 6: the result register (the LUT read of v + 128 happens in parallel). Loaded, as
    // stages 1..4, only with a row.
    logic signed [31:0] r5_q;
    always_ff @(posedge clk_i) begin
      logic signed [32:0] z5, zp5, qmin5, qmax5;
      logic signed [7:0]  v5;
      if (en && vld_q[4]) begin
        zp5   = 33'($signed(zp_i));
        qmin5 = 33'($signed(qmin_i));
        qmax5 = 33'($signed(qmax_i));
        z5    = {y4_q[31], y4_q} + zp5;
        // the golden order: below qmin wins over above qmax
        if (z5 < qmin5) begin
          v5 = $signed(qmin_i);
        end else if (z5 > qmax5) begin
          v5 = $signed(qmax_i);
        end else begin
          v5 = z5[7:0];
        end
        if (fp_q[4]) begin
          sat5_q[j] <= fs4_q;
          r5_q      <= raw_q[4] ? f4_q : {16'd0, tpu_fp_pkg::f32_to_bf16(f4_q)};
        end else begin
          sat5_q[j] <= !raw_q[4] && ((z5 < qmin5) || (z5 > qmax5));
          r5_q      <= raw_q[4] ? y4_q : 32'(v5);
        end
      end
      if (en && vld_q[5]) begin
        r6_q[32*j +: 32] <= r5_q;
      end
    end

    assign lut_raddr_o[8*j +: 8] = r5_q[7:0] ^ 8'h80;
  end

  // ---------------------------------------------------------------- saturation count
  // (stage 6, loaded only with a row as the stages before)
  logic [SatWidth-1:0] sat6_q;
  always_ff @(posedge clk_i) begin
    logic [SatWidth-1:0] count;
    if (en && vld_q[5]) begin
      count = '0;
      for (int unsigned j = 0; j < N; j++) begin
        count = count + SatWidth'(sat5_q[j]);
      end
      sat6_q <= count;
    end
  end

  // ---------------------------------------------------------------- output (stage 6 or 7)
  logic [N*32-1:0]     r_out;     // the last stage's result
  logic [N*8-1:0]      lut_out;   // the LUT read data of the last stage's row
  logic [SatWidth-1:0] sat_out;
  if (LutReg) begin : g_lut_reg
    // stage 7: stage 6's result and count, and the LUT read data of stage 6's row (held by
    // tpu_act_params while lut_re_o is low, so a stall keeps it)
    always_ff @(posedge clk_i) begin
      if (en) begin
        r_out   <= r6_q;
        lut_out <= lut_rdata_i;
        sat_out <= sat6_q;
      end
    end
  end else begin : g_lut_direct
    assign r_out   = r6_q;
    assign lut_out = lut_rdata_i;
    assign sat_out = sat6_q;
  end
  for (genvar j = 0; j < N; j++) begin : g_out
    assign out_int8_o[8*j +: 8] = lut_q[Latency] ? lut_out[8*j +: 8] : r_out[32*j +: 8];
  end
  assign out_raw_o = r_out;
  assign out_sat_o = sat_out;

  assign lut_re_o    = en && vld_q[LutStage-1] && lut_q[LutStage-1];
  // (the scale flag is read in stage 2 only, the clamp flag in stage 3)
  logic unused_fp_flags;
  assign unused_fp_flags = ^{scl_q[LutStage-2:2], clp_q[LutStage-2:3]};
  if (!Bf16) begin : g_no_fp_ports
    logic unused_fp_ports;
    assign unused_fp_ports = ^{scale_i, fmin_i, fmax_i, in_fp_i, fp_q, scl_q, clp_q};
  end
  assign out_valid_o = vld_q[Latency];
  assign out_last_o  = last_q[Latency];

`ifndef SYNTHESIS
  // ---------------------------------------------------------------- handshake assertions
  // Previous-cycle copies (Verilator and Yosys 0.23 differ in their $past support).
  logic            past_ok_q, in_stall_q, out_stall_q;
  logic [N*32-1:0] past_in_acc_q;
  logic [2:0]      past_in_flags_q;
  logic [N*8-1:0]  past_out_int8_q;
  logic [N*32-1:0] past_out_raw_q;
  logic [SatWidth-1:0] past_out_sat_q;
  logic            past_out_last_q;
  always_ff @(posedge clk_i) begin
    past_ok_q       <= !rst_i;
    in_stall_q      <= in_valid_i && !in_ready_o;
    out_stall_q     <= out_valid_o && !out_ready_i;
    // (the copies are read only after a stall: taken only then)
    if (in_valid_i && !in_ready_o) begin
      past_in_acc_q   <= in_acc_i;
      past_in_flags_q <= {in_raw_i, in_lut_i, in_last_i};
    end
    if (out_valid_o && !out_ready_i) begin
      past_out_int8_q <= out_int8_o;
      past_out_raw_q  <= out_raw_o;
      past_out_sat_q  <= out_sat_o;
      past_out_last_q <= out_last_o;
    end
  end
  always_ff @(posedge clk_i) begin
    if (!rst_i && past_ok_q && in_stall_q) begin
      // upstream rule: valid is not withdrawn and the row holds while stalled
      assert (in_valid_i)
        else $error("tpu_activation: in_valid_i dropped while in_ready_o was low");
      assert (in_acc_i == past_in_acc_q && {in_raw_i, in_lut_i, in_last_i} == past_in_flags_q)
        else $error("tpu_activation: input row changed while stalled");
    end
    if (!rst_i && past_ok_q && out_stall_q) begin
      // our own rule on the output
      assert (out_valid_o)
        else $error("tpu_activation: out_valid_o dropped while out_ready_i was low");
      assert (out_int8_o == past_out_int8_q && out_raw_o == past_out_raw_q
              && out_sat_o == past_out_sat_q && out_last_o == past_out_last_q)
        else $error("tpu_activation: output row changed while stalled");
    end
  end
`endif
endmodule

`default_nettype wire
