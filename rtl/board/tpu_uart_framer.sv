// tpu_uart_framer: the device -> host half of the UART link (docs/link.md "UART link") for
// tpu_uart_bridge: one frame at a time from a WACK (wack_i), an MMIO read completion (mcpl_*)
// or a dreq packet, in that order of priority; reliable, stop-and-wait:
//     0x01 MRD  SEQ TAG LEN[2] ADDR[8]      0x02 MWR  SEQ LEN[2] ADDR[8] DATA[LEN]
//     0x03 MSI  SEQ ADDR[8] DATA[4]         0x04 MCPL SEQ TAG RDATA[4]
//     0x05 WACK SEQ TAG  (an MMIO write reached the device)
// The frame is stored in a buffer RAM (tpu_ram, TxMax bytes: the header one byte per cycle,
// then an MWR's data one byte per cycle, each dreq beat taken once its bytes are stored; the
// source is taken, dreq_ready_o / mcpl_ready_o / wack_clear_o, once its frame is whole), then
// sent on char_* as 0x7E, stuffed(TYPE, LEN[2], PAYLOAD, CRC[15:8], CRC[7:0]), 0x7E (0x7E and
// 0x7D stuffed as 0x7D, byte ^ 0x20; CRC-16/CCITT-FALSE over TYPE, LEN and PAYLOAD). Then it
// waits for the host's ACK of its SEQ (ack_i with ack_seq_i): the next frame gets SEQ + 1. A
// NAK, or no ACK within RetryCycles, sends the same frame again from the buffer (retries_o
// counts them, wrapping).
// Latency: the header is stored in its length in cycles, each character goes out in one
// cycle (two for a stuffed one) plus one to fetch it, as fast as the UART takes them.
`default_nettype none

module tpu_uart_framer #(
  parameter int unsigned LinkBytes   = 4,
  parameter int unsigned MaxPayload  = 64,
  parameter int unsigned RetryCycles = 600_000,
  localparam int unsigned TxMax      = 11 + MaxPayload,  // largest payload (MWR)
  localparam int unsigned TxAw       = $clog2(TxMax),
  localparam int unsigned TimerW     = $clog2(RetryCycles + 1)
) (
  input  logic                   clk_i,
  input  logic                   rst_i,
  // the sources
  input  logic                   wack_i,
  input  logic [7:0]             wack_tag_i,
  output logic                   wack_clear_o,
  input  logic                   mcpl_valid_i,
  output logic                   mcpl_ready_o,
  input  logic [7:0]             mcpl_tag_i,
  input  logic [31:0]            mcpl_rdata_i,
  input  logic                   dreq_valid_i,
  output logic                   dreq_ready_o,
  input  logic [1:0]             dreq_kind_i,
  input  logic [7:0]             dreq_tag_i,
  input  logic [12:0]            dreq_len_i,
  input  logic [63:0]            dreq_addr_i,
  input  logic [LinkBytes*8-1:0] dreq_data_i,
  input  logic                   dreq_last_i,
  // the host's answers (tpu_uart_dispatch)
  input  logic                   ack_i,
  input  logic                   nak_i,
  input  logic [7:0]             ack_seq_i,
  // characters to send (tpu_uart_tx)
  output logic                   char_valid_o,
  input  logic                   char_ready_i,
  output logic [7:0]             char_o,
  output logic [15:0]            retries_o
);
  localparam logic [7:0] Flag   = 8'h7E;
  localparam logic [7:0] Escape = 8'h7D;
  localparam logic [7:0] TypeMrd = 8'h01, TypeMwr = 8'h02, TypeMsi = 8'h03, TypeMcpl = 8'h04,
                         TypeWack = 8'h05;
  localparam logic [1:0] KindMrd = 2'd0, KindMwr = 2'd1;

  typedef enum logic [2:0] { Idle, Fill, Data, Send, Wait } state_e;
  typedef enum logic [2:0] { SendFlag0, SendFetch, SendLoad, SendOut, SendOut2, SendFlag1 }
    send_e;
  typedef enum logic [1:0] { SourceWack, SourceMcpl, SourceDreq } source_e;

  state_e            state_q, state_d;
  send_e             send_q, send_d;
  source_e           source_q, source_d;
  logic [7:0]        seq_q, seq_d, type_q, type_d, char_q, char_d;
  logic [15:0]       len_q, len_d, pos_q, pos_d, crc_q, crc_d, retries_q, retries_d;
  logic [TxAw-1:0]   fill_q, fill_d;          // buffer bytes stored
  logic [12:0]       data_left_q, data_left_d;  // MWR data bytes still to store
  logic [$clog2(LinkBytes)-1:0] beat_byte_q, beat_byte_d;
  logic              stuff_q, stuff_d;        // char_q goes out stuffed
  logic [TimerW-1:0] timer_q, timer_d;
  logic              write, read;
  logic [TxAw-1:0]   write_addr, read_addr;
  logic [7:0]        write_data, read_data;
  logic [13*8-1:0]   header;                  // header bytes of the chosen source, byte 0 first
  logic [3:0]        header_len;
  logic [7:0]        header_type;
  logic [7:0]        frame_byte;              // the frame's byte at pos_q (unstuffed)
  logic [15:0]       crc_next;

  tpu_ram #(.Width(8), .Depth(TxMax)) u_buffer (
    .clk_i, .we_i(write), .waddr_i(write_addr), .wdata_i(write_data),
    .re_i(read), .raddr_i(read_addr), .rdata_o(read_data)
  );

  // header of the source being stored (its fields hold still until it is acknowledged)
  always_comb begin
    header      = '0;
    header_len  = 4'd0;
    header_type = TypeWack;
    unique case (source_q)
      SourceWack: begin
        header[15:0] = {wack_tag_i, seq_q};
        header_len   = 4'd2;
        header_type  = TypeWack;
      end
      SourceMcpl: begin
        header[47:0] = {mcpl_rdata_i, mcpl_tag_i, seq_q};
        header_len   = 4'd6;
        header_type  = TypeMcpl;
      end
      default: begin
        if (dreq_kind_i == KindMrd) begin
          header[95:0] = {dreq_addr_i, 3'd0, dreq_len_i, dreq_tag_i, seq_q};
          header_len   = 4'd12;
          header_type  = TypeMrd;
        end else if (dreq_kind_i == KindMwr) begin
          header[87:0] = {dreq_addr_i, 3'd0, dreq_len_i, seq_q};
          header_len   = 4'd11;
          header_type  = TypeMwr;
        end else begin
          header[103:0] = {dreq_data_i[31:0], dreq_addr_i, seq_q};
          header_len    = 4'd13;
          header_type   = TypeMsi;
        end
      end
    endcase
  end

  // the frame's byte at pos_q: TYPE, LEN, PAYLOAD (the buffer RAM's answer), CRC
  always_comb begin
    if (pos_q == 16'd0) begin
      frame_byte = type_q;
    end else if (pos_q == 16'd1) begin
      frame_byte = len_q[7:0];
    end else if (pos_q == 16'd2) begin
      frame_byte = len_q[15:8];
    end else if (pos_q < len_q + 16'd3) begin
      frame_byte = read_data;
    end else if (pos_q == len_q + 16'd3) begin
      frame_byte = crc_q[15:8];
    end else begin
      frame_byte = crc_q[7:0];
    end
  end

  tpu_uart_crc16 u_crc (.crc_i(crc_q), .byte_i(frame_byte), .crc_o(crc_next));

  always_comb begin
    state_d      = state_q;
    send_d       = send_q;
    source_d     = source_q;
    seq_d        = seq_q;
    type_d       = type_q;
    char_d       = char_q;
    len_d        = len_q;
    pos_d        = pos_q;
    crc_d        = crc_q;
    retries_d    = retries_q;
    fill_d       = fill_q;
    data_left_d  = data_left_q;
    beat_byte_d  = beat_byte_q;
    stuff_d      = stuff_q;
    timer_d      = timer_q;
    write        = 1'b0;
    read         = 1'b0;
    write_addr   = fill_q;
    read_addr    = TxAw'(pos_q - 16'd3);
    write_data   = header[8*fill_q +: 8];
    dreq_ready_o = 1'b0;
    mcpl_ready_o = 1'b0;
    wack_clear_o = 1'b0;
    char_valid_o = 1'b0;
    char_o       = Flag;
    unique case (state_q)
      Idle: begin
        fill_d = '0;
        if (wack_i) begin
          source_d = SourceWack;
          state_d  = Fill;
        end else if (mcpl_valid_i) begin
          source_d = SourceMcpl;
          state_d  = Fill;
        end else if (dreq_valid_i) begin
          source_d = SourceDreq;
          state_d  = Fill;
        end
      end
      Fill: begin
        // one header byte per cycle into the frame buffer
        write  = 1'b1;
        fill_d = fill_q + 1'b1;
        type_d = header_type;
        if (fill_q == TxAw'(header_len) - 1'b1) begin
          len_d = 16'(header_len);
          if (header_type == TypeMwr) begin
            state_d     = Data;
            data_left_d = dreq_len_i;
            beat_byte_d = '0;
            len_d       = 16'(header_len) + 16'(dreq_len_i);
          end else begin
            state_d      = Send;
            send_d       = SendFlag0;
            dreq_ready_o = (source_q == SourceDreq);
            mcpl_ready_o = (source_q == SourceMcpl);
            wack_clear_o = (source_q == SourceWack);
          end
        end
      end
      Data: begin
        // MWR data: one byte per cycle, each beat acknowledged once its bytes are stored
        if (dreq_valid_i) begin
          write       = 1'b1;
          write_data  = dreq_data_i[8*beat_byte_q +: 8];
          fill_d      = fill_q + 1'b1;
          beat_byte_d = beat_byte_q + 1'b1;
          data_left_d = data_left_q - 13'd1;
          if (data_left_q == 13'd1 || 32'(beat_byte_q) == LinkBytes - 1) begin
            dreq_ready_o = 1'b1;
            beat_byte_d  = '0;
            if (data_left_q == 13'd1) begin
              state_d = Send;
              send_d  = SendFlag0;
            end
          end
        end
      end
      Send: begin
        unique case (send_q)
          SendFlag0: begin
            char_valid_o = 1'b1;
            char_o       = Flag;
            if (char_ready_i) begin
              pos_d  = 16'd0;
              crc_d  = 16'hFFFF;
              send_d = SendFetch;
            end
          end
          SendFetch: begin
            // present the payload address; the RAM answers next cycle
            read = (pos_q >= 16'd3) && (pos_q < len_q + 16'd3);
            if (pos_q == len_q + 16'd5) begin
              send_d = SendFlag1;
            end else begin
              send_d = SendLoad;
            end
          end
          SendLoad: begin
            if (pos_q < len_q + 16'd3) begin
              crc_d = crc_next;
            end
            char_d  = frame_byte;
            stuff_d = (frame_byte == Flag) || (frame_byte == Escape);
            send_d  = SendOut;
          end
          SendOut: begin
            char_valid_o = 1'b1;
            char_o       = stuff_q ? Escape : char_q;
            if (char_ready_i) begin
              if (stuff_q) begin
                send_d = SendOut2;
              end else begin
                pos_d  = pos_q + 16'd1;
                send_d = SendFetch;
              end
            end
          end
          SendOut2: begin
            char_valid_o = 1'b1;
            char_o       = char_q ^ 8'h20;
            if (char_ready_i) begin
              pos_d  = pos_q + 16'd1;
              send_d = SendFetch;
            end
          end
          default: begin  // SendFlag1
            char_valid_o = 1'b1;
            char_o       = Flag;
            if (char_ready_i) begin
              state_d = Wait;
              timer_d = '0;
            end
          end
        endcase
      end
      default: begin  // Wait: for the host's ACK of this SEQ
        timer_d = timer_q + 1'b1;
        if (ack_i && ack_seq_i == seq_q) begin
          state_d = Idle;
          seq_d   = seq_q + 8'd1;
        end else if (nak_i || timer_q == TimerW'(RetryCycles - 1)) begin
          state_d   = Send;
          send_d    = SendFlag0;
          retries_d = retries_q + 16'd1;
        end
      end
    endcase
  end
  assign retries_o = retries_q;

  logic unused;
  assign unused = dreq_last_i;  // checked only (assertion below)

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      state_q   <= Idle;
      send_q    <= SendFlag0;
      seq_q     <= '0;
      retries_q <= '0;
      timer_q   <= '0;
    end else begin
      state_q   <= state_d;
      send_q    <= send_d;
      seq_q     <= seq_d;
      retries_q <= retries_d;
      timer_q   <= timer_d;
    end
  end

  // per-frame fields: meaningful only under the control state above
  always_ff @(posedge clk_i) begin
    source_q    <= source_d;
    type_q      <= type_d;
    char_q      <= char_d;
    len_q       <= len_d;
    pos_q       <= pos_d;
    crc_q       <= crc_d;
    fill_q      <= fill_d;
    data_left_q <= data_left_d;
    beat_byte_q <= beat_byte_d;
    stuff_q     <= stuff_d;
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      if (state_q == Data && dreq_valid_i && data_left_q == 13'd1) begin
        assert (dreq_last_i) else $error("tpu_uart_framer: MWR ended without last");
      end
      // the frame fits its buffer
      if (write) assert (32'(write_addr) < TxMax)
        else $error("tpu_uart_framer: buffer byte %0d of %0d", write_addr, TxMax);
      // char_*: a character offered is held, unchanged, until the UART takes it
      if ($past(!rst_i) && $past(char_valid_o && !char_ready_i))
        assert (char_valid_o && char_o == $past(char_o))
          else $error("tpu_uart_framer: character withdrawn or changed while stalled");
    end
  end
`endif
endmodule
