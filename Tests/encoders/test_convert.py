"""`animplay convert` as a command: output written whole or not at all, inputs never
overwritten, one result line, no escape sequences off a terminal."""
import os, signal, subprocess, sys, time
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
