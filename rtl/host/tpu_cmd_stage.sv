// tpu_cmd_stage: the staging RAM of tpu_cmd_proc (one tpu_ram of Depth rows of RB bytes: N, or
// 2N on a bf16 device; read latency 1) and its two ports:
//   write: a row of the DMA engine's row stream (rs_row_data_i), for the command's own rows
//          (seq_we_i, at the sequencer's ring row) or a read-ahead's (a READ_HOST's, rh_*, or a
//          weight tile's, ra_*, each at its region's row); bytes at and above the row's bytes
//          are zeroed (the read-ahead's own COLS, else the command's row bytes, cols_i);
//   read:  the sequencer's states (commit, push, staged LUT, STREAM_MATMUL: seq_re_i), else the
//          background commit (bg_re_i).
// Exactly one engine drives each port in a cycle (asserted): the stream's row belongs to one
// consumer, and the background commit reads only in the states that leave the port free. No
// access during reset: before the first reset edge the state is random (Verilator's random
// initial state) and would address a random, possibly out-of-range, row.
`default_nettype none

module tpu_cmd_stage #(
  parameter int unsigned N     = 16,
  parameter int unsigned Depth = 384,
  parameter int unsigned RB    = N,
  localparam int unsigned Aw   = $clog2(Depth)
) (
  input  logic           clk_i,
  input  logic           rst_i,
  input  logic [RB*8-1:0] rs_row_data_i,
  input  logic           seq_we_i,
  input  logic [Aw-1:0]  seq_waddr_i,
  input  logic [31:0]    cols_i,       // the command's row bytes (COLS, 2 x COLS for bf16)
  input  logic           rh_we_i,      // the head READ_HOST's row
  input  logic           rh_next_i,    // ... the stream's next row is its
  input  logic [Aw-1:0]  rh_waddr_i,
  input  logic [RB*8-1:0] rh_mask_i,
  input  logic           rh2_we_i,     // the second READ_HOST's
  input  logic           rh2_next_i,
  input  logic [Aw-1:0]  rh2_waddr_i,
  input  logic [RB*8-1:0] rh2_mask_i,
  input  logic           ra_we_i,      // a weight tile's
  input  logic           ra_streaming_i,
  input  logic [Aw-1:0]  ra_waddr_i,
  input  logic [RB*8-1:0] ra_mask_i,
  input  logic           seq_re_i,
  input  logic [Aw-1:0]  seq_raddr_i,
  input  logic           bg_re_i,
  input  logic [Aw-1:0]  bg_raddr_i,
  output logic           we_o,         // (for the background commit's assertions)
  output logic [Aw-1:0]  waddr_o,
  output logic [RB*8-1:0] rdata_o
);
  logic           re;
  logic [Aw-1:0]  raddr;
  logic [RB*8-1:0] wdata, row_mask;
  always_comb begin
    for (int unsigned i = 0; i < RB; i++) row_mask[8*i +: 8] = (32'(i) < cols_i) ? 8'hFF : 8'h00;
  end
  assign we_o    = seq_we_i || ra_we_i || rh_we_i || rh2_we_i;
  assign waddr_o = rh_we_i ? rh_waddr_i : rh2_we_i ? rh2_waddr_i : ra_we_i ? ra_waddr_i
                                                                           : seq_waddr_i;
  assign wdata   = rs_row_data_i & (rh_next_i ? rh_mask_i : rh2_next_i ? rh2_mask_i :
                                    ra_streaming_i ? ra_mask_i : row_mask);
  assign re      = seq_re_i || bg_re_i;
  assign raddr   = bg_re_i ? bg_raddr_i : seq_raddr_i;
  tpu_ram #(.Width(RB * 8), .Depth(Depth)) u_ram (
    .clk_i, .we_i(we_o && !rst_i), .waddr_i(waddr_o), .wdata_i(wdata),
    .re_i(re && !rst_i), .raddr_i(raddr), .rdata_o(rdata_o)
  );

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      assert ($onehot0({seq_we_i, ra_we_i, rh_we_i, rh2_we_i}))
        else $error("tpu_cmd_stage: two engines write the staging RAM");
      assert ($onehot0({seq_re_i, bg_re_i})) else $error("tpu_cmd_stage: two engines read it");
    end
  end
`endif
endmodule

`default_nettype wire
