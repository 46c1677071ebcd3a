"""The first sixel image of a play is written while it is encoded (FrameStream): in a pty that
answers like xterm, it must still come whole, once, between its own synchronized-output pair and
cursor moves, before the next frame's image, and leave nothing open (every DCS ended before the
cursor is restored). A first frame of many colours, filled to 1000 pixels wide, makes a sixel of
tens of kilobytes, written in several pieces."""
import os, random, re, tempfile
import termresponder as t
from gifwriter import write_gif

TMP = tempfile.mkdtemp(prefix='animplay-sixel-first-')
WINDOW = dict(cols=120, rows=40, xpixel=1200, ypixel=800)
IMAGE = re.compile(rb'\x1bP[0-9;]*q"(\d+);(\d+);(\d+);(\d+)[^\x1b]*\x1b\\')


def noisy_then_solid(path):
    """160x90: frame 0 of 8x8 blocks in 200 colours at random (seeded; its sixel filled to
    1000x563 is about 140 KB), then two solid frames; 0.2 s each."""
    rng = random.Random(21)
    colours = [(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(200)]
    blocks = [colours[rng.randrange(200)] for _ in range(20 * 12)]
    first = [blocks[y // 8 * 20 + x // 8] for y in range(90) for x in range(160)]
    write_gif(path, 160, 90, [first, [(250, 0, 0)] * (160 * 90), [(0, 0, 250)] * (160 * 90)],
              delay_cs=20, loops=1)


def test_the_first_image_comes_whole_once_before_the_next():
    path = os.path.join(TMP, 'noisy.gif')
    noisy_then_solid(path)
    res = t.run(['--graphics', 'sixel', '--fill', path], t.XTERM_SIXEL, timeout=30, **WINDOW)
    assert res.status == 0, res.output[-400:]
    assert res.leftover == b'' and res.stty_before == res.stty_after
    out = res.output
    images = list(IMAGE.finditer(out))
    assert len(images) >= 3, [len(m.group(0)) for m in images]      # frames 0 and 2 at least, the last printed
    first, second = images[0], images[1]
    assert len(first.group(0)) > 32 << 10                            # several pieces of 16 KB
    assert (int(first.group(3)), int(first.group(4))) == (1000, 563)
    assert first.group(0) != second.group(0)                         # frame 0 is not written twice
    # Each image sits inside its own synchronized-output pair, ended before the cursor is restored.
    for m in images[:-1]:                                            # the last: printed after the restore
        begin = out.rfind(b'\x1b[?2026h', 0, m.start())
        assert begin >= 0 and out.find(b'\x1b[?2026l', begin) > m.end()
        assert out[m.end():m.end() + 2] == b'\x1b8'                  # ST, then the cursor restored
    # No DCS is left open: the first ESC after each ESC P is its ST.
    for m in re.finditer(rb'\x1bP', out):
        end = out.find(b'\x1b', m.end())
        assert end >= 0 and out[end:end + 2] == b'\x1b\\', out[m.start():m.start() + 40]
