// tpu_act_serial: a small, multi-cycle implementation of the activation (docs/spec.md 6.7 and
// 7) for FPGAs without spare multipliers: Lanes channels at a time, each with a shift-add
// 32 x 32 multiplier (one bit per cycle) and one-bit-per-cycle shifters, instead of N
// pipelined 32 x 32 multipliers. Selected by tpu_act_unit / tpu_datapath with ActLanes < N.
// Results are bit-identical to tpu_activation (same ports, same per-channel arithmetic):
//   x = acc + bias (wrapping); a = x << ls (wrapping); b = M; p = a * b (64 bits);
//   t = SRDHM = (p + 2^30) >>> 31, INT32_MAX when a = b = INT32_MIN;
//   y = (t + 2^(rs-1) - [t < 0]) >>> rs; z = y + zp; v = clamp(z, qmin, qmax); sat = (v != z);
//   out_int8 = lut ? LUT[v + 128] : v. RAW32 rows: b = 1, ls = rs = 0, t = p[31:0], out = y.
//
// One row at a time: in_ready_o = no row held. An accepted row is processed in N / Lanes
// groups of Lanes channels, each group in phases X (bias add, two cycles), L (left shift, one
// bit per cycle), M (32 multiply steps, two cycles each), T (SRDHM), P (the rounding term, registered: keeps its
// decode off the adder's path), R (rounding add, two cycles), S (right shift, one bit per
// cycle), Z (+ zero point, two cycles), K (whether z is an int8 value and its int8 compares
// with qmin/qmax, registered), C (the compare results, registered: keeps the 33-bit compares
// off the clamp's path), V (clamp; the group's results replace its inputs), then the row's
// LUT read (phase U) and the output (phase O). The adds of X, R and Z (32/33 bits) and of each
// multiply step (34 bits) are split at bit 16 (17): the low half's carry is registered every
// cycle, and the operands hold for two cycles, so the second cycle's sum is the whole sum (no
// carry chain longer than 17 bits between two flip-flops). Latency per row: the sum over the
// groups of 77 + max ls + max rs of the group, + 2 cycles (about 310..434 at N = 4, Lanes = 1).
// Output: out_valid_o holds the row until out_ready_i; the outputs hold steady meanwhile; the
// next row is accepted the cycle after the transfer.
// LUT port: as tpu_activation (lut_re_o for one cycle in phase U of a LUT row, addresses v+128,
// lut_rdata_i the registered read, held while lut_re_o is low).
// LutReg (board option, FPGAs): the LUT read data is registered before the output mux (so no
// path runs from the LUT block RAM's read port through the mux to the UB write); a LUT row
// spends one more cycle (phase W, between U and O), other rows none; same results.
// Parameters must stay stable from the input transfer until the output transfer.
// ChanRam = 1 (Lanes = 1 only): bias, multiplier and shift come from tpu_act_params' channel
// read port instead of bias_i/mult_i/shift_i: channel c is read (par_re_o, par_addr_o = c) when
// the row is accepted (c = 0) or in phase V of channel c - 1, and used in phase X of channel c.
// ParOutReg (board option, FPGAs): tpu_act_params reads through its block RAMs' output
// registers (latency 2): with ChanRam each channel spends one more cycle (phase Y, before its
// phase X: the read of accept / phase V arrives in X), and a LUT row's data is taken in
// phase O two cycles after its read in U (phase W as with LutReg, without LutReg's register:
// the RAM's output register is it). Same results.
// Reset (synchronous, rst_i) clears the FSM only.
`default_nettype none

module tpu_act_serial #(
  parameter int unsigned N     = 4,  // channels per row (the array width)
  parameter int unsigned Lanes = 1,  // channels processed together; divides N, < N
  parameter int unsigned ChanRam = 0, // per-channel parameters from the channel read port
  parameter bit          LutReg = 1'b0, // registered LUT read data (phase W, see above)
  parameter bit          ParOutReg = 1'b0 // parameter reads with latency 2 (see above)
) (
  input  logic                   clk_i,
  input  logic                   rst_i,
  // parameters (from tpu_act_params; stable while a row is in flight)
  input  logic [N*32-1:0]        bias_i,
  input  logic [N*32-1:0]        mult_i,
  input  logic [N*6-1:0]         shift_i,
  input  logic [7:0]             zp_i,
  input  logic [7:0]             qmin_i,
  input  logic [7:0]             qmax_i,
  // channel read port of tpu_act_params (ChanRam; registered read)
  output logic                   par_re_o,
  output logic [GrpW-1:0]        par_addr_o,
  input  logic [31:0]            par_bias_i,
  input  logic [31:0]            par_mult_i,
  input  logic [5:0]             par_shift_i,
  // LUT read port (to tpu_act_params)
  output logic                   lut_re_o,
  output logic [N*8-1:0]         lut_raddr_o,
  input  logic [N*8-1:0]         lut_rdata_i,
  // input stream: one accumulator row
  input  logic                   in_valid_i,
  output logic                   in_ready_o,
  input  logic [N*32-1:0]        in_acc_i,
  input  logic                   in_raw_i,
  input  logic                   in_lut_i,
  input  logic                   in_last_i,
  // output stream: one result row
  output logic                   out_valid_o,
  input  logic                   out_ready_i,
  output logic [N*8-1:0]         out_int8_o,
  output logic [N*32-1:0]        out_raw_o,
  output logic [$clog2(N+1)-1:0] out_sat_o,
  output logic                   out_last_o
);
  localparam int unsigned Groups   = N / Lanes;
  localparam int unsigned GrpW     = (Groups > 1) ? $clog2(Groups) : 1;
  localparam int unsigned SatWidth = $clog2(N + 1);
  localparam int unsigned LW       = Lanes * 32;

  if (Lanes < 1 || Lanes >= N || N % Lanes != 0) begin : g_bad_lanes
    $error("tpu_act_serial: Lanes must divide N and be below N");
  end
  if (ChanRam != 0 && Lanes != 1) begin : g_bad_chan_ram
    $error("tpu_act_serial: ChanRam needs Lanes = 1");
  end

  typedef enum logic [3:0] {
    PhIdle, PhX, PhL, PhM, PhT, PhP, PhR, PhS, PhZ, PhK, PhC, PhV, PhU, PhW, PhO, PhY
  } phase_e;
  // phase Y (ParOutReg with ChanRam): one cycle before each phase X
  localparam bit WaitPar = ParOutReg && ChanRam != 0;
  // phase W: a LUT row's data is two cycles after its read
  localparam bit LutWait = LutReg || ParOutReg;

  phase_e              ph_q, ph_d;
  logic [GrpW-1:0]     grp_q, grp_d;
  logic [4:0]          cnt_q, cnt_d;
  logic                m_sub_d;       // the next cycle is phase M's last step (cnt 31)
  logic                m_rnd_d;       // ... its step 30 (where SRDHM's 2^30 is added)
  logic                ph_m_q;        // ph_q == PhM, as a flip-flop of its own (hm_q's enable)
  logic                ph_x_q;        // ph_q == PhX, likewise (a_q's last mux)
  logic                hf_q;          // second cycle of phase X, R, Z or of a multiply step
  logic                raw_q, lut_q, last_q;
  logic [N*32-1:0]     row_q;         // inputs; each group's results replace its inputs
  logic [SatWidth-1:0] sat_q;
  logic [Lanes-1:0]    lane_busy;     // this lane still shifts in phase L / S
  logic [Lanes-1:0]    lane_sat;      // this lane's clamp changed the value (phase V)
  logic [LW-1:0]       lane_res;      // this group's results (phase V)
  logic                accept;

  assign accept = in_valid_i && ph_q == PhIdle;

  // ---------------------------------------------------------------- FSM
  always_comb begin
    ph_d  = ph_q;
    grp_d = grp_q;
    cnt_d = cnt_q + 5'd1;
    unique case (ph_q)
      PhIdle: if (accept) ph_d = WaitPar ? PhY : PhX;
      PhY:    ph_d = PhX;
      PhX:    if (hf_q) begin ph_d = PhL; cnt_d = '0; end
      PhL:    if (lane_busy == '0) begin ph_d = PhM; cnt_d = '0; end
      PhM:    begin
        if (!hf_q) cnt_d = cnt_q;  // one step per two cycles
        if (hf_q && cnt_q == 5'd31) ph_d = PhT;
      end
      PhT:    ph_d = PhP;
      PhP:    ph_d = PhR;
      PhR:    if (hf_q) begin ph_d = PhS; cnt_d = '0; end
      PhS:    if (lane_busy == '0) ph_d = PhZ;
      PhZ:    if (hf_q) ph_d = PhK;
      PhK:    ph_d = PhC;
      PhC:    ph_d = PhV;
      PhV:    begin
        if (grp_q == GrpW'(Groups - 1)) begin
          ph_d = PhU;
        end else begin
          ph_d  = WaitPar ? PhY : PhX;
          grp_d = grp_q + 1'b1;
        end
      end
      PhU:    ph_d = (LutWait && lut_q) ? PhW : PhO;
      PhW:    ph_d = PhO;
      PhO:    if (out_ready_i) ph_d = PhIdle;
      default: ph_d = PhIdle;
    endcase
    if (accept) begin
      grp_d = '0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      ph_q   <= PhIdle;
      ph_m_q <= 1'b0;
      ph_x_q <= 1'b0;
      hf_q   <= 1'b0;
    end else begin
      // phases X, R and Z and each multiply step last two cycles (hf_q low, then high)
      hf_q   <= (ph_q == PhX || ph_q == PhR || ph_q == PhZ || ph_q == PhM) && !hf_q;
      ph_q   <= ph_d;
      // = (ph_d == PhM), written without the rest of the FSM
      ph_m_q <= (ph_q == PhL && lane_busy == '0) || (ph_q == PhM && !(hf_q && cnt_q == 5'd31));
      // = (ph_d == PhX)
      ph_x_q <= (WaitPar ? ph_q == PhY
                         : accept || (ph_q == PhV && grp_q != GrpW'(Groups - 1))) ||
                (ph_q == PhX && !hf_q);
    end
  end

  logic [SatWidth-1:0] grp_sat;
  always_comb begin
    grp_sat = '0;
    for (int unsigned l = 0; l < Lanes; l++) begin
      grp_sat = grp_sat + SatWidth'(lane_sat[l]);
    end
  end

  // phase M counts 0..31 one by one from phase L (one step per two cycles), so cnt_q == 31
  // there exactly when the cycle before was phase M's second cycle with cnt_q == 30 (the
  // next step's operand is registered in a step's second cycle and held in its first)
  assign m_sub_d = ph_q == PhM && cnt_q == 5'd30;
  assign m_rnd_d = ph_q == PhM && cnt_q == 5'd29;

  always_ff @(posedge clk_i) begin
    grp_q <= grp_d;
    cnt_q <= cnt_d;
    if (accept) begin
      row_q  <= in_acc_i;
      raw_q  <= in_raw_i;
      lut_q  <= in_lut_i;
      last_q <= in_last_i;
      sat_q  <= '0;
    end else if (ph_q == PhV) begin
      // the group's results enter at the top; the next group's inputs move to the bottom
      row_q <= {lane_res, row_q[N*32-1:LW]};
      sat_q <= sat_q + grp_sat;
    end
  end

  // ---------------------------------------------------------------- lanes
  for (genvar l = 0; l < Lanes; l++) begin : g_lane
    // parameters of this lane's channel in the current group
    logic signed [31:0] bias, mult;
    logic signed [5:0]  shift;
    logic [4:0]         ls, rs;
    always_comb begin
      if (ChanRam != 0) begin
        // read for this channel one cycle before phase X (ParOutReg: two, phase Y between)
        bias  = $signed(par_bias_i);
        mult  = $signed(par_mult_i);
        shift = $signed(par_shift_i);
      end else begin
        bias  = $signed(bias_i[32*l +: 32]);
        mult  = $signed(mult_i[32*l +: 32]);
        shift = $signed(shift_i[6*l +: 6]);
        for (int unsigned g = 1; g < Groups; g++) begin
          if (grp_q == GrpW'(g)) begin
            bias  = $signed(bias_i[32*(g*Lanes+l) +: 32]);
            mult  = $signed(mult_i[32*(g*Lanes+l) +: 32]);
            shift = $signed(shift_i[6*(g*Lanes+l) +: 6]);
          end
        end
      end
      // -32 is not a legal shift; its rs wraps to 0 (as in tpu_activation)
      ls = (raw_q || shift[5]) ? 5'd0 : shift[4:0];
      rs = (raw_q || !shift[5]) ? 5'd0 : 5'(-shift);
    end

    // ls_q/rs_q: the shifts, registered in phase X (keeps the parameter mux off the later
    // phases' paths); a_q: x, then a (shifted), then t, then y; hm_q/lo_q: the product (+ 2^30,
    // SRDHM's rounding), hi_q: the rounded sum, then z
    logic [4:0]         ls_q, rs_q;
    logic signed [31:0] a_q, a_d, a_x;
    logic signed [32:0] hm_q, hi_q, hi_new;
    logic               hi_we;
    // the next multiply step's operand (a, inverted for bit 31 of b, or 0) and carry in
    // (bit 31: the +1 of the two's complement; step 30: 2^30 of SRDHM), from flip-flops
    logic [33:0]        op_q;
    logic               cin_q, m_bit;
    logic [31:0]        lo_q, lo_d;
    logic               ovf_q, ovf_d;
    logic               lt_q, gt_q;   // z < qmin, z > qmax (phase C)
    logic               in8_q;        // z is an int8 value (phase K)
    // z[7:0] < qmin, > qmax as int8 values, registered in phase K in nibbles (a signed compare
    // of the high nibbles, their equality, an unsigned compare of the low ones: two LUT levels,
    // no carry chain) and combined in phase C
    logic               lt_h_q, eqn_h_q, lt_l_q, gt_h_q, eqx_h_q, gt_l_q;
    logic               lt8, gt8;
    // the split adds (see the header): the low half's carry out, registered every cycle
    logic [16:0]        rsum_lo, ax_lo;
    logic               rsum_c_q, ax_c_q;
    logic signed [33:0] step;
    logic [17:0]        step_lo;      // the step's bits 16..0 and the carry into bit 17
    logic               step_c_q;     // step_lo's carry, registered (the step's second cycle)
    logic [31:0]        rnd;          // the rounding term (below 2^31: rs <= 31)
    logic signed [32:0] rsum;         // phases R and Z: a + (rnd or the zero point)
    logic               in8;          // hi_q (z) is an int8 value
    logic signed [7:0]  v;
    logic               sat, busy;
    // busy in phases L and S (cnt_q < ls_q, cnt_q < rs_q) as a flip-flop, decided a cycle
    // ahead from a down-counter of the shift steps left (sh_q = ls_q - cnt_q in phase L,
    // rs_q - cnt_q in phase S, held at 0): no compare feeds the phase logic and the enables
    logic               busy_q, busy_d;
    logic [4:0]         sh_q;

    always_comb begin
      a_d   = a_q;
      lo_d  = lo_q;
      ovf_d = ovf_q;
      // multiply step: add a (bit 31 of b: subtract, b is two's complement), shift right
      // (hm + (a xor s) + s, s = subtract, operand 0 when lo_q[0] is 0; the operand and the
      // carry in are registered one step ahead, op_q/cin_q)
      step_lo = 18'(hm_q[16:0]) + 18'(op_q[16:0]) + 18'(cin_q);
      step    = {17'({hm_q[32], hm_q[32:17]}) + op_q[33:17] + 17'(step_c_q), step_lo[16:0]};
      // 2^(rs-1) - [t < 0] without a subtraction: bit rs-1 for t >= 0, bits below it for t < 0
      for (int unsigned k = 0; k < 32; k++) begin
        rnd[k] = rs_q != 5'd0 && (a_q[31] ? 6'(k) + 6'd1 < 6'(rs_q) : 6'(k) + 6'd1 == 6'(rs_q));
      end
      // one adder for R (t + rnd) and Z (y + zp; RAW32: y + 0), its operand in lo_q (written in
      // phases P and S; rnd < 2^31, so sign-extending lo_q is right for both)
      rsum_lo = 17'(a_q[15:0]) + 17'(lo_q[15:0]);
      rsum    = {17'($signed(a_q[31:16])) + 17'($signed(lo_q[31:16])) + 17'(rsum_c_q),
                 rsum_lo[15:0]};
      in8   = hi_q[32:7] == '0 || hi_q[32:7] == '1;
      lt8   = lt_h_q || (eqn_h_q && lt_l_q);
      gt8   = gt_h_q || (eqx_h_q && gt_l_q);
      // clamp of z (held in hi_q in phases C and V); below qmin wins over above qmax
      if (lt_q) begin
        v = $signed(qmin_i);
      end else if (gt_q) begin
        v = $signed(qmax_i);
      end else begin
        v = hi_q[7:0];
      end
      sat = !raw_q && (lt_q || gt_q);
      busy = 1'b0;
      unique case (ph_q)
        PhX: begin
          // (a_d = a_x, below)
          lo_d = raw_q ? 32'd1 : mult;
        end
        PhL: begin
          busy = busy_q;
          if (busy) a_d = a_q <<< 1;
        end
        PhM: begin
          if (cnt_q == 5'd0) ovf_d = a_q == 32'sh8000_0000 && lo_q == 32'h8000_0000;
          if (hf_q) lo_d = {step[0], lo_q[31:1]};
        end
        PhT: begin
          // SRDHM: (p + 2^30) >> 31; the 2^30 was added in step 30 (not for RAW32 rows)
          if (raw_q) begin
            a_d = lo_q;
          end else if (ovf_q) begin
            a_d = 32'sh7fff_ffff;
          end else begin
            a_d = {hm_q[30:0], lo_q[31]};
          end
        end
        PhP: lo_d = rnd;              // registered: the rounding term off the adder's path
        PhS: begin
          busy = busy_q;
          if (!busy) a_d = hi_q[31:0];
          lo_d = raw_q ? 32'd0 : 32'($signed(zp_i));
        end
        default: begin
        end
      endcase
      // hm_q: cleared in phase L, the multiply step in M (the clear and the hold are the
      // flip-flop's reset and enable: nothing follows the carry chain). hi_q: R, Z: the shared
      // adder (t + rnd in 33 bits: no overflow; y + zp); S: shifted right (while busy).
      hi_new = (ph_q == PhS) ? hi_q >>> 1 : rsum;
      hi_we  = ph_q == PhR || ph_q == PhZ || (ph_q == PhS && busy);
      ax_lo  = 17'(row_q[32*l +: 16]) + 17'(bias[15:0]);
      a_x    = {row_q[32*l+16 +: 16] + bias[31:16] + 16'(ax_c_q), ax_lo[15:0]};
      // the next step's multiplier bit: lo_q shifts right in phase M, holds in phase L
      m_bit  = ph_q == PhM ? lo_q[1] : lo_q[0];
      // busy in the next cycle: phases L and S start with cnt 0 (from X and R) and count up
      // by one while they last (the other phases do not read busy_q)
      unique case (ph_q)
        PhX:      busy_d = ls != 5'd0;
        PhR:      busy_d = rs_q != 5'd0;
        PhL, PhS: busy_d = sh_q[4:1] != 4'd0;
        default:  busy_d = 1'b0;
      endcase
    end

    always_ff @(posedge clk_i) begin
      if (ph_q == PhX) begin
        ls_q <= ls;
        rs_q <= rs;
      end
      if (ph_q == PhX) begin
        sh_q <= ls;
      end else if (ph_q == PhR) begin
        sh_q <= rs_q;
      end else if ((ph_q == PhL || ph_q == PhS) && sh_q != 5'd0) begin
        sh_q <= sh_q - 5'd1;
      end
      if (ph_q == PhK) begin
        in8_q   <= in8;
        lt_h_q  <= $signed(hi_q[7:4]) < $signed(qmin_i[7:4]);
        eqn_h_q <= hi_q[7:4] == qmin_i[7:4];
        lt_l_q  <= hi_q[3:0] < qmin_i[3:0];
        gt_h_q  <= $signed(hi_q[7:4]) > $signed(qmax_i[7:4]);
        eqx_h_q <= hi_q[7:4] == qmax_i[7:4];
        gt_l_q  <= hi_q[3:0] > qmax_i[3:0];
      end
      if (ph_q == PhC) begin
        // z < qmin, z > qmax: an int8 compare when z is an int8 value, else z's sign decides
        // (qmin, qmax are int8): no 33-bit compares (hi_q holds z from phase Z to V)
        lt_q <= in8_q ? lt8 : hi_q[32];
        gt_q <= in8_q ? gt8 : !hi_q[32];
      end
      // the split adds' carries (used in the second cycle of X, R, Z; the operands hold)
      rsum_c_q <= rsum_lo[16];
      ax_c_q   <= ax_lo[16];
      // phase X's add (x = acc + bias) enters through the last 2:1 mux only
      a_q   <= ph_x_q ? a_x : a_d;
      if (ph_q == PhL) begin
        hm_q <= '0;
      end else if (ph_m_q && hf_q) begin
        hm_q <= step[33:1];
      end
      if (hi_we) begin
        hi_q <= hi_new;
      end
      // (a_q holds from the last cycle of phase L through phase M; held in a step's first cycle)
      if (!(ph_q == PhM && !hf_q)) begin
        op_q  <= (34'(a_q) ^ {34{m_sub_d}}) & {34{m_bit}};
        cin_q <= (m_sub_d && m_bit) || (m_rnd_d && !raw_q);
      end
      step_c_q <= step_lo[17];
      lo_q  <= lo_d;
      ovf_q <= ovf_d;
      busy_q <= busy_d;
    end
`ifndef SYNTHESIS
    always_ff @(posedge clk_i) begin
      if (!rst_i && ph_q == PhC) begin
        assert (in8_q == in8 && lt8 == ($signed(hi_q[7:0]) < $signed(qmin_i)) &&
                gt8 == ($signed(hi_q[7:0]) > $signed(qmax_i)))
          else $error("tpu_act_serial: in8_q / lt8 / gt8 in phase C");
      end
      // the second cycle of a split add writes the whole sum
      if (!rst_i && hf_q && ph_q == PhM) begin
        assert (step == 34'({hm_q[32], hm_q}) + op_q + 34'(cin_q))
          else $error("tpu_act_serial: split multiply step");
      end
      if (!rst_i && hf_q && (ph_q == PhR || ph_q == PhZ)) begin
        assert (rsum == 33'(a_q) + 33'($signed(lo_q)))
          else $error("tpu_act_serial: split rounding / zero-point add");
      end
      if (!rst_i && hf_q && ph_q == PhX) begin
        assert (a_x == $signed(row_q[32*l +: 32]) + bias)
          else $error("tpu_act_serial: split bias add");
      end
      if (!rst_i && ph_q == PhL) begin
        assert (busy_q == (cnt_q < ls_q) && 32'(sh_q) == (cnt_q < ls_q ? 32'(ls_q) - 32'(cnt_q) : 0))
          else $error("tpu_act_serial: busy_q / sh_q in phase L");
      end
      if (!rst_i && ph_q == PhS) begin
        assert (busy_q == (cnt_q < rs_q) && 32'(sh_q) == (cnt_q < rs_q ? 32'(rs_q) - 32'(cnt_q) : 0))
          else $error("tpu_act_serial: busy_q / sh_q in phase S");
      end
      if (!rst_i && ph_q == PhM) begin
        assert (op_q == ((34'(a_q) ^ {34{cnt_q == 5'd31}}) & {34{lo_q[0]}}) &&
                cin_q == ((cnt_q == 5'd31 && lo_q[0]) || (cnt_q == 5'd30 && !raw_q)))
          else $error("tpu_act_serial: registered multiply operand");
      end
    end
`endif
    assign lane_busy[l]         = busy;
    assign lane_sat[l]          = ph_q == PhV && sat;
    assign lane_res[32*l +: 32] = raw_q ? a_q : 32'(v);
  end

  // channel c's parameters are read one cycle before its phase X (WaitPar: two)
  assign par_re_o   = ChanRam != 0 && (accept || (ph_q == PhV && grp_q != GrpW'(Groups - 1)));
  assign par_addr_o = accept ? '0 : grp_q + 1'b1;

  // ---------------------------------------------------------------- output
  // the LUT read data as the output mux sees it: with LutReg registered (no enable: in phase O
  // it holds the read of phase U, which tpu_act_params keeps while lut_re_o is low)
  logic [N*8-1:0] lut_data;
  if (LutReg && !ParOutReg) begin : g_lut_reg
    logic [N*8-1:0] lut_data_q;
    always_ff @(posedge clk_i) begin
      lut_data_q <= lut_rdata_i;
    end
    assign lut_data = lut_data_q;
  end else begin : g_lut_direct
    assign lut_data = lut_rdata_i;
  end
  for (genvar j = 0; j < N; j++) begin : g_out
    assign lut_raddr_o[8*j +: 8] = row_q[32*j +: 8] ^ 8'h80;
    assign out_int8_o[8*j +: 8]  = lut_q ? lut_data[8*j +: 8] : row_q[32*j +: 8];
  end
  assign lut_re_o    = ph_q == PhU && lut_q;
  assign in_ready_o  = ph_q == PhIdle;
  assign out_valid_o = ph_q == PhO;
  assign out_raw_o   = row_q;
  assign out_sat_o   = sat_q;
  assign out_last_o  = last_q;

`ifndef SYNTHESIS
  // ---------------------------------------------------------------- handshake assertions
  logic            past_ok_q, in_stall_q, out_stall_q;
  logic [N*32+2:0] past_in_q;
  logic [N*8-1:0]  past_out_int8_q;
  always_ff @(posedge clk_i) begin
    past_ok_q       <= !rst_i;
    in_stall_q      <= in_valid_i && !in_ready_o;
    out_stall_q     <= out_valid_o && !out_ready_i;
    past_in_q       <= {in_acc_i, in_raw_i, in_lut_i, in_last_i};
    past_out_int8_q <= out_int8_o;
  end
  always_ff @(posedge clk_i) begin
    if (!rst_i && past_ok_q && in_stall_q) begin
      assert (in_valid_i)
        else $error("tpu_act_serial: in_valid_i dropped while in_ready_o was low");
      assert ({in_acc_i, in_raw_i, in_lut_i, in_last_i} == past_in_q)
        else $error("tpu_act_serial: input row changed while stalled");
    end
    if (!rst_i) begin
      assert (ph_m_q == (ph_q == PhM)) else $error("tpu_act_serial: ph_m_q");
      assert (ph_x_q == (ph_q == PhX)) else $error("tpu_act_serial: ph_x_q");
      assert (!hf_q || ph_q == PhX || ph_q == PhR || ph_q == PhZ || ph_q == PhM)
        else $error("tpu_act_serial: hf_q outside X, R, Z, M");
    end
    if (!rst_i && past_ok_q && out_stall_q) begin
      assert (out_valid_o && out_int8_o == past_out_int8_q)
        else $error("tpu_act_serial: output changed while stalled");
    end
  end
`endif
endmodule

`default_nettype wire
