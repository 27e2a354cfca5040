// tpu_write_gather: the write jobs of tpu_cmd_proc on the DMA engine's wr_req port:
//   WRITE_HOST (wh_i: rows of the datapath's UB_READ/ACC_READ stream on dp_rd_*): each row read
//     out becomes one write job of its row bytes at HOST_ADDR + r x stride, or, when rows are
//     packed (stride = row bytes), consecutive rows are gathered into one job of up to WrBytes
//     bytes (one MWR header per job instead of per row): a job ends with the last row, with
//     unpacked rows, or when the next row would not fit;
//   STREAM_MATMUL's WRITE_BACK (wb_i): the output rows of each block (N bytes each, packed)
//     gathered the same way to the write-back address (tpu_stream_epilogue); dropping rdy_i
//     drains the rows without writing;
//   FENCE's 8-byte semaphore and IDENTIFY's 4096-byte page in IdChunk-byte chunks (job_i: one
//     job offered until taken, from tpu_cmd_seq's SWrJob).
// Handshakes: a gathered job is offered in the cycle its last row is on dp_rd_* and that row is
// taken (dp_rd_ready_o) in the same cycle as the job (wr_req_ready_i); rows that do not end a
// job are taken at once into the gather register (gather_q, bytes_q bytes, the next row's
// bytes above them). WRITE_HOST's drain (drain_i, after a timeout): rows taken, no job.
`default_nettype none

module tpu_write_gather #(
  parameter int unsigned N       = 16,
  parameter int unsigned WrBytes = 64,
  parameter int unsigned LenW    = 11,
  parameter int unsigned IdChunk = 64
) (
  input  logic                 clk_i,
  input  logic                 rst_i,
  input  logic                 rdy_i,
  // the sequencer
  input  logic                 clear_i,        // a row stream starts: nothing gathered
  input  logic                 wh_i,           // WRITE_HOST streams rows
  input  logic                 drain_i,        // ... drains them (timed out)
  input  logic                 wb_i,           // STREAM_MATMUL's write-back rows stream
  input  logic                 job_i,          // a FENCE / IDENTIFY job
  input  logic                 fence_i,        // ... FENCE's
  input  logic [63:0]          semaphore_i,    // FENCE's 8 bytes ({OP1, OP0})
  input  logic                 ident_first_i,  // IDENTIFY's first chunk (bytes 0..35 below)
  input  logic [287:0]         ident_i,
  input  logic [31:0]          row_bytes_i,    // WRITE_HOST's row bytes (<= 4N) and stride
  input  logic [63:0]          stride_i,
  input  logic [63:0]          wh_addr_i,      // host address of the row on dp_rd_*
  input  logic [63:0]          wb_addr_i,      // ... of the write-back's row
  // the datapath's read stream
  input  logic                 dp_rd_valid_i,
  output logic                 dp_rd_ready_o,
  input  logic [N*32-1:0]      dp_rd_data_i,
  input  logic                 dp_rd_last_i,
  output logic                 take_o,         // a row is taken now
  // the write jobs
  output logic                 wr_req_valid_o,
  input  logic                 wr_req_ready_i,
  output logic [63:0]          wr_req_addr_o,
  output logic [LenW-1:0]      wr_req_len_o,
  output logic [WrBytes*8-1:0] wr_req_data_o
);
  if (WrBytes < 4 * N || WrBytes < IdChunk) begin : g_bad_bytes
    $error("tpu_write_gather: WrBytes must hold a 4N-byte row and an IDENTIFY chunk");
  end

  logic [WrBytes*8-1:0] gather_q;           // packed rows gathered
  logic [LenW-1:0]      bytes_q;            // ... their bytes (0: none)
  logic                 wh_flush, wb_flush; // the row on dp_rd_* ends the job
  logic [WrBytes*8-1:0] row;                // that row, bytes >= row bytes cleared
  logic [WrBytes*8-1:0] gathered;           // the gathered rows and that row after them
  always_comb begin
    wh_flush = stride_i != {32'd0, row_bytes_i} || dp_rd_last_i ||
               32'(bytes_q) + 2 * row_bytes_i > 32'(WrBytes);
    wb_flush = dp_rd_last_i || 32'(bytes_q) + 2 * N > 32'(WrBytes);
    for (int unsigned i = 0; i < WrBytes; i++) begin
      row[8*i +: 8] = (32'(i) < row_bytes_i && i < N * 4) ? dp_rd_data_i[8*(i % (N * 4)) +: 8]
                                                           : 8'd0;
    end
    // (one shift of the row for the job and the gather register)
    gathered = gather_q | (row << (8 * bytes_q));
  end
  assign dp_rd_ready_o = (wh_i && (wr_req_ready_i || !wh_flush)) || drain_i ||
                         (wb_i && (wr_req_ready_i || !wb_flush || !rdy_i));
  assign take_o        = dp_rd_valid_i && dp_rd_ready_o;

  // The gather register's next state at the edge (not an always_comb of *_d signals: it reads
  // take_o, which depends on the link's inputs through wr_req_ready_i, and the simulation
  // evaluates such combinational logic on both clock phases; the logic is the same).
  always_ff @(posedge clk_i) begin
    if (clear_i) begin
      gather_q <= '0;
      bytes_q  <= '0;
    end else if (take_o && wh_i) begin
      gather_q <= wh_flush ? '0 : gathered;
      bytes_q  <= wh_flush ? '0 : bytes_q + LenW'(row_bytes_i);
    end else if (take_o && wb_i) begin
      gather_q <= wb_flush ? '0 : gathered;
      bytes_q  <= wb_flush ? '0 : bytes_q + LenW'(N);
    end
  end

  // the job offered: its data, address and length do not depend on the handshake
  always_comb begin
    wr_req_addr_o  = wh_addr_i;
    wr_req_len_o   = LenW'(row_bytes_i);
    wr_req_data_o  = (WrBytes*8)'(dp_rd_data_i);
    if (wh_i) begin
      // the gathered rows start bytes_q before the current row (packed)
      wr_req_addr_o  = wh_addr_i - 64'(bytes_q);
      wr_req_len_o   = bytes_q + LenW'(row_bytes_i);
      wr_req_data_o  = gathered;
    end else if (wb_i) begin
      wr_req_addr_o  = wb_addr_i - 64'(bytes_q);
      wr_req_len_o   = bytes_q + LenW'(N);
      wr_req_data_o  = gathered;
    end else if (job_i) begin
      if (fence_i) begin
        wr_req_len_o  = LenW'(8);
        wr_req_data_o = (WrBytes*8)'(semaphore_i);
      end else begin
        wr_req_len_o  = LenW'(IdChunk);
        wr_req_data_o = ident_first_i ? (WrBytes*8)'(ident_i) : '0;
      end
    end
  end
  always_comb begin
    wr_req_valid_o = 1'b0;
    if (wh_i) begin
      wr_req_valid_o = dp_rd_valid_i && wh_flush;
    end else if (wb_i) begin
      wr_req_valid_o = rdy_i && dp_rd_valid_i && wb_flush;
    end else if (job_i) begin
      wr_req_valid_o = 1'b1;
    end
  end

`ifndef SYNTHESIS
  logic                 stall_q;
  logic [2:0]           src_q;  // {wh_i, wb_i, job_i} of the stalled job
  logic [63:0]          addr_prev_q;
  logic [LenW-1:0]      len_prev_q;
  logic [WrBytes*8-1:0] data_prev_q;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      stall_q <= 1'b0;
    end else begin
      // a job offered and not taken stays offered, unchanged, while its source runs (the row
      // under it stays on dp_rd_*: the datapath's stream holds while dp_rd_ready_o is low);
      // only a timeout or rdy_i low withdraws it (the sequencer leaves the state)
      if (stall_q && src_q == {wh_i, wb_i, job_i} && rdy_i) begin
        assert (wr_req_valid_o && wr_req_addr_o == addr_prev_q && wr_req_len_o == len_prev_q &&
                wr_req_data_o == data_prev_q)
          else $error("tpu_write_gather: write job changed while stalled");
      end
      stall_q <= wr_req_valid_o && !wr_req_ready_i;
      // the gathered bytes and the row fit a job
      assert (!(wh_i || wb_i) || 32'(bytes_q) + (wb_i ? N : row_bytes_i) <= WrBytes)
        else $error("tpu_write_gather: gathered rows beyond WrBytes");
      assert ($onehot0({wh_i, drain_i, wb_i, job_i}))
        else $error("tpu_write_gather: two write sources at once");
    end
    src_q       <= {wh_i, wb_i, job_i};
    addr_prev_q <= wr_req_addr_o;
    len_prev_q  <= wr_req_len_o;
    data_prev_q <= wr_req_data_o;
  end
`endif
endmodule

`default_nettype wire
