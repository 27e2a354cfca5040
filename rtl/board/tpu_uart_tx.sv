// tpu_uart_tx: UART transmitter, 8N1, LSB first, idle high. One bit lasts
// Div = round(ClkHz / Baud) clock cycles.
//
// Ports:
//   data: a byte stream (data_valid_i, data_ready_o, data_i); a transfer on valid && ready starts
//         a character; ready is high only while the line is idle between characters.
//   tx_o: the serial line (registered, so it never glitches).
// Latency: the start bit begins the cycle after the transfer; a character takes 10 * Div cycles.
`default_nettype none

module tpu_uart_tx #(
  parameter int unsigned ClkHz = 12_000_000,  // clock frequency in Hz
  parameter int unsigned Baud  = 115_200      // bits per second
) (
  input  logic       clk_i,
  input  logic       rst_i,
  input  logic       data_valid_i,
  output logic       data_ready_o,
  input  logic [7:0] data_i,
  output logic       tx_o
);
  localparam int unsigned Div = (ClkHz + Baud / 2) / Baud;
  localparam int unsigned CntW = $clog2(Div);

  if (Baud == 0 || Div < 4) begin : g_bad_div
    $error("tpu_uart_tx: ClkHz / Baud must be >= 4 clock cycles per bit");
  end

  logic            busy_q, busy_d, tx_q, tx_d;
  logic [8:0]      shift_q, shift_d;  // data bits then the stop bit, LSB first
  logic [3:0]      bit_q, bit_d;      // bits left after the current one
  logic [CntW-1:0] cnt_q, cnt_d;

  assign data_ready_o = !busy_q;
  assign tx_o         = tx_q;

  always_comb begin
    busy_d  = busy_q;
    tx_d    = tx_q;
    shift_d = shift_q;
    bit_d   = bit_q;
    cnt_d   = cnt_q;
    if (!busy_q) begin
      tx_d = 1'b1;
      if (data_valid_i) begin
        busy_d  = 1'b1;
        tx_d    = 1'b0;  // start bit
        shift_d = {1'b1, data_i};
        bit_d   = 4'd9;
        cnt_d   = CntW'(Div - 1);
      end
    end else if (cnt_q != '0) begin
      cnt_d = cnt_q - 1'b1;
    end else if (bit_q != 4'd0) begin
      tx_d    = shift_q[0];
      shift_d = {1'b1, shift_q[8:1]};
      bit_d   = bit_q - 1'b1;
      cnt_d   = CntW'(Div - 1);
    end else begin
      busy_d = 1'b0;  // the stop bit has lasted Div cycles
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      busy_q  <= 1'b0;
      tx_q    <= 1'b1;
      shift_q <= '1;
      bit_q   <= '0;
      cnt_q   <= '0;
    end else begin
      busy_q  <= busy_d;
      tx_q    <= tx_d;
      shift_q <= shift_d;
      bit_q   <= bit_d;
      cnt_q   <= cnt_d;
    end
  end
endmodule
