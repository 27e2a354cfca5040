// tpu_uart_bridge: carries the link packets of docs/link.md over a UART (8N1), so that a board
// top is this bridge plus tpu_device. This file is the structural top: the UART (tpu_uart_rx,
// tpu_uart_tx), the deframer (tpu_uart_deframer: characters to checked frames), the dispatch
// of host frames (tpu_uart_dispatch: completions, MMIO requests, ACK/NAK), the framer
// (tpu_uart_framer: device packets to reliable frames) and the frame counters.
// Frame format, CRC and recovery rules: docs/link.md "UART link". In short:
//   wire frame: 0x7E, stuffed(TYPE, LEN[7:0], LEN[15:8], PAYLOAD[LEN], CRC[15:8], CRC[7:0]), 0x7E
//   stuffing:   0x7E and 0x7D inside a frame are sent as 0x7D, byte ^ 0x20
//   CRC:        CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) over TYPE, LEN and PAYLOAD
//   device -> host (reliable: SEQ first in the payload; stop-and-wait; the host ACKs each good
//   frame; no ACK within RetryCycles, or a NAK, sends the frame again):
//     0x01 MRD  SEQ TAG LEN[2] ADDR[8]      0x02 MWR  SEQ LEN[2] ADDR[8] DATA[LEN]
//     0x03 MSI  SEQ ADDR[8] DATA[4]         0x04 MCPL SEQ TAG RDATA[4]
//     0x05 WACK SEQ TAG  (an MMIO write reached the device)
//   host -> device (each frame on its own; a bad one is dropped and counted):
//     0x81 CPL  TAG FLAGS DATA[0..32]  (FLAGS[1:0] status, FLAGS[6:2] chunk number mod 32,
//                                       FLAGS[7] last; one frame per 32 bytes of a completion,
//                                       sent back to back; a chunk out of sequence is dropped
//                                       with the rest of its completion)
//     0x82 MREQ TAG WRITE ADDR[2] WDATA[4]  (a write whose TAG equals the previous request's is a
//                                            retry: not performed again, only acknowledged)
//     0x83 ACK  SEQ                    0x84 NAK  SEQ
// All multi-byte fields are little-endian except the CRC. A frame is bad when its CRC or LEN is
// wrong, a 0x7E arrives inside it (a dropped byte), or a UART framing error hits it; bad frames
// are dropped and counted in bad_frames_o.
//
// Ports: clk_i, rst_i (synchronous, active high); uart_rx_i (asynchronous), uart_tx_o; then
// exactly the link ports of tpu_device, mirrored (dreq_*_i, hcpl_*_o, mreq_*_o, mcpl_*_i);
// counters bad_frames_o (host->device frames dropped), retries_o (device->host frames sent again),
// good_frames_o (host->device frames accepted), all wrapping.
// hcpl_ready_i is only checked: tpu_device never back-pressures completions (docs/link.md).
`default_nettype none

module tpu_uart_bridge #(
  parameter int unsigned ClkHz       = 12_000_000,  // clock frequency in Hz
  parameter int unsigned Baud        = 115_200,     // UART bits per second
  parameter int unsigned LinkBytes   = 4,           // tpu_device's LinkBytes (4, 8, 16 or 32)
  parameter int unsigned MaxPayload  = 64,          // tpu_device's MaxPayload (largest MWR)
  parameter int unsigned RetryCycles = 600_000      // wait for an ACK before sending again
) (
  input  logic                   clk_i,
  input  logic                   rst_i,
  input  logic                   uart_rx_i,
  output logic                   uart_tx_o,
  // dreq: device -> host requests
  input  logic                   dreq_valid_i,
  output logic                   dreq_ready_o,
  input  logic [1:0]             dreq_kind_i,
  input  logic [7:0]             dreq_tag_i,
  input  logic [12:0]            dreq_len_i,
  input  logic [63:0]            dreq_addr_i,
  input  logic [LinkBytes*8-1:0] dreq_data_i,
  input  logic                   dreq_last_i,
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
  // mcpl: device -> host MMIO read completions
  input  logic                   mcpl_valid_i,
  output logic                   mcpl_ready_o,
  input  logic [7:0]             mcpl_tag_i,
  input  logic [31:0]            mcpl_rdata_i,
  // statistics
  output logic [15:0]            bad_frames_o,
  output logic [15:0]            retries_o,
  output logic [15:0]            good_frames_o
);
  localparam int unsigned CplChunk = 32;              // data bytes per CPL frame, at most
  localparam int unsigned RxMax    = 2 + CplChunk;    // largest host->device payload
  localparam int unsigned Div      = (ClkHz + Baud / 2) / Baud;
  localparam int unsigned BeatsMax = CplChunk / LinkBytes;

  // The CPL beats are read from the deframer's payload while the next frame arrives: they must
  // be out before that frame's first payload byte (4 characters later) can land.
  if (LinkBytes < 4 || LinkBytes > CplChunk || (LinkBytes & (LinkBytes - 1)) != 0)
  begin : g_bad_lb
    $error("tpu_uart_bridge: LinkBytes must be a power of two in 4..32");
  end
  if (MaxPayload < 4 || MaxPayload > 4096 || BeatsMax >= 40 * Div || RetryCycles < 2)
  begin : g_bad_param
    $error("tpu_uart_bridge: MaxPayload must be in 4..4096, RetryCycles >= 2");
  end

  // ---------------------------------------------------------------- UART
  logic       rx_valid, rx_error, tx_valid, tx_ready;
  logic [7:0] rx_data, tx_data;

  tpu_uart_rx #(.ClkHz(ClkHz), .Baud(Baud)) u_rx (
    .clk_i, .rst_i, .rx_i(uart_rx_i),
    .data_valid_o(rx_valid), .data_o(rx_data), .frame_err_o(rx_error)
  );
  tpu_uart_tx #(.ClkHz(ClkHz), .Baud(Baud)) u_tx (
    .clk_i, .rst_i, .data_valid_i(tx_valid), .data_ready_o(tx_ready), .data_i(tx_data),
    .tx_o(uart_tx_o)
  );

  // ---------------------------------------------------------------- host -> device
  logic               frame_good, frame_bad, cpl_skip;
  logic [7:0]         frame_type;
  logic [15:0]        frame_len;
  logic [RxMax*8-1:0] frame_payload;
  logic               wack, wack_clear, ack, nak;
  logic [7:0]         wack_tag, ack_seq;

  tpu_uart_deframer #(.RxMax(RxMax)) u_deframer (
    .clk_i, .rst_i,
    .char_valid_i(rx_valid), .char_i(rx_data), .char_error_i(rx_error),
    .frame_good_o(frame_good), .frame_bad_o(frame_bad), .type_o(frame_type),
    .len_o(frame_len), .payload_o(frame_payload)
  );

  tpu_uart_dispatch #(.LinkBytes(LinkBytes), .RxMax(RxMax)) u_dispatch (
    .clk_i, .rst_i,
    .frame_good_i(frame_good), .type_i(frame_type), .len_i(frame_len),
    .payload_i(frame_payload), .cpl_skip_o(cpl_skip),
    .hcpl_valid_o, .hcpl_ready_i, .hcpl_tag_o, .hcpl_status_o, .hcpl_data_o, .hcpl_last_o,
    .mreq_valid_o, .mreq_ready_i, .mreq_write_o, .mreq_addr_o, .mreq_wdata_o, .mreq_tag_o,
    .wack_o(wack), .wack_tag_o(wack_tag), .wack_clear_i(wack_clear),
    .ack_o(ack), .nak_o(nak), .ack_seq_o(ack_seq)
  );

  // ---------------------------------------------------------------- device -> host
  tpu_uart_framer #(
    .LinkBytes(LinkBytes), .MaxPayload(MaxPayload), .RetryCycles(RetryCycles)
  ) u_framer (
    .clk_i, .rst_i,
    .wack_i(wack), .wack_tag_i(wack_tag), .wack_clear_o(wack_clear),
    .mcpl_valid_i, .mcpl_ready_o, .mcpl_tag_i, .mcpl_rdata_i,
    .dreq_valid_i, .dreq_ready_o, .dreq_kind_i, .dreq_tag_i, .dreq_len_i, .dreq_addr_i,
    .dreq_data_i, .dreq_last_i,
    .ack_i(ack), .nak_i(nak), .ack_seq_i(ack_seq),
    .char_valid_o(tx_valid), .char_ready_i(tx_ready), .char_o(tx_data),
    .retries_o
  );

  // ---------------------------------------------------------------- frame counters
  logic [15:0] bad_q, bad_d, good_q, good_d;

  always_comb begin
    bad_d  = bad_q + {15'd0, frame_bad} + {15'd0, cpl_skip};
    good_d = good_q + {15'd0, frame_good};
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      bad_q  <= '0;
      good_q <= '0;
    end else begin
      bad_q  <= bad_d;
      good_q <= good_d;
    end
  end

  assign bad_frames_o  = bad_q;
  assign good_frames_o = good_q;
endmodule
