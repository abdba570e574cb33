#
# SlimFuzz::Gen: random schemas and random step lists, fully determined by
# a seed.
#
# A step is SQL text in which "@T" stands for the table's name, so that the
# same step runs on the heap table and on its slimheap twin.  Steps are
# generated up front from a model of the schema (which columns exist, their
# types, defaults, NOT NULL, which indexes exist) that assumes every step
# succeeds; when the minimizer later replays a subset, a step may refer to a
# column that no longer exists, which fails the same way on both twins and
# is therefore harmless.
#
# Row size: a slimheap row can be smaller than heap's by the NULL bitmap, so
# a row just above heap's size limit would be stored by slimheap and refused
# by heap, a legitimate difference.  The model keeps every row well below
# the limit: in wide tables only a "dense" subset of the columns, whose
# worst-case width fits a budget, ever gets non-NULL values.
#
package SlimFuzz::Gen;

use strict;
use warnings;

# worst-case bytes of stored data a row may have (heap's limit is 8160
# including a header of at most 224 bytes)
use constant ROW_BUDGET => 6000;

# A TOASTable value counts as this much in the worst case: the toaster moves
# anything bigger out of line.
use constant VARLENA_WORST => 24;

# ---------------------------------------------------------------------------
# pseudo-random numbers: 32-bit xorshift, the same on every platform

sub _rng_seed
{
	my ($self, $seed) = @_;
	my $x = ($seed * 2654435761 + 0x9E3779B9) & 0xffffffff;
	$x = 0x1234567 if $x == 0;
	$self->{rng} = $x;
	$self->_next for 1 .. 8;
	return;
}

sub _next
{
	my ($self) = @_;
	my $x = $self->{rng};
	$x ^= ($x << 13) & 0xffffffff;
	$x ^= $x >> 17;
	$x ^= ($x << 5) & 0xffffffff;
	$self->{rng} = $x;
	return $x;
}

# uniform in [0, 1)
sub rand01 { my ($self) = @_; return $self->_next / 4294967296; }

# uniform integer in [lo, hi]
sub irand
{
	my ($self, $lo, $hi) = @_;
	return $lo + int($self->rand01 * ($hi - $lo + 1));
}

sub chance { my ($self, $p) = @_; return $self->rand01 < $p; }

sub pick { my ($self, @list) = @_; return $list[ $self->irand(0, $#list) ]; }

# pick by weight from (name => weight, ...)
sub wpick
{
	my ($self, @pairs) = @_;
	my $total = 0;
	for (my $i = 1; $i < @pairs; $i += 2) { $total += $pairs[$i]; }
	my $r = $self->rand01 * $total;
	for (my $i = 0; $i < @pairs; $i += 2)
	{
		return $pairs[$i] if ($r -= $pairs[ $i + 1 ]) < 0;
	}
	return $pairs[-2];
}

# ---------------------------------------------------------------------------
# types: SQL name, worst-case stored width (alignment padding included),
# value generator (returns the type's input text, without quotes), and the
# types an ALTER COLUMN ... TYPE may turn it into

my @WORDCHARS = ('a' .. 'z', 'A' .. 'Z', '0' .. '9', ' ', '-', '_', '.');

sub _str
{
	my ($g, $len) = @_;
	return join('', map { $WORDCHARS[ $g->irand(0, $#WORDCHARS) ] } 1 .. $len);
}

sub _text_value
{
	my ($g, $max) = @_;
	my $r = $g->rand01;
	return '' if $r < 0.05;
	return _str($g, $g->irand(1, $max // 30)) if $r < 0.95 || defined $max;
	# long values: compressible (stays inline, compressed) or not (TOASTed)
	return _str($g, 7) x $g->irand(300, 1200) if $r < 0.98;
	return _str($g, $g->irand(2100, 5000));
}

sub _date
{
	my ($g) = @_;
	return sprintf('%04d-%02d-%02d', $g->irand(1900, 2100), $g->irand(1, 12),
		$g->irand(1, 28));
}

sub _clock
{
	my ($g) = @_;
	return sprintf('%02d:%02d:%02d', $g->irand(0, 23), $g->irand(0, 59),
		$g->irand(0, 59));
}

our %TYPES = (
	int2 => { width => 3, gen => sub { $_[0]->irand(-32768, 32767) },
		alter => [qw(int4 int8 text)] },
	int4 => { width => 7, gen => sub { $_[0]->irand(-2000000000, 2000000000) },
		alter => [qw(int8 numeric text)] },
	int8 => { width => 15,
		gen => sub { $_[0]->irand(-2000000000, 2000000000) * $_[0]->irand(1, 4000000000) },
		alter => [qw(numeric text)] },
	float4 => { width => 7,
		gen => sub { my $g = shift; $g->chance(0.1) ? $g->pick('NaN', '-0', 'Infinity') : sprintf('%.2f', ($g->rand01 - 0.5) * 1e4) },
		alter => [qw(float8)] },
	float8 => { width => 15,
		gen => sub { my $g = shift; $g->chance(0.1) ? $g->pick('NaN', '-0', '-Infinity') : sprintf('%.6f', ($g->rand01 - 0.5) * 1e9) },
		alter => [qw(numeric text)] },
	numeric => { varlena => 1,
		gen => sub { my $g = shift; $g->chance(0.05) ? 'NaN' : $g->irand(-1e9, 1e9) . '.' . $g->irand(0, 99999) },
		alter => [qw(text)] },
	bool => { width => 1, gen => sub { $_[0]->pick('t', 'f') }, alter => [qw(text)] },
	text => { varlena => 1, gen => sub { _text_value($_[0]) }, alter => [] },
	'varchar(40)' => { varlena => 1, gen => sub { _text_value($_[0], 40) },
		alter => [qw(text)] },
	'char(5)' => { varlena => 1, gen => sub { _text_value($_[0], 5) },
		alter => [qw(text)] },
	bytea => { varlena => 1,
		gen => sub { my $g = shift; '\\x' . join('', map { sprintf('%02x', $g->irand(0, 255)) } 1 .. $g->irand(0, 40)) },
		alter => [] },
	date => { width => 7, gen => \&_date, alter => [qw(timestamp text)] },
	timestamp => { width => 15, gen => sub { _date($_[0]) . ' ' . _clock($_[0]) },
		alter => [qw(timestamptz)] },
	timestamptz => { width => 15, gen => sub { _date($_[0]) . ' ' . _clock($_[0]) . '+00' },
		alter => [] },
	time => { width => 15, gen => \&_clock, alter => [qw(interval)] },
	timetz => { width => 19, gen => sub { _clock($_[0]) . '+02' }, alter => [] },
	interval => { width => 23,
		gen => sub { my $g = shift; $g->irand(0, 400) . ' days ' . _clock($g) },
		alter => [qw(text)] },
	uuid => { width => 16,
		gen => sub { my $g = shift; join('-', map { join('', map { sprintf('%x', $g->irand(0, 15)) } 1 .. $_) } 8, 4, 4, 4, 12) },
		alter => [qw(text)] },
	'"char"' => { width => 1, gen => sub { $_[0]->pick('a' .. 'z') }, alter => [] },
	name => { width => 64, gen => sub { _str($_[0], $_[0]->irand(0, 40)) },
		alter => [qw(text)] },
	macaddr => { width => 9,
		gen => sub { my $g = shift; join(':', map { sprintf('%02x', $g->irand(0, 255)) } 1 .. 6) },
		alter => [qw(text)] },
	'int4[]' => { varlena => 1,
		gen => sub { my $g = shift; '{' . join(',', map { $g->chance(0.2) ? 'NULL' : $g->irand(-99, 99) } 1 .. $g->irand(0, 6)) . '}' },
		alter => [] },
	'text[]' => { varlena => 1,
		gen => sub { my $g = shift; '{' . join(',', map { join('', map { $g->pick('a' .. 'z') } 1 .. $g->irand(1, 8)) } 1 .. $g->irand(0, 4)) . '}' },
		alter => [] },
	jsonb => { varlena => 1,
		gen => sub { my $g = shift; '{"a": ' . $g->irand(0, 999) . ', "b": "' . _str($g, $g->irand(0, 10)) . '"}' },
		alter => [] },
);

# weights for new columns: the common types more often
my @TYPE_WEIGHTS = (
	int4 => 10, int8 => 6, int2 => 3, text => 10, 'varchar(40)' => 3,
	'char(5)' => 2, float8 => 4, float4 => 2, numeric => 3, bool => 4,
	bytea => 2, date => 3, timestamp => 2, timestamptz => 2, time => 1,
	timetz => 1, interval => 2, uuid => 2, '"char"' => 2, name => 1,
	macaddr => 1, 'int4[]' => 2, 'text[]' => 1, jsonb => 2);

sub worst_width
{
	my ($type) = @_;
	return $TYPES{$type}{varlena} ? VARLENA_WORST : $TYPES{$type}{width};
}

# SQL literal of a value of a type (the value is the type's input text)
sub literal { my ($v) = @_; return defined $v ? "'$v'" : 'NULL'; }

# COPY text format of a value
sub copy_text
{
	my ($v) = @_;
	return '\N' unless defined $v;
	$v =~ s/\\/\\\\/g;
	return $v;
}

# ---------------------------------------------------------------------------
# the model

sub new
{
	my ($class, $seed) = @_;
	my $self = bless { seed => $seed }, $class;
	$self->_rng_seed($seed);
	return $self;
}

sub _live_cols { my ($self) = @_; return grep { !$_->{dropped} } @{ $self->{cols} }; }

# live columns other than the key
sub _data_cols { my ($self) = @_; return grep { !$_->{key} } $self->_live_cols; }

sub _new_col
{
	my ($self, $type) = @_;
	my $col = { name => 'c' . ++$self->{colseq}, type => $type };
	my $w = worst_width($type);
	if ($self->{budget} + $w <= ROW_BUDGET)
	{
		$col->{dense} = 1;
		$self->{budget} += $w;
	}
	return $col;
}

sub _random_type { my ($self) = @_; return $self->wpick(@TYPE_WEIGHTS); }

# CREATE TABLE text for a random schema of 1 to 1600 columns
sub schema
{
	my ($self) = @_;
	my $r = $self->rand01;
	my $ncols =
	    $r < 0.50 ? $self->irand(1, 12)
	  : $r < 0.78 ? $self->irand(13, 100)
	  : $r < 0.92 ? $self->irand(101, 600)
	  :             $self->irand(601, 1600);

	$self->{cols} = [];
	$self->{colseq} = 0;
	$self->{budget} = 0;
	$self->{keyseq} = 0;
	$self->{keymoves} = 0;
	$self->{rows} = 0;
	$self->{indexes} = {};
	$self->{ncols_total} = $ncols;
	$self->{maxrows} = $ncols > 600 ? 40 : $ncols > 100 ? 120 : 400;

	my $keypos = $self->chance(0.5) ? 0 : $self->irand(0, $ncols - 1);
	my @defs;
	for my $i (0 .. $ncols - 1)
	{
		my $col;
		if ($i == $keypos)
		{
			$col = { name => 'k', type => 'int8', key => 1, dense => 1 };
			$self->{budget} += 15;
			push @defs, 'k int8' . ($self->chance(0.5) ? ' NOT NULL' : '');
		}
		else
		{
			$col = $self->_new_col($self->_random_type);
			my $def = "$col->{name} $col->{type}";
			if ($col->{dense} && $self->chance(0.12))
			{
				$col->{default} = $TYPES{ $col->{type} }{gen}->($self);
				$def .= ' DEFAULT ' . literal($col->{default});
			}
			if ($col->{dense} && $self->chance($ncols > 50 ? 0.02 : 0.1))
			{
				$col->{notnull} = 1;
				$def .= ' NOT NULL';
			}
			push @defs, $def;
		}
		push @{ $self->{cols} }, $col;
	}
	# the slimheap twin's slimheap.null_bitmap (truncate, full or compress);
	# compress tables keep a random number of leading columns in the
	# prefix (slimheap.prefix_columns) a third of the time
	my $draw = $self->rand01;
	$self->{mode} = $draw < 0.2 ? 'full' : $draw < 0.6 ? 'truncate' : 'compress';
	my $prefix = $self->_prefix_columns;
	return {
		ncols => $ncols,
		mode => $self->{mode},
		prefix => $prefix,
		sql => 'CREATE TABLE @T (' . join(', ', @defs) . ') USING @AM',
	};
}

# slimheap.prefix_columns for a switch to compress: undef (leave it) or a
# number of leading columns
sub _prefix_columns
{
	my ($self) = @_;
	return undef if $self->{mode} ne 'compress' || !$self->chance(0.33);
	return $self->irand(1, $self->{ncols_total} > 2 ? int($self->{ncols_total} / 2) : 1);
}

sub _value
{
	my ($self, $col) = @_;
	return $TYPES{ $col->{type} }{gen}->($self);
}

# One row: { colname => value or undef }, with a NULL pattern drawn from a
# few shapes, and the key.
sub _row
{
	my ($self, $pattern) = @_;
	my @cols = $self->_data_cols;
	my $n = @cols;
	my %row;
	my ($a, $b) = sort { $a <=> $b } ($self->irand(0, $n), $self->irand(0, $n));
	my $p = $self->pick(0.1, 0.5, 0.9);

	for my $i (0 .. $#cols)
	{
		my $col = $cols[$i];
		my $set;
		if    ($pattern eq 'allnull')  { $set = 0; }
		elsif ($pattern eq 'full')     { $set = 1; }
		elsif ($pattern eq 'trailing') { $set = $i < $a; }
		elsif ($pattern eq 'leading')  { $set = $i >= $a; }
		elsif ($pattern eq 'cluster')  { $set = ($i < $a || $i >= $b) && !$self->chance($p / 3); }
		else                           { $set = !$self->chance($p); }
		$set = 1 if $col->{notnull};
		$set = 0 unless $col->{dense};
		$row{ $col->{name} } = $set ? $self->_value($col) : undef;
	}
	$row{k} = ++$self->{keyseq};
	return \%row;
}

sub _pattern
{
	my ($self) = @_;
	return $self->wpick(random => 4, allnull => 2, trailing => 3,
		leading => 2, cluster => 2, full => 1);
}

sub _where
{
	my ($self) = @_;
	my $r = $self->rand01;
	if ($r < 0.75)
	{
		my $m = $self->irand(2, 7);
		return 'k % ' . $m . ' = ' . $self->irand(0, $m - 1);
	}
	my @cols = $self->_data_cols;
	return 'true' unless @cols;
	my $col = $self->pick(@cols);
	return "$col->{name} IS " . ($r < 0.9 ? '' : 'NOT ') . 'NULL';
}

# ---------------------------------------------------------------------------
# steps

sub _insert
{
	my ($self) = @_;
	my $nrows = $self->irand(1, $self->{ncols_total} > 300 ? 4 : 12);
	my @cols = $self->_live_cols;
	my @rows = map { $self->_row($self->_pattern) } 1 .. $nrows;

	# sometimes list only some columns, so that the others get their DEFAULT
	my @listed = @cols;
	if ($self->chance(0.3) || @cols > 200)
	{
		@listed = grep {
			my $c = $_;
			$c->{key} || $c->{notnull} || $self->chance(0.3)
			  || grep { defined $_->{ $c->{name} } } @rows
		} @cols;
	}
	my @vals = map {
		my $row = $_;
		'(' . join(', ', map {
			!defined $row->{ $_->{name} } && $self->chance(0.05)
			  ? 'DEFAULT' : literal($row->{ $_->{name} })
		} @listed) . ')'
	} @rows;
	$self->{rows} += $nrows;
	return 'INSERT INTO @T (' . join(', ', map { $_->{name} } @listed) . ') VALUES '
	  . join(', ', @vals);
}

sub _copy
{
	my ($self) = @_;
	my $nrows = $self->irand(1, $self->{ncols_total} > 300 ? 10 : 60);
	my @cols = $self->_live_cols;
	my @listed = @cols > 200
	  ? grep { $_->{key} || $_->{dense} || $self->chance(0.05) } @cols
	  : @cols;
	my $sql = 'COPY @T (' . join(', ', map { $_->{name} } @listed) . ") FROM STDIN;\n";
	for (1 .. $nrows)
	{
		my $row = $self->_row($self->_pattern);
		$sql .= join("\t", map { copy_text($row->{ $_->{name} }) } @listed) . "\n";
	}
	$self->{rows} += $nrows;
	return $sql . '\.';
}

sub _insert_select
{
	my ($self) = @_;
	my @cols = $self->_data_cols;
	my $base = $self->{keyseq};
	$self->{keyseq} += 100000;
	my $names = join('', map { ", $_->{name}" } @cols);
	$self->{rows} *= 1.5;
	return "INSERT INTO \@T (k$names) SELECT $base + row_number() OVER (ORDER BY k)$names FROM \@T WHERE "
	  . $self->_where;
}

sub _set_list
{
	my ($self) = @_;
	my @cols = grep { $_->{dense} } $self->_data_cols;
	return undef unless @cols;
	my $shape = $self->wpick(few => 6, allnull => 1, shift => 2, grow => 2);
	my @sets;
	if ($shape eq 'allnull')
	{
		@sets = map { "$_->{name} = NULL" } grep { !$_->{notnull} } @cols;
	}
	elsif ($shape eq 'shift' || $shape eq 'grow')
	{
		# move the NULLs: clear the leading part, fill the trailing one
		# ("shift"), or fill the last columns of a row ("grow")
		my $cut = $self->irand(0, $#cols);
		for my $i (0 .. $#cols)
		{
			next if $shape eq 'grow' && $i < $cut;
			next if $shape eq 'shift' && $self->chance(0.5);
			push @sets, "$cols[$i]{name} = "
			  . ($i < $cut && !$cols[$i]{notnull} ? 'NULL' : literal($self->_value($cols[$i])));
			last if @sets > 40;
		}
	}
	else
	{
		for (1 .. $self->irand(1, 6))
		{
			my $col = $self->pick(@cols);
			my $r = $self->rand01;
			# NOT NULL columns get a NULL now and then: the error must
			# be the same on both twins
			$r = 0.7 if $r < 0.5 && $col->{notnull} && !$self->chance(0.05);
			push @sets, "$col->{name} = "
			  . ($r < 0.5 ? 'NULL' : $r < 0.6 ? 'DEFAULT' : literal($self->_value($col)));
		}
	}
	my %seen;
	@sets = grep { my ($n) = /^(\S+)/; !$seen{$n}++ } @sets;
	return @sets ? join(', ', @sets) : undef;
}

sub _update
{
	my ($self) = @_;
	my $sets = $self->_set_list;
	if ((!defined $sets || $self->chance(0.15)) && $self->{keymoves} < 30)
	{
		# A new key (never a HOT update when k is indexed).  Keys start
		# below 1e9 and the i-th move adds 1e9 * 2^i, more than every key
		# now stored, so no new key equals an old one whatever order the
		# rows are updated in (a unique index would otherwise fail on
		# one twin and not the other, depending on the scan order).
		$sets = 'k = k + ' . (1000000000 * (1 << $self->{keymoves}++))
		  . (defined $sets ? ", $sets" : '');
	}
	return undef unless defined $sets;
	return "UPDATE \@T SET $sets WHERE " . $self->_where;
}

sub _delete
{
	my ($self) = @_;
	$self->{rows} *= 0.6;
	return 'DELETE FROM @T WHERE ' . $self->_where;
}

sub _upsert
{
	my ($self) = @_;
	if (!$self->{indexes}{k})
	{
		# ON CONFLICT (k) needs the unique index
		$self->{indexes}{k} = 1;
		return 'CREATE UNIQUE INDEX @T_k ON @T (k)';
	}
	my @cols = grep { $_->{dense} } $self->_data_cols;
	my $row = $self->_row($self->_pattern);
	# an existing key, most of the time
	$row->{k} = $self->irand(1, $self->{keyseq}) if $self->chance(0.7);
	my @listed = (grep({ $_->{key} } $self->_live_cols),
		grep { $_->{notnull} || defined $row->{ $_->{name} } } @cols);
	my $sql = 'INSERT INTO @T (' . join(', ', map { $_->{name} } @listed)
	  . ') VALUES (' . join(', ', map { literal($row->{ $_->{name} }) } @listed)
	  . ') ON CONFLICT (k) DO ';
	my $sets = $self->_set_list;
	return $sql . 'NOTHING' if !defined $sets || $self->chance(0.3);
	return $sql . "UPDATE SET $sets";
}

sub _dml
{
	my ($self) = @_;
	my $kind = $self->wpick(insert => 4, update => 4, delete => 2, copy => 1);
	return $kind eq 'insert' ? $self->_insert
	  : $kind eq 'update' ? $self->_update
	  : $kind eq 'delete' ? $self->_delete
	  : $self->_copy;
}

# a statement followed by what ends it (COPY data ends with its own line)
sub _stmt
{
	my ($sql) = @_;
	return $sql =~ /\\\.\z/ ? "$sql\n" : "$sql;\n";
}

sub _transaction
{
	my ($self) = @_;
	my $r = $self->rand01;
	if ($r < 0.4)
	{
		return "BEGIN;\n" . _stmt($self->_dml) . _stmt($self->_dml) . "ROLLBACK";
	}
	if ($r < 0.7)
	{
		return "BEGIN;\n" . _stmt($self->_dml) . "SAVEPOINT s1;\n"
		  . _stmt($self->_dml) . "ROLLBACK TO SAVEPOINT s1;\n"
		  . _stmt($self->_dml) . "COMMIT";
	}
	if ($r < 0.85)
	{
		# row locks leave lock-only xmax bits (and KEYS_UPDATED for FOR
		# UPDATE) on the rows, which verify must accept
		my $strength = $self->pick('UPDATE', 'NO KEY UPDATE', 'SHARE', 'KEY SHARE');
		return "BEGIN;\nSELECT count(*) FROM (SELECT 1 FROM \@T WHERE "
		  . $self->_where . " FOR $strength) x;\n" . _stmt($self->_dml) . "COMMIT";
	}
	return "BEGIN;\n" . _stmt($self->_dml) . _stmt($self->_dml) . "COMMIT";
}

sub _add_column
{
	my ($self) = @_;
	return undef if $self->{colseq} + 1 >= 1600;
	my $col = $self->_new_col($self->_random_type);
	my $sql = "ALTER TABLE \@T ADD COLUMN $col->{name} $col->{type}";
	my $r = $self->rand01;
	if ($col->{dense} && $r < 0.55)
	{
		# a constant default: stored as the column's missing value
		$col->{default} = $self->_value($col);
		$sql .= ' DEFAULT ' . literal($col->{default});
		if ($self->chance(0.15))
		{
			$sql .= ' NOT NULL';
			$col->{notnull} = 1;
		}
	}
	elsif ($r < 0.65)
	{
		$sql .= ' DEFAULT NULL';
	}
	push @{ $self->{cols} }, $col;
	return $sql;
}

sub _drop_column
{
	my ($self) = @_;
	my @cols = $self->_data_cols;
	return undef unless @cols;
	my $col = $self->pick(@cols);
	$col->{dropped} = 1;
	return "ALTER TABLE \@T DROP COLUMN $col->{name}";
}

sub _alter_type
{
	my ($self) = @_;
	my @cols = grep { @{ $TYPES{ $_->{type} }{alter} } } $self->_data_cols;
	return undef unless @cols;
	my $col = $self->pick(@cols);
	my $to = $self->pick(@{ $TYPES{ $col->{type} }{alter} });
	if ($col->{dense})
	{
		my $grow = worst_width($to) - worst_width($col->{type});
		return undef if $self->{budget} + $grow > ROW_BUDGET;
		$self->{budget} += $grow;
	}
	my $sql = "ALTER TABLE \@T ALTER COLUMN $col->{name} TYPE $to USING $col->{name}::$to";
	$col->{type} = $to;
	delete $col->{default};
	# an ALTER that rewrites and adds a column at once
	if ($self->chance(0.2))
	{
		my $add = $self->_add_column;
		$add =~ s/^ALTER TABLE \@T // if defined $add;
		$sql .= ", $add" if defined $add;
	}
	return $sql;
}

sub _set_default
{
	my ($self) = @_;
	my @cols = grep { $_->{dense} } $self->_data_cols;
	return undef unless @cols;
	my $col = $self->pick(@cols);
	if ($self->chance(0.3))
	{
		delete $col->{default};
		return "ALTER TABLE \@T ALTER COLUMN $col->{name} DROP DEFAULT";
	}
	$col->{default} = $self->_value($col);
	return "ALTER TABLE \@T ALTER COLUMN $col->{name} SET DEFAULT " . literal($col->{default});
}

sub _index
{
	my ($self) = @_;
	my $idx = $self->{indexes};
	if (!$idx->{k} && $self->chance(0.6))
	{
		$idx->{k} = 1;
		return 'CREATE UNIQUE INDEX @T_k ON @T (k)';
	}
	if (keys %$idx && $self->chance(0.3))
	{
		my $name = $self->pick(sort keys %$idx);
		delete $idx->{$name};
		return "DROP INDEX \@T_$name";
	}
	my @cols = $self->_data_cols;
	return undef unless @cols;
	my $col = $self->pick(@cols);
	my $name = 'i' . $self->irand(1, 1000000);
	$idx->{$name} = 1;
	# a column read as key, INCLUDE column and predicate, or expression:
	# each is in the per-row floor of the rows that hold a value there
	my $kind = $self->irand(1, 3);
	return "CREATE INDEX \@T_$name ON \@T ($col->{name})" if $kind == 1;
	return "CREATE INDEX \@T_$name ON \@T (k) INCLUDE ($col->{name}) WHERE $col->{name} IS NOT NULL"
	  if $kind == 2;
	return "CREATE INDEX \@T_$name ON \@T (($col->{name} IS NULL), k)";
}

# An index build (plain, CONCURRENTLY, UNIQUE) that other sessions watch
# (SlimFuzz::_observed): a write, then the build, while a REPEATABLE READ
# transaction taken before the write reads both twins; sometimes an event
# trigger at the build's end updates the table.
sub _observed_build
{
	my ($self) = @_;
	my @cols = $self->_data_cols;
	return undef unless @cols;
	my $col = $self->pick(@cols);
	my $name = 'o' . $self->irand(1, 1000000);
	my $kind = $self->pick('', 'CONCURRENTLY ', 'UNIQUE ', 'UNIQUE CONCURRENTLY ');
	my $unique = $kind =~ /UNIQUE/ ? 'UNIQUE ' : '';
	my $concurrently = $kind =~ /CONCURRENTLY/ ? 'CONCURRENTLY ' : '';
	my $write = $self->_update // $self->_insert;
	my $trigger = $self->chance(0.4) ? $self->_update : undef;
	$self->{indexes}{$name} = 1;
	return {
		observed => 1,
		write => $write,
		sql => "CREATE ${unique}INDEX $concurrently\@T_$name ON \@T ($col->{name})",
		trigger => $trigger,
		probe => $self->_probe,
	};
}

# Row locks leave lock-only xmax bits on the rows (with HEAP_KEYS_UPDATED
# for FOR UPDATE), which later steps update, prune or freeze.
sub _lock
{
	my ($self) = @_;
	my $strength = $self->pick('UPDATE', 'NO KEY UPDATE', 'SHARE', 'KEY SHARE');
	return 'SELECT count(*) FROM (SELECT 1 FROM @T WHERE ' . $self->_where
	  . " FOR $strength) x";
}

# A query whose output is compared between the twins: reads single
# attributes (heap_getattr paths), with index, bitmap or sequential scans.
sub _probe
{
	my ($self) = @_;
	my @cols = $self->_data_cols;
	my @pick = map { $self->pick(@cols) } 1 .. (@cols ? $self->irand(1, 3) : 0);
	my $list = join('', map { ", $_->{name}" } @pick);
	my $where = $self->chance(0.5) ? 'k BETWEEN ' . $self->irand(0, $self->{keyseq}) . ' AND '
	  . $self->irand(0, 2 * $self->{keyseq}) : $self->_where;
	# JIT-compiled deforming too, where the server has JIT
	my $scan = $self->pick('', 'SET enable_seqscan = off; ',
		'SET enable_seqscan = off; SET enable_indexscan = off; ',
		'SET jit_above_cost = 0; SET jit_optimize_above_cost = 0; ');
	return $scan . "SELECT count(*), md5(string_agg(x::text, ',' ORDER BY x::text)) FROM (SELECT k$list FROM \@T WHERE $where) x;\n"
	  . 'RESET enable_seqscan; RESET enable_indexscan; RESET jit_above_cost; RESET jit_optimize_above_cost';
}

sub _maintenance
{
	my ($self) = @_;
	my $kind = $self->wpick(vacuum => 3, freeze => 1, full => 3, cluster => 2,
		analyze => 1, truncate => 0.3);
	if ($kind eq 'truncate') { $self->{rows} = 0; return 'TRUNCATE @T'; }
	return 'VACUUM @T' if $kind eq 'vacuum';
	return 'VACUUM (FREEZE) @T' if $kind eq 'freeze';
	return 'VACUUM FULL @T' if $kind eq 'full';
	return 'ANALYZE @T' if $kind eq 'analyze';
	return 'VACUUM FULL @T' unless $self->{indexes}{k};
	return 'CLUSTER @T USING @T_k';
}

# Generate one step: { sql => ..., slim_only => 0|1 }
sub step
{
	my ($self) = @_;
	my $full = $self->{rows} > $self->{maxrows};
	for (1 .. 20)
	{
		my $kind = $self->wpick(
			insert => $full ? 1 : 10, copy => $full ? 0.5 : 4,
			insert_select => $full ? 0 : 1, update => 10,
			delete => $full ? 12 : 3, upsert => 2, transaction => 3,
			add_column => 2.5, drop_column => 1, alter_type => 1,
			set_default => 1, index => 1.5, maintenance => 4, mode => 1.5,
			probe => 3, lock => 1, observed_build => 1);
		my $sql;
		if ($kind eq 'mode')
		{
			$self->{mode} = $self->pick(grep { $_ ne $self->{mode} } qw(full truncate compress));
			return { sql => $self->{mode}, mode => 1, prefix => $self->_prefix_columns };
		}
		$sql = $self->can("_$kind")->($self);
		return $sql if ref $sql;
		return { sql => $sql } if defined $sql;
	}
	return { sql => 'VACUUM @T' };
}

1;
