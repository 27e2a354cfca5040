// tpu_dma_write: the DMA's write job engine (tpu_dma): CQEs, read results and MSIs to host
// memory.
//
// Write jobs (wr_req_*, len 1..WrBytes, data byte i in wr_req_data_i[8*i +: 8]): accepted when
// wr_req_ready_o, copied, and sent as MWRs of at most MaxPayload bytes that never cross a 4 KiB
// boundary, in order; wr_req_msi_i sends the job (len 4) as one MSI packet instead. Jobs are
// sent in the order accepted, after any earlier job, so a CQE follows its data and an MSI its
// CQE. wr_abort_i drops the queued job after the packet in progress (a started packet is always
// finished: a valid beat is never withdrawn).
// The beats: beat_valid_o offers the next beat (beat_*) to tpu_dma's request output, which has
// priority over the MRDs; it is taken when beat_free_i (the output register is free).
// Latency: a job's first beat is offered the cycle after it is accepted.
`default_nettype none

module tpu_dma_write #(
  parameter int unsigned LinkBytes  = 32,
  parameter int unsigned MaxPayload = 256,
  parameter int unsigned WrBytes    = 64,
  parameter int unsigned LenW       = 9,   // job lengths (tpu_dma: the larger job's)
  localparam int unsigned BeatW     = $clog2(LinkBytes + 1),
  localparam int unsigned PktW      = 13
) (
  input  logic                   clk_i,
  input  logic                   rst_i,
  // jobs
  input  logic                   wr_req_valid_i,
  output logic                   wr_req_ready_o,
  input  logic [63:0]            wr_req_addr_i,
  input  logic [LenW-1:0]        wr_req_len_i,
  input  logic                   wr_req_msi_i,
  input  logic [WrBytes*8-1:0]   wr_req_data_i,
  input  logic                   wr_abort_i,
  // the next beat, taken when beat_free_i
  output logic                   beat_valid_o,
  input  logic                   beat_free_i,
  output logic                   beat_msi_o,   // an MSI (else an MWR)
  output logic [PktW-1:0]        beat_len_o,
  output logic [63:0]            beat_addr_o,
  output logic [LinkBytes*8-1:0] beat_data_o,
  output logic                   beat_last_o,
  output logic                   active_o      // a job is left
);
  logic                 active_q, active_d;
  logic [63:0]          addr_q, addr_d;        // the next packet's address
  logic [LenW-1:0]      left_q, left_d;        // bytes not yet sent
  logic                 msi_q, msi_d;
  logic [WrBytes*8-1:0] data_q;                // the bytes not yet sent, from byte 0
  logic                 packet_q, packet_d;    // an MWR packet is being sent
  logic [PktW-1:0]      packet_left_q, packet_left_d;  // its bytes not yet sent
  logic [PktW-1:0]      packet_len_q, packet_len_d;
  logic [63:0]          packet_addr_q, packet_addr_d;
  logic                 drop_q, drop_d;        // abort seen: drop the job after the packet

  logic [PktW-1:0]      new_len;      // length of a packet started now
  logic [PktW-1:0]      mwr_len;
  logic [PktW-1:0]      beat_left;    // the packet's bytes from this beat on
  logic [BeatW-1:0]     beat_bytes;
  logic                 taken;

  assign wr_req_ready_o = !active_q;
  assign active_o       = active_q;

  tpu_dma_pkt_len #(.LeftW(LenW)) u_len (
    .left_i(left_q), .addr_low_i(addr_q[11:0]), .limit_i(PktW'(MaxPayload)), .len_o(mwr_len)
  );

  // the beat: the packet in progress, else the first beat of the job's next packet
  assign new_len      = msi_q ? PktW'(4) : mwr_len;
  assign beat_valid_o = packet_q || (active_q && !drop_q && !wr_abort_i);
  assign taken        = beat_free_i && beat_valid_o;
  assign beat_left    = packet_q ? packet_left_q : new_len;
  assign beat_bytes   = (beat_left > PktW'(LinkBytes)) ? BeatW'(LinkBytes) : BeatW'(beat_left);
  assign beat_msi_o   = msi_q;
  assign beat_len_o   = packet_q ? packet_len_q : new_len;
  assign beat_addr_o  = packet_q ? packet_addr_q : addr_q;
  assign beat_last_o  = beat_left <= PktW'(LinkBytes);
  always_comb begin
    for (int unsigned i = 0; i < LinkBytes; i++) begin
      beat_data_o[8*i +: 8] = (BeatW'(i) < beat_bytes && i < WrBytes)
                              ? data_q[8*(i % WrBytes) +: 8] : 8'd0;
    end
  end

  always_comb begin
    active_d      = active_q;
    addr_d        = addr_q;
    left_d        = left_q;
    msi_d         = msi_q;
    packet_d      = packet_q;
    packet_left_d = packet_left_q;
    packet_len_d  = packet_len_q;
    packet_addr_d = packet_addr_q;
    drop_d        = drop_q || wr_abort_i;

    if (taken) begin
      if (!packet_q) begin
        packet_d      = 1'b1;
        packet_len_d  = new_len;
        packet_addr_d = addr_q;
      end
      left_d        = left_q - LenW'(beat_bytes);
      packet_left_d = beat_left - PktW'(beat_bytes);
      if (beat_last_o) begin
        packet_d = 1'b0;
        addr_d   = beat_addr_o + {51'd0, beat_len_o};
        if (left_q == LenW'(beat_bytes) || msi_q) active_d = 1'b0;
      end
    end
    // an abort drops what is left of the job once no packet is in progress
    if (drop_d && !packet_d) begin
      active_d = 1'b0;
      drop_d   = 1'b0;
    end

    if (wr_req_valid_i && wr_req_ready_o) begin
      active_d = 1'b1;
      addr_d   = wr_req_addr_i;
      left_d   = wr_req_len_i;
      msi_d    = wr_req_msi_i;
      drop_d   = 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      active_q <= 1'b0;
      packet_q <= 1'b0;
      drop_q   <= 1'b0;
    end else begin
      active_q <= active_d;
      packet_q <= packet_d;
      drop_q   <= drop_d;
    end
  end

  // job and packet state: no reset
  always_ff @(posedge clk_i) begin
    addr_q        <= addr_d;
    left_q        <= left_d;
    msi_q         <= msi_d;
    packet_left_q <= packet_left_d;
    packet_len_q  <= packet_len_d;
    packet_addr_q <= packet_addr_d;
  end
  // the data under its enables (as the next-state block would choose: a new job, else the
  // beat's bytes shifted out): Verilator copied its 2 Kibit through a next-state copy on every
  // cycle
  always_ff @(posedge clk_i) begin
    if (wr_req_valid_i && wr_req_ready_o) begin
      data_q <= wr_req_data_i;
    end else if (taken) begin
      data_q <= data_q >> (8 * beat_bytes);
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // a job is taken only when ready: 1..WrBytes bytes, an MSI of 4
      if (wr_req_valid_i && wr_req_ready_o) begin
        assert (!active_q) else $error("tpu_dma_write: job accepted while busy");
        assert (wr_req_len_i != '0 && 32'(wr_req_len_i) <= WrBytes && (!wr_req_msi_i ||
                32'(wr_req_len_i) == 32'd4))
          else $error("tpu_dma_write: job of %0d bytes (1..%0d, MSI 4)", wr_req_len_i, WrBytes);
      end
      // a packet in progress is finished: its beats keep coming until the last
      if ($past(!rst_i) && $past(packet_q && !(taken && beat_last_o)))
        assert (packet_q && beat_valid_o) else $error("tpu_dma_write: packet withdrawn");
      // packets: 1..MaxPayload bytes (an MSI: 4), never more than the job has left
      if (beat_valid_o) begin
        assert (beat_len_o != '0 && 32'(beat_len_o) <= MaxPayload && (!msi_q || beat_len_o == 4))
          else $error("tpu_dma_write: packet of %0d bytes", beat_len_o);
        assert (32'(beat_bytes) <= 32'(left_q))
          else $error("tpu_dma_write: beat of %0d bytes, %0d left", beat_bytes, left_q);
      end
    end
  end
`endif
endmodule
