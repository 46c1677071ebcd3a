"""--inline in the real xterm (sixel) under Xvfb: the picture plays in the rows below what the
shell printed before, each frame drawn there without scrolling the screen; the last frame stays
after exit and what is printed next comes below it (screenshots)."""
import os, sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'kitty'))
from xtermharness import XTerm  # noqa: E402
from test_kitty_inline import red_green, block, check_inline, ABOVE  # noqa: E402
from test_kitty_grid import save_shot  # noqa: E402
from requires import requires  # noqa: E402

pytestmark = requires('Xvfb', 'xterm', 'import', 'xdotool')


def test_inline_plays_below_the_prompt_in_xterm(display, tmp_path):
    x = XTerm(display, ['--inline', '--size', '20x6', red_green(str(tmp_path))], geometry='80x24',
              inside=['sh', '-c', block(ABOVE) + '; exec "$@"', 'sh'])
    try:
        x.window()
        check_inline(display, x, 'xterm-inline')
    finally:
        x.close()


def test_inline_at_the_bottom_scrolls_once_then_stays_in_xterm(display, tmp_path):
    # The prompt at the bottom row: reserving the rows scrolls the screen once; no frame scrolls
    # it again (the picture's box never moves while it plays: check_inline).
    x = XTerm(display, ['--inline', '--size', '20x6', red_green(str(tmp_path))], geometry='80x24',
              inside=['sh', '-c', 'seq 1 40; ' + block(ABOVE) + '; exec "$@"', 'sh'])
    try:
        x.window()
        check_inline(display, x, 'xterm-inline-bottom')
    finally:
        x.close()


def test_inline_resize_draws_the_picture_again_at_the_new_size_in_xterm(display, tmp_path):
    # A resize erases the reserved rows and reserves new ones at the new size: afterwards one
    # picture at the new size, animating, and no copy of the old one left anywhere.
    from test_kitty_inline import watch_frames, RED, GREEN
    from screenshot import grab
    from kittyharness import SCREEN
    x = XTerm(display, ['--inline', red_green(str(tmp_path))], geometry='80x24',
              inside=['sh', '-c', block(ABOVE) + '; exec "$@"', 'sh'])
    try:
        x.window()
        x.wait_for(lambda: watch_frames(display, 0.01)[0][0], timeout=40, what='the picture')
        before = [b for c, b in watch_frames(display, 1) if c][-1]
        x.resize(800, 500)

        def larger():
            seen = [b for c, b in watch_frames(display, 1.5) if c]
            return seen and all(b[3] - b[1] > before[3] - before[1] for b in seen) and seen
        x.wait_for(larger, timeout=20, what='the picture at the new size')
        colours = [c for c, _ in watch_frames(display, 3) if c]
        assert len(set(colours)) == 2, colours             # still animating
        screen = grab(display.name, SCREEN)
        shown = {c: screen.box(c) for c in (RED, GREEN)}
        save_shot(display, 'xterm-inline-resized')
        for c, (n, b) in shown.items():
            # Each colour on screen fills exactly one rectangle (box corners inclusive), the larger picture's.
            assert n == 0 or (n == (b[2] - b[0] + 1) * (b[3] - b[1] + 1) and b[3] - b[1] > before[3] - before[1]), (c, n, b)
        x.keys('q')
        assert x.exit_status() == 0, x.errors()
    finally:
        x.close()
