// tpu_uart_rx: UART receiver, 8N1, LSB first, idle high, with a two-flip-flop synchroniser on
// rx_i and mid-bit sampling: a falling edge starts a character, the start bit is checked again
// Div/2 cycles later (a shorter glitch is ignored), then each bit is sampled Div cycles apart,
// Div = round(ClkHz / Baud). A stop bit that reads 0 is a framing error: the byte is dropped,
// frame_err_o pulses, and the receiver waits for the line to go idle (high) again.
//
// Ports:
//   rx_i:          the serial line (asynchronous)
//   data_valid_o:  one-cycle pulse with data_o; there is no back-pressure (the consumer takes a
//                  byte every cycle it is offered)
//   frame_err_o:   one-cycle pulse per framing error
// Latency: data_valid_o rises about Div/2 + 3 cycles after the middle of the stop bit.
`default_nettype none

module tpu_uart_rx #(
  parameter int unsigned ClkHz = 12_000_000,  // clock frequency in Hz
  parameter int unsigned Baud  = 115_200      // bits per second
) (
  input  logic       clk_i,
  input  logic       rst_i,
  input  logic       rx_i,
  output logic       data_valid_o,
  output logic [7:0] data_o,
  output logic       frame_err_o
);
  localparam int unsigned Div  = (ClkHz + Baud / 2) / Baud;
  localparam int unsigned CntW = $clog2(Div);

  if (Baud == 0 || Div < 4) begin : g_bad_div
    $error("tpu_uart_rx: ClkHz / Baud must be >= 4 clock cycles per bit");
  end

  typedef enum logic [1:0] { StIdle, StStart, StData, StWaitIdle } state_e;

  logic [1:0]      sync_q;  // sync_q[1] is the synchronised line
  state_e          state_q, state_d;
  logic [CntW-1:0] cnt_q, cnt_d;
  logic [3:0]      bit_q, bit_d;
  logic [7:0]      shift_q, shift_d;
  logic            valid_q, valid_d, ferr_q, ferr_d;
  logic            rx_s;

  assign rx_s         = sync_q[1];
  assign data_valid_o = valid_q;
  assign data_o       = shift_q;
  assign frame_err_o  = ferr_q;

  always_comb begin
    state_d = state_q;
    cnt_d   = cnt_q;
    bit_d   = bit_q;
    shift_d = shift_q;
    valid_d = 1'b0;
    ferr_d  = 1'b0;
    unique case (state_q)
      StIdle: begin
        if (!rx_s) begin
          state_d = StStart;
          cnt_d   = CntW'(Div / 2 - 1);
        end
      end
      StStart: begin
        if (cnt_q != '0) begin
          cnt_d = cnt_q - 1'b1;
        end else if (rx_s) begin
          state_d = StIdle;  // a glitch, not a start bit
        end else begin
          state_d = StData;
          cnt_d   = CntW'(Div - 1);
          bit_d   = 4'd0;
        end
      end
      StData: begin
        if (cnt_q != '0) begin
          cnt_d = cnt_q - 1'b1;
        end else if (bit_q != 4'd8) begin
          shift_d = {rx_s, shift_q[7:1]};
          bit_d   = bit_q + 1'b1;
          cnt_d   = CntW'(Div - 1);
        end else if (rx_s) begin
          valid_d = 1'b1;  // stop bit seen: the byte is good
          state_d = StIdle;
        end else begin
          ferr_d  = 1'b1;
          state_d = StWaitIdle;
        end
      end
      StWaitIdle: begin
        if (rx_s) begin
          state_d = StIdle;
        end
      end
      default: state_d = StIdle;
    endcase
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      sync_q  <= 2'b11;
      state_q <= StIdle;
      cnt_q   <= '0;
      bit_q   <= '0;
      valid_q <= 1'b0;
      ferr_q  <= 1'b0;
    end else begin
      sync_q  <= {sync_q[0], rx_i};
      state_q <= state_d;
      cnt_q   <= cnt_d;
      bit_q   <= bit_d;
      valid_q <= valid_d;
      ferr_q  <= ferr_d;
    end
  end

  // The shift register is datapath: not reset.
  always_ff @(posedge clk_i) begin
    shift_q <= shift_d;
  end
endmodule
