// tpu_uart_bridge: carries the link packets of docs/link.md over a UART (8N1), so that a board
// top is this bridge plus tpu_device. Frame format, CRC and recovery rules: docs/link.md
// "UART link". In short:
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
// hcpl_ready_i is ignored: tpu_device never back-pressures completions (docs/link.md).
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
  localparam logic [7:0] Flag = 8'h7E;
  localparam logic [7:0] Esc  = 8'h7D;
  localparam logic [7:0] TyMrd = 8'h01, TyMwr = 8'h02, TyMsi = 8'h03, TyMcpl = 8'h04,
                         TyWack = 8'h05;
  localparam logic [7:0] TyCpl = 8'h81, TyMreq = 8'h82, TyAck = 8'h83, TyNak = 8'h84;
  localparam logic [1:0] KindMrd = 2'd0, KindMwr = 2'd1;
  localparam int unsigned CplChunk = 32;              // data bytes per CPL frame, at most
  localparam int unsigned RxMax    = 2 + CplChunk;    // largest host->device payload
  localparam int unsigned TxMax    = 11 + MaxPayload; // largest device->host payload (MWR)
  localparam int unsigned TxAw     = $clog2(TxMax);
  localparam int unsigned Div      = (ClkHz + Baud / 2) / Baud;
  localparam int unsigned BeatsMax = CplChunk / LinkBytes;
  localparam int unsigned BeatW    = $clog2(BeatsMax + 1);
  localparam int unsigned TimerW   = $clog2(RetryCycles + 1);

  // The CPL emitter reads the receive buffer while the next frame arrives: its beats must be
  // out before that frame's first payload byte (4 characters later) can land.
  if (LinkBytes < 4 || LinkBytes > CplChunk || (LinkBytes & (LinkBytes - 1)) != 0)
  begin : g_bad_lb
    $error("tpu_uart_bridge: LinkBytes must be a power of two in 4..32");
  end
  if (MaxPayload < 4 || MaxPayload > 4096 || BeatsMax >= 40 * Div || RetryCycles < 2)
  begin : g_bad_param
    $error("tpu_uart_bridge: MaxPayload must be in 4..4096, RetryCycles >= 2");
  end

  function automatic logic [15:0] crc16(input logic [15:0] c, input logic [7:0] b);
    logic [15:0] x;
    x = c ^ {b, 8'h00};
    for (int i = 0; i < 8; i++) begin
      x = x[15] ? ({x[14:0], 1'b0} ^ 16'h1021) : {x[14:0], 1'b0};
    end
    crc16 = x;
  endfunction

  // ---------------------------------------------------------------- UART
  logic       rxb_valid, rx_ferr, txb_valid, txb_ready;
  logic [7:0] rxb_data, txb_data;

  tpu_uart_rx #(.ClkHz(ClkHz), .Baud(Baud)) u_rx (
    .clk_i, .rst_i, .rx_i(uart_rx_i),
    .data_valid_o(rxb_valid), .data_o(rxb_data), .frame_err_o(rx_ferr)
  );
  tpu_uart_tx #(.ClkHz(ClkHz), .Baud(Baud)) u_tx (
    .clk_i, .rst_i, .data_valid_i(txb_valid), .data_ready_o(txb_ready), .data_i(txb_data),
    .tx_o(uart_tx_o)
  );

  // ---------------------------------------------------------------- host -> device: deframer
  typedef enum logic [1:0] { RxHunt, RxBody, RxDone } rx_state_e;

  rx_state_e        rx_st_q, rx_st_d;
  logic             esc_q, esc_d, junk_q, junk_d, crc_ok_q, crc_ok_d;
  logic [15:0]      rcnt_q, rcnt_d, rlen_q, rlen_d, rcrc_q, rcrc_d;
  logic [7:0]       rtype_q, rtype_d;
  logic [RxMax*8-1:0] rxp_q, rxp_d;
  logic             frm_good, frm_bad;  // a frame ended this cycle
  logic [15:0]      bad_q, bad_d, good_q, good_d;

  function automatic logic len_ok(input logic [7:0] ty, input logic [15:0] len);
    unique case (ty)
      TyCpl:         len_ok = len >= 16'd2 && len <= 16'(RxMax);
      TyMreq:        len_ok = len == 16'd8;
      TyAck, TyNak:  len_ok = len == 16'd1;
      default:       len_ok = 1'b0;
    endcase
  endfunction

  always_comb begin
    logic [7:0] b;
    rx_st_d  = rx_st_q;
    esc_d    = esc_q;
    junk_d   = junk_q;
    rcnt_d   = rcnt_q;
    rlen_d   = rlen_q;
    rcrc_d   = rcrc_q;
    rtype_d  = rtype_q;
    rxp_d    = rxp_q;
    crc_ok_d = crc_ok_q;
    frm_good = 1'b0;
    frm_bad  = 1'b0;
    b        = rxb_data ^ (esc_q ? 8'h20 : 8'h00);
    if (rx_ferr) begin
      // a broken character: whatever frame it belonged to is lost
      frm_bad = 1'b1;
      rx_st_d = RxHunt;
      junk_d  = 1'b0;
    end else if (rxb_valid && rxb_data == Flag) begin
      // a flag ends a complete frame (only then is it accepted: a frame with a byte too many
      // or too few never ends on a flag) and starts the next one; a flag inside a frame means
      // bytes were lost
      if (rx_st_q == RxDone) begin
        frm_good = crc_ok_q;
        frm_bad  = !crc_ok_q;
      end else if ((rx_st_q == RxBody && rcnt_q != 16'd0) || junk_q) begin
        frm_bad = 1'b1;
      end
      rx_st_d = RxBody;
      junk_d  = 1'b0;
      esc_d   = 1'b0;
      rcnt_d  = 16'd0;
      rcrc_d  = 16'hFFFF;
    end else if (rxb_valid && rx_st_q == RxDone) begin
      frm_bad = 1'b1;  // a byte too many
      rx_st_d = RxHunt;
    end else if (rxb_valid && rx_st_q == RxHunt) begin
      junk_d = 1'b1;  // bytes outside a frame: counted once, at the next flag
    end else if (rxb_valid && rxb_data == Esc && !esc_q) begin
      esc_d = 1'b1;
    end else if (rxb_valid) begin
      esc_d  = 1'b0;
      rcrc_d = crc16(rcrc_q, b);
      rcnt_d = rcnt_q + 16'd1;
      if (rcnt_q == 16'd0) begin
        rtype_d = b;
      end else if (rcnt_q == 16'd1) begin
        rlen_d[7:0] = b;
      end else if (rcnt_q == 16'd2) begin
        rlen_d[15:8] = b;
        if (!len_ok(rtype_q, {b, rlen_q[7:0]})) begin
          frm_bad = 1'b1;
          rx_st_d = RxHunt;
        end
      end else if (rcnt_q < rlen_q + 16'd3) begin
        rxp_d[8*(rcnt_q - 16'd3) +: 8] = b;
      end else if (rcnt_q == rlen_q + 16'd4) begin
        // last CRC byte: the CRC over everything including the CRC is 0 for a good frame
        rx_st_d  = RxDone;
        crc_ok_d = crc16(rcrc_q, b) == 16'd0;
      end
    end
  end

  always_comb begin
    bad_d  = bad_q + {15'd0, frm_bad} + {15'd0, cpl_skip};
    good_d = good_q + {15'd0, frm_good};
  end
  assign bad_frames_o  = bad_q;
  assign good_frames_o = good_q;

  // ---------------------------------------------------------------- host -> device: dispatch
  logic               ce_busy_q, ce_busy_d, ce_last_q, ce_last_d;
  logic [7:0]         ce_tag_q, ce_tag_d;
  logic [1:0]         ce_status_q, ce_status_d;
  logic [5:0]         ce_n_q, ce_n_d;     // data bytes of the frame (0..32)
  logic [BeatW-1:0]   ce_beat_q, ce_beat_d, ce_nbeats;
  logic               mr_valid_q, mr_valid_d, mr_write_q, mr_write_d;
  logic [7:0]         mr_tag_q, mr_tag_d;
  logic [15:0]        mr_addr_q, mr_addr_d;
  logic [31:0]        mr_wdata_q, mr_wdata_d;
  logic               last_tag_ok_q, last_tag_ok_d;
  logic [7:0]         last_tag_q, last_tag_d;
  logic               wack_q, wack_d, wack_clr;
  logic [7:0]         wack_tag_q, wack_tag_d;
  logic               got_ack, got_nak;
  logic               co_open_q, co_open_d, cpl_skip;  // completion in progress (chunked)
  logic [7:0]         co_tag_q, co_tag_d;
  logic [4:0]         co_idx_q, co_idx_d;
  logic [7:0]         got_seq;

  assign ce_nbeats = (ce_n_q == 6'd0) ? BeatW'(1)
                                      : BeatW'((32'(ce_n_q) + LinkBytes - 1) / LinkBytes);

  always_comb begin
    ce_busy_d     = ce_busy_q;
    ce_last_d     = ce_last_q;
    ce_tag_d      = ce_tag_q;
    ce_status_d   = ce_status_q;
    ce_n_d        = ce_n_q;
    ce_beat_d     = ce_beat_q;
    mr_valid_d    = mr_valid_q;
    mr_write_d    = mr_write_q;
    mr_tag_d      = mr_tag_q;
    mr_addr_d     = mr_addr_q;
    mr_wdata_d    = mr_wdata_q;
    last_tag_ok_d = last_tag_ok_q;
    last_tag_d    = last_tag_q;
    wack_d        = wack_q && !wack_clr;
    wack_tag_d    = wack_tag_q;
    got_ack       = 1'b0;
    got_nak       = 1'b0;
    co_open_d     = co_open_q;
    co_tag_d      = co_tag_q;
    co_idx_d      = co_idx_q;
    cpl_skip      = 1'b0;
    got_seq       = rxp_q[7:0];
    // completion beats, one per cycle
    if (ce_busy_q) begin
      ce_beat_d = ce_beat_q + 1'b1;
      if (ce_beat_q == ce_nbeats - 1'b1) begin
        ce_busy_d = 1'b0;
      end
    end
    // the MMIO request, once the device takes it
    if (mr_valid_q && mreq_ready_i) begin
      mr_valid_d    = 1'b0;
      last_tag_ok_d = 1'b1;
      last_tag_d    = mr_tag_q;
      if (mr_write_q) begin
        wack_d     = 1'b1;
        wack_tag_d = mr_tag_q;
      end
    end
    if (frm_good) begin
      unique case (rtype_q)
        TyCpl: begin
          // chunks of one completion arrive back to back, numbered: one missing makes the
          // rest of that completion go the same way (the device times the tag out) instead of
          // letting later chunks stand in for it
          if (rxp_q[14:10] == 5'd0 ||
              (co_open_q && rxp_q[7:0] == co_tag_q && rxp_q[14:10] == co_idx_q)) begin
            ce_busy_d   = 1'b1;
            ce_beat_d   = '0;
            ce_tag_d    = rxp_q[7:0];
            ce_status_d = rxp_q[9:8];
            ce_last_d   = rxp_q[15];
            ce_n_d      = 6'(rlen_q - 16'd2);
            co_open_d   = !rxp_q[15];
            co_tag_d    = rxp_q[7:0];
            co_idx_d    = rxp_q[14:10] + 5'd1;
          end else begin
            co_open_d = 1'b0;
            cpl_skip  = 1'b1;
          end
        end
        TyMreq: begin
          if (mr_valid_q) begin
            // the host waits for each answer; a request on top of one pending is dropped and
            // the host's retry brings it again
          end else if (rxp_q[8] && last_tag_ok_q && rxp_q[7:0] == last_tag_q) begin
            wack_d     = 1'b1;  // a retried write that was performed: acknowledge it again
            wack_tag_d = rxp_q[7:0];
          end else begin
            mr_valid_d = 1'b1;
            mr_tag_d   = rxp_q[7:0];
            mr_write_d = rxp_q[8];
            mr_addr_d  = rxp_q[31:16];
            mr_wdata_d = rxp_q[63:32];
          end
        end
        TyAck: got_ack = 1'b1;
        TyNak: got_nak = 1'b1;
        default: ;
      endcase
    end
  end

  always_comb begin
    hcpl_valid_o  = ce_busy_q;
    hcpl_tag_o    = ce_tag_q;
    hcpl_status_o = ce_status_q;
    hcpl_last_o   = ce_last_q && (ce_beat_q == ce_nbeats - 1'b1);
    for (int unsigned i = 0; i < LinkBytes; i++) begin
      logic [5:0] idx;
      idx = 6'(32'(ce_beat_q) * LinkBytes + i);
      hcpl_data_o[8*i +: 8] = (idx < ce_n_q) ? rxp_q[8*(32'(idx) + 2) +: 8] : 8'h00;
    end
  end

  assign mreq_valid_o = mr_valid_q;
  assign mreq_write_o = mr_write_q;
  assign mreq_addr_o  = mr_addr_q;
  assign mreq_wdata_o = mr_wdata_q;
  assign mreq_tag_o   = mr_tag_q;

  // ---------------------------------------------------------------- device -> host: framer
  typedef enum logic [2:0] { TxIdle, TxFill, TxData, TxSend, TxWait } tx_state_e;
  typedef enum logic [2:0] { SnFlag0, SnFetch, SnLoad, SnOut, SnOut2, SnFlag1 } snd_state_e;
  typedef enum logic [1:0] { SrcWack, SrcMcpl, SrcDreq } src_e;

  tx_state_e         tx_st_q, tx_st_d;
  snd_state_e        sn_q, sn_d;
  src_e              src_q, src_d;
  logic [7:0]        seq_q, seq_d, ftype_q, ftype_d, cur_q, cur_d;
  logic [15:0]       flen_q, flen_d, pos_q, pos_d, tcrc_q, tcrc_d, retry_q, retry_d;
  logic [TxAw-1:0]   fidx_q, fidx_d;
  logic [12:0]       rem_q, rem_d;      // MWR data bytes still to store
  logic [$clog2(LinkBytes)-1:0] bidx_q, bidx_d;
  logic              cesc_q, cesc_d;
  logic [TimerW-1:0] timer_q, timer_d;
  logic              we, re;
  logic [TxAw-1:0]   waddr, raddr;
  logic [7:0]        wdata, rdata;
  logic [13*8-1:0]   hdr;               // header bytes of the chosen source, byte 0 first
  logic [3:0]        hlen;
  logic [7:0]        htype;

  tpu_ram #(.Width(8), .Depth(TxMax)) u_txbuf (
    .clk_i, .we_i(we), .waddr_i(waddr), .wdata_i(wdata),
    .re_i(re), .raddr_i(raddr), .rdata_o(rdata)
  );

  // header of the source being stored (its fields hold still until it is acknowledged)
  always_comb begin
    hdr   = '0;
    hlen  = 4'd0;
    htype = TyWack;
    unique case (src_q)
      SrcWack: begin
        hdr[15:0] = {wack_tag_q, seq_q};
        hlen      = 4'd2;
        htype     = TyWack;
      end
      SrcMcpl: begin
        hdr[47:0] = {mcpl_rdata_i, mcpl_tag_i, seq_q};
        hlen      = 4'd6;
        htype     = TyMcpl;
      end
      default: begin
        if (dreq_kind_i == KindMrd) begin
          hdr[95:0] = {dreq_addr_i, 3'd0, dreq_len_i, dreq_tag_i, seq_q};
          hlen      = 4'd12;
          htype     = TyMrd;
        end else if (dreq_kind_i == KindMwr) begin
          hdr[87:0] = {dreq_addr_i, 3'd0, dreq_len_i, seq_q};
          hlen      = 4'd11;
          htype     = TyMwr;
        end else begin
          hdr[103:0] = {dreq_data_i[31:0], dreq_addr_i, seq_q};
          hlen       = 4'd13;
          htype      = TyMsi;
        end
      end
    endcase
  end

  always_comb begin
    logic [7:0] b;
    tx_st_d      = tx_st_q;
    sn_d         = sn_q;
    src_d        = src_q;
    seq_d        = seq_q;
    ftype_d      = ftype_q;
    cur_d        = cur_q;
    flen_d       = flen_q;
    pos_d        = pos_q;
    tcrc_d       = tcrc_q;
    retry_d      = retry_q;
    fidx_d       = fidx_q;
    rem_d        = rem_q;
    bidx_d       = bidx_q;
    cesc_d       = cesc_q;
    timer_d      = timer_q;
    we           = 1'b0;
    re           = 1'b0;
    waddr        = fidx_q;
    raddr        = TxAw'(pos_q - 16'd3);
    wdata        = hdr[8*fidx_q +: 8];
    dreq_ready_o = 1'b0;
    mcpl_ready_o = 1'b0;
    wack_clr     = 1'b0;
    txb_valid    = 1'b0;
    txb_data     = Flag;
    b            = 8'h00;
    unique case (tx_st_q)
      TxIdle: begin
        fidx_d = '0;
        if (wack_q) begin
          src_d   = SrcWack;
          tx_st_d = TxFill;
        end else if (mcpl_valid_i) begin
          src_d   = SrcMcpl;
          tx_st_d = TxFill;
        end else if (dreq_valid_i) begin
          src_d   = SrcDreq;
          tx_st_d = TxFill;
        end
      end
      TxFill: begin
        // one header byte per cycle into the frame buffer
        we      = 1'b1;
        fidx_d  = fidx_q + 1'b1;
        ftype_d = htype;
        if (fidx_q == TxAw'(hlen) - 1'b1) begin
          flen_d = 16'(hlen);
          if (htype == TyMwr) begin
            tx_st_d = TxData;
            rem_d   = dreq_len_i;
            bidx_d  = '0;
            flen_d  = 16'(hlen) + 16'(dreq_len_i);
          end else begin
            tx_st_d      = TxSend;
            sn_d         = SnFlag0;
            dreq_ready_o = (src_q == SrcDreq);
            mcpl_ready_o = (src_q == SrcMcpl);
            wack_clr     = (src_q == SrcWack);
          end
        end
      end
      TxData: begin
        // MWR data: one byte per cycle, each beat acknowledged once its bytes are stored
        if (dreq_valid_i) begin
          we     = 1'b1;
          wdata  = dreq_data_i[8*bidx_q +: 8];
          fidx_d = fidx_q + 1'b1;
          bidx_d = bidx_q + 1'b1;
          rem_d  = rem_q - 13'd1;
          if (rem_q == 13'd1 || 32'(bidx_q) == LinkBytes - 1) begin
            dreq_ready_o = 1'b1;
            bidx_d       = '0;
            if (rem_q == 13'd1) begin
              tx_st_d = TxSend;
              sn_d    = SnFlag0;
            end
          end
        end
      end
      TxSend: begin
        unique case (sn_q)
          SnFlag0: begin
            txb_valid = 1'b1;
            txb_data  = Flag;
            if (txb_ready) begin
              pos_d  = 16'd0;
              tcrc_d = 16'hFFFF;
              sn_d   = SnFetch;
            end
          end
          SnFetch: begin
            // present the payload address; the RAM answers next cycle
            re = (pos_q >= 16'd3) && (pos_q < flen_q + 16'd3);
            if (pos_q == flen_q + 16'd5) begin
              sn_d = SnFlag1;
            end else begin
              sn_d = SnLoad;
            end
          end
          SnLoad: begin
            if (pos_q == 16'd0) begin
              b = ftype_q;
            end else if (pos_q == 16'd1) begin
              b = flen_q[7:0];
            end else if (pos_q == 16'd2) begin
              b = flen_q[15:8];
            end else if (pos_q < flen_q + 16'd3) begin
              b = rdata;
            end else if (pos_q == flen_q + 16'd3) begin
              b = tcrc_q[15:8];
            end else begin
              b = tcrc_q[7:0];
            end
            if (pos_q < flen_q + 16'd3) begin
              tcrc_d = crc16(tcrc_q, b);
            end
            cur_d  = b;
            cesc_d = (b == Flag) || (b == Esc);
            sn_d   = SnOut;
          end
          SnOut: begin
            txb_valid = 1'b1;
            txb_data  = cesc_q ? Esc : cur_q;
            if (txb_ready) begin
              if (cesc_q) begin
                sn_d = SnOut2;
              end else begin
                pos_d = pos_q + 16'd1;
                sn_d  = SnFetch;
              end
            end
          end
          SnOut2: begin
            txb_valid = 1'b1;
            txb_data  = cur_q ^ 8'h20;
            if (txb_ready) begin
              pos_d = pos_q + 16'd1;
              sn_d  = SnFetch;
            end
          end
          default: begin  // SnFlag1
            txb_valid = 1'b1;
            txb_data  = Flag;
            if (txb_ready) begin
              tx_st_d = TxWait;
              timer_d = '0;
            end
          end
        endcase
      end
      default: begin  // TxWait: for the host's ACK of this SEQ
        timer_d = timer_q + 1'b1;
        if (got_ack && got_seq == seq_q) begin
          tx_st_d = TxIdle;
          seq_d   = seq_q + 8'd1;
        end else if (got_nak || timer_q == TimerW'(RetryCycles - 1)) begin
          tx_st_d = TxSend;
          sn_d    = SnFlag0;
          retry_d = retry_q + 16'd1;
        end
      end
    endcase
  end
  assign retries_o = retry_q;

  // ---------------------------------------------------------------- registers
  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      rx_st_q       <= RxHunt;
      esc_q         <= 1'b0;
      junk_q        <= 1'b0;
      rcnt_q        <= '0;
      bad_q         <= '0;
      good_q        <= '0;
      ce_busy_q     <= 1'b0;
      mr_valid_q    <= 1'b0;
      co_open_q     <= 1'b0;
      last_tag_ok_q <= 1'b0;
      wack_q        <= 1'b0;
      tx_st_q       <= TxIdle;
      sn_q          <= SnFlag0;
      seq_q         <= '0;
      retry_q       <= '0;
      timer_q       <= '0;
    end else begin
      rx_st_q       <= rx_st_d;
      esc_q         <= esc_d;
      junk_q        <= junk_d;
      rcnt_q        <= rcnt_d;
      bad_q         <= bad_d;
      good_q        <= good_d;
      ce_busy_q     <= ce_busy_d;
      mr_valid_q    <= mr_valid_d;
      co_open_q     <= co_open_d;
      last_tag_ok_q <= last_tag_ok_d;
      wack_q        <= wack_d;
      tx_st_q       <= tx_st_d;
      sn_q          <= sn_d;
      seq_q         <= seq_d;
      retry_q       <= retry_d;
      timer_q       <= timer_d;
    end
  end

  // datapath and per-frame fields: meaningful only under the control state above
  always_ff @(posedge clk_i) begin
    rlen_q      <= rlen_d;
    rcrc_q      <= rcrc_d;
    rtype_q     <= rtype_d;
    rxp_q       <= rxp_d;
    crc_ok_q    <= crc_ok_d;
    ce_last_q   <= ce_last_d;
    ce_tag_q    <= ce_tag_d;
    ce_status_q <= ce_status_d;
    ce_n_q      <= ce_n_d;
    ce_beat_q   <= ce_beat_d;
    mr_write_q  <= mr_write_d;
    mr_tag_q    <= mr_tag_d;
    mr_addr_q   <= mr_addr_d;
    mr_wdata_q  <= mr_wdata_d;
    last_tag_q  <= last_tag_d;
    co_tag_q    <= co_tag_d;
    co_idx_q    <= co_idx_d;
    wack_tag_q  <= wack_tag_d;
    src_q       <= src_d;
    ftype_q     <= ftype_d;
    cur_q       <= cur_d;
    flen_q      <= flen_d;
    pos_q       <= pos_d;
    tcrc_q      <= tcrc_d;
    fidx_q      <= fidx_d;
    rem_q       <= rem_d;
    bidx_q      <= bidx_d;
    cesc_q      <= cesc_d;
  end

  logic unused;
  assign unused = ^{hcpl_ready_i, dreq_last_i, dreq_data_i};

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i && tx_st_q == TxData && dreq_valid_i && rem_q == 13'd1) begin
      assert (dreq_last_i) else $error("tpu_uart_bridge: MWR ended without last");
    end
    if (!rst_i && hcpl_valid_o) begin
      assert (hcpl_ready_i) else $error("tpu_uart_bridge: hcpl back-pressured");
    end
  end
`endif
endmodule
