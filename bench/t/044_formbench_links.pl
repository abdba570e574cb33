
# Copyright (c) slimheap contributors
#
# The W7 module of `make bench` (bench/formbench) links the formers from
# src/format/ into a module of its own: every slimheap function they call
# must be among its objects, or the module fails to load and the benchmark
# stops (as `make bench PG=18` did once the rewrite's form test read a
# tail's map).  Built here in a copy, against the server of the run; no
# server is started.

use strict;
use warnings;

use IPC::Run;
use PostgreSQL::Test::Utils;
use Test::More;

my $tree = $ENV{TESTDIR} // '.';
my $tmp = PostgreSQL::Test::Utils::tempdir;
my $pg_config = $ENV{PG_CONFIG} // 'pg_config';

# the module's Makefile reads ../../include, ../../src and ../../compat.mk
for my $part ('bench/formbench', 'include', 'src/format')
{
	system('mkdir', '-p', "$tmp/$part") == 0 or die;
	system("cp -r '$tree/$part/.' '$tmp/$part/'") == 0 or die;
}
system('cp', "$tree/compat.mk", "$tmp/compat.mk") == 0 or die;
system("rm -f '$tmp'/bench/formbench/*.o '$tmp'/bench/formbench/*.so") == 0
  or die;

my ($out, $err) = ('', '');
my $ok = IPC::Run::run(
	[ 'make', '-s', '-C', "$tmp/bench/formbench", "PG_CONFIG=$pg_config" ],
	'>', \$out, '2>', \$err);
ok($ok, 'bench/formbench builds') or diag("$out$err");

my $so = "$tmp/bench/formbench/slimheap_formbench.so";
($out, $err) = ('', '');
IPC::Run::run([ 'nm', '-u', '-D', $so ], '>', \$out, '2>', \$err);
my @missing = grep { /\bslim_\w+/ } split /\n/, $out;
is(scalar(@missing), 0,
	'no slimheap function is left for the loader to find')
  or diag(join("\n", @missing));
like($out, qr/\bheap_form_tuple\b/,
	'nm read the module (it calls the server\'s heap_form_tuple)');

done_testing();
