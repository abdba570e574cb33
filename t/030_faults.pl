#
# Faults: slimheap tables survive crashes and replicate like heap tables,
# and slimheap.verify() reports corrupted pages without crashing.
#
#   1. immediate shutdown while a COPY is streaming rows in,
#   2. immediate shutdown while an UPDATE that moves NULLs is half done,
#   3. immediate shutdown while VACUUM FULL rebuilds the indexes of the
#      rewritten table;
# after each restart every committed row is present with its values (a heap
# twin that received the same committed statements is the reference), the
# rows of the interrupted statement are absent, and verify() is clean.
#   4. a streaming standby that replayed all of it returns the same rows;
#   5. tuple headers overwritten in the relation file while the server is
#      stopped are reported by verify() at their block and offset (also
#      HEAP_HASVARWIDTH and HEAP_HASEXTERNAL cleared on rows that need
#      them), reading them does not crash the server, and pages of random
#      garbage are reported, not trusted.
#
use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run ();
use FindBin;
use lib $FindBin::RealBin;
use SlimheapTest;

my $primary = PostgreSQL::Test::Cluster->new('fault_primary');
# no data checksums: a page is damaged on disk below
$primary->init(allows_streaming => 1, no_checksums($primary));
$primary->append_conf(
	'postgresql.conf', q{
shared_preload_libraries = 'slimheap'
autovacuum = off
restart_after_crash = on
});
$primary->start;
$primary->safe_psql('postgres', 'CREATE EXTENSION slimheap');

# the standby starts from a backup taken before any of the workload
$primary->backup('before_workload');
my $standby = PostgreSQL::Test::Cluster->new('fault_standby');
$standby->init_from_backup($primary, 'before_workload', has_streaming => 1);
$standby->append_conf('postgresql.conf',
	"shared_preload_libraries = 'slimheap'\nautovacuum = off\n");
$standby->start;

# A wide sparse table: a key, a few dense columns, then 120 mostly-NULL
# ones, a fast default added once rows exist, and a TOASTable text.
my $cols = join(', ', map { "s$_ int" } 1 .. 120);
for my $am ('heap', 'slimheap')
{
	my $t = $am eq 'heap' ? 'ref' : 'slim';
	$primary->safe_psql(
		'postgres', qq{
CREATE TABLE $t (k int8 PRIMARY KEY, a int, b text, $cols) USING $am;
});
}

# the values of row $k: which columns are set depends on $k
sub row_sql
{
	my ($k) = @_;
	return "($k, "
	  . ($k % 3 == 0 ? 'NULL' : $k) . ', '
	  . ($k % 5 == 0 ? 'NULL' : "'b$k'") . ', '
	  . join(', ', map { ($k + $_) % 17 == 0 ? $k * $_ : 'NULL' } 1 .. 120) . ')';
}

# run the same statement on the reference and the slimheap table
sub both
{
	my ($sql) = @_;
	for my $t ('ref', 'slim')
	{
		(my $s = $sql) =~ s/\bTBL\b/$t/g;
		$primary->safe_psql('postgres', $s);
	}
	return;
}

both('INSERT INTO TBL VALUES ' . join(', ', map { row_sql($_) } 1 .. 2000));
both(q{ALTER TABLE TBL ADD COLUMN d int DEFAULT 7});
both(q{INSERT INTO TBL (k, a) SELECT g, g FROM generate_series(2001, 2500) g});
both(q{UPDATE TBL SET b = repeat(md5(k::text), 200) WHERE k % 97 = 0});

# the checks after each restart
sub same_as_reference
{
	my ($node, $what) = @_;
	my $diff = $node->safe_psql(
		'postgres', q{
SELECT (SELECT count(*) FROM (TABLE ref EXCEPT ALL TABLE slim) a) || ' ' ||
       (SELECT count(*) FROM (TABLE slim EXCEPT ALL TABLE ref) b) || ' ' ||
       (SELECT count(*) FROM slim)});
	my ($only_ref, $only_slim, $n) = split ' ', $diff;
	is("$only_ref $only_slim", '0 0',
		"$what: slimheap holds exactly the committed rows ($n rows)");
	my $problems = $node->safe_psql(
		'postgres', q{
SELECT string_agg(c.relname || ' ' || v.blkno || '/' || coalesce(v.offnum::text, '-') || ': ' || v.msg, E'\n')
  FROM pg_class c, LATERAL slimheap.verify(c.oid) v
 WHERE c.oid IN ('slim'::regclass, 'ref'::regclass,
                 (SELECT reltoastrelid FROM pg_class WHERE relname = 'slim'))});
	is($problems, '', "$what: verify() finds nothing");
	return;
}

# a psql running in the background, fed and read through IPC::Run
sub background_psql
{
	my ($node) = @_;
	my %s = (in => '', out => '', err => '');
	$s{h} = IPC::Run::start(
		[ 'psql', '-X', '-q', '-A', '-t', '-d', $node->connstr('postgres') ],
		'<', \$s{in}, '>', \$s{out}, '2>', \$s{err},
		IPC::Run::timeout($PostgreSQL::Test::Utils::timeout_default));
	return \%s;
}

# hand everything queued to psql
sub send_input
{
	my ($s) = @_;
	$s->{h}->pump while length $s->{in};
	return;
}

sub wait_for
{
	my ($node, $query, $what) = @_;
	$node->poll_query_until('postgres', $query)
	  or die "timed out waiting for $what";
	return;
}

sub crash_and_restart
{
	my ($sessions, $what) = @_;
	$primary->stop('immediate');
	for my $s (@$sessions)
	{
		eval { $s->{h}->finish; 1 } or eval { $s->{h}->kill_kill; 1 };
	}
	$primary->start;
	return;
}

# --- 1. immediate shutdown during COPY -----------------------------------
# COPY reads from psql's stdin; we send 5000 rows and then stop sending,
# which leaves the COPY waiting for more data when the server goes down.
# (Only the first 50 kB or so reach the server: psql and the pipe keep the
# rest.)
{
	my $copy = background_psql($primary);
	$copy->{in} .= "COPY slim (k, a, b, s1, s60, s120) FROM STDIN;\n";
	for my $k (100001 .. 105000)
	{
		$copy->{in} .= join("\t", $k, ($k % 2 ? $k : '\N'), "c$k",
			($k % 3 ? '\N' : 1), '\N', ($k % 7 ? '\N' : 120)) . "\n";
	}
	send_input($copy);
	wait_for($primary,
		q{SELECT coalesce(sum(tuples_processed), 0) >= 1000 FROM pg_stat_progress_copy},
		'COPY to process the rows sent');
	# 1000 rows processed: the multi-insert buffer (1000 rows) was flushed
	# to the pages at least once, and the COPY waits for more.  (15 counts
	# a row when it is read, after the flush its arrival triggers; 18
	# counts the rows of a batch when it is flushed, so rows still in the
	# buffer are not counted.)
	is($primary->safe_psql('postgres',
			q{SELECT count(*) FROM pg_stat_progress_copy WHERE relid = 'slim'::regclass}),
		'1', 'COPY is still running when the server is stopped');
	crash_and_restart([$copy]);
	same_as_reference($primary, 'after a crash during COPY');
	is($primary->safe_psql('postgres', 'SELECT count(*) FROM slim WHERE k > 100000'),
		'0', 'no row of the interrupted COPY is visible');
}

# --- 2. immediate shutdown during UPDATE ------------------------------------
# A committed UPDATE that moves NULLs first, then one that blocks on a row
# locked by another session after it has already rewritten the rows before
# that one.
both(q{UPDATE TBL SET a = NULL, s120 = k, d = NULL WHERE k % 4 = 1});
{
	my $locker = background_psql($primary);
	$locker->{in} .= "BEGIN;\nSELECT k FROM slim WHERE k = 1800 FOR UPDATE;\n";
	send_input($locker);
	$locker->{h}->pump until $locker->{out} =~ /1800/;

	my $updater = background_psql($primary);
	$updater->{in} .=
	  "UPDATE slim SET a = k * 2, b = NULL, s1 = NULL, s119 = 5, d = k;\n";
	send_input($updater);
	wait_for($primary,
		q{SELECT EXISTS (SELECT FROM pg_stat_activity WHERE query LIKE 'UPDATE slim%' AND wait_event_type = 'Lock')},
		'the UPDATE to wait for the locked row');
	crash_and_restart([ $locker, $updater ]);
	same_as_reference($primary, 'after a crash during UPDATE');
}

# --- 3. immediate shutdown during VACUUM FULL --------------------------------
# An expression index whose function waits on an advisory lock for one
# row: VACUUM FULL has written the new file and is rebuilding the indexes
# when the server goes down.
both(q{DELETE FROM TBL WHERE k % 10 = 3});
$primary->safe_psql(
	'postgres', q{
CREATE FUNCTION fault_gate(k int8) RETURNS int8 IMMUTABLE LANGUAGE plpgsql AS $$
BEGIN
  IF k = 1500 AND current_setting('fault.gate', true) = 'on' THEN
    PERFORM pg_advisory_lock(4242);
    PERFORM pg_advisory_unlock(4242);
  END IF;
  RETURN k;
END $$;
CREATE INDEX slim_gate ON slim (fault_gate(k));
});
{
	my $holder = background_psql($primary);
	$holder->{in} .= "SELECT pg_advisory_lock(4242);\n";
	send_input($holder);
	wait_for($primary,
		q{SELECT EXISTS (SELECT FROM pg_locks WHERE locktype = 'advisory' AND granted)},
		'the advisory lock');

	my $vacuum = background_psql($primary);
	$vacuum->{in} .= "SET fault.gate = on;\nVACUUM FULL slim;\n";
	send_input($vacuum);
	wait_for($primary,
		q{SELECT EXISTS (SELECT FROM pg_stat_activity WHERE query LIKE 'VACUUM FULL%' AND wait_event = 'advisory')},
		'VACUUM FULL to reach the index rebuild');
	my $phase = $primary->safe_psql('postgres',
		q{SELECT phase FROM pg_stat_progress_cluster});
	is($phase, 'rebuilding index',
		'VACUUM FULL has rewritten the table when the server is stopped');
	crash_and_restart([ $holder, $vacuum ]);
	same_as_reference($primary, 'after a crash during VACUUM FULL');

	# and the table still works: a VACUUM FULL that completes
	$primary->safe_psql('postgres', 'VACUUM FULL slim');
	same_as_reference($primary, 'after a completed VACUUM FULL');
}

# --- 4. the standby ------------------------------------------------------------
$primary->wait_for_catchup($standby);
my $rows_sql = q{SELECT md5(string_agg(s::text, E'\n' ORDER BY k)) FROM slim s};
is($standby->safe_psql('postgres', $rows_sql),
	$primary->safe_psql('postgres', $rows_sql),
	'the standby returns the same rows as the primary');
same_as_reference($standby, 'on the standby');

# --- 5. corruption ------------------------------------------------------------
# A table of fixed-width columns, so that heap's readers stay within the
# page whatever the header says, and the rows whose headers we overwrite.
$primary->safe_psql(
	'postgres', q{
CREATE TABLE bad (a int, b int8, c int) USING slimheap;
INSERT INTO bad SELECT g, CASE WHEN g % 3 <> 0 THEN g END,
                       CASE WHEN g % 2 = 0 THEN g END
  FROM generate_series(1, 40) g;
ALTER TABLE bad ADD COLUMN d int DEFAULT 5;
INSERT INTO bad (a, d) VALUES (41, NULL);
UPDATE bad SET a = 42 WHERE a = 41;
CREATE TABLE garbage (a int, t text) USING slimheap;
INSERT INTO garbage SELECT g, repeat('x', g % 300) FROM generate_series(1, 2000) g;
-- a short varlena, and an incompressible value moved to the TOAST table
CREATE TABLE flags (a int, b text) USING slimheap;
INSERT INTO flags VALUES (1, 'short'),
  (2, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 100) i));
CHECKPOINT;
});
is($primary->safe_psql('postgres', q{SELECT count(*) FROM slimheap.verify('flags')}),
	'0', 'the table whose flags get cleared is clean');
my %flags_ctid = map { my ($a, $b, $o) = split /\|/; ($a => [ $b, $o ]) } split /\n/,
  $primary->safe_psql('postgres',
	q{SELECT a, (ctid::text::point)[0]::int, (ctid::text::point)[1]::int FROM flags});
my $flags_file = $primary->data_dir . '/'
  . $primary->safe_psql('postgres', q{SELECT pg_relation_filepath('flags')});
is($primary->safe_psql('postgres', q{SELECT count(*) FROM slimheap.verify('bad')}),
	'0', 'the table to corrupt is clean');
my %ctid = map { my ($a, $b, $o) = split /\|/; ($a => [ $b, $o ]) } split /\n/,
  $primary->safe_psql('postgres',
	q{SELECT a, (ctid::text::point)[0]::int, (ctid::text::point)[1]::int FROM bad});
my $bad_file = $primary->data_dir . '/'
  . $primary->safe_psql('postgres', q{SELECT pg_relation_filepath('bad')});
my $garbage_file = $primary->data_dir . '/'
  . $primary->safe_psql('postgres', q{SELECT pg_relation_filepath('garbage')});
my $garbage_pages = $primary->safe_psql('postgres',
	q{SELECT pg_relation_size('garbage') / 8192});
$primary->stop;

open(my $fh, '+<:raw', $bad_file) or die "open $bad_file: $!";

# the byte offset in the file of the tuple at (block, offset)
sub tuple_pos
{
	my ($blk, $off) = @_;
	my $lp;
	seek($fh, $blk * 8192 + 24 + 4 * ($off - 1), 0);
	read($fh, $lp, 4);
	my $word = unpack('V', $lp);
	return ($blk * 8192 + ($word & 0x7fff), $word >> 17);
}

sub patch
{
	my ($pos, $bytes) = @_;
	seek($fh, $pos, 0);
	print $fh $bytes;
	return;
}

sub peek
{
	my ($pos, $len) = @_;
	my $bytes;
	seek($fh, $pos, 0);
	read($fh, $bytes, $len);
	return $bytes;
}

# header layout: t_infomask2 at 18, t_infomask at 20, t_hoff at 22
my %expect;
{
	# t_hoff that is not maximally aligned
	my ($pos) = tuple_pos(@{ $ctid{3} });
	patch($pos + 22, chr(27));
	$expect{ join('/', @{ $ctid{3} }) } = qr/t_hoff 27 is invalid/;

	# natts beyond the relation's
	($pos) = tuple_pos(@{ $ctid{5} });
	my $im2 = unpack('v', peek($pos + 18, 2));
	patch($pos + 18, pack('v', ($im2 & ~0x07ff) | 2000));
	$expect{ join('/', @{ $ctid{5} }) } = qr/number of attributes 2000 exceeds the relation's 4/;

	# the compressed-tail marker on a standard row: no tail follows its data
	($pos) = tuple_pos(@{ $ctid{7} });
	$im2 = unpack('v', peek($pos + 18, 2));
	patch($pos + 18, pack('v', $im2 | 0x0800));
	$expect{ join('/', @{ $ctid{7} }) } = qr/compressed tail is invalid: the tail header at byte \d+ runs past the row/;

	# HEAP_HASNULL cleared on a row with a NULL in the middle (6, NULL, 6):
	# the attributes no longer fit the data
	($pos) = tuple_pos(@{ $ctid{6} });
	my $im = unpack('v', peek($pos + 20, 2));
	is($im & 0x0001, 1, 'row 6 has a NULL bitmap');
	patch($pos + 20, pack('v', $im & ~0x0001));
	$expect{ join('/', @{ $ctid{6} }) } = qr/attribute 2 of length 8 .* extends past/;

	# a line pointer whose length runs past the page
	my ($blk, $off) = @{ $ctid{11} };
	seek($fh, $blk * 8192 + 24 + 4 * ($off - 1), 0);
	my $lp;
	read($fh, $lp, 4);
	my $word = unpack('V', $lp);
	patch($blk * 8192 + 24 + 4 * ($off - 1),
		pack('V', ($word & 0x1ffff) | (8000 << 17)));
	$expect{"$blk/$off"} = qr/line pointer to \d+\.\.\d+ lies outside/;

	# invariant T1: the new version of row 41/42 (stored with d = NULL
	# after d got its fast default) loses its last attribute, so that d
	# would read back as 5; the old version still stores d
	($pos) = tuple_pos(@{ $ctid{42} });
	$im2 = unpack('v', peek($pos + 18, 2));
	$im = unpack('v', peek($pos + 20, 2));
	is($im2 & 0x07ff, 4, 'the updated row stores all 4 attributes');
	patch($pos + 18, pack('v', ($im2 & ~0x07ff) | 1));
	patch($pos + 20, pack('v', $im & ~0x0001));
	$expect{ join('/', @{ $ctid{42} }) } = qr/invariant T1/;
}
close $fh;

# flags that say what the data holds, cleared: HEAP_HASVARWIDTH (0x0002) on
# the row with a short varlena, HEAP_HASEXTERNAL (0x0004) on the row whose
# value is in the TOAST table
my %flags_expect;
open($fh, '+<:raw', $flags_file) or die "open $flags_file: $!";
{
	my ($pos) = tuple_pos(@{ $flags_ctid{1} });
	my $im = unpack('v', peek($pos + 20, 2));
	is($im & 0x0002, 0x0002, 'the row with a varlena has HEAP_HASVARWIDTH');
	patch($pos + 20, pack('v', $im & ~0x0002));
	$flags_expect{ join('/', @{ $flags_ctid{1} }) } = qr/HEAP_HASVARWIDTH is not set/;

	($pos) = tuple_pos(@{ $flags_ctid{2} });
	$im = unpack('v', peek($pos + 20, 2));
	is($im & 0x0004, 0x0004, 'the toasted row has HEAP_HASEXTERNAL');
	patch($pos + 20, pack('v', $im & ~0x0004));
	$flags_expect{ join('/', @{ $flags_ctid{2} }) } = qr/HEAP_HASEXTERNAL is not set/;
}
close $fh;

# pages of garbage: everything after the page header replaced by random
# bytes (seeded, so the test is repeatable), and page 1 filled with 'A'
srand(20261130);
open(my $gh, '+<:raw', $garbage_file) or die "open $garbage_file: $!";
for my $blk (2 .. ($garbage_pages > 12 ? 12 : $garbage_pages - 1))
{
	# keep the page header and line pointers, scramble the tuples
	seek($gh, $blk * 8192 + 512, 0);
	print $gh join('', map { chr(int(rand(256))) } 1 .. 8192 - 512);
}
# and some pages with their line pointers scrambled too
for my $blk (13 .. ($garbage_pages > 24 ? 24 : $garbage_pages - 1))
{
	seek($gh, $blk * 8192 + 24, 0);
	print $gh join('', map { chr(int(rand(256))) } 1 .. 8192 - 24);
}
# line pointers of 0x41414141 redirect far beyond the page
seek($gh, 1 * 8192 + 24, 0);
print $gh 'A' x (8192 - 24);
close $gh;

$primary->start;
my $report = $primary->safe_psql('postgres',
	q{SELECT blkno || '/' || offnum || ' ' || msg FROM slimheap.verify('bad') ORDER BY 1});
note($report);
for my $at (sort keys %expect)
{
	like($report, qr/^\Q$at\E .*$expect{$at}/m, "verify reports the corruption at $at");
}
my %reported = map { (split ' ')[0] => 1 } split /\n/, $report;
is(scalar(keys %reported), scalar(keys %expect),
	'verify reports the corrupted tuples and nothing else');

my $flags_report = $primary->safe_psql('postgres',
	q{SELECT blkno || '/' || offnum || ' ' || msg FROM slimheap.verify('flags') ORDER BY 1});
note($flags_report);
for my $at (sort keys %flags_expect)
{
	like($flags_report, qr/^\Q$at\E .*$flags_expect{$at}/m,
		"verify reports the cleared flag at $at");
}
my @flags_lines = split /\n/, $flags_report;
is(scalar(@flags_lines), scalar(keys %flags_expect),
	'verify reports the cleared flags and nothing else');

# reading the corrupted table may return garbage or fail, but must not
# take the server down
my ($ret, $stdout, $stderr) =
  $primary->psql('postgres', 'SELECT * FROM bad');
note("SELECT * FROM bad: exit $ret; $stderr");
($ret, $stdout, $stderr) =
  $primary->psql('postgres', 'SELECT count(*), sum(a), sum(d) FROM bad');
note("SELECT sum FROM bad: exit $ret; $stderr");
is($primary->safe_psql('postgres', 'SELECT 1'), '1',
	'the server survived reading the corrupted tuples');
unlike(slurp_file($primary->logfile), qr/terminated by signal/,
	'no server process crashed');

my $garbage_report = $primary->safe_psql('postgres',
	q{SELECT count(*) || ' ' || count(DISTINCT blkno) FROM slimheap.verify('garbage')});
my ($nproblems, $npages) = split ' ', $garbage_report;
cmp_ok($nproblems, '>', 0, "verify reports problems on pages of garbage ($nproblems)");
cmp_ok($npages, '>=', 20, "verify reports them on the scrambled pages ($npages pages)");
is($primary->safe_psql('postgres', 'SELECT 1'), '1',
	'the server survived verify on pages of garbage');

$standby->stop;
$primary->stop;
done_testing();
