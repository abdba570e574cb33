#
# SlimFuzz::Session: one long-lived psql process that runs SQL text and
# returns what it printed on stdout and stderr, separately, per call.
#
# Each call appends "\echo MARK" and "\warn MARK" after the SQL, and reads
# until both streams have shown the mark, so the output of a call never
# mixes with the next one.  If psql exits (the server crashed, or the
# connection broke) the call says so instead of hanging.
#
package SlimFuzz::Session;

use strict;
use warnings;

use IPC::Run ();

sub new
{
	my ($class, %opts) = @_;
	my $self = bless {
		psql => $opts{psql} || 'psql',
		host => $opts{host},
		port => $opts{port},
		dbname => $opts{dbname} || 'postgres',
		user => $opts{user},
		timeout => $opts{timeout} || 900,
		calls => 0,
	}, $class;
	$self->_start;
	return $self;
}

sub _cmd
{
	my ($self, @extra) = @_;
	my @cmd = ($self->{psql}, '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=0');
	push @cmd, '-h', $self->{host} if defined $self->{host};
	push @cmd, '-p', $self->{port} if defined $self->{port};
	push @cmd, '-U', $self->{user} if defined $self->{user};
	push @cmd, '-d', $self->{dbname}, @extra;
	return @cmd;
}

sub _start
{
	my ($self) = @_;
	$self->{in} = '';
	$self->{out} = '';
	$self->{err} = '';
	$self->{timer} = IPC::Run::timeout($self->{timeout});
	$self->{h} = IPC::Run::start([ $self->_cmd ],
		'<', \$self->{in}, '>', \$self->{out}, '2>', \$self->{err},
		$self->{timer});
	# NOTICEs (DROP ... IF EXISTS, ...) are not part of what we compare
	$self->query('SET client_min_messages = warning');
	return;
}

# Run $sql; returns { out => ..., err => ..., lost => 0|1 }.
sub query
{
	my ($self, $sql) = @_;
	$self->send($sql);
	return $self->collect;
}

# Start running $sql and return at once (one statement at a time: collect
# it before the next send).
sub send
{
	my ($self, $sql) = @_;
	my $mark = '__slimfuzz_mark_' . ++$self->{calls} . '__';

	$self->{out} = '';
	$self->{err} = '';
	# psql sends a statement when it sees its semicolon (COPY data ends
	# with its own line)
	$sql .= ';' unless $sql =~ /;\s*\z/ || $sql =~ /^\\\.\z/m;
	$self->{in} .= "$sql\n\\echo $mark\n\\warn $mark\n";
	$self->{mark} = $mark;
	# let psql have it now: the statement may wait for another session's
	$self->{h}->pump_nb while length $self->{in};
	return;
}

# Wait for what send() started: { out => ..., err => ..., lost => 0|1 }.
sub collect
{
	my ($self) = @_;
	my $mark_re = qr/^\Q$self->{mark}\E\n/m;

	$self->{timer}->start($self->{timeout});
	my $lost = 0;
	eval {
		while ($self->{out} !~ $mark_re || $self->{err} !~ $mark_re)
		{
			die "psql exited\n" unless $self->{h}->pumpable;
			$self->{h}->pump;
		}
		1;
	} or do {
		$lost = 1;
		$self->{err} .= "\n[psql session lost: $@]";
	};

	my ($out, $err) = ($self->{out}, $self->{err});
	$out =~ s/$mark_re//;
	$err =~ s/$mark_re//;
	return { out => $out, err => $err, lost => $lost };
}

# Run $sql; die with psql's error output unless it ran cleanly.
sub query_safe
{
	my ($self, $sql) = @_;
	my $r = $self->query($sql);
	die "query failed: $sql\n$r->{err}\n" if $r->{lost} || $r->{err} ne '';
	return $r->{out};
}

# After a lost session: wait until the server accepts connections again
# (it reinitializes itself after a backend crash), then start a new psql.
sub reconnect
{
	my ($self, $wait) = @_;
	$wait ||= 180;
	eval { $self->{h}->kill_kill; 1 };
	for (1 .. $wait)
	{
		my ($out, $err) = ('', '');
		my $ok = eval {
			IPC::Run::run([ $self->_cmd('-c', 'SELECT 1') ],
				'<', \undef, '>', \$out, '2>', \$err, IPC::Run::timeout(30));
		};
		if ($ok && $out =~ /^1$/m)
		{
			$self->_start;
			return 1;
		}
		sleep 1;
	}
	die "server did not come back within $wait seconds\n";
}

sub close
{
	my ($self) = @_;
	return unless $self->{h};
	$self->{in} .= "\\q\n";
	eval { $self->{h}->finish; 1 } or eval { $self->{h}->kill_kill; 1 };
	delete $self->{h};
	return;
}

sub DESTROY
{
	my ($self) = @_;
	# reaping psql must not change the exit status of the program
	local $?;
	$self->close;
	return;
}

1;
