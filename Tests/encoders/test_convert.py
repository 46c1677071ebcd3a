"""`animplay convert` as a command: output written whole or not at all, inputs never
overwritten, one result line, no escape sequences off a terminal."""
import os, select, signal, subprocess, sys, time
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'Tests', 'pty'))
from requires import requires  # noqa: E402

BIN = os.environ.get('ANIMPLAY_BIN') or next(
    (p for p in (os.path.join(ROOT, '.build', c, 'animplay') for c in ('release', 'debug')) if os.path.exists(p)),
    os.path.join(ROOT, '.build', 'debug', 'animplay'))
BOUNCE = os.path.join(ROOT, 'samples', 'bounce.gif')


def run(*args, **kw):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120, **kw)


def test_writes_one_result_line_and_no_escapes(tmp_path):
    out = tmp_path / 'b.webp'
    p = run('convert', BOUNCE, '-o', str(out))
    assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and '20 frames' in lines[0] and 'b.webp' in lines[0]
    assert '\x1b' not in p.stderr and '\r' not in p.stderr
    assert out.read_bytes()[8:12] == b'WEBP'
    assert os.listdir(tmp_path) == ['b.webp']   # no temporary file left


def test_refuses_to_overwrite_the_input(tmp_path):
    src = tmp_path / 'x.gif'
    src.write_bytes(open(BOUNCE, 'rb').read())
    before = src.read_bytes()
    link = tmp_path / 'y.gif'
    os.link(src, link)   # the same file under another name
    for target in (src, link):
        p = run('convert', str(src), '-o', str(target))
        assert p.returncode == 64 and 'is an input' in p.stderr
    assert src.read_bytes() == before


def reference(tmp_path, fmt):
    """The bytes `convert` writes to a new regular file in format `fmt`."""
    ref = tmp_path / f'reference.{fmt}'
    p = run('convert', BOUNCE, '-o', str(ref), '--format', fmt)
    assert p.returncode == 0, p.stderr
    return ref.read_bytes()


@pytest.mark.parametrize('fmt', ['gif', 'apng', 'webp'])
def test_a_fifo_gets_the_whole_file_and_stays_a_fifo(tmp_path, fmt):
    # A device, a FIFO or /dev/stdout is written into, never renamed over (renaming made
    # `-o /dev/null` a plain file); the encoders patch headers in place, which a pipe cannot
    # take, so the file is made aside first. APNG and WebP patch, GIF does not.
    expected = reference(tmp_path, fmt)
    fifo = tmp_path / 'out'
    os.mkfifo(fifo)
    # Opened without blocking, before the writer: a build that renamed over the FIFO would
    # leave this reader with nothing (a failure, not a hang).
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    proc = subprocess.Popen([BIN, 'convert', BOUNCE, '-o', str(fifo), '--format', fmt],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    got = b''
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        select.select([reader], [], [], 0.1)
        try:
            data = os.read(reader, 65536)
        except BlockingIOError:
            data = None
        if data:
            got += data
        elif proc.poll() is not None:
            break
    os.close(reader)
    assert proc.wait(timeout=60) == 0, proc.stderr.read()
    assert got == expected
    assert os.path.exists(fifo) and os.stat(fifo).st_mode & 0o170000 == 0o010000   # still a FIFO
    assert sorted(os.listdir(tmp_path)) == ['out', f'reference.{fmt}']


def test_standard_output_by_its_dev_path_into_a_pipe_and_a_redirected_file(tmp_path):
    # /dev/fd/1 (what /dev/stdout links to): a build that renamed over it would fail to make
    # its temporary file in /proc, rather than replace a system file.
    expected = reference(tmp_path, 'webp')
    p = subprocess.run([BIN, 'convert', BOUNCE, '-o', '/dev/fd/1', '--format', 'webp'],
                       capture_output=True, timeout=60)
    assert p.returncode == 0 and p.stdout == expected
    target = tmp_path / 'shell.webp'
    target.write_bytes(b'x' * 50000)   # longer than the result: emptied first, as `>` would
    with open(target, 'r+b') as f:
        p = subprocess.run([BIN, 'convert', BOUNCE, '-o', '/dev/fd/1', '--format', 'webp'],
                           stdout=f, stderr=subprocess.PIPE, timeout=60)
    assert p.returncode == 0 and target.read_bytes() == expected
    assert sorted(os.listdir(tmp_path)) == ['reference.webp', 'shell.webp']


def test_a_character_device_stays_one(tmp_path):
    node = tmp_path / 'null'
    try:
        os.mknod(node, 0o666 | 0o020000, os.makedev(1, 3))   # what /dev/null is
    except PermissionError:
        pytest.skip('mknod needs CAP_MKNOD')
    p = run('convert', BOUNCE, '-o', str(node), '--format', 'gif')
    assert p.returncode == 0, p.stderr
    st = os.stat(node)
    assert st.st_mode & 0o170000 == 0o020000 and st.st_rdev == os.makedev(1, 3)


def test_a_symbolic_link_stays_and_the_file_keeps_its_permissions(tmp_path):
    expected = reference(tmp_path, 'gif')
    real = tmp_path / 'real.gif'
    real.write_bytes(b'old')
    os.chmod(real, 0o600)
    link = tmp_path / 'link.gif'
    os.symlink('real.gif', link)
    p = run('convert', BOUNCE, '-o', str(link))
    assert p.returncode == 0, p.stderr
    assert os.readlink(link) == 'real.gif' and real.read_bytes() == expected
    assert os.stat(real).st_mode & 0o777 == 0o600
    assert sorted(os.listdir(tmp_path)) == ['link.gif', 'real.gif', 'reference.gif']


def test_a_new_file_follows_the_umask(tmp_path):
    out = tmp_path / 'new.gif'
    p = subprocess.run([BIN, 'convert', BOUNCE, '-o', str(out)], capture_output=True, text=True,
                       timeout=60, preexec_fn=lambda: os.umask(0o027))
    assert p.returncode == 0, p.stderr
    assert os.stat(out).st_mode & 0o777 == 0o640


def test_a_dangling_link_or_a_folder_is_refused_in_one_line(tmp_path):
    os.symlink('missing.gif', tmp_path / 'dangling.gif')
    (tmp_path / 'folder').mkdir()
    for target, status, words in (('dangling.gif', 2, 'symbolic link to a missing file'),
                                  ('folder', 64, 'is a folder')):
        p = run('convert', BOUNCE, '-o', str(tmp_path / target), '--format', 'gif')
        assert p.returncode == status and words in p.stderr and p.stderr.count('\n') == 1, p.stderr
    assert os.readlink(tmp_path / 'dangling.gif') == 'missing.gif'
    assert sorted(os.listdir(tmp_path)) == ['dangling.gif', 'folder']


def test_format_from_the_extension_or_the_option(tmp_path):
    p = run('convert', BOUNCE, '-o', str(tmp_path / 'x.bin'))
    assert p.returncode == 64 and 'output format' in p.stderr
    p = run('convert', BOUNCE, '-o', str(tmp_path / 'x.bin'), '--format', 'apng')
    assert p.returncode == 0, p.stderr
    assert (tmp_path / 'x.bin').read_bytes()[:8] == b'\x89PNG\r\n\x1a\n'


def test_a_failed_conversion_leaves_nothing(tmp_path):
    bad = tmp_path / 'bad.gif'
    bad.write_bytes(b'GIF89a\x10\x00')
    p = run('convert', str(bad), '-o', str(tmp_path / 'out.gif'))
    assert p.returncode != 0 and p.stderr.count('\n') == 1
    assert sorted(os.listdir(tmp_path)) == ['bad.gif']


def test_range_mode_speed_loop_and_scale(tmp_path):
    out = tmp_path / 'o.png'
    p = run('convert', BOUNCE, '-o', str(out), '--range', '2-5', '--mode', 'bounce', '--speed', '2',
            '--loop', '3', '--scale', '0.5')
    assert p.returncode == 0, p.stderr
    import json
    info = json.loads(run('info', str(out), '--json').stdout)
    src = json.loads(run('info', BOUNCE, '--json').stdout)
    assert info['frameCount'] == 6 and info['plays'] == 3   # 2 3 4 5 4 3
    assert (info['width'], info['height']) == (src['width'] // 2, src['height'] // 2)
    want = [src['frames'][i]['displayMs'] / 2 for i in (2, 3, 4, 5, 4, 3)]
    assert [f['displayMs'] for f in info['frames']] == pytest.approx(want, abs=0.5)


def test_range_to_b_is_taken_as_written_in_the_help(tmp_path):
    # `--range -B` (and any negative value) was read as an unknown option: "Missing value".
    out = tmp_path / 'r.gif'
    p = run('convert', BOUNCE, '-o', str(out), '--range', '-5')
    assert p.returncode == 0, p.stderr
    assert '6 frames' in p.stderr
    p = run('dump', BOUNCE, '-o', str(tmp_path / 'd'), '--range', '-2')
    assert p.returncode == 0, p.stderr
    assert sorted(os.listdir(tmp_path / 'd')) == ['frame-0000.ppm', 'frame-0001.ppm', 'frame-0002.ppm']
    for option, message in (('--quality', '--quality must be 0 to 100, got -1.0'),
                             ('--loop', '--loop must be 0 (forever) or more, got -1'),
                             ('--stall-timeout', '--stall-timeout must be 1 to 1000000 seconds, got -1')):
        p = run('convert', BOUNCE, '-o', str(out), option, '-1')
        assert p.returncode == 64 and message in p.stderr, p.stderr


def test_an_output_size_over_the_limits_is_refused_before_anything_is_made(tmp_path):
    # --resize 60000x60000 asked for 14 GB a frame (a fatal allocation failure under a memory
    # limit); the output is held to the decoding limits, which --max-pixels raises.
    out = tmp_path / 'big.png'
    import resource
    # A regression fails fast against 4 GB of address space instead of taking the machine's memory.
    capped = lambda: resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    p = run('convert', BOUNCE, '-o', str(out), '--resize', '60000x60000', preexec_fn=capped)
    assert p.returncode == 4
    assert p.stderr == (f'animplay: {out}: too large: output canvas 60000x60000 exceeds 33554432 pixels '
                        '(see --max-pixels, --max-dimension, --max-memory-mb)\n')
    assert os.listdir(tmp_path) == []
    p = run('convert', BOUNCE, '-o', str(out), '--scale', '16', '--max-pixels', '1000000')
    assert p.returncode == 4 and 'output canvas 1536x1536 exceeds 1000000 pixels' in p.stderr
    p = run('convert', BOUNCE, '-o', str(out), '--resize', '1000x1000', '--max-pixels', '1000000')
    assert p.returncode == 0, p.stderr


@requires('ffmpeg')
def test_interrupt_leaves_no_output(tmp_path):
    src = tmp_path / 'big.gif'
    subprocess.run(['ffmpeg', '-nostdin', '-v', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=25',
                    '-frames:v', '150', str(src)], check=True)
    out = tmp_path / 'big.webp'
    proc = subprocess.Popen([BIN, 'convert', str(src), '-o', str(out), '--method', '6'],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # Wait for the temporary file to appear (the encoder is running), then interrupt.
    deadline = time.monotonic() + 60
    while not any(n.startswith('.big.webp.animplay-') for n in os.listdir(tmp_path)):
        assert proc.poll() is None, 'finished before it could be interrupted'
        assert time.monotonic() < deadline
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=60)[1]
    assert proc.returncode != 0 and 'interrupted' in err
    assert sorted(os.listdir(tmp_path)) == ['big.gif']


def durations(path, *options):
    import json
    p = run('info', str(path), '--json', *options)
    assert p.returncode == 0, p.stderr
    return [f['displayMs'] for f in json.loads(p.stdout)['frames']]


@pytest.mark.parametrize('fmt', ['webp', 'gif', 'png'])
def test_fps_and_delay_retime_every_frame_of_an_animation(tmp_path, fmt):
    src = durations(BOUNCE)
    assert len(set(src)) > 1 or src[0] != 50   # the retiming changes something
    out = tmp_path / ('fps.' + fmt)
    p = run('convert', BOUNCE, '--fps', '20', '-o', str(out))
    assert p.returncode == 0, p.stderr
    assert durations(out) == [50] * len(src)
    # --delay is the same in milliseconds, and --speed then scales it.
    out = tmp_path / ('delay.' + fmt)
    p = run('convert', BOUNCE, '--delay', '80', '--speed', '2', '-o', str(out))
    assert p.returncode == 0, p.stderr
    assert durations(out) == [40] * len(src)


def test_play_and_info_retime_animations_the_same_way(tmp_path):
    # play and info open their input as convert does: what info reports is what play schedules.
    n = len(durations(BOUNCE))
    assert durations(BOUNCE, '--fps', '4') == [250] * n
    assert durations(BOUNCE, '--delay', '30') == [30] * n


@pytest.mark.parametrize('options, message', [
    (['--fps', '10', '--delay', '50'], 'not both'),
    (['--fps', '10', '--raw-delays'], '--raw-delays'),
    (['--delays', '10,20'], '--delays applies'),
    (['--frames', '3'], '--frames applies'),
])
def test_contradictory_timing_options_are_usage_errors(tmp_path, options, message):
    for command in (['convert', BOUNCE, '-o', str(tmp_path / 'x.webp')], ['info', BOUNCE]):
        p = run(*command, *options)
        assert p.returncode == 64, (command, options, p.stderr)
        assert message in p.stderr and p.stderr.count('\n') <= 3
    assert not (tmp_path / 'x.webp').exists()


def test_webp_is_inexact_under_alpha_0_unless_exact(tmp_path):
    # moon_impact's frames keep colours under alpha 0: gif2webp's default (inexact) is smaller.
    src = os.path.join(ROOT, 'Tests', 'Fixtures', 'corpus', 'inputs', 'gif', 'image-gif', 'moon_impact.gif')
    default, exact = tmp_path / 'd.webp', tmp_path / 'e.webp'
    assert run('convert', src, '-o', str(default)).returncode == 0
    assert run('convert', src, '-o', str(exact), '--exact').returncode == 0
    assert default.stat().st_size < exact.stat().st_size
    frames = {}
    for name in ('src', 'd', 'e'):
        d = tmp_path / (name + '-frames')
        p = run('dump', src if name == 'src' else str(tmp_path / (name + '.webp')), '-o', str(d), '--format', 'pam')
        assert p.returncode == 0, p.stderr
        frames[name] = [(d / f).read_bytes() for f in sorted(os.listdir(d))]

    def shown(data):   # as a browser shows it: no colour under alpha 0
        b = bytearray(data[data.index(b'ENDHDR\n') + 7:])
        for i in range(3, len(b), 4):
            if b[i] == 0:
                b[i - 3:i] = b'\0\0\0'
        return bytes(b)
    # The same pictures: what libwebp changed lies under alpha 0 (here in frame rectangles
    # blended over what is below, so not even the composited colours differ).
    assert len(frames['d']) == len(frames['e'])
    assert [shown(f) for f in frames['d']] == [shown(f) for f in frames['e']]


def test_several_animations_are_joined_with_every_frame(tmp_path):
    # gifsicle a.gif b.gif and ImageMagick join animations; convert took the first frame of
    # each (with a warning). Now every frame of each, composited, at its own time, the smaller
    # one centred; APNG keeps every picture exactly, so its frames are the inputs' frames.
    import json
    pulse = os.path.join(ROOT, 'samples', 'pulse.webp')
    out = tmp_path / 'both.png'
    p = run('convert', BOUNCE, pulse, '-o', str(out))
    lines = p.stderr.splitlines()
    assert p.returncode == 0 and len(lines) == 2 and 'animated' not in p.stderr, p.stderr
    assert lines[0].endswith('warning: images differ in size (2 sizes): each is centred on the 96x96 canvas')
    info = json.loads(run('info', str(out), '--json').stdout)
    a = json.loads(run('info', BOUNCE, '--json').stdout)
    b = json.loads(run('info', pulse, '--json').stdout)
    assert info['frameCount'] == a['frameCount'] + b['frameCount'] == 36
    assert [f['displayMs'] for f in info['frames']] == [f['displayMs'] for f in a['frames'] + b['frames']]
    dumps = {}
    for name, args in (('out', [str(out)]), ('a', [BOUNCE]), ('b', [pulse])):
        d = tmp_path / name
        assert run('dump', *args, '-o', str(d), '--format', 'pam').returncode == 0
        dumps[name] = sorted(os.listdir(d))
    assert len(dumps['out']) == 36

    def pixels(folder, name):
        data = open(tmp_path / folder / name, 'rb').read()
        return data[data.index(b'ENDHDR\n') + 7:]
    for k in range(20):
        assert pixels('out', dumps['out'][k]) == pixels('a', dumps['a'][k]), k
    for k in range(16):     # 64x64 centred on 96x96: rows 16..79, columns 16..79
        frame = pixels('out', dumps['out'][20 + k])
        inside = b''.join(frame[(y * 96 + 16) * 4:(y * 96 + 80) * 4] for y in range(16, 80))
        assert inside == pixels('b', dumps['b'][k]), k
