# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree wrapper.  Inside a kernel tree the Kbuild files are used
# directly; this file is only for building against an installed kernel.
#
#   make                  build every module against the Debian 6.1 headers,
#                         and libsdp.so (make libsdp)
#   make modules          the modules alone
#   make libsdp           ulp/sdp/libsdp/libsdp.so, the SDP preload library
#   make check            W=1 + sparse (C=2) build, checkpatch --strict, kernel-doc
#   make test             install what is missing, then every test platform
#   make user             the userspace test programs (tests/user, libibverbs)
#   make demo             boot a VM, load the stack, show it
#   make bench            boot VMs, measure vmlx against memcpy and soft-RoCE,
#                         IPoIB against veth, rsockets and cmtime against
#                         TCP over IPoIB, SRP against tcm_loop, SDP
#                         against TCP over IPoIB and veth; one table
#   make modules_install  install into /lib/modules/$(KVER)/updates
#   make install          modules_install, libsdp.so into $(PREFIX)/lib and,
#                         unless there is one, $(SYSCONFDIR)/libsdp.conf
#
# KVER picks the kernel (default: the newest Debian 6.1 headers installed,
# not the running kernel); KDIR overrides the build directory.  PREFIX
# (/usr/local) and SYSCONFDIR (/etc) are libsdp's; SYSCONFDIR is compiled
# into the library as where its libsdp.conf is.

KVER ?= $(shell scripts/kver.sh)
KDIR ?= /lib/modules/$(KVER)/build
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
LIBSDP_MAKE = $(MAKE) -C ulp/sdp/libsdp PREFIX=$(PREFIX) SYSCONFDIR=$(SYSCONFDIR)

# Kconfig symbols of ours that the distribution's .config cannot know.
# No vmlinux ships with the headers, so module BTF cannot be generated.
IBSTACK_CONFIG := CONFIG_INFINIBAND=m CONFIG_INFINIBAND_VMLX=m \
		  CONFIG_INFINIBAND_USER_ACCESS=m \
		  CONFIG_INFINIBAND_USER_MAD=m \
		  CONFIG_INFINIBAND_VERBS_TEST=m CONFIG_INFINIBAND_IPOIB=m \
		  CONFIG_INFINIBAND_SRPT=m \
		  CONFIG_INFINIBAND_SRP=m \
		  CONFIG_INFINIBAND_SDP=m \
		  CONFIG_INFINIBAND_SDP_ROGUE_TEST=m \
		  CONFIG_DEBUG_INFO_BTF_MODULES=

KMAKE = $(MAKE) -C $(KDIR) M=$(CURDIR) $(IBSTACK_CONFIG)

.PHONY: all modules libsdp user check test demo shell bench deps modules_install \
	install clean have-kdir

all: modules libsdp

have-kdir:
	@test -d "$(KDIR)" || { echo "No kernel build directory '$(KDIR)'." \
		"Run 'make deps' (or set KDIR=) first." >&2; exit 1; }

modules: have-kdir
	+$(KMAKE) modules

# Userspace, needs no kernel headers.
libsdp:
	+$(LIBSDP_MAKE)

# Not part of all: it needs libibverbs-dev, which make test installs.
user:
	+$(MAKE) -C tests/user

check: have-kdir
	+tests/build-checks.sh

deps:
	scripts/install-deps.sh

# test and demo install their dependencies first, then re-read this file so
# that KVER sees freshly installed headers.
test: deps
	+$(MAKE) -f $(firstword $(MAKEFILE_LIST)) modules libsdp user
	+tests/run-all.sh

demo: deps
	+$(MAKE) -f $(firstword $(MAKEFILE_LIST)) modules libsdp
	+scripts/demo.sh

# An interactive guest with the stack loaded and the fabric up.
shell: deps
	+$(MAKE) -f $(firstword $(MAKEFILE_LIST)) modules
	+tests/vm/vm-run.sh --smp 2 --mem 2048 --shell scripts/shell-guest.sh

# Not part of test: tests/bench/README.rst.
bench: modules libsdp
	+tests/bench/all.sh

modules_install: have-kdir
	+$(KMAKE) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(KVER)

install: modules_install libsdp
	+$(LIBSDP_MAKE) install

clean:
	-+test -d "$(KDIR)" && $(KMAKE) clean
	-+$(MAKE) -C tests/user clean
	-+$(MAKE) -C ulp/sdp/libsdp clean
