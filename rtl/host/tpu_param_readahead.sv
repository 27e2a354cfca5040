// tpu_param_readahead: the LOAD_PARAMS read-ahead of tpu_cmd_proc (ReadAhead). One parameter
// vector (BIAS/MULT/SHIFT, 4 x COLS bytes; tpu_peek_decode's candidate) is read by a read job
// of the DMA engine while earlier commands run, and copied into a 4N-byte buffer when the job
// ends (the job buffer is held, rd_hold, until then: tpu_cmd_seq).
// start_i: the read job is requested and taken now (its read: addr/len/qid). The job ends with
// rd_done_i (rd_err_i: failed). A LOAD_PARAMS that reaches CHECK2 with all checks passed and
// the same read (match_o: HOST_ADDR, LENGTH, queue) adopts it (check2_i, adopt_i: use_o from
// then on, for the command): it waits for the job (busy_o), gets DMA_XFER_ERROR if the job
// failed (err_o), else checks and writes vec_o exactly as its own read. drop_i (CHECK2: any
// other BIAS/MULT/SHIFT load, FENCE, IDENTIFY, a WRITE_HOST not apart from the vector, a
// STREAM_MATMUL that writes host memory) forgets it: a job still running ends unused (busy_o
// stays until then, so a LOAD_PARAMS of its own waits for the job engine). abandon_i: the
// adopting command timed out (its job is abandoned). abort_i: rdy_i low, the DMA engine
// abandons the job.
// vec_o: the vector the running LOAD_PARAMS uses: the read-ahead copy when it adopted one,
// else the job buffer of its own read.
`default_nettype none

module tpu_param_readahead #(
  parameter int unsigned N         = 16,
  parameter bit          ReadAhead = 1'b1
) (
  input  logic               clk_i,
  input  logic               rst_i,
  // the read job
  input  logic               start_i,
  input  logic [63:0]        addr_i,
  input  logic [31:0]        len_i,
  input  logic [7:0]         qid_i,
  input  logic               rd_done_i,
  input  logic               rd_err_i,
  input  logic [4*N*8-1:0]   rd_vec_i,   // the read job buffer's first 4N bytes
  // the sequencer
  input  logic               take_i,     // a command is taken (no read-ahead in use yet)
  input  logic               check2_i,   // CHECK2 of the command
  input  logic               adopt_i,    // ... which adopts the read-ahead
  input  logic               drop_i,     // ... or drops it
  input  logic               abandon_i,  // the adopting command's job is abandoned (timeout)
  input  logic               abort_i,    // rdy_i low
  // the running command's read
  input  logic [63:0]        cmd_addr_i,
  input  logic [31:0]        cmd_len_i,
  input  logic [7:0]         cmd_qid_i,
  // state
  output logic               valid_o,    // a read-ahead is held
  output logic               busy_o,     // its read job is outstanding (also once dropped)
  output logic               err_o,      // ... and ended with an error
  output logic               match_o,    // its read is the command's
  output logic               apart_o,    // its vector is apart from the command's span
  output logic [4*N*8-1:0]   vec_o
);
  logic             valid_q, valid_d, busy_q, busy_d, err_q, err_d, use_q, use_d;
  logic [63:0]      addr_q, addr_d;
  logic [31:0]      len_q, len_d;
  logic [7:0]       qid_q, qid_d;
  logic [4*N*8-1:0] buf_q;

  always_comb begin
    valid_d = valid_q;  busy_d = busy_q;  err_d = err_q;  use_d = use_q;
    addr_d = addr_q;  len_d = len_q;  qid_d = qid_q;
    if (start_i) begin
      valid_d = 1'b1;  busy_d = 1'b1;  err_d = 1'b0;
      addr_d = addr_i;  len_d = len_i;  qid_d = qid_i;
    end
    if (busy_q && rd_done_i) begin
      busy_d = 1'b0;
      err_d = rd_err_i;
    end
    if (abort_i) begin
      valid_d = 1'b0;  busy_d = 1'b0;
    end
    if (take_i) use_d = 1'b0;
    if (check2_i) begin
      if (drop_i) valid_d = 1'b0;
      use_d = adopt_i;
    end
    if (abandon_i) busy_d = 1'b0;
    if (!ReadAhead) begin  // (constant: synthesis drops the read-ahead)
      valid_d = 1'b0;  busy_d = 1'b0;  use_d = 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      valid_q <= 1'b0;  busy_q <= 1'b0;  use_q <= 1'b0;
    end else begin
      valid_q <= valid_d;  busy_q <= busy_d;  use_q <= use_d;
    end
  end
  always_ff @(posedge clk_i) begin
    err_q <= err_d;  addr_q <= addr_d;  len_q <= len_d;  qid_q <= qid_d;
  end
  if (ReadAhead) begin : g_buf
    logic [4*N*8-1:0] buf_d;
    assign buf_d = (busy_q && rd_done_i) ? rd_vec_i : buf_q;
    always_ff @(posedge clk_i) buf_q <= buf_d;
  end else begin : g_no_buf
    assign buf_q = '0;
  end

  assign valid_o = valid_q;
  assign busy_o  = busy_q;
  assign err_o   = err_q;
  assign match_o = cmd_addr_i == addr_q && cmd_len_i == len_q && cmd_qid_i == qid_q;
  assign apart_o = {1'b0, addr_q} + {33'd0, len_q} <= {1'b0, cmd_addr_i} ||
                   {1'b0, cmd_addr_i} + {33'd0, cmd_len_i} <= {1'b0, addr_q};
  assign vec_o   = use_q ? buf_q : rd_vec_i;

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // one vector at a time: a new job only when none is outstanding or held
      assert (!start_i || (!valid_q && !busy_q)) else $error("tpu_param_readahead: second job");
      // adopted only with the same read, and only while held
      assert (!(check2_i && adopt_i) || (valid_q && match_o))
        else $error("tpu_param_readahead: adopted without the same read");
      assert (!use_q || !valid_q) else $error("tpu_param_readahead: in use and still held");
    end
  end
`endif
endmodule

`default_nettype wire
