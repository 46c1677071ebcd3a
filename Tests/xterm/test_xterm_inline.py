"""--inline in the real xterm (sixel) under Xvfb: the picture plays in the rows below what the
shell printed before, each frame drawn there without scrolling the screen; the last frame stays
after exit and what is printed next comes below it (screenshots)."""
import os, sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'kitty'))
from xtermharness import XTerm  # noqa: E402
from test_kitty_inline import red_green, block, check_inline, ABOVE  # noqa: E402
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
