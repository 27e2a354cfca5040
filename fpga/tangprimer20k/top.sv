// Tang Primer 20K (GW2A-LV18PG256C8/I7) + Dock board top: 27 MHz crystal (H11) -> rPLL -> core
// clock, reset synchroniser (held until the PLL locks, then 16 cycles), tpu_board_top (UART
// bridge + tpu_device) on the Dock's USB-UART (FPGA RX = T13, TX = M11).
// Size and clock: fpga/tangprimer20k/board.json (N, buffers, PLL dividers, target MHz); see
// docs/fpga.md. PLL (.venv-fpga/bin/gowin_pll -d "GW2A-18 C8/I7" -i 27 -o <MHz>):
// f = 27 MHz * (FBDIV_SEL + 1) / (IDIV_SEL + 1), VCO = f * ODIV_SEL (500..1250 MHz),
// PFD = 27 MHz / (IDIV_SEL + 1) (3..500 MHz); ODIV_SEL is 2, 4, 8, 16, 32, 48, ..., 128.
`default_nettype none

module top #(
  parameter int unsigned N       = 4,
  parameter int unsigned UbRows  = 1024,
  parameter int unsigned AccRows = 512,
  parameter int unsigned Tiles   = 2,
  parameter int unsigned Baud    = 115_200,
  parameter int unsigned ClkHz   = 54_000_000,
  parameter int unsigned PllIdiv = 0,
  parameter int unsigned PllFbdiv = 1,
  parameter int unsigned PllOdiv = 16
) (
  input  wire clk27,
  input  wire uart_rx,
  output wire uart_tx
);
  wire clk, locked;

  rPLL #(
    .FCLKIN("27"),
    .DEVICE("GW2A-18"),
    .IDIV_SEL(PllIdiv),
    .FBDIV_SEL(PllFbdiv),
    .ODIV_SEL(PllOdiv)
  ) u_pll (
    .CLKIN(clk27), .CLKFB(1'b0), .RESET(1'b0), .RESET_P(1'b0),
    .FBDSEL(6'b0), .IDSEL(6'b0), .ODSEL(6'b0), .PSDA(4'b0), .DUTYDA(4'b0), .FDLY(4'b0),
    .CLKOUT(clk), .LOCK(locked), .CLKOUTP(), .CLKOUTD(), .CLKOUTD3()
  );

  // synchronous reset: held while the PLL is unlocked (LOCK synchronised into clk), then for
  // 16 more cycles
  logic [1:0] lock_q = 2'b00;
  logic [4:0] rst_cnt_q = 5'd0;
  logic       rst_q = 1'b1;
  always_ff @(posedge clk) begin
    lock_q <= {lock_q[0], locked};
    if (!lock_q[1]) begin
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
  always_ff @(posedge clk) rx_q <= {rx_q[0], uart_rx};

  tpu_board_top #(
    .N(N), .UbRows(UbRows), .AccRows(AccRows), .Tiles(Tiles), .ClkHz(ClkHz), .Baud(Baud)
  ) u_tpu (
    .clk_i(clk), .rst_i(rst_q), .uart_rx_i(rx_q[1]), .uart_tx_o(uart_tx), .led_o()
  );
endmodule

`default_nettype wire
