# Training and int8 quantization of the digits models (sw/train, docs/models.md).
#   make models     retrain and rewrite models/digits-{mlp,cnn}.tpum and
#                   data/digits_test_{x,y}.npy (committed; `make demo` uses them), plus
#                   $(BUILD)/models/summary.json. Deterministic on one machine; not part of
#                   `make` or `make test`.
# Everything in sw/train but main.c goes into $(BUILD)/lib/libtpu_train.a, which the test
# runner links too (tests/test_train_*.c).

TRAIN_SRCS    := $(filter-out sw/train/main.c,$(wildcard sw/train/*.c))
TRAIN_OBJS    := $(TRAIN_SRCS:%.c=$(OBJDIR)/%.o)
TRAIN_LIB_A   := $(BUILD)/lib/libtpu_train.a
TRAIN_MAIN    := $(OBJDIR)/sw/train/main.o
TRAIN_BIN     := $(BUILD)/bin/tpu-train
TRAIN_SUMMARY := $(BUILD)/models/summary.json
TRAIN_LIBS    := -lz -lcrypto

$(TRAIN_LIB_A): $(TRAIN_OBJS)
	@mkdir -p $(@D)
	@echo "  AR      $@"
	$(Q)rm -f $@ && $(AR) rcs $@ $^

# the test split is written with the CLI's .npy writer (sw/cli/npy.c)
TRAIN_NPY_O   := $(OBJDIR)/sw/cli/npy.o

$(TRAIN_BIN): $(TRAIN_MAIN) $(TRAIN_NPY_O) $(TRAIN_LIB_A) $(LIB_A)
	@mkdir -p $(@D)
	@echo "  LD      $@"
	$(Q)$(CC) $(SANFLAGS) -o $@ $(TRAIN_MAIN) $(TRAIN_NPY_O) $(TRAIN_LIB_A) $(LIB_A) $(TRAIN_LIBS) \
	  $(LDLIBS_ALL)

TEST_EXTRA_LIBS += $(TRAIN_LIB_A) $(TRAIN_LIBS)
$(TEST_BIN): $(TRAIN_LIB_A)

.PHONY: models train
# the tool is built by plain `make` (cheap, and CI then links it); running it is `make models`
all: $(TRAIN_BIN)
train: $(TRAIN_BIN)
models: $(TRAIN_BIN)
	@mkdir -p models data $(dir $(TRAIN_SUMMARY))
	$(Q)$(TRAIN_BIN) -d data/digits.csv.gz -m models -t data -j $(TRAIN_SUMMARY)

# `tpu train` (sw/cli/cmd_train.c) trains through libtpu_train.a's device trainer
CLI_EXTRA_LIBS += $(TRAIN_LIB_A) $(TRAIN_LIBS)
$(CLI): $(TRAIN_LIB_A)
