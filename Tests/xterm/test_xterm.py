"""animplay --graphics sixel (and auto-detection) in Debian's xterm under Xvfb: the colours on
screen follow the frames, frames stay in place (no scrolling), resize, every quit path."""
import os, resource, shutil, signal, subprocess, sys, time
import pytest

sys.path.insert(0, os.path.dirname(__file__))
from xtermharness import MLTerm, XTerm, solid_animations  # noqa: E402
import kittyharness  # noqa: E402
from gifwriter import write_gif  # noqa: E402
from requires import requires  # noqa: E402

pytestmark = requires('Xvfb', 'xterm', 'import', 'xdotool', 'ffmpeg')

RED, GREEN, BLUE = (255, 0, 0), (0, 255, 0), (0, 0, 255)
COLORS = [RED, GREEN, BLUE]
FRAME_MS = 800   # long enough for screenshots on a loaded machine
MIN_PIXELS = 20000


@pytest.fixture(scope='module')
def anims(tmp_path_factory):
    """Three solid frames (red, green, blue, FRAME_MS each) as GIF, APNG and WebP."""
    return solid_animations(str(tmp_path_factory.mktemp('anims')), COLORS, FRAME_MS)


def dominant(boxes):
    best = max(boxes, key=lambda c: boxes[c][0])
    return best if boxes[best][0] >= MIN_PIXELS else None


def shown_for(seen, i):
    """(at least, at most) seconds the i-th sighting's frame was on screen. Screenshots are samples
    (0.1-0.5 s apart, more on a loaded machine), so a frame seen once has `last - first == 0`: it
    came after the previous colour's last sighting and left before the next colour's first."""
    colour, first, last, _ = seen[i]
    return last - first, seen[i + 1][1] - seen[i - 1][2]


def assert_frame_time(seen, i):
    # The clock keeps absolute deadlines, so a frame the terminal draws late (a loaded machine) is
    # on screen for less than FRAME_MS: half a frame of slack, which still catches a skipped frame.
    least, most = shown_for(seen, i)
    assert least <= 2 * FRAME_MS / 1000 and most >= FRAME_MS / 2000, (i, least, most, seen)


def watch(x, until, timeout=15):
    """[(colour, first seen, last seen, bounding box)] of the dominant colour until `until()`.
    The box is the one of the sighting with the most pixels: xterm paints a sixel image band by
    band, so a screenshot can catch a frame half drawn (the same place, a shorter box)."""
    seen, most = [], 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not until():
        b = x.boxes(COLORS)
        c = dominant(b)
        now = time.monotonic()
        if c is None:
            continue
        if seen and seen[-1][0] == c:
            seen[-1][2] = now
            if b[c][0] > most:
                seen[-1][3], most = b[c][1], b[c][0]
        else:
            seen.append([c, now, now, b[c][1]])
            most = b[c][0]
    return seen


@pytest.mark.parametrize('fmt,extra', [('gif', []), ('apng', []), ('webp', []), ('gif', ['--status'])],
                         ids=['gif', 'apng', 'webp', 'gif-status'])
def test_colours_follow_the_frames_in_place(display, anims, fmt, extra):
    # auto: xterm -ti vt340 lists sixel (attribute 4) in its DA1 reply. With --status the image
    # reaches down to the status line (no spare row), still without scrolling.
    x = XTerm(display, extra + ['--loop', '1', anims[fmt]])
    try:
        seen = watch(x, x.exited)
        assert x.exit_status() == 0, x.errors()
        # The last frame is printed again after the screen is restored: wait until it is drawn.
        try:
            last = x.wait_for(lambda: dominant(x.boxes(COLORS)), what='the last frame after the exit')
        except AssertionError as e:
            # What the play showed and said, and the screen (ANIMPLAY_TEST_SHOTS), to tell why.
            x.save_screenshot(f'no-last-frame-{fmt}')
            raise AssertionError(f'{e}; seen {seen}; boxes now {x.boxes(COLORS)}; stderr {x.errors()!r}') from None
        order = [c for c, _, _, _ in seen]
        if not order or order[-1] != last:
            order.append(last)
        # One play: red green blue (red may be missed while xterm starts), then blue stays.
        assert order in ([RED, GREEN, BLUE], [GREEN, BLUE]), order
        green = next(i for i, s in enumerate(seen) if s[0] == GREEN)
        if 0 < green < len(seen) - 1:
            assert_frame_time(seen, green)
        # Every frame at the same place: nothing scrolled or shifted (timg #166).
        assert len({box for _, _, _, box in seen}) == 1, seen
        assert x.errors() == ''
    finally:
        x.close()


@requires('mlterm')
@pytest.mark.parametrize('fmt', ['gif', 'webp'])
def test_mlterm_colours_follow_the_frames_in_place(display, anims, fmt):
    # A second sixel terminal, found by its DA1 answer alone (auto): two plays of red, green,
    # blue, every frame at one place, and the last frame left on screen after the exit.
    x = MLTerm(display, ['--loop', '2', anims[fmt]])
    try:
        seen = watch(x, x.exited, timeout=20)
        assert x.exit_status() == 0, x.errors()
        x.wait_for(lambda: dominant(x.boxes(COLORS)) == BLUE, what='the last frame after the exit')
        order = [c for c, _, _, _ in seen]
        while order and order[0] != GREEN:      # red may be missed while mlterm starts
            order.pop(0)
        assert order[:5] == [GREEN, BLUE, RED, GREEN, BLUE], order
        for i in range(1, len(seen) - 1):
            assert_frame_time(seen, i)
        assert len({box for _, _, _, box in seen}) == 1, seen
        assert x.errors() == ''
    finally:
        x.close()


@pytest.mark.parametrize('how', ['q', 'SIGTERM', 'SIGINT', 'clear'])
def test_quit_paths_leave_the_last_frame_or_nothing(display, anims, how):
    args = ['--graphics', 'sixel', '--loop', '0'] + (['--clear'] if how == 'clear' else []) + [anims['gif']]
    x = XTerm(display, args)
    try:
        x.wait_for(lambda: dominant(x.boxes(COLORS)) is not None, what='a frame')
        if how in ('q', 'clear'):
            x.keys('q')
        else:
            os.kill(x.pid(), getattr(signal, how))
        status = x.exit_status()
        assert status == (0 if how in ('q', 'clear') else 1), x.errors()
        # The last frame is printed after the screen is restored (or nothing, with --clear): wait
        # for xterm to draw what animplay wrote before it exited.
        if how == 'clear':
            x.wait_for(lambda: dominant(x.boxes(COLORS)) is None, what='an empty screen after --clear')
        else:
            x.wait_for(lambda: dominant(x.boxes(COLORS)) is not None, what='the last frame after the exit')
    finally:
        x.close()


@pytest.mark.parametrize('how', ['ctrl+backslash', 'SIGSEGV'])
def test_a_signal_it_does_not_handle_gives_the_terminal_back(display, anims, how, tmp_path):
    # Ctrl-\ (SIGQUIT: curses' cbreak mode keeps it a signal) or a fault: animplay still dies of
    # the signal, but leaves the alternate screen first (its sixel frame goes with it; before,
    # the frame stayed up, the cursor hidden and echo off) and gives back the tty's modes.
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))   # inherited by xterm and animplay
    x = XTerm(display, ['--graphics', 'sixel', '--loop', '0', anims['gif']])
    try:
        x.wait_for(lambda: dominant(x.boxes(COLORS)) is not None, what='a frame')
        if how.startswith('SIG'):
            os.kill(x.pid(), getattr(signal, how))
        else:
            x.keys(how)
        sig = signal.SIGQUIT if how == 'ctrl+backslash' else getattr(signal, how)
        assert x.exit_status() == -sig, x.errors()
        x.wait_for(lambda: dominant(x.boxes(COLORS)) is None, what='the frame gone with the alternate screen')
        modes = tmp_path / 'stty'
        x.then(f'stty -a > {modes}; echo printed after the {how}')
        x.save_screenshot(f'xterm-after-{how}')
        flags = modes.read_text().split()
        assert 'echo' in flags and 'icanon' in flags and 'isig' in flags, flags
    finally:
        x.close()


def test_suspend_and_continue_keeps_playing_in_place(display, anims):
    # Ctrl-Z restores the terminal and stops; SIGCONT (what a shell's fg sends) re-enters and
    # goes on in sixel, every frame at the place it had before the stop.
    x = XTerm(display, ['--graphics', 'sixel', '--loop', '0', anims['gif']])
    try:
        pid = x.pid()
        before = x.wait_for(lambda: watch(x, lambda: False, timeout=1), what='a frame')
        x.keys('ctrl+z')
        x.wait_for(x.stopped, what='animplay stopped by Ctrl-Z')
        os.kill(pid, signal.SIGCONT)
        seen = []
        def whole_cycle():
            seen.extend(watch(x, lambda: False, timeout=1))
            return {c for c, _, _, _ in seen} == set(COLORS)
        x.wait_for(whole_cycle, timeout=30, what='every frame shown after the continue')
        assert {box for _, _, _, box in before + seen} == {before[0][3]}, (before, seen)
        x.keys('q')
        assert x.exit_status() == 0, x.errors()
        assert x.errors() == ''
    finally:
        x.close()


def test_resize_re_encodes_at_the_new_size(display, anims):
    x = XTerm(display, ['--graphics', 'sixel', '--loop', '0', anims['gif']])
    try:
        def box():
            b = x.boxes(COLORS)
            c = dominant(b)
            return c and b[c][1]
        small = x.wait_for(box, what='a frame')
        x.resize(900, 700)
        big = x.wait_for(lambda: (lambda b: b and (b[3] - b[1]) > (small[3] - small[1]) + 100 and b)(box()),
                         what='a larger frame after the resize')
        # Square pixels stay square (the image is re-encoded, not stretched).
        assert abs((big[2] - big[0]) - (big[3] - big[1])) <= 2, big
        x.keys('q')
        assert x.exit_status() == 0, x.errors()
    finally:
        x.close()


@pytest.mark.parametrize('terminal', ['xterm', 'mlterm'])
def test_soft_alpha_shows_as_in_a_browser(display, tmp_path, terminal):
    # Sixel images are opaque: animplay blends partly transparent pixels over the terminal's
    # background (OSC 11) in sRGB, as a browser does (and as kitty does with the alpha itself).
    if terminal == 'mlterm' and not shutil.which('mlterm'):
        pytest.skip('needs mlterm')
    ramp = kittyharness.alpha_ramp(str(tmp_path))
    x = (XTerm if terminal == 'xterm' else MLTerm)(display, ['--graphics', 'sixel', '--loop', '0', ramp])
    try:
        def shown():
            raw = subprocess.run(['import', '-display', x.env['DISPLAY'], '-window', 'root', '-depth', '8', 'rgb:-'],
                                 capture_output=True, check=True, timeout=20).stdout
            cols = kittyharness.ramp_columns((kittyharness.SCREEN[0], kittyharness.SCREEN[1], raw), tolerance=3)
            return cols and (cols, raw)
        cols, raw = x.wait_for(shown, what='the ramp on screen')
        bg = cols[0]        # alpha 0: the terminal's own background colour, painted
        want = [kittyharness.browser_blend(kittyharness.RAMP_COLOURS[i // 8], kittyharness.RAMP_ALPHAS[i % 8], bg)
                for i in range(16)]
        # Sixel colours are percentages: within 2 of 255 per channel, plus rounding.
        assert all(max(abs(a - b) for a, b in zip(g, w)) <= 4 for g, w in zip(cols, want)), (cols, want)
        os.kill(x.pid(), signal.SIGTERM)
        x.exit_status()
    finally:
        x.close()


@pytest.mark.parametrize('strict', [False, True], ids=['kitty', 'kitty!'])
def test_forced_kitty_in_xterm_falls_back_or_refuses(display, anims, strict):
    # xterm has no kitty graphics (a blank screen before): `--graphics kitty` says so in one
    # line and plays in sixel; `--graphics kitty!` refuses with that line, exit status 1.
    x = XTerm(display, ['--graphics', 'kitty!' if strict else 'kitty', '--loop', '1', anims['gif']])
    try:
        if strict:
            assert x.exit_status() == 1
        else:
            seen = watch(x, x.exited)
            assert x.exit_status() == 0
            assert [c for c, *_ in seen][-2:] == [GREEN, BLUE], seen
        lines = x.errors().splitlines()
        assert len(lines) == 1 and 'kitty graphics query' in lines[0], lines
        assert lines[0].startswith('animplay: --graphics kitty!: ' if strict else 'animplay: warning: --graphics kitty: ')
    finally:
        x.close()


def test_plain_xterm_gets_truecolour_cells(display, tmp_path):
    # Debian's xterm sets TERM=xterm (8 colours in terminfo) and no COLORTERM; it keeps direct
    # colour, which the probe reads back (DECRQSS): the cells show the exact colour, where 16
    # colours gave a flat palette colour.
    odd = (201, 101, 51)
    gif = str(tmp_path / 'odd.gif')
    write_gif(gif, 16, 16, [[odd] * 256, [odd] * 256], delay_cs=50, loops=0)
    x = XTerm(display, ['--graphics', 'cells', '--loop', '0', gif])
    try:
        x.wait_for(lambda: x.boxes([odd])[odd][0] > MIN_PIXELS, what='the exact colour in cells')
        assert x.errors() == ''
        os.kill(x.pid(), signal.SIGTERM)
        x.exit_status()
    finally:
        x.close()


def test_last_frame_stays_where_it_was(display, anims):
    # The sixel image is centred while playing and printed at the same columns at exit.
    x = XTerm(display, ['--graphics', 'sixel', '--loop', '1', anims['gif']])
    try:
        playing = x.wait_for(lambda: (lambda b: b[1] if b[0] > MIN_PIXELS else None)(x.boxes([GREEN])[GREEN]),
                             what='the second frame')
        assert x.exit_status() == 0
        left = x.wait_for(lambda: (lambda b: b[1] if b[0] > MIN_PIXELS else None)(x.boxes([BLUE])[BLUE]),
                          what='the last frame after exit')
        assert abs(left[0] - playing[0]) <= 1 and abs(left[2] - playing[2]) <= 1, (playing, left)
    finally:
        x.close()


def test_shrinking_never_shows_a_frame_of_the_old_size(display, anims):
    """Issue 20.2: shrink the window while a filled picture plays: no frame encoded for the old
    size may be drawn after the resize (it would overflow the smaller screen, scroll it and leave
    pieces behind). Every sighting after the shrink is the new picture, in one place, inside the
    window, and nothing of the colours lies outside it."""
    x = XTerm(display, ['--graphics', 'sixel', '--fill', '--loop', '0', anims['gif']], geometry='100x40')
    try:
        def sighting():
            b = x.boxes(COLORS)
            c = dominant(b)
            return c and (c, b)
        # Filled: hundreds of pixels, not 16. xterm paints a frame band by band, so a screenshot
        # can catch one half drawn (on a loaded machine 1 run in 3 did): wait for a whole one.
        def filled():
            s = sighting()
            return s and (s[1][s[0]][1][3] - s[1][s[0]][1][1]) > 400 and s
        x.wait_for(filled, what='a filled frame')
        x.resize(320, 240)
        def small():
            s = sighting()
            return s and (s[1][s[0]][1][3] - s[1][s[0]][1][1]) < 240 and s
        x.wait_for(small, what='a smaller frame after the shrink')
        places, deadline = set(), time.monotonic() + 4
        while time.monotonic() < deadline:
            b = x.boxes(COLORS)
            for col in COLORS:
                n, box = b[col]
                if n == 0:
                    continue
                # Inside the window, and one solid square (nothing left of an old frame).
                assert box[2] < 320 and box[3] < 240, (col, box)
                assert n >= (box[2] - box[0] + 1) * (box[3] - box[1] + 1) * 0.95, (col, n, box)
                places.add(box[:3])          # a frame is painted band by band: y1 grows
        assert len(places) == 1, places
        x.keys('q')
        assert x.exit_status() == 0, x.errors()
    finally:
        x.close()
