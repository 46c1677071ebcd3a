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


def test_a_line_break_in_a_file_name_does_not_split_a_message(tmp_path):
    # An error names the file on its one line; `info`'s header line too, and a warning.
    r = animplay('info', str(tmp_path / 'no\nsuch.gif'))
    assert r.returncode == 2 and r.stderr.count('\n') == 1 and 'no\\x0Asuch.gif: cannot read file' in r.stderr
    named = tmp_path / 'two\nlines.gif'
    named.write_bytes(open(os.path.join(SAMPLES, 'bounce.gif'), 'rb').read()[:300])   # truncated: a warning
    r = animplay('info', str(named))
    assert r.returncode == 0 and r.stdout.splitlines()[0] == str(named).replace('\n', '\\x0A')
    r = animplay('dump', str(named), '-o', str(tmp_path / 'frames'))
    warnings = [l for l in r.stderr.splitlines() if 'warning' in l]
    assert warnings and all(l.startswith('animplay: ' + str(named).replace('\n', '\\x0A') + ': warning: ') for l in warnings)


def test_convert_draws_its_progress_bar_on_a_terminal_and_erases_it(tmp_path):
    # The bar's carriage returns and the final erase are the program's own bytes, written as
    # they are (escaped like outside text, they showed as "\x0D[###...]" across the screen).
    out = tmp_path / 'x.webp'
    r = h.run(['convert', os.path.join(SAMPLES, 'bounce.gif'), '-o', str(out)], cols=250, rows=24)
    assert r.status == 0
    assert b'\r[' in r.output and b'20/20 frames' in r.output and b'\\x0D' not in r.output
    shown = [l.rstrip() for l in r.screen.display if l.strip()]
    assert len(shown) == 1 and shown[0].startswith(f'{out}: 20 frames, 96x96, 4233 B -> {out.stat().st_size} B, ')


def test_limits_raised_as_far_as_they_go_still_refuse_in_one_line(tmp_path):
    # A PNG declaring 2^31-1 pixels a side, with --max-pixels and --max-dimension at
    # 9223372036854775807: the bytes it needs overflowed, and animplay died of SIGILL.
    import struct, zlib
    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
    png = tmp_path / 'huge.png'
    png.write_bytes(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 2**31 - 1, 2**31 - 1, 8, 6, 0, 0, 0))
                    + chunk(b'IDAT', zlib.compress(b'\0' * 10)) + chunk(b'IEND', b''))
    most = str(2**63 - 1)
    p = subprocess.run([h.binary(), 'info', str(png), '--max-pixels', most, '--max-dimension', most],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 4
    assert p.stderr == (f'animplay: {png}: too large: canvas 2147483647x2147483647 needs more bytes than a count '
                        'holds, limit 512 MiB\n')


def _capped(address_space):
    import resource
    def setup():
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    return setup


def test_a_memory_cap_past_what_the_process_can_get_is_held_to_its_ceiling(tmp_path):
    # --max-memory-mb 100000 under a 4 GiB address-space limit (ulimit -v), and a GIF declaring
    # 30000x30000 (10300 MiB of canvas and copies): the canvas's allocation failed, which is
    # fatal ("Fatal error: failed to allocate", a backtrace, SIGABRT). Now the cap is held to
    # half of the limit, said once, and the file is refused in one line.
    import struct
    gif = tmp_path / 'wide.gif'
    w = h_ = 30000
    gif.write_bytes(b'GIF89a' + struct.pack('<HHBBB', w, h_, 0x80, 0, 0) + b'\0\0\0\xff\xff\xff'
                    + b',' + struct.pack('<HHHHB', 0, 0, w, h_, 0) + b'\x02\x02\x4c\x01\x00;')
    warning = ('animplay: warning: --max-memory-mb 100000 is more than this process can use: decoding is held '
               'to 2048 MiB, half of the address-space limit (ulimit -v)\n')
    raised = ['--max-memory-mb', '100000', '--max-pixels', '9000000000']
    for command in (['info', str(gif), '--decode'], ['dump', str(gif), '-o', str(tmp_path / 'frames')],
                    ['convert', str(gif), '-o', str(tmp_path / 'out.webp')], [str(gif), '--frame', '0']):
        p = subprocess.run([h.binary(), *command, *raised], capture_output=True, text=True, timeout=60,
                           stdin=subprocess.DEVNULL, preexec_fn=_capped(4 << 30))
        assert (p.returncode, p.stderr) == (4, warning + f'animplay: {gif}: too large: canvas 30000x30000 needs '
                                                         '10300 MiB, limit 2048 MiB\n'), command
    assert sorted(os.listdir(tmp_path)) == ['wide.gif']
    # The default cap is never warned about, even where the ceiling holds it lower.
    p = subprocess.run([h.binary(), 'info', os.path.join(SAMPLES, 'bounce.gif')], capture_output=True, text=True,
                       timeout=60, stdin=subprocess.DEVNULL, preexec_fn=_capped(768 << 20))
    assert p.returncode == 0 and p.stderr == '' and 'frames' in p.stdout
