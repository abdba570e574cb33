
# Copyright (c) slimheap contributors
#
# The house of src/ (src/README.md): every C file of a layer folder
# includes only the project headers of its own layer and of the layers
# below it; every section of a header ("/* slim_x.c ... */") declares
# only functions that slim_x.c defines; no C files call each other in a
# circle, counting the calls made through a header's inline functions and
# function-like macros as the caller's, and every call goes to a file of
# the caller's layer or of one below it; no headers include each other in
# a circle (calls through function pointers, the routine's among them, are
# not seen); every file of a
# layer folder is named in its README.md, and every header in
# src/README.md.  Reads the sources; starts no server.

use strict;
use warnings;

use File::Basename qw(basename dirname);
use PostgreSQL::Test::Utils;
use Test::More;

my $root = $ENV{TESTDIR} // '.';

# the layers, from the top down, and what each may use
my %may_use = (
	inspect => [qw(inspect am options wal format)],
	am => [qw(am options wal format)],
	options => [qw(options format)],
	wal => [qw(wal format)],
	format => [qw(format)],);

# the layer each project header belongs to (slim_compat.h: every layer)
my %header_layer = (
	'slim_inspect.h' => 'inspect',
	'slim_verify.h' => 'inspect',
	'slim_page_check.h' => 'inspect',
	'slimheap.h' => 'am',
	'slim_am.h' => 'am',
	'slim_slot.h' => 'am',
	'slim_heap_slot.h' => 'am',
	'slim_index.h' => 'am',
	'slim_relayout.h' => 'am',
	'slim_compact_position.h' => 'am',
	'slim_wal.h' => 'wal',
	'slim_options.h' => 'options',
	'slim_format.h' => 'format',
	'slim_layout.h' => 'format',
	'slim_floor.h' => 'format',
	'slim_tail.h' => 'format',
	'slim_compat.h' => undef,);

sub slurp
{
	my $path = shift;
	open my $fh, '<', $path or die "cannot read $path: $!";
	local $/;
	return <$fh>;
}

# the project headers a file includes, directly
sub project_includes
{
	my $text = slurp(shift);
	return ($text =~ /^#include "([^"]+)"/mg);
}

# the layer of every header, through the headers it includes in turn
my %header_uses;
foreach my $h (glob("$root/include/*.h"))
{
	my $name = basename($h);
	ok(exists $header_layer{$name}, "include/$name belongs to a layer");
	$header_uses{$name} = [ project_includes($h) ];
}

foreach my $h (sort keys %header_uses)
{
	my $layer = $header_layer{$h} or next;
	foreach my $inc (@{ $header_uses{$h} })
	{
		my $to = $header_layer{$inc};
		next unless defined $to;
		ok((grep { $_ eq $to } @{ $may_use{$layer} }),
			"include/$h ($layer) may include $inc ($to)");
	}
}

my @sources = sort glob("$root/src/*/*.c");
ok(@sources > 20, 'the sources are in layer folders');
is_deeply([ glob("$root/src/*.c") ], [], 'no C file outside a layer folder');

my (%defined_in, %defined_in_path);
foreach my $c (@sources)
{
	my $layer = basename(dirname($c));
	my $name = "src/$layer/" . basename($c);
	ok(exists $may_use{$layer}, "$name is in a known layer");
	my @bad;
	foreach my $inc (project_includes($c))
	{
		ok(exists $header_layer{$inc}, "$name: $inc is a known header")
		  unless $inc =~ /^[a-z]+\// || $inc eq 'postgres.h' || $inc eq 'fmgr.h'
		  || $inc eq 'funcapi.h' || $inc eq 'miscadmin.h' || $inc eq 'pgstat.h';
		next unless exists $header_layer{$inc};
		my $to = $header_layer{$inc};
		push @bad, "$inc ($to)"
		  if defined $to && !grep { $_ eq $to } @{ $may_use{$layer} };
	}
	is("@bad", '', "$name ($layer) includes nothing of a layer above");

	# definitions: a name at the start of a line followed by "("
	my $text = slurp($c);
	while ($text =~ /^([a-z_][a-z0-9_]*)\(/mg)
	{
		$defined_in{$1} = basename($c);
		$defined_in_path{$1} = $c;
	}
}

# header sections: "/* slim_x.c" or "/* slim_x.c, slim_y.c" comment lines
foreach my $h (sort glob("$root/include/*.h"))
{
	my ($section, @wrong);
	foreach my $line (split /\n/, slurp($h))
	{
		if ($line =~ m{^/\* ((?:slim|slimheap)_\w+\.c(?:, (?:slim|slimheap)_\w+\.c)*)})
		{
			$section = [ split /, /, $1 ];
			next;
		}
		next unless $section;
		if ($line =~ /^extern\b.*?\b(slim_\w+|slimheap_\w+)\s*\(/)
		{
			my $fn = $1;
			my $file = $defined_in{$fn} // '(nowhere)';
			push @wrong, "$fn is in $file, not @$section"
			  unless grep { $_ eq $file } @$section;
		}
	}
	is(join('; ', @wrong), '', basename($h) . ': every section names the file that defines its functions');
}

# code only: comments and string literals blanked
sub code_of
{
	my $text = shift;
	$text =~ s{/\*.*?\*/}{ }gs;
	$text =~ s{"(?:[^"\\\n]|\\.)*"}{""}g;
	return $text;
}

# the names a piece of code calls (an identifier before "(")
sub called_names
{
	my %seen;
	my $code = shift;
	$seen{$1} = 1 while $code =~ /\b([A-Za-z_][A-Za-z0-9_]*)\s*\(/g;
	return keys %seen;
}

# the inline functions and function-like macros of the headers, with what
# each calls: a call of one counts as the caller's call of those
my %inline_calls;

# the text of the block that starts at the "{" at $pos of $code
sub block_at
{
	my ($code, $pos) = @_;
	my $depth = 0;
	for (my $i = $pos; $i < length($code); $i++)
	{
		my $ch = substr($code, $i, 1);
		$depth++ if $ch eq '{';
		$depth-- if $ch eq '}';
		return substr($code, $pos, $i - $pos + 1) if $depth == 0;
	}
	return substr($code, $pos);
}

foreach my $h (glob("$root/include/*.h"))
{
	my $code = code_of(slurp($h));

	# static inline (or pg_attribute_always_inline) functions, however laid
	# out: the name is the identifier before the first "(" after "static"
	while ($code =~ /\bstatic\s+(?:inline|pg_attribute_always_inline)\b[^;{(]*?\b([a-z_][a-z0-9_]*)\s*\([^;{]*?\)\s*\{/gs)
	{
		my $name = $1;
		my $open = $+[0] - 1;
		$inline_calls{$name} = [ grep { $_ ne $name } called_names(block_at($code, $open)) ];
		pos($code) = $open + 1;
	}

	# function-like macros, continuation lines joined
	(my $joined = $code) =~ s/\\\n/ /g;
	while ($joined =~ /^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)\(([^)]*)\)(.*)$/mg)
	{
		my ($name, $body) = ($1, $3);
		$inline_calls{$name} = [ grep { $_ ne $name } called_names($body) ];
	}
}

# the C files a name leads to: its definition, or through an inline's calls
sub callees
{
	my ($name, $seen) = @_;
	return () if $seen->{$name}++;
	return ($defined_in_path{$name}) if exists $defined_in_path{$name};
	return map { callees($_, $seen) } @{ $inline_calls{$name} // [] };
}

my %calls;
foreach my $c (@sources)
{
	my %to;
	foreach my $name (called_names(code_of(slurp($c))))
	{
		$to{$_} = 1 foreach grep { $_ ne $c } callees($name, {});
	}
	$calls{$c} = [ sort keys %to ];
}

# the first circle in a graph (node => [nodes]), as "a -> b -> a"; '' if none
sub find_circle
{
	my $graph = shift;
	my (%state, @path);
	my $visit;
	$visit = sub {
		my $n = shift;
		$state{$n} = 1;
		push @path, $n;
		foreach my $m (@{ $graph->{$n} // [] })
		{
			if (($state{$m} // 0) == 1)
			{
				my ($at) = grep { $path[$_] eq $m } 0 .. $#path;
				return join(' -> ', map { s{^\Q$root\E/}{}r } @path[ $at .. $#path ], $m);
			}
			next if $state{$m};
			my $found = $visit->($m);
			return $found if $found;
		}
		pop @path;
		$state{$n} = 2;
		return '';
	};
	foreach my $n (sort keys %$graph)
	{
		next if $state{$n};
		my $found = $visit->($n);
		return $found if $found;
	}
	return '';
}

# calls go down the layers too, as includes do
foreach my $c (@sources)
{
	my $layer = basename(dirname($c));
	my @wrong = map { s{^\Q$root\E/}{}r }
	  grep { my $to = basename(dirname($_)); !grep { $_ eq $to } @{ $may_use{$layer} } } @{ $calls{$c} };
	is("@wrong", '', 'src/' . "$layer/" . basename($c) . " calls nothing of a layer above ($layer)");
}

is(find_circle(\%calls), '', 'no C files call each other in a circle (inline functions count as their callers\' calls)');
my %include_graph = map { ("$root/include/$_" => [ map { "$root/include/$_" } grep { exists $header_layer{$_} } @{ $header_uses{$_} } ]) } keys %header_uses;
is(find_circle(\%include_graph), '', 'no headers include each other in a circle');

# every file is named in its folder's README, every header in src/README.md
foreach my $dir (sort glob("$root/src/*/"))
{
	my $readme = slurp("${dir}README.md");
	my @missing = grep { index($readme, "`" . basename($_) . "`") < 0 } sort glob("${dir}*.c");
	is("@missing", '', 'src/' . basename($dir) . '/README.md names every file of its folder');
}
my $top_readme = slurp("$root/src/README.md");
my @unnamed = grep { index($top_readme, "`$_`") < 0 } sort map { basename($_) } glob("$root/include/*.h");
is("@unnamed", '', 'src/README.md names every header');

done_testing();
