// tpu_stream_epilogue: STREAM_MATMUL's block epilogue in tpu_cmd_proc (StreamMm, OP0.ACTIVATE;
// docs/device.md). After a block's bias rows are in (tpu_stream_matmul: start_act_i, its ACC
// rows acc_row_i and output UB rows out_row_i), the writer issues the block's N bias PARAM
// writes and then its ACTIVATE (ACC rows -> UB rows, R rows) through the command slot while
// the next block's tiles are pushed; with OP0.PARAMS it first writes the MULT and the SHIFT
// vector the same way (start_vec_i: N PARAM writes of that kind, no ACTIVATE).
// Ordering of the ACTIVATE against the next block's MATMULs:
//   - chain_i (the next block's first MATMUL does not accumulate and its A rows lie apart from
//     the output rows): the ACTIVATE waits until that MATMUL is in the slot (mm_issued_i), so
//     the datapath runs it beside that MATMUL once the block's last MATMUL has drained; the
//     tile after it waits for the ACTIVATE (hold_o);
//   - chained (tpu_datapath StreamMm: dp_act_chain_i, an ACTIVATE offered next cycle is taken
//     on the last MATMUL's ACC writes; its output rows apart from that MATMUL's A rows,
//     last_a_row_i): it goes before that MATMUL after all (chain_go);
//   - otherwise before the next MATMUL, which then waits for it.
// WRITE_BACK: once the block's ACTIVATE is done (act_done_i; RdChain: right after it is issued,
// the datapath reads each row once written), a UB_READ of its R output rows goes into the slot
// before anything else (rd_go_o; or beside the MATMUL waiting there, rd_byp_o: it reads output
// rows, the MATMUL A's), and its rows stream to tpu_write_gather (wb_o) as write jobs to
// HOST_ADDR2 + (b x R + r) x N. The next ACTIVATE waits until the previous one is done and its
// read issued. After a failed stream only blocks whose stream rows all came in are written back
// (complete: the golden model's order). busy_o: the writer, an ACTIVATE or a read still runs
// (the command ends only after them, so its act_done_i is never a later ACTIVATE's).
`default_nettype none

module tpu_stream_epilogue #(
  parameter int unsigned N        = 16,
  parameter bit          StreamMm = 1'b1,
  parameter bit          RdChain  = 1'b0,  // the write-back read right after the ACTIVATE
  parameter int unsigned RB = N,  // UB row bytes (2N on a bf16 device): the command width
  localparam int unsigned CmdWidth = tpu_pkg::DpCmdDataLsb + 8 * RB
) (
  input  logic                clk_i,
  input  logic                rst_i,
  input  logic                start_i,        // CHECK2 starts the command
  input  logic                active_i,       // the sequencer is in SSm
  input  logic [31:0]         op0_i,
  input  logic [31:0]         op1_i,          // R
  input  logic [63:0]         addr2_i,        // HOST_ADDR2 (WRITE_BACK)
  // tpu_stream_matmul
  input  logic                start_act_i,    // a block's epilogue: its bias is in vec_i
  input  logic [31:0]         acc_row_i,
  input  logic [31:0]         out_row_i,
  input  logic                complete_i,     // ... all its stream rows came in
  input  logic                chain_i,        // ... its ACTIVATE after the next MATMUL
  input  logic                start_vec_i,    // a MULT / SHIFT vector in vec_i to write
  input  logic [2:0]          kind_i,
  input  logic [4*N*8-1:0]    vec_i,
  input  logic                mm_issued_i,    // a tile's MATMUL goes into the slot now
  input  logic                end_i,          // no further MATMUL comes
  input  logic [31:0]         last_a_row_i,   // UB rows of the last MATMUL in the slot
  // the command slot and the datapath
  input  logic                slot_busy_i,
  input  logic                slot_taken_i,
  input  logic                bypass_i,
  input  logic                dp_act_chain_i,
  input  logic                dp_rd_ok_i,
  input  logic                act_done_i,
  input  logic                rd_take_i,      // a write-back row is taken now
  input  logic                dp_rd_last_i,
  output logic                slot_load_o,
  output logic [CmdWidth-1:0] slot_cmd_o,
  output logic                rd_go_o,        // the write-back read into the slot now
  output logic                rd_byp_o,       // ... or beside the MATMUL waiting there
  output logic [CmdWidth-1:0] rd_cmd_o,       // ... the UB_READ
  // state
  output logic                writer_o,       // the writer runs
  output logic                hold_o,         // a tile's MATMUL must wait for it
  output logic                busy_o,
  output logic                wb_o,           // write-back rows stream (tpu_write_gather)
  output logic [63:0]         wb_addr_o       // ... the host address of the next one
);
  localparam logic [3:0] DpParam = tpu_pkg::DpOpParam, DpActivate = tpu_pkg::DpOpActivate,
                         DpUbRead = tpu_pkg::DpOpUbRead;
  localparam int unsigned COp = tpu_pkg::DpCmdOpLsb, CFl = tpu_pkg::DpCmdFlagsLsb,
                          CA = tpu_pkg::DpCmdALsb, CB = tpu_pkg::DpCmdBLsb,
                          CRows = tpu_pkg::DpCmdRowsLsb, CData = tpu_pkg::DpCmdDataLsb;

  logic        lut, wb;
  assign lut = (op0_i & tpu_pkg::StreamMatmulLut) != 0;
  assign wb  = (op0_i & tpu_pkg::StreamMatmulWriteBack) != 0;

  logic        writer_q, writer_d;        // PARAM writes (and the ACTIVATE) to issue
  logic [31:0] count_q, count_d;          // PARAM writes issued (N: the ACTIVATE next)
  logic [2:0]  kind_q, kind_d;            // their kind (BIAS: the block epilogue's)
  logic [31:0] acc_q, acc_d, out_q, out_d;  // the ACTIVATE's ACC and UB rows
  logic        chain_q, chain_d;          // the ACTIVATE waits for the next MATMUL
  logic        complete_q, complete_d;    // the block's stream rows all came in
  logic        act_wait_q, act_wait_d;    // the ACTIVATE issued, not yet done
  logic        rd_pend_q, rd_pend_d;      // the write-back read to issue
  logic        rd_run_q, rd_run_d;        // ... its rows still coming
  logic [31:0] rd_row_q, rd_row_d;        // ... its UB rows
  logic        rd_complete_q, rd_complete_d;
  logic [63:0] wb_addr_q, wb_addr_d;
  logic        slot_free, chain_go;

  assign slot_free = !slot_busy_i || slot_taken_i;
  // the ACTIVATE chained when the datapath takes it so in the next cycle and its UB rows lie
  // apart from the last MATMUL's: else it would wait there for the MXU to drain
  assign chain_go = active_i && writer_q && chain_q && count_q == N && dp_act_chain_i &&
                    (out_q + op1_i <= last_a_row_i || last_a_row_i + op1_i <= out_q) &&
                    (!wb || (!act_wait_q && !rd_pend_q));
  assign rd_go_o  = active_i && rd_pend_q && !rd_run_q && slot_free;
  assign rd_byp_o = StreamMm && active_i && rd_pend_q && !rd_run_q && dp_rd_ok_i;
  assign hold_o   = writer_q && !(chain_q && count_q == N && !chain_go);
  assign busy_o   = writer_q || act_wait_q || rd_pend_q || rd_run_q;
  always_comb begin
    rd_cmd_o = '0;
    rd_cmd_o[COp +: 4]    = DpUbRead;
    rd_cmd_o[CA +: 32]    = rd_row_q;
    rd_cmd_o[CRows +: 32] = op1_i;
  end

  always_comb begin
    writer_d = writer_q;  count_d = count_q;  kind_d = kind_q;  acc_d = acc_q;  out_d = out_q;
    chain_d = chain_q;  complete_d = complete_q;  act_wait_d = act_wait_q && !act_done_i;
    rd_pend_d = rd_pend_q;  rd_run_d = rd_run_q;  rd_row_d = rd_row_q;
    rd_complete_d = rd_complete_q;  wb_addr_d = wb_addr_q;
    slot_load_o = 1'b0;  slot_cmd_o = '0;
    if (start_i) begin
      writer_d = 1'b0;  chain_d = 1'b0;  kind_d = 3'(tpu_pkg::ParamBias);
      rd_pend_d = 1'b0;  rd_run_d = 1'b0;  wb_addr_d = addr2_i;
    end
    if (start_act_i) begin
      writer_d = 1'b1;  count_d = '0;  acc_d = acc_row_i;  out_d = out_row_i;
      complete_d = complete_i;  chain_d = chain_i;
    end
    if (start_vec_i) begin
      writer_d = 1'b1;  count_d = '0;  kind_d = kind_i;
    end
    if (mm_issued_i) chain_d = 1'b0;
    // the writer: the N PARAM writes, then the ACTIVATE, in the command slot between the
    // previous tile's MATMUL and the next (a tile's MATMUL waits for it: hold_o); with
    // chain_q the ACTIVATE after the next block's first MATMUL (which is then the datapath's
    // last accepted MATMUL and does not accumulate: the ACTIVATE is accepted beside it once
    // the block's last MATMUL has drained, not after the next one; measured ~75 MXU-idle
    // cycles per block at R = 64); end_i: no next MATMUL comes (a failed stream)
    // (WRITE_BACK: the ACTIVATE only when the previous one is done and its read issued, so
    // that act_done_i and the read's rows are this one's)
    if (active_i && writer_q && slot_free && !rd_go_o &&
        (count_q != N || !chain_q || end_i || chain_go) &&
        (count_q != N || !wb || (!act_wait_q && !rd_pend_q))) begin
      slot_load_o = 1'b1;
      if (count_q != N) begin
        slot_cmd_o[COp +: 4] = DpParam;  slot_cmd_o[CFl +: 3] = kind_q;
        slot_cmd_o[CA +: 32] = count_q;
        slot_cmd_o[CData +: 32] = vec_i[32*count_q[$clog2(N)-1:0] +: 32];
        count_d = count_q + 32'd1;
        // (PARAMS: the vector written, no ACTIVATE; the bias epilogues follow later)
        if (count_q + 32'd1 == N && kind_q != 3'(tpu_pkg::ParamBias)) begin
          writer_d = 1'b0;  kind_d = 3'(tpu_pkg::ParamBias);
        end
      end else begin
        slot_cmd_o[COp +: 4] = DpActivate;  slot_cmd_o[CFl] = lut;
        slot_cmd_o[CA +: 32] = acc_q;  slot_cmd_o[CB +: 32] = out_q;
        slot_cmd_o[CRows +: 32] = op1_i;
        act_wait_d = 1'b1;
        writer_d = 1'b0;
        chain_d = 1'b0;
        rd_row_d = out_q;  rd_complete_d = complete_q;
        if (RdChain && wb && complete_q) rd_pend_d = 1'b1;
      end
    end
    // WRITE_BACK: the block's ACTIVATE done -> a UB_READ of its output rows (on the UB's
    // second read port, beside the MATMULs) when nothing else goes into the slot; the next
    // ACTIVATE waits for the read (rd_idle) (RdChain: issued right after the ACTIVATE)
    if (active_i && wb && act_wait_q && act_done_i && rd_complete_q && !RdChain) rd_pend_d = 1'b1;
    if (rd_go_o) begin
      slot_load_o = 1'b1;
      slot_cmd_o = rd_cmd_o;
      rd_pend_d = 1'b0;  rd_run_d = 1'b1;
    end else if (bypass_i && rd_byp_o) begin
      rd_pend_d = 1'b0;  rd_run_d = 1'b1;  // (beside the waiting MATMUL)
    end
    if (active_i && rd_run_q && rd_take_i) begin
      wb_addr_d = wb_addr_q + 64'(N);
      if (dp_rd_last_i) rd_run_d = 1'b0;
    end
    if (!StreamMm) begin  // (constant: synthesis drops the engine)
      writer_d = 1'b0;  count_d = '0;  kind_d = '0;  acc_d = '0;  out_d = '0;  chain_d = 1'b0;
      complete_d = 1'b0;  act_wait_d = 1'b0;  rd_pend_d = 1'b0;  rd_run_d = 1'b0;
      rd_row_d = '0;  rd_complete_d = 1'b0;  wb_addr_d = '0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      writer_q <= 1'b0;  chain_q <= 1'b0;  act_wait_q <= 1'b0;  rd_pend_q <= 1'b0;
      rd_run_q <= 1'b0;
    end else begin
      writer_q <= writer_d;  chain_q <= chain_d;  act_wait_q <= act_wait_d;
      rd_pend_q <= rd_pend_d;  rd_run_q <= rd_run_d;
    end
  end
  always_ff @(posedge clk_i) begin
    count_q <= count_d;  kind_q <= kind_d;  acc_q <= acc_d;  out_q <= out_d;
    complete_q <= complete_d;  rd_row_q <= rd_row_d;  rd_complete_q <= rd_complete_d;
    wb_addr_q <= wb_addr_d;
  end

  assign writer_o  = writer_q;
  assign wb_o      = active_i && rd_run_q;
  assign wb_addr_o = wb_addr_q;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      assert (!writer_q || count_q <= N) else $error("tpu_stream_epilogue: PARAM writes > N");
      assert (!((start_act_i || start_vec_i) && writer_q))
        else $error("tpu_stream_epilogue: writer started while it runs");
      assert (!(rd_go_o && rd_run_q)) else $error("tpu_stream_epilogue: second read");
    end
  end
`endif
endmodule

`default_nettype wire
