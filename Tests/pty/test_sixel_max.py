"""Sixel images within the terminal's largest graphic (XTSMGRAPHICS `CSI ? 2 ; 4 ; 0 S`, which
xterm answers with its maxGraphicSize and enforces by dropping larger images whole).

A pty answers like xterm (termresponder.py) in a window of 1800x1200 pixels; the size of every
sixel image written is read from its raster attributes (`" Pan ; Pad ; Ph ; Pv`), the figures
xterm compares with its limit. Terminals that do not answer, or answer something that is not a
size, keep the window as the only limit; replies never leak."""
import os, re, tempfile
import pytest
import termresponder as t
from gifwriter import write_gif

TMP = tempfile.mkdtemp(prefix='animplay-sixel-max-')
WINDOW = dict(cols=200, rows=60, xpixel=1800, ypixel=1200)    # cells of 9x20
RASTER = re.compile(rb'\x1bP[0-9;]*q"(\d+);(\d+);(\d+);(\d+)')


def gif(name, colour, frames):
    """64x36 (16:9), `frames` frames of 0.2 s, one play."""
    p = os.path.join(TMP, name)
    if not os.path.exists(p):
        write_gif(p, 64, 36, [[colour] * (64 * 36)] * frames, delay_cs=20, loops=1)
    return p


def sizes(res):
    """(width, height) of every sixel image in the output."""
    return [(int(m.group(3)), int(m.group(4))) for m in RASTER.finditer(res.output)]


def run(args, profile=t.XTERM_SIXEL):
    res = t.run(['--graphics', 'sixel'] + args, profile, timeout=30, **WINDOW)
    assert res.status == 0, res.output[-400:]
    assert res.leftover == b'' and res.stty_before == res.stty_after
    assert b'[?2;0;' not in res.output          # the reply is never echoed
    return res


@pytest.mark.parametrize('kind,extra', [('animation', []), ('still', []), ('animation', ['--inline']),
                                        ('animation', ['--size', '190x55'])],
                         ids=['animation', 'still', 'inline', 'size'])
def test_a_filled_picture_keeps_within_xterms_limit(kind, extra):
    res = run(['--fill'] + extra + [gif(kind + '.gif', (250, 0, 0), 2 if kind == 'animation' else 1)])
    s = sizes(res)
    # As large as the limit allows: 1000 wide, 1000 × 36/64 = 562.5 rounded.
    assert s and set(s) == {(1000, 563)}, s


def test_without_an_answer_the_window_is_the_limit():
    profile = dict(t.XTERM_SIXEL)
    profile.pop('sixelmax')
    s = sizes(run(['--fill', gif('animation.gif', (250, 0, 0), 2)], profile))
    assert s and set(s) == {(1800, 1013)}, s    # 59 rows of 20 pixels hold 1800 × 36/64


@pytest.mark.parametrize('reply', [b'\x1b[?2;0;0;0S', b'\x1b[?2;0;1000S', b'\x1b[?2;0;1000;1000;1000S',
                                   b'\x1b[?2;0;1000:5;1000S', b'\x1b[?2;3;0S', b'\x1b[?1;3;0S',
                                   b'\x1b[?2;0;99999999999999999999999999;99999999999999999999999999S'],
                         ids=['zero', 'one-value', 'three-values', 'sub-parameter', 'failure', 'mlterm', 'huge'])
def test_an_answer_that_is_no_limit_below_the_window_changes_nothing(reply):
    s = sizes(run(['--fill', gif('animation.gif', (250, 0, 0), 2)], dict(t.XTERM_SIXEL, sixelmax=reply)))
    assert s and set(s) == {(1800, 1013)}, s


def test_the_grids_picture_keeps_within_xterms_limit():
    res = run([gif('red.gif', (250, 0, 0), 2), gif('blue.gif', (0, 0, 250), 2), '--grid', '2x1'])
    s = sizes(res)
    # 111 whole columns of 9 pixels (999) by 50 rows of 20 (1000) where 200x59 cells would be 1800x1180.
    assert s and set(s) == {(999, 1000)}, s
