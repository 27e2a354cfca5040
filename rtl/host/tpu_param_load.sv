// tpu_param_load: LOAD_PARAMS (BIAS, MULT, SHIFT, LUT) in tpu_cmd_proc, for the sequencer's
// states SParRead, SParWait, SPaWait and SParWrite (tpu_cmd_seq: this engine gives the next
// values of its index and the next state). OUTPUT is one PARAM write from the SQE (tpu_cmd_seq).
//   SParRead   the read job of the whole vector (LENGTH bytes at HOST_ADDR: rd_req_valid_o,
//              once a read-ahead job has ended, the job engine is shared);
//   SParWait   its end: DMA_XFER_ERROR on a failed read, INVALID_FIELD when a value fails the
//              checks (MULT >= 0, SHIFT in ShiftMin..ShiftMax, on every channel before any
//              write), else the PARAM writes; the watchdog abandons the job (CMD_TIMEOUT);
//   SPaWait    the same for a vector read ahead (tpu_param_readahead): wait for its job;
//   SParWrite  one PARAM write per channel (LOCAL_ADDR + i) or LUT entry through the command
//              slot, then the kind's loaded flag. The values come from param_vec_i (the job
//              buffer or the read-ahead copy), a LUT from the job buffer, or with LutStage from
//              the staging ring (its 256 / N packed rows, tpu_row_stage; each row read one
//              cycle ahead).
// The job buffer stays held (rd_hold_o) from SParRead to the last PARAM write.
// Bf16: the SCALE kind is a vector as BIAS, and a NaN value fails the value check (spec 6.12).
`default_nettype none

module tpu_param_load #(
  parameter int unsigned N         = 16,
  parameter int unsigned RdBytes   = 256,
  parameter int unsigned SAw       = 9,
  parameter bit          LutStage  = 1'b0,
  parameter bit          Bf16      = 1'b0,   // the SCALE kind (above)
  parameter int unsigned RB        = N,      // UB row bytes (the command width)
  localparam int unsigned CmdWidth = tpu_pkg::DpCmdDataLsb + 8 * RB
) (
  // the sequencer's state and registers
  input  logic                 read_i,        // SParRead
  input  logic                 wait_i,        // SParWait
  input  logic                 pa_wait_i,     // SPaWait
  input  logic                 write_i,       // SParWrite
  input  logic                 rdy_i,
  input  logic                 watchdog_i,
  input  logic                 lp_lut_i,      // the LUT
  input  logic                 lut_rs_i,      // ... through the staging ring
  input  logic [31:0]          op0_i,         // the kind
  input  logic [31:0]          cols_i,
  input  logic [31:0]          local_i,
  input  logic [31:0]          index_i,       // channel / entry written next
  input  logic                 rd_valid_i,    // the staging RAM's output holds its row
  output logic [31:0]          index_o,       // ... next values
  output logic                 rd_valid_o,
  output logic                 to_done_o,
  output logic                 to_wait_o,
  output logic                 to_write_o,
  output logic                 complete_o,    // success: the kind loaded, RESULT = LENGTH
  output logic                 status_set_o,
  output logic [7:0]           status_o,
  // the read job, the read-ahead
  output logic                 rd_req_valid_o,
  input  logic                 rd_req_ready_i,
  output logic                 rd_hold_o,
  output logic                 rd_abort_o,
  input  logic                 rd_done_i,
  input  logic                 rd_err_i,
  input  logic [RdBytes*8-1:0] rd_buf_i,
  input  logic [4*N*8-1:0]     param_vec_i,   // the vector (job buffer or read-ahead copy)
  input  logic                 pa_busy_i,
  input  logic                 pa_err_i,
  output logic                 pa_abandon_o,
  // the staging RAM (LutStage), the command slot
  output logic                 st_re_o,
  output logic [SAw-1:0]       st_raddr_o,
  input  logic [N*8-1:0]       st_rdata_i,
  input  logic                 slot_free_i,
  output logic                 slot_load_o,
  output logic [CmdWidth-1:0]  slot_cmd_o
);
  // the value checks of a BIAS/MULT/SHIFT vector (COLS channels)
  logic params_ok;
  always_comb begin
    params_ok = 1'b1;
    for (int unsigned i = 0; i < N; i++) begin
      logic [31:0] v;
      v = param_vec_i[32*i +: 32];
      if (32'(i) < cols_i) begin
        if (op0_i == 32'(tpu_pkg::ParamMult) && v[31]) params_ok = 1'b0;
        if (op0_i == 32'(tpu_pkg::ParamShift) &&
            ($signed(v) < tpu_pkg::ShiftMin || $signed(v) > tpu_pkg::ShiftMax)) params_ok = 1'b0;
        if (Bf16 && op0_i == 32'(tpu_pkg::ParamScale) && tpu_fp_pkg::f32_is_nan(v))
          params_ok = 1'b0;
      end
    end
  end
  logic [7:0] lut_byte;  // LUT byte index_i (job buffer or staging)
  if (LutStage) begin : g_lut_stage
    assign lut_byte = st_rdata_i[8 * (index_i % N) +: 8];
  end else begin : g_lut_buf
    assign lut_byte = rd_buf_i[8 * index_i[7:0] +: 8];
  end
  logic unused;  // (the job buffer serves the LUT without LutStage, the staging RAM with it)
  assign unused = ^{rd_buf_i, st_rdata_i};

  assign rd_req_valid_o = read_i && rdy_i && !pa_busy_i;
  assign rd_hold_o      = read_i || wait_i || write_i || pa_busy_i;

  always_comb begin
    index_o = index_i;  rd_valid_o = 1'b0;
    to_done_o = 1'b0;  to_wait_o = 1'b0;  to_write_o = 1'b0;  complete_o = 1'b0;
    status_set_o = 1'b0;  status_o = tpu_pkg::ScSuccess;
    rd_abort_o = 1'b0;  pa_abandon_o = 1'b0;
    st_re_o = 1'b0;  st_raddr_o = SAw'(index_i / N);
    slot_load_o = 1'b0;  slot_cmd_o = '0;
    if (read_i) begin
      if (!rdy_i) to_done_o = 1'b1;
      else if (rd_req_ready_i && !pa_busy_i) to_wait_o = 1'b1;  // (the request went out)
    end
    if (wait_i || pa_wait_i) begin
      if (!rdy_i) begin
        to_done_o = 1'b1;
      end else if (wait_i ? rd_done_i : !pa_busy_i) begin
        if (wait_i ? rd_err_i : pa_err_i) begin
          status_set_o = 1'b1;  status_o = tpu_pkg::ScDmaXferError;
          to_done_o = 1'b1;
        end else if (!(wait_i && lp_lut_i) && !params_ok) begin
          status_set_o = 1'b1;  status_o = tpu_pkg::ScInvalidField;
          to_done_o = 1'b1;
        end else begin
          index_o = '0;
          to_write_o = 1'b1;
        end
      end else if (watchdog_i) begin
        rd_abort_o = 1'b1;
        pa_abandon_o = pa_wait_i;
        status_set_o = 1'b1;  status_o = tpu_pkg::ScCmdTimeout;
        to_done_o = 1'b1;
      end
    end
    if (write_i) begin
      // LutStage: byte index of the LUT is in staging row index / N, read one cycle ahead
      // (rd_valid: the RAM's output holds that row)
      if (lut_rs_i && !rd_valid_i) begin
        st_re_o = index_i != cols_i;
        rd_valid_o = 1'b1;
      end else if (slot_free_i) begin
        rd_valid_o = rd_valid_i;
        if (index_i == cols_i) begin
          complete_o = 1'b1;
          to_done_o = 1'b1;
        end else begin
          slot_cmd_o[tpu_pkg::DpCmdOpLsb +: 4]    = tpu_pkg::DpOpParam;
          slot_cmd_o[tpu_pkg::DpCmdFlagsLsb +: 3] = op0_i[2:0];
          slot_cmd_o[tpu_pkg::DpCmdALsb +: 32]    = lp_lut_i ? index_i : local_i + index_i;
          slot_cmd_o[tpu_pkg::DpCmdDataLsb +: 32] =
            lp_lut_i ? {24'd0, lut_byte} : param_vec_i[32*index_i[$clog2(N)-1:0] +: 32];
          slot_load_o = 1'b1;
          index_o = index_i + 32'd1;
          if (lut_rs_i && (index_i + 32'd1) % N == 0 && index_i + 32'd1 != cols_i) begin
            st_re_o = 1'b1;  // the next row
            st_raddr_o = SAw'((index_i + 32'd1) / N);
          end
        end
      end else begin
        rd_valid_o = rd_valid_i;
      end
    end
  end
endmodule

`default_nettype wire
