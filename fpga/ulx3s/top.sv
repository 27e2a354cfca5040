// ULX3S (ECP5 LFE5U-12F/25F/45F/85F, CABGA381) board top: 25 MHz (G2) -> EHXPLLL -> core clock,
// reset synchroniser (PLL lock, PWR button BTN0 active low), tpu_board_top (UART bridge +
// tpu_device) on the FT231X (FPGA TX = L4 "ftdi_rxd", RX = M1 "ftdi_txd"; host /dev/ttyUSB0).
// LED0 toggles per good frame, LED1 = a bad frame was seen. Size, clock and density: fpga/ulx3s/board.json (variants
// 12k/25k/45k/85k, make fpga BOARD=ulx3s ULX3S=85k); see docs/fpga.md.
// PLL (ecppll -i 25 -o <MHz>): f = 25 MHz * ClkfbDiv / ClkiDiv, VCO = f * ClkopDiv (400..800).
`default_nettype none

module top #(
  parameter int unsigned N        = 8,
  parameter int unsigned UbRows   = 2048,
  parameter int unsigned AccRows  = 1024,
  parameter int unsigned Tiles    = 2,
  parameter int unsigned Baud     = 115_200,
  parameter int unsigned ClkHz    = 100_000_000,
  parameter int unsigned ClkiDiv  = 1,
  parameter int unsigned ClkfbDiv = 4,
  parameter int unsigned ClkopDiv = 6,
  parameter int unsigned ClkopCphase = 2
) (
  input  wire       clk_25mhz,
  input  wire [0:0] btn,       // BTN0 = PWR, active low
  input  wire       ftdi_txd,  // host -> FPGA
  output wire       ftdi_rxd,  // FPGA -> host
  output wire [1:0] led
);
  wire clk, locked;

  (* FREQUENCY_PIN_CLKI = "25" *)
  (* ICP_CURRENT = "12" *) (* LPF_RESISTOR = "8" *) (* MFG_ENABLE_FILTEROPAMP = "1" *)
  (* MFG_GMCREF_SEL = "2" *)
  EHXPLLL #(
    .PLLRST_ENA("DISABLED"), .INTFB_WAKE("DISABLED"), .STDBY_ENABLE("DISABLED"),
    .DPHASE_SOURCE("DISABLED"), .OUTDIVIDER_MUXA("DIVA"), .OUTDIVIDER_MUXB("DIVB"),
    .OUTDIVIDER_MUXC("DIVC"), .OUTDIVIDER_MUXD("DIVD"),
    .CLKI_DIV(ClkiDiv), .CLKOP_ENABLE("ENABLED"), .CLKOP_DIV(ClkopDiv),
    .CLKOP_CPHASE(ClkopCphase), .CLKOP_FPHASE(0), .FEEDBK_PATH("CLKOP"), .CLKFB_DIV(ClkfbDiv)
  ) u_pll (
    .RST(1'b0), .STDBY(1'b0), .CLKI(clk_25mhz), .CLKOP(clk), .CLKFB(clk), .CLKINTFB(),
    .PHASESEL0(1'b0), .PHASESEL1(1'b0), .PHASEDIR(1'b1), .PHASESTEP(1'b1),
    .PHASELOADREG(1'b1), .PLLWAKESYNC(1'b0), .ENCLKOP(1'b0), .LOCK(locked)
  );

  logic [1:0] btn_q = 2'b00;
  logic [4:0] rst_cnt_q = 5'd0;
  logic       rst_q = 1'b1;
  always_ff @(posedge clk) begin
    btn_q <= {btn_q[0], ~btn[0]};
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

  // The reset that reaches the design: one more register, with no logic of its own, so that the
  // placer can put it among its thousands of loads instead of beside the counter and the
  // button pin (from the die's corner it took 4.9-5.5 ns of wire to the datapath's ACC enables
  // in the N = 12 builds, docs/fpga.md). Reset lasts one cycle longer.
  logic rst_tpu_q = 1'b1;
  always_ff @(posedge clk) rst_tpu_q <= rst_q;

  logic [1:0] rx_q = 2'b11;
  always_ff @(posedge clk) rx_q <= {rx_q[0], ftdi_txd};

  tpu_board_top #(
    .N(N), .UbRows(UbRows), .AccRows(AccRows), .Tiles(Tiles), .ClkHz(ClkHz), .Baud(Baud)
  ) u_tpu (
    .clk_i(clk), .rst_i(rst_tpu_q), .uart_rx_i(rx_q[1]), .uart_tx_o(ftdi_rxd), .led_o(led)
  );
endmodule

`default_nettype wire
