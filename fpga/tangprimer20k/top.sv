// Tang Primer 20K (GW2A-LV18PG256C8/I7) + Dock board top: 27 MHz (H11) straight to the core
// (no PLL yet: the GW2A PLL primitive was not brought up in this flow), reset synchroniser
// (power-on counter), tpu_board_top (UART bridge + tpu_device) on the Dock's USB-UART
// (FPGA RX = T13, TX = M11). Size and clock: fpga/tangprimer20k/board.json; docs/fpga.md.
`default_nettype none

module top #(
  parameter int unsigned N       = 4,
  parameter int unsigned UbRows  = 1024,
  parameter int unsigned AccRows = 512,
  parameter int unsigned Tiles   = 2,
  parameter int unsigned Baud    = 115_200,
  parameter int unsigned ClkHz   = 27_000_000
) (
  input  wire clk27,
  input  wire uart_rx,
  output wire uart_tx
);
  wire clk = clk27;

  logic [4:0] rst_cnt_q = 5'd0;
  logic       rst_q = 1'b1;
  always_ff @(posedge clk) begin
    if (!rst_cnt_q[4]) begin
      rst_cnt_q <= rst_cnt_q + 5'd1;
      rst_q     <= 1'b1;
    end else begin
      rst_q <= 1'b0;
    end
  end

  logic [1:0] rx_q = 2'b11;
  always_ff @(posedge clk) rx_q <= {rx_q[0], uart_rx};

  tpu_board_top #(
    .N(N), .UbRows(UbRows), .AccRows(AccRows), .Tiles(Tiles), .ClkHz(ClkHz), .Baud(Baud)
  ) u_tpu (
    .clk_i(clk), .rst_i(rst_q), .uart_rx_i(rx_q[1]), .uart_tx_o(uart_tx), .led_o()
  );
endmodule

`default_nettype wire
