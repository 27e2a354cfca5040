# FPGA board flows and post-synthesis equivalence (docs/fpga.md). Every build is an FPGA
# profile of rtl/profiles.toml (board, design, sizes, options, timing target, seed, DSP budget).
#   make fpga PROFILE=ecp5_n16                       synth + pnr (the profile's seed) + bitstream +
#                                                    $(BUILD)/fpga/<profile>/report.json
#   make fpga BOARD=icebreaker|ulx3s|tangprimer20k   the board's default profile (board.json)
#       Changes to one run on top of the profile: FPGA_SET="N=12 ..." top parameters
#       (MODULE.NAME=V: a module below the top, e.g. tpu_datapath.ActLanes=1); FPGA_DSP=
#       "pe_lut_rows_from=9" DSP budget entries ("place=0": no DSP pinning by board.json
#       dsp_place, scripts/fpga/dsp_place.py); FPGA_MHZ=100 the timing target (with the PLL
#       parameters in FPGA_SET); FPGA_DESIGN=board_top|stub; FPGA_SEED=2; ULX3S=12k|25k|45k
#       another ULX3S density; FPGA_TIMING=report: exit 0 once the bitstream is written, timing
#       met or not (default: gate, exit 1 unless timing met)
#   make test-fpga-icebreaker                        the ice40_n4 build as CI runs it
#                                                    (FPGA_TIMING=report) and its report checked
#   make fpga-all                                    every FPGA profile, then the table in docs/fpga.md
#   make fpga-table                                  the table from the reference runs in fpga/reports/
#   make fpga-equiv PROFILE=...                      netlist vs RTL simulation (FPGA_SEEDS, FPGA_ROUNDS)
#   make test-fpga-equiv                             the cheap iCE40 version, part of `make test`
#   make test-fpga-ram                               fpga/ecp5/tpu_ram.sv (DP16KD tiles, model
#                                                    fpga/common/sim/ecp5_bram.v) against
#                                                    rtl/common/tpu_ram.sv in Verilator, part of `make test`
#   make fpga-ram-check                              the same plus its synth_ecp5 netlist in iverilog
#       (needs .venv-fpga); FPGA_RAM_BROKEN=oce-re|no-hold|addr-lsb|sel a broken copy (must FAIL; ce-re must PASS)
#   make fpga-ram-pnr [FPGA_RAM_OUTREG=0]            its place-and-route smoke run (ULX3S 85k, < 1 min):
#                                                    DP16KD clock-to-out with / without OUTREG
# ECP5 and Gowin need `scripts/setup --fpga` (YoWASP tools in .venv-fpga/).
PROFILE     ?=
BOARD       ?= $(if $(PROFILE),,icebreaker)
ULX3S       ?=
FPGA_SET    ?=
FPGA_DESIGN ?=
FPGA_DSP    ?=
FPGA_MHZ    ?=
FPGA_TIMING ?= gate
FPGA_SEED   ?=
FPGA_SEEDS  ?= 1,2,3
FPGA_ROUNDS ?= 4
FPGA_OUT    := $(BUILD)/fpga
FPGA_FLOW    = $(PYTHON) scripts/fpga/flow.py --pkg $(SPEC_SV) --out $(FPGA_OUT) \
               $(foreach s,$(FPGA_SET),--set $(s)) $(foreach s,$(FPGA_DSP),--dsp $(s)) \
               $(if $(FPGA_DESIGN),--design $(FPGA_DESIGN)) $(if $(FPGA_MHZ),--target-mhz $(FPGA_MHZ)) \
               $(if $(filter report,$(FPGA_TIMING)),--no-timing-gate) \
               $(if $(FPGA_SEED),--seed $(FPGA_SEED))
fpga_which  = $(if $(PROFILE),--profile $(PROFILE),--board $(BOARD)) $(if $(ULX3S),--variant $(ULX3S))

.PHONY: fpga fpga-all fpga-table fpga-equiv test-fpga-equiv test-fpga-icebreaker test-fpga-ram \
        fpga-ram-check fpga-ram-pnr
fpga: $(SPEC_SV)
	$(Q)$(FPGA_FLOW) $(fpga_which)

# every FPGA profile (one at a time: place and route is heavy), a failure does not stop the others
fpga-all: $(SPEC_SV)
	$(Q)fail=0; for p in $(PROFILES_FPGA); do \
	  $(FPGA_FLOW) --profile $$p || fail=1; \
	done; \
	$(PYTHON) scripts/fpga/fpga_table.py --reports $(FPGA_OUT) --doc docs/fpga.md; exit $$fail

# the documented runs (fpga/reports/README.md): no tools needed
fpga-table:
	$(Q)$(PYTHON) scripts/fpga/fpga_table.py --reports fpga/reports --doc docs/fpga.md

fpga-equiv: $(SPEC_SV)
	$(Q)$(PYTHON) scripts/fpga/equiv.py $(if $(PROFILE),--profile $(PROFILE),--board $(BOARD)) \
	  --pkg $(SPEC_SV) \
	  --out $(FPGA_OUT)/equiv --seeds $(FPGA_SEEDS) --rounds $(FPGA_ROUNDS) \
	  $(foreach s,$(FPGA_SET),--set $(s)) $(foreach s,$(FPGA_DSP),--dsp $(s))

# the ice40_n4 datapath at its equivalence sizes (N = 4), 2 seeds: about 1-1.5 minutes on 2 cores
# (Debian tools only)
test-fpga-equiv: $(SPEC_SV)
	$(Q)$(PYTHON) scripts/fpga/equiv.py --profile ice40_n4 --pkg $(SPEC_SV) \
	  --out $(FPGA_OUT)/equiv --seeds 1,2 --rounds 3
TEST_STEPS += test-fpga-equiv

# the iCEBreaker board build (profile ice40_n4, the datapath at N = 4: synthesis, place and route
# with the profile's seed, bitstream; about 1 min on 2 cores, Debian tools only), then its
# report.json checked (fields, fits, bitstream). Fmax is printed, not gated: a figure, not a test.
test-fpga-icebreaker: $(SPEC_SV)
	$(Q)$(MAKE) --no-print-directory fpga PROFILE=ice40_n4 FPGA_TIMING=report FPGA_SET= \
	  FPGA_DSP= FPGA_DESIGN= FPGA_MHZ= FPGA_SEED= ULX3S=
	$(Q)$(PYTHON) scripts/fpga/report_check.py $(FPGA_OUT)/ice40_n4/report.json
TEST_STEPS += test-fpga-icebreaker

# the ECP5 tpu_ram (OutReg: DP16KD output registers) against rtl/common/tpu_ram.sv: ten RAM shapes
# side by side, 6000 random cycles; Verilator only, about 15 s
FPGA_RAM_BROKEN ?=
test-fpga-ram:
	$(Q)$(PYTHON) scripts/fpga/ram_check.py --out $(FPGA_OUT)/ram_check --sim verilator
TEST_STEPS += test-fpga-ram

# plus the synth_ecp5 -nobram netlist in iverilog (about 2 min)
fpga-ram-check:
	$(Q)$(PYTHON) scripts/fpga/ram_check.py --out $(FPGA_OUT)/ram_check --sim both \
	  $(if $(FPGA_RAM_BROKEN),--broken $(FPGA_RAM_BROKEN))

FPGA_RAM_OUTREG ?= 1
fpga-ram-pnr:
	$(Q)$(PYTHON) scripts/fpga/ram_check.py --out $(FPGA_OUT)/ram_check --pnr $(FPGA_RAM_OUTREG)
