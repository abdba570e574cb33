#!/usr/bin/perl
# bench/instructions-report.pl COUNTS.csv FIGURES.txt RESULTS_DIR
#
# The report step of bench/instructions.sh: from the instruction count of
# every backend it ran (COUNTS.csv: "backend,instructions", a backend named
# <group>.<db>.<part>, where db is "heap", "jsonb" or "slim" and part
# "setup" for the setup-only twin) and the figures (FIGURES.txt, one a line:
# key|label|group|part|units|unit|slimheap variant[|baseline], the
# baseline "heap" (the default) or "jsonb"), it writes
#   RESULTS_DIR/instructions.md   one line per figure: the baseline's and
#                                 slimheap's instructions with the setup
#                                 subtracted, the ratio, the difference per
#                                 row (transaction, lookup); then every
#                                 backend's count
#   RESULTS_DIR/instructions.csv  the same figures as CSV
# The description of the run comes from BENCH_* environment variables
# (BENCH_DATE, BENCH_BUILD, BENCH_NOTE, BENCH_PGVERSION, BENCH_VALGRIND,
# BENCH_CPU, BENCH_ELAPSED, BENCH_JOBS); a missing one is left out.  Dies, writing nothing, when a
# count is missing or malformed or a figure is not positive.  Core Perl
# only.
use strict;
use warnings;

my ($counts_file, $figures_file, $outdir) = @ARGV;
die "usage: $0 COUNTS.csv FIGURES.txt RESULTS_DIR\n" unless defined $outdir;

my (%count, @backends);
open my $in, '<', $counts_file or die "cannot read $counts_file: $!\n";
my $header = <$in>;
die "$counts_file: no header \"backend,instructions\"\n"
  unless defined $header && $header =~ /^backend,instructions\r?$/;
while (my $line = <$in>)
{
	chomp $line;
	next if $line eq '';
	my ($b, $n) = split /,/, $line, -1;
	die "$counts_file: malformed line: $line\n"
	  unless defined $n && $b =~ /^[\w]+\.(heap|jsonb|slim)\.\w+$/
	  && $n =~ /^\d+$/;
	die "$counts_file: $b counted twice\n" if exists $count{$b};
	$count{$b} = $n;
	push @backends, $b;
}
close $in;

my @figures;
open $in, '<', $figures_file or die "cannot read $figures_file: $!\n";
while (my $line = <$in>)
{
	chomp $line;
	next if $line eq '';
	my @f = split /\|/, $line, -1;
	push @f, 'heap' if @f == 7;
	die "$figures_file: malformed line: $line\n"
	  unless @f == 8 && $f[4] =~ /^[1-9]\d*$/ && $f[7] =~ /^(heap|jsonb)$/;
	my %fig;
	@fig{qw(key label group part units unit variant baseline)} = @f;
	for my $db ($fig{baseline}, 'slim')
	{
		my ($run, $setup) =
		  map { "$fig{group}.$db.$_" } $fig{part}, 'setup';
		for my $b ($run, $setup)
		{
			die "no count of backend $b (figure $fig{key})\n"
			  unless exists $count{$b};
		}
		my $n = $count{$run} - $count{$setup};
		die "figure $fig{key}: $run counted $count{$run} instructions, "
		  . "not more than its setup ($count{$setup})\n"
		  if $n <= 0;
		my $side = $db eq 'slim' ? 'slim' : 'base';
		$fig{$side} = $n;
		$fig{"${side}_run"} = $count{$run};
		$fig{"${side}_setup"} = $count{$setup};
	}
	$fig{ratio} = $fig{slim} / $fig{base};
	$fig{per_unit} = ($fig{slim} - $fig{base}) / $fig{units};
	push @figures, \%fig;
}
close $in;
die "$figures_file: no figures\n" unless @figures;

# 1234567 -> 1,234,567
sub commas
{
	my ($s) = @_;
	1 while $s =~ s/^([-+]?\d+)(\d{3})/$1,$2/;
	return $s;
}

sub millions { return commas(sprintf '%.1f', $_[0] / 1e6) . ' M'; }

sub signed
{
	my ($x) = @_;
	my $r = sprintf '%.0f', $x;
	$r = '0' if $r eq '-0';
	return ($r > 0 ? '+' : '') . commas($r);
}

sub percent
{
	my $p = sprintf '%.2f', ($_[0] - 1) * 100;
	$p = '0.00' if $p eq '-0.00';
	return ($p > 0 ? '+' : '') . "$p%";
}

my $run = scalar(@backends) . ' backends';
$run .= ", $ENV{BENCH_JOBS} at a time" if $ENV{BENCH_JOBS};
$run .= ", $ENV{BENCH_ELAPSED} s" if defined $ENV{BENCH_ELAPSED};
my @desc = ([ 'run', join(', ', grep { $_ } $ENV{BENCH_DATE}, $run) ]);
push @desc, [ 'build', $ENV{BENCH_BUILD} ] if $ENV{BENCH_BUILD};
push @desc, [ 'figures', $ENV{BENCH_NOTE} ] if $ENV{BENCH_NOTE};
push @desc, [ 'server', $ENV{BENCH_PGVERSION} ] if $ENV{BENCH_PGVERSION};
# the C library picks its string functions by the CPU valgrind reports
push @desc, [ 'counted by',
	join('; ', grep { $_ }
		$ENV{BENCH_VALGRIND} && "$ENV{BENCH_VALGRIND} (callgrind: instructions executed, Ir)",
		$ENV{BENCH_CPU} && "CPU $ENV{BENCH_CPU}") ]
  if $ENV{BENCH_VALGRIND} || $ENV{BENCH_CPU};

my $md = "# Instruction counts: slimheap against heap and jsonb\n\n";
$md .= "`make bench-instructions` (bench/instructions.sh):\n\n";
$md .= "- $_->[0]: $_->[1]\n" for @desc;
$md .= "\n";
$md .= <<'EOT';
Each figure is the count of a single-user backend (`postgres --single`
under `valgrind --tool=callgrind`) that ran its setup and then the
statements, minus the count of an identical backend that ran the setup
only (start-up, catalogs, the new table, a first run of each query), on
a slimheap table (`truncate` or `compress`, as the second column says)
and on its baseline of the same fresh cluster: a heap table of the same
rows, or their jsonb twin (`jsonb`: a heap table `(id, doc jsonb)` with
a key `"cN"` for each set column, read with `doc->'cN'`).  The
difference is slimheap's minus the baseline's, per row, transaction or
lookup.

| figure | slimheap | against | baseline | slimheap | slimheap/baseline | difference |
|---|---|---|---:|---:|---:|---:|
EOT
for my $f (@figures)
{
	$md .= sprintf "| %s | `%s` | %s | %s | %s | %.4f (%s) | %s a %s |\n",
	  $f->{label}, $f->{variant}, $f->{baseline}, millions($f->{base}),
	  millions($f->{slim}),
	  $f->{ratio}, percent($f->{ratio}), signed($f->{per_unit}), $f->{unit};
}
$md .= "\nEvery backend (`<group>.<database>.<part>`; `setup`: the twin that "
  . "runs the setup only):\n\n| backend | instructions |\n|---|---:|\n";
$md .= sprintf "| %s | %s |\n", $_, commas($count{$_}) for sort @backends;

sub csv_field
{
	my ($s) = @_;
	return $s unless $s =~ /[",\n]/;
	$s =~ s/"/""/g;
	return "\"$s\"";
}

my $csv = "figure,label,slimheap_variant,baseline,units,unit,"
  . "baseline_instructions,slimheap_instructions,ratio,difference_per_unit,"
  . "baseline_backend,baseline_setup,slimheap_backend,slimheap_setup\n";
for my $f (@figures)
{
	$csv .= join(',',
		$f->{key}, csv_field($f->{label}), $f->{variant}, $f->{baseline},
		$f->{units}, $f->{unit}, $f->{base}, $f->{slim},
		sprintf('%.5f', $f->{ratio}), sprintf('%.1f', $f->{per_unit}),
		$f->{base_run}, $f->{base_setup},
		$f->{slim_run}, $f->{slim_setup}) . "\n";
}

# written only when everything above has succeeded
for ([ 'instructions.md', $md ], [ 'instructions.csv', $csv ])
{
	my ($name, $text) = @$_;
	my $path = "$outdir/$name";
	open my $out, '>', "$path.tmp" or die "cannot write $path.tmp: $!\n";
	print $out $text;
	close $out or die "cannot write $path.tmp: $!\n";
	rename "$path.tmp", $path or die "cannot rename $path.tmp: $!\n";
}
