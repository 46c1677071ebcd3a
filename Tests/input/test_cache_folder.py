"""The cache folder against other users and interrupted runs: planted links and permissions,
partial files of killed or interrupted stores, a lock held by a stopped process, and the
listing and removal of entries (`cache info`, `cache remove`). Each test has its own cache."""
import glob, os, shutil, signal, stat, subprocess, sys, tempfile, time
import pytest
import ptyharness as h
from gifwriter import write_gif
from cacheruns import run

RED, BLUE = (250, 0, 0), (0, 0, 250)


@pytest.fixture(scope='module')
def root():
    d = tempfile.mkdtemp(prefix='animplay-folder-')
    write_gif(os.path.join(d, 'two.gif'), 40, 20, [[RED] * 800, [BLUE] * 800], delay_cs=5, loops=1)
    pal = [(k, 255 - k, k // 2) for k in range(200)]
    frames = [[pal[(x + 3 * y + 7 * f) % 200] for y in range(120) for x in range(256)] for f in range(14)]
    write_gif(os.path.join(d, 'a.gif'), 256, 120, frames, delay_cs=4, loops=0)
    # Large enough that writing and fsyncing its entry takes a while (the signal tests).
    frames = [[pal[(x + 5 * y + 11 * f) % 200] for y in range(480) for x in range(640)] for f in range(30)]
    write_gif(os.path.join(d, 'big.gif'), 640, 480, frames, delay_cs=4, loops=0)
    # 64 MB (a comment extension before the frames), so that writing and fsyncing its entry
    # takes long enough on any machine for the signal tests to see its partial file.
    two = open(os.path.join(d, 'two.gif'), 'rb').read()
    gct = 3 << ((two[10] & 7) + 1) if two[10] & 0x80 else 0
    comment = b'\x21\xfe' + (b'\xff' + b'c' * 255) * (64 << 12) + b'\x00'
    with open(os.path.join(d, 'huge.gif'), 'wb') as f:
        f.write(two[:13 + gct] + comment + two[13 + gct:])
    yield d
    shutil.rmtree(d, ignore_errors=True)


def folder(env, *parts):
    return os.path.join(env['XDG_CACHE_HOME'], 'animplay', *parts)


def entries(env):
    return glob.glob(folder(env, 'entries', '*.entry'))


def test_folders_are_created_private(server, env):
    assert run(['info', server.url('/f/two.gif')], env).returncode == 0
    for p in (folder(env), folder(env, 'entries'), folder(env, 'tmp')):
        assert stat.S_IMODE(os.stat(p).st_mode) == 0o700, p
    assert stat.S_IMODE(os.stat(folder(env, 'lock')).st_mode) == 0o600


@pytest.mark.parametrize('mode', [0o777, 0o775, 0o757])
def test_a_folder_others_can_write_is_not_used(server, env, mode):
    url = server.url('/f/two.gif?maxage=600')
    assert run(['info', url], env).returncode == 0
    os.chmod(folder(env), mode)
    r = run(['info', url], env)
    assert r.returncode == 0 and b'frames    2' in r.stdout
    lines = r.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and 'written by others' in lines[0] and 'without the cache' in lines[0], lines
    assert len(server.requests) == 2            # the planted-or-not entry was not trusted
    r = run(['cache', 'clear'], env)
    assert r.returncode == 2 and len(entries(env)) == 1     # nothing deleted there either


def test_a_tmp_link_never_makes_a_download_delete_files_elsewhere(server, env, tmp_path):
    victim = tmp_path / 'victim'
    victim.mkdir()
    old = victim / 'precious.txt'
    old.write_text('keep me')
    os.utime(old, (time.time() - 7200, time.time() - 7200))   # older than an hour
    assert run(['info', server.url('/f/two.gif')], env).returncode == 0
    shutil.rmtree(folder(env, 'tmp'))
    os.symlink(victim, folder(env, 'tmp'))
    r = run(['info', server.url('/f/two.gif?x=1')], env)
    assert r.returncode == 0 and b'frames    2' in r.stdout
    assert b'link or not a folder' in r.stderr
    r = run(['cache', 'clear'], env)
    assert old.read_text() == 'keep me' and os.listdir(victim) == ['precious.txt']


def test_an_entry_link_is_neither_followed_nor_its_target_deleted(server, env, tmp_path):
    url = server.url('/f/two.gif?maxage=600')
    assert run(['info', url], env).returncode == 0
    [entry] = entries(env)
    target = tmp_path / 'elsewhere.entry'
    shutil.move(entry, target)
    os.symlink(target, entry)
    r = run(['info', url], env)
    assert r.returncode == 0 and len(server.requests) == 2     # not read through the link
    assert target.exists()
    r = run(['cache', 'clear'], env)
    assert r.returncode == 0 and target.exists()


def test_a_lock_link_does_not_create_its_target(server, env, tmp_path):
    assert run(['info', server.url('/f/two.gif')], env).returncode == 0
    os.remove(folder(env, 'lock'))
    target = tmp_path / 'created-by-animplay'
    os.symlink(target, folder(env, 'lock'))
    r = run(['info', server.url('/f/two.gif')], env)
    assert r.returncode == 0 and b'not a plain file' in r.stderr
    assert not os.path.lexists(target)


def test_a_folder_of_another_user_is_not_used(server, env, tmp_path):
    if os.geteuid() != 0:
        pytest.skip('needs root to hand the folder to another user')
    assert run(['info', server.url('/f/two.gif')], env).returncode == 0
    os.chown(folder(env), 65534, 65534)     # nobody
    r = run(['info', server.url('/f/two.gif')], env)
    assert r.returncode == 0 and b'belongs to user id 65534' in r.stderr
    r = run(['cache', 'info'], env)
    assert r.returncode == 2 and b'belongs to user id 65534' in r.stderr


def test_a_second_user_cannot_plant_an_entry(server, env, request):
    # As a second user (nobody) with the folder group/other-writable, as a careless setup
    # would be: the owner's run refuses the folder instead of playing what was planted.
    if os.geteuid() != 0:
        pytest.skip('needs root to run as a second user')
    base = tempfile.mkdtemp(prefix='animplay-second-user-')     # reachable by the second user
    request.addfinalizer(lambda: shutil.rmtree(base, ignore_errors=True))
    env = dict(env, XDG_CACHE_HOME=os.path.join(base, 'xdg'))
    url = server.url('/f/two.gif?maxage=600')
    assert run(['info', url], env).returncode == 0
    for p in (base, env['XDG_CACHE_HOME']):
        os.chmod(p, 0o755)
    for p in (folder(env), folder(env, 'entries')):
        os.chmod(p, 0o777)
    [entry] = entries(env)
    planted = open(entry, 'rb').read()
    subprocess.run(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', 'sh', '-c',
                    f'rm -f {entry} && cat > {entry}'], input=planted, check=True)
    assert os.stat(entry).st_uid == 65534
    r = run(['info', url], env)
    assert r.returncode == 0 and b'written by others' in r.stderr
    assert len(server.requests) == 2


# --- 6: partial files ---------------------------------------------------------------------------

@pytest.mark.parametrize('sig', [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_store_interrupted_by_a_signal_leaves_no_part(server, env, root, sig):
    # A 64 MB body takes a while to be written and fsynced: the signal comes while its
    # partial file exists (watched for in a tight loop).
    url = server.url('/f/huge.gif')
    # The signals' default actions, whatever this runner inherited: under `nohup` SIGHUP comes
    # ignored (a shell's background job: SIGINT), and animplay rightly leaves an ignored signal
    # ignored (the store then finishes).
    restore = ('import os, signal, sys\n'
               'for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP): signal.signal(s, signal.SIG_DFL)\n'
               'os.execv(sys.argv[1], sys.argv[1:])')
    p = subprocess.Popen([sys.executable, '-c', restore, h.binary(), 'info', url], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    parts = []
    while not parts and p.poll() is None and time.monotonic() < deadline:
        parts = glob.glob(folder(env, 'tmp', '*.part'))
    assert parts, 'the store finished before its partial file was seen'
    p.send_signal(sig)
    p.wait(30)
    assert p.returncode == -sig
    assert glob.glob(folder(env, 'tmp', '*')) == []


def test_cache_info_counts_and_removes_the_part_of_a_killed_store(server, env, root):
    assert run(['info', server.url('/f/two.gif')], env).returncode == 0
    # A killed store's leftover: a part named after a process that no longer runs.
    dead = subprocess.Popen(['true']); dead.wait()
    part = folder(env, 'tmp', f'{dead.pid}-1-123.part')
    open(part, 'wb').write(bytes(300_000))
    live = folder(env, 'tmp', f'{os.getpid()}-1-456.part')
    open(live, 'wb').write(bytes(1000))
    r = run(['cache', 'info'], env)
    assert r.returncode == 0
    assert b'removed    1 partial download of interrupted runs (300000 bytes)' in r.stdout, r.stdout
    assert b'storing    1 download in progress' in r.stdout
    assert not os.path.exists(part) and os.path.exists(live)


# --- 10: a lock held by a stopped process -------------------------------------------------------

@pytest.mark.parametrize('command', ['info', 'clear', 'remove'])
def test_cache_commands_name_the_process_holding_the_lock(server, env, command):
    assert run(['info', server.url('/f/two.gif')], env).returncode == 0
    holder = subprocess.Popen(['python3', '-c', 'import fcntl, os, sys, time\n'
                               f'fd = os.open({folder(env, "lock")!r}, os.O_RDWR)\n'
                               'fcntl.flock(fd, fcntl.LOCK_EX); print("held", flush=True); time.sleep(120)'],
                              stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline() == b'held\n'
        holder.send_signal(signal.SIGSTOP)
        t0 = time.monotonic()
        r = run(['cache', command] + ([server.url('/f/two.gif')] if command == 'remove' else []), env, timeout=30)
        took = time.monotonic() - t0
        assert r.returncode == 1
        lines = r.stderr.decode().strip().splitlines()
        assert len(lines) == 1 and f'locked by process {holder.pid}' in lines[0], lines
        assert took < 10
    finally:
        holder.kill(); holder.wait()
    assert len(entries(env)) == 1


# --- issue 22 item 7: the entries listed, one removed --------------------------------------------

def test_cache_info_lists_entries_and_remove_drops_one(server, env):
    fresh = server.url('/f/two.gif?maxage=600')
    stale = f'http://bob:pw@127.0.0.1:{server.port}/f/a.gif'
    assert run(['info', fresh], env).returncode == 0
    assert run(['info', stale], env).returncode == 0
    r = run(['cache', 'info'], env)
    assert r.returncode == 0
    out = r.stdout.decode()
    assert 'entries    2' in out
    rows = {line.split()[-1]: line.split() for line in out.splitlines() if 'http://' in line}
    assert rows[fresh][2] == 'fresh' and rows[f'http://bob:***@127.0.0.1:{server.port}/f/a.gif'][2] == 'stale'
    for row in rows.values():
        assert int(row[0]) > 0 and row[1].endswith('s') and row[3].endswith('s')
    r = run(['cache', 'remove', stale], env)
    assert r.returncode == 0 and b'bob:***@' in r.stdout and b'pw' not in r.stdout
    assert len(entries(env)) == 1
    r = run(['cache', 'remove', stale], env)
    assert r.returncode == 1 and b'not in the cache' in r.stderr
    r = run(['info', fresh], env)
    assert r.returncode == 0 and len(server.requests) == 2      # the other entry still serves
