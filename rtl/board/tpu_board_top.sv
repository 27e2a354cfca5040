// tpu_board_top: an FPGA board's whole design: tpu_uart_bridge + tpu_device, so that the host
// driver's "uart:PATH@BAUD" backend talks to the board over one UART (docs/link.md "UART link").
//
// Ports (stable; board flows in fpga/<board>/ wire these to pins):
//   clk_i       board clock, ClkHz Hz
//   rst_i       synchronous, active-high reset (a button, or tie 0: the flops of control state
//               still need a reset pulse, so boards without a button drive it from a power-on
//               counter in their wrapper)
//   uart_rx_i   serial data from the host (the FTDI's TXD), 8N1, Baud bits/s, idle high
//   uart_tx_o   serial data to the host (the FTDI's RXD)
//   led_o[1:0]  [0] toggles on each frame received good; [1] lit once any bad frame was seen
// Parameters: the device's N, UbRows, AccRows, Tiles, NumQueues, NumWindows, MaxQueueEntries,
// StageRows (small defaults that fit an iCE40 UP5K's memories at N = 4), ActLanes (1: the
// serial activation) and UbReadPort2 (0: one UB copy), the host interface's SqePrefetch (0: no SQE
// prefetch buffer), ReadAhead (0: no LOAD_WEIGHTS read-ahead) and LutStage (1: the LUT load
// through the staging ring, 64-byte read jobs), SpanSerial (1: a shift-add span check) and
// RegSlices (1: register slices between the blocks) (tpu_device), the link's LinkBytes,
// MaxPayload, MaxReadReq and Tags (small: the UART moves a few KB/s), ClkHz and Baud.
// Timeouts follow from the clock: the device's completion timeout is CplTimeoutCycles (default
// 1 s: the host serves DMA only while its driver runs), its watchdog WatchdogUnits x 1024
// cycles, and the bridge sends an unacknowledged frame again after RetryCycles (50 ms).
`default_nettype none

module tpu_board_top #(
  parameter int unsigned N                = 4,
  parameter int unsigned UbRows           = 1024,
  parameter int unsigned AccRows          = 512,
  parameter int unsigned Tiles            = 2,
  parameter int unsigned NumQueues        = 1,
  parameter int unsigned NumWindows       = 2,
  parameter int unsigned MaxQueueEntries  = 64,
  parameter int unsigned StageRows        = 32,  // LutStage: 2 x StageRows >= 256 / N
  parameter int unsigned LinkBytes        = 4,
  parameter int unsigned MaxPayload       = 64,
  parameter int unsigned MaxReadReq       = 64,
  parameter int unsigned Tags             = 4,
  parameter int unsigned ClkHz            = 12_000_000,
  parameter int unsigned Baud             = 115_200,
  parameter int unsigned CplTimeoutCycles = ClkHz,
  parameter int unsigned WatchdogUnits    = 65_535,
  parameter int unsigned RetryCycles      = ClkHz / 20,
  // datapath size options for small FPGAs: the serial activation (one channel at a time) and
  // no second UB copy (WRITE_HOST then waits for the MXU; see tpu_datapath)
  parameter int unsigned ActLanes         = 1,
  parameter bit          UbReadPort2      = 1'b0,
  // host interface size options (tpu_device): no SQE prefetch buffer, no LOAD_WEIGHTS
  // read-ahead, the LUT load through the staging ring (small DMA read buffer), a bit-serial
  // span product
  parameter bit          SqePrefetch      = 1'b0,
  parameter bit          ReadAhead        = 1'b0,
  parameter bit          LutStage         = 1'b1,
  parameter bit          SpanSerial       = 1'b1,
  // register slices between the device's blocks for FPGA clock rates (tpu_device RegSlices:
  // one more cycle per datapath command, nothing else changes)
  parameter bit          RegSlices        = 1'b1,
  // STREAM_MATMUL left out (its counters and products do not fit the small boards; the
  // driver reads OPCODES and keeps to LOAD_WEIGHTS + MATMUL)
  parameter bit          StreamMm         = 1'b0
) (
  input  logic       clk_i,
  input  logic       rst_i,
  input  logic       uart_rx_i,
  output logic       uart_tx_o,
  output logic [1:0] led_o
);
  localparam int unsigned LB8 = LinkBytes * 8;

  logic           dreq_valid, dreq_ready, dreq_last, hcpl_valid, hcpl_ready, hcpl_last;
  logic [1:0]     dreq_kind, hcpl_status;
  logic [7:0]     dreq_tag, hcpl_tag, mreq_tag, mcpl_tag;
  logic [12:0]    dreq_len;
  logic [63:0]    dreq_addr;
  logic [LB8-1:0] dreq_data, hcpl_data;
  logic           mreq_valid, mreq_ready, mreq_write, mcpl_valid, mcpl_ready;
  logic [15:0]    mreq_addr;
  logic [31:0]    mreq_wdata, mcpl_rdata;
  logic [15:0]    bad_frames, retries, good_frames;

  tpu_uart_bridge #(
    .ClkHz(ClkHz), .Baud(Baud), .LinkBytes(LinkBytes), .MaxPayload(MaxPayload),
    .RetryCycles(RetryCycles)
  ) u_bridge (
    .clk_i, .rst_i, .uart_rx_i, .uart_tx_o,
    .dreq_valid_i(dreq_valid), .dreq_ready_o(dreq_ready), .dreq_kind_i(dreq_kind),
    .dreq_tag_i(dreq_tag), .dreq_len_i(dreq_len), .dreq_addr_i(dreq_addr),
    .dreq_data_i(dreq_data), .dreq_last_i(dreq_last),
    .hcpl_valid_o(hcpl_valid), .hcpl_ready_i(hcpl_ready), .hcpl_tag_o(hcpl_tag),
    .hcpl_status_o(hcpl_status), .hcpl_data_o(hcpl_data), .hcpl_last_o(hcpl_last),
    .mreq_valid_o(mreq_valid), .mreq_ready_i(mreq_ready), .mreq_write_o(mreq_write),
    .mreq_addr_o(mreq_addr), .mreq_wdata_o(mreq_wdata), .mreq_tag_o(mreq_tag),
    .mcpl_valid_i(mcpl_valid), .mcpl_ready_o(mcpl_ready), .mcpl_tag_i(mcpl_tag),
    .mcpl_rdata_i(mcpl_rdata),
    .bad_frames_o(bad_frames), .retries_o(retries), .good_frames_o(good_frames)
  );

  tpu_device #(
    .N(N), .UbRows(UbRows), .AccRows(AccRows), .Tiles(Tiles), .NumQueues(NumQueues),
    .NumWindows(NumWindows), .MaxQueueEntries(MaxQueueEntries), .LinkBytes(LinkBytes),
    .MaxPayload(MaxPayload), .MaxReadReq(MaxReadReq), .Tags(Tags),
    .CplTimeoutCycles(CplTimeoutCycles), .WatchdogUnits(WatchdogUnits), .StageRows(StageRows),
    .ActLanes(ActLanes), .UbReadPort2(UbReadPort2), .SqePrefetch(SqePrefetch),
    .ReadAhead(ReadAhead), .LutStage(LutStage), .SpanSerial(SpanSerial),
    .RegSlices(RegSlices), .StreamMm(StreamMm), .RhDepth(1)
  ) u_dev (
    .clk_i, .rst_i,
    .dreq_valid_o(dreq_valid), .dreq_ready_i(dreq_ready), .dreq_kind_o(dreq_kind),
    .dreq_tag_o(dreq_tag), .dreq_len_o(dreq_len), .dreq_addr_o(dreq_addr),
    .dreq_data_o(dreq_data), .dreq_last_o(dreq_last),
    .hcpl_valid_i(hcpl_valid), .hcpl_ready_o(hcpl_ready), .hcpl_tag_i(hcpl_tag),
    .hcpl_status_i(hcpl_status), .hcpl_data_i(hcpl_data), .hcpl_last_i(hcpl_last),
    .mreq_valid_i(mreq_valid), .mreq_ready_o(mreq_ready), .mreq_write_i(mreq_write),
    .mreq_addr_i(mreq_addr), .mreq_wdata_i(mreq_wdata), .mreq_tag_i(mreq_tag),
    .mcpl_valid_o(mcpl_valid), .mcpl_ready_i(mcpl_ready), .mcpl_tag_o(mcpl_tag),
    .mcpl_rdata_o(mcpl_rdata)
  );

  // LEDs: a toggle per good frame, a sticky "bad frame seen"
  logic [15:0] good_seen_q;
  logic        led_good_q, led_bad_q;

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      good_seen_q <= '0;
      led_good_q  <= 1'b0;
      led_bad_q   <= 1'b0;
    end else begin
      good_seen_q <= good_frames;
      led_good_q  <= led_good_q ^ (good_frames != good_seen_q);
      led_bad_q   <= led_bad_q | (bad_frames != 16'd0);
    end
  end
  assign led_o = {led_bad_q, led_good_q};

  logic unused;
  assign unused = ^retries;
endmodule
