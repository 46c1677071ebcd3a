"""--grid in the real kitty (pixels, one picture per change) under Xvfb: every tile animates on
its own clock, in its own half of the window (screenshots)."""
import os, subprocess, sys, time

sys.path.insert(0, os.path.dirname(__file__))
from kittyharness import Kitty, SCREEN  # noqa: E402
from gifwriter import write_gif  # noqa: E402
from requires import requires  # noqa: E402
from screenshot import grab  # noqa: E402

pytestmark = requires('Xvfb', 'kitty', 'import')

RED, GREEN, BLUE, YELLOW = (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)
MIN_PIXELS = 5000


def grid_files(directory, fast_ms=500, slow_ms=4000):
    fast, slow = os.path.join(directory, 'fast.gif'), os.path.join(directory, 'slow.gif')
    write_gif(fast, 16, 16, [[RED] * 256, [GREEN] * 256], delay_cs=fast_ms // 10, loops=0)
    write_gif(slow, 16, 16, [[BLUE] * 256, [YELLOW] * 256], delay_cs=slow_ms // 10, loops=0)
    return fast, slow


def watch_tiles(display, seconds):
    """Screenshots for `seconds`: per shot, the fast tile's colour (red or green, by pixel count)
    and the slow tile's (blue or yellow), with each colour's bounding box."""
    states = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        screen = grab(display.name, SCREEN)
        b = {c: screen.box(c) for c in (RED, GREEN, BLUE, YELLOW)}
        fast = max((RED, GREEN), key=lambda c: b[c][0])
        slow = max((BLUE, YELLOW), key=lambda c: b[c][0])
        if b[fast][0] >= MIN_PIXELS and b[slow][0] >= MIN_PIXELS:
            states.append((fast, slow, b[fast][1], b[slow][1]))
    return states


def check_own_clocks(states):
    # While the slow tile still shows blue, the fast one has alternated.
    blue = [s for s in states[:next((i for i, s in enumerate(states) if s[1] == YELLOW), len(states))]]
    fast_colours = [s[0] for s in blue]
    changes = sum(1 for a, b in zip(fast_colours, fast_colours[1:]) if a != b)
    assert changes >= 2, [(s[0], s[1]) for s in states]
    assert any(s[1] == YELLOW for s in states), 'the slow tile never changed'
    # Side by side: the fast tile's box ends left of where the slow tile's begins.
    for fast, slow, fb, sb in states:
        assert fb[2] < sb[0], (fb, sb)


def save_shot(display, name):
    """With ANIMPLAY_TEST_SHOTS=DIR set: the root window into DIR/name.png, to look at."""
    d = os.environ.get('ANIMPLAY_TEST_SHOTS')
    if d:
        os.makedirs(d, exist_ok=True)
        subprocess.run(['import', '-display', display.name, '-window', 'root', os.path.join(d, name + '.png')],
                       check=True, timeout=20)


def test_grid_tiles_on_their_own_clocks_in_kitty(display, tmp_path):
    fast, slow = grid_files(str(tmp_path))
    k = Kitty(display, [fast, slow, '--grid', '2x1'], width=800, height=400)
    try:
        k.wait_for(lambda: any(c.get('action') in ('t', 'T') for c in k.commands()), what='an upload')
        states = watch_tiles(display, 6)
        save_shot(display, 'kitty-grid')
        check_own_clocks(states)
        k.send_text('q')
        assert k.exit_status() == 0
    finally:
        k.close()


MAGENTA = (255, 0, 255)


def test_a_free_tile_takes_the_next_file_in_kitty(display, tmp_path):
    # Three files on two tiles: the fast file plays twice (0.5 s frames, loop count 1), then the
    # third file (magenta) takes its tile, in the same place, while the slow tile still plays.
    fast, slow = os.path.join(str(tmp_path), 'fast.gif'), os.path.join(str(tmp_path), 'slow.gif')
    third = os.path.join(str(tmp_path), 'third.gif')
    write_gif(fast, 16, 16, [[RED] * 256, [GREEN] * 256], delay_cs=50, loops=1)
    write_gif(slow, 16, 16, [[BLUE] * 256, [YELLOW] * 256], delay_cs=1500, loops=0)
    write_gif(third, 16, 16, [[MAGENTA] * 256, [MAGENTA] * 256], delay_cs=50, loops=0)
    k = Kitty(display, [fast, slow, third, '--grid', '2x1'], width=800, height=400)
    try:
        # Both tiles on screen (each draws when its first frame is ready: one grab may hold only one).
        def both():
            shot = grab(display.name, SCREEN)
            return shot.count(BLUE) >= MIN_PIXELS and (shot.box(RED)[1] or shot.box(GREEN)[1])
        left = k.wait_for(both, timeout=40, what='the grid')
        k.wait_for(lambda: grab(display.name, SCREEN).count(MAGENTA) >= MIN_PIXELS, timeout=20, what='the third file')
        shot = grab(display.name, SCREEN)
        save_shot(display, 'kitty-grid-next')
        assert shot.box(MAGENTA)[1] == left, (shot.box(MAGENTA), left)
        assert shot.count(RED) == 0 and shot.count(GREEN) == 0
        assert shot.count(BLUE) >= MIN_PIXELS          # the slow tile plays on
        k.send_text('q')
        assert k.exit_status() == 0
    finally:
        k.close()
