// tpu_fp_pkg: the bf16 x bf16 -> fp32 arithmetic of the mixed-precision mode as functions
// (docs/spec.md 7.1; the C reference is sw/golden/bf16.c, and tests/rtl/test_fp_units.c checks
// these against it). Values are bit patterns: bf16 1-8-7, fp32 1-8-23.
//
// Each function is one combinational block: unpack, align with guard/round/sticky bits, add or
// subtract, normalize, round to nearest even, pack; subnormals read and flush as signed zeros,
// every NaN is the canonical one. They are functions rather than modules so that a register
// updated as `if (bf16) q <= f32_add(..)` costs Verilator nothing on the cycles it is not
// taken (the int8 rows of a bf16-capable array); synthesis builds the same logic either way.
`default_nettype none

package tpu_fp_pkg;
  localparam logic [31:0] F32CanonNan = 32'h7FC0_0000;
  localparam logic [30:0] F32InfMag = 31'h7F80_0000;

  // An operand as every operation reads it: subnormal -> zero of its sign, NaN -> canonical.
  function automatic logic [31:0] f32_canon(input logic [31:0] x);
    if (x[30:23] == 8'd0) begin
      f32_canon = {x[31], 31'd0};
    end else if (x[30:23] == 8'hFF && x[22:0] != 23'd0) begin
      f32_canon = F32CanonNan;
    end else begin
      f32_canon = x;
    end
  endfunction

  function automatic logic f32_is_nan(input logic [31:0] x);
    logic unused_sign;
    unused_sign = x[31];
    f32_is_nan = (x[30:0] > F32InfMag);
  endfunction

  function automatic logic [31:0] bf16_to_f32(input logic [15:0] a);
    bf16_to_f32 = f32_canon({a, 16'd0});
  endfunction

  // fp32 -> bf16, nearest even on the low 16 bits after the input rules (a NaN is canonical
  // first, so its low half is 0 and it passes through as 0x7FC0; the largest finite rounds
  // to infinity; the 16-bit sum never carries into the sign).
  function automatic logic [15:0] f32_to_bf16(input logic [31:0] x);
    logic [31:0] c;
    logic        up;
    c  = f32_canon(x);
    up = c[15] & ((c[14:0] != 15'd0) | c[16]);
    f32_to_bf16 = c[31:16] + {15'd0, up};
  endfunction

  // Round a significand with its leading 1 at bit 26 and 3 guard/round/sticky bits below the
  // fp32 LSB to 24 bits (nearest even) and pack it with the biased exponent e (signed).
  // e <= 0 only reaches here for exact results (spec 7.1 "Where flushing happens").
  function automatic logic [31:0] round_pack(input logic sign, input logic signed [9:0] e,
                                             input logic [26:0] sig);
    logic [24:0]        m;
    logic signed [9:0]  ee;
    logic               up;
    up = sig[2] & (sig[1] | sig[0] | sig[3]);
    m  = {1'b0, sig[26:3]} + {24'd0, up};
    ee = e;
    if (m[24]) begin
      // 1.11..1 + ulp = 10.00..0: the bit shifted out is 0
      m  = m >> 1;
      ee = ee + 10'sd1;
    end
    if (ee >= 10'sd255) begin
      round_pack = {sign, F32InfMag};
    end else if (ee <= 10'sd0) begin
      round_pack = {sign, 31'd0};
    end else begin
      round_pack = {sign, ee[7:0], m[22:0]};
    end
  endfunction

  // fp32 a + b, one rounding to nearest even (spec 7.1 "Addition", "Signed zeros").
  function automatic logic [31:0] f32_add(input logic [31:0] a, input logic [31:0] b);
    logic [31:0]       x, y, t;
    logic [7:0]        d;
    logic [26:0]       sx, sy, lost;
    logic [27:0]       s;
    logic signed [9:0] e;
    logic [4:0]        lz;
    x = f32_canon(a);
    y = f32_canon(b);
    f32_add = F32CanonNan;
    if (f32_is_nan(x) || f32_is_nan(y)) begin
      f32_add = F32CanonNan;
    end else if (x[30:0] == F32InfMag || y[30:0] == F32InfMag) begin
      if (x[30:0] == y[30:0] && x[31] != y[31]) begin
        f32_add = F32CanonNan;  // inf + -inf
      end else begin
        f32_add = (x[30:0] == F32InfMag) ? x : y;
      end
    end else if (y[30:0] == 31'd0) begin
      f32_add = (x[30:0] == 31'd0) ? (x & y) : x;  // +0 + -0 = +0, -0 + -0 = -0
    end else if (x[30:0] == 31'd0) begin
      f32_add = y;
    end else begin
      // both normal: |x| >= |y| after the swap (integer order of magnitudes), x's sign wins
      if (x[30:0] < y[30:0]) begin
        t = x;
        x = y;
        y = t;
      end
      e  = 10'(x[30:23]);
      d  = x[30:23] - y[30:23];
      sx = {1'b1, x[22:0], 3'b000};
      sy = {1'b1, y[22:0], 3'b000};
      // align y with a sticky bit: every bit shifted out ORed into bit 0
      if (d >= 8'd27) begin
        sy = 27'd1;
      end else begin
        lost = sy & ((27'd1 << d) - 27'd1);
        sy   = (sy >> d) | 27'(lost != 27'd0);
      end
      if (x[31] != y[31]) begin
        s = {1'b0, sx} - {1'b0, sy};
        // cancellation: move the leading 1 back to bit 26 (exact when it moves far)
        lz = 5'd0;
        for (int i = 0; i <= 26; i++) begin
          if (s[i]) begin
            lz = 5'(26 - i);
          end
        end
        s = s << lz;
        e = e - 10'(lz);
      end else begin
        s = {1'b0, sx} + {1'b0, sy};
        if (s[27]) begin
          // carry out: one right shift, the lost bit joins the sticky
          s = {1'b0, s[27:2], s[1] | s[0]};
          e = e + 10'sd1;
        end
      end
      if (s == 28'd0) begin
        f32_add = 32'd0;  // x + -x = +0
      end else begin
        f32_add = round_pack(x[31], e, s[26:0]);
      end
    end
  endfunction

  // The products of special operands (x, y after the input rules): {1, result} for a NaN or
  // 0 x inf (the canonical NaN), inf x non-zero (inf), zero x finite (zero), each with the sign
  // of the product; {0, -} when both are normal numbers.
  function automatic logic [32:0] mul_special(input logic [31:0] x, input logic [31:0] y);
    logic sign;
    sign = x[31] ^ y[31];
    if (f32_is_nan(x) || f32_is_nan(y)) begin
      mul_special = {1'b1, F32CanonNan};
    end else if (x[30:0] == F32InfMag || y[30:0] == F32InfMag) begin
      mul_special = {1'b1, (x[30:0] == 31'd0 || y[30:0] == 31'd0) ? F32CanonNan
                                                                  : {sign, F32InfMag}};
    end else if (x[30:0] == 31'd0 || y[30:0] == 31'd0) begin
      mul_special = {1'b1, sign, 31'd0};
    end else begin
      mul_special = {1'b0, 32'd0};
    end
  endfunction

  // bf16 a * b as fp32: exact (8 x 8-bit significands), only range checks (spec 7.1 "Product").
  function automatic logic [31:0] bf16_mul(input logic [15:0] a, input logic [15:0] b);
    logic [31:0]       x, y;
    logic              sign;
    logic [15:0]       p;
    logic signed [9:0] e;
    logic [32:0]       sp;
    x    = bf16_to_f32(a);
    y    = bf16_to_f32(b);
    sign = x[31] ^ y[31];
    sp   = mul_special(x, y);
    if (sp[32]) begin
      bf16_mul = sp[31:0];
    end else begin
      p = {8'd0, 1'b1, x[22:16]} * {8'd0, 1'b1, y[22:16]};
      e = 10'(x[30:23]) + 10'(y[30:23]) - 10'sd127;
      if (p[15]) begin
        e = e + 10'sd1;  // [2, 4): the leading 1 is at bit 15 already
      end else begin
        p = p << 1;
      end
      // exact: nothing below the kept bits, so round_pack only does the range checks
      bf16_mul = round_pack(sign, e, {p, 11'd0});
    end
  endfunction

  // fp32 a * b (ACTIVATE's SCALE, spec 6.12): one rounding to nearest even; an exact |p| <
  // 2^-126 gives the zero of its sign (before rounding: a product just below 2^-126 that would
  // round up to it is still flushed), a rounded |p| >= 2^128 infinity.
  function automatic logic [31:0] f32_mul(input logic [31:0] a, input logic [31:0] b);
    logic [31:0]       x, y;
    logic              sign;
    logic [47:0]       p;
    logic signed [9:0] e;
    logic [32:0]       sp;
    x    = f32_canon(a);
    y    = f32_canon(b);
    sign = x[31] ^ y[31];
    sp   = mul_special(x, y);
    if (sp[32]) begin
      f32_mul = sp[31:0];
    end else begin
      p = {24'd0, 1'b1, x[22:0]} * {24'd0, 1'b1, y[22:0]};
      e = 10'(x[30:23]) + 10'(y[30:23]) - 10'sd127;
      if (p[47]) begin
        e = e + 10'sd1;  // [2, 4): the leading 1 is at bit 47 already
      end else begin
        p = p << 1;
      end
      if (e <= 10'sd0) begin
        f32_mul = {sign, 31'd0};  // exact value below 2^-126
      end else begin
        // 24 kept bits, guard, round, and the sticky OR of the 22 below
        f32_mul = round_pack(sign, e, {p[47:22], p[21:0] != 22'd0});
      end
    end
  endfunction

  // IEEE a < b of two fp32 after the input rules, neither a NaN (the clamp's comparison):
  // -0 and +0 are equal.
  function automatic logic f32_lt(input logic [31:0] a, input logic [31:0] b);
    logic [31:0] x, y;
    x = f32_canon(a);
    y = f32_canon(b);
    if (x[30:0] == 31'd0 && y[30:0] == 31'd0) begin
      f32_lt = 1'b0;
    end else if (x[31] != y[31]) begin
      f32_lt = x[31];
    end else if (x[31]) begin
      f32_lt = x[30:0] > y[30:0];
    end else begin
      f32_lt = x[30:0] < y[30:0];
    end
  endfunction

  // One PE step: acc + a * b with the product's range step and the addition's one rounding.
  function automatic logic [31:0] bf16_mac(input logic [31:0] acc, input logic [15:0] a,
                                           input logic [15:0] b);
    bf16_mac = f32_add(acc, bf16_mul(a, b));
  endfunction
endpackage

`default_nettype wire
