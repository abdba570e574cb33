#!/usr/bin/perl
#
# bench/instructions-profile.pl: the per-function table of a figure of
# `make bench-instructions` (bench/instructions.sh), so that every
# instruction slimheap spends above its baseline has a name.
#
#   instructions-profile.pl FIGURES PROFILE_DIR OUT.md KEY...
#
# FIGURES is instructions.sh's figure list (key|label|group|part|units|
# unit|variant[|baseline]); PROFILE_DIR holds the callgrind outputs of the
# figures' backends as <group>.<db>.<part>.callgrind.out (and .setup); for
# each KEY the table gives each function's own instructions (callgrind's
# self cost, "Ir"), per unit, of
#
#   (backend that ran setup + statements) - (backend that ran setup only)
#
# for the baseline (heap or jsonb) and for slimheap, and their difference.
# Functions are named as callgrind names them: a server without debug
# symbols (Debian's) leaves its static functions as addresses, which are
# given with the function that calls them most, to tell what they are.
use strict;
use warnings;

my ($figures_file, $dir, $out, @keys) = @ARGV;
die "usage: $0 FIGURES PROFILE_DIR OUT.md KEY...\n" unless @keys;

# self cost of each function of one callgrind output, and its main caller
sub profile
{
	my ($file) = @_;
	my (%self, %callers, %names, %files, %objs);
	my ($fn, $ob, $fl, $in_call) = ('', '', '', 0);
	my $cfn;
	open(my $fh, '<', $file) or die "$file: $!\n";
	while (my $line = <$fh>)
	{
		chomp $line;
		# name compression: "(id) name" defines, "(id)" refers
		if ($line =~ /^(fn|cfn|ob|cob|fl|fi|fe|cfi|cfl)=(?:\((\d+)\))?\s*(.*)$/)
		{
			my ($kind, $id, $name) = ($1, $2, $3);
			my $space = $kind =~ /fn$/ ? 'fn' : $kind =~ /ob$/ ? 'ob' : 'fl';
			if (defined $id)
			{
				if ($name ne '')
				{
					my $table = $space eq 'fn' ? \%names : $space eq 'ob' ? \%objs : \%files;
					$table->{$id} = $name;
				}
				$name = ($space eq 'fn' ? $names{$id} : $space eq 'ob' ? $objs{$id} : $files{$id}) // "($id)";
			}
			if ($kind eq 'fn') { $fn = $name; }
			elsif ($kind eq 'cfn') { $cfn = $name; }
			elsif ($kind eq 'ob') { $ob = $name; }
			elsif ($kind eq 'fl') { $fl = $name; }
			next;
		}
		if ($line =~ /^calls=/)
		{
			$in_call = 1;
			next;
		}
		if ($line =~ /^[+\-*0-9]/)
		{
			my @f = split ' ', $line;
			my $cost = $f[1] // 0;
			if ($in_call)
			{
				$callers{$cfn}{$fn} += $cost if defined $cfn;
				$in_call = 0;
			}
			else
			{
				$self{$fn} += $cost;
			}
		}
	}
	close $fh;
	return (\%self, \%callers);
}

sub main_caller
{
	my ($callers, $fn) = @_;
	my $c = $callers->{$fn} or return '';
	my ($top) = sort { $c->{$b} <=> $c->{$a} } keys %$c;
	return $top // '';
}

sub th
{
	my ($n) = @_;
	my $s = sprintf('%.0f', $n);
	$s = '0' if $s eq '-0';
	1 while $s =~ s/^(-?\d+)(\d{3})/$1,$2/;
	return $s;
}

my %figures;
open(my $ff, '<', $figures_file) or die "$figures_file: $!\n";
while (<$ff>)
{
	chomp;
	my ($key, $label, $group, $part, $units, $unit, $variant, $baseline) = split /\|/;
	$figures{$key} = { label => $label, group => $group, part => $part,
		units => $units, unit => $unit, variant => $variant,
		baseline => $baseline || 'heap' };
}
close $ff;

open(my $md, '>', $out) or die "$out: $!\n";
print $md "# Instruction profiles: where each figure's instructions go\n\n";
print $md "`make bench-instructions` (bench/instructions.sh, BENCH_PROFILE),\n";
print $md "same run as instructions.md. Each table: a function's own\n";
print $md "instructions (callgrind's self cost) per unit, statements minus\n";
print $md "setup, for the baseline and for slimheap; functions that differ by\n";
print $md "at least 5 a unit or cost slimheap at least 20, largest first.\n";
print $md "`0x...`: a static function of a server without debug symbols,\n";
print $md "named by its main caller.\n";
for my $key (@keys)
{
	my $f = $figures{$key} or die "no figure $key\n";
	my %side;
	for my $db ($f->{baseline}, 'slim')
	{
		my $base = "$dir/$f->{group}.$db";
		my ($run, $run_callers) = profile("$base.$f->{part}.callgrind.out");
		my ($setup) = profile("$base.setup.callgrind.out");
		my %per;
		for my $fn (keys %$run)
		{
			$per{$fn} = ($run->{$fn} - ($setup->{$fn} // 0)) / $f->{units};
		}
		for my $fn (keys %$setup)
		{
			$per{$fn} //= -$setup->{$fn} / $f->{units};
		}
		$side{$db} = { per => \%per, callers => $run_callers };
	}
	my $bp = $side{$f->{baseline}}{per};
	my $sp = $side{slim}{per};
	my %all = map { $_ => 1 } keys %$bp, keys %$sp;
	my %diff = map { $_ => ($sp->{$_} // 0) - ($bp->{$_} // 0) } keys %all;
	my ($tb, $ts) = (0, 0);
	$tb += $_ for values %$bp;
	$ts += $_ for values %$sp;
	my @rows = grep { abs($diff{$_}) >= 5 || ($sp->{$_} // 0) >= 20 } keys %all;
	@rows = sort { $diff{$b} <=> $diff{$a} || $a cmp $b } @rows;
	printf $md "\n## %s (`%s` against %s, per %s)\n\n", $f->{label},
		$f->{variant}, $f->{baseline}, $f->{unit};
	print $md "| function | $f->{baseline} | slimheap | difference |\n";
	print $md "|---|---:|---:|---:|\n";
	for my $fn (@rows)
	{
		my $name = $fn;
		if ($name =~ /^0x[0-9a-f]+$/)
		{
			my $caller = main_caller($side{slim}{callers}, $fn) ||
				main_caller($side{$f->{baseline}}{callers}, $fn);
			$name .= " (called by $caller)" if $caller ne '';
		}
		$name =~ s/\|/\\|/g;
		printf $md "| %s | %s | %s | %s |\n", $name, th($bp->{$fn} // 0),
			th($sp->{$fn} // 0), th($diff{$fn});
	}
	printf $md "| **all functions** | **%s** | **%s** | **%s** |\n", th($tb),
		th($ts), th($ts - $tb);
}
close $md;
