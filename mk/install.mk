# The pkg-config files and `make install` / `make uninstall`.
#   make pc         $(BUILD)/lib/pkgconfig/tpu.pc (and tpu-sim.pc with the sim models) for
#                   programs built against this tree: headers from include/ and $(BUILD)/include,
#                   the shared library from $(BUILD)/lib, found at run time through an rpath
#   make install    PREFIX (/usr/local) under DESTDIR (a staging root, default none): the headers
#                   (include/tpu/*.h and the generated tpu_spec.h) in INCLUDEDIR/tpu, libtpu.a and
#                   the shared libraries with their links (mk/shlib.mk) in LIBDIR, tpu.pc (and
#                   tpu-sim.pc) in PKGCONFIGDIR, the `tpu` CLI in BINDIR, the Python package
#                   python/tpu in PYTHONDIR/tpu (docs/python.md) with _libdir.py naming LIBDIR
#   make uninstall  removes exactly those files (same PREFIX, DESTDIR and directory variables),
#                   and the tpu/ directories when nothing else is left in them
PREFIX       ?= /usr/local
DESTDIR      ?=
BINDIR       ?= $(PREFIX)/bin
LIBDIR       ?= $(PREFIX)/lib
INCLUDEDIR   ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# where this Python puts pure modules for PREFIX (PREFIX/lib/python3.X/site-packages)
PYTHONDIR    ?= $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_path('purelib', \
                'posix_prefix', {'base': '$(PREFIX)', 'platbase': '$(PREFIX)'}))")
INSTALL      ?= install
comma        := ,

# ------------------------------------------------------------------ pkg-config files
# $(1) prefix, $(2) includedir, $(3) libdir, $(4) more Cflags, $(5) more Libs (one shell word
# per line of the file)
pc_tpu = 'prefix=$(1)' 'includedir=$(2)' 'libdir=$(3)' '' 'Name: tpu' \
         'Description: host driver of the tpu accelerator (golden and, with tpu-sim, sim)' \
         'Version: $(TPU_VERSION)' 'Cflags: -I$${includedir}$(4)' 'Libs: -L$${libdir}$(5) -ltpu' \
         'Libs.private: -lm -lprotobuf-c'
# the sim models: no symbol of libtpu_sim.so is referenced strongly, so keep it linked even
# where the toolchain links --as-needed
pc_sim = 'prefix=$(1)' 'libdir=$(3)' '' 'Name: tpu-sim' \
         'Description: the Verilated devices of the tpu'"'"'s sim backend (libtpu_sim.so)' \
         'Version: $(TPU_VERSION)' 'Requires: tpu' \
         'Libs: -L$${libdir} -Wl,--push-state,--no-as-needed -ltpu_sim -Wl,--pop-state'

PC_DIR := $(BUILD)/lib/pkgconfig
PC     := $(PC_DIR)/tpu.pc
PC_SIM := $(PC_DIR)/tpu-sim.pc
$(PC): mk/install.mk Makefile
	@mkdir -p $(@D)
	$(Q)printf '%s\n' $(call pc_tpu,$(abspath $(BUILD)),$${prefix}/include,$${prefix}/lib, \
	  -I$(abspath include), -Wl$(comma)-rpath$(comma)$${libdir}) > $@
$(PC_SIM): mk/install.mk Makefile
	@mkdir -p $(@D)
	$(Q)printf '%s\n' $(call pc_sim,$(abspath $(BUILD)),,$${prefix}/lib) > $@
pc: $(PC) $(if $(filter 1,$(SIM_ON)),$(PC_SIM))

# ------------------------------------------------------------------ install, uninstall
INST_HEADERS := $(wildcard include/tpu/*.h) $(SPEC_H)
INST_PY      := $(wildcard python/tpu/*.py)
# every shared library with its soname link and development link (mk/shlib.mk)
shlib_names   = $(foreach f,$(notdir $(1)),$(f) $(basename $(basename $(f))) \
                $(basename $(basename $(basename $(f)))))
# a path under PREFIX as the pkg-config variable that names it
pc_rel        = $(patsubst $(PREFIX)/%,$${prefix}/%,$(1))
INST_FILES    = $(addprefix $(INCLUDEDIR)/tpu/,$(notdir $(INST_HEADERS))) \
                $(addprefix $(LIBDIR)/,$(notdir $(LIB_A)) $(call shlib_names,$(SHLIBS))) \
                $(PKGCONFIGDIR)/tpu.pc $(if $(filter 1,$(SIM_ON)),$(PKGCONFIGDIR)/tpu-sim.pc) \
                $(BINDIR)/tpu $(addprefix $(PYTHONDIR)/tpu/,$(notdir $(INST_PY)) _libdir.py)

.PHONY: install uninstall
install: $(INST_HEADERS) $(LIB_A) $(SHLIBS) $(CLI)
	@echo "  INSTALL $(DESTDIR)$(PREFIX)"
	$(Q)$(INSTALL) -d $(DESTDIR)$(INCLUDEDIR)/tpu $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
	  $(DESTDIR)$(BINDIR) $(DESTDIR)$(PYTHONDIR)/tpu
	$(Q)$(INSTALL) -m 644 $(INST_HEADERS) $(DESTDIR)$(INCLUDEDIR)/tpu/
	$(Q)$(INSTALL) -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	$(Q)$(INSTALL) -m 755 $(SHLIBS) $(DESTDIR)$(LIBDIR)/
	$(Q)$(foreach f,$(SHLIBS),$(call shlib_links,$(DESTDIR)$(LIBDIR)/$(notdir $(f))) &&) true
	$(Q)printf '%s\n' $(call pc_tpu,$(PREFIX),$(call pc_rel,$(INCLUDEDIR)),$(call pc_rel,$(LIBDIR))) \
	  > $(DESTDIR)$(PKGCONFIGDIR)/tpu.pc
	$(Q)$(if $(filter 1,$(SIM_ON)),printf '%s\n' $(call pc_sim,$(PREFIX),,$(call pc_rel,$(LIBDIR))) \
	  > $(DESTDIR)$(PKGCONFIGDIR)/tpu-sim.pc)
	$(Q)$(INSTALL) -m 755 $(CLI) $(DESTDIR)$(BINDIR)/tpu
	$(Q)$(INSTALL) -m 644 $(INST_PY) $(DESTDIR)$(PYTHONDIR)/tpu/
	$(Q)printf '%s\n' '"""Written by make install: where libtpu.so.$(TPU_SO_MAJOR) is."""' \
	  'LIBDIR = "$(LIBDIR)"' > $(DESTDIR)$(PYTHONDIR)/tpu/_libdir.py

# Python's byte code of the package's modules goes too (written when the package is imported)
uninstall:
	@echo "  UNINSTALL $(DESTDIR)$(PREFIX)"
	$(Q)rm -f $(addprefix $(DESTDIR),$(INST_FILES))
	$(Q)rm -f $(foreach f,$(notdir $(INST_PY)) _libdir.py,\
	  $(DESTDIR)$(PYTHONDIR)/tpu/__pycache__/$(basename $(f)).*.pyc)
	$(Q)for d in $(DESTDIR)$(PYTHONDIR)/tpu/__pycache__ $(DESTDIR)$(PYTHONDIR)/tpu \
	  $(DESTDIR)$(INCLUDEDIR)/tpu; do [ ! -d "$$d" ] || rmdir --ignore-fail-on-non-empty "$$d"; done
