# Copyright (c) slimheap contributors
#
# slimheap.estimate() takes the same memory whatever the table and the
# sample: it packs each row as it reads it and keeps nothing per row or per
# block.  Measured as the backend's peak resident set (VmHWM of
# /proc/<pid>/status, reset through /proc/<pid>/clear_refs; the suite runs
# on Linux), which counts the shared buffers a backend touches as well: a
# 1-million-row sample, the largest sample and a full scan of a
# 2-million-row table each stay within a budget the size of the default
# work_mem (4 MB), where keeping 12 bytes a row would take 12 to 24 MB.
# sample_rows past the largest sample (10 million) is an error.

use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $BUDGET_KB = 4096;

my $node = slim_node('memory');
$node->start;
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION slimheap;
CREATE TABLE big (a int4) USING heap;
INSERT INTO big SELECT g FROM generate_series(1, 2000000) g;
VACUUM big;
});
# the table's pages out of shared_buffers: the estimate reads them through
# its ring of buffers, so the peak counts the shared memory it touches too
$node->restart;

# each call in one session: warm up, reset the peak, estimate, read the peak
for my $sample ('1000000', '10000000', 'NULL')
{
	my $out = $node->safe_psql(
		'postgres', qq{
SELECT count(*) FROM slimheap.estimate('big', 100);
COPY (SELECT 5) TO '/proc/self/clear_refs';
SELECT substring(pg_read_file('/proc/self/status') from 'VmHWM:\\s+(\\d+)')::int AS hwm \\gset
SELECT sampled_rows || ' rows, ' || sampled_pages || ' pages, full_scan=' || full_scan
  FROM slimheap.estimate('big', $sample) WHERE mode = 'truncate';
SELECT substring(pg_read_file('/proc/self/status') from 'VmHWM:\\s+(\\d+)')::int - :hwm;
});
	my (undef, $what, $growth) = split /\n/, $out;
	note("sample_rows $sample: $what, peak grew by $growth kB");
	cmp_ok($growth, '<', $BUDGET_KB,
		"estimate('big', $sample) stays within $BUDGET_KB kB");
}

my ($ret, $stdout, $stderr) = $node->psql('postgres',
	"SELECT * FROM slimheap.estimate('big', 2147483647)");
like(
	$stderr,
	qr/ERROR:  sample_rows 2147483647 is too large/,
	'an absurd sample_rows is refused');

$node->stop;
done_testing();
