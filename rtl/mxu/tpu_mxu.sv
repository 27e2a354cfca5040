// tpu_mxu: the matrix unit: weight FIFO + N x N systolic array + the control that streams the
// next tile into the shadow weights while the current tile computes (design.md §2).
//
// Weight rows: wpush_* (valid/ready), N rows per tile, see tpu_weight_fifo.
// Bf16 = 1 (tpu_systolic_array Bf16): weight and activation rows are N 16-bit lanes (int8 in a
// lane's low byte) and in_bf_i marks a bf16 activation row (its column sums are fp32); the
// FIFO stores 16-bit elements. With Bf16 = 0 rows are N int8 and in_bf_i is ignored.
// Activation rows: in_* (valid/ready), one UB row per transfer. in_sw_i = 1 on the first row of
// a MATMUL with POP: that row and every later one use the next tile. A switch row is accepted
// only when that tile sits complete in the shadow registers (swap_ready_o); other rows are
// always accepted (in_ready_o = !in_sw_i || swap_ready_o). in_tag_i travels with the row.
// Results: out_valid_o/out_row_o/out_tag_o exactly Latency = 2*N (ProdReg: 2*N + 1) cycles
// after the row was accepted; no back-pressure.
// Shadow loading: as soon as the previous switch row has entered the array (same cycle
// allowed) and the FIFO has a complete tile, its N rows stream into the shadow registers (one
// per cycle when the FIFO keeps up); swap_ready_o rises the cycle after the last one. A switch
// row can therefore follow the previous one after N cycles: tiles of M >= N rows each run back
// to back with no idle cycle, and a tile is never shifted in while its predecessor's swap is
// still travelling through the array (the order rules in tpu_systolic_array's header).
// Issue look-ahead: a row's issue stage decides IssueAhead cycles before the row reaches in_*
// (1: a UB read; 2: a UB read with an output register, tpu_datapath UbLatency = 2).
// swap_ready_next_o says whether a switch row arriving IssueAhead cycles from now would be
// accepted; with IssueAhead = 2 the issuer tells in_sw_next_i (a switch row arrives in the next
// cycle, valid and switch), since that row takes the tile the look-ahead sees.
`default_nettype none

module tpu_mxu #(
  parameter int unsigned N        = 16,
  parameter int unsigned Tiles    = 4,
  parameter int unsigned TagWidth = 1,
  parameter bit          ProdReg  = 1'b0, // boards: tpu_pe's product register (+1 latency)
  parameter int unsigned IssueAhead = 1,   // 1 or 2, see above
  parameter bit          Bf16     = 1'b0,  // the bf16 mode (see above)
  localparam int unsigned LaneW   = Bf16 ? 16 : 8
) (
  input  logic                clk_i,
  input  logic                rst_i,
  // weight rows in
  input  logic                wpush_valid_i,
  output logic                wpush_ready_o,
  input  logic [N*LaneW-1:0]  wpush_row_i,
  input  logic                wpush_transpose_i,
  // activation rows in
  input  logic                in_valid_i,
  output logic                in_ready_o,
  input  logic [N*LaneW-1:0]  in_row_i,
  input  logic                in_bf_i,       // Bf16: a bf16 row (travels with the row)
  input  logic                in_sw_i,
  input  logic [TagWidth-1:0] in_tag_i,
  input  logic                in_sw_next_i,  // IssueAhead = 2: a switch row arrives next cycle
  // result rows out
  output logic                out_valid_o,
  output logic [N*32-1:0]     out_row_o,
  output logic [TagWidth-1:0] out_tag_o,
  // status
  output logic                swap_ready_o,       // a switch row would be accepted now
  output logic                swap_ready_next_o,  // ... IssueAhead cycles from now (the
                                                  // issue stages are registered)
  output logic [CntBits-1:0]  tiles_o        // tiles pushed and not yet switched to
);
  localparam int unsigned KBits   = (N > 1) ? $clog2(N) : 1;
  localparam int unsigned CntBits = $clog2(Tiles + 2);
  localparam int unsigned Latency = 2 * N + 32'(ProdReg);

  typedef enum logic [1:0] {
    ShEmpty   = 2'd0,  // the shadow holds nothing that is still needed
    ShLoading = 2'd1,  // rows of the next tile are being shifted in
    ShReady   = 2'd2   // the next tile is complete in the shadow registers
  } shadow_e;

  shadow_e sh_q, sh_d;

  logic             f_valid, f_ready, f_fire, f_last;
  logic [N*LaneW-1:0] f_row;
  logic [KBits-1:0] f_k;
  logic [$clog2(Tiles + 1)-1:0] f_tiles, f_used;
  logic             in_fire, swap_fire;
  logic             f_next_last;

  if (IssueAhead < 1 || IssueAhead > 2) begin : g_bad_ahead
    $error("tpu_mxu: IssueAhead must be 1 or 2");
  end

  tpu_weight_fifo #(.N(N), .Tiles(Tiles), .EW(LaneW)) u_fifo (
    .clk_i,
    .rst_i,
    .in_valid_i     (wpush_valid_i),
    .in_ready_o     (wpush_ready_o),
    .in_row_i       (wpush_row_i),
    .in_transpose_i (wpush_transpose_i),
    .out_valid_o    (f_valid),
    .out_ready_i    (f_ready),
    .out_row_o      (f_row),
    .out_k_o        (f_k),
    .out_last_o     (f_last),
    .next_last_o    (f_next_last),
    .tiles_o        (f_tiles),
    .used_o         (f_used)
  );

  assign in_ready_o = !in_sw_i || (sh_q == ShReady);
  assign in_fire    = in_valid_i && in_ready_o;
  assign swap_fire  = in_fire && in_sw_i;
  // The next tile may start shifting in once the previous switch row is in the array.
  assign f_ready    = (sh_q != ShReady) || swap_fire;
  assign f_fire     = f_valid && f_ready;

  always_comb begin
    sh_d = sh_q;
    unique case (sh_q)
      ShEmpty, ShLoading: begin
        if (f_fire) begin
          sh_d = f_last ? ShReady : ShLoading;
        end
      end
      ShReady: begin
        if (swap_fire) begin
          sh_d = f_fire ? ShLoading : ShEmpty;
        end
      end
      default: sh_d = ShEmpty;
    endcase
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      sh_q <= ShEmpty;
    end else begin
      sh_q <= sh_d;
    end
  end

  tpu_systolic_array #(.N(N), .ProdReg(ProdReg), .Bf16(Bf16)) u_array (
    .clk_i,
    .rst_i,
    .in_valid_i  (in_fire),
    .in_sw_i     (in_sw_i),
    .in_bf_i     (in_bf_i),
    .in_row_i    (in_row_i),
    .wt_valid_i  (f_fire),
    .wt_row_i    (f_row),
    .wt_k_i      (f_k),
    .out_valid_o (out_valid_o),
    .out_row_o   (out_row_o)
  );

  // Metadata beside the array (data only: out_valid_o qualifies it).
  tpu_delay #(.Width(TagWidth), .Depth(Latency), .ResetEn(1'b0)) u_tag (
    .clk_i, .rst_i, .d_i(in_tag_i), .q_o(out_tag_o)
  );

  assign swap_ready_o      = (sh_q == ShReady);
  // ready1 = (sh_d == ShReady), from flip-flops through fewer logic levels (the datapath's
  // MATMUL issue decision takes it): Ready stays unless a switch row enters now; the last row
  // of a tile shifted in now makes it Ready
  logic ready1;
  assign ready1 = (sh_q == ShReady && !(in_valid_i && in_sw_i)) ||
                  ((sh_q == ShEmpty || sh_q == ShLoading) && f_valid && f_last);
  if (IssueAhead == 2) begin : g_ahead2
    // Ready in two cycles: Ready next cycle and no switch row entering then; or not Ready next
    // cycle (then the FIFO's output is free or taken now, f_ready) and the FIFO reads a tile's
    // last row now, which shifts in next cycle. (Ready next cycle after a switch row now cannot
    // be: that needs all N rows of the next tile shifted in within a cycle.)
    assign swap_ready_next_o = ready1 ? !in_sw_next_i : f_next_last;
`ifndef SYNTHESIS
    // in_sw_next_i is what arrives, and the look-ahead is what happens two cycles later
    logic sw_next_q, ahead1_q, ahead2_q, v1_q, v2_q;
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        v1_q <= 1'b0;
        v2_q <= 1'b0;
      end else begin
        v1_q <= 1'b1;
        v2_q <= v1_q;
        if (v1_q) begin
          assert (sw_next_q == (in_valid_i && in_sw_i))
            else $error("tpu_mxu: in_sw_next_i did not announce the switch row");
        end
        if (v2_q) begin
          assert (ahead2_q == (sh_q == ShReady)) else $error("tpu_mxu: two-cycle look-ahead");
        end
      end
      sw_next_q <= in_sw_next_i;
      ahead1_q  <= swap_ready_next_o;
      ahead2_q  <= ahead1_q;
    end
`endif
  end else begin : g_ahead1
    assign swap_ready_next_o = ready1;
    logic unused_ahead;
    assign unused_ahead = ^{in_sw_next_i, f_next_last};
  end
  // FIFO slots in use plus the tile in the shadow registers (loading or loaded).
  assign tiles_o = CntBits'(f_used) + CntBits'(sh_q != ShEmpty);

  logic unused_tiles;
  assign unused_tiles = ^f_tiles;

`ifndef SYNTHESIS
  logic             in_stall_q;
  logic [N*LaneW-1:0] in_row_q;
  logic             in_sw_q, in_bf_q;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      in_stall_q <= 1'b0;
    end else begin
      // valid/ready: a stalled row stays offered and unchanged
      if (in_stall_q) begin
        assert (in_valid_i && in_row_i == in_row_q && in_sw_i == in_sw_q &&
                (!Bf16 || in_bf_i == in_bf_q))
          else $error("tpu_mxu: in_* changed while stalled");
      end
      in_stall_q <= in_valid_i && !in_ready_o;
      assert (ready1 == (sh_d == ShReady)) else $error("tpu_mxu: swap_ready_next_o");
      // the FIFO streams rows in order 0..N-1; a new tile starts only in an empty shadow
      if (f_fire && f_k == '0) begin
        assert (sh_q != ShLoading) else $error("tpu_mxu: tile started while loading");
      end
      if (f_fire && f_k != '0) begin
        assert (sh_q == ShLoading) else $error("tpu_mxu: weight row out of order");
      end
    end
    in_row_q <= in_row_i;
    in_sw_q  <= in_sw_i;
    in_bf_q  <= in_bf_i;
  end
`endif
endmodule

`default_nettype wire
