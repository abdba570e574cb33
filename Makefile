# slimheap: a PostgreSQL table access method with smaller NULL bitmaps
#
#   make test    install what is missing, build, install, run every test
#   make demo    load workload W1 into heap and slimheap, compare sizes
#   make bench   the side-by-side benchmark (bench/README.md)
#
# The PGXS part below needs postgresql-server-dev-15; `make test` and
# `make demo` install it first (scripts/setup.sh).

MODULE_big = slimheap
# every C file of src/ is part of the extension (one concern per file)
OBJS = $(patsubst %.c,%.o,$(sort $(wildcard src/*.c)))

EXTENSION = slimheap
DATA = slimheap--1.0.sql
PGFILEDESC = "slimheap - heap with truncated NULL bitmaps"

PG_CPPFLAGS = -I$(srcdir)/include

# tests: every file of sql/ and specs/, and the TAP tests of t/
REGRESS = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --temp-config=$(srcdir)/test/slimheap.conf
ISOLATION = $(patsubst specs/%.spec,%,$(sort $(wildcard specs/*.spec)))
ISOLATION_OPTS = --temp-config=$(srcdir)/test/slimheap.conf
TAP_TESTS = 1

PG_CONFIG ?= /usr/lib/postgresql/15/bin/pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifneq ($(wildcard $(PGXS)),)
include $(PGXS)
endif

.PHONY: setup test demo bench

setup:
	bash scripts/setup.sh

test: setup
	bash scripts/run-tests.sh

demo: setup
	bash scripts/demo.sh

bench: setup
	QUICK=$(QUICK) REPS=$(REPS) bash bench/run.sh

# reliability: the differential fuzzer against heap (fuzz/, docs/reliability.md)
#   make fuzz SEED=1 STEPS=200
SEED ?= 1
STEPS ?= 200
.PHONY: fuzz
fuzz: setup
	$(MAKE) install
	bash fuzz/run-fuzz.sh $(SEED) $(STEPS)
