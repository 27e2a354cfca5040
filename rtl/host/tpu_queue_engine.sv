// tpu_queue_engine: the submission/completion rings (docs/spec.md section 4).
//
// Per queue: SQ head/tail, CQ head/tail, phase, configured and broken flags. On en_i (CC.EN
// 0 -> 1) every queue is reset (pointers 0, phase 1) and each configured one checked (sizes in
// 2..MaxQueueEntries, bases QUEUE_ALIGN aligned); a bad one is BROKEN with
// GSTAT.QUEUE_CONFIG_ERR. Doorbells (db_*) are checked exactly as the golden model does; a bad
// one marks the queue BROKEN and sets GSTAT.BAD_DOORBELL.
//
// One command at a time (so the round robin order equals the golden model's): pick the next
// queue (round robin from the one after the last served) that is ACTIVE, has SQ entries and CQ
// room for one more completion (room is reserved: fetching is the only way a CQ slot is taken,
// and the next fetch waits for this command's CQE); fetch its 64-byte SQE by DMA (a failed
// fetch sets GSTAT.SQ_FETCH_ERR and CSTS.CFS: fatal_o), hand it to the command processor
// (cmd_*), wait for its (status, result) (cpl_*), post the 16-byte CQE as one MWR (one beat,
// so the PHASE dword is written with, never before, the rest), then for the IRQ flag set
// INT_STATUS.CQE (irq_o) and, when MSI is allowed, send the MSI after a window check
// (msi_win_ok_i; failing sets GSTAT.MSI_ERR). A pending unmask (unmask_i) sends one MSI between
// commands. rdy_i low: everything stops at once (the DMA engine abandons the jobs), no CQE.
//
// SQE prefetch: while a command runs (from dispatch to its CQE), the engine reads ahead up to
// PfEntries (default RdBytes / 64) SQEs of the queue the round robin would serve next (entries the
// device already owns: between the SQ head and the host's tail, not across the ring's end) in
// one read job, when the read job engine is free (the command processor has priority). The
// buffer is only a head start: the next command is still picked in IDLE exactly as above, and
// the buffered entry is used when it is that queue's entry at its current head; otherwise (or
// on a prefetch error, which is dropped: the entry is fetched again and a failure reported
// then) the buffer is discarded and the SQE fetched as before. IdlePf: IDLE with an empty
// buffer fetches with such a block (head entry first); its failure is a failed fetch. Host
// memory between head and tail does not change (the host owns only entries it has not yet
// handed over), so a buffered SQE equals what a fetch would read. No prefetch starts while a
// LOAD_PARAMS that reads host memory runs or is the next buffered entry (its read job would wait
// behind the block). pk_*:
// the first PeekN buffered entries, a hint for the command processor's LOAD_WEIGHTS read-ahead
// (it compares the read of the SQE it is handed with the tile it read).
// quiet_o: no command between fetch and CQE/MSI, no pending unmask MSI and no queue with an
// entry it could fetch (or not ready): the command boundary at which tpu_regs applies a held
// window write (docs/spec.md section 5). SQE prefetches may still run (ring reads).
// PfEntries = 0 (small FPGAs): no prefetch buffer (pk_valid_o stays 0), every SQE is fetched in
// IDLE, and the SQE handed over (cmd_sqe_o) is the DMA read buffer itself, which holds it until
// the next read job is accepted (none can be before the command processor has taken it): only
// the SQE fields of the CQE (CID, USER_TAG, FLAGS) are kept in flip-flops.
`default_nettype none

module tpu_queue_engine #(
  parameter int unsigned NumQueues       = 2,
  parameter int unsigned MaxQueueEntries = 4096,
  parameter int unsigned WrBytes         = 64,
  parameter int unsigned LenW            = 9,
  parameter int unsigned RdBytes         = 256,  // largest read job (prefetch block)
  parameter int unsigned PfEntries       = RdBytes / tpu_pkg::SqeBytes, // prefetch block, 0: none
  parameter int unsigned PeekN           = 4,    // buffered SQEs shown on pk_* (<= 2 blocks)
  // IDLE with nothing buffered reads a prefetch block instead of one SQE (see pf_req): that
  // block is the fetch of the head entry, so its failure is an SQ fetch failure (fatal_o)
  parameter bit          IdlePf          = 1'b1
) (
  input  logic                      clk_i,
  input  logic                      rst_i,
  input  logic                      en_i,
  input  logic                      rdy_i,
  input  logic [NumQueues*64-1:0]   sq_base_i,
  input  logic [NumQueues*64-1:0]   cq_base_i,
  input  logic [NumQueues*32-1:0]   sq_size_i,
  input  logic [NumQueues*32-1:0]   cq_size_i,
  input  logic                      db_valid_i,
  input  logic                      db_cq_i,
  input  logic [7:0]                db_qid_i,
  input  logic [31:0]               db_value_i,
  input  logic [63:0]               msi_addr_i,
  input  logic [31:0]               msi_data_i,
  input  logic                      msi_allowed_i,
  input  logic                      msi_win_ok_i,
  input  logic                      unmask_i,
  output logic [NumQueues*16-1:0]   q_sq_head_o,
  output logic [NumQueues*16-1:0]   q_cq_tail_o,
  output logic [NumQueues-1:0]      q_active_o,
  output logic [NumQueues-1:0]      q_broken_o,
  output logic [8:0]                gstat_set_o,
  output logic                      fatal_o,
  output logic                      irq_o,
  output logic                      quiet_o,
  // command processor
  output logic                      cmd_valid_o,
  input  logic                      cmd_ready_i,
  output logic [511:0]              cmd_sqe_o,
  output logic [7:0]                cmd_qid_o,
  output logic [PeekN-1:0]          pk_valid_o,  // pk_sqe_o: the first PeekN buffered SQEs
  output logic [PeekN*512-1:0]      pk_sqe_o,    // (entry 0 in bits 511:0)
  output logic [7:0]                pk_qid_o,
  input  logic                      cpl_valid_i,
  input  logic [7:0]                cpl_sc_i,
  input  logic [31:0]               cpl_result_i,
  // DMA
  output logic                      rd_req_valid_o,
  input  logic                      rd_req_ready_i,
  output logic [63:0]               rd_req_addr_o,
  output logic [LenW-1:0]           rd_req_len_o,
  input  logic                      rd_done_i,
  input  logic                      rd_err_i,
  input  logic [RdBytes*8-1:0]      rd_buf_i,  // the SQE bytes of the read job
  output logic                      wr_req_valid_o,
  input  logic                      wr_req_ready_i,
  output logic [63:0]               wr_req_addr_o,
  output logic [LenW-1:0]           wr_req_len_o,
  output logic                      wr_req_msi_o,
  output logic [WrBytes*8-1:0]      wr_req_data_o
);
  localparam int unsigned QW = NumQueues > 1 ? $clog2(NumQueues) : 1;
  localparam bit          Pf = PfEntries != 0;
  // buffer: two blocks (at least PeekN entries wide, the peek's; PfEntries = 0: one unused entry)
  localparam int unsigned PfCap = Pf ? 2 * PfEntries : 1;
  localparam int unsigned PfW = $clog2(PfCap + 1);
  if (PfEntries * tpu_pkg::SqeBytes > RdBytes) begin : g_bad_pf
    $error("tpu_queue_engine: a prefetch block (PfEntries SQEs) must fit in a read job");
  end
  if (Pf && (PfEntries < 2 || PeekN < 4 || PeekN > PfCap)) begin : g_bad_peek
    $error("tpu_queue_engine: prefetch blocks must hold two SQEs, the peek shows 4..2 blocks");
  end
  if (RdBytes < tpu_pkg::SqeBytes || WrBytes < tpu_pkg::CqeBytes) begin : g_bad_buf
    $error("tpu_queue_engine: DMA jobs must hold an SQE and a CQE");
  end

  typedef enum logic [2:0] {
    StIdle, StFetch, StWaitFetch, StDispatch, StExec, StPost, StMsi
  } state_e;

  state_e                   state_q, state_d;
  logic [NumQueues*16-1:0]  sq_head_q, sq_head_d, sq_tail_q, sq_tail_d;
  logic [NumQueues*16-1:0]  cq_head_q, cq_head_d, cq_tail_q, cq_tail_d;
  logic [NumQueues-1:0]     phase_q, phase_d, cfg_q, cfg_d, broken_q, broken_d;
  logic [QW-1:0]            rr_q, rr_d, cur_q, cur_d;
  logic [511:0]             sqe_q, sqe_d;
  logic [15:0]              cqe_head_q, cqe_head_d;  // SQ head after the fetch, for the CQE
  logic [7:0]               sc_q, sc_d;
  logic [31:0]              result_q, result_d;
  logic                     unmask_q, unmask_d;
  logic [8:0]               gstat_d;
  logic                     fatal_d, irq_d;
  // prefetch buffer: pf_n_q SQEs of queue pf_qid_q from SQ index pf_head_q on (entry 0 first)
  logic                     pf_busy_q, pf_busy_d;   // prefetch job outstanding
  logic [QW-1:0]            pf_qid_q, pf_qid_d;
  logic [15:0]              pf_head_q, pf_head_d;
  logic [PfW-1:0]           pf_n_q, pf_n_d, pf_req_n;   // buffered entries; requested ones
  logic [PfW-1:0]           pf_len_q, pf_len_d;     // entries of the outstanding job
  logic [PfCap*512-1:0]     pf_store_q;             // the buffer's PfCap entries
  logic [PeekN*512-1:0]     pf_buf_q;               // its first PeekN (0s past PfCap)
  logic                     pf_take, pf_land;       // the head entry leaves; a block lands
  logic [PfW-1:0]           pf_at;                  // ... at this entry
  logic [15:0]              pf_req_s;               // SQ index of the block asked for
  logic                     pf_req;                 // ask for a prefetch job this cycle
  logic [QW-1:0]            pf_req_q;
  logic                     pf_found;
  logic                     pf_lp;                  // a parameter read is due: no prefetch
  logic                     pf_idle_q, pf_idle_d;   // IdlePf: the job in flight is IDLE's fetch
  function automatic logic lp_read(input logic [7:0] op, input logic [31:0] op0);
    lp_read = op == tpu_pkg::OpLoadParams &&
              (op0 & ~tpu_pkg::LoadParamsRoundMask) != 32'(tpu_pkg::ParamOutput);
  endfunction

  function automatic logic [16:0] incr(input logic [15:0] v, input logic [31:0] size);
    logic [16:0] n;
    n = {1'b0, v} + 17'd1;
    incr = (32'(n) == size) ? 17'd0 : n;
  endfunction

  // (a - b) mod size for ring indices a, b < size (size <= 65536): one compare and subtract
  // instead of a `%` by a variable, which synthesizes to a 32-bit divider (hundreds of
  // carry cells deep on an FPGA)
  function automatic logic [31:0] ring_dist(input logic [31:0] a, input logic [31:0] b,
                                            input logic [31:0] size);
    logic [31:0] x;
    x = a + size - b;
    ring_dist = (x >= size) ? x - size : x;
  endfunction

  // ---------------------------------------------------------------- per-queue status
  logic [NumQueues-1:0] can_fetch;
  always_comb begin
    for (int unsigned q = 0; q < NumQueues; q++) begin
      q_active_o[q] = rdy_i && cfg_q[q] && !broken_q[q];
      can_fetch[q]  = q_active_o[q] && sq_head_q[16*q +: 16] != sq_tail_q[16*q +: 16] &&
                      incr(cq_tail_q[16*q +: 16], cq_size_i[32*q +: 32]) !=
                      {1'b0, cq_head_q[16*q +: 16]};
    end
  end
  assign quiet_o = !rdy_i || (state_q == StIdle && !unmask_q && can_fetch == '0);
  assign q_sq_head_o = sq_head_q;
  assign q_cq_tail_o = cq_tail_q;
  assign q_broken_o  = broken_q;

  // ---------------------------------------------------------------- prefetch target
  // the queue the round robin would serve after the running command (CQ room is checked when
  // it is picked), and how many of its owned entries to read: up to PfEntries, to the tail, not
  // across the ring's end
  always_comb begin
    logic [QW-1:0] qi;
    logic [31:0]   avail, to_end, hd, tl, sz;
    pf_found = 1'b0;
    pf_req_q = '0;
    pf_req_n = '0;
    qi = '0;  avail = '0;  to_end = '0;  hd = '0;  tl = '0;  sz = '0;
    if (pf_n_q != '0) begin
      // the buffer holds entries: the block after them, same queue
      pf_req_q = pf_qid_q;
      pf_found = q_active_o[pf_qid_q];
      sz = sq_size_i[32*pf_qid_q +: 32];
      hd = 32'(pf_head_q) + 32'(pf_n_q);
      if (hd >= sz) hd = hd - sz;
    end else begin
      for (int unsigned i = 0; i < NumQueues; i++) begin
        qi = QW'((32'(rr_q) + i) % NumQueues);
        if (!pf_found && q_active_o[qi] && sq_head_q[16*qi +: 16] != sq_tail_q[16*qi +: 16]) begin
          pf_found = 1'b1;
          pf_req_q = qi;
        end
      end
      sz = sq_size_i[32*pf_req_q +: 32];
      hd = 32'(sq_head_q[16*pf_req_q +: 16]);
    end
    tl = 32'(sq_tail_q[16*pf_req_q +: 16]);
    pf_req_s = hd[15:0];
    avail  = (tl >= hd) ? tl - hd : tl + sz - hd;
    to_end = sz - hd;
    if (to_end < avail) avail = to_end;
    pf_req_n = (avail > 32'(PfEntries)) ? PfW'(PfEntries) : PfW'(avail);
    // room for a block; issued while a command runs (never beside a single fetch of IDLE), not
    // while a LOAD_PARAMS that reads host memory runs or is the next buffered entry: its read
    // job would wait behind the block (one read job at a time) while the MXU may run dry
    pf_lp = lp_read(sqe_q[tpu_pkg::SqeOpcodeLsb +: 8], sqe_q[tpu_pkg::SqeOp0Lsb +: 32]) ||
            (pf_n_q != '0 && lp_read(pf_buf_q[tpu_pkg::SqeOpcodeLsb +: 8],
                                     pf_buf_q[tpu_pkg::SqeOp0Lsb +: 32]));
    // (IdlePf: also in IDLE with nothing buffered, for a queue that can be fetched: the first
    // SQE of a batch comes with the ones after it in one read instead of a fetch and then a
    // block, one round trip less, ~117 cycles at the start of tpu_gemm's stream schedule; a
    // failure is the head entry's fetch failing; not in the cycle after one, whose fatal_o
    // stops the device a cycle later, before anything more is read)
    pf_req = Pf && rdy_i && (state_q == StDispatch || state_q == StExec ||
                             (IdlePf && state_q == StIdle && pf_n_q == '0 && !unmask_q &&
                              can_fetch[pf_req_q] && !fatal_o)) && !pf_busy_q &&
             32'(pf_n_q) <= PfEntries && pf_found && pf_req_n != '0 && !en_i && !pf_lp;
  end

  // ---------------------------------------------------------------- outputs
  logic [63:0] cqe_addr;
  logic [127:0] cqe;
  always_comb begin
    cqe_addr = cq_base_i[64*cur_q +: 64] + {44'd0, cq_tail_q[16*cur_q +: 16], 4'd0};
    cqe = '0;
    cqe[tpu_pkg::CqeResultLsb +: 32]  = (sc_q == tpu_pkg::ScSuccess) ? result_q : 32'd0;
    cqe[tpu_pkg::CqeUserTagLsb +: 32] = sqe_q[tpu_pkg::SqeUserTagLsb +: 32];
    cqe[tpu_pkg::CqeSqHeadLsb +: 16]  = cqe_head_q;
    cqe[tpu_pkg::CqeSqIdLsb +: 16]    = 16'(cur_q);
    cqe[tpu_pkg::CqeCidLsb +: 16]     = sqe_q[tpu_pkg::SqeCidLsb +: 16];
    cqe[tpu_pkg::CqePhaseLsb]         = phase_q[cur_q];
    cqe[tpu_pkg::CqeScLsb +: 8]       = sc_q;
    cqe[tpu_pkg::CqeDnrLsb]           = tpu_pkg::ScDnrMap[sc_q];
  end

  assign rd_req_valid_o = (state_q == StFetch && rdy_i) || pf_req;
  assign rd_req_addr_o  = pf_req ? sq_base_i[64*pf_req_q +: 64] + {42'd0, pf_req_s, 6'd0}
                                 : sq_base_i[64*cur_q +: 64] + {42'd0, sq_head_q[16*cur_q +: 16], 6'd0};
  assign rd_req_len_o   = pf_req ? LenW'(32'(pf_req_n) * tpu_pkg::SqeBytes)
                                 : LenW'(tpu_pkg::SqeBytes);
  // (an MSI that fails its checks is never offered: it would be taken whenever the DMA has room)
  assign wr_req_valid_o = (state_q == StPost ||
                           (state_q == StMsi && msi_win_ok_i && msi_addr_i[1:0] == 2'b00)) && rdy_i;
  assign wr_req_addr_o  = state_q == StMsi ? msi_addr_i : cqe_addr;
  assign wr_req_len_o   = state_q == StMsi ? LenW'(4) : LenW'(tpu_pkg::CqeBytes);
  assign wr_req_msi_o   = state_q == StMsi;
  assign wr_req_data_o  = state_q == StMsi ? (WrBytes*8)'(msi_data_i) : (WrBytes*8)'(cqe);
  assign cmd_valid_o    = state_q == StDispatch && rdy_i;
  // without prefetch the SQE fetched in IDLE is still in the read job buffer
  assign cmd_sqe_o      = Pf ? sqe_q : rd_buf_i[511:0];
  assign cmd_qid_o      = 8'(cur_q);
  // peek for the command processor's read-ahead (a hint: it compares the read on use)
  always_comb begin
    for (int unsigned i = 0; i < PeekN; i++) pk_valid_o[i] = 32'(pf_n_q) > i && rdy_i;
  end
  assign pk_sqe_o       = pf_buf_q;
  assign pk_qid_o       = 8'(pf_qid_q);

  // ---------------------------------------------------------------- next state
  always_comb begin
    logic          found;
    logic [QW-1:0] pick;
    logic [31:0]   size, v;
    logic [16:0]   nh;
    logic [QW-1:0] dq, qi;
    logic [31:0]   ss, cs;
    logic [63:0]   sb, cb;

    state_d = state_q;
    sq_head_d = sq_head_q;  sq_tail_d = sq_tail_q;
    cq_head_d = cq_head_q;  cq_tail_d = cq_tail_q;
    phase_d = phase_q;  cfg_d = cfg_q;  broken_d = broken_q;
    rr_d = rr_q;  cur_d = cur_q;  sqe_d = sqe_q;  cqe_head_d = cqe_head_q;
    sc_d = sc_q;  result_d = result_q;
    unmask_d = unmask_q || unmask_i;
    gstat_d = '0;  fatal_d = 1'b0;  irq_d = 1'b0;
    found = 1'b0;  pick = '0;
    pf_busy_d = pf_busy_q;  pf_qid_d = pf_qid_q;  pf_head_d = pf_head_q;  pf_n_d = pf_n_q;
    pf_len_d = pf_len_q;  pf_idle_d = pf_idle_q;
    pf_take = 1'b0;  pf_land = 1'b0;  pf_at = '0;

    // ---- prefetch job: issued, landed (an error just drops it)
    if (pf_req && rd_req_ready_i) begin
      pf_busy_d = 1'b1;
      pf_len_d  = pf_req_n;
      pf_idle_d = state_q == StIdle;
      if (pf_n_q == '0) begin
        pf_qid_d  = pf_req_q;
        pf_head_d = pf_req_s;
      end
    end
    size = '0;  v = '0;  nh = '0;
    dq = QW'(db_qid_i);
    qi = '0;  ss = '0;  cs = '0;  sb = '0;  cb = '0;

    // ---- the command loop
    unique case (state_q)
      StIdle: begin
        if (rdy_i) begin
          if (unmask_q) begin
            unmask_d = 1'b0;
            if (msi_allowed_i) state_d = StMsi;
          end else begin
            for (int unsigned i = 0; i < NumQueues; i++) begin
              qi = QW'((32'(rr_q) + i) % NumQueues);
              if (!found && can_fetch[qi]) begin
                found = 1'b1;
                pick  = qi;
              end
            end
            if (found) begin
              cur_d   = pick;
              rr_d    = QW'((32'(pick) + 1) % NumQueues);
              if (pf_n_q != '0 && pf_qid_q == pick && pf_head_q == sq_head_q[16*pick +: 16]) begin
                // the prefetched entry: take it as a fetch would have
                sqe_d = pf_buf_q[511:0];
                pf_take = 1'b1;
                pf_n_d = pf_n_q - 1'b1;
                nh = incr(sq_head_q[16*pick +: 16], sq_size_i[32*pick +: 32]);
                pf_head_d = nh[15:0];
                sq_head_d[16*pick +: 16] = nh[15:0];
                cqe_head_d = nh[15:0];
                state_d = StDispatch;
              end else if (pf_busy_q || pf_req) begin
                // a prefetch is landing (or asked for now): decide again once it is in
                cur_d   = cur_q;
                rr_d    = rr_q;
              end else begin
                pf_n_d  = '0;
                state_d = StFetch;
              end
            end
          end
        end
      end
      StFetch:     if (rd_req_ready_i) state_d = StWaitFetch;
      StWaitFetch: begin
        if (rd_done_i) begin
          if (rd_err_i) begin
            gstat_d[tpu_pkg::GstatSqFetchErrLsb] = 1'b1;
            fatal_d = 1'b1;
            state_d = StIdle;
          end else begin
            sqe_d = rd_buf_i[511:0];
            nh = incr(sq_head_q[16*cur_q +: 16], sq_size_i[32*cur_q +: 32]);
            sq_head_d[16*cur_q +: 16] = nh[15:0];
            cqe_head_d = nh[15:0];
            state_d = StDispatch;
          end
        end
      end
      StDispatch:  if (cmd_ready_i) state_d = StExec;
      StExec: begin
        if (cpl_valid_i) begin
          sc_d     = cpl_sc_i;
          result_d = cpl_result_i;
          state_d  = StPost;
        end
      end
      StPost: begin
        if (wr_req_ready_i) begin
          nh = incr(cq_tail_q[16*cur_q +: 16], cq_size_i[32*cur_q +: 32]);
          cq_tail_d[16*cur_q +: 16] = nh[15:0];
          if (nh == 17'd0) phase_d[cur_q] = !phase_q[cur_q];
          state_d = StIdle;
          if ((sqe_q[tpu_pkg::SqeFlagsLsb +: 8] & tpu_pkg::SqeFlagIrq) != 8'd0) begin
            irq_d = 1'b1;
            if (msi_allowed_i) state_d = StMsi;
          end
        end
      end
      StMsi: begin
        if (!msi_win_ok_i || msi_addr_i[1:0] != 2'b00) begin
          gstat_d[tpu_pkg::GstatMsiErrLsb] = 1'b1;
          state_d = StIdle;
        end else if (wr_req_ready_i) begin
          state_d = StIdle;
        end
      end
      default: state_d = StIdle;
    endcase
    // ---- a prefetch block lands after the entries still buffered (one may leave this cycle);
    // a failed one is dropped (those entries are fetched again, or prefetched again, later),
    // except IDLE's block, which was the fetch of the head entry: as a failed fetch
    if (pf_busy_q && rd_done_i) begin
      pf_busy_d = 1'b0;
      pf_idle_d = 1'b0;
      if (rd_err_i && pf_idle_q) begin
        gstat_d[tpu_pkg::GstatSqFetchErrLsb] = 1'b1;
        fatal_d = 1'b1;
      end
      if (!rd_err_i) begin
        pf_land = 1'b1;
        pf_at   = pf_n_d;
        pf_n_d  = pf_n_d + pf_len_q;
      end
    end

    if (!rdy_i) begin
      state_d = StIdle;
      pf_busy_d = 1'b0;  // the DMA engine abandons the job
      pf_n_d = '0;
    end

    // ---- doorbells (ignored while not ready)
    if (db_valid_i && rdy_i && 32'(db_qid_i) < NumQueues) begin
      if (db_cq_i) begin
        size = cq_size_i[32*dq +: 32];
        v    = db_value_i;
        // the new head may release only posted entries: (new - old) mod size must not exceed
        // (tail - old) mod size (v < size is checked first; head and tail stay below size)
        if (!q_active_o[dq] || v >= size ||
            ring_dist(v, 32'(cq_head_q[16*dq +: 16]), size) >
            ring_dist(32'(cq_tail_d[16*dq +: 16]), 32'(cq_head_q[16*dq +: 16]), size)) begin
          broken_d[dq] = 1'b1;
          gstat_d[tpu_pkg::GstatBadDoorbellLsb] = 1'b1;
        end else begin
          cq_head_d[16*dq +: 16] = v[15:0];
        end
      end else begin
        if (!q_active_o[dq] || db_value_i >= sq_size_i[32*dq +: 32]) begin
          broken_d[dq] = 1'b1;
          gstat_d[tpu_pkg::GstatBadDoorbellLsb] = 1'b1;
        end else begin
          sq_tail_d[16*dq +: 16] = db_value_i[15:0];
        end
      end
    end

    // ---- CC.EN 0 -> 1
    if (en_i) begin
      sq_head_d = '0;  sq_tail_d = '0;  cq_head_d = '0;  cq_tail_d = '0;
      phase_d = '1;  broken_d = '0;  cfg_d = '0;  rr_d = '0;
      state_d = StIdle;
      unmask_d = 1'b0;
      pf_busy_d = 1'b0;
      pf_n_d = '0;
      for (int unsigned q = 0; q < NumQueues; q++) begin
        ss = sq_size_i[32*q +: 32];  cs = cq_size_i[32*q +: 32];
        sb = sq_base_i[64*q +: 64];  cb = cq_base_i[64*q +: 64];
        if (ss != 32'd0) begin
          if (ss >= 32'd2 && ss <= MaxQueueEntries && cs >= 32'd2 && cs <= MaxQueueEntries &&
              sb % 64'(tpu_pkg::QueueAlign) == 64'd0 && cb % 64'(tpu_pkg::QueueAlign) == 64'd0) begin
            cfg_d[q] = 1'b1;
          end else begin
            broken_d[q] = 1'b1;
            gstat_d[tpu_pkg::GstatQueueConfigErrLsb] = 1'b1;
          end
        end
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (rst_i) begin
      state_q <= StIdle;
      sq_head_q <= '0;  sq_tail_q <= '0;  cq_head_q <= '0;  cq_tail_q <= '0;
      phase_q <= '1;  cfg_q <= '0;  broken_q <= '0;
      rr_q <= '0;  cur_q <= '0;  unmask_q <= 1'b0;
      gstat_set_o <= '0;  fatal_o <= 1'b0;  irq_o <= 1'b0;
      pf_busy_q <= 1'b0;  pf_n_q <= '0;  pf_idle_q <= 1'b0;
    end else begin
      state_q <= state_d;
      sq_head_q <= sq_head_d;  sq_tail_q <= sq_tail_d;
      cq_head_q <= cq_head_d;  cq_tail_q <= cq_tail_d;
      phase_q <= phase_d;  cfg_q <= cfg_d;  broken_q <= broken_d;
      rr_q <= rr_d;  cur_q <= cur_d;  unmask_q <= unmask_d;
      gstat_set_o <= gstat_d;  fatal_o <= fatal_d;  irq_o <= irq_d;
      // (constant without prefetch, so that synthesis drops the buffer)
      pf_busy_q <= Pf && pf_busy_d;  pf_n_q <= Pf ? pf_n_d : '0;
      pf_idle_q <= IdlePf && pf_busy_d && pf_idle_d;
    end
  end

  always_ff @(posedge clk_i) begin
    sqe_q      <= sqe_d;
    cqe_head_q <= cqe_head_d;
    sc_q       <= sc_d;
    result_q   <= result_d;
    pf_qid_q   <= pf_qid_d;
    pf_head_q  <= pf_head_d;
    pf_len_q   <= pf_len_d;
  end

  // The prefetch buffer, apart from the command loop's always_comb (which reads the link's
  // side, so the simulation evaluates it on both clock phases; the buffer is kilobits wide):
  // the head entry leaves (the rest move down), then a landing block fills entries
  // pf_at .. pf_at+len-1 and clears those above. One assignment of the whole buffer, and only
  // when it changes: the simulation copies its kilobits only then.
  assign pf_buf_q = (PeekN*512)'(pf_store_q);
  always_ff @(posedge clk_i) begin
    logic [PfCap*512-1:0] nb, blk;
    if (pf_take || pf_land) begin
      blk = (PfCap*512)'(rd_buf_i) << (512 * 32'(pf_at));
      nb  = pf_take ? pf_store_q >> 512 : pf_store_q;
      for (int unsigned e = 0; e < PfCap; e++) begin
        if (pf_land && e >= 32'(pf_at)) begin
          nb[512*e +: 512] = (e < 32'(pf_at) + 32'(pf_len_q)) ? blk[512*e +: 512] : 512'd0;
        end
      end
      pf_store_q <= nb;
    end
  end


`ifndef SYNTHESIS
  // ring invariants: the device fetches only owned entries and posts only into free CQ slots
  always_ff @(posedge clk_i) begin
    if (!rst_i && state_q == StIdle && state_d == StFetch) begin
      assert (sq_head_q[16*pick_chk +: 16] != sq_tail_q[16*pick_chk +: 16])
        else $error("tpu_queue_engine: SQ head would pass the host tail");
    end
    if (!rst_i && state_q == StPost && wr_req_ready_i && rdy_i) begin
      assert (incr(cq_tail_q[16*cur_q +: 16], cq_size_i[32*cur_q +: 32]) !=
              {1'b0, cq_head_q[16*cur_q +: 16]})
        else $error("tpu_queue_engine: CQ tail would overrun the host head");
    end
    if (!rst_i && cmd_valid_o && !cmd_ready_i) begin
      assert (state_d == StDispatch || !rdy_i) else $error("tpu_queue_engine: cmd withdrawn");
    end
  end
  logic [QW-1:0] pick_chk;
  assign pick_chk = cur_d;
`endif
endmodule
