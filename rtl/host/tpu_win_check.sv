// tpu_win_check: the DMA window check of docs/spec.md section 5, combinational.
// ok_o = 1 when the span [addr_i, addr_i + len_i) lies inside one window whose WIN_PERM has
// VALID and the needed permission (W when write_i, else R): base <= addr and
// addr + len - 1 <= limit, where a span whose last byte passes 2^64 - 1, or len_i = 0, never
// matches. A window with limit < base matches nothing (the comparisons give that for free).
// Windows come flat: win_base_i[64w +: 64], win_limit_i[64w +: 64], win_perm_i[32w +: 32].
`default_nettype none

module tpu_win_check #(
  parameter int unsigned NumWindows = 4
) (
  input  logic [NumWindows*64-1:0] win_base_i,
  input  logic [NumWindows*64-1:0] win_limit_i,
  input  logic [NumWindows*32-1:0] win_perm_i,
  input  logic [63:0]              addr_i,
  input  logic [31:0]              len_i,
  input  logic                     write_i,
  output logic                     ok_o
);
  logic [64:0] last_ext;  // addr + len - 1 with its carry: bit 64 set = overflow
  logic [63:0] last;
  logic        span_ok;

  always_comb begin
    last_ext = {1'b0, addr_i} + {33'd0, len_i} - 65'd1;
    last     = last_ext[63:0];
    span_ok  = (len_i != 32'd0) && !last_ext[64];
  end

  always_comb begin
    ok_o = 1'b0;
    for (int unsigned w = 0; w < NumWindows; w++) begin
      logic [31:0] perm;
      logic        perm_ok;
      perm    = win_perm_i[32*w +: 32];
      perm_ok = perm[tpu_pkg::WinPermValidLsb] &&
                (write_i ? perm[tpu_pkg::WinPermWLsb] : perm[tpu_pkg::WinPermRLsb]);
      if (span_ok && perm_ok && win_base_i[64*w +: 64] <= addr_i &&
          last <= win_limit_i[64*w +: 64]) begin
        ok_o = 1'b1;
      end
    end
  end
endmodule
