// iCEBreaker (iCE40UP5K-SG48) board top: 12 MHz crystal (pin 35) -> SB_PLL40_PAD -> core clock,
// reset synchroniser (PLL lock and the user button), tpu_board_top (UART bridge + tpu_device)
// on the FT2232H's second channel (FPGA RX pin 6, TX pin 9; host /dev/ttyUSB1).
// LEDs (active low): red = in reset or a bad frame was seen, green = toggles per good frame.
// Size and clock: fpga/icebreaker/board.json (N, buffers, PLL dividers, target MHz); see
// docs/fpga.md. PLL: f = 12 MHz * (DIVF + 1) / 2^DIVQ (icepll -i 12 -o <MHz> -p).
`default_nettype none

module top #(
  parameter int unsigned N         = 4,
  parameter int unsigned UbRows    = 512,
  parameter int unsigned AccRows   = 256,
  parameter int unsigned Tiles     = 2,
  parameter int unsigned Baud      = 115_200,
  parameter int unsigned ClkHz     = 48_000_000,
  parameter int unsigned PllDivf   = 63,
  parameter int unsigned PllDivq   = 4,
  parameter int unsigned PllFilter = 1
) (
  input  wire CLK,      // 12 MHz, pin 35
  input  wire BTN_N,    // user button, active low, pin 10
  input  wire RX,       // from the FT2232H (host TX), pin 6
  output wire TX,       // to the FT2232H (host RX), pin 9
  output wire LEDR_N,   // pin 11
  output wire LEDG_N    // pin 37
);
  wire clk, locked;
  wire [1:0] led;

  SB_PLL40_PAD #(
    .FEEDBACK_PATH("SIMPLE"),
    .DIVR(4'd0),
    .DIVF(7'(PllDivf)),
    .DIVQ(3'(PllDivq)),
    .FILTER_RANGE(3'(PllFilter))
  ) u_pll (
    .PACKAGEPIN(CLK),
    .PLLOUTGLOBAL(clk),
    .LOCK(locked),
    .RESETB(1'b1),
    .BYPASS(1'b0)
  );

  // synchronous reset, held 16 cycles after lock and while the button is pressed
  logic [1:0] btn_q = 2'b00;
  logic [4:0] rst_cnt_q = 5'd0;
  logic       rst_q = 1'b1;
  always_ff @(posedge clk) begin
    btn_q <= {btn_q[0], ~BTN_N};
    if (!locked || btn_q[1]) begin
      rst_cnt_q <= 5'd0;
      rst_q     <= 1'b1;
    end else if (!rst_cnt_q[4]) begin
      rst_cnt_q <= rst_cnt_q + 5'd1;
      rst_q     <= 1'b1;
    end else begin
      rst_q <= 1'b0;
    end
  end

  // RX through two flip-flops (it is asynchronous to clk)
  logic [1:0] rx_q = 2'b11;
  always_ff @(posedge clk) rx_q <= {rx_q[0], RX};

  tpu_board_top #(
    .N(N), .UbRows(UbRows), .AccRows(AccRows), .Tiles(Tiles), .ClkHz(ClkHz), .Baud(Baud)
  ) u_tpu (
    .clk_i(clk),
    .rst_i(rst_q),
    .uart_rx_i(rx_q[1]),
    .uart_tx_o(TX),
    .led_o(led)
  );

  assign LEDR_N = ~(rst_q | led[1]);
  assign LEDG_N = ~led[0];
endmodule

`default_nettype wire
