// tpu_uart_dispatch: what tpu_uart_bridge does with each good host -> device frame
// (tpu_uart_deframer; docs/link.md "UART link"):
//   0x81 CPL  TAG FLAGS DATA[0..32]  (FLAGS[1:0] status, FLAGS[6:2] chunk number mod 32,
//                                     FLAGS[7] last; one frame per 32 bytes of a completion,
//                                     sent back to back; a chunk out of sequence is dropped
//                                     with the rest of its completion: cpl_skip_o)
//   0x82 MREQ TAG WRITE ADDR[2] WDATA[4]  (a write whose TAG equals the previous request's is a
//                                          retry: not performed again, only acknowledged)
//   0x83 ACK  SEQ                    0x84 NAK  SEQ   (for tpu_uart_framer: ack_o / nak_o)
// CPL: the frame's data goes out on hcpl_* as ceil(bytes / LinkBytes) beats (one beat for an
// empty frame), one per cycle from the cycle after the frame, read straight from the
// deframer's payload (which holds until the next frame's payload arrives); hcpl_last_o on the
// last beat of the last chunk. tpu_device never back-pressures completions, so hcpl_ready_i
// is only checked (assertion).
// MREQ: held on mreq_* (valid/ready) until the device takes it; a request on top of one still
// pending is dropped (the host waits for each answer, and its retry brings it again). A write
// taken by the device, or a retried write already performed, raises wack_o (a WACK frame for
// wack_tag_o) until the framer takes it (wack_clear_i).
`default_nettype none

module tpu_uart_dispatch #(
  parameter int unsigned LinkBytes = 4,
  parameter int unsigned RxMax     = 34,  // largest payload (tpu_uart_deframer)
  localparam int unsigned CplChunk = 32,  // data bytes per CPL frame, at most
  localparam int unsigned BeatsMax = CplChunk / LinkBytes,
  localparam int unsigned BeatW    = $clog2(BeatsMax + 1)
) (
  input  logic                   clk_i,
  input  logic                   rst_i,
  // the frame just accepted (tpu_uart_deframer)
  input  logic                   frame_good_i,
  input  logic [7:0]             type_i,
  input  logic [15:0]            len_i,
  input  logic [RxMax*8-1:0]     payload_i,
  output logic                   cpl_skip_o,    // a CPL chunk dropped (counted as bad)
  // hcpl: host -> device read completions
  output logic                   hcpl_valid_o,
  input  logic                   hcpl_ready_i,
  output logic [7:0]             hcpl_tag_o,
  output logic [1:0]             hcpl_status_o,
  output logic [LinkBytes*8-1:0] hcpl_data_o,
  output logic                   hcpl_last_o,
  // mreq: host -> device MMIO requests
  output logic                   mreq_valid_o,
  input  logic                   mreq_ready_i,
  output logic                   mreq_write_o,
  output logic [15:0]            mreq_addr_o,
  output logic [31:0]            mreq_wdata_o,
  output logic [7:0]             mreq_tag_o,
  // for the framer: a WACK to send, and the host's ACK / NAK of SEQ ack_seq_o
  output logic                   wack_o,
  output logic [7:0]             wack_tag_o,
  input  logic                   wack_clear_i,
  output logic                   ack_o,
  output logic                   nak_o,
  output logic [7:0]             ack_seq_o
);
  localparam logic [7:0] TypeCpl = 8'h81, TypeMreq = 8'h82, TypeAck = 8'h83, TypeNak = 8'h84;

  logic             beats_busy_q, beats_busy_d;  // CPL beats going out
  logic             cpl_last_q, cpl_last_d;
  logic [7:0]       cpl_tag_q, cpl_tag_d;
  logic [1:0]       cpl_status_q, cpl_status_d;
  logic [5:0]       cpl_bytes_q, cpl_bytes_d;    // data bytes of the frame (0..32)
  logic [BeatW-1:0] beat_q, beat_d, beats;
  logic             chunks_open_q, chunks_open_d;  // a chunked completion in progress
  logic [7:0]       chunks_tag_q, chunks_tag_d;
  logic [4:0]       chunk_next_q, chunk_next_d;    // its next chunk's number
  logic             request_q, request_d, request_write_q, request_write_d;
  logic [7:0]       request_tag_q, request_tag_d;
  logic [15:0]      request_addr_q, request_addr_d;
  logic [31:0]      request_wdata_q, request_wdata_d;
  logic             last_tag_ok_q, last_tag_ok_d;  // last_tag_q: the last request the device took
  logic [7:0]       last_tag_q, last_tag_d;
  logic             wack_q, wack_d;
  logic [7:0]       wack_tag_q, wack_tag_d;

  assign beats = (cpl_bytes_q == 6'd0) ? BeatW'(1)
                                       : BeatW'((32'(cpl_bytes_q) + LinkBytes - 1) / LinkBytes);
  assign ack_seq_o  = payload_i[7:0];
  assign wack_o     = wack_q;
  assign wack_tag_o = wack_tag_q;

  always_comb begin
    beats_busy_d    = beats_busy_q;
    cpl_last_d      = cpl_last_q;
    cpl_tag_d       = cpl_tag_q;
    cpl_status_d    = cpl_status_q;
    cpl_bytes_d     = cpl_bytes_q;
    beat_d          = beat_q;
    chunks_open_d   = chunks_open_q;
    chunks_tag_d    = chunks_tag_q;
    chunk_next_d    = chunk_next_q;
    request_d       = request_q;
    request_write_d = request_write_q;
    request_tag_d   = request_tag_q;
    request_addr_d  = request_addr_q;
    request_wdata_d = request_wdata_q;
    last_tag_ok_d   = last_tag_ok_q;
    last_tag_d      = last_tag_q;
    wack_d          = wack_q && !wack_clear_i;
    wack_tag_d      = wack_tag_q;
    ack_o           = 1'b0;
    nak_o           = 1'b0;
    cpl_skip_o      = 1'b0;
    // completion beats, one per cycle
    if (beats_busy_q) begin
      beat_d = beat_q + 1'b1;
      if (beat_q == beats - 1'b1) begin
        beats_busy_d = 1'b0;
      end
    end
    // the MMIO request, once the device takes it
    if (request_q && mreq_ready_i) begin
      request_d     = 1'b0;
      last_tag_ok_d = 1'b1;
      last_tag_d    = request_tag_q;
      if (request_write_q) begin
        wack_d     = 1'b1;
        wack_tag_d = request_tag_q;
      end
    end
    if (frame_good_i) begin
      unique case (type_i)
        TypeCpl: begin
          // chunks of one completion arrive back to back, numbered: one missing makes the
          // rest of that completion go the same way (the device times the tag out) instead of
          // letting later chunks stand in for it
          if (payload_i[14:10] == 5'd0 || (chunks_open_q && payload_i[7:0] == chunks_tag_q &&
                                           payload_i[14:10] == chunk_next_q)) begin
            beats_busy_d  = 1'b1;
            beat_d        = '0;
            cpl_tag_d     = payload_i[7:0];
            cpl_status_d  = payload_i[9:8];
            cpl_last_d    = payload_i[15];
            cpl_bytes_d   = 6'(len_i - 16'd2);
            chunks_open_d = !payload_i[15];
            chunks_tag_d  = payload_i[7:0];
            chunk_next_d  = payload_i[14:10] + 5'd1;
          end else begin
            chunks_open_d = 1'b0;
            cpl_skip_o    = 1'b1;
          end
        end
        TypeMreq: begin
          if (request_q) begin
            // the host waits for each answer; a request on top of one pending is dropped and
            // the host's retry brings it again
          end else if (payload_i[8] && last_tag_ok_q && payload_i[7:0] == last_tag_q) begin
            wack_d     = 1'b1;  // a retried write that was performed: acknowledge it again
            wack_tag_d = payload_i[7:0];
          end else begin
            request_d       = 1'b1;
            request_tag_d   = payload_i[7:0];
            request_write_d = payload_i[8];
            request_addr_d  = payload_i[31:16];
            request_wdata_d = payload_i[63:32];
          end
        end
        TypeAck: ack_o = 1'b1;
        TypeNak: nak_o = 1'b1;
        default: ;
      endcase
    end
  end

  always_comb begin
    hcpl_valid_o  = beats_busy_q;
    hcpl_tag_o    = cpl_tag_q;
    hcpl_status_o = cpl_status_q;
    hcpl_last_o   = cpl_last_q && (beat_q == beats - 1'b1);
    for (int unsigned i = 0; i < LinkBytes; i++) begin
      logic [5:0] index;
      index = 6'(32'(beat_q) * LinkBytes + i);
      hcpl_data_o[8*i +: 8] = (index < cpl_bytes_q) ? payload_i[8*(32'(index) + 2) +: 8] : 8'h00;
    end
  end

  assign mreq_valid_o = request_q;
  assign mreq_write_o = request_write_q;
  assign mreq_addr_o  = request_addr_q;
  assign mreq_wdata_o = request_wdata_q;
  assign mreq_tag_o   = request_tag_q;

  logic unused;
  assign unused = hcpl_ready_i;  // checked only (assertion below)

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      beats_busy_q  <= 1'b0;
      request_q     <= 1'b0;
      chunks_open_q <= 1'b0;
      last_tag_ok_q <= 1'b0;
      wack_q        <= 1'b0;
    end else begin
      beats_busy_q  <= beats_busy_d;
      request_q     <= request_d;
      chunks_open_q <= chunks_open_d;
      last_tag_ok_q <= last_tag_ok_d;
      wack_q        <= wack_d;
    end
  end

  // per-frame fields: meaningful only under the control state above
  always_ff @(posedge clk_i) begin
    cpl_last_q      <= cpl_last_d;
    cpl_tag_q       <= cpl_tag_d;
    cpl_status_q    <= cpl_status_d;
    cpl_bytes_q     <= cpl_bytes_d;
    beat_q          <= beat_d;
    request_write_q <= request_write_d;
    request_tag_q   <= request_tag_d;
    request_addr_q  <= request_addr_d;
    request_wdata_q <= request_wdata_d;
    last_tag_q      <= last_tag_d;
    chunks_tag_q    <= chunks_tag_d;
    chunk_next_q    <= chunk_next_d;
    wack_tag_q      <= wack_tag_d;
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // completions are never back-pressured, and a CPL frame's beats end before the next
      if (hcpl_valid_o) assert (hcpl_ready_i) else $error("tpu_uart_dispatch: hcpl back-pressured");
      if (frame_good_i && type_i == TypeCpl)
        assert (!beats_busy_q) else $error("tpu_uart_dispatch: CPL frame while beats go out");
      if (beats_busy_q) assert (32'(beat_q) < 32'(beats) && 32'(beats) <= BeatsMax)
        else $error("tpu_uart_dispatch: beat %0d of %0d", beat_q, beats);
      // mreq: a request is held, unchanged, until the device takes it
      if ($past(!rst_i) && $past(mreq_valid_o && !mreq_ready_i))
        assert (mreq_valid_o && mreq_write_o == $past(mreq_write_o) &&
                mreq_addr_o == $past(mreq_addr_o) && mreq_wdata_o == $past(mreq_wdata_o) &&
                mreq_tag_o == $past(mreq_tag_o))
          else $error("tpu_uart_dispatch: mreq changed while stalled");
    end
  end
`endif
endmodule
