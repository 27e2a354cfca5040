// tpu_pe: one weight-stationary processing element of the systolic array (design.md §2).
//
// Data paths (all outputs are registers, so PEs chain without combinational paths):
//   west -> east   a_i (int8 activation), registered and passed on as a_o one cycle later.
//   north -> south psum_i (int32 partial sum) -> psum_o = psum_i + a_q * w_act_q (wrapping),
//                  one cycle later.
//   weights        take_i: capture wp_i into the shadow weight register.
// The registers that only travel through the PE (the valid, switch and bf16 bits of the rows
// west -> east, the tagged weight stream north -> south) live in tpu_systolic_array as packed
// vectors over all PEs; the array tells each PE when a row's switch bit enters it (swap_i),
// when the stream carries its weight (take_i) and whether the row in a_o is a bf16 row (fq_i).
// Double buffering: the shadow weight becomes the active one in the cycle the first
// activation of the new tile (swap_i) enters this PE, so the swap travels with the data
// wavefront and consecutive tiles run back to back. The shadow may be rewritten in the same
// cycle as (or after) that swap; the controller (tpu_mxu) guarantees it.
// Latency: 1 cycle on every path. ProdReg = 1 (boards: the DSP -> fabric hop gets a cycle of
// its own): the product is registered first, psum_o = psum_i + the product of the operands of
// the cycle before; a uniform extra cycle in every PE, so the array's sums leave one cycle
// later (tpu_systolic_array). The multiply uses registered operands (a_q, w_act_q) so
// synthesis can put operand registers, multiplier and adder into one DSP; keep_hierarchy stops
// Yosys' ice40_dsp from absorbing one register into two neighbouring DSPs
// (shared/reference/fpga.md §0.1).
// ProdReg = 1 with ExtMul = 0: the active weight, the operand registers, the multiplier and the
// product register are one block, tpu_pe_mul (so a board can put them into one DSP cell with
// its own registers: fpga/ecp5/tpu_pe_mul.sv); same cycles; mul_a_o/mul_w_o are 0 then.
// ExtMul = 1 moves the multiplier out of the PE: the registered operands leave on
// mul_a_o/mul_w_o and the signed 16-bit product comes back on prod_i in the same cycle (the
// iCE40 board computes two PEs' products in one dual 8x8 SB_MAC16, see tpu_mul_pair). With
// ExtMul = 0 prod_i is ignored and mul_a_o/mul_w_o may be left unread. ExtMul = 2 (with
// ProdReg): the outside multiplier registers its product (tpu_mul_pair_reg), so prod_i is
// already the product of the cycle before and is added as it comes (same cycles as ProdReg).
// NarrowSum = 1 (board option, set through tpu_systolic_array): the partial sum is kept in
// SumW = 15 + clog2(Row + 2) bits, what Row + 1 int8 x int8 products can reach (each within
// [-2^14 + 128, 2^14]), and psum_o is its sign extension: the same values with a narrower adder
// and register. psum_i must then be such a sum of the PEs above (asserted), and Row 0 ignores
// it (the array's top row gets 0).
// Bf16 = 1: the bf16 x bf16 -> fp32 mode is built in (docs/spec.md 7.1). Activations and
// weights are 16-bit lanes (an int8 value in the low byte), and fq_i marks the row in a_o as a
// bf16 row, whose PE step is
// psum_o = tpu_fp_pkg::bf16_mac(psum_i, a, w) (fp32 partial sums, one rounding per PE),
// with the same one-cycle latency as the int8 step. The row type decides, not the weight: the
// command processor only pairs a bf16 row with a bf16 tile. Bf16 needs ExtMul = 0, ProdReg = 0
// and NarrowSum = 0; with Bf16 = 0 fq_i is ignored and the lanes are 8 bits.
// v_i (a valid row enters) is read only by the NarrowSum check. Reset: none (the PE holds no
// control state); weights, activations and sums are never reset.
`default_nettype none

(* keep_hierarchy *)
module tpu_pe #(
  parameter int unsigned Row  = 0,  // this PE's row in the array (NarrowSum: its sum's width)
  parameter int unsigned ExtMul = 0,   // product from prod_i (2: registered outside)
  parameter bit          ProdReg = 1'b0, // the product registered before the partial-sum add
  parameter bit          NarrowSum = 1'b0, // the partial sum in SumW bits (see above)
  parameter bit          Bf16 = 1'b0,  // the bf16 mode built in (see above)
  localparam int unsigned LaneW = Bf16 ? 16 : 8  // activation and weight lane width
) (
  input  logic              clk_i,
  input  logic              rst_i,
  // activations, west -> east
  input  logic [LaneW-1:0]  a_i,
  output logic [LaneW-1:0]  a_o,
  input  logic              v_i,     // a valid row enters (NarrowSum's check only)
  input  logic              swap_i,  // the first row of the next tile enters (v_i && s_i)
  input  logic              fq_i,    // Bf16: the row in a_o is a bf16 row
  // partial sums, north -> south
  input  logic [31:0]       psum_i,
  output logic [31:0]       psum_o,
  // the weight meant for this PE's shadow register
  input  logic [LaneW-1:0]  wp_i,
  input  logic              take_i,
  // the multiplier outside (ExtMul): operands out, signed product in
  output logic [7:0]        mul_a_o,
  output logic [7:0]        mul_w_o,
  input  logic [15:0]       prod_i
);
  if (Bf16 && (ExtMul != 0 || ProdReg || NarrowSum)) begin : g_bad_bf16
    $error("tpu_pe: Bf16 needs ExtMul = 0, ProdReg = 0 and NarrowSum = 0");
  end
`ifndef SYNTHESIS
  // (a run-time check: a board flow's chparam derives the module with defaults first)
  initial begin
    assert (ExtMul != 2 || ProdReg) else $error("tpu_pe: ExtMul = 2 needs ProdReg");
  end
`endif

  logic [LaneW-1:0] a_q;
  logic [LaneW-1:0] w_sh_q;
  localparam int unsigned SumW = NarrowSum ? 15 + $clog2(Row + 2) : 32;
  logic [SumW-1:0]  psum_q;
  logic [SumW-1:0]  psum_add;  // what the product is added to
  logic             swap;
  assign swap = swap_i;

  // datapath (no reset)
  always_ff @(posedge clk_i) begin
    a_q <= a_i;
    if (take_i) begin
      w_sh_q <= wp_i;
    end
  end

  if (NarrowSum && Row == 0) begin : g_sum_top
    assign psum_add = '0;
  end else begin : g_sum_in
    assign psum_add = psum_i[SumW-1:0];
  end

  if (ProdReg && ExtMul == 0) begin : g_mul_reg
    // The active weight, the operand registers, the multiplier and the product register as
    // one block (tpu_pe_mul; on ECP5 one MULT18X18D with its own registers): its active
    // weight register loads the shadow weight on the swap, exactly as w_act_q below, and its
    // activation register duplicates a_q. The product is the one of the cycle before.
    logic [15:0] prod_q;
    tpu_pe_mul u_mul (.clk_i, .a_i(a_i[7:0]), .w_i(w_sh_q[7:0]), .w_en_i(swap), .p_o(prod_q));
    always_ff @(posedge clk_i) begin
      psum_q <= psum_add + SumW'($signed(prod_q));
    end
    // (only ExtMul uses the operand outputs)
    assign mul_a_o = '0;
    assign mul_w_o = '0;
    logic unused_prod;
    assign unused_prod = ^prod_i;
  end else begin : g_mul_fabric
    logic [LaneW-1:0]   w_act_q;
    logic signed [15:0] prod;
    logic [SumW-1:0]    prod_s;  // prod sign-extended to the partial sum
    always_ff @(posedge clk_i) begin
      if (swap) begin
        w_act_q <= w_sh_q;
      end
    end
    assign mul_a_o = a_q[7:0];
    assign mul_w_o = w_act_q[7:0];
    if (ExtMul != 0) begin : g_ext_mul
      assign prod = prod_i;
      assign prod_s = SumW'($signed(prod));
    end else begin : g_mul
      // int8 x int8 fits 16 bits exactly; written plainly so it maps to a DSP multiplier. The
      // multiply is SumW bits wide (synthesis drops the operands' sign copies): Verilator then
      // sign-extends each operand once, where a 16-bit signed product sign-extended to the sum
      // costs it five extensions per PE and cycle.
      logic signed [SumW-1:0] prod_w;
      assign prod_w = SumW'($signed(a_q[7:0])) * SumW'($signed(w_act_q[7:0]));
      assign prod   = prod_w[15:0];
      assign prod_s = prod_w;
      logic unused_prod;
      assign unused_prod = ^prod_i;
    end
    if (ProdReg && ExtMul == 2) begin : g_prod_ext_reg
      always_ff @(posedge clk_i) begin
        psum_q <= psum_add + SumW'($signed(prod));
      end
      logic unused_prod_s;
      assign unused_prod_s = ^prod_s;
    end else if (ProdReg) begin : g_prod_reg
      logic signed [15:0] prod_q;
      always_ff @(posedge clk_i) begin
        prod_q <= prod;
        psum_q <= psum_add + SumW'($signed(prod_q));
      end
      logic unused_prod_s;
      assign unused_prod_s = ^prod_s;
    end else if (Bf16) begin : g_prod_bf16
      // (the fp step inside the branch: Verilator evaluates it only for bf16 rows)
      always_ff @(posedge clk_i) begin
        if (fq_i) begin
          psum_q <= tpu_fp_pkg::bf16_mac(psum_i, a_q, w_act_q);
        end else begin
          psum_q <= psum_add + prod_s;
        end
      end
      logic unused_prod;
      assign unused_prod = ^prod;
    end else begin : g_prod
      always_ff @(posedge clk_i) begin
        psum_q <= psum_add + prod_s;
      end
      logic unused_prod;  // (the 16-bit product: only the registered variants read it)
      assign unused_prod = ^prod;
    end
  end

  assign a_o    = a_q;
  assign psum_o = 32'($signed(psum_q));

  if (!NarrowSum) begin : g_no_narrow_chk
    logic unused_v_rst;  // (only the NarrowSum check reads them)
    assign unused_v_rst = v_i ^ rst_i;
  end
  if (!Bf16) begin : g_no_bf16
    logic unused_f;
    assign unused_f = fq_i;
  end
  if (NarrowSum) begin : g_narrow_chk
    logic unused_psum_i;
    assign unused_psum_i = ^psum_i;
`ifndef SYNTHESIS
    // the PEs above hand down a sum of Row products (the top row: 0), so it fits their width
    localparam int unsigned InW = 15 + $clog2(Row + 1);
    always_ff @(posedge clk_i) begin
      if (!rst_i && v_i) begin
        if (Row == 0) begin
          assert (psum_i == '0) else $error("tpu_pe: NarrowSum: psum_i of the top row is not 0");
        end else begin
          assert ($signed(psum_i) == $signed(32'($signed(psum_i[InW-1:0]))))
            else $error("tpu_pe: NarrowSum: psum_i does not fit %0d bits", InW);
        end
      end
    end
`endif
  end
endmodule

`default_nettype wire
