"""--graphics auto: the environment first, then the terminal's answers to the probe; kitty
graphics only where they can work (a cell size in pixels, tmux passthrough), cells otherwise,
and never a hang or a stray byte (termresponder.py answers like kitty, or stays silent)."""
import os, re, tempfile
import pytest
import termresponder as t
from gifwriter import write_gif
from test_probe import assert_clean

TMP = tempfile.mkdtemp(prefix='animplay-detect-')
KITTY_UPLOAD = re.compile(rb'\x1b_Ga=T,i=\d+,p=1,f=(?:24|32),o=z')
TRUECOLOR_CELLS = re.compile(rb'\x1b\[[0-9;]*48;2;')


@pytest.fixture(scope='module')
def gif():
    p = os.path.join(TMP, 'two.gif')
    write_gif(p, 8, 4, [[(250, 0, 0)] * 32, [(0, 0, 250)] * 32], delay_cs=5, loops=1)
    return p


def play(gif, profile, env=None, args=(), **kw):
    kw.setdefault('cols', 80); kw.setdefault('rows', 24)
    return t.run(list(args) + ['--loop', '1', gif], profile, env=env, **kw)


def test_a_terminal_that_answers_like_kitty_gets_kitty_graphics(gif):
    res = play(gif, t.KITTY, xpixel=800, ypixel=480)
    assert res.status == 0, res.output[-300:]
    assert KITTY_UPLOAD.search(res.output)
    assert not TRUECOLOR_CELLS.search(res.output.split(b'\x1b[?1049l')[0])
    assert_clean(res)


def test_kitty_without_a_kernel_pixel_size_uses_the_reported_cell_size(gif):
    # No ws_xpixel/ws_ypixel: the CSI 16 t answer (10x20 px cells) sizes the image.
    res = play(gif, t.KITTY)
    assert res.status == 0
    m = re.search(rb'\x1b_Ga=T,i=\d+,p=1,f=(?:24|32),o=z,s=(\d+),v=(\d+)', res.output)
    # 80x24 cells of 10x20 px = 800x480 px: the 8x4 image enlarged 100 times.
    assert m and (int(m.group(1)), int(m.group(2))) == (800, 400)
    assert_clean(res)


def test_a_silent_terminal_gets_cells_within_the_budget(gif):
    res = play(gif, t.SILENT)
    assert res.status == 0
    assert not KITTY_UPLOAD.search(res.output)
    assert TRUECOLOR_CELLS.search(res.output)
    assert res.wall < 3
    assert_clean(res)


def test_the_environment_names_kitty_even_when_nothing_answers(gif):
    res = play(gif, t.SILENT, env={'TERM': 'xterm-kitty'}, xpixel=800, ypixel=480)
    assert res.status == 0
    assert KITTY_UPLOAD.search(res.output)
    assert_clean(res)


def test_tmux_without_passthrough_gets_cells(gif):
    # Inside tmux (TMUX set) the wrapped queries go unanswered and `tmux show` finds no
    # server: no passthrough, so cells, although the outer terminal is kitty.
    res = play(gif, t.SILENT, env={'TMUX': '/nonexistent/tmux-0/default,1,0', 'KITTY_WINDOW_ID': '1',
                                   'TMUX_TMPDIR': '/nonexistent'}, xpixel=800, ypixel=480)
    assert res.status == 0
    playing = res.output.split(b'\x1b[?1049h', 1)[1]      # after the probe's own queries
    assert b'\x1b_G' not in playing and b'\x1bPtmux;' not in playing
    assert TRUECOLOR_CELLS.search(res.output)


def test_graphics_cells_overrides_detection(gif):
    res = play(gif, t.KITTY, args=['--graphics', 'cells'], xpixel=800, ypixel=480)
    assert res.status == 0
    assert not KITTY_UPLOAD.search(res.output)
    assert TRUECOLOR_CELLS.search(res.output)


def test_forced_kitty_without_any_pixel_size_warns_and_uses_cells(gif):
    res = play(gif, t.SILENT, args=['--graphics', 'kitty'])
    assert res.status == 0
    assert b'reports no cell size in pixels; using cells' in res.output
    assert not KITTY_UPLOAD.search(res.output)
    assert TRUECOLOR_CELLS.search(res.output)


def test_a_still_image_is_printed_in_pixels(gif):
    still = os.path.join(TMP, 'still.gif')
    write_gif(still, 8, 4, [[(0, 250, 0)] * 32])
    res = t.run(['--graphics', 'kitty', still], t.KITTY, xpixel=800, ypixel=480)
    assert res.status == 0
    m = re.search(rb'\x1b_Ga=T,f=(?:24|32),o=z,s=(\d+),v=(\d+),q=2', res.output)
    assert m and (int(m.group(1)), int(m.group(2))) == (800, 400)
    assert b'\x1b[?1049h' not in res.output          # printed at the cursor, like cat
    assert_clean(res)


def test_a_terminal_that_refuses_uploads_gets_cells_with_one_warning():
    # kitty-like, but every added frame is refused (as when out of storage): animplay deletes
    # the image, goes on in cells from the same place, and warns once after the restore.
    slow = os.path.join(TMP, 'slow.gif')
    write_gif(slow, 8, 4, [[c] * 32 for c in [(250, 0, 0), (0, 250, 0), (0, 0, 250), (250, 250, 0)]],
              delay_cs=20, loops=2)
    t.QUERIES.append((re.compile(rb'\x1b_Ga=f,i=\d+'), 'upload'))
    try:
        profile = dict(t.KITTY, upload=b'\x1b_Gi=1;ENOSPC:no room for this frame' + t.ST)
        res = t.run([slow], profile, xpixel=800, ypixel=480, timeout=15)
    finally:
        t.QUERIES.pop()
    assert res.status == 0, res.output[-400:]
    out = res.output
    refused = out.index(b'\x1b_Ga=f,')
    after = out[refused:]
    assert re.search(rb'\x1b_Ga=d,d=I,i=\d+', after)              # the image and its frames deleted
    assert TRUECOLOR_CELLS.search(after)                         # playback went on in cells
    assert out.count(b'\x1b_Ga=f,i=') == 1                        # no upload after the refusal
    assert out.count(b'warning: the terminal refused kitty graphics (ENOSPC') == 1
    assert_clean(res)                                            # the reply never reached the keys
