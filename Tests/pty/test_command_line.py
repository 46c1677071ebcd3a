"""Command-line mistakes get a usage error (64) with a message that says what exists."""
import os, subprocess
import ptyharness as h

SAMPLES = os.path.join(h.ROOT, 'samples')


def animplay(*args):
    return subprocess.run([h.binary(), *args], capture_output=True, text=True, stdin=subprocess.DEVNULL)


def test_unknown_tag_is_a_usage_error_naming_the_tags():
    for sub in ('info', 'dump'):
        extra = ['-o', '/tmp/animplay-never-written'] if sub == 'dump' else []
        r = animplay(sub, os.path.join(SAMPLES, 'walk-sheet.png'), '--atlas', os.path.join(SAMPLES, 'walk-sheet.json'),
                     '--tag', 'run', *extra)
        assert r.returncode == 64
        assert r.stderr.strip() == (f'animplay: {SAMPLES}/walk-sheet.json: --tag "run": no such tag; '
                                    'the atlas has "walk", "step-back", "stride"')
    assert not os.path.exists('/tmp/animplay-never-written')


def test_negative_loop_and_zero_memory_are_explained():
    r = animplay(os.path.join(SAMPLES, 'bounce.gif'), '--loop', '-1')
    assert r.returncode == 64 and 'Error: --loop must be 0 (forever) or more' in r.stderr
    r = animplay('info', os.path.join(SAMPLES, 'bounce.gif'), '--max-memory-mb', '0')
    assert r.returncode == 64 and 'Error: --max-memory-mb must be 1 to 1048576, got 0' in r.stderr



def test_raw_delays_of_zero_say_what_play_does(tmp_path):
    from gifwriter import write_gif
    p = str(tmp_path / 'zero.gif')
    write_gif(p, 4, 4, [[(255, 0, 0)] * 16, [(0, 0, 255)] * 16], delay_cs=0, loops=0)
    raw = animplay('info', p, '--raw-delays')
    assert raw.returncode == 0
    assert ('duration  0 ms per play (every delay is 0: play shows one frame per display tick, 1/--max-fps, '
            '16.7 ms at the default 60 fps)') in raw.stdout
    browser = animplay('info', p)
    assert 'duration  200 ms per play\n' in browser.stdout
