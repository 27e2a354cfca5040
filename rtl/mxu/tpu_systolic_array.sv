// tpu_systolic_array: N x N weight-stationary systolic array of tpu_pe (design.md §2).
//
// PE(i,j) holds W[k=i][n=j]. One input row A[r][0..N-1] per cycle enters on in_row_i
// (unskewed); element k is delayed k cycles and enters array row k from the west. Partial sums
// flow south; column j's sum leaves the bottom at a different time for each j and is delayed
// N-1-j cycles (de-skew), so one output row out_row_o = sum_k A[r][k] * W[k][0..N-1] (int32,
// wrapping) appears per cycle.
//   Latency: Latency = 2*N cycles from in_valid_i (cycle t) to out_valid_o (cycle t + 2N);
//   ProdReg = 1 (boards: every PE registers its product before the add): 2*N + 1.
//   Throughput: one row per cycle, no stall (there is no back-pressure inside an array).
// Switch: in_sw_i marks the first row that must use the next tile: each PE swaps its shadow
// weight into the active one exactly when that row passes (the bit travels with the data).
// Weight stream: wt_row_i = W[k][0..N-1] with tag wt_k_i = k, any order, any gaps. Column j
// is delayed j cycles so the shadow loads follow the swap wavefront. Timing rules (kept by
// tpu_mxu), with q_k the cycle row k is on wt_*, t_p the cycle the previous switch row was on
// in_*, t_s the cycle the next switch row is on in_*:  q_k >= t_p  and  t_s > q_k for all k.
// Rows are valid only with in_valid_i; values of invalid rows are don't-care.
// PairMul = 1 (N even): the PEs take their products from outside (tpu_pe ExtMul) and one
// tpu_mul_pair computes the two products of each PE pair (columns 2m, 2m+1) of a row; the iCE40
// board replaces tpu_mul_pair by one dual 8x8 SB_MAC16 (fpga/ice40/tpu_mul_pair.sv), so a 4x4
// array takes the UP5K's 8 DSPs. Timing and results are the same. PairMul = 2 (with ProdReg):
// tpu_mul_pair_reg registers the products (on the iCE40 board inside the SB_MAC16) and the PEs
// add them as they come (tpu_pe ExtMul = 2): the same cycles and results as ProdReg.
// NarrowSum = 1 (board option): every PE keeps its partial sum in the bits its rows of int8
// products can reach (tpu_pe NarrowSum; 16..18 bits at N = 4) and the de-skew delays only the
// last row's 15 + clog2(N + 1) bits, sign-extended after it. Timing and results are the same.
// Bf16 = 1 (tpu_pe Bf16): activation and weight elements are 16-bit lanes (element k of a row
// in bits 16k +: 16; an int8 value in the lane's low byte) and in_bf_i marks a bf16 row: its
// columns sum bf16 x bf16 products in fp32 from +0 down the column, PE row 0 first
// (docs/spec.md 7.1), with the same timing as int8 rows; both kinds mix freely row by row.
// With Bf16 = 0 in_bf_i is ignored.
`default_nettype none

module tpu_systolic_array #(
  parameter int unsigned N       = 16,
  parameter int unsigned PairMul = 0,    // products of PE pairs in tpu_mul_pair (N even;
                                         // 2: tpu_mul_pair_reg, with ProdReg)
  parameter bit          ProdReg = 1'b0, // tpu_pe ProdReg: one more cycle of latency
  parameter bit          NarrowSum = 1'b0, // tpu_pe NarrowSum: narrower partial sums
  parameter bit          Bf16 = 1'b0,     // tpu_pe Bf16: 16-bit lanes, bf16 rows
  localparam int unsigned LaneW = Bf16 ? 16 : 8
) (
  input  logic             clk_i,
  input  logic             rst_i,
  // activation rows (west), one per cycle
  input  logic             in_valid_i,
  input  logic             in_sw_i,
  input  logic             in_bf_i,    // Bf16: a bf16 row
  input  logic [N*LaneW-1:0] in_row_i,
  // weight rows for the shadow registers (north)
  input  logic             wt_valid_i,
  input  logic [N*LaneW-1:0] wt_row_i,
  input  logic [KBits-1:0] wt_k_i,
  // result rows (south, de-skewed)
  output logic             out_valid_o,
  output logic [N*32-1:0]  out_row_o
);
  localparam int unsigned KBits   = (N > 1) ? $clog2(N) : 1;
  localparam int unsigned Latency = 2 * N + 32'(ProdReg);

  if (N < 2) begin : g_bad_n
    $error("tpu_systolic_array: N must be >= 2");
  end
  if (PairMul != 0 && N % 2 != 0) begin : g_bad_pair
    $error("tpu_systolic_array: PairMul needs an even N");
  end
`ifndef SYNTHESIS
  // (a run-time check: a board flow's chparam derives the module with defaults first)
  initial begin
    assert (PairMul != 2 || ProdReg) else $error("tpu_systolic_array: PairMul = 2 needs ProdReg");
  end
`endif

  // The registers that travel through the array without being computed on, as packed
  // vectors over all PEs (a simulator shifts them a word at a time; the same flip-flops as one
  // register per PE), PE(i,j) at index i*N+j: west -> east the valid, switch and bf16 bits of
  // the row at each PE (row_*), north -> south the tagged weight stream (wt_*: what PE(i,j)
  // passes to the PE below). Each PE holds its activation, weights and partial sum.
  logic [N*N-1:0]       row_v_q, row_s_q, row_f_q, row_v_d, row_s_d, row_f_d, swap;
  logic [N*N*LaneW-1:0] wt_p_q, wt_p_in;
  logic [N*N*KBits-1:0] wt_k_q, wt_k_in;
  logic [N*N-1:0]       wt_v_q, wt_v_in, take;
  // activations and partial sums between PEs, and the multiplier operands and products
  // (used with PairMul). Not traced: each is a copy of PE registers (a trace has them in the
  // PEs), and Verilator assembled the traced vectors from the PEs' bytes on every cycle.
  /*verilator tracing_off*/
  logic [N*N*LaneW-1:0] a_e;       // a_o of PE(i,j)
  logic [N*N*32-1:0]    psum_s;    // psum_o of PE(i,j)
  logic [N*N*8-1:0]     mul_a, mul_w;
  logic [N*N*16-1:0]    mul_p;
  /*verilator tracing_on*/

  // west inputs per row after the skew
  logic [N*LaneW-1:0] a_w;
  logic [N-1:0]       v_w, s_w, f_w;
  // north inputs per column after the skew
  logic [N*LaneW-1:0] wp_n;
  logic [N-1:0]       wpv_n;
  logic [N*KBits-1:0] wpk_n;

  for (genvar k = 0; k < N; k++) begin : g_skew
    // activation element k: k cycles late
    tpu_delay #(.Width(LaneW), .Depth(k), .ResetEn(1'b0)) u_a_skew (
      .clk_i, .rst_i, .d_i(in_row_i[k*LaneW +: LaneW]), .q_o(a_w[k*LaneW +: LaneW])
    );
    if (Bf16) begin : g_f_skew
      tpu_delay #(.Width(1), .Depth(k), .ResetEn(1'b0)) u_f_skew (
        .clk_i, .rst_i, .d_i(in_bf_i), .q_o(f_w[k])
      );
    end else begin : g_no_f
      assign f_w[k] = 1'b0;
    end
    tpu_delay #(.Width(2), .Depth(k), .ResetEn(1'b1)) u_vs_skew (
      .clk_i, .rst_i, .d_i({in_valid_i, in_sw_i}), .q_o({v_w[k], s_w[k]})
    );
    // weight column k: k cycles late
    tpu_delay #(.Width(LaneW + KBits), .Depth(k), .ResetEn(1'b0)) u_w_skew (
      .clk_i, .rst_i, .d_i({wt_row_i[k*LaneW +: LaneW], wt_k_i}),
      .q_o({wp_n[k*LaneW +: LaneW], wpk_n[k*KBits +: KBits]})
    );
    tpu_delay #(.Width(1), .Depth(k), .ResetEn(1'b1)) u_wv_skew (
      .clk_i, .rst_i, .d_i(wt_valid_i), .q_o(wpv_n[k])
    );
  end

  always_comb begin
    // a row's bits move one PE east; column 0 takes the skewed west inputs
    for (int i = 0; i < N; i++) begin
      row_v_d[i*N +: N] = {row_v_q[i*N +: N-1], v_w[i]};
      row_s_d[i*N +: N] = {row_s_q[i*N +: N-1], s_w[i]};
      row_f_d[i*N +: N] = {row_f_q[i*N +: N-1], f_w[i]};
    end
    swap = row_v_d & row_s_d;
    // the weight stream moves one PE south; row 0 takes the skewed north inputs. PE(i,j) takes
    // the weight tagged i into its shadow register and clears its valid.
    wt_p_in = {wt_p_q[(N-1)*N*LaneW-1:0], wp_n};
    wt_k_in = {wt_k_q[(N-1)*N*KBits-1:0], wpk_n};
    wt_v_in = {wt_v_q[(N-1)*N-1:0], wpv_n};
    take = '0;
    for (int i = 0; i < N; i++) begin
      if (|wt_v_in[i*N +: N]) begin  // (no weight in this row of the stream: nothing to compare)
        for (int j = 0; j < N; j++) begin
          take[i*N+j] = wt_v_in[i*N+j] && (wt_k_in[(i*N+j)*KBits +: KBits] == KBits'(i));
        end
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      row_v_q <= '0;
      row_s_q <= '0;
      wt_v_q  <= '0;
    end else begin
      row_v_q <= row_v_d;
      row_s_q <= row_s_d;
      wt_v_q  <= wt_v_in & ~take;
    end
  end
  always_ff @(posedge clk_i) begin
    row_f_q <= row_f_d;
    wt_p_q  <= wt_p_in;
    wt_k_q  <= wt_k_in;
  end

  for (genvar i = 0; i < N; i++) begin : g_row
    for (genvar j = 0; j < N; j++) begin : g_col
      localparam int unsigned Idx = i * N + j;
      logic [LaneW-1:0] a_in;
      logic [31:0]      psum_in;

      if (j == 0) begin : g_west
        assign a_in = a_w[i*LaneW +: LaneW];
      end else begin : g_inner_w
        assign a_in = a_e[(Idx-1)*LaneW +: LaneW];
      end
      if (i == 0) begin : g_north
        assign psum_in = '0;
      end else begin : g_inner_n
        assign psum_in = psum_s[(Idx-N)*32 +: 32];
      end

      tpu_pe #(.Row(i), .ExtMul(PairMul), .ProdReg(ProdReg),
               .NarrowSum(NarrowSum), .Bf16(Bf16)) u_pe (
        .clk_i,
        .rst_i,
        .a_i    (a_in),
        .a_o    (a_e[Idx*LaneW +: LaneW]),
        .v_i    (row_v_d[Idx]),
        .swap_i (swap[Idx]),
        .fq_i   (row_f_q[Idx]),
        .psum_i (psum_in),
        .psum_o (psum_s[Idx*32 +: 32]),
        .wp_i   (wt_p_in[Idx*LaneW +: LaneW]),
        .take_i (take[Idx]),
        .mul_a_o(mul_a[Idx*8 +: 8]),
        .mul_w_o(mul_w[Idx*8 +: 8]),
        .prod_i (mul_p[Idx*16 +: 16])
      );
    end
  end

  if (PairMul == 2) begin : g_pair_mul_reg
    for (genvar p = 0; p < N * N / 2; p++) begin : g_pair
      tpu_mul_pair_reg u_mul (
        .clk_i, .a_i(mul_a[p*16 +: 16]), .w_i(mul_w[p*16 +: 16]), .p_o(mul_p[p*32 +: 32])
      );
    end
  end else if (PairMul != 0) begin : g_pair_mul
    for (genvar p = 0; p < N * N / 2; p++) begin : g_pair
      tpu_mul_pair u_mul (
        .a_i(mul_a[p*16 +: 16]), .w_i(mul_w[p*16 +: 16]), .p_o(mul_p[p*32 +: 32])
      );
    end
  end else begin : g_pe_mul
    // one 16-bit slice at a time: a single '0 of N*N*16 bits is a replication Verilator refuses
    // above 8 Kibit (WIDTHCONCAT at N = 32)
    for (genvar p = 0; p < N * N; p++) begin : g_no_prod
      assign mul_p[p*16 +: 16] = 16'd0;
    end
    logic unused_mul;
    assign unused_mul = ^{mul_a, mul_w};
  end

  // De-skew: column j leaves PE(N-1,j) at t + N + j + 1 (+ ProdReg) and is delayed N-1-j more
  // cycles.
  // (NarrowSum: the sums' OutW bits, sign-extended after the delay)
  localparam int unsigned OutW = NarrowSum ? 15 + $clog2(N + 1) : 32;
  logic [N*OutW-1:0] out_narrow;
  for (genvar j = 0; j < N; j++) begin : g_deskew
    tpu_delay #(.Width(OutW), .Depth(N - 1 - j), .ResetEn(1'b0)) u_out (
      .clk_i, .rst_i, .d_i(psum_s[((N-1)*N+j)*32 +: OutW]), .q_o(out_narrow[j*OutW +: OutW])
    );
    assign out_row_o[j*32 +: 32] = 32'($signed(out_narrow[j*OutW +: OutW]));
  end

  // The valid of the last PE (row N-1, column N-1) is 1 + ProdReg cycles ahead of its sum.
  tpu_delay #(.Width(1), .Depth(1 + 32'(ProdReg)), .ResetEn(1'b1)) u_out_valid (
    .clk_i, .rst_i, .d_i(row_v_q[N*N-1]), .q_o(out_valid_o)
  );

  if (!Bf16) begin : g_no_bf16
    logic unused_bf;
    assign unused_bf = in_bf_i;
  end

  // Outputs nobody reads: the east edge, the bottom weight stream, valid/switch of inner PEs.
  logic unused_edges;
  assign unused_edges = ^{a_e, row_v_q, row_s_q, row_f_q, wt_p_q, wt_k_q, wt_v_q,
                          psum_s};  // (the last row's: NarrowSum reads OutW bits of them)

`ifndef SYNTHESIS
  // The latency the header promises: a valid entering now leaves exactly Latency cycles later.
  logic [Latency-1:0] chk_valid_q;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      chk_valid_q <= '0;
    end else begin
      chk_valid_q <= {chk_valid_q[Latency-2:0], in_valid_i};
      assert (out_valid_o == chk_valid_q[Latency-1])
        else $error("tpu_systolic_array: valid latency is not %0d", Latency);
    end
  end
`endif
endmodule

`default_nettype wire
