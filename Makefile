# idlescope build. `make` builds build/idlescope, linked with Debian's shared
# libraries: every capability (trace.dat, serve's TLS). `make static` builds
# build/static/idlescope, one file for guests and throwaway VMs (no TLS in
# serve: it says so). See `make help` for the other targets.
.DELETE_ON_ERROR:
.SECONDARY:

ARCH ?= $(shell uname -m | sed -e 's/aarch64/arm64/')
ifeq ($(ARCH),x86_64)
BPF_ARCH := x86
else ifeq ($(ARCH),arm64)
BPF_ARCH := arm64
CROSS_COMPILE ?= $(if $(filter aarch64,$(shell uname -m)),,aarch64-linux-gnu-)
ifneq ($(CROSS_COMPILE),)
# Cross build (see vmlinux/README.md): own output dir, and the arm64 -dev
# libraries from a sysroot that scripts/arm64-sysroot.sh downloads.
ARM64_CROSS := 1
OUT      ?= build/arm64
ARM64_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/idlescope/arm64-sysroot
SYSROOT  ?= $(ARM64_CACHE)/root
ifneq ($(filter test unit replay bats run bench bench-wakeups,$(MAKECMDGOALS)),)
$(error ARCH=arm64 here is a cross build: the unit, replay and BATS tests and the bench need an arm64 machine (run 'make test' there); 'make ARCH=arm64' only builds $(OUT)/idlescope)
endif
endif
else
$(error unsupported ARCH=$(ARCH) (x86_64 or arm64))
endif

OUT      ?= build
# The static binary: this build when STATIC=1, else `make static`'s.
STATIC_BIN = $(if $(filter 1,$(STATIC)),$(OUT)/idlescope,$(OUT)/static/idlescope)
CLANG    ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL  ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
CC       := $(CROSS_COMPILE)gcc
# A cross build links the sysroot's static archives only.
STATIC   ?= $(if $(ARM64_CROSS),1,0)
PREFIX   ?= /usr/local
DESTDIR  ?=
VERSION  := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# clang -target bpf misses the host's arch include dir (asm/types.h).
CLANG_BPF_SYS_INCLUDES := $(shell $(CLANG) -v -E - </dev/null 2>&1 \
	| sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')

CFLAGS   ?= -O2 -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Iinclude -Iuser -I$(OUT) \
	    -DIDLESCOPE_VERSION='"$(VERSION)"'
BPF_CFLAGS := -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Werror \
	    -Iinclude -Ivmlinux/$(ARCH) $(CLANG_BPF_SYS_INCLUDES)
LDLIBS   := -lbpf -lelf -lz -ljansson -lm -lncurses -ltinfo -lyaml -lcrypt
ifeq ($(STATIC),1)
LDFLAGS  += -static
endif

# libmicrohttpd for `serve`. Debian's libmicrohttpd.a needs gnutls, whose
# static link needs p11-kit, shipped only as a shared library: a static
# build links a copy built from Debian's source without HTTPS instead
# (scripts/mhd-static.sh, cached). Its own variable: the arm64 block below
# replaces LDLIBS.
ifeq ($(STATIC),1)
MHD_DIR   ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/idlescope/mhd-$(ARCH)
MHD_STAMP := $(MHD_DIR)/.idlescope-mhd
CFLAGS    += -isystem $(MHD_DIR)/include
HTTP_LIBS := -L$(MHD_DIR)/lib -lmicrohttpd -lpthread
WEB_DEFS  :=
else
# Debian's libmicrohttpd has HTTPS: `serve --web-config` checks client
# certificates with GnuTLS (user/web/tls_gnutls.c). Neither is linked:
# serve opens both when it starts (user/web/web_libs.c), so the other
# commands do not map them (about 2 MB of RSS, and GnuTLS's constructor).
# debian/control names their packages: dpkg-shlibdeps cannot see them.
CFLAGS    += -DIDLESCOPE_GNUTLS
WEB_DEFS  := -DIDLESCOPE_WEB_DLOPEN
HTTP_LIBS := -lpthread -ldl
endif
CFLAGS    += $(WEB_DEFS)

# trace.dat for `replay`: user/replay/dat_file.c reads trace-cmd's container
# itself, libtraceevent parses the event formats and the ring-buffer pages,
# zlib and zstd decompress: all three ship static archives in Debian, so
# every build, static or not, reads every trace.dat. The static link warns
# about dlopen in libtraceevent's plugin loader: never called (no plugins
# are loaded).
TRACE_LINK := -ltraceevent -lzstd -lz $(if $(filter 1,$(STATIC)),-ldl)

# What this build cannot do: said at the end of its link and by `idlescope
# info` (one text, from here).
BUILD_LACKS := $(if $(filter 1,$(STATIC)),serve HTTPS (tls_server_config in --web-config: a static GnuTLS needs p11-kit; the default build has it))
$(OUT)/user/cmd/cmd_info.o: CFLAGS += -DIDLESCOPE_BUILD_LACKS='"$(BUILD_LACKS)"' \
	-DIDLESCOPE_LINKAGE='"$(if $(filter 1,$(STATIC)),static,dynamic)"'

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(OUT)/%.bpf.o,$(BPF_SRCS))
SKELS     := $(patsubst bpf/%.bpf.c,$(OUT)/%.skel.h,$(BPF_SRCS))
# user/ by layer (docs/architecture.md): main.c, then one folder per layer.
USER_SRCS := $(wildcard user/*.c user/*/*.c)
USER_HDRS := $(wildcard user/*/*.h)
USER_OBJS := $(patsubst user/%.c,$(OUT)/user/%.o,$(USER_SRCS))
# Everything but main(): unit and replay tests link against it.
LIB_OBJS  := $(filter-out $(OUT)/user/main.o,$(USER_OBJS))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRCS))
REPLAY_SRCS := $(wildcard tests/replay/*_test.c)
REPLAY_BINS := $(patsubst tests/replay/%_test.c,$(OUT)/tests/replay_%,$(REPLAY_SRCS))

.PHONY: all run test deps install uninstall clean vmlinux help unit replay bats check-root bench bench-wakeups
all: $(OUT)/idlescope

help:
	@echo 'make            build $(OUT)/idlescope with every capability (V=1 verbose)'
	@echo 'make run        deps + build, then a 10-second system-wide summary (root)'
	@echo 'make test       deps + build, unit, replay, live BATS, fuzz corpora and every test VM (root)'
	@echo 'make unit|replay|bats   one test layer'
	@echo 'make layers     check user/ includes only its own and lower layers, and draw them; and the test map'
	@echo 'make test-map   which test files exercise each unit of user/ (fails on a unit without one)'
	@echo 'make deps       install build and test dependencies from Debian (root)'
	@echo 'make install    install the binary, man page and bash completion under $$(DESTDIR)$$(PREFIX)'
	@echo 'make deb        build/idlescope_VERSION_ARCH.deb (debhelper, dynamic link); make deb-test checks it (root)'
	@echo 'make fuzz       libFuzzer targets, FUZZ_SECONDS (300) each; make test runs them briefly'
	@echo 'make soak       10 min of record -i 1 under stress-ng: RSS and map memory flat (root)'
	@echo 'make bench      overhead vs a minimal BPF floor, side by side; writes docs/performance.md'
	@echo 'make bench-wakeups  idle periods/s/CPU each live command adds on an idle machine (its section of docs/performance.md)'
	@echo 'make vmtest     kernel test VMs (QEMU TCG, Debian 5.10, 6.1, 6.12; 6.12 at 32 vCPUs, top at 64) and make vmtest-oracle, side by side'
	@echo 'make vmtest-oracle  the BATS oracle tests in an acpi_idle guest and in cpuidle.off=1 guests'
	@echo 'make vmtest-top64   the 64-vCPU guest of make vmtest alone (top group rows against their CPUs)'
	@echo 'make compat     make vmtest, then docs/compat.md from what the guests probed'
	@echo 'make vmlinux    regenerate vmlinux/$$(ARCH)/vmlinux.h from BTF'
	@echo 'make static     $(OUT)/static/idlescope, one file for test VMs (serve has no TLS)'
	@echo 'make ARCH=arm64 cross-build build/arm64/idlescope (after sudo make deps ARCH=arm64)'

$(OUT) $(OUT)/user $(OUT)/tests:
	$(Q)mkdir -p $@

$(OUT)/%.bpf.o: bpf/%.bpf.c $(wildcard include/*.h bpf/*.bpf.h) vmlinux/$(ARCH)/vmlinux.h | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

# The same object for kernels before 5.12, without BPF atomic fetch ops (no
# group counters); the loader opens it when the probe finds none.
$(OUT)/idlescope_nofetch.bpf.o: bpf/idlescope.bpf.c $(wildcard include/*.h bpf/*.bpf.h) vmlinux/$(ARCH)/vmlinux.h | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DIS_NO_ATOMIC_FETCH -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@
SKELS += $(OUT)/idlescope_nofetch.skel.h

# The object a live session opens: the replay entry points by name only (the
# skeleton's layout stays the full object's), as their code and line info
# would stay on the heap of every live session (bpf/replay.bpf.h).
$(OUT)/idlescope_live.bpf.o: bpf/idlescope.bpf.c $(wildcard include/*.h bpf/*.bpf.h) vmlinux/$(ARCH)/vmlinux.h | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -DIS_LIVE_OBJECT -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@
SKELS += $(OUT)/idlescope_live.skel.h

# The loader opens the other objects through the default skeleton: their
# globals must lie where its struct says (checked here, not at every start).
globals_of = sed -n '/struct idlescope[a-z_]*_bpf__\(rodata\|bss\) {/,/} \*/p' $(1) | \
	sed 's/idlescope[a-z_]*_bpf__/OBJ__/'
$(OUT)/objects-agree.stamp: $(OUT)/idlescope.skel.h $(OUT)/idlescope_nofetch.skel.h $(OUT)/idlescope_live.skel.h
	$(call msg,CHECK,$@)
	$(Q)$(call globals_of,$(OUT)/idlescope.skel.h) >$@.full
	$(Q)for v in nofetch live; do \
		$(call globals_of,$(OUT)/idlescope_$$v.skel.h) >$@.$$v; \
		cmp -s $@.full $@.$$v || \
		{ echo "idlescope_$$v.bpf.o: its globals differ from idlescope.bpf.o's" >&2; exit 1; }; \
	done
	$(Q)test -s $@.full && touch $@
SKELS += $(OUT)/objects-agree.stamp

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(OUT)/user/%.o: user/%.c $(wildcard include/*.h) $(USER_HDRS) $(SKELS) | $(OUT)/user
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# The objects that embed VERSION are rebuilt when it changes (a commit, the
# tree turning dirty), not only when their sources do: --version, info and
# the exporter's build info say what the binary was built from.
$(OUT)/version.stamp: FORCE | $(OUT)
	$(Q)[ "$$(cat $@ 2>/dev/null)" = "$(VERSION)" ] || echo "$(VERSION)" > $@
$(OUT)/user/main.o $(OUT)/user/cmd/cmd_info.o $(OUT)/user/cmd/live_prom.o: $(OUT)/version.stamp

# report's page template, stylesheet and script as C strings (report_page_html,
# _css, _js), byte for byte; '?' escaped against trigraphs. The script's
# SHA-256 in base64, its Content-Security-Policy source, is computed here
# (REPORT_PAGE_JS_SHA256): the script is a constant, so no hashing library
# is mapped by every command at run time.
REPORT_ASSETS := user/report/report_page.html user/report/report_page.css user/report/report_page.js
$(OUT)/report_assets.h: $(REPORT_ASSETS) Makefile | $(OUT)
	$(call msg,GEN,$@)
	$(Q)for f in $(REPORT_ASSETS); do \
		printf 'static const char %s[] =\n' "$$(basename $$f | tr .- __)"; \
		sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/"/' -e 's/$$/\\n"/' $$f; \
		printf ';\n'; \
	done > $@.tmp
	$(Q)printf '#define REPORT_PAGE_JS_SHA256 "%s"\n' "$$(python3 -c 'import base64, hashlib, sys; \
		print(base64.b64encode(hashlib.sha256(open(sys.argv[1], "rb").read()).digest()).decode())' \
		user/report/report_page.js)" >> $@.tmp
	$(Q)mv $@.tmp $@
$(OUT)/user/report/report_html.o $(OUT)/tests/test_report_html: $(OUT)/report_assets.h

$(OUT)/idlescope: $(USER_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) $(HTTP_LIBS) $(TRACE_LINK) -o $@ 2>$@.ld || { cat $@.ld >&2; exit 1; }
	$(Q)grep -v "libtraceevent.a(event-plugin.o)\|Using 'dlopen' in statically linked" $@.ld >&2 || true
	$(Q)rm -f $@.ld
	$(if $(BUILD_LACKS),@echo '  NOTE     $@ lacks $(BUILD_LACKS)')

$(OUT)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(LIB_OBJS) | $(OUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit $< $(LIB_OBJS) $(LDLIBS) $(HTTP_LIBS) $(TRACE_LINK) -lcmocka -o $@

$(OUT)/tests/replay_%: tests/replay/%_test.c tests/replay/replay.h $(LIB_OBJS) | $(OUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit $< $(LIB_OBJS) $(LDLIBS) $(HTTP_LIBS) $(TRACE_LINK) -lcmocka -o $@

deps:
	$(Q)./scripts/deps.sh $(ARCH)

ifdef MHD_STAMP
$(MHD_STAMP): scripts/mhd-static.sh
	$(call msg,MHD,$(MHD_DIR))
	$(Q)DEST='$(MHD_DIR)' CC='$(CC)' HOST='$(if $(CROSS_COMPILE),$(CROSS_COMPILE:-=),)' ./scripts/mhd-static.sh
	$(Q)touch $@

$(USER_OBJS): | $(MHD_STAMP)
endif

# The static build (one file, no shared library): the test VMs' binary.
# Its serve has no TLS (MHD_STAMP above); the link says so at its end, as
# `idlescope info` does.
.PHONY: static
static: $(STATIC_BIN)
$(OUT)/static/idlescope: FORCE
	$(Q)$(MAKE) --no-print-directory STATIC=1 OUT=$(OUT)/static $(OUT)/static/idlescope
.PHONY: FORCE
FORCE:


run: deps all
	./$(OUT)/idlescope record -d 10

# user/'s include graph against its layers (docs/architecture.md); -v draws it.
# Then every unit's tests (tests/lib/test_map.sh): a unit without one fails.
.PHONY: layers test-map
layers:
	$(Q)./tests/lib/layers.sh -v
	$(Q)./tests/lib/test_map.sh -q

# which test files exercise each unit of user/
test-map:
	$(Q)./tests/lib/test_map.sh

check-root:
	@[ "$$(id -u)" = 0 ] || { echo 'idlescope tests load BPF programs: run as root (sudo make test)' >&2; exit 1; }

unit: $(UNIT_BINS)
	$(Q)set -e; for t in $(UNIT_BINS); do $$t; done

replay: check-root $(REPLAY_BINS)
	$(Q)set -e; for t in $(REPLAY_BINS); do $$t; done

bats: check-root all static $(OUT)/tests/pingpong
	$(Q)IDLESCOPE=$(abspath $(OUT)/idlescope) IDLESCOPE_STATIC=$(abspath $(STATIC_BIN)) IDLESCOPE_MAN=$(abspath $(MANPAGE)) bats tests/bats

test: deps all static check-root $(UNIT_BINS) $(REPLAY_BINS) fuzz-build $(OUT)/tests/pingpong \
      $(if $(filter 0,$(IDLESCOPE_VMTEST)),,vmtest-bins)
	$(Q)OUT=$(OUT) IDLESCOPE_MAN=$(abspath $(MANPAGE)) ./tests/run.sh

# The bench's floor observer: a minimal BPF counter (tests/bench/floor.bpf.c).
$(OUT)/floor.bpf.o: tests/bench/floor.bpf.c vmlinux/$(ARCH)/vmlinux.h | $(OUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@
	$(Q)$(LLVM_STRIP) -g $@

$(OUT)/tests/floor: tests/bench/floor.c $(OUT)/floor.skel.h | $(OUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -lbpf -lelf -lz -o $@

# The bench's cross-CPU ping-pong (the load of `info --costs`).
$(OUT)/tests/pingpong: tests/bench/pingpong.c $(OUT)/user/cmd/pingpong_load.o $(OUT)/user/util/clock.o | $(OUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $^ -o $@

# Lets trace-cmd record events where the function tracer is locked down.
$(OUT)/tests/trace_cmd_shim.so: tests/lib/trace_cmd_shim.c | $(OUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -Wall -Wextra -Werror -shared -fPIC $< -ldl -o $@

bench: deps all check-root $(OUT)/tests/floor $(OUT)/tests/pingpong $(OUT)/tests/trace_cmd_shim.so $(OUT)/tests/test_prom
	$(Q)OUT=$(OUT) ./tests/bench/run.sh
	$(Q)OUT=$(OUT) ./tests/bench/wakeups.sh

# The added wakeups of each live command on an idle machine (about 10 min).
bench-wakeups: all check-root
	$(Q)OUT=$(OUT) ./tests/bench/wakeups.sh

# The man page, whatever its section (the tests take it from here too).
MANPAGE  := $(firstword $(wildcard docs/idlescope.[1-8]))
MANDIR   := $(PREFIX)/share/man/man$(patsubst .%,%,$(suffix $(MANPAGE)))
BASHCOMPDIR := $(PREFIX)/share/bash-completion/completions

install: $(OUT)/idlescope
	install -D -m 0755 $(OUT)/idlescope $(DESTDIR)$(PREFIX)/bin/idlescope
	install -D -m 0644 $(MANPAGE) $(DESTDIR)$(MANDIR)/$(notdir $(MANPAGE))
	install -D -m 0644 completion/idlescope.bash $(DESTDIR)$(BASHCOMPDIR)/idlescope

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/idlescope $(DESTDIR)$(MANDIR)/$(notdir $(MANPAGE)) \
	      $(DESTDIR)$(BASHCOMPDIR)/idlescope

# The Debian package (docs/install.md): built by debhelper in a staging copy
# under $(OUT)/deb, linked dynamically; deb-test installs, checks and removes it.
.PHONY: deb deb-test
deb:
	$(Q)OUT=$(OUT) ./debian/make-deb.sh

deb-test: check-root
	$(Q)deb=$$(OUT=$(OUT) ./debian/make-deb.sh) && IDLESCOPE_DEB=$$(realpath "$$deb") bats tests/deb

vmlinux:
	./vmlinux/gen.sh $(ARCH)

clean:
	rm -rf $(OUT)

# arm64 cross build: headers and static libraries from $(SYSROOT), libc from
# Debian's aarch64-linux-gnu toolchain.
ifdef ARM64_CROSS
SYSROOT_STAMP := $(SYSROOT)/.idlescope-sysroot
CFLAGS   += -isystem $(SYSROOT)/usr/include -isystem $(SYSROOT)/usr/include/aarch64-linux-gnu
LDFLAGS  += -L$(SYSROOT)/usr/lib/aarch64-linux-gnu
# Recipe-time check: -lzstd only when the sysroot script found libelf.a needs it.
LDLIBS    = -lbpf -lelf -lz -ljansson -lm -lncurses -ltinfo -lyaml -lcrypt \
	    $(shell test -f $(SYSROOT)/usr/lib/aarch64-linux-gnu/libzstd.a && echo -lzstd)

.PHONY: cross-toolchain
cross-toolchain:
	@command -v $(CC) >/dev/null || { echo '$(CC) not found: run sudo make deps ARCH=$(ARCH)' >&2; exit 1; }

$(SYSROOT_STAMP): scripts/arm64-sysroot.sh | cross-toolchain
	$(call msg,SYSROOT,$(SYSROOT))
	$(Q)SYSROOT='$(SYSROOT)' CACHE='$(ARM64_CACHE)' ./scripts/arm64-sysroot.sh
	$(Q)touch $@

$(USER_OBJS) $(OUT)/idlescope: | cross-toolchain $(SYSROOT_STAMP)
endif
# Kernel test VMs: x86_64 and arm64 guests from an x86_64 host (the arm64
# binary cross-built into build/arm64), only arm64 ones with ARCH=arm64.
VMTEST_ARCH ?= $(if $(ARM64_CROSS),arm64,x86_64 arm64)
.PHONY: vmtest vmtest-bins
vmtest-bins: $(STATIC_BIN)
ifeq ($(ARCH),x86_64)
	$(if $(filter arm64,$(VMTEST_ARCH)),$(Q)$(MAKE) --no-print-directory ARCH=arm64 OUT=build/arm64 deps all)
endif
# The kernel VMs and (x86_64) the oracle guests side by side (tests/vm/all.sh).
vmtest: vmtest-bins
	$(Q)IDLESCOPE=$(abspath $(STATIC_BIN)) VMTEST_ARCH='$(VMTEST_ARCH)' \
	    IDLESCOPE_ARM64=$(abspath $(if $(ARM64_CROSS),$(OUT),build/arm64)/idlescope) ./tests/vm/all.sh

# The 64-vCPU guest of make vmtest (and make test) alone: 2 packages x 16 SMT
# cores, the many-CPU section's top check only (tests/vm/README.md).
.PHONY: vmtest-top64
vmtest-top64: $(STATIC_BIN)
	$(Q)IDLESCOPE=$(abspath $(STATIC_BIN)) VMTEST_ARCH=x86_64 \
	    VMTEST_KERNELS='6.12@64,sockets=2,cores=16,threads=2:top' ./tests/vm/run.sh

# The oracle guests (tests/vm/oracle.sh): the BATS oracle tests in an acpi_idle
# guest and in cpuidle.off=1 guests (x86_64 only: the guests run host binaries).
.PHONY: vmtest-oracle
vmtest-oracle: $(STATIC_BIN)
	$(Q)IDLESCOPE=$(abspath $(STATIC_BIN)) ./tests/vm/oracle.sh

# The host-side BATS tests (untagged) in the haltpoll guest, as on a host with
# the haltpoll driver (not in make test: about 40 min under TCG). A test that
# needs the source tree or a tool the guest lacks skips with its reason.
.PHONY: vmtest-haltpoll-host
vmtest-haltpoll-host: $(STATIC_BIN)
	$(Q)IDLESCOPE=$(abspath $(STATIC_BIN)) ORACLE_KINDS=haltpoll ORACLE_TIMEOUT=4200 \
	    VMTEST_APPEND='vmtest_tags=!oracle $(VMTEST_APPEND)' ./tests/vm/oracle.sh

# libFuzzer targets (tests/fuzz/README.md): tests/fuzz/fuzz_X.c becomes
# $(OUT)/fuzz/fuzz_X, linked with every user/ object built with ASan/UBSan.
FUZZ_CC     ?= clang
# no -Werror: clang warns where gcc (the build's -Werror) does not, and a new
# parser must not break make test over a warning only clang prints
FUZZ_CFLAGS := -g -O1 -std=c11 -D_GNU_SOURCE -Wall -Wextra -Iinclude -Iuser -I$(OUT) \
	       -DIDLESCOPE_VERSION='"$(VERSION)"' -fno-omit-frame-pointer \
	       -fsanitize=address,undefined -fno-sanitize-recover=all $(WEB_DEFS)
FUZZ_SRCS   := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS   := $(patsubst tests/fuzz/%.c,$(OUT)/fuzz/%,$(FUZZ_SRCS))
FUZZ_OBJS   := $(patsubst $(OUT)/user/%.o,$(OUT)/fuzz/obj/%.o,$(LIB_OBJS))
FUZZ_SECONDS ?= 300

$(OUT)/fuzz/obj/%.o: user/%.c $(wildcard include/*.h) $(USER_HDRS) $(SKELS)
	$(call msg,FUZZ-CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(OUT)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_OBJS)
	$(call msg,FUZZ-LD,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_OBJS) $(LDLIBS) $(HTTP_LIBS) $(TRACE_LINK) -o $@

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BINS)

# Long run: FUZZ_SECONDS per target (FUZZ_TARGETS=name... for some).
fuzz: $(FUZZ_BINS)
	$(Q)OUT=$(OUT) FUZZ_SECONDS=$(FUZZ_SECONDS) ./tests/fuzz/run.sh long $(FUZZ_TARGETS)

# Robustness soak (not in make test): tests/robust/soak.sh.
.PHONY: soak
soak: all check-root
	$(Q)OUT=$(OUT) IDLESCOPE=$(abspath $(OUT)/idlescope) ./tests/robust/soak.sh

# docs/compat.md from the guests' `idlescope info --format json` of a VM run
.PHONY: compat
compat: vmtest
	$(Q)./tests/vm/compat.sh build/vmtest/compat >docs/compat.md.tmp && mv docs/compat.md.tmp docs/compat.md
	$(call msg,GEN,docs/compat.md)
