
# META.json (PGXN's meta spec, version 1.0.0) agrees with the extension it
# describes.  The full schema check was done with PGXN's own JSON schema
# (docs/infra.md); here, the fields the spec requires and what must match
# the tree.

use strict;
use warnings;

use FindBin;
use JSON::PP;
use PostgreSQL::Test::Utils;
use Test::More;

my $root = "$FindBin::RealBin/..";
my $meta = decode_json(slurp_file("$root/META.json"));

foreach my $field (qw(name abstract version maintainer license provides meta-spec))
{
	ok(exists $meta->{$field}, "META.json has the required field $field");
}
is($meta->{name}, 'slimheap', 'the distribution is slimheap');
my $semver = qr/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;
like($meta->{version}, $semver, 'its version is a semantic version');
is($meta->{'meta-spec'}{version}, '1.0.0', 'meta-spec 1.0.0');

my $control = slurp_file("$root/slimheap.control");
my ($default_version) = $control =~ /^default_version = '([^']+)'/m;
my $ext = $meta->{provides}{slimheap};
ok(-f "$root/$ext->{file}", "provides.slimheap.file $ext->{file} exists");
like($ext->{version}, $semver, 'the extension version is a semantic version');
is($ext->{version} =~ s/\.0$//r, $default_version,
	"it is the control file's default_version $default_version");
like($ext->{file}, qr/^slimheap--\Q$default_version\E\.sql$/,
	'the file is the script of that version');

# (make dist needs the git checkout, which the test copy of the tree does
# not have: scripts/package.sh test checks the tarball)

done_testing();
