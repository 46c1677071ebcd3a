"""--inline in the real kitty under Xvfb, in pixels: the picture plays in the rows below what the
shell printed before, the last frame stays after exit and what is printed next comes below it
(screenshots); kitty's placement becomes one still that scrolls with the text."""
import os, sys, time

sys.path.insert(0, os.path.dirname(__file__))
from kittyharness import Kitty, SCREEN, group_uploads  # noqa: E402
from gifwriter import write_gif  # noqa: E402
from requires import requires  # noqa: E402
from screenshot import grab  # noqa: E402
from test_kitty_grid import save_shot  # noqa: E402

pytestmark = requires('Xvfb', 'kitty', 'import')

RED, GREEN = (255, 0, 0), (0, 255, 0)          # the animation's two frames
ABOVE, BELOW = (0, 0, 255), (255, 255, 0)      # blocks the shell prints before and after
MIN_PIXELS = 2000


def red_green(directory, frame_ms=400):
    p = os.path.join(directory, 'rg.gif')
    write_gif(p, 16, 16, [[RED] * 256, [GREEN] * 256], delay_cs=frame_ms // 10, loops=0)
    return p


def block(rgb):
    """A shell command printing a line with 8 cells of background colour `rgb`."""
    return "printf '\\033[48;2;%d;%d;%dm        \\033[m\\n'" % rgb


def watch_frames(display, seconds):
    """Screenshots for `seconds`: per shot, the picture's colour and its box (None: no picture)."""
    seen = []
    deadline = time.monotonic() + seconds
    while not seen or time.monotonic() < deadline:
        screen = grab(display.name, SCREEN)
        b = {c: screen.box(c) for c in (RED, GREEN)}
        c = max((RED, GREEN), key=lambda c: b[c][0])
        seen.append((c, b[c][1]) if b[c][0] >= MIN_PIXELS else (None, None))
    return seen


def check_inline(display, term, name):
    """The picture animates (red and green alternate) at one place, below the ABOVE block; after
    q the last frame stays there and the BELOW block printed next lands under it."""
    term.wait_for(lambda: watch_frames(display, 0.01)[0][0], timeout=40, what='the picture')
    seen = [s for s in watch_frames(display, 6) if s[0]]
    colours = [c for c, _ in seen]
    assert sum(1 for a, b in zip(colours, colours[1:]) if a != b) >= 2, colours
    boxes = {b for _, b in seen}
    assert len(boxes) == 1, boxes                  # drawn in place, never moved or scrolled
    picture = boxes.pop()
    screen = grab(display.name, SCREEN)
    above = screen.box(ABOVE)[1]
    assert above and above[3] <= picture[1], (above, picture)
    term.keys('q')
    assert term.exit_status() == 0, term.errors()
    term.then(block(BELOW))
    term.wait_for(lambda: grab(display.name, SCREEN).box(BELOW)[0], what='the line printed after')
    screen = grab(display.name, SCREEN)
    after = {c: screen.box(c) for c in (RED, GREEN, ABOVE, BELOW)}
    save_shot(display, name)
    # At the bottom of the screen the line printed after scrolls everything up: the picture
    # moves with the text (it is the screen's, not a window over it).
    dy = after[ABOVE][1][1] - above[1]
    assert dy <= 0 and after[ABOVE][1] == (above[0], above[1] + dy, above[2], above[3] + dy), (after, above)
    last = max((RED, GREEN), key=lambda c: after[c][0])
    assert after[last][0] >= MIN_PIXELS, after
    assert after[last][1] == (picture[0], picture[1] + dy, picture[2], picture[3] + dy), (after, picture)
    below = after[BELOW][1]
    assert below[1] >= picture[3] + dy, (below, picture)
    # Right below it: the picture plus at most two rows (a spare one for sixel, the cursor's).
    assert below[1] - (picture[3] + dy) < 3 * (below[3] - below[1]), (below, picture)


class KittyKeys(Kitty):
    def keys(self, text):
        self.send_text(text)

    def errors(self):
        return self.stderr_tail()


def test_inline_plays_below_the_prompt_in_kitty(display, tmp_path):
    k = KittyKeys(display, ['--inline', '--size', '20x6', red_green(str(tmp_path))],
                  inside=['sh', '-c', block(ABOVE) + '; exec "$@"', 'sh'])
    try:
        check_inline(display, k, 'kitty-inline')
        cmds = [c for c in group_uploads(k.commands())]
        # One placement at the cursor, left there (C=1); frames switched (a=a); at the end one
        # still without an id at the same place, and the animation deleted.
        ours = [c for c in cmds if c['action'] == 'T' and c['id']]
        assert ours and all(c['cursor_movement'] == 1 for c in ours), ours
        assert any(c['action'] == 'a' for c in cmds)
        still = [i for i, c in enumerate(cmds) if c['action'] == 'T' and c['id'] == 0]
        deleted = [i for i, c in enumerate(cmds) if c['action'] == 'd' and c['id'] == ours[0]['id']]
        assert len(still) == 1 and deleted and deleted[-1] > still[0], cmds[-5:]
        assert cmds[still[0]]['cursor_movement'] == 1
    finally:
        k.close()


def test_inline_at_the_bottom_scrolls_with_the_text_in_kitty(display, tmp_path):
    # The prompt at the bottom row: the rows are reserved by scrolling once, the placement never
    # moves while playing, and the still left behind scrolls up with the line printed after.
    k = KittyKeys(display, ['--inline', '--size', '20x6', red_green(str(tmp_path))],
                  inside=['sh', '-c', 'seq 1 60; ' + block(ABOVE) + '; exec "$@"', 'sh'])
    try:
        check_inline(display, k, 'kitty-inline-bottom')
    finally:
        k.close()
