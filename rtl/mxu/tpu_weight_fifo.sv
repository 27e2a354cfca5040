// tpu_weight_fifo: FIFO of Tiles weight tiles (N x N elements of EW bits: int8, or on a bf16
// device 16-bit lanes holding bf16 or int8 in the low byte), loaded row by row, read row by row.
// The FIFO moves bits: an element's type is the command's business, not the FIFO's.
//
// Input stream in_*: exactly N rows per tile, one row per transfer (valid/ready). Without
// in_transpose_i the c-th row of a tile is W[c][0..N-1]; with it, the c-th row is column c,
// i.e. W[k][c] = in_row_i[k] (LOAD_WEIGHTS' TRANSPOSE). The flag must stay the same for all
// N rows of a tile. Padding (spec §6.4: elements outside ROWS x COLS are 0) is the sender's job.
// Output stream out_*: the tiles in order, rows k = 0..N-1 with out_k_o = k. A tile can be read
// once all its N rows are written. A slot is freed when its last row is read.
// Storage: N EW-bit tpu_ram banks, Tiles*N words each, with a diagonal layout: W[k][j] sits
// in bank (k + j) mod N at address slot*N + k. A row and a column of a tile then touch every
// bank exactly once, so both row and transposed loads take one cycle per row, and reads are
// one row per cycle (a rotate on each side, no N x N staging buffer).
// Latency: a row written in cycle t can be read from t+1 on (its tile complete); out_* is the
// RAM's registered read (valid the cycle after the read is issued) and holds while stalled.
// next_last_o: the next read is a complete tile's last row (so when out_* is free or taken in
// this cycle, out_valid_o && out_last_o in the next; a look-ahead for tpu_mxu IssueAhead = 2).
// Throughput: one row per cycle on each side.
`default_nettype none

module tpu_weight_fifo #(
  parameter int unsigned N     = 16,
  parameter int unsigned Tiles = 4,
  parameter int unsigned EW    = 8,   // element bits: 8 (int8) or 16 (bf16 device lanes)
  // board option (iCE40, set in board.json module_params): the banks as block RAM (tpu_ram
  // Block) although they are tiny; without it a small FPGA builds each bank of flip-flops, a
  // write decode and a read mux. Same behaviour either way.
  parameter bit          BankBlock = 1'b0
) (
  input  logic             clk_i,
  input  logic             rst_i,
  // rows in
  input  logic             in_valid_i,
  output logic             in_ready_o,
  input  logic [N*EW-1:0]   in_row_i,
  input  logic             in_transpose_i,
  // rows out
  output logic             out_valid_o,
  input  logic             out_ready_i,
  output logic [N*EW-1:0]   out_row_o,
  output logic [KBits-1:0] out_k_o,
  output logic             out_last_o,  // out_k_o == N - 1, from a flip-flop
  output logic             next_last_o, // the next read is a tile's last row (see above)
  // status
  output logic [CntBits-1:0] tiles_o,  // complete tiles not yet read out completely
  output logic [CntBits-1:0] used_o    // slots in use (including one being written)
);
  localparam int unsigned KBits   = (N > 1) ? $clog2(N) : 1;
  localparam int unsigned CntBits = $clog2(Tiles + 1);
  localparam int unsigned Depth   = Tiles * N;
  localparam int unsigned ABits   = $clog2(Depth);

  if (N < 2) begin : g_bad_n
    $error("tpu_weight_fifo: N must be >= 2");
  end
  if (EW != 8 && EW != 16) begin : g_bad_ew
    $error("tpu_weight_fifo: EW must be 8 or 16");
  end
  if (Tiles < 1) begin : g_bad_tiles
    $error("tpu_weight_fifo: Tiles must be >= 1");
  end

  // ---------------------------------------------------------------- pointers (control)
  logic [ABits-1:0]   wr_base_q, rd_base_q;   // slot * N
  logic [KBits-1:0]   wr_row_q, rd_row_q;
  logic [CntBits-1:0] used_q, complete_q;
  logic               out_valid_q;
  logic               cnz_q;  // complete_q != 0, kept as a register (exact, asserted)
  // a free row: wr_row_q != 0 || used_q != Tiles, kept as a register (exact, asserted), so
  // the banks' write enable is in_valid_i, rdy_q and the reset: one LUT after the reset's
  // long wire on a big FPGA, not the compares behind it
  logic               rdy_q;
  logic               in_fire, rd_issue, wr_last, rd_last;
  logic [KBits-1:0]   wr_row_d;
  logic [ABits-1:0]   wr_base_d;
  logic [CntBits-1:0] complete_d, used_d;
  // the banks' write addresses as registers: a row's slot*N + c (wa_row_q, every bank) and a
  // transposed row's slot*N + ((b - c) mod N) (wa_diag_q, per bank), so a bank's address is
  // one 2:1 mux (in_transpose_i) after flip-flops, not the mod-N subtract and the base add (on
  // the ECP5 boards that path ran into the LUT RAMs' write enables). After a row that is not
  // a slot's last, wa_row_q counts up and bank b takes bank b-1's transposed address; after
  // the last, both start from the next slot's base.
  logic [ABits-1:0]   wa_row_q;
  logic [ABits-1:0]   wa_diag_q [N];
  logic [ABits-1:0]   wr_next_base, rd_next_base;  // next_base() of the two bases
  logic [ABits-1:0]   ra_q;          // the read address rd_base_q + rd_row_q, kept the same way
  // the write and the read without the reset term, for the next state only (a reset
  // overrides every register they feed), so the reset's long wire stays off those paths
  logic               wr_fire, rd_go;

  assign wr_fire    = in_valid_i && rdy_q;
  assign rd_go      = cnz_q && (!out_valid_q || out_ready_i);
  // No RAM access during reset: the pointers are still random in the first reset cycle.
  assign in_ready_o = !rst_i && rdy_q;
  assign in_fire    = !rst_i && wr_fire;
  assign rd_issue   = !rst_i && rd_go;
  assign wr_last    = wr_fire && (wr_row_q == KBits'(N - 1));
  assign rd_last    = rd_go && (rd_row_q == KBits'(N - 1));

  function automatic logic [ABits-1:0] next_base(input logic [ABits-1:0] base);
    if (base == ABits'(Depth - N)) begin
      next_base = '0;
    end else begin
      next_base = base + ABits'(N);
    end
  endfunction

  assign complete_d = complete_q + CntBits'(wr_last) - CntBits'(rd_last);
  assign used_d     = used_q + CntBits'(wr_fire && wr_row_q == '0) - CntBits'(rd_last);
  assign wr_row_d   = !wr_fire ? wr_row_q : wr_last ? '0 : wr_row_q + 1'b1;
  assign wr_next_base = next_base(wr_base_q);
  assign rd_next_base = next_base(rd_base_q);
  assign wr_base_d    = wr_last ? wr_next_base : wr_base_q;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      wr_base_q   <= '0;
      wa_row_q    <= '0;
      ra_q        <= '0;
      rd_base_q   <= '0;
      wr_row_q    <= '0;
      rd_row_q    <= '0;
      used_q      <= '0;
      complete_q  <= '0;
      cnz_q       <= 1'b0;
      rdy_q       <= 1'b1;
      out_valid_q <= 1'b0;
    end else begin
      wr_row_q  <= wr_row_d;
      wr_base_q <= wr_base_d;
      if (wr_fire) begin
        wa_row_q <= wr_last ? wr_next_base : wa_row_q + 1'b1;
      end
      if (rd_go) begin
        ra_q     <= rd_last ? rd_next_base : ra_q + 1'b1;
        rd_row_q <= rd_last ? '0 : rd_row_q + 1'b1;
        if (rd_last) begin
          rd_base_q <= rd_next_base;
        end
      end
      used_q     <= used_d;
      complete_q <= complete_d;
      cnz_q      <= complete_d != '0;
      rdy_q      <= (wr_row_d != '0) || (used_d != CntBits'(Tiles));
      if (rd_go) begin
        out_valid_q <= 1'b1;
      end else if (out_ready_i) begin
        out_valid_q <= 1'b0;
      end
    end
  end

  // ---------------------------------------------------------------- diagonal banks
  // Write: bank b takes in_row[(b - c) mod N], c = wr_row (rotate right by c). Address
  // slot*N + c for a row, slot*N + ((b - c) mod N) for a transposed row (a column of W).
  logic [2*N*EW-1:0] wr_dbl;
  logic [N*EW-1:0]   wr_rot;
  assign wr_dbl = {in_row_i, in_row_i} << (32'(wr_row_q) * EW);
  assign wr_rot = wr_dbl[2*N*EW-1 : N*EW];

  logic [N*EW-1:0] bank_rdata;
  logic [KBits-1:0] out_k_q;
  logic             out_last_q;

  for (genvar b = 0; b < N; b++) begin : g_bank
    logic [ABits-1:0] waddr;
    always_ff @(posedge clk_i) begin
      if (rst_i) begin
        wa_diag_q[b] <= ABits'(b);
      end else if (wr_fire) begin
        wa_diag_q[b] <= wr_last ? wr_next_base + ABits'(b) : wa_diag_q[(b + N - 1) % N];
      end
    end
    assign waddr = in_transpose_i ? wa_diag_q[b] : wa_row_q;
`ifndef SYNTHESIS
    always_ff @(posedge clk_i) begin
      if (!rst_i) begin
        assert (wa_diag_q[b] == wr_base_q + ABits'((b + N - 32'(wr_row_q)) % N))
          else $error("tpu_weight_fifo: bank %0d's transposed write address", b);
      end
    end
`endif

    tpu_ram #(.Width(EW), .Depth(Depth), .Block(32'(BankBlock))) u_bank (
      .clk_i,
      .we_i    (in_fire),
      .waddr_i (waddr),
      .wdata_i (wr_rot[b*EW +: EW]),
      .re_i    (rd_issue),
      .raddr_i (ra_q),
      .rdata_o (bank_rdata[b*EW +: EW])
    );
  end

  // Read: row k of a slot is bank b = (j + k) mod N for column j (rotate left by k).
  always_ff @(posedge clk_i) begin
    if (rd_issue) begin
      out_k_q    <= rd_row_q;
      out_last_q <= rd_row_q == KBits'(N - 1);
    end
  end
  logic [2*N*EW-1:0] rd_dbl;
  assign rd_dbl = {bank_rdata, bank_rdata} >> (32'(out_k_q) * EW);

  assign out_valid_o = out_valid_q;
  assign out_row_o   = rd_dbl[N*EW-1:0];
  assign out_k_o     = out_k_q;
  assign out_last_o  = out_last_q;
  assign next_last_o = cnz_q && rd_row_q == KBits'(N - 1);
  assign tiles_o     = complete_q;
  assign used_o      = used_q;

  logic unused_dbl;
  assign unused_dbl = ^{wr_dbl[N*EW-1:0], rd_dbl[2*N*EW-1:N*EW]};

`ifndef SYNTHESIS
  logic [N*EW-1:0]   out_row_prev_q;
  logic [KBits-1:0] out_k_prev_q;
  logic             stalled_q;
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      stalled_q <= 1'b0;
    end else begin
      // never overflow / underflow
      assert (used_q <= CntBits'(Tiles)) else $error("tpu_weight_fifo: overflow");
      assert (complete_q <= used_q) else $error("tpu_weight_fifo: more complete than used");
      assert (cnz_q == (complete_q != '0)) else $error("tpu_weight_fifo: registered complete != 0");
      assert (rdy_q == ((wr_row_q != '0) || (used_q != CntBits'(Tiles))))
        else $error("tpu_weight_fifo: registered free row");
      assert (wa_row_q == wr_base_q + ABits'(wr_row_q))
        else $error("tpu_weight_fifo: wa_row_q != wr_base_q + wr_row_q");
      assert (ra_q == rd_base_q + ABits'(rd_row_q))
        else $error("tpu_weight_fifo: ra_q != rd_base_q + rd_row_q");
      assert (!(rd_issue && complete_q == '0)) else $error("tpu_weight_fifo: underflow");
      assert (!(in_fire && wr_row_q == '0 && used_q == CntBits'(Tiles)))
        else $error("tpu_weight_fifo: write into a full FIFO");
      // the output stream holds valid and data while stalled
      if (stalled_q) begin
        assert (out_valid_q && out_row_o == out_row_prev_q && out_k_q == out_k_prev_q)
          else $error("tpu_weight_fifo: output changed while stalled");
      end
      stalled_q <= out_valid_q && !out_ready_i;
      if (out_valid_q) begin
        assert (out_last_q == (out_k_q == KBits'(N - 1))) else $error("tpu_weight_fifo: out_last");
      end
    end
    out_row_prev_q <= out_row_o;
    out_k_prev_q   <= out_k_q;
  end
`endif
endmodule

`default_nettype wire
