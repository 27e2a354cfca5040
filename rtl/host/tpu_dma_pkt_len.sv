// tpu_dma_pkt_len: the length of a link packet: the least of the bytes left, a packet limit
// (MaxPayload for MWRs, MaxReadReq for MRDs) and the distance from the host address to the
// next 4 KiB boundary, which no packet may cross (docs/link.md). Combinational; shared by the
// DMA engines (tpu_dma_read, tpu_dma_stream, tpu_dma_write).
`default_nettype none

module tpu_dma_pkt_len #(
  parameter int unsigned LeftW = 9,
  localparam int unsigned PktW = 13
) (
  input  logic [LeftW-1:0] left_i,     // bytes not yet sent or requested
  input  logic [11:0]      addr_low_i, // host address bits 11:0
  input  logic [PktW-1:0]  limit_i,    // the packet limit
  output logic [PktW-1:0]  len_o
);
  logic [PktW-1:0] to_page_end;

  always_comb begin
    to_page_end = 13'd4096 - {1'b0, addr_low_i};
    len_o       = PktW'(left_i);
    if (limit_i < len_o) len_o = limit_i;
    if (to_page_end < len_o) len_o = to_page_end;
  end
endmodule
