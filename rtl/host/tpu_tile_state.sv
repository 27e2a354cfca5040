// tpu_tile_state: the spec's logical weight FIFO of tpu_cmd_proc (docs/spec.md 6.4): the tiles
// pushed and not yet popped (their K and COLS, for PERF_MACS) and the active tile. This is the
// state the checks read (SEQUENCE_ERROR), kept in command order exactly as the golden model
// orders it: a LOAD_WEIGHTS pushes its tile when its last row is on the datapath's FIFO
// (push_i), a POP takes effect when its MATMUL is accepted by the datapath (pop_i), a
// STREAM_MATMUL leaves no tile active (clear_active_i: its tiles pass through the FIFO).
// macs_o: the MACs of a MATMUL of mm_rows_i rows with the active tile, or with the head tile
// when it pops (rows x K x COLS).
// Bf16 (spec 6.12): each tile also carries its type (push_bf16_i, set by the LOAD_WEIGHTS that
// pushed it); mm_bf16_o is the type of the tile a MATMUL would use (the head with mm_pop_i, else
// the active tile), for the check's SEQUENCE_ERROR on a type mismatch. Without Bf16 every tile is
// int8 and mm_bf16_o is 0.
`default_nettype none

module tpu_tile_state #(
  parameter int unsigned N     = 16,
  parameter int unsigned Tiles = 4,
  parameter bit          Bf16  = 1'b0,
  localparam int unsigned TW   = Tiles > 1 ? $clog2(Tiles) : 1,
  localparam int unsigned KW   = $clog2(N + 1)
) (
  input  logic          clk_i,
  input  logic          rst_i,
  input  logic          push_i,
  input  logic [KW-1:0] push_k_i,       // the tile's K (rows of the product) and COLS
  input  logic [KW-1:0] push_cols_i,
  input  logic          push_bf16_i,    // (Bf16) the tile is bf16
  input  logic          pop_i,
  input  logic          clear_active_i,
  input  logic [31:0]   mm_rows_i,
  input  logic          mm_pop_i,
  output logic [TW:0]   count_o,
  output logic          active_valid_o,
  output logic [63:0]   macs_o,
  output logic          mm_bf16_o       // (Bf16) the type of the tile a MATMUL would use
);
  logic [Tiles*KW-1:0] k_q, k_d, cols_q, cols_d;
  logic [TW-1:0]       head_q, head_d, tail;
  logic [TW:0]         count_q, count_d;
  logic [KW-1:0]       active_k_q, active_k_d, active_cols_q, active_cols_d;
  logic                active_valid_q, active_valid_d;

  assign tail = TW'((32'(head_q) + 32'(count_q)) % Tiles);
  always_comb begin
    k_d = k_q;  cols_d = cols_q;  head_d = head_q;  count_d = count_q;
    active_k_d = active_k_q;  active_cols_d = active_cols_q;  active_valid_d = active_valid_q;
    if (push_i) begin
      k_d[KW*tail +: KW]    = push_k_i;
      cols_d[KW*tail +: KW] = push_cols_i;
      count_d = count_q + 1'b1;
    end
    if (pop_i) begin
      active_k_d    = k_q[KW*head_q +: KW];
      active_cols_d = cols_q[KW*head_q +: KW];
      head_d = (32'(head_q) == Tiles - 1) ? '0 : head_q + 1'b1;
      count_d = count_q - 1'b1;
      active_valid_d = 1'b1;
    end
    if (clear_active_i) active_valid_d = 1'b0;
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      head_q <= '0;  count_q <= '0;  active_valid_q <= 1'b0;
    end else begin
      head_q <= head_d;  count_q <= count_d;  active_valid_q <= active_valid_d;
    end
  end
  always_ff @(posedge clk_i) begin
    k_q <= k_d;  cols_q <= cols_d;  active_k_q <= active_k_d;  active_cols_q <= active_cols_d;
  end

  assign count_o        = count_q;
  assign active_valid_o = active_valid_q;
  if (Bf16) begin : g_types
    logic [Tiles-1:0] bf_q, bf_d;
    logic             active_bf_q, active_bf_d;
    always_comb begin
      bf_d = bf_q;  active_bf_d = active_bf_q;
      if (push_i) bf_d[tail] = push_bf16_i;
      if (pop_i) active_bf_d = bf_q[head_q];
    end
    always_ff @(posedge clk_i) begin
      bf_q <= bf_d;  active_bf_q <= active_bf_d;
    end
    assign mm_bf16_o = mm_pop_i ? bf_q[head_q] : active_bf_q;
  end else begin : g_no_types
    logic unused_bf;
    assign unused_bf = push_bf16_i;
    assign mm_bf16_o = 1'b0;
  end

  assign macs_o = 64'(mm_rows_i) *
                  64'(mm_pop_i ? 64'(k_q[KW*head_q +: KW]) : 64'(active_k_q)) *
                  64'(mm_pop_i ? 64'(cols_q[KW*head_q +: KW]) : 64'(active_cols_q));

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // occupancy bounds (the checks keep a LOAD_WEIGHTS from a full FIFO and a POP from an
      // empty one)
      assert (32'(count_q) <= Tiles) else $error("tpu_tile_state: more tiles than Tiles");
      assert (!(push_i && 32'(count_q) == Tiles)) else $error("tpu_tile_state: push when full");
      assert (!(pop_i && count_q == '0)) else $error("tpu_tile_state: pop when empty");
      assert (!(push_i && pop_i)) else $error("tpu_tile_state: push and pop at once");
    end
  end
`endif
endmodule

`default_nettype wire
