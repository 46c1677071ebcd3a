"""Frames through shared memory or a temporary file when kitty runs on this machine, base64
when ssh is in between (real kitty under Xvfb)."""
import os, random, sys
import pytest

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'pty'))
from kittyharness import Kitty, group_uploads  # noqa: E402
from gifwriter import write_gif  # noqa: E402
from requires import requires  # noqa: E402
from test_kitty import COLORS, FRAME_MS, dominant, our_image, settled  # noqa: E402

pytestmark = requires('Xvfb', 'kitty', 'import')


@pytest.fixture(scope='module')
def gif(tmp_path_factory):
    path = str(tmp_path_factory.mktemp('medium') / 'rgb.gif')
    write_gif(path, 16, 16, [[c] * 256 for c in COLORS], delay_cs=FRAME_MS // 10, loops=0)
    return path


def colours_shown(k, count, first_shot=None):
    """The frames' colours in the order the screen showed them, once `count` were seen
    (`first_shot`: a screenshot of the first, to look at)."""
    seen = []
    def next_colour():
        c = dominant(k.screen_colors(COLORS))
        if c and (not seen or seen[-1] != c):
            seen.append(c)
            if len(seen) == 1 and first_shot:
                k.save_screenshot(first_shot)
        return len(seen) >= count
    k.wait_for(next_colour, timeout=30, what=f'the colours of {count} frames')
    return seen


def leftovers(pid, tmpdir):
    """Objects this animplay wrote that kitty did not take (it deletes what it read)."""
    names = [n for n in os.listdir('/dev/shm') if n.startswith(f'animplay-tty-graphics-protocol-{pid}-')]
    return names + [n for n in os.listdir(tmpdir) if 'tty-graphics-protocol' in n]


@pytest.mark.parametrize('medium,key', [('shm', 's'), ('file', 't')])
def test_local_kitty_reads_frames_from_the_medium_colours_follow_once_per_frame(display, gif, tmp_path, medium, key):
    k = Kitty(display, ['--graphics', 'kitty', '--loop', '2', gif],
              env={'ANIMPLAY_KITTY_MEDIUM': medium, 'TMPDIR': str(tmp_path)})
    try:
        seen = colours_shown(k, 4)
        # Colour order follows the frames (red, green, blue, red...), from wherever it started.
        start = COLORS.index(seen[0])
        assert seen == [COLORS[(start + i) % 3] for i in range(len(seen))]
        assert k.exit_status() == 0
        cmds = settled(k, last_still=True)
        probes = [c for c in cmds if c['action'] == 'q' and c['transmission_type'] == key]
        assert probes, 'the medium was probed'
        mine = [c for c in cmds if c['id'] == our_image(cmds)]
        uploads = [c for c in mine if c['action'] in ('T', 'f')]
        # Two plays, three frames: each uploaded once, through the medium, zlib-compressed.
        assert [c['action'] for c in uploads] == ['T', 'f', 'f']
        assert all(c['transmission_type'] == key and c['compressed'] == 'z' for c in uploads)
        assert cmds[-1]['transmission_type'] == key   # the last frame, printed after the restore
        pid = k.pid()
        k.wait_for(lambda: not leftovers(pid, str(tmp_path)), what='kitty to take every object')
    finally:
        k.close()


def test_over_ssh_frames_go_inline_as_base64(display, gif, tmp_path):
    k = Kitty(display, ['--graphics', 'kitty', '--loop', '1', gif],
              env={'SSH_CONNECTION': '192.0.2.1 50000 192.0.2.2 22', 'TMPDIR': str(tmp_path)})
    try:
        assert k.exit_status() == 0
        cmds = settled(k, last_still=True)
        assert not [c for c in cmds if c['action'] == 'q' and c['transmission_type'] in ('s', 't')]
        uploads = [c for c in cmds if c['action'] in ('T', 'f')]
        assert len(uploads) == 4   # three frames, then the last one printed after the restore
        assert all(c['transmission_type'] in ('d', '\x00') and c['compressed'] == 'z' for c in uploads)
    finally:
        k.close()


@pytest.fixture(scope='module')
def large_gif(tmp_path_factory):
    """800×600 frames (1.4 MB of RGB each, enough for the first to be compressed in halves):
    a band of seeded grey noise over each frame's colour, so the upload spans many chunks."""
    path = str(tmp_path_factory.mktemp('medium') / 'large.gif')
    rng = random.Random(7)
    w, h, band = 800, 600, 120
    noise = [(g, g, g) for g in (rng.randrange(20, 220) for _ in range(w * band))]
    write_gif(path, w, h, [noise + [c] * (w * (h - band)) for c in COLORS], delay_cs=FRAME_MS // 10, loops=0)
    return path


def test_over_ssh_the_first_upload_written_while_compressed_is_taken_by_kitty(display, large_gif, tmp_path):
    """The first frame's upload goes out as its zlib stream is made (`FrameStream`): kitty
    takes it as any upload (no error, so no fall back to cells), shows it, and the frames
    after it are added to the same image."""
    k = Kitty(display, ['--graphics', 'kitty', '--fill', '--loop', '1', large_gif],
              env={'SSH_CONNECTION': '192.0.2.1 50000 192.0.2.2 22', 'TMPDIR': str(tmp_path)})
    try:
        seen = colours_shown(k, 2, first_shot='kitty-streamed-first-frame')
        assert seen[:2] == [COLORS[0], COLORS[1]]
        assert k.exit_status() == 0
        raw = k.commands()
        cmds = settled(k, last_still=True)
        mine = [c for c in cmds if c['id'] == our_image(cmds)]
        uploads = [c for c in mine if c['action'] in ('T', 'f')]
        assert [(c['action'], c['format'], c['compressed']) for c in uploads] == [('T', 24, 'z'), ('f', 24, 'z'), ('f', 24, 'z')]
        assert all(c['transmission_type'] in ('d', '\x00') for c in uploads)
        # The root went in many chunks (kitty prints each as a command of its own).
        first = next(i for i, c in enumerate(raw) if c['action'] == 'T' and c['id'] == uploads[0]['id'])
        chunks = 1
        while raw[first + chunks - 1]['more'] == 1:
            chunks += 1
        assert chunks > 5, chunks
    finally:
        k.close()
