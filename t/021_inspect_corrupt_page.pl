
# Copyright (c) slimheap contributors
#
# slimheap.page_items() trusts nothing on a page: damaged line pointers and
# tuple headers are reported in its "problem" column, and a page of random
# bytes behind a valid page header is listed without crashing the server.
# slimheap.stats() refuses a damaged page with an error.  A standard row on
# which the compressed-tail marker (t_infomask2 bit 0x0800) is set is damaged
# too: the tail decoder finds no tail after its data.  A tail whose second
# header (after a first of encoding 0: stored NULLs end the tail,
# docs/fast-defaults.md) names encoding 0 is an error for the reader, not a
# row read without its tail's values.
#
# A row whose header is sound but whose value is not (a varlena header that
# claims half a gigabyte) is refused by stats() and estimate() too, on a
# slimheap and on a heap table: they check each row's values with verify()'s
# bounds checks before they deform it, and never copy from beyond the page.
#
# The pages are edited in the relation's file while the server is stopped
# (no data checksums: SlimheapTest::no_checksums).

use strict;
use warnings;

use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib $FindBin::RealBin;
use SlimheapTest;

my $node = PostgreSQL::Test::Cluster->new('corrupt');
$node->init(no_checksums($node));
$node->append_conf(
	'postgresql.conf', qq{
shared_preload_libraries = 'slimheap'
autovacuum = off
});
$node->start;
$node->safe_psql(
	'postgres', q{
CREATE EXTENSION slimheap;
CREATE TABLE t (c1 int4, c2 int4, c3 int4, c4 int4, c5 int4, c6 int4,
	c7 int4, c8 int4, c9 int4, c10 int4, c11 int4, c12 int4) USING slimheap;
-- page 0: eight rows of three stored attributes (36 bytes each)
INSERT INTO t (c1, c2, c3) SELECT g, g, g FROM generate_series(1, 8) g;
});
# fill page 0 and start page 1
$node->safe_psql('postgres',
	'INSERT INTO t (c1, c2, c3) SELECT g, g, g FROM generate_series(9, 250) g'
);
is($node->safe_psql('postgres', "SELECT pg_relation_size('t') / 8192"),
	'2', 'the table has two pages');

# a one-row table whose standard row will carry the compressed-tail marker;
# 9 columns, so that its row is truncated after c1 (a table of at most 8
# attributes stores heap's full form in every mode, docs/narrow-slot.md)
$node->safe_psql(
	'postgres', q{
CREATE TABLE t_tail (c1 int4, c2 int4, c3 int4, c4 int4, c5 int4, c6 int4,
	c7 int4, c8 int4, c9 int4) USING slimheap;
INSERT INTO t_tail (c1) VALUES (1);
});

# a compress row with a tail that ends with stored NULLs (c1 and c50 set,
# d, a column with a fast default, NULL: the prefix is c1 .. c8, 4 bytes of
# data, then the tail header, whose encoding 0 says a second header follows:
# docs/fast-defaults.md); that second header will name encoding 0 too, no
# form of this version's
$node->safe_psql('postgres',
	'CREATE TABLE t_enc (' . join(', ', map { "c$_ int4" } 1 .. 100)
	  . ") USING slimheap WITH (slimheap.null_bitmap = compress);
ALTER TABLE t_enc ADD COLUMN d int DEFAULT 5;
INSERT INTO t_enc (c1, c50, d) VALUES (1, 50, NULL);");
is($node->safe_psql('postgres', 'SELECT c1, c50, d FROM t_enc'), '1|50|',
	't_enc\'s row reads its stored NULL of d, not the default');
is($node->safe_psql('postgres', "SELECT form FROM slimheap.page_items('t_enc', 0)"),
	'tail', 't_enc\'s row has a tail');

# one row each whose text value's 4-byte varlena header will claim 536870911
# bytes; a second row stays intact
$node->safe_psql(
	'postgres', q{
CREATE TABLE c (a int4, t text, b int4) USING slimheap;
INSERT INTO c VALUES (1, repeat('x', 200), NULL), (2, repeat('y', 200), NULL);
CREATE TABLE h (a int4, t text, b int4) USING heap;
INSERT INTO h SELECT * FROM c;
});

my $datadir = $node->data_dir;
my %varlena_path = map {
	$_ => $node->safe_psql('postgres', "SELECT pg_relation_filepath('$_')")
} qw(c h);
my $relpath = $node->safe_psql('postgres', "SELECT pg_relation_filepath('t')");
my $tailpath =
  $node->safe_psql('postgres', "SELECT pg_relation_filepath('t_tail')");
my $encpath =
  $node->safe_psql('postgres', "SELECT pg_relation_filepath('t_enc')");
$node->stop;

my $BLCKSZ = 8192;
open(my $fh, '+<', "$datadir/$relpath") or die "open $relpath: $!";
binmode $fh;
my $page0;
sysseek($fh, 0, 0);
sysread($fh, $page0, $BLCKSZ) == $BLCKSZ or die "short read";

# line pointer n (1-based): lp_off 15 bits, lp_flags 2 bits, lp_len 15 bits
sub get_lp
{
	my ($page, $n) = @_;
	my $v = unpack('V', substr($page, 24 + 4 * ($n - 1), 4));
	return ($v & 0x7fff, ($v >> 15) & 3, $v >> 17);
}

sub set_lp
{
	my ($page, $n, $off, $flags, $len) = @_;
	substr($$page, 24 + 4 * ($n - 1), 4) =
	  pack('V', ($off & 0x7fff) | (($flags & 3) << 15) | (($len & 0x7fff) << 17));
	return;
}

# header fields of the tuple of line pointer n
sub tuple_off { my ($page, $n) = @_; return (get_lp($page, $n))[0]; }

sub set_u16
{
	my ($page, $pos, $val) = @_;
	substr($$page, $pos, 2) = pack('v', $val);
	return;
}

sub get_u16 { my ($page, $pos) = @_; return unpack('v', substr($page, $pos, 2)); }

# lp 1: intact
# lp 2: points past the end of the page
set_lp(\$page0, 2, 8100, 1, 500);
# lp 3: shorter than a tuple header
my ($off3) = get_lp($page0, 3);
set_lp(\$page0, 3, $off3, 1, 10);
# lp 4: t_hoff beyond the item (t_hoff is byte 22 of the header)
substr($page0, tuple_off($page0, 4) + 22, 1) = chr(200);
# lp 5: the compressed-tail marker in t_infomask2 (bytes 18-19)
my $im2 = tuple_off($page0, 5) + 18;
set_u16(\$page0, $im2, get_u16($page0, $im2) | 0x0800);
# lp 6: natts 2000, more than the table's 12 attributes
my $im2_6 = tuple_off($page0, 6) + 18;
set_u16(\$page0, $im2_6, (get_u16($page0, $im2_6) & ~0x07ff) | 2000);
# lp 7: HEAP_HASNULL (t_infomask 0x0001, bytes 20-21) with natts 12 needs
# two bitmap bytes, which do not fit before t_hoff 24
my $tup7 = tuple_off($page0, 7);
set_u16(\$page0, $tup7 + 20, get_u16($page0, $tup7 + 20) | 0x0001);
set_u16(\$page0, $tup7 + 18, (get_u16($page0, $tup7 + 18) & ~0x07ff) | 12);
# lp 8: an item offset that is not MAXALIGNed
my ($off8, $flags8, $len8) = get_lp($page0, 8);
set_lp(\$page0, 8, $off8 + 3, $flags8, $len8);

sysseek($fh, 0, 0);
syswrite($fh, $page0, $BLCKSZ) == $BLCKSZ or die "short write";

# page 1: a valid header (pd_lower = 24 + 4 * 60, pd_upper = pd_lower,
# pd_special = 8192, page size and layout version 4) over random bytes
srand(20241130);
my $page1 = join('', map { chr(int(rand(256))) } 1 .. $BLCKSZ);
substr($page1, 0, 24) =
  pack('V V v v v v v v V', 0, 0, 0, 0, 24 + 4 * 60, 24 + 4 * 60, 8192,
	8192 | 4, 0);
sysseek($fh, $BLCKSZ, 0);
syswrite($fh, $page1, $BLCKSZ) == $BLCKSZ or die "short write";
close($fh);

open($fh, '+<', "$datadir/$tailpath") or die "open $tailpath: $!";
binmode $fh;
my $tailpage;
sysread($fh, $tailpage, $BLCKSZ) == $BLCKSZ or die "short read";
my $im2_tail = tuple_off($tailpage, 1) + 18;
set_u16(\$tailpage, $im2_tail, get_u16($tailpage, $im2_tail) | 0x0800);
sysseek($fh, 0, 0);
syswrite($fh, $tailpage, $BLCKSZ) == $BLCKSZ or die "short write";
close($fh);

# t_enc, row 1: the second tail header's encoding bits (the low two of its
# first byte, after t_hoff, c1's 4 bytes and the first header's 2 bytes)
# set to 0
open($fh, '+<', "$datadir/$encpath") or die "open $encpath: $!";
binmode $fh;
my $encpage;
sysread($fh, $encpage, $BLCKSZ) == $BLCKSZ or die "short read";
my $enc_tup = tuple_off($encpage, 1);
my $enc_first = $enc_tup + ord(substr($encpage, $enc_tup + 22, 1)) + 4;
is(ord(substr($encpage, $enc_first, 1)) & 3, 0,
	"t_enc's first tail header says a second one follows");
my $enc_at = $enc_first + 2;
isnt(ord(substr($encpage, $enc_at, 1)) & 3, 0, "t_enc's second tail header names an encoding");
substr($encpage, $enc_at, 1) = chr(ord(substr($encpage, $enc_at, 1)) & ~3 & 0xff);
sysseek($fh, 0, 0);
syswrite($fh, $encpage, $BLCKSZ) == $BLCKSZ or die "short write";
close($fh);

# c and h, row 1: the text value's header (after t_hoff and the int4) set to
# fc ff ff 7f, a 4-byte varlena of 0x1fffffff bytes
for my $rel (qw(c h))
{
	open($fh, '+<', "$datadir/$varlena_path{$rel}")
	  or die "open $varlena_path{$rel}: $!";
	binmode $fh;
	my $page;
	sysread($fh, $page, $BLCKSZ) == $BLCKSZ or die "short read";
	my $tup = tuple_off($page, 1);
	my $hoff = ord(substr($page, $tup + 22, 1));
	is( unpack('V', substr($page, $tup + $hoff + 4, 4)),
		204 << 2, "$rel: row 1 stores a 4-byte varlena header after the int4");
	substr($page, $tup + $hoff + 4, 4) = pack('C4', 0xfc, 0xff, 0xff, 0x7f);
	sysseek($fh, 0, 0);
	syswrite($fh, $page, $BLCKSZ) == $BLCKSZ or die "short write";
	close($fh);
}

$node->start;

my $items = $node->safe_psql('postgres',
	    "SELECT lp, lp_flags, coalesce(form, '-'), coalesce(problem, '-') "
	  . "FROM slimheap.page_items('t', 0) WHERE lp <= 8 ORDER BY lp");
note("page 0 as page_items() sees it:\n$items");
my %row = map { my @f = split /\|/; ($f[0] => \@f) } split /\n/, $items;

is($row{1}[2], 'truncated', 'an intact row keeps its form');
is($row{1}[3], '-', 'an intact row has no problem');
is($row{2}[3], 'item lies outside the page', 'item past the page end');
is($row{3}[3], 'item is shorter than a tuple header', 'item too short');
is($row{4}[3], 't_hoff lies outside the item', 't_hoff beyond the item');
like(
	$row{5}[3],
	qr/^the tail header at byte 12 runs past the row's 12 data bytes$/,
	'the compressed-tail marker on a standard row is a problem');
is($row{6}[3], "natts exceeds the table's attributes", 'natts too large');
is($row{7}[3], 'NULL bitmap runs past t_hoff', 'bitmap overlaps the data');
is($row{8}[3], 'item is not MAXALIGNed', 'unaligned item');
for my $lp (2, 3, 4, 5, 6, 7, 8)
{
	is($row{$lp}[2], '-', "no form is claimed for damaged item $lp");
}

is( $node->safe_psql('postgres',
		"SELECT count(*) FROM slimheap.page_items('t', 1)"),
	'60',
	'a page of random bytes lists its 60 line pointers');
is( $node->safe_psql('postgres',
		"SELECT count(*) FROM slimheap.page_items('t', 1) WHERE form IS NOT NULL AND problem IS NOT NULL"
	),
	'0',
	'no item gets both a form and a problem');

my ($ret, $stdout, $stderr) =
  $node->psql('postgres', "SELECT live_rows FROM slimheap.stats('t')");
isnt($ret, 0, 'stats() fails on the damaged page');
like(
	$stderr,
	qr/line pointer \(0,2\) of relation "t" is corrupted/,
	'stats() names the damaged line pointer');

is( $node->safe_psql('postgres',
		"SELECT coalesce(form, '-'), natts, problem IS NOT NULL FROM slimheap.page_items('t_tail', 0)"),
	'-|1|t',
	'page_items() reports the marked row as damaged');
($ret, $stdout, $stderr) =
  $node->psql('postgres', "SELECT live_rows FROM slimheap.stats('t_tail')");
isnt($ret, 0, 'stats() does not guess the size of a marked row');
like(
	$stderr,
	qr/row \(0,1\) of relation "t_tail" is corrupted\nDETAIL:  slimheap.verify\(\) reports: compressed tail is invalid: the tail header/,
	'stats() says why');

# a tail of an encoding this version does not know: an error, never a
# row read without its tail's values; verify() says which
($ret, $stdout, $stderr) = $node->psql('postgres', 'SELECT c1, c50 FROM t_enc');
isnt($ret, 0, 'a second tail header naming encoding 0 is not read');
like($stderr,
	qr/ERROR:  a row's compressed tail has a form this version of slimheap does not read/,
	'the reader says so');
like($node->safe_psql('postgres', "SELECT msg FROM slimheap.verify('t_enc')"),
	qr/unknown tail encoding 0 in the second tail header/, 'and verify() names it');

# the damaged value: verify() names it, stats() and estimate() refuse it
is( $node->safe_psql('postgres',
		"SELECT blkno, offnum, msg FROM slimheap.verify('c')"),
	"0|1|attribute 2: varlena of 536870911 bytes extends past the end of the tuple (204 bytes left)",
	'verify() reports the varlena that runs past its row');
($ret, $stdout, $stderr) =
  $node->psql('postgres', "SELECT live_rows FROM slimheap.stats('c')");
isnt($ret, 0, 'stats() does not deform the row with the damaged varlena');
like(
	$stderr,
	qr/ERROR:  row \(0,1\) of relation "c" is corrupted\nDETAIL:  slimheap.verify\(\) reports: attribute 2: varlena of 536870911 bytes extends past the end of the tuple/,
	'stats() names the row and says what verify() says');
for my $rel (qw(c h))
{
	for my $sample ('NULL', '1', 'DEFAULT')
	{
		my $args = $sample eq 'DEFAULT' ? "'$rel'" : "'$rel', $sample";
		($ret, $stdout, $stderr) = $node->psql('postgres',
			"SELECT mode, projected_bytes FROM slimheap.estimate($args)");
		isnt($ret, 0, "estimate($args) refuses the damaged row");
		like(
			$stderr,
			qr/ERROR:  row \(0,1\) of relation "$rel" is corrupted\nDETAIL:  slimheap.verify\(\) reports: attribute 2: varlena of 536870911 bytes/,
			"estimate($args) names the row");
	}
}
($ret, $stdout, $stderr) =
  $node->psql('postgres', "SELECT * FROM slimheap.estimate('t', NULL)");
like(
	$stderr,
	qr/line pointer \(0,2\) of relation "t" is corrupted/,
	'estimate() refuses a damaged line pointer as stats() does');

is($node->safe_psql('postgres', 'SELECT 1'),
	'1', 'the server is still up');

$node->stop;
done_testing();
