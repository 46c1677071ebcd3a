"""--grid in the real xterm (sixel, one picture per change) under Xvfb: every tile animates on
its own clock, in its own half of the window (screenshots)."""
import os, subprocess, sys
import pytest

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'kitty'))
from xtermharness import Display, XTerm  # noqa: E402
from test_kitty_grid import grid_files, watch_tiles, check_own_clocks  # noqa: E402
from requires import requires  # noqa: E402

pytestmark = requires('Xvfb', 'xterm', 'import', 'xdotool')


@pytest.fixture(scope='module')
def display():
    d = Display()
    yield d
    d.close()


def test_grid_tiles_on_their_own_clocks_in_xterm(display, tmp_path):
    fast, slow = grid_files(str(tmp_path))
    x = XTerm(display, [fast, slow, '--grid', '2x1'], geometry='80x24')
    try:
        x.window()
        shot = lambda: subprocess.run(['import', '-display', display.name, '-window', 'root', '-depth', '8', 'rgb:-'],
                                      capture_output=True, check=True, timeout=20).stdout
        states = watch_tiles(shot, 7)
        os.system(f'import -display {display.name} -window root /tmp/usage-shots/xterm-grid.png 2>/dev/null')
        check_own_clocks(states)
        x.keys('q')
        assert x.exit_status() == 0, x.errors()
    finally:
        x.close()
