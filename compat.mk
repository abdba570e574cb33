# compat.mk: what the Makefiles that compile slimheap's source need to know
# of the server they build against (include/slim_compat.h, docs/versions.md).
# Included after PGXS; OBJS are the objects to rebuild for another server.

# heap_tuple_set_datum() is in 15.20 but neither in 15.0-15.19 nor in 18:
# ask the installed headers, not the version number.
SLIM_HTUP_DETAILS := $(shell $(PG_CONFIG) --includedir-server)/access/htup_details.h
SLIM_HAVE_SET_DATUM := $(shell grep -qsw 'heap_tuple_set_datum' '$(SLIM_HTUP_DETAILS)' && echo yes)
ifeq ($(SLIM_HAVE_SET_DATUM),yes)
override CPPFLAGS += -DSLIM_HAVE_HEAP_TUPLE_SET_DATUM
endif

# Objects built against another server are rebuilt: .pg-build-id names the
# pg_config, the version and the flags they were built with, and its file
# changes only when one of those does.
SLIM_BUILD_ID := $(PG_CONFIG) $(shell $(PG_CONFIG) --version) $(CPPFLAGS)
.pg-build-id: slim-force
	@echo '$(SLIM_BUILD_ID)' | cmp -s - $@ || echo '$(SLIM_BUILD_ID)' >$@
$(OBJS) $(OBJS:.o=.bc): .pg-build-id

# PGXS of a packaged server tracks no header dependencies: every object
# depends on every header of the project's include/, so that a changed
# header never leaves an object compiled against the old one (a symbol
# that became a macro left slimheap.so unloadable).
$(OBJS) $(OBJS:.o=.bc): $(wildcard $(dir $(lastword $(MAKEFILE_LIST)))include/*.h)
EXTRA_CLEAN += .pg-build-id
slim-force:
.PHONY: slim-force

# The read and write callbacks wrap heap's for every row (docs/narrow-slot.md,
# "Cost"): built without a frame pointer, as PostgreSQL is unless the
# packager adds one (Debian's 15 does, -fno-omit-frame-pointer), so that a
# wrapper's set-up is only the registers it keeps.
src/am/slim_am_read.o src/am/slim_am_write.o: CFLAGS += -fomit-frame-pointer
