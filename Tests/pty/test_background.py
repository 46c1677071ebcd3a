"""--bg auto (the default): partly transparent pixels blended in sRGB with straight alpha, as
browsers do (Chromium's formula, see Tests/Fixtures/browser/blend), over the terminal's background colour from OSC 11 (a dark default, said in the status line, when the
terminal does not answer); --bg none keeps the terminal's own background.

The pty answers like kitty with a dark blue background (termresponder.py); the screen is read
back with pyte and compared with the blend computed here.
"""
import os, tempfile
import pytest
import ptyharness as h
import termresponder as t
from apngwriter import write_apng

TMP = tempfile.mkdtemp(prefix='animplay-bg-')
ALPHAS = [0, 32, 64, 96, 128, 160, 192, 255]
COLOURS = [(255, 255, 255), (200, 100, 50)]
KITTY_BG = (0x20, 0x20, 0x40)


def blend(c, a, bg):
    """Straight-alpha OVER of code values, as Chromium draws an image over a page background:
    c·a/255 rounded, plus bg·(256−a)/256 truncated (Skia's 8-bit source-over)."""
    return tuple((x * a + 127) // 255 + (b * (256 - a) >> 8) for x, b in zip(c, bg))


@pytest.fixture(scope='module')
def alpha_ramp():
    """16x8: columns 0-7 white, 8-15 orange, with alpha ALPHAS[x % 8]; two equal frames."""
    p = os.path.join(TMP, 'ramp.png')
    f = [COLOURS[x // 8] + (ALPHAS[x % 8],) for y in range(8) for x in range(16)]
    write_apng(p, 16, 8, [f, f], delay_ms=50, plays=1)
    return p


def sample_cells(res, cols=80):
    """Colour of each source column, read at the centre of its 5x5 block (16x8 enlarged 5x
    fills 80x40 pixels = 80x20 cells from row 2 of 24, centred)."""
    cells = h.halves(res.screen.alt_snapshots[-1], cols, 24)
    left = (cols - 80) // 2
    return [cells[2 + 10][left + x * 5 + 2][0] for x in range(16)]


def expected(bg, mode='blend'):
    out = []
    for x in range(16):
        c, a = COLOURS[x // 8], ALPHAS[x % 8]
        if mode == 'none':
            out.append(None if a < 128 else c)
        else:
            out.append(None if a == 0 else c if a == 255 else blend(c, a, bg))
    return out


def close(got, want):
    for i, (g, w) in enumerate(zip(got, want)):
        if w is None or g is None:
            assert g == w, f'column {i}: {g} != {w}'
        else:
            assert max(abs(a - b) for a, b in zip(g, w)) <= 1, f'column {i}: {g} != {w}'


def test_auto_blends_over_the_terminal_background(alpha_ramp):
    res = t.run([alpha_ramp, '--graphics', 'cells'], t.KITTY)
    assert res.status == 0
    close(sample_cells(res), expected(KITTY_BG))
    # Code values, as in a browser: half-covered white over dark blue is the plain average (in
    # linear light it would be 188, far lighter than kitty or a browser shows it).
    assert abs(sample_cells(res)[4][0] - (255 + 0x20) / 2) <= 1


def test_silent_terminal_blends_over_black_and_says_so(alpha_ramp):
    res = t.run([alpha_ramp, '--status', '--loop', '0'], t.SILENT, cols=120, actions=[(1.0, b'q')])
    assert res.status == 0
    close(sample_cells(res, 120), expected((0, 0, 0)))
    status = ''.join(ch.data for ch in res.screen.alt_snapshots[-1][23].values())
    assert 'bg #000000 assumed' in status


def test_none_keeps_the_terminal_background(alpha_ramp):
    res = t.run([alpha_ramp, '--graphics', 'cells', '--bg', 'none'], t.KITTY)
    assert res.status == 0
    close(sample_cells(res), expected(KITTY_BG, 'none'))


def test_still_image_blends_too():
    p = os.path.join(TMP, 'still.png')
    f = [(255, 255, 255, 128)] * 16
    write_apng(p, 4, 4, [f])
    res = t.run([p, '--graphics', 'cells'], t.KITTY, cols=20, rows=10)
    assert res.status == 0
    cells = h.halves(res.screen.buffer, 20, 10)
    want = blend((255, 255, 255), 128, KITTY_BG)
    got = {c for row in cells for pair in row for c in pair if c is not None}
    assert got and all(max(abs(a - b) for a, b in zip(g, want)) <= 1 for g in got), got


SAMPLES = os.path.join(h.ROOT, 'samples')


@pytest.mark.parametrize('args', [
    ['spinner.png'],                                 # the fading trail of dots
    ['orbit.webp'],                                  # the sun's soft glow
    ['walk-sheet.png', '--atlas', 'walk-sheet.json'],  # the figure's shadow
], ids=['spinner', 'orbit', 'walk'])
def test_samples_keep_their_partly_transparent_parts(args):
    args = [os.path.join(SAMPLES, a) if a.endswith(('.png', '.webp', '.json')) else a for a in args]
    shown = {}
    for bg in ('auto', 'none'):
        res = t.run(args + ['--graphics', 'cells', '--loop', '1', '--bg', bg], t.KITTY)
        assert res.status == 0
        cells = h.halves(res.screen.alt_snapshots[-1], 80, 24)
        shown[bg] = {(y, x, i): c for y, row in enumerate(cells) for x, p in enumerate(row)
                     for i, c in enumerate(p) if c is not None}
    # Everything --bg none draws is drawn with auto too, plus the faint parts none leaves out,
    # and those are blends between the background and the colour (not full-strength pixels).
    assert set(shown['none']) <= set(shown['auto'])
    extra = set(shown['auto']) - set(shown['none'])
    assert len(extra) >= 20, len(extra)
    dim = [c for k, c in shown['auto'].items() if k in extra]
    assert sum(1 for c in dim if sum(c) < sum(KITTY_BG) + 200) >= len(dim) // 4


@pytest.mark.parametrize('profile,expected', [(t.KITTY, 'blue'), (t.SILENT, None)], ids=['osc4', 'xterm-defaults'])
def test_sixteen_colours_use_the_terminals_own_palette(profile, expected):
    # kitty's colour 4 is (13, 115, 204); xterm's is (0, 0, 238). A patch of exactly kitty's
    # blue is colour 4 when the terminal told its palette, another entry otherwise.
    from gifwriter import write_gif
    p = os.path.join(TMP, 'kittyblue.gif')
    write_gif(p, 8, 4, [[(13, 115, 204)] * 32, [(13, 115, 204)] * 32], delay_cs=5, loops=1)
    res = t.run([p, '--graphics', 'cells', '--colors', '16'], profile)
    assert res.status == 0
    shown = {ch.bg for row in res.screen.alt_snapshots[-1].values() for ch in row.values()} - {'default'}
    assert len(shown) == 1, shown
    if expected:
        assert shown == {expected}
    else:
        assert 'blue' not in shown
