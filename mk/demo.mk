# `make demo`: the CLI on the default device: its identity, then the GEMM self-test against the
# independent reference (exits non-zero on any mismatch).
.PHONY: demo
demo: $(SETUP_STAMP) all
	$(Q)$(CLI) info
	$(Q)$(CLI) selftest
