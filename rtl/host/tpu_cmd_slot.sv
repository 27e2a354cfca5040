// tpu_cmd_slot: the command slot of tpu_cmd_proc: one datapath command register between the
// command processor's engines and the datapath's command stream (dp_valid_o/dp_ready_i/
// dp_cmd_o, the bus of rtl/datapath/tpu_datapath.sv). An engine loads it when it is free or
// being emptied (free_o); a command stays in it, unchanged, until the datapath takes it.
// Loaders, at most one per cycle (asserted; the sequencer's states, STREAM_MATMUL's tiles and
// epilogue and the READ_HOST background commit keep apart by construction): seq_*, sm_*, ep_*,
// bg_* (priority in that order, lowest first).
// BgBypass (the datapath right behind, no register slice): a MATMUL in the slot is offered only
// when the datapath takes it at once (dp_mm_ok_i; it would otherwise stall the port until the
// running MATMUL issues its last row); meanwhile the port carries the commands that may pass
// it, each taken at once too (bypass_o): the background commit's UB_WRITEs (bg_byp_i, on
// dp_wr_ok_i), which the MATMUL, later and apart from the rows committed, may pass;
// STREAM_MATMUL's A rows (a_byp_i: the waiting MATMUL reads the previous K-tile's UB rows, A's
// row goes to the next K-tile's); and its write-back UB_READ (rd_byp_i, on dp_rd_ok_i: it
// reads the block's output rows from the UB copy, the MATMUL A's rows).
// Handshake (asserted): dp_valid_o does not depend on dp_ready_i; a command offered and not
// taken is offered again, unchanged, in the next cycle; a bypassed command is offered only when
// it is taken; a held-back MATMUL stays in the slot (dp_mm_ok_i leaves out the MATMUL's own
// range terms, so it may be offered and not taken, then held back again).
`default_nettype none

module tpu_cmd_slot #(
  parameter int unsigned N        = 16,
  parameter bit          BgBypass = 1'b0,
  parameter int unsigned RB = N,  // UB row bytes (2N on a bf16 device): the command width
  localparam int unsigned CmdWidth = tpu_pkg::DpCmdDataLsb + 8 * RB
) (
  input  logic                clk_i,
  input  logic                rst_i,
  // loads
  input  logic                seq_load_i,
  input  logic [CmdWidth-1:0] seq_cmd_i,
  input  logic                sm_load_i,
  input  logic [CmdWidth-1:0] sm_cmd_i,
  input  logic                ep_load_i,
  input  logic [CmdWidth-1:0] ep_cmd_i,
  input  logic                bg_load_i,
  input  logic [CmdWidth-1:0] bg_cmd_i,
  // commands that may pass a held-back MATMUL (BgBypass)
  input  logic                bg_byp_i,
  input  logic                a_byp_i,
  input  logic [CmdWidth-1:0] a_cmd_i,
  input  logic                rd_byp_i,
  input  logic [CmdWidth-1:0] rd_cmd_i,
  // the datapath
  output logic                dp_valid_o,
  input  logic                dp_ready_i,
  output logic [CmdWidth-1:0] dp_cmd_o,
  input  logic                dp_mm_ok_i,   // a MATMUL / a UB_WRITE taken now
  input  logic                dp_wr_ok_i,
  // state
  output logic                busy_o,       // the slot holds a command
  output logic                taken_o,      // ... which the datapath takes now
  output logic                free_o,       // the slot may be loaded now
  output logic                bypass_o,     // a command passes the held-back MATMUL now
  output logic                mm_o,         // the slot holds a MATMUL
  output logic [3:0]          op_o,         // the slot's command op
  output logic                mm_accept_o,  // ... which the datapath takes now
  output logic [31:0]         mm_a_o,       // ... its first UB row and rows
  output logic [31:0]         mm_rows_o
);
  localparam int unsigned COp = tpu_pkg::DpCmdOpLsb;

  logic                valid_q, valid_d;
  logic [CmdWidth-1:0] cmd_q, cmd_d;
  logic                hold, bypass;
  logic [CmdWidth-1:0] bypass_cmd;

  assign mm_o       = valid_q && cmd_q[COp +: 4] == tpu_pkg::DpOpMatmul;
  assign hold       = BgBypass && mm_o && !dp_mm_ok_i;
  assign bypass     = hold && (((bg_byp_i || a_byp_i) && dp_wr_ok_i) || rd_byp_i);
  assign bypass_cmd = rd_byp_i ? rd_cmd_i : a_byp_i ? a_cmd_i : bg_cmd_i;
  assign dp_valid_o = bypass || (valid_q && !hold);
  assign dp_cmd_o   = bypass ? bypass_cmd : cmd_q;
  assign taken_o    = dp_ready_i && !bypass;  // the slot's command is taken (when it holds one)
  assign free_o     = !valid_q || taken_o;

  always_comb begin
    valid_d = valid_q && !taken_o;
    cmd_d   = cmd_q;
    if (seq_load_i) cmd_d = seq_cmd_i;
    if (sm_load_i)  cmd_d = sm_cmd_i;
    if (ep_load_i)  cmd_d = ep_cmd_i;
    if (bg_load_i)  cmd_d = bg_cmd_i;
    if (seq_load_i || sm_load_i || ep_load_i || bg_load_i) valid_d = 1'b1;
  end
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      valid_q <= 1'b0;
    end else begin
      valid_q <= valid_d;
    end
  end
  always_ff @(posedge clk_i) cmd_q <= cmd_d;

  assign busy_o      = valid_q;
  assign op_o        = cmd_q[COp +: 4];
  assign bypass_o    = bypass;
  assign mm_accept_o = dp_valid_o && taken_o && cmd_q[COp +: 4] == tpu_pkg::DpOpMatmul;
  assign mm_a_o      = cmd_q[tpu_pkg::DpCmdALsb +: 32];
  assign mm_rows_o   = cmd_q[tpu_pkg::DpCmdRowsLsb +: 32];

`ifndef SYNTHESIS
  logic                stall_q, stall_mm_q;
  logic [CmdWidth-1:0] cmd_prev_q;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      stall_q <= 1'b0;
    end else begin
      // exactly one engine drives the slot in a cycle, and only a free slot is loaded
      assert ($onehot0({seq_load_i, sm_load_i, ep_load_i, bg_load_i}))
        else $error("tpu_cmd_slot: two engines load the command slot");
      assert (!(seq_load_i || sm_load_i || ep_load_i || bg_load_i) || free_o)
        else $error("tpu_cmd_slot: command overwritten before the datapath took it");
      // a bypassed command is offered only when it is taken at once, and only beside a
      // held-back MATMUL
      assert (!bypass || (dp_ready_i && hold)) else $error("tpu_cmd_slot: bypass not taken");
      // valid/ready: an offered command stays offered, unchanged, until taken (but a
      // held-back MATMUL: offered while dp_mm_ok_i, which lacks the MATMUL's own range terms,
      // so it may be offered, not taken, and held back again; it stays in the slot)
      if (stall_q && !stall_mm_q) begin
        assert (dp_valid_o && dp_cmd_o == cmd_prev_q)
          else $error("tpu_cmd_slot: datapath command changed or withdrawn while stalled");
      end
      if (stall_q && stall_mm_q) begin
        assert (valid_q && cmd_q == cmd_prev_q)
          else $error("tpu_cmd_slot: held-back MATMUL left the slot untaken");
      end
      stall_q    <= dp_valid_o && !dp_ready_i;
      stall_mm_q <= BgBypass && mm_o;
    end
    cmd_prev_q <= dp_cmd_o;
  end
`endif
endmodule

`default_nettype wire
