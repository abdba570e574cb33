#
# SlimFuzz: differential fuzzing of slimheap against heap.
#
# For each random schema (SlimFuzz::Gen) a heap table fz_h and a slimheap
# twin fz_s are created, and every step runs on both, in lockstep, in one
# session.  After each step:
#   - both twins must have printed the same thing (query output, and the
#     same errors: a statement fails on slimheap exactly when it fails on
#     heap);
#   - their contents must be equal as multisets (EXCEPT ALL both ways);
#   - slimheap.verify() must find nothing in either twin or their TOAST
#     tables.
# The first step that breaks one of these is a failure.  The fuzzer then
# looks for the shortest list of steps that still fails the same way (delta
# debugging, each try from a fresh schema), prints it with the seed, and
# writes a SQL script that reproduces it.
#
# Everything is determined by the seed: the same seed runs the same steps.
#
package SlimFuzz;

use strict;
use warnings;

use File::Basename qw(dirname);
use Time::HiRes qw(time);

use SlimFuzz::Gen;
use SlimFuzz::Session;

my %TABLE = (heap => 'fz_h', slim => 'fz_s');

sub new
{
	my ($class, %opts) = @_;
	my $self = bless {
		seed => $opts{seed} // 1,
		steps => $opts{steps} // 200,
		outdir => $opts{outdir} // '.',
		log => $opts{log} // sub { print STDERR @_, "\n" },
		min_runs => $opts{min_runs} // 300,
		min_seconds => $opts{min_seconds} // 900,
		session_opts => $opts{session} // {},
		stats => { schemas => 0, steps => 0, columns_max => 0, modes => {},
			tail_rows => 0, index_builds => 0, observed_builds => 0 },
	}, $class;
	$self->{sess} = SlimFuzz::Session->new(%{ $self->{session_opts} });
	$self->_setup;
	return $self;
}

sub _log { my ($self, @msg) = @_; $self->{log}->(join('', @msg)); return; }

sub _setup
{
	my ($self) = @_;
	my $s = $self->{sess};

	# the extension, unless its objects are there already (a database
	# prepared by hand against a library that is not installed)
	$s->query_safe('CREATE EXTENSION IF NOT EXISTS slimheap')
	  if $s->query_safe(q{SELECT to_regprocedure('slimheap.verify(regclass)') IS NULL}) =~ /^t/;

	# How a table's null_bitmap option is changed: through ALTER TABLE when
	# slimheap's options hook is there, otherwise by writing
	# pg_class.reloptions (which is where the option lives either way;
	# the catalog update invalidates the relcache entry like ALTER does).
	$s->query_safe('DROP TABLE IF EXISTS fz_probe; CREATE TABLE fz_probe (a int) USING slimheap');
	my $r = $s->query('ALTER TABLE fz_probe SET (slimheap.null_bitmap = full)');
	$self->{mode_via} = ($r->{err} eq '' && !$r->{lost}) ? 'alter' : 'catalog';
	$s->query_safe('DROP TABLE fz_probe');
	# pageinspect, to count the compress twin's tail rows (optional)
	my $pi = $s->query('CREATE EXTENSION IF NOT EXISTS pageinspect');
	$self->{pageinspect} = $pi->{err} eq '' && !$pi->{lost};
	# amcheck, to check the slimheap twin's indexes (optional)
	my $am = $s->query('CREATE EXTENSION IF NOT EXISTS amcheck');
	$self->{amcheck} = $am->{err} eq '' && !$am->{lost};
	$self->_log("slimfuzz: null_bitmap changes via ",
		$self->{mode_via} eq 'alter' ? 'ALTER TABLE ... SET' : 'pg_class.reloptions');
	return;
}

# The SQL that sets the slimheap twin's mode (and, when $prefix is
# defined, slimheap.prefix_columns: compress only, which needs the hook).
sub _mode_sql
{
	my ($self, $mode, $prefix) = @_;
	my $more = defined $prefix ? ", slimheap.prefix_columns = $prefix" : '';
	return "ALTER TABLE fz_s SET (slimheap.null_bitmap = $mode$more)"
	  if $self->{mode_via} eq 'alter';
	return "UPDATE pg_class SET reloptions = ARRAY['slimheap.null_bitmap=$mode'] WHERE oid = 'fz_s'::regclass";
}

sub _render
{
	my ($sql, $table) = @_;
	my $am = $table eq $TABLE{slim} ? 'slimheap' : 'heap';
	$sql =~ s/\@AM\b/$am/g;
	$sql =~ s/\@T/$table/g;
	return $sql;
}

# The part of psql's error output that must be equal on both twins: the
# ERROR/WARNING lines, table names made equal, but for slimheap's WARNINGs
# about the form of later rows (an ADD COLUMN ... DEFAULT on a compress
# table, REPLICA IDENTITY FULL), which only slimheap can give.  DETAIL lines may name the
# first row that failed, which depends on the physical order of rows, which
# legitimately differs (slimheap rows are smaller); so may the size in an
# index build's "index row size" error.
sub _errors
{
	my ($err) = @_;
	my @keep;
	for my $line (split /\n/, $err)
	{
		$line =~ s/^psql:[^:]*:\d+: //;
		next unless $line =~ /^(?:ERROR|WARNING|FATAL|PANIC):|^\[psql session lost|^(?:invalid command|unterminated)/;
		# slimheap's word on how it will store rows, which heap has none of
		next if $line =~ /^WARNING:  rows written to table "[^"]*" from now on keep every column up to/;
		next if $line =~ /^WARNING:  table "[^"]*" stores no compressed tails under REPLICA IDENTITY FULL/;
		$line =~ s/\bfz_[hs](?=\b|_)/fz_T/g;
		# sizes of whichever row an index build met first
		$line =~ s/index row size \d+/index row size N/;
		$line =~ s/index row requires \d+ bytes/index row requires N bytes/;
		push @keep, $line;
	}
	return join("\n", @keep);
}

sub _out
{
	my ($out) = @_;
	$out =~ s/\bfz_[hs](?=\b|_)/fz_T/g;
	return $out;
}

# Run SQL; a lost session is a failure of class "crash".
sub _q
{
	my ($self, $sql) = @_;
	my $r = $self->{sess}->query($sql);
	$self->{lost} = 1 if $r->{lost};
	return $r;
}

# The checks after each step; returns undef or a failure.
sub _check
{
	my ($self) = @_;
	my $r = $self->_q(
		"SELECT (SELECT count(*) FROM (TABLE fz_h EXCEPT ALL TABLE fz_s) a) || ' ' || "
		  . "(SELECT count(*) FROM (TABLE fz_s EXCEPT ALL TABLE fz_h) b) || ' ' || "
		  . "(SELECT count(*) FROM fz_h) || ' ' || (SELECT count(*) FROM fz_s)");
	return { class => 'crash', detail => $r->{err} } if $r->{lost};
	return { class => 'check-error', detail => $r->{err} } if $r->{err} ne '';
	my ($only_h, $only_s, $nh, $ns) = split ' ', $r->{out};
	if (!defined $ns || $only_h != 0 || $only_s != 0)
	{
		return {
			class => 'contents',
			detail => "rows only in heap: $only_h, only in slimheap: $only_s (heap has $nh rows, slimheap $ns)"
		};
	}

	$r = $self->_q(
		"SELECT c.relname || ' block ' || v.blkno || ' offset ' || coalesce(v.offnum::text, '-') || ': ' || v.msg "
		  . "FROM pg_class c, LATERAL slimheap.verify(c.oid) v "
		  . "WHERE c.oid IN ('fz_h'::regclass, 'fz_s'::regclass, "
		  . "(SELECT reltoastrelid FROM pg_class WHERE oid = 'fz_h'::regclass), "
		  . "(SELECT reltoastrelid FROM pg_class WHERE oid = 'fz_s'::regclass))");
	return { class => 'crash', detail => $r->{err} } if $r->{lost};
	return { class => 'check-error', detail => $r->{err} } if $r->{err} ne '';
	return { class => 'verify', detail => $r->{out} } if $r->{out} ne '';
	return undef unless $self->{amcheck};

	# every valid B-tree index of the slimheap twin holds its rows
	$r = $self->_q(
		"SELECT count(bt_index_check(i.indexrelid, true)) FROM pg_index i "
		  . "JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam "
		  . "WHERE i.indrelid = 'fz_s'::regclass AND i.indisvalid AND a.amname = 'btree'");
	return { class => 'crash', detail => $r->{err} } if $r->{lost};
	return { class => 'index', detail => $r->{err} } if $r->{err} ne '';
	return undef;
}

# What both twins printed for the same SQL must be equal: undef or a
# failure.
sub _compare
{
	my ($rh, $rs) = @_;
	return { class => 'crash', detail => "on heap:\n$rh->{err}" } if $rh->{lost};
	return { class => 'crash', detail => $rs->{err} } if $rs->{lost};
	if (_errors($rh->{err}) ne _errors($rs->{err}))
	{
		return { class => 'errors',
			detail => "heap said:\n$rh->{err}\nslimheap said:\n$rs->{err}" };
	}
	if (_out($rh->{out}) ne _out($rs->{out}))
	{
		return { class => 'output',
			detail => "heap printed:\n$rh->{out}\nslimheap printed:\n$rs->{out}" };
	}
	return undef;
}

# The sessions that run an observed build, one per twin, so that both
# builds run while the reader's snapshot is open (a CONCURRENTLY build
# waits for it to end before it finishes).
sub _watchers
{
	my ($self) = @_;
	$self->{watchers} //= {
		map { $_ => SlimFuzz::Session->new(%{ $self->{session_opts} }) }
		  qw(heap slim)
	};
	return $self->{watchers};
}

# The event trigger of an observed build: at the end of a CREATE INDEX on
# either twin, the same UPDATE of that twin.
sub _trigger_sql
{
	my ($update) = @_;
	my $branches = join('', map {
		sprintf("    %s t = '%s'::regclass THEN %s;\n",
			$_ eq 'heap' ? 'IF' : 'ELSIF', $TABLE{$_}, _render($update, $TABLE{$_}))
	} qw(heap slim));
	return "CREATE OR REPLACE FUNCTION fz_evt() RETURNS event_trigger LANGUAGE plpgsql AS \$fz\$\n"
	  . "DECLARE t regclass;\nBEGIN\n"
	  . "  FOR t IN SELECT i.indrelid::regclass FROM pg_event_trigger_ddl_commands() c\n"
	  . "             JOIN pg_index i ON i.indexrelid = c.objid WHERE c.command_tag = 'CREATE INDEX' LOOP\n"
	  . $branches . "    END IF;\n  END LOOP;\nEND\n\$fz\$;\n"
	  . "CREATE EVENT TRIGGER fz_evt ON ddl_command_end WHEN TAG IN ('CREATE INDEX') EXECUTE FUNCTION fz_evt()";
}

# An observed build (SlimFuzz::Gen::_observed_build): this session opens a
# REPEATABLE READ transaction and reads both twins; a session per twin
# writes, then builds; this session reads again, within its snapshot
# (which must not see the write, nor anything of the builds), compares the
# twins there, and commits; then the builds' results are compared.
sub _observed
{
	my ($self, $step) = @_;
	my $w = $self->_watchers;
	my $fail;

	if ($step->{trigger})
	{
		my $r = $self->_q(_trigger_sql($step->{trigger}));
		return { class => 'crash', detail => $r->{err} } if $r->{lost};
		return { class => 'setup', detail => $r->{err} } if $r->{err} ne '';
	}
	$self->_q('BEGIN ISOLATION LEVEL REPEATABLE READ');
	my @before = map { $self->_q(_render($step->{probe}, $TABLE{$_})) } qw(heap slim);
	$fail = _compare(@before)
	  // _compare(map { $w->{$_}->query(_render($step->{write}, $TABLE{$_})) } qw(heap slim));
	if (!$fail)
	{
		$w->{$_}->send(_render($step->{sql}, $TABLE{$_})) for qw(heap slim);
		my @after = map { $self->_q(_render($step->{probe}, $TABLE{$_})) } qw(heap slim);
		$fail = _compare(@after);
		$fail //= { class => 'snapshot', detail => "before the build:\n$before[1]{out}\nafter it, in the same snapshot:\n$after[1]{out}" }
		  if $after[1]{out} ne $before[1]{out};
		my $r = $self->_q('SELECT (SELECT count(*) FROM (TABLE fz_h EXCEPT ALL TABLE fz_s) a) || \' \' || '
			  . '(SELECT count(*) FROM (TABLE fz_s EXCEPT ALL TABLE fz_h) b)');
		$fail //= { class => 'snapshot', detail => "the twins differ in the reader's snapshot: $r->{out}$r->{err}" }
		  if $r->{lost} || $r->{err} ne '' || $r->{out} !~ /^0 0$/m;
		$self->_q('COMMIT');
		$fail = _compare(map { $w->{$_}->collect } qw(heap slim)) // $fail;
	}
	else
	{
		$self->_q('COMMIT');
	}
	$self->{lost} = 1 if $fail && $fail->{class} eq 'crash';
	$self->_q('DROP EVENT TRIGGER IF EXISTS fz_evt') if $step->{trigger};
	$self->{stats}{index_builds}++;
	$self->{stats}{observed_builds}++;
	return $fail;
}

# Run one step on both twins; returns undef or a failure.
sub _step
{
	my ($self, $step) = @_;

	return $self->_observed($step) if $step->{observed};

	if ($step->{mode})
	{
		my $r = $self->_q($self->_mode_sql($step->{sql}, $step->{prefix}));
		return { class => 'crash', detail => $r->{err} } if $r->{lost};
		return { class => 'mode', detail => $r->{err} } if $r->{err} ne '';
		$self->{stats}{modes}{ $step->{sql} }++;
		return undef;
	}

	my $rh = $self->_q(_render($step->{sql}, $TABLE{heap}));
	return { class => 'crash', detail => "on heap:\n$rh->{err}" } if $rh->{lost};
	my $rs = $self->_q(_render($step->{sql}, $TABLE{slim}));

	# a failed statement inside BEGIN leaves the block for COMMIT/ROLLBACK,
	# which every transaction step ends with; nothing can be left open

	# every index is built on both twins, whatever the rows store
	$self->{stats}{index_builds}++ if $step->{sql} =~ /^\s*CREATE\s+(?:UNIQUE\s+)?INDEX\b/i;
	return _compare($rh, $rs);
}

# Create the twins, run the steps of $case whose indexes are in @$subset,
# checking after each.  Returns undef or a failure with the step index.
sub run_case
{
	my ($self, $case, $subset) = @_;

	if ($self->{lost})
	{
		$self->{sess}->reconnect;
		$self->{lost} = 0;
		delete $self->{watchers};	# their sessions went with the server
	}

	my $r = $self->_q('DROP TABLE IF EXISTS fz_h, fz_s');
	return { class => 'crash', detail => $r->{err}, index => -1 } if $r->{lost};
	my $fail = $self->_step({ sql => $case->{schema}{sql} });
	if (!$fail && $case->{schema}{sql} && $self->_q("SELECT 1 FROM pg_class WHERE relname = 'fz_s'")->{out} eq '')
	{
		# the CREATE failed on both: nothing to compare
		return { class => 'create', detail => 'CREATE TABLE failed', index => -1 };
	}
	if (!$fail && $case->{schema}{mode} ne 'truncate')
	{
		$fail = $self->_step({ mode => 1, sql => $case->{schema}{mode},
				prefix => $case->{schema}{prefix} });
	}
	elsif (!$fail)
	{
		$self->{stats}{modes}{truncate}++;
	}
	if ($fail)
	{
		$fail->{index} = -1;
		return $fail;
	}

	for my $i (@$subset)
	{
		$self->{stats}{steps}++;
		$fail = $self->_step($case->{steps}[$i]) // $self->_check;
		if ($fail)
		{
			$fail->{index} = $i;
			return $fail;
		}
	}
	return undef;
}

sub case_for
{
	my ($self, $schema_no, $max_steps) = @_;
	my $g = SlimFuzz::Gen->new($self->{seed} * 1000003 + $schema_no);
	my $schema = $g->schema;
	my $n = $g->irand(15, 60);
	$n = $max_steps if $n > $max_steps;
	my @steps = map { $g->step } 1 .. $n;
	return { schema => $schema, steps => \@steps, schema_no => $schema_no };
}

# Delta debugging over the step list: the smallest subset (as far as the
# budget allows) on which run_case fails with the same class.
sub minimize
{
	my ($self, $case, $fail) = @_;
	my @items = (0 .. $fail->{index});
	my $runs = 0;
	my $deadline = time + $self->{min_seconds};
	my $fails = sub {
		my ($subset) = @_;
		return 0 if $runs >= $self->{min_runs} || time > $deadline;
		$runs++;
		my $f = $self->run_case($case, $subset);
		return $f && $f->{class} eq $fail->{class};
	};

	my $n = 2;
	while (@items >= 2)
	{
		my $size = int((@items + $n - 1) / $n);
		my @chunks;
		for (my $from = 0; $from <= $#items; $from += $size)
		{
			my $to = $from + $size - 1;
			$to = $#items if $to > $#items;
			push @chunks, [ @items[ $from .. $to ] ];
		}
		my $reduced = 0;
		for my $chunk (@chunks)
		{
			if ($fails->($chunk))
			{
				@items = @$chunk;
				$n = 2;
				$reduced = 1;
				last;
			}
		}
		if (!$reduced && @chunks > 2)
		{
			for my $c (0 .. $#chunks)
			{
				my @rest = map { @{ $chunks[$_] } } grep { $_ != $c } 0 .. $#chunks;
				if ($fails->(\@rest))
				{
					@items = @rest;
					$n = $n - 1 > 2 ? $n - 1 : 2;
					$reduced = 1;
					last;
				}
			}
		}
		last if $runs >= $self->{min_runs} || time > $deadline;
		if (!$reduced)
		{
			last if $n >= @items;
			$n = 2 * $n > @items ? scalar(@items) : 2 * $n;
		}
	}
	# a single step may still fail alone
	@items = () if @items == 1 && $fails->([]);
	return (\@items, $runs);
}

sub _short
{
	my ($text, $max) = @_;
	return $text if length($text) <= $max;
	return substr($text, 0, $max) . ' ...(' . length($text) . ' characters)';
}

sub _write_repro
{
	my ($self, $case, $items, $fail) = @_;
	my $file = sprintf('%s/slimfuzz-seed%d-schema%d.sql', $self->{outdir},
		$self->{seed}, $case->{schema_no});
	open(my $fh, '>', $file) or die "cannot write $file: $!";
	print $fh "-- slimfuzz failure: seed $self->{seed}, schema $case->{schema_no}, class $fail->{class}\n";
	print $fh "-- $_\n" for split /\n/, $fail->{detail};
	print $fh "-- run with: psql -X -f $file (slimheap preloaded)\n";
	print $fh "CREATE EXTENSION IF NOT EXISTS slimheap;\nDROP TABLE IF EXISTS fz_h, fz_s;\n";
	print $fh _render($case->{schema}{sql}, 'fz_h'), ";\n";
	print $fh _render($case->{schema}{sql}, 'fz_s'), ";\n";
	print $fh $self->_mode_sql($case->{schema}{mode}, $case->{schema}{prefix}), ";\n"
	  if $case->{schema}{mode} ne 'truncate';
	for my $i (@$items)
	{
		my $step = $case->{steps}[$i];
		print $fh "-- step $i\n";
		if ($step->{mode})
		{
			print $fh $self->_mode_sql($step->{sql}, $step->{prefix}), ";\n";
			next;
		}
		if ($step->{observed})
		{
			print $fh "-- an observed build: run in a second session, while a first one\n"
			  . "-- holds BEGIN ISOLATION LEVEL REPEATABLE READ and has read both twins\n";
			print $fh _trigger_sql($step->{trigger}), ";\n" if $step->{trigger};
			print $fh _render($step->{write}, $_), ";\n" for 'fz_h', 'fz_s';
			print $fh _render($step->{sql}, $_), ";\n" for 'fz_h', 'fz_s';
			print $fh "DROP EVENT TRIGGER IF EXISTS fz_evt;\n" if $step->{trigger};
			next;
		}
		print $fh _render($step->{sql}, $_), ";\n" for 'fz_h', 'fz_s';
	}
	print $fh "-- the checks: both must return nothing / zeros\n";
	print $fh "SELECT count(*) FROM (TABLE fz_h EXCEPT ALL TABLE fz_s) a;\n";
	print $fh "SELECT count(*) FROM (TABLE fz_s EXCEPT ALL TABLE fz_h) b;\n";
	print $fh "SELECT * FROM slimheap.verify('fz_h');\nSELECT * FROM slimheap.verify('fz_s');\n";
	close $fh;
	return $file;
}

# Run schemas until the step budget is used up.  Returns a summary:
# { schemas, steps, failure (undef or a description) }.
sub run
{
	my ($self) = @_;
	my $left = $self->{steps};
	my $schema_no = 0;

	while ($left > 0)
	{
		my $case = $self->case_for($schema_no, $left);
		my $n = scalar @{ $case->{steps} };
		my $t0 = time;
		my $fail = $self->run_case($case, [ 0 .. $n - 1 ]);
		$self->{stats}{schemas}++;
		$self->_count_tails unless $fail || $self->{lost};
		$self->{stats}{columns_max} = $case->{schema}{ncols}
		  if $case->{schema}{ncols} > $self->{stats}{columns_max};
		$self->_log(sprintf('slimfuzz: seed %d schema %d: %d columns, %s, %d steps: %s (%.1fs)',
				$self->{seed}, $schema_no, $case->{schema}{ncols}, $case->{schema}{mode}, $n,
				$fail ? "FAILED at step $fail->{index} ($fail->{class})" : 'ok', time - $t0));
		if ($fail)
		{
			return $self->_report($case, $fail);
		}
		$left -= $n;
		$schema_no++;
	}
	$self->_log("slimfuzz: seed $self->{seed}: $self->{stats}{schemas} schemas, $self->{stats}{steps} steps, no difference");
	return { %{ $self->{stats} }, failure => undef };
}

# Count the rows of the slimheap twin stored with a compressed tail (when
# pageinspect is there): a run that never made one tested little of
# compress.
sub _count_tails
{
	my ($self) = @_;
	return unless $self->{pageinspect};
	my $r = $self->_q(q{
SELECT count(*) FROM generate_series(0, pg_relation_size('fz_s') / current_setting('block_size')::int - 1) b,
       LATERAL heap_page_items(get_raw_page('fz_s', b::int)) p
 WHERE p.lp_flags = 1 AND (p.t_infomask2 & 2048) <> 0});
	$self->{stats}{tail_rows} += $r->{out} if !$r->{lost} && $r->{err} eq '' && $r->{out} =~ /^\d+$/;
	return;
}

sub _report
{
	my ($self, $case, $fail) = @_;
	my $steps_run = $self->{stats}{steps};

	$self->_log("slimfuzz: FAILED: seed $self->{seed}, schema $case->{schema_no}, step $fail->{index}, class $fail->{class}");
	$self->_log("  $_") for split /\n/, _short($fail->{detail}, 4000);

	my ($items, $runs) = $fail->{index} >= 0 ? $self->minimize($case, $fail) : ([], 0);
	my $file = $self->_write_repro($case, $items, $fail);
	$self->_log(sprintf('slimfuzz: shortest failing step list found (%d of %d steps, %d replays):',
			scalar(@$items), $fail->{index} + 1, $runs));
	$self->_log('  schema: ', _short(_render($case->{schema}{sql}, 'fz_s'), 600),
		" (mode $case->{schema}{mode})");
	for my $i (@$items)
	{
		my $step = $case->{steps}[$i];
		$self->_log("  step $i: ",
			$step->{mode} ? "set null_bitmap = $step->{sql}" : _short(_render($step->{sql}, 'fz_s'), 600));
	}
	$self->_log("slimfuzz: reproduction script: $file");
	$self->_log("slimfuzz: rerun with: make fuzz SEED=$self->{seed} STEPS=$self->{steps}");
	$self->{stats}{steps} = $steps_run;
	return { %{ $self->{stats} }, failure => $fail, repro => $file, minimal => $items };
}

1;
