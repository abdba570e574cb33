# Copyright (c) slimheap contributors
#
# Every SQL example of the README, CONTRIBUTING.md and docs/ runs as
# written.  Each ```sql block is run with psql (ON_ERROR_STOP, so \gexec
# and the other meta-commands work), the blocks of one file in order, in a
# database of their own (docs_1, docs_2, ...) on a node that preloads
# slimheap, starting without the extension: a file's examples create
# what they use.  An HTML comment right before a block tells this test
# more, "key value" pairs separated by ";":
#
#   <!-- docs-test: setup SQL -->   run SQL first (what the text assumes;
#                                   on one line, ";" between statements)
#   <!-- docs-test: error -->       the block must fail
#   <!-- docs-test: database D -->  run it in database D (created once)
#   <!-- docs-test: node N -->      run it on another node, N, made on
#                                   first use; "host=N" and "'N', 5432" in
#                                   any block become N's socket and port
#   <!-- docs-test: needs citus --> nodes preload citus too, and the block
#                                   runs in their postgres database, where
#                                   Citus is; skipped, with a line saying
#                                   so, where the server has no Citus
#
# A block's text is never changed otherwise.  The test fails when a block
# that should succeed fails, or one marked "error" succeeds.
use strict;
use warnings;

use FindBin;
use lib $FindBin::RealBin;

use File::Basename qw(basename);
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use SlimheapTest;
use Test::More;

my $root = "$FindBin::RealBin/..";
my @files = ("$root/README.md", "$root/CONTRIBUTING.md",
	sort glob("$root/docs/*.md"));

# every ```sql block of a file, with the directives of the comment before it
sub examples_of
{
	my ($path) = @_;
	open(my $fh, '<', $path) or die "cannot read $path: $!";
	my @lines = <$fh>;
	close($fh);

	my (@examples, $pending, $in, $text, $start);
	for my $i (0 .. $#lines)
	{
		my $line = $lines[$i];
		if ($in)
		{
			if ($line =~ /^```\s*$/)
			{
				push @examples,
				  { line => $start, sql => $text, %{ $pending // {} } };
				($in, $pending) = (0, undef);
			}
			else
			{
				$text .= $line;
			}
			next;
		}
		if ($line =~ /^```sql\s*$/)
		{
			($in, $text, $start) = (1, '', $i + 1);
			next;
		}
		if ($line =~ /^<!--\s*docs-test:\s*(.*?)\s*-->\s*$/)
		{
			my %d;
			# ";" ends a pair only before a key: setup SQL has its own
			for my $pair (split /;\s*(?=(?:setup|error|database|node|needs)\b)/,
				$1)
			{
				my ($k, $v) = $pair =~ /^(\S+)\s*(.*)$/s;
				$d{$k} = $v;
			}
			$pending = \%d;
			next;
		}
		# a directive belongs to the next block only across blank lines
		$pending = undef if $line =~ /\S/;
	}
	die "$path: a ```sql block is not closed" if $in;
	return @examples;
}

my %nodes;

sub node_named
{
	my ($name, $citus) = @_;
	return $nodes{$name} if $nodes{$name};
	my $node = PostgreSQL::Test::Cluster->new("docs_$name");
	$node->init(allows_streaming => 'logical');
	my $preload = $citus ? 'citus, slimheap' : 'slimheap';
	$node->append_conf(
		'postgresql.conf', qq{
shared_preload_libraries = '$preload'
max_prepared_transactions = 20
});
	$node->append_conf('postgresql.conf',
		"citus.local_hostname = '" . $node->host . "'\n")
	  if $citus;
	$node->start;
	$node->safe_psql('postgres', 'CREATE EXTENSION citus') if $citus;
	$nodes{$name} = $node;
	return $node;
}

# the node names of a block, resolved to the nodes' socket and port
sub resolve_hosts
{
	my ($sql) = @_;
	for my $name (keys %nodes)
	{
		my ($h, $p) = ($nodes{$name}->host, $nodes{$name}->port);
		$sql =~ s/host=\Q$name\E\b/host=$h port=$p/g;
		$sql =~ s/'\Q$name\E', 5432/'$h', $p/g;
	}
	return $sql;
}

my $main = node_named('main');
my $has_citus = $main->safe_psql('postgres',
	"SELECT count(*) FROM pg_available_extensions WHERE name = 'citus'");
my %made;
my $n = 0;
my $total = 0;

for my $path (@files)
{
	my @examples = examples_of($path);
	next unless @examples;
	$n++;
	my $file = $path;
	$file =~ s{^\Q$root\E/}{};

	for my $ex (@examples)
	{
		my $where = "$file:$ex->{line}";
		my $citus = exists $ex->{needs} && $ex->{needs} eq 'citus';
	  SKIP:
		{
			skip "$where needs Citus, which this server has none of", 1
			  if $citus && !$has_citus;

			# the nodes a block names exist before its hosts are resolved
			my $nodename = $ex->{node} // 'main';
			$nodename = "citus_$nodename" if $citus && $nodename eq 'main';
			my $node = node_named($nodename, $citus);
			if ($citus)
			{
				# the coordinator is the block's node, the others workers
				$nodes{$_} = $node
				  for ($ex->{sql} =~ /citus_set_coordinator_host\('([^']+)'/g);
				node_named($_, 1)
				  for ($ex->{sql} =~ /'([a-z][a-z0-9-]*)', 5432/g);
			}
			# Citus is created in each node's postgres database, and the
			# coordinator reaches its workers' database of the same name
			my $db = $ex->{database} // ($citus ? 'postgres' : "docs_$n");
			unless ($made{"$nodename/$db"}++)
			{
				$node->safe_psql('postgres', qq{CREATE DATABASE "$db"})
				  unless $db eq 'postgres';
			}
			if (defined $ex->{setup})
			{
				$node->safe_psql($db, $ex->{setup});
			}
			my ($out, $err);
			my $rc = $node->psql(
				$db, resolve_hosts($ex->{sql}),
				stdout => \$out,
				stderr => \$err,
				on_error_stop => 1);
			$total++;
			if (exists $ex->{error})
			{
				isnt($rc, 0, "$where fails, as its text says")
				  or diag("it printed: $out");
			}
			else
			{
				is($rc, 0, "$where runs")
				  or diag("it printed: $err");
			}
		}
	}
}

cmp_ok($total, '>=', 10, "$total examples ran");

done_testing();
