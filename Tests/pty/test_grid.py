"""--grid CxR in a pty (cells): every tile animates on its own clock.

A fast animation (50 ms frames) and a slow one (1 s frames) side by side: the screen is
followed as the bytes arrive, and the fast tile must change colour several times while the
slow one keeps its first frame, then the slow one changes too.
"""
import os, tempfile
import pyte
import ptyharness as h
from gifwriter import write_gif

TMP = tempfile.mkdtemp(prefix='animplay-grid-')
RED, GREEN, BLUE, YELLOW = (250, 0, 0), (0, 200, 0), (0, 0, 250), (250, 250, 0)
MAGENTA, CYAN = (250, 0, 250), (0, 250, 250)


def gif(name, colours, delay_cs, loops=0):
    p = os.path.join(TMP, name)
    write_gif(p, 16, 16, [[c] * 256 for c in colours], delay_cs=delay_cs, loops=loops)
    return p


class Follower:
    """Feeds the output into a terminal as it arrives; records (left, right) tile colours."""
    def __init__(self, cols, rows):
        self.screen = h.AltScreen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.fed = 0
        self.states = []

    def colour(self, x0, x1):
        seen = {}
        for y in range(self.screen.lines):
            for x in range(x0, x1):
                ch = self.screen.buffer[y][x]
                for c in (ch.fg, ch.bg):
                    rgb = h.hexrgb(c)
                    if isinstance(rgb, tuple):
                        seen[rgb] = seen.get(rgb, 0) + 1
        return max(seen, key=seen.get) if seen else None

    def feed(self, everything):
        self.stream.feed(h.without_apc(everything[self.fed:]))
        self.fed = len(everything)
        half = self.screen.columns // 2
        state = (self.colour(0, half), self.colour(half, self.screen.columns))
        if not self.states or self.states[-1] != state:
            self.states.append(state)


def test_each_tile_on_its_own_clock():
    fast = gif('fast.gif', [RED, GREEN], 5)
    slow = gif('slow.gif', [BLUE, YELLOW], 100)
    f = Follower(80, 24)

    def slow_changed(_new, everything):
        f.feed(everything)
        return any(s[1] == YELLOW for s in f.states)
    r = h.run([fast, slow, '--grid', '2x1'], cols=80, rows=24, steps=[(slow_changed, b'q')], timeout=20)
    assert r.status == 0 and r.stty_before == r.stty_after
    before = [s for s in f.states[:next(i for i, s in enumerate(f.states) if s[1] == YELLOW)]]
    lefts = [s[0] for s in before if s[1] == BLUE]
    # The fast tile alternates red and green (≈ 20 changes in the slow tile's first second).
    assert set(lefts) >= {RED, GREEN}
    assert sum(1 for a, b in zip(lefts, lefts[1:]) if a != b) >= 4, f.states
    assert r.screen.alt_entries == 1


def test_a_tile_whose_file_has_played_takes_the_next_file():
    # Three files, two tiles: the fast one's two plays end first, and the third file takes its
    # tile while the slow one still plays; the grid ends when every file has played.
    a = gif('ga.gif', [RED, GREEN], 5, loops=1)
    b = gif('gb.gif', [BLUE, YELLOW], 60, loops=1)
    c = gif('gc.gif', [MAGENTA, CYAN], 5, loops=1)
    r = h.run([a, b, c, '--grid', '2x1'], cols=80, rows=24, timeout=20)
    assert r.status == 0 and r.stty_before == r.stty_after
    assert b'shows the first' not in r.output
    f = Follower(80, 24)
    for end in range(1024, len(r.output) + 1024, 1024):   # the screens as the bytes came
        f.feed(r.output[:end])
    lefts = [s[0] for s in f.states]
    # a in the left tile, then c (after a's last frame), while the right tile is still b.
    assert lefts.index(MAGENTA) > lefts.index(GREEN)
    assert any(s == (MAGENTA, BLUE) or s == (CYAN, BLUE) for s in f.states), f.states
    # The last picture stays in the normal screen: c's and b's last frames.
    assert f.states[-1] == (CYAN, YELLOW)


def solid(name, colour):
    return gif(name, [colour, colour], 10)


def test_n_and_p_page_through_files_that_loop_forever():
    colours = [RED, GREEN, BLUE, YELLOW, MAGENTA]
    files = [solid(f'page{i}.gif', c) for i, c in enumerate(colours)]
    f = Follower(80, 24)
    status_lines = []

    def shows(state):
        def check(_new, everything):
            f.feed(everything)
            if f.states[-1] == state and 'files' in f.screen.display[-1]:
                status_lines.append(f.screen.display[-1])
                return True
            return False
        return check
    r = h.run(files + ['--grid', '2x1', '--loop', '0', '--status'], cols=80, rows=24, timeout=30,
              steps=[(shows((RED, GREEN)), b'n'), (shows((BLUE, YELLOW)), b'n'),
                     (shows((MAGENTA, None)), b'p'), (shows((BLUE, YELLOW)), b'p'),
                     (shows((RED, GREEN)), b'q')])
    assert r.status == 0 and r.stty_before == r.stty_after
    # The status line says which files are shown.
    assert [l.split('files ')[1].split(' (')[0] for l in status_lines] == ['1 2 of 5', '3 4 of 5', '5 of 5', '3 4 of 5', '1 2 of 5'], status_lines


def test_n_after_the_last_page_ends_the_grid():
    files = [solid(f'end{i}.gif', c) for i, c in enumerate([RED, GREEN, BLUE])]
    f = Follower(80, 24)

    def shows(state):
        def check(_new, everything):
            f.feed(everything)
            return f.states[-1] == state
        return check
    r = h.run(files + ['--grid', '2x1', '--loop', '0'], cols=80, rows=24, timeout=30,
              steps=[(shows((RED, GREEN)), b'n'), (shows((BLUE, None)), b'n')])
    assert r.status == 0 and r.stty_before == r.stty_after


def test_a_grid_larger_than_the_terminal_is_refused_before_the_screen_changes():
    # Every tile needs a cell: 100 columns of tiles in 80 columns played the last 20 off the
    # screen (clipped, decoded for nothing). Refused in one line, the shell's screen untouched.
    a = gif('big-a.gif', [RED, GREEN], 5)
    b = gif('big-b.gif', [BLUE, YELLOW], 5)
    for grid, most in (('100x2', '80x24'), ('2x25', '80x24'), ('2x24', '80x23')):
        args = [a, b, '--grid', grid, '--graphics', 'cells'] + (['--status'] if grid == '2x24' else [])
        r = h.run(args, cols=80, rows=24)
        assert r.status == 64, grid
        assert r.screen.alt_entries == 0 and r.stty_before == r.stty_after
        text = r.output.replace(b'\r\n', b'').decode('utf-8', 'replace')
        assert f'animplay: --grid {grid} does not fit this 80x24 terminal: every tile needs a cell at least (at most {most} here)' in text
    # The largest grid that fits plays.
    r = h.run([a, b, '--grid', '80x24', '--graphics', 'cells', '--loop', '1'], cols=80, rows=24)
    assert r.status == 0 and r.screen.alt_entries == 1


def test_tiles_a_shrunk_window_cannot_show_wait_unseen():
    # A 1x2 grid in a window shrunk to two rows (the status line and one row of picture): the
    # lower tile is outside the box. It used to go on decoding and playing unseen; now it waits
    # (its frame number in the status line stands still while the upper tile's moves on), and
    # plays on when a resize shows it again.
    import re
    a = gif('hide-a.gif', [RED, GREEN, BLUE, YELLOW], 5)
    b = gif('hide-b.gif', [MAGENTA, CYAN, RED, GREEN], 5)
    screen = h.AltScreen(80, 24)
    stream = pyte.ByteStream(screen)
    fed, rows, phase, seen = [0], [24], [0], []

    def follow(everything):
        stream.feed(h.without_apc(everything[fed[0]:]))
        fed[0] = len(everything)
        m = re.search(r'frames (\d+)/4 (\d+)/4', screen.display[rows[0] - 1])
        if m and (not seen or seen[-1] != (phase[0], m[1], m[2])):
            seen.append((phase[0], m[1], m[2]))

    def moved(p, tile, n):
        def check(_new, everything):
            follow(everything)
            values = [s[tile] for s in seen if s[0] == p]
            return sum(1 for x, y in zip(values, values[1:]) if x != y) >= n
        return check

    def window(r, p):
        def act(proc, master, slave):
            rows[0], phase[0] = r, p
            h.resize(80, r)(proc, master, slave)
        return act
    r = h.run([a, b, '--grid', '1x2', '--status', '--loop', '0'], cols=80, rows=24, timeout=40,
              steps=[(moved(0, 2, 3), window(2, 1)), (moved(1, 1, 8), window(24, 2)), (moved(2, 2, 3), b'q')])
    assert r.status == 0 and r.stty_before == r.stty_after
    shrunk = [s for s in seen if s[0] == 1]
    assert len({s[2] for s in shrunk}) == 1 and len({s[1] for s in shrunk}) == 4, seen
