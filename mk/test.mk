# C unit and regression tests (Check). One runner per build flavour; every tests/*.c and
# tests/*.cc file is linked into it. tests/main.c collects the suites listed in tests/suites.h.
TEST_SRCS := $(wildcard tests/*.c) $(wildcard tests/*.cc)
TEST_BIN  := $(BUILD)/tests/tpu_tests
TEST_OBJS := $(patsubst %,$(OBJDIR)/%.o,$(basename $(TEST_SRCS)))
# The CLI's units (npy, reference, ...) are tested directly: link every CLI object but main.
TEST_CLI_OBJS := $(filter-out $(OBJDIR)/sw/cli/main.o,$(CLI_OBJS))
# Fragments may link more into the tests: `TEST_EXTRA_LIBS += lib.a` plus `$(TEST_BIN): lib.a`.
TEST_EXTRA_LIBS ?=
CHECK_LIBS = $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lrt -lpthread)

$(TEST_BIN): $(TEST_OBJS) $(TEST_CLI_OBJS) $(LIB_A) $(SETUP_STAMP)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CXX) $(SANFLAGS) -o $@ $(TEST_OBJS) $(TEST_CLI_OBJS) $(TEST_EXTRA_LIBS) $(LIB_A) $(SIM_LINK) $(CHECK_LIBS) $(LDLIBS_ALL)
$(TEST_OBJS): $(SETUP_STAMP)

# The sanitizer flavour is the same tree built again into $(BUILD)/san.
SAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

.PHONY: test test-c test-san tests-bin
tests-bin: $(TEST_BIN) $(if $(CLI_SRCS),$(CLI))
test-c: tests-bin
	$(Q)TPU_CLI=$(abspath $(CLI)) TPU_BUILD=$(abspath $(BUILD)) $(TEST_BIN)
test-san: $(SETUP_STAMP)
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/san SANFLAGS="$(SAN_FLAGS)" OPT="-O1 -g" tests-bin
	$(Q)TPU_CLI=$(abspath $(BUILD)/san/bin/tpu) TPU_BUILD=$(abspath $(BUILD)/san) \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp) \
	  $(BUILD)/san/tests/tpu_tests

# `make test` runs every step in TEST_STEPS (fragments append theirs) and ends with the tally.
TEST_STEPS += spec-check test-c test-san
test: $(SETUP_STAMP)
	$(Q)TPU_TEST_LOGS=$(BUILD)/test-logs scripts/run-tests "$(MAKE) BUILD=$(BUILD)" $(TEST_STEPS)
