# slimheap: a PostgreSQL table access method with smaller NULL bitmaps
#
#   make test    install what is missing, build, install, run every test
#   make demo    load workload W1 into heap and slimheap, compare sizes
#   make bench   the side-by-side benchmark (bench/README.md)
#
# The PGXS part below needs postgresql-server-dev-15; `make test` and
# `make demo` install it first (scripts/setup.sh).

MODULE_big = slimheap
# every C file of src/ and its layer folders is part of the extension (one
# concern per file; src/README.md says which layer may use which)
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c src/*/*.c)))

EXTENSION = slimheap
DATA = slimheap--1.0.sql slimheap--1.1.sql slimheap--1.2.sql slimheap--1.3.sql slimheap--1.4.sql \
	slimheap--1.0--1.1.sql slimheap--1.1--1.2.sql slimheap--1.2--1.3.sql \
	slimheap--1.3--1.4.sql
PGFILEDESC = "slimheap - heap with truncated NULL bitmaps"

PG_CPPFLAGS = -I$(srcdir)/include

# tests: every file of sql/ and specs/, whose servers run with
# sql/slimheap.conf (the preload), and the TAP tests below
REGRESS = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --temp-config=$(srcdir)/sql/slimheap.conf
ISOLATION = $(patsubst specs/%.spec,%,$(sort $(wildcard specs/*.spec)))
ISOLATION_OPTS = --temp-config=$(srcdir)/sql/slimheap.conf
# TAP: t/*.pl, then the benchmark tooling's own tests, bench/t/*.pl
# (scripts/run-tests.sh runs this list, and t/citus/*.pl where Citus runs)
TAP_TESTS = 1
PROVE_TESTS = $(sort $(wildcard t/*.pl)) $(sort $(wildcard bench/t/*.pl))

# Which PostgreSQL to build against (README.md, docs/versions.md):
#   PG=15 (the default): Debian's packages, /usr/lib/postgresql/15
#   PG=17: a packaged 17 where one is installed (/usr/lib/postgresql/17,
#          e.g. postgresql-server-dev-17 of another distribution or of the
#          PostgreSQL project's repository); elsewhere Debian 13's packages
#          in a Debian 13 root under $(PG_CACHE), made once by
#          scripts/debian-root.sh, where build and tests then run
#   PG=19: a packaged 19 where one is installed (/usr/lib/postgresql/19);
#          elsewhere Debian experimental's 19 in a Debian sid root, the
#          same way as 17
#   PG=18: a server built from source into $(PG_CACHE)/pg-18.x by
#          scripts/pg-build.sh (`make test PG=18` builds it when missing)
#   PG_CONFIG=/path/to/pg_config: any installed server, e.g. a packaged 18
PG ?= 15
PG_CACHE ?= /var/cache/slimheap
PG17_PACKAGED := /usr/lib/postgresql/17/bin/pg_config
PG19_PACKAGED := /usr/lib/postgresql/19/bin/pg_config
ifeq ($(PG),15)
PG_CONFIG ?= /usr/lib/postgresql/15/bin/pg_config
else ifeq ($(PG)$(wildcard $(PG17_PACKAGED)),17$(PG17_PACKAGED))
PG_CONFIG ?= $(PG17_PACKAGED)
else ifeq ($(PG)$(wildcard $(PG19_PACKAGED)),19$(PG19_PACKAGED))
PG_CONFIG ?= $(PG19_PACKAGED)
else ifeq ($(PG)$(origin PG_CONFIG),17undefined)
# no 17 here: test, demo, bench, fuzz, all and install run in the root
SLIM_IN_ROOT := 1
else ifeq ($(PG)$(origin PG_CONFIG),19undefined)
# no 19 here: the same, in the Debian sid root (experimental's 19)
SLIM_IN_ROOT := 1
else ifeq ($(origin PG_CONFIG),undefined)
# the newest build of scripts/pg-build.sh (`make test PG=18` makes one)
PG_CONFIG := $(shell ls -d $(PG_CACHE)/pg-$(PG).*/bin/pg_config 2>/dev/null | sort -V | tail -n 1)
endif
PGXS := $(if $(PG_CONFIG),$(shell $(PG_CONFIG) --pgxs 2>/dev/null))
ifneq ($(wildcard $(PGXS)),)
include $(PGXS)

include $(srcdir)/compat.mk
endif

.PHONY: setup test demo bench

ifdef SLIM_IN_ROOT
# PG=17 without a packaged 17 on this machine: Debian 13's postgresql-17 in
# the Debian 13 root (scripts/debian-root.sh makes it once, mounts what the
# command needs and this checkout at /slimheap, and unmounts everything
# when the command ends); inside, PG_CONFIG is Debian's 17 and the command
# is the one the other versions run.  Nothing of the host's servers is
# touched, and no setup (PostgreSQL 15's packages) is needed.
SLIM_ROOT_RUN = SLIMHEAP_ROOT_CACHE='$(PG_CACHE)' SLIMHEAP_ROOT_PG='$(PG)' bash scripts/debian-root.sh run

.DEFAULT_GOAL := all
.PHONY: all install
all install:
	$(SLIM_ROOT_RUN) make -s $@

# (each command makes or completes the root first; `make setup PG=17`
# only does that)
setup:
	SLIMHEAP_ROOT_CACHE='$(PG_CACHE)' SLIMHEAP_ROOT_PG='$(PG)' bash scripts/debian-root.sh prepare >/dev/null

test:
	$(SLIM_ROOT_RUN) --counted bash scripts/run-tests.sh

demo:
	$(SLIM_ROOT_RUN) bash scripts/demo.sh

bench:
	$(SLIM_ROOT_RUN) env QUICK='$(QUICK)' REPS='$(REPS)' ONLY='$(ONLY)' bash bench/run.sh
else
setup:
	bash scripts/setup.sh

# The scripts get PG_CONFIG from this shell prefix: PG=15 is Debian's
# packaged server, and so is PG=17 where it is installed (else it runs in
# the root, above); any other PG is built from source first (once; it is
# cached) unless PG_CONFIG is given.
ifneq ($(PG)$(origin PG_CONFIG),15file)
ifneq ($(PG)$(origin PG_CONFIG),17file)
ifneq ($(PG)$(origin PG_CONFIG),19file)
ifeq ($(filter command line environment,$(origin PG_CONFIG)),)
PG_CONFIG_SH = PG_CONFIG=$$(SLIMHEAP_PG_CACHE='$(PG_CACHE)' bash scripts/pg-build.sh '$(PG)') && \
	export PG_CONFIG &&
endif
endif
endif
endif
PG_CONFIG_SH ?= export PG_CONFIG='$(PG_CONFIG)' &&

test: setup
	$(PG_CONFIG_SH) bash scripts/run-tests.sh

demo: setup
	$(PG_CONFIG_SH) bash scripts/demo.sh

bench: setup
	$(PG_CONFIG_SH) QUICK=$(QUICK) REPS=$(REPS) bash bench/run.sh
endif

# Packages (docs/infra.md):
#   make deb    a Debian package postgresql-NN-slimheap for every installed
#               postgresql-server-dev-NN of debian/pgversions, in build/deb/
#   make dist   the release tarball slimheap-<version>.tar.gz (PGXN), of HEAD
# (the release's version is META.json's; PGXN wants it in the file name)
SLIM_VERSION := $(shell sed -n 's/^   "version": "\(.*\)",$$/\1/p' META.json)
.PHONY: deb dist
deb:
	bash scripts/package.sh build

dist:
	git archive --format=tar.gz --prefix=slimheap-$(SLIM_VERSION)/ \
		-o slimheap-$(SLIM_VERSION).tar.gz HEAD
	@echo "slimheap-$(SLIM_VERSION).tar.gz"

# reliability: the differential fuzzer against heap (t/fuzz/, docs/reliability.md)
#   make fuzz SEED=1 STEPS=200
SEED ?= 1
STEPS ?= 200
.PHONY: fuzz
ifdef SLIM_IN_ROOT
fuzz:
	$(SLIM_ROOT_RUN) sh -c 'make -s install && bash t/fuzz/run-fuzz.sh "$$0" "$$1"' '$(SEED)' '$(STEPS)'
else
fuzz: setup
	$(PG_CONFIG_SH) $(MAKE) install PG_CONFIG=$$PG_CONFIG && \
		bash t/fuzz/run-fuzz.sh $(SEED) $(STEPS)
endif

# instruction counts of slimheap against heap (callgrind, single-user
# backends; bench/instructions.sh, docs/bench.md): writes
# bench/results/instructions.md and .csv
#   make bench-instructions                 the working tree as it is
#   BENCH_REV=HEAD make bench-instructions  a commit
.PHONY: bench-instructions
ifdef SLIM_IN_ROOT
bench-instructions:
	$(SLIM_ROOT_RUN) bash bench/instructions.sh
else
bench-instructions: setup
	$(PG_CONFIG_SH) bash bench/instructions.sh
endif
