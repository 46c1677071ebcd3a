"""Sixel pictures within xterm's largest graphic (`maxGraphicSize`, 1000x1000 by default): xterm
drops a larger sixel image whole, so in a window over 1000 pixels wide a filled picture used to
leave the screen blank. animplay asks for the limit (XTSMGRAPHICS `CSI ? 2 ; 4 ; 0 S`) and keeps
the picture within it: animations, stills and the grid's one picture (screenshots)."""
import os, subprocess, sys
import pytest

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'kitty'))
from xtermharness import XTerm  # noqa: E402
from gifwriter import write_gif  # noqa: E402
from test_kitty_grid import save_shot  # noqa: E402
from requires import requires  # noqa: E402

pytestmark = requires('Xvfb', 'xterm', 'xdotool')

RED, BLUE, MARK = (255, 0, 0), (0, 0, 255), (0, 255, 0)
LIMIT = 1000            # xterm's default maxGraphicSize, both sides
# 168 columns of Debian xterm's default 6-pixel font, at the root window's left edge: 1008
# pixels of text (the 1024-pixel Xvfb screen shows all of it).
GEOMETRY = '168x56+0+0'


def window_width(x):
    """The X window's width (measured once something is on screen: a window just created may
    not have its size yet)."""
    out = subprocess.run(['xdotool', 'getwindowgeometry', x.window()], env=x.env, capture_output=True,
                         text=True, check=True, timeout=10).stdout
    size = [l.split()[1] for l in out.splitlines() if 'Geometry:' in l][0]
    return int(size.split('x')[0])


def solid(tmp_path, name, colour, frames=2):
    """A 64x36 (16:9) solid GIF: `frames` frames of 0.5 s, looping forever (one frame: a still)."""
    p = str(tmp_path / name)
    write_gif(p, 64, 36, [[colour] * (64 * 36)] * frames, delay_cs=50, loops=0)
    return p


def shown(x, colour, least):
    """The colour's bounding box once at least `least` pixels of it are on screen."""
    def box():
        n, b = x.boxes([colour])[colour]
        return b if n >= least else None
    return x.wait_for(box, what=f'{colour} on screen')


def whole(x, colour, least):
    """The colour's bounding box once xterm has drawn the whole 16:9 picture: xterm paints a
    large sixel image in pieces as it parses it, so a screenshot can catch the top part only
    (a 1000x390 box of a 1000x563 picture). The last box seen goes into the timeout's message."""
    seen = []

    def box():
        n, b = x.boxes([colour])[colour]
        seen[:] = [(n, b)]
        if n < least or abs(height(b) - width(b) * 36 / 64) > 2 or n != width(b) * height(b):
            return None
        return b
    try:
        return x.wait_for(box, what=f'the whole {colour} picture on screen')
    except AssertionError as e:
        raise AssertionError(f'{e}; last seen (pixels, box): {seen}') from None


def width(b):
    return b[2] - b[0] + 1


def height(b):
    return b[3] - b[1] + 1


@pytest.mark.parametrize('kind', ['animation', 'still'])
def test_a_filled_picture_wider_than_xterms_limit_is_shown_within_it(display, tmp_path, kind):
    gif = solid(tmp_path, 'wide.gif', RED, frames=2 if kind == 'animation' else 1)
    x = XTerm(display, ['--graphics', 'sixel', '--fill', gif], geometry=GEOMETRY)
    try:
        b = whole(x, RED, 300 * 300)
        # The premise: a window (and so a filled 16:9 picture) wider than xterm's limit.
        assert window_width(x) > LIMIT + 4
        save_shot(display, f'xterm-max-graphic-{kind}')
        # As large as the limit allows (1000x563); `whole` waited for the aspect kept and every
        # pixel painted.
        assert LIMIT - 6 <= width(b) <= LIMIT, b
        if kind == 'animation':
            x.keys('q')
        assert x.exit_status() == 0, x.errors()
        assert x.errors() == ''
    finally:
        x.close()


def test_the_grids_picture_is_shown_within_xterms_limit(display, tmp_path):
    red, blue = solid(tmp_path, 'red.gif', RED), solid(tmp_path, 'blue.gif', BLUE)
    x = XTerm(display, ['--graphics', 'sixel', red, blue, '--grid', '2x1'], geometry=GEOMETRY)
    try:
        # Both tiles from one screenshot: xterm paints the grid's one picture top down, so two
        # screenshots apart could show the tiles at different heights.
        def both():
            got = x.boxes([RED, BLUE])
            return (got[RED][1], got[BLUE][1]) if min(got[RED][0], got[BLUE][0]) >= 200 * 100 else None
        r, b = x.wait_for(both, what='both tiles on screen')
        assert window_width(x) > LIMIT + 4
        save_shot(display, 'xterm-max-graphic-grid')
        # Side by side, the two tiles together no wider than the limit.
        assert r[2] < b[0] and b[2] - r[0] + 1 <= LIMIT, (r, b)
        assert abs(width(r) - width(b)) <= 1 and abs(height(r) - height(b)) <= 1, (r, b)
        x.keys('q')
        assert x.exit_status() == 0, x.errors()
        # The last picture is printed at exit where it was (the same columns). A block printed
        # after it shows that xterm has drawn everything before (it draws in order).
        x.then("printf '\\033[48;2;0;255;0m        \\033[m\\n'")
        shown(x, MARK, 8 * 10)
        left = shown(x, RED, 200 * 100)
        assert abs(left[0] - r[0]) <= 1 and abs(left[2] - r[2]) <= 1, (r, left)
    finally:
        x.close()
