// tpu_uart_crc16: one byte of CRC-16/CCITT-FALSE (poly 0x1021, MSB first; the frames start it at
// 0xFFFF), the check of the UART link's frames (docs/link.md "UART link"). Combinational; used
// by the deframer (tpu_uart_deframer) and the framer (tpu_uart_framer).
`default_nettype none

module tpu_uart_crc16 (
  input  logic [15:0] crc_i,   // the CRC so far
  input  logic [7:0]  byte_i,
  output logic [15:0] crc_o    // the CRC with byte_i
);
  always_comb begin
    crc_o = crc_i ^ {byte_i, 8'h00};
    for (int i = 0; i < 8; i++) begin
      crc_o = crc_o[15] ? ({crc_o[14:0], 1'b0} ^ 16'h1021) : {crc_o[14:0], 1'b0};
    end
  end
endmodule
