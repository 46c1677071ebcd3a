"""End-to-end tests of `animplay FILE` in a pseudo-terminal, checked through pyte.

Each test runs the real binary (ANIMPLAY_BUILD=release|debug picks the build) on a GIF made by
gifwriter.py, with TERM=xterm-256color and COLORTERM=truecolor unless stated.
"""
import os, re, signal, subprocess, tempfile
import pyte
import pytest
import ptyharness as h
from gifwriter import write_gif

TMP = tempfile.mkdtemp(prefix='animplay-pty-')
RED, BLUE, GREEN = (250, 0, 0), (0, 0, 250), (0, 200, 0)


def srgb_to_linear(c):
    c /= 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def linear_to_srgb(l):
    s = l * 12.92 if l <= 0.0031308 else 1.055 * l ** (1 / 2.4) - 0.055
    return s * 255


def area_average(pixels, w, h, tw, th):
    """Reference: exact area coverage in linear light (opaque pixels)."""
    lin = [tuple(srgb_to_linear(v) for v in p) for p in pixels]
    out = []
    for oy in range(th):
        y0, y1 = oy * h / th, (oy + 1) * h / th
        for ox in range(tw):
            x0, x1 = ox * w / tw, (ox + 1) * w / tw
            acc = [0.0, 0.0, 0.0]; area = 0.0
            for y in range(int(y0), min(h, int(-(-y1 // 1)))):
                wy = min(y + 1, y1) - max(y, y0)
                for x in range(int(x0), min(w, int(-(-x1 // 1)))):
                    wx = min(x + 1, x1) - max(x, x0)
                    p = lin[y * w + x]
                    for k in range(3):
                        acc[k] += p[k] * wx * wy
                    area += wx * wy
            out.append(tuple(linear_to_srgb(a / area) for a in acc))
    return out


def gradient(w, h):
    return [((x * 7 // (w - 1)) * 36, (y * 7 // (h - 1)) * 36, 255 if (x // 7 + y // 5) % 2 else 0)
            for y in range(h) for x in range(w)]


def solid(w, h, c):
    return [c] * (w * h)


@pytest.fixture(scope='module')
def grad_gif():
    p = os.path.join(TMP, 'grad.gif')
    f = gradient(200, 100)
    write_gif(p, 200, 100, [f, f[::-1]], delay_cs=5, loops=0)
    return p, f[::-1]


@pytest.fixture(scope='module')
def two_colour_gif():
    p = os.path.join(TMP, 'rb.gif')
    write_gif(p, 16, 8, [solid(16, 8, RED), solid(16, 8, BLUE)], delay_cs=5, loops=0)
    return p


def image_extent(buffer, cols, rows):
    cells = [(y, x) for y in range(rows) for x in range(cols)
             if buffer[y][x].bg != 'default' or buffer[y][x].data != ' ']
    ys = [c[0] for c in cells]; xs = [c[1] for c in cells]
    return (min(ys), min(xs), max(ys) - min(ys) + 1, max(xs) - min(xs) + 1) if cells else None


def oklab(c):
    r, g, b = (srgb_to_linear(v) for v in c)
    l = (0.4122214708 * r + 0.5363325363 * g + 0.0514459929 * b) ** (1 / 3)
    m = (0.2119034982 * r + 0.6806995451 * g + 0.1073969566 * b) ** (1 / 3)
    s = (0.0883024619 * r + 0.2817188376 * g + 0.6299787005 * b) ** (1 / 3)
    return (0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s,
            1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s,
            0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s)


def delta_e(a, b):
    return sum((x - y) ** 2 for x, y in zip(oklab(a), oklab(b))) ** 0.5


def assert_matches_reference(buffer, row, col, expected, tw, th, tolerance=None, max_delta_e=None):
    """Every half-block against the reference: per channel within `tolerance`, or within
    `max_delta_e` in OKLab."""
    got = h.halves(buffer, 80, 24)
    worst = 0
    for r in range(th // 2):
        for c in range(tw):
            up, lo = got[row + r][col + c]
            for pix, exp in ((up, expected[(2 * r) * tw + c]), (lo, expected[(2 * r + 1) * tw + c])):
                assert pix is not None, f'cell {r},{c} shows the terminal background'
                if tolerance is not None:
                    worst = max(worst, max(abs(a - b) for a, b in zip(pix, exp)))
                else:
                    worst = max(worst, delta_e(pix, [round(v) for v in exp]))
    assert worst <= (tolerance if tolerance is not None else max_delta_e), f'colour off by {worst}'


def test_last_frame_matches_area_average_in_truecolor(grad_gif):
    path, last = grad_gif
    r = h.run([path, '--loop', '1'], cols=80, rows=24)
    assert r.status == 0
    assert b'\x1b[38;2;' in r.output or b'\x1b[48;2;' in r.output
    # 200x100 fits 80 columns x 48 pixel rows as 80x40: 20 cell rows centred at row 2.
    expected = area_average(last, 200, 100, 80, 40)
    alt = r.screen.alt_snapshots[-1]
    assert image_extent(alt, 80, 24) == (2, 0, 20, 80)
    # During playback colours within one just-noticeable difference (ΔE_OK 0.02) count as
    # equal (SGRCellWriter); + 0.005 for the 8-bit rounding of the reference.
    assert_matches_reference(alt, 2, 0, expected, 80, 40, max_delta_e=0.025)
    # The last frame stays in the normal screen, printed exactly at the cursor (top-left
    # here). Tolerance: 1 for rounding in the reference + 1 for the float accumulation.
    assert_matches_reference(r.screen.buffer, 0, 0, expected, 80, 40, tolerance=2)
    assert r.stty_before == r.stty_after


def moving_pattern(w, h, frames):
    """Colour bars, a hue ramp band moving diagonally and noise squares: like ffmpeg's
    testsrc2, many colours change every frame (within a 256-colour palette)."""
    import random
    rnd = random.Random(7)
    bars = [(255, 0, 0), (0, 255, 0), (255, 255, 0), (0, 0, 255), (255, 0, 255), (0, 255, 255)]
    ramp = [(int(255 * abs((i / 32) - 1)), int(255 * (1 - abs((i / 32) - 1))), (i * 4) % 256) for i in range(64)]
    greys = [(v, v, v) for v in range(0, 256, 4)]
    out = []
    for n in range(frames):
        f = []
        for y in range(h):
            for x in range(w):
                band = (y + x // 3 - 2 * n) % h
                if band < 8:
                    f.append(ramp[(x + 3 * n) % 64])
                elif 10 <= x % 40 < 22 and 50 <= y < 70:
                    f.append(rnd.choice(greys))
                else:
                    f.append(bars[x * 6 // w])
        out.append(f)
    return out


def test_moving_content_matches_the_reference_frame(tmp_path):
    p = str(tmp_path / 'moving.gif')
    frames = moving_pattern(160, 90, 16)
    write_gif(p, 160, 90, frames, delay_cs=4, loops=0)
    r = h.run([p, '--loop', '1'], cols=80, rows=24)
    assert r.status == 0
    # 160x90 fits 80x48 pixels as 80x45: 23 rows from row 0; every half within one JND.
    expected = area_average(frames[-1], 160, 90, 80, 45)
    alt = r.screen.alt_snapshots[-1]
    assert image_extent(alt, 80, 24) == (0, 0, 23, 80)
    assert_matches_reference(alt, 0, 0, expected, 80, 44, max_delta_e=0.025)


colour_sequence = h.colour_sequence


def test_loop_plays_the_requested_number_of_times(two_colour_gif):
    r = h.run([two_colour_gif, '--loop', '3'], cols=80, rows=24)
    assert r.status == 0
    assert colour_sequence(r.output) == [RED, BLUE] * 3
    # The last frame (blue) is what stays on the normal screen.
    assert h.halves(r.screen.buffer, 80, 24)[0][0] == (BLUE, BLUE)


def test_256_colours_use_the_palette_and_no_24bit_sgr(grad_gif):
    path, _ = grad_gif
    r = h.run([path, '--loop', '1', '--colors', '256'], cols=80, rows=24)
    assert r.status == 0
    assert b'38;2;' not in h.drawn(r.output) and b'48;2;' not in r.output
    assert b'38;5;' in r.output or b'48;5;' in r.output
    alt = r.screen.alt_snapshots[-1]
    cube = {0, 95, 135, 175, 215, 255}
    greys = {8 + 10 * i for i in range(24)}
    for y in range(2, 22):
        for up, lo in h.halves(alt, 80, 24)[y]:
            for c in (up, lo):
                assert c is not None
                assert all(v in cube for v in c) or (c[0] == c[1] == c[2] and c[0] in greys), c


def test_auto_without_colorterm_is_256_and_with_it_truecolor(two_colour_gif):
    r = h.run([two_colour_gif, '--loop', '1'], colorterm=None)
    assert r.status == 0 and b'8;2;' not in h.drawn(r.output) and b'8;5;' in r.output
    r = h.run([two_colour_gif, '--loop', '1'], colorterm='24bit')
    assert r.status == 0 and b'48;2;250;0;0' in r.output


def test_sixteen_colours(two_colour_gif):
    r = h.run([two_colour_gif, '--loop', '1', '--colors', '16'])
    assert r.status == 0 and b'8;2;' not in h.drawn(r.output) and b'8;5;' not in r.output
    # Red (250,0,0) is bright red (9: SGR 101 as background), blue (0,0,250) is blue (4).
    assert b'\x1b[101m' in r.output
    assert r.screen.buffer[0][0].bg == 'blue' and r.screen.buffer[0][0].data == ' '


def restored(r):
    """Terminal modes identical, cursor shown again, alternate screen left."""
    assert r.stty_before == r.stty_after
    assert r.screen.alt_entries == 1 and r.screen.saved is None
    assert not r.screen.cursor.hidden
    return True


@pytest.mark.parametrize('how,expected_status', [
    (b'q', 0), (b'\x1b', 0), (signal.SIGINT, 1), (signal.SIGTERM, 1), (b'\x03', 1)])
def test_terminal_is_restored_on_quit(two_colour_gif, how, expected_status):
    r = h.run([two_colour_gif, '--loop', '0'], actions=[(0.6, how)])
    assert r.status == expected_status
    assert restored(r)
    # The last frame shown is left in the normal screen.
    assert h.halves(r.screen.buffer, 80, 24)[0][0] in ((RED, RED), (BLUE, BLUE))


def test_terminal_is_restored_on_hangup(two_colour_gif):
    r = h.run([two_colour_gif, '--loop', '0'], actions=[(0.6, signal.SIGHUP)])
    assert r.status == 1 and restored(r)


@pytest.mark.parametrize('how,sig', [
    (b'\x1c', signal.SIGQUIT), (signal.SIGQUIT, signal.SIGQUIT), (signal.SIGSEGV, signal.SIGSEGV),
    (signal.SIGILL, signal.SIGILL), (signal.SIGABRT, signal.SIGABRT), (signal.SIGUSR1, signal.SIGUSR1)])
def test_terminal_is_restored_when_a_signal_it_does_not_handle_ends_it(two_colour_gif, how, sig):
    # Ctrl-\ (curses' cbreak mode keeps it a signal), a trap (a failed Swift check is SIGILL),
    # a fault, an abort, a stray kill: the process still dies of that signal (the shell sees it,
    # a core is dumped where enabled), but the terminal is given back first.
    r = h.run([two_colour_gif, '--loop', '0'], actions=[(0.6, how)])
    assert r.status == -sig
    assert restored(r)


@pytest.fixture(scope='module')
def half_transparent_gif():
    p = os.path.join(TMP, 'half.gif')
    hole = (1, 2, 3)
    f = [RED if x < 8 else hole for y in range(8) for x in range(16)]
    write_gif(p, 16, 8, [f, f], delay_cs=5, loops=0, transparent=hole)
    return p


@pytest.mark.parametrize('bg,expected', [
    (None, None), ('ffffff', (255, 255, 255)), ('#102030', (16, 32, 48)), ('checker', 'checker')])
def test_transparent_pixels_over_background(half_transparent_gif, bg, expected):
    args = [half_transparent_gif, '--loop', '1'] + (['--bg', bg] if bg else [])
    r = h.run(args)
    assert r.status == 0
    cells = h.halves(r.screen.alt_snapshots[-1], 80, 24)
    # 16x8 enlarged 5x = 80x40 pixels: rows 2-21; the left half is red, the right transparent.
    assert cells[2][0] == (RED, RED) and cells[21][39] == (RED, RED)
    right = {cells[y][x] for y in range(2, 22) for x in range(40, 80)}
    if expected == 'checker':
        assert right >= {((0x99,) * 3, (0x99,) * 3), ((0x66,) * 3, (0x66,) * 3)}
        assert cells[2][40] != cells[2][44]          # squares of 4 pixels alternate
    else:
        assert right == {(expected, expected)}


def test_size_box_and_stretch(two_colour_gif):
    r = h.run([two_colour_gif, '--loop', '1', '--size', '40x10'])
    assert r.status == 0
    # 16x8 in a 40x10 box (40x20 pixels): 2x = 32x16 pixels, 8 rows; box centred at row 7,
    # column 20, the image centred in it.
    assert image_extent(r.screen.alt_snapshots[-1], 80, 24) == (8, 24, 8, 32)
    r = h.run([two_colour_gif, '--loop', '1', '--stretch'])
    assert image_extent(r.screen.alt_snapshots[-1], 80, 24) == (0, 0, 24, 80)


def test_clear_leaves_nothing(two_colour_gif):
    r = h.run([two_colour_gif, '--loop', '1', '--clear'])
    assert r.status == 0 and restored(r)
    assert image_extent(r.screen.buffer, 80, 24) is None


def test_burst_of_resizes_refits(grad_gif):
    path, _ = grad_gif
    sizes = [(40 + (i * 7) % 60, 12 + (i * 5) % 20) for i in range(49)] + [(60, 20)]
    actions = [(0.3 + i * 0.01, h.resize(c, rr)) for i, (c, rr) in enumerate(sizes)]
    actions.append((1.5, b'q'))
    r = h.run([path, '--loop', '0'], cols=80, rows=24, actions=actions)
    assert r.status == 0 and restored(r)
    # pyte keeps its 80x24 grid; the last image must be fitted to 60x20: 60x30 pixels, 15 rows.
    screen = h.AltScreen(80, 24)
    pyte.ByteStream(screen).feed(r.output[:r.output.rfind(b'\x1b[?1049l')])
    top, left, height, width = image_extent(screen.buffer, 60, 20)
    assert (height, width) == (15, 60) and (top, left) == (2, 0)


def vm_rss_kb(pid):
    with open(f'/proc/{pid}/status') as f:
        return next(int(line.split()[1]) for line in f if line.startswith('VmRSS:'))


def test_many_resizes_do_not_grow_memory(grad_gif):
    path, _ = grad_gif
    # Resident memory is sampled inside one run, after 100 re-fits and after 300 more: a leak of
    # even one cell grid or scaled frame per resize would add megabytes between the two. (Peak
    # RSS of separate runs is no baseline: it varies by tens of MiB between identical runs.)
    # Each resize waits for a frame drawn after the previous one, so that every re-fit really
    # happens (signals sent faster than the player runs would merge into one).
    rss = {}

    def sample(key):
        def act(proc, master, slave):
            rss[key] = vm_rss_kb(proc.pid)
        return act
    sizes = [(80, 24), (60, 20)]
    steps = [(h.frames(1), h.resize(*sizes[i % 2])) for i in range(100)] + [(h.frames(5), sample('after100'))]
    steps += [(h.frames(1), h.resize(*sizes[i % 2])) for i in range(300)] + [(h.frames(5), sample('after400'))]
    busy = h.run([path, '--loop', '0'], steps=steps + [(h.frames(1), b'q')], timeout=120)
    assert busy.status == 0 and restored(busy)
    assert busy.output.count(b'\x1b8') > 400
    assert rss['after400'] - rss['after100'] < 2048, rss


def test_status_line_and_keys(two_colour_gif):
    # Each key waits for what the previous one shows: the status line, "paused", a stepped
    # frame, the status line hidden and shown again.
    # ncurses rewrites only the characters that change, so states are read off the emulated
    # screen's status row.
    r = h.run([two_colour_gif, '--loop', '0', '--status'],
              steps=[(b'frame ', b' '), (status_row_has('paused'), h.resize(80, 24)),
                     (lambda new, _: True, b'\x1b[C'), (status_row_has('frame 2/2'), b'i'),
                     (lambda new, _: len(new) > 0, b'i'), (b'frame ', b'q')])
    assert r.status == 0 and restored(r)
    status = ''.join(r.screen.alt_snapshots[-1][23][x].data for x in range(80))
    assert status.startswith(' paused  frame 2/2  play 1  speed 1.00x')


def status_row_has(text, cols=80, rows=24):
    """A step condition: the bottom row of the emulated screen (the status line) shows `text`."""
    def cond(_new, out):
        screen = h.AltScreen(cols, rows)
        pyte.ByteStream(screen).feed(h.without_apc(out))
        return text in ''.join(screen.buffer[rows - 1][x].data for x in range(cols))
    return cond


def status_row_blank(cols, rows):
    """A step condition: the bottom row of the emulated screen (the status line) is empty."""
    def cond(_new, out):
        screen = h.AltScreen(cols, rows)
        pyte.ByteStream(screen).feed(h.without_apc(out))
        return ''.join(screen.buffer[rows - 1][x].data for x in range(cols)).strip() == ''
    return cond


def test_hiding_the_status_line_erases_it(two_colour_gif):
    # With a 40x10 box in 25 rows the image does not move when the status line comes and goes.
    r = h.run([two_colour_gif, '--loop', '0', '--size', '40x10'], cols=80, rows=25,
              steps=[(h.frames(1), b'i'), (b'frame ', b'i'), (status_row_blank(80, 25), b'q')])
    assert r.status == 0
    assert b'frame ' in r.output
    alt = r.screen.alt_snapshots[-1]
    assert ''.join(alt[24][x].data for x in range(80)).strip() == ''


def test_no_color_keeps_the_status_line_plain(two_colour_gif):
    r = h.run([two_colour_gif, '--loop', '1', '--status'], env={'NO_COLOR': '1'})
    assert r.status == 0
    alt = r.screen.alt_snapshots[-1]
    status = ''.join(alt[23][x].data for x in range(80))
    assert 'frame' in status
    assert all(alt[23][x].fg == 'default' and alt[23][x].bg == 'default' for x in range(80))
    r = h.run([two_colour_gif, '--loop', '1', '--status'])
    alt = r.screen.alt_snapshots[-1]
    assert alt[23][2].bg != 'default'


def test_still_image_is_printed_once_without_curses():
    p = os.path.join(TMP, 'still.gif')
    write_gif(p, 8, 4, [solid(8, 4, GREEN)])
    r = h.run([p])
    assert r.status == 0
    assert r.screen.alt_entries == 0 and r.stty_before == r.stty_after
    # 8x4 pixels enlarged 10x (fits 80 columns, 46 pixel rows) = 80x40: 20 rows at the top left.
    assert image_extent(r.screen.buffer, 80, 24) == (0, 0, 20, 80)
    assert h.halves(r.screen.buffer, 80, 24)[0][0] == (GREEN, GREEN)


def test_not_a_terminal_suggests_dump(two_colour_gif):
    p = subprocess.run([h.binary(), two_colour_gif], capture_output=True, stdin=subprocess.DEVNULL)
    assert p.returncode != 0
    assert p.stdout == b''
    assert b'animplay dump' in p.stderr and b'\x1b' not in p.stderr


@pytest.mark.parametrize('term,truecolor', [('xterm', False), ('vt100', False), ('xterm-direct', True),
                                            ('screen-256color', False)])
def test_other_terminal_types(two_colour_gif, term, truecolor):
    r = h.run([two_colour_gif, '--loop', '1'], term=term, colorterm=None)
    assert r.status == 0 and r.stty_before == r.stty_after
    # RGB in the terminfo entry means 24-bit (always the semicolon form); otherwise a palette.
    assert (b'48;2;' in r.output) == truecolor
    assert r.screen.buffer[0][0].bg != 'default'


def test_terminal_without_colours_or_cursor_save_fails_cleanly(two_colour_gif):
    r = h.run([two_colour_gif, '--loop', '1'], term='dumb', colorterm=None)
    assert r.status == 1 and r.stty_before == r.stty_after
    assert b'terminal type' in r.output and b'dumb' in r.output


def test_a_terminal_this_machine_has_no_terminfo_for_plays_as_xterm_256color(two_colour_gif):
    # ssh from kitty, Ghostty, foot... to a server without their terminfo entry: it played
    # nothing ("cannot use terminal type"). xterm-256color's entry stands in, with one warning
    # line before the screen comes up; the play and the restored terminal are as usual.
    r = h.run([two_colour_gif, '--loop', '1'], term='xterm-animplay-test-nowhere', colorterm=None)
    assert r.status == 0 and r.stty_before == r.stty_after
    assert r.screen.alt_entries == 1 and b'\x1b[?25h' in r.output
    text = r.output.replace(b'\r\n', b'').decode()
    assert text.count("animplay: warning: this machine has no terminfo entry for TERM 'xterm-animplay-test-nowhere'; using xterm-256color's") == 1
    assert text.index('no terminfo entry') < text.index('\x1b[?1049h')
    assert b'48;5;' in r.output and b'48;2;' not in r.output   # xterm-256color's colours
    # A preview into a pipe gets the same colours and no warning (it would show in every preview).
    env = dict(os.environ, TERM='xterm-animplay-test-nowhere'); env.pop('COLORTERM', None)
    p = subprocess.run([h.binary(), two_colour_gif, '--frame', '0', '--size', '8x4'], capture_output=True, env=env)
    assert p.returncode == 0 and p.stderr == b'' and b'48;5;' in p.stdout
    # No TERM says nothing: refused in one line that says so (dumb is refused as before, by
    # test_terminal_without_colours_or_cursor_save_fails_cleanly).
    r = h.run([two_colour_gif, '--loop', '1'], term='', colorterm=None)
    assert r.status == 1 and r.screen.alt_entries == 0 and r.stty_before == r.stty_after
    assert b"animplay: TERM is not set: set it to your terminal's type (e.g. xterm-256color)" in r.output.replace(b'\r\n', b'')


def test_a_window_of_absurd_size_is_refused_or_held_not_a_memory_sink(two_colour_gif):
    # curses allocates and fills three screens of the window's cells, about 120 GB each for a
    # pty of 65535x65535 (under this cap curses failed and the message blamed terminfo). At
    # start it is refused in one line; a resize to it mid-play is held to 2^20 cells and the
    # play goes on. Capped at 4 GB so that a regression fails fast.
    r = h.run([two_colour_gif, '--loop', '1'], cols=65535, rows=65535, address_space=4 << 30)
    assert r.status == 1 and r.stty_before == r.stty_after and r.screen.alt_entries == 0
    assert (b"animplay: the terminal's window is 65535x65535 cells, more than animplay draws in (at most 1048576 cells)"
            in r.output.replace(b'\r\n', b''))
    r = h.run([two_colour_gif, '--loop', '0'], address_space=4 << 30,
              actions=[(0.3, h.resize(65535, 65535)), (1.0, h.resize(100, 30)), (1.6, b'q')])
    assert r.status == 0 and r.stty_before == r.stty_after


@pytest.mark.parametrize('sample', ['bounce.gif', 'orbit.webp', 'pulse.webp', 'spinner.png',
                                    'sheet-8x4.png'])
def test_samples_play_and_leave_their_last_frame(sample):
    path = os.path.join(h.ROOT, 'samples', sample)
    # The samples are committed: a missing one is a failure, not a reason to skip.
    assert os.path.exists(path), f'{sample} missing from samples/'
    r = h.run([path, '--loop', '1'])
    assert r.status == 0 and r.stty_before == r.stty_after
    assert image_extent(r.screen.buffer, 80, 24) is not None
