
# Copyright (c) slimheap contributors
#
# scripts/pg-build.sh, driven on a stand-in source tree instead of
# PostgreSQL's (seconds, not a quarter of an hour):
#
# - it runs PostgreSQL's make in a clean make environment: the stand-in's
#   top-level make, like PostgreSQL's, generates its headers only at make
#   level 0, and the script is called here with the MAKELEVEL and MAKEFLAGS
#   a recipe of the project's Makefile would pass down;
# - it installs every contrib module the tests use (test_decoding too);
# - a cached build that lacks one of them is built again, and a complete
#   one is used as it is.

use strict;
use warnings;

use File::Path qw(make_path);
use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;

my $script = ($ENV{TESTDIR} // '.') . '/scripts/pg-build.sh';
my $tmp = PostgreSQL::Test::Utils::tempdir;

sub write_file
{
	my ($path, $text, $mode) = @_;
	open my $fh, '>', $path or die "cannot write $path: $!";
	print $fh $text;
	close $fh;
	chmod($mode, $path) if $mode;
}

# The stand-in tree: configure records the prefix; the top-level make, as
# PostgreSQL's does (submake-generated-headers in src/Makefile.global),
# makes its generated headers only when it is not a sub-make, and fails
# without them.
my $src = "$tmp/postgresql-99.1";
make_path("$src/src/test/isolation");
write_file("$src/configure", <<'SH', 0755);
#!/bin/sh
for a in "$@"; do
	case $a in --prefix=*) echo "${a#--prefix=}" >prefix ;; esac
done
SH
write_file("$src/GNUmakefile", <<'MK');
PREFIX := $(shell cat prefix)
all:
ifeq ($(MAKELEVEL),0)
	echo generated >errcodes.h
endif
	test -f errcodes.h
install:
	mkdir -p $(PREFIX)/bin $(PREFIX)/lib $(PREFIX)/include
	cp pg_config $(PREFIX)/bin/pg_config
	cp errcodes.h $(PREFIX)/include/
MK
write_file("$src/pg_config", <<'SH', 0755);
#!/bin/sh
case $1 in
	--version) echo "PostgreSQL 99.1 (stand-in)" ;;
	--pkglibdir) echo "$(cd "$(dirname "$0")/.." && pwd)/lib" ;;
	*) exit 1 ;;
esac
SH
my $module_mk = <<'MK';
PREFIX := $(shell cat ../../prefix)
all:
install:
	touch $(PREFIX)/lib/$(notdir $(CURDIR)).so
MK
for my $m (qw(amcheck pageinspect pg_freespacemap pgstattuple test_decoding))
{
	make_path("$src/contrib/$m");
	write_file("$src/contrib/$m/Makefile", $module_mk);
}
write_file("$src/src/test/isolation/Makefile", "all:\ninstall:\n");

my $tarball = "$tmp/postgresql-99_99.1.orig.tar.gz";
system('tar', '-czf', $tarball, '-C', $tmp, 'postgresql-99.1') == 0
  or die "cannot make $tarball";

# pg-build.sh as a recipe of the project's Makefile runs it
sub pg_build
{
	my ($cache) = @_;
	my ($out, $err) = ('', '');
	local %ENV = (
		%ENV,
		MAKELEVEL => '1',
		MAKEFLAGS => 's -j2 --jobserver-auth=3,4',
		MFLAGS => '-s',
		SLIMHEAP_PG_CACHE => $cache,
		SLIMHEAP_PG_SOURCE => $tarball,
		SLIMHEAP_PG_SKIP_DEPS => '1');
	delete $ENV{SLIMHEAP_PG_CONTRIB};
	my $ok = IPC::Run::run([ 'bash', $script, '99' ],
		'<', \undef, '>', \$out, '2>', \$err);
	return ($ok, $out, $err);
}

# a cold cache, under an inherited make level
my $cache = "$tmp/cache";
my ($ok, $out, $err) = pg_build($cache);
ok($ok, 'pg-build.sh builds the stand-in under MAKELEVEL=1')
  or diag($err);
is($out, "$cache/pg-99.1/bin/pg_config\n", 'it prints only the pg_config path');
ok(-f "$cache/pg-99.1/include/errcodes.h",
	'the top-level make ran at make level 0 (generated headers made)');
ok(-f "$cache/pg-99.1/lib/$_.so", "contrib module $_ installed")
  for qw(amcheck pageinspect pg_freespacemap pgstattuple test_decoding);
ok(-f "$cache/pg-99.1/.slimheap-build-complete", 'the build is stamped');

# a complete cached build is used as it is
write_file("$cache/pg-99.1/kept", "x\n");
($ok, $out, $err) = pg_build($cache);
ok($ok && -f "$cache/pg-99.1/kept", 'a complete cached build is reused')
  or diag($err);
like($err, qr/using the cached build/, 'and says so');

# a cache made by an older script, without test_decoding, is built again
unlink "$cache/pg-99.1/lib/test_decoding.so";
($ok, $out, $err) = pg_build($cache);
ok($ok, 'a cached build lacking test_decoding is not trusted') or diag($err);
ok(-f "$cache/pg-99.1/lib/test_decoding.so" && !-f "$cache/pg-99.1/kept",
	'it was built again, with test_decoding');

done_testing();
