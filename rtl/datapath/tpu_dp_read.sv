// tpu_dp_read: the datapath's read stream: UB_READ (int8 rows from the UB copy, u_ub2, or the
// UB itself without UbReadPort2) and ACC_READ (int32 rows) out on rd_* (valid/ready, one beat
// per row, rd_last_o on the last).
// The RAM's output register is the stream's register: a row is read when it is free or being
// emptied, and it holds while rd_ready_i is low. A RAM with read latency 2 (AccLatency /
// Ub2Latency: its output register) delivers a row two cycles after its read (rd_p1_q in
// between), and that register is loaded in the cycle after any read: so the next read of that
// RAM waits until the row is there (one row per two cycles at most).
// RdReg (board option): the stream leaves through a register (a pipeline register taken when
// empty or being emptied: rd_ready_i still reaches the read issue combinationally), so no path
// runs from a block RAM's read port into the consumer; every beat one cycle later.
// RdChainOn (StreamMm devices): a UB_READ chained on a running ACTIVATE (tpu_dp_accept) reads
// its row r once the ACTIVATE has written it (act_wr_i > r): the write-back streams out with
// the ACTIVATE.
`default_nettype none

module tpu_dp_read #(
  parameter int unsigned N           = 16,
  parameter int unsigned UbRows      = 8192,
  parameter int unsigned AccRows     = 2048,
  parameter bit          UbReadPort2 = 1'b1,
  parameter int unsigned AccLatency  = 1,
  parameter int unsigned Ub2Latency  = 1,  // UB_READ's UB port (u_ub2, or u_ub)
  parameter bit          RdReg       = 1'b0,
  parameter bit          RdChainOn   = 1'b0,
  parameter int unsigned UbW         = N * 8,  // UB row bits (tpu_datapath Bf16: 16N)
  localparam int unsigned UbAw       = $clog2(UbRows),
  localparam int unsigned AccAw      = $clog2(AccRows),
  localparam int unsigned CntW       = $clog2((UbRows > AccRows ? UbRows : AccRows) + 1),
  localparam int unsigned RngW       = CntW + 1
) (
  input  logic              clk_i,
  input  logic              rst_i,
  // the read accepted now (tpu_dp_accept): a UB_READ or an ACC_READ of rows from a
  input  logic              ac_ub_rd_i,
  input  logic              ac_acc_rd_i,
  input  logic [31:0]       cmd_a_i,
  input  logic [CntW-1:0]   cmd_rows_i,
  // a chained UB_READ: the running ACTIVATE (tpu_dp_activate)
  input  logic              act_idle_i,
  input  logic [UbAw-1:0]   act_ub0_i,
  input  logic [CntW-1:0]   act_wr_i,
  // the RAM ports: UB_READ's UB port, the ACC read port (claimed while an ACC_READ runs)
  output logic              ub_re_o,
  output logic [UbAw-1:0]   ub_raddr_o,
  input  logic [UbW-1:0]    ub_rdata_i,
  output logic              acc_re_o,
  output logic [AccAw-1:0]  acc_raddr_o,
  input  logic [N*32-1:0]   acc_rdata_i,
  // the stream
  output logic              rd_valid_o,
  input  logic              rd_ready_i,
  output logic [N*32-1:0]   rd_data_o,
  output logic              rd_last_o,
  // state for the other engines
  output logic              rd_idle_o,   // no row left to read, in flight or at the RAM
  output logic              rd_held_o,   // RdReg: a beat waits in the output register
  output logic              rd_mm_ok_o,  // MATMULs may run beside the stream (no ACC use)
  output logic              rd_acc_o,    // an ACC_READ runs, of the ACC rows [lo, hi)
  output logic [RngW-1:0]   rd_acc_lo_o,
  output logic [RngW-1:0]   rd_acc_hi_o
);
  logic             rd_acc_q;  // the running read is an ACC_READ
  logic [RngW-1:0]  rd_lo_q, rd_hi_q;  // its ACC rows (as accepted)
  logic [AccAw-1:0] rd_addr_acc_q;
  logic [UbAw-1:0]  rd_addr_ub_q;
  logic             rd_valid_q, rd_last_q, rd_src_acc_q;  // the beat at the RAM's output
  logic             rd_active, rd_one, rd_fire, rd_idle;
  logic             rd_p1_q;  // latency 2: a row read last cycle, not yet out
  logic             rd_take;  // the beat at the RAM's output leaves now (see g_rd_reg)
  logic             rd_chain_q;
  logic [CntW-1:0]  rd_n_q, rd_left;
  logic             rd_out_busy;  // RdReg: a beat waits in the output register

  if (AccLatency < 1 || AccLatency > 2 || Ub2Latency < 1 || Ub2Latency > 2 ||
      (Ub2Latency == 2 && !UbReadPort2)) begin : g_bad_latency
    $error("tpu_dp_read: latencies 1 or 2; Ub2Latency 2 needs UbReadPort2");
  end

  tpu_row_counter #(.Width(CntW)) u_left (
    .clk_i, .rst_i, .load_i(ac_ub_rd_i || ac_acc_rd_i), .rows_i(cmd_rows_i), .dec_i(rd_fire),
    .left_o(rd_left), .nz_o(rd_active), .one_o(rd_one)
  );

  // (RdChainOn: row rd_n_q of a chained read once the ACTIVATE has written it)
  assign rd_fire = rd_active && (!rd_valid_q || rd_take) && !rd_p1_q &&
                   (!rd_chain_q || rd_n_q < act_wr_i);
  if (RdChainOn) begin : g_rd_chain
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        rd_chain_q <= 1'b0;
      end else if (ac_ub_rd_i || ac_acc_rd_i) begin
        rd_chain_q <= ac_ub_rd_i && !act_idle_i;
      end
      if (ac_ub_rd_i || ac_acc_rd_i) begin
        rd_n_q <= '0;
      end else if (rd_fire) begin
        rd_n_q <= rd_n_q + 1'b1;
      end
    end
`ifndef SYNTHESIS
    // a chained read reads only rows the ACTIVATE wrote in an earlier cycle
    always_ff @(posedge clk_i) begin
      if (!rst_i && rd_fire && rd_chain_q) begin
        assert (!rd_acc_q && RngW'(rd_addr_ub_q) - RngW'(act_ub0_i) < RngW'(act_wr_i))
          else $error("tpu_dp_read: chained UB_READ before the ACTIVATE's row is written");
      end
    end
`endif
  end else begin : g_no_rd_chain
    assign rd_chain_q = 1'b0;
    assign rd_n_q     = '0;
  end
  assign rd_idle = !rd_active && !rd_valid_q && !rd_p1_q;

  // the beat that reaches the RAM's output now (latency 2: a row read a cycle earlier)
  logic rd_arrive;
  if (AccLatency == 2 || Ub2Latency == 2) begin : g_rd_p1
    logic rd_two;  // the RAM this read uses has an output register
    assign rd_two = rd_acc_q ? AccLatency == 2 : Ub2Latency == 2;
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        rd_p1_q <= 1'b0;
      end else begin
        rd_p1_q <= rd_fire && rd_two;
      end
    end
    assign rd_arrive = (rd_fire && !rd_two) || rd_p1_q;
  end else begin : g_rd_p0
    assign rd_p1_q   = 1'b0;
    assign rd_arrive = rd_fire;
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      rd_valid_q <= 1'b0;
    end else if (rd_arrive) begin
      rd_valid_q <= 1'b1;
    end else if (rd_take) begin
      rd_valid_q <= 1'b0;
    end
  end
  always_ff @(posedge clk_i) begin
    if (ac_ub_rd_i || ac_acc_rd_i) begin
      rd_acc_q      <= ac_acc_rd_i;
      rd_addr_ub_q  <= UbAw'(cmd_a_i);
      rd_addr_acc_q <= AccAw'(cmd_a_i);
      rd_lo_q       <= RngW'(AccAw'(cmd_a_i));
      rd_hi_q       <= RngW'(AccAw'(cmd_a_i)) + RngW'(cmd_rows_i);
    end else if (rd_fire) begin
      rd_addr_ub_q  <= rd_addr_ub_q + 1'b1;
      rd_addr_acc_q <= rd_addr_acc_q + 1'b1;
    end
    if (rd_fire) begin
      rd_last_q    <= rd_one;
      rd_src_acc_q <= rd_acc_q;
    end
  end

  logic [N*32-1:0] rd_data;
  assign rd_data = rd_src_acc_q ? acc_rdata_i : {{(N*32-UbW){1'b0}}, ub_rdata_i};
  if (RdReg) begin : g_rd_reg
    logic            o_valid_q, o_last_q;
    logic [N*32-1:0] o_data_q;
    assign rd_take = !o_valid_q || rd_ready_i;
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        o_valid_q <= 1'b0;
      end else if (rd_take) begin
        o_valid_q <= rd_valid_q;
      end
      if (rd_take) begin
        o_last_q <= rd_last_q;
        o_data_q <= rd_data;
      end
    end
    assign rd_valid_o  = o_valid_q;
    assign rd_last_o   = o_last_q;
    assign rd_data_o   = o_data_q;
    assign rd_out_busy = o_valid_q;
  end else begin : g_rd_direct
    assign rd_take     = rd_ready_i;
    assign rd_valid_o  = rd_valid_q;
    assign rd_last_o   = rd_last_q;
    assign rd_data_o   = rd_data;
    assign rd_out_busy = 1'b0;
  end

  assign ub_re_o     = rd_fire && !rd_acc_q;
  assign ub_raddr_o  = rd_addr_ub_q;
  assign acc_re_o    = rd_fire && rd_acc_q;
  assign acc_raddr_o = rd_addr_acc_q;
  assign rd_idle_o   = rd_idle;
  assign rd_held_o   = rd_out_busy;
  // a read stream that MATMULs may run beside: a UB_READ on the UB copy (an ACC_READ or its
  // held last row would share the ACC port with the MATMUL's read-modify-write)
  assign rd_mm_ok_o  = rd_idle || (UbReadPort2 && !(rd_active && rd_acc_q) &&
                                   !(rd_valid_q && rd_src_acc_q) && !rd_p1_q);
  assign rd_acc_o    = !rd_idle && rd_acc_q;
  assign rd_acc_lo_o = rd_lo_q;
  assign rd_acc_hi_o = rd_hi_q;

  logic unused;
  assign unused = ^{cmd_a_i, rd_left, act_idle_i, act_ub0_i};  // (RdChainOn only)

`ifndef SYNTHESIS
  logic            rd_stall_q, rd_last_prev_q;
  logic [N*32-1:0] rd_prev_q;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      rd_stall_q <= 1'b0;
    end else begin
      // handshake: a stalled beat stays offered and unchanged
      if (rd_stall_q) begin
        assert (rd_valid_o && rd_data_o == rd_prev_q && rd_last_o == rd_last_prev_q)
          else $error("tpu_dp_read: rd stream changed while stalled");
      end
      rd_stall_q <= rd_valid_o && !rd_ready_i;
    end
    rd_prev_q      <= rd_data_o;
    rd_last_prev_q <= rd_last_o;
  end
`endif
endmodule

`default_nettype wire
