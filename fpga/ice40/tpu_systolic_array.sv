// tpu_systolic_array, iCE40 version (fpga/ice40/; the iCE40 board flow reads it instead of
// rtl/tpu_systolic_array.sv): same module, ports, timing and results, but the PEs are
// tpu_pe_ext and every two neighbouring PEs of a row (columns 2m, 2m+1) share one SB_MAC16 in
// dual 8x8 mode (shared/reference/fpga.md §0.2): A = {a(2m+1), a(2m)}, B = {w(2m+1), w(2m)},
// O[31:16] = a(2m+1) * w(2m+1), O[15:0] = a(2m) * w(2m), both signed, no DSP registers (the
// operands are the PEs' registers; the 32-bit accumulate stays in the fabric). A 4x4 array
// takes the UP5K's 8 DSPs. Synthesize WITHOUT synth_ice40 -dsp: ice40_dsp would rewrite these
// cells and clear MODE_8x8 (shared/reference/fpga.md §0.1, bug 2). N must be even.
//
// The rest of this header is rtl/tpu_systolic_array.sv's:
//
// PE(i,j) holds W[k=i][n=j]. One input row A[r][0..N-1] per cycle enters on in_row_i
// (unskewed); element k is delayed k cycles and enters array row k from the west. Partial sums
// flow south; column j's sum leaves the bottom at a different time for each j and is delayed
// N-1-j cycles (de-skew), so one output row out_row_o = sum_k A[r][k] * W[k][0..N-1] (int32,
// wrapping) appears per cycle.
//   Latency: Latency = 2*N cycles from in_valid_i (cycle t) to out_valid_o (cycle t + 2N).
//   Throughput: one row per cycle, no stall (there is no back-pressure inside an array).
// Switch: in_sw_i marks the first row that must use the next tile: each PE swaps its shadow
// weight into the active one exactly when that row passes (the bit travels with the data).
// Weight stream: wt_row_i = W[k][0..N-1] with tag wt_k_i = k, any order, any gaps. Column j
// is delayed j cycles so the shadow loads follow the swap wavefront. Timing rules (kept by
// tpu_mxu), with q_k the cycle row k is on wt_*, t_p the cycle the previous switch row was on
// in_*, t_s the cycle the next switch row is on in_*:  q_k >= t_p  and  t_s > q_k for all k.
// Rows are valid only with in_valid_i; values of invalid rows are don't-care.
`default_nettype none

module tpu_systolic_array #(
  parameter int unsigned N = 16
) (
  input  logic             clk_i,
  input  logic             rst_i,
  // activation rows (west), one per cycle
  input  logic             in_valid_i,
  input  logic             in_sw_i,
  input  logic [N*8-1:0]   in_row_i,
  // weight rows for the shadow registers (north)
  input  logic             wt_valid_i,
  input  logic [N*8-1:0]   wt_row_i,
  input  logic [KBits-1:0] wt_k_i,
  // result rows (south, de-skewed)
  output logic             out_valid_o,
  output logic [N*32-1:0]  out_row_o
);
  localparam int unsigned KBits   = (N > 1) ? $clog2(N) : 1;
  localparam int unsigned Latency = 2 * N;

  if (N < 2 || N % 2 != 0) begin : g_bad_n
    $error("tpu_systolic_array (iCE40): N must be even and >= 2");
  end

  // multiplier operands and products of PE(i,j), flattened as i*N+j
  logic [N*N*8-1:0]  mul_a, mul_w;
  logic [N*N*16-1:0] mul_p;

  // Inter-PE nets. Index (i, j) flattened as i*N+j; the west edge feeds column 0, the north
  // edge row 0. East outputs of the last column and the valid/switch of rows above the last
  // are only partly used (waived by the unused_ name).
  logic [N*N*8-1:0]     a_e;       // a_o of PE(i,j)
  logic [N*N-1:0]       v_e, s_e;
  logic [N*N*32-1:0]    psum_s;    // psum_o of PE(i,j)
  logic [N*N*8-1:0]     wp_s;
  logic [N*N-1:0]       wpv_s;
  logic [N*N*KBits-1:0] wpk_s;

  // west inputs per row after the skew
  logic [N*8-1:0] a_w;
  logic [N-1:0]   v_w, s_w;
  // north inputs per column after the skew
  logic [N*8-1:0]     wp_n;
  logic [N-1:0]       wpv_n;
  logic [N*KBits-1:0] wpk_n;

  for (genvar k = 0; k < N; k++) begin : g_skew
    // activation element k: k cycles late
    tpu_delay #(.Width(8), .Depth(k), .ResetEn(1'b0)) u_a_skew (
      .clk_i, .rst_i, .d_i(in_row_i[k*8 +: 8]), .q_o(a_w[k*8 +: 8])
    );
    tpu_delay #(.Width(2), .Depth(k), .ResetEn(1'b1)) u_vs_skew (
      .clk_i, .rst_i, .d_i({in_valid_i, in_sw_i}), .q_o({v_w[k], s_w[k]})
    );
    // weight column k: k cycles late
    tpu_delay #(.Width(8 + KBits), .Depth(k), .ResetEn(1'b0)) u_w_skew (
      .clk_i, .rst_i, .d_i({wt_row_i[k*8 +: 8], wt_k_i}),
      .q_o({wp_n[k*8 +: 8], wpk_n[k*KBits +: KBits]})
    );
    tpu_delay #(.Width(1), .Depth(k), .ResetEn(1'b1)) u_wv_skew (
      .clk_i, .rst_i, .d_i(wt_valid_i), .q_o(wpv_n[k])
    );
  end

  for (genvar i = 0; i < N; i++) begin : g_row
    for (genvar j = 0; j < N; j++) begin : g_col
      localparam int unsigned Idx = i * N + j;
      logic [7:0]       a_in;
      logic             v_in, s_in;
      logic [31:0]      psum_in;
      logic [7:0]       wp_in;
      logic             wpv_in;
      logic [KBits-1:0] wpk_in;

      if (j == 0) begin : g_west
        assign a_in = a_w[i*8 +: 8];
        assign v_in = v_w[i];
        assign s_in = s_w[i];
      end else begin : g_inner_w
        assign a_in = a_e[(Idx-1)*8 +: 8];
        assign v_in = v_e[Idx-1];
        assign s_in = s_e[Idx-1];
      end
      if (i == 0) begin : g_north
        assign psum_in = '0;
        assign wp_in   = wp_n[j*8 +: 8];
        assign wpv_in  = wpv_n[j];
        assign wpk_in  = wpk_n[j*KBits +: KBits];
      end else begin : g_inner_n
        assign psum_in = psum_s[(Idx-N)*32 +: 32];
        assign wp_in   = wp_s[(Idx-N)*8 +: 8];
        assign wpv_in  = wpv_s[Idx-N];
        assign wpk_in  = wpk_s[(Idx-N)*KBits +: KBits];
      end

      tpu_pe_ext #(.Row(i), .KBits(KBits)) u_pe (
        .clk_i,
        .rst_i,
        .a_i    (a_in),
        .v_i    (v_in),
        .s_i    (s_in),
        .a_o    (a_e[Idx*8 +: 8]),
        .v_o    (v_e[Idx]),
        .s_o    (s_e[Idx]),
        .psum_i (psum_in),
        .psum_o (psum_s[Idx*32 +: 32]),
        .wp_i   (wp_in),
        .wpv_i  (wpv_in),
        .wpk_i  (wpk_in),
        .wp_o   (wp_s[Idx*8 +: 8]),
        .wpv_o  (wpv_s[Idx]),
        .wpk_o  (wpk_s[Idx*KBits +: KBits]),
        .mul_a_o(mul_a[Idx*8 +: 8]),
        .mul_w_o(mul_w[Idx*8 +: 8]),
        .prod_i (mul_p[Idx*16 +: 16])
      );
    end

    // one dual 8x8 SB_MAC16 per PE pair (columns 2m, 2m+1), purely combinational
    for (genvar m = 0; m < N / 2; m++) begin : g_pair
      localparam int unsigned Lo = i * N + 2 * m;
      logic [31:0] o;
      SB_MAC16 #(
        .NEG_TRIGGER(1'b0), .C_REG(1'b0), .A_REG(1'b0), .B_REG(1'b0), .D_REG(1'b0),
        .TOP_8x8_MULT_REG(1'b0), .BOT_8x8_MULT_REG(1'b0),
        .PIPELINE_16x16_MULT_REG1(1'b0), .PIPELINE_16x16_MULT_REG2(1'b0),
        .TOPOUTPUT_SELECT(2'd2), .TOPADDSUB_LOWERINPUT(2'd0), .TOPADDSUB_UPPERINPUT(1'b0),
        .TOPADDSUB_CARRYSELECT(2'd0), .BOTOUTPUT_SELECT(2'd2), .BOTADDSUB_LOWERINPUT(2'd0),
        .BOTADDSUB_UPPERINPUT(1'b0), .BOTADDSUB_CARRYSELECT(2'd0), .MODE_8x8(1'b1),
        .A_SIGNED(1'b1), .B_SIGNED(1'b1)
      ) u_mac (
        .CLK(clk_i), .CE(1'b0), .C(16'd0), .D(16'd0),
        .A({mul_a[(Lo+1)*8 +: 8], mul_a[Lo*8 +: 8]}),
        .B({mul_w[(Lo+1)*8 +: 8], mul_w[Lo*8 +: 8]}),
        .AHOLD(1'b0), .BHOLD(1'b0), .CHOLD(1'b0), .DHOLD(1'b0),
        .IRSTTOP(1'b0), .IRSTBOT(1'b0), .ORSTTOP(1'b0), .ORSTBOT(1'b0),
        .OLOADTOP(1'b0), .OLOADBOT(1'b0), .ADDSUBTOP(1'b0), .ADDSUBBOT(1'b0),
        .OHOLDTOP(1'b0), .OHOLDBOT(1'b0), .CI(1'b0), .ACCUMCI(1'b0), .SIGNEXTIN(1'b0),
        .O(o), .CO(), .ACCUMCO(), .SIGNEXTOUT()
      );
      assign mul_p[Lo*16 +: 16]     = o[15:0];
      assign mul_p[(Lo+1)*16 +: 16] = o[31:16];
    end
  end

  // De-skew: column j leaves PE(N-1,j) at t + N + j + 1 and is delayed N-1-j more cycles.
  for (genvar j = 0; j < N; j++) begin : g_deskew
    tpu_delay #(.Width(32), .Depth(N - 1 - j), .ResetEn(1'b0)) u_out (
      .clk_i, .rst_i, .d_i(psum_s[((N-1)*N+j)*32 +: 32]), .q_o(out_row_o[j*32 +: 32])
    );
  end

  // The valid of the last PE (row N-1, column N-1) is one cycle ahead of its sum.
  logic out_valid_q;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      out_valid_q <= 1'b0;
    end else begin
      out_valid_q <= v_e[N*N-1];
    end
  end
  assign out_valid_o = out_valid_q;

  // Outputs nobody reads: the east edge, the bottom weight stream, valid/switch of inner PEs.
  logic unused_edges;
  assign unused_edges = ^{a_e, v_e[N*N-2:0], s_e, wp_s, wpv_s, wpk_s,
                          psum_s[(N-1)*N*32-1:0]};

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
