
# Copyright (c) slimheap contributors
#
# The house of src/ (src/README.md): every C file of a layer folder
# includes only the project headers of its own layer and of the layers
# below it, and every section of a header ("/* slim_x.c ... */") declares
# only functions that slim_x.c defines.  Reads the sources; starts no
# server.

use strict;
use warnings;

use File::Basename qw(basename dirname);
use PostgreSQL::Test::Utils;
use Test::More;

my $root = $ENV{TESTDIR} // '.';

# the layers, from the top down, and what each may use
my %may_use = (
	inspect => [qw(inspect am options format)],
	am => [qw(am options format)],
	options => [qw(options format)],
	format => [qw(format)],);

# the layer each project header belongs to (slim_compat.h: every layer)
my %header_layer = (
	'slim_inspect.h' => 'inspect',
	'slim_verify.h' => 'inspect',
	'slim_page_check.h' => 'inspect',
	'slimheap.h' => 'am',
	'slim_slot.h' => 'am',
	'slim_index.h' => 'am',
	'slim_relayout.h' => 'am',
	'slim_wal.h' => 'am',
	'slim_options.h' => 'options',
	'slim_format.h' => 'format',
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

my %defined_in;
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
	$defined_in{$1} = basename($c) while $text =~ /^([a-z_][a-z0-9_]*)\(/mg;
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

done_testing();
