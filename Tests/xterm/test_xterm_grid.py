"""--grid in the real xterm (sixel, one picture per change) under Xvfb: every tile animates on
its own clock, in its own half of the window (screenshots)."""
import os, sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'kitty'))
from xtermharness import XTerm  # noqa: E402
from test_kitty_grid import grid_files, watch_tiles, check_own_clocks, save_shot  # noqa: E402
from requires import requires  # noqa: E402

pytestmark = requires('Xvfb', 'xterm', 'import', 'xdotool')


def test_grid_tiles_on_their_own_clocks_in_xterm(display, tmp_path):
    fast, slow = grid_files(str(tmp_path))
    x = XTerm(display, [fast, slow, '--grid', '2x1'], geometry='80x24')
    try:
        x.window()
        states = watch_tiles(display, 7)
        save_shot(display, 'xterm-grid')
        check_own_clocks(states)
        x.keys('q')
        assert x.exit_status() == 0, x.errors()
    finally:
        x.close()
