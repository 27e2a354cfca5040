// tpu_uart_deframer: the host -> device half of the UART link's framing (docs/link.md "UART
// link"): received characters in, whole checked frames out, for tpu_uart_bridge.
//   wire frame: 0x7E, stuffed(TYPE, LEN[7:0], LEN[15:8], PAYLOAD[LEN], CRC[15:8], CRC[7:0]), 0x7E
//   stuffing:   0x7E and 0x7D inside a frame arrive as 0x7D, byte ^ 0x20
//   CRC:        CRC-16/CCITT-FALSE over TYPE, LEN and PAYLOAD (tpu_uart_crc16)
// A frame is accepted (frame_good_o, one cycle, at its closing flag) only when it ends on a
// flag with its LEN's number of bytes and a good CRC; its TYPE, LEN and PAYLOAD (byte i in
// payload_o[8*i +: 8], at most RxMax bytes) then hold until the next frame's payload bytes
// arrive (at least 4 characters after the flag). A frame is bad (frame_bad_o, one cycle) when
// its CRC is wrong, LEN does not fit TYPE (CPL: 2..RxMax, MREQ: 8, ACK/NAK: 1, other types
// none), a 0x7E arrives inside it (a dropped byte), a byte follows its CRC, or a UART framing
// error hits it; bytes outside a frame count as one bad frame at the next flag.
// Latency: frame_good_o in the cycle the closing flag arrives.
`default_nettype none

module tpu_uart_deframer #(
  parameter int unsigned RxMax = 34  // largest payload
) (
  input  logic               clk_i,
  input  logic               rst_i,
  // received characters (tpu_uart_rx)
  input  logic               char_valid_i,
  input  logic [7:0]         char_i,
  input  logic               char_error_i,  // framing error
  // frames
  output logic               frame_good_o,
  output logic               frame_bad_o,
  output logic [7:0]         type_o,
  output logic [15:0]        len_o,
  output logic [RxMax*8-1:0] payload_o
);
  localparam logic [7:0] Flag   = 8'h7E;
  localparam logic [7:0] Escape = 8'h7D;
  localparam logic [7:0] TypeCpl = 8'h81, TypeMreq = 8'h82, TypeAck = 8'h83, TypeNak = 8'h84;

  typedef enum logic [1:0] { Hunt, Body, Done } state_e;

  state_e             state_q, state_d;
  logic               escape_q, escape_d;    // the last character was 0x7D
  logic               junk_q, junk_d;        // bytes outside a frame since the last flag
  logic               crc_ok_q, crc_ok_d;
  logic [15:0]        count_q, count_d;      // frame bytes so far (unstuffed)
  logic [15:0]        len_q, len_d, crc_q, crc_d;
  logic [7:0]         type_q, type_d;
  logic [RxMax*8-1:0] payload_q, payload_d;
  logic [7:0]         frame_byte;            // the character unstuffed
  logic [15:0]        crc_next;

  function automatic logic len_ok(input logic [7:0] frame_type, input logic [15:0] len);
    unique case (frame_type)
      TypeCpl:          len_ok = len >= 16'd2 && len <= 16'(RxMax);
      TypeMreq:         len_ok = len == 16'd8;
      TypeAck, TypeNak: len_ok = len == 16'd1;
      default:          len_ok = 1'b0;
    endcase
  endfunction

  assign frame_byte = char_i ^ (escape_q ? 8'h20 : 8'h00);
  assign type_o     = type_q;
  assign len_o      = len_q;
  assign payload_o  = payload_q;

  tpu_uart_crc16 u_crc (.crc_i(crc_q), .byte_i(frame_byte), .crc_o(crc_next));

  always_comb begin
    state_d      = state_q;
    escape_d     = escape_q;
    junk_d       = junk_q;
    count_d      = count_q;
    len_d        = len_q;
    crc_d        = crc_q;
    type_d       = type_q;
    payload_d    = payload_q;
    crc_ok_d     = crc_ok_q;
    frame_good_o = 1'b0;
    frame_bad_o  = 1'b0;
    if (char_error_i) begin
      // a broken character: whatever frame it belonged to is lost
      frame_bad_o = 1'b1;
      state_d     = Hunt;
      junk_d      = 1'b0;
    end else if (char_valid_i && char_i == Flag) begin
      // a flag ends a complete frame (only then is it accepted: a frame with a byte too many
      // or too few never ends on a flag) and starts the next one; a flag inside a frame means
      // bytes were lost
      if (state_q == Done) begin
        frame_good_o = crc_ok_q;
        frame_bad_o  = !crc_ok_q;
      end else if ((state_q == Body && count_q != 16'd0) || junk_q) begin
        frame_bad_o = 1'b1;
      end
      state_d  = Body;
      junk_d   = 1'b0;
      escape_d = 1'b0;
      count_d  = 16'd0;
      crc_d    = 16'hFFFF;
    end else if (char_valid_i && state_q == Done) begin
      frame_bad_o = 1'b1;  // a byte too many
      state_d     = Hunt;
    end else if (char_valid_i && state_q == Hunt) begin
      junk_d = 1'b1;  // bytes outside a frame: counted once, at the next flag
    end else if (char_valid_i && char_i == Escape && !escape_q) begin
      escape_d = 1'b1;
    end else if (char_valid_i) begin
      escape_d = 1'b0;
      crc_d    = crc_next;
      count_d  = count_q + 16'd1;
      if (count_q == 16'd0) begin
        type_d = frame_byte;
      end else if (count_q == 16'd1) begin
        len_d[7:0] = frame_byte;
      end else if (count_q == 16'd2) begin
        len_d[15:8] = frame_byte;
        if (!len_ok(type_q, {frame_byte, len_q[7:0]})) begin
          frame_bad_o = 1'b1;
          state_d     = Hunt;
        end
      end else if (count_q < len_q + 16'd3) begin
        payload_d[8*(count_q - 16'd3) +: 8] = frame_byte;
      end else if (count_q == len_q + 16'd4) begin
        // last CRC byte: the CRC over everything including the CRC is 0 for a good frame
        state_d  = Done;
        crc_ok_d = crc_next == 16'd0;
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      state_q  <= Hunt;
      escape_q <= 1'b0;
      junk_q   <= 1'b0;
      count_q  <= '0;
    end else begin
      state_q  <= state_d;
      escape_q <= escape_d;
      junk_q   <= junk_d;
      count_q  <= count_d;
    end
  end

  // per-frame fields: meaningful only under the state above
  always_ff @(posedge clk_i) begin
    len_q     <= len_d;
    crc_q     <= crc_d;
    type_q    <= type_d;
    payload_q <= payload_d;
    crc_ok_q  <= crc_ok_d;
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i) begin
    if (!rst_i) begin
      // a frame ends one way; a good one has a length that fits its type
      assert (!(frame_good_o && frame_bad_o)) else $error("tpu_uart_deframer: good and bad frame");
      if (frame_good_o) assert (len_ok(type_q, len_q))
        else $error("tpu_uart_deframer: frame of type %h with %0d bytes accepted", type_q, len_q);
      // the payload never grows past its buffer
      if (state_q == Body && count_q > 16'd2)
        assert (len_q <= 16'(RxMax)) else $error("tpu_uart_deframer: payload past RxMax");
    end
  end
`endif
endmodule
