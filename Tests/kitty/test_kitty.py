"""animplay --graphics kitty in the real kitty under Xvfb: what is on screen, what was sent."""
import os, signal, subprocess, sys, time
import pytest

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'pty'))
from kittyharness import Kitty, group_uploads, solid_animations  # noqa: E402
import kittyharness  # noqa: E402
from gifwriter import write_gif  # noqa: E402
from requires import requires  # noqa: E402

pytestmark = requires('Xvfb', 'kitty', 'import', 'ffmpeg')

RED, GREEN, BLUE = (255, 0, 0), (0, 255, 0), (0, 0, 255)
COLORS = [RED, GREEN, BLUE]
FRAME_MS = 1000   # long enough for screenshots (hundreds of ms each on a loaded machine)


@pytest.fixture(scope='module')
def anims(tmp_path_factory):
    """The same three solid frames (red, green, blue, FRAME_MS each) as GIF, APNG and WebP."""
    return solid_animations(str(tmp_path_factory.mktemp('anims')), COLORS, FRAME_MS)


def our_image(cmds):
    ids = {c['id'] for c in cmds if c['action'] in ('T', 'f', 'a') and c['id']}
    assert len(ids) == 1, ids
    return ids.pop()


def settled(k, last_still):
    """The parsed commands once kitty's dump holds the end of the run (kitty writes it out in
    blocks): the still printed after the restore, or the deletion of the animation."""
    def done():
        cmds = group_uploads(k.commands())
        if last_still:
            return cmds if cmds and cmds[-1]['action'] == 'T' and cmds[-1]['id'] == 0 else None
        return cmds if any(c['action'] == 'd' for c in cmds) else None
    return k.wait_for(done, what='the end of the run in kitty\'s command dump')


def dominant(counts, at_least=20000):
    best = max(counts, key=counts.get)
    return best if counts[best] >= at_least else None


@pytest.mark.parametrize('fmt', ['gif', 'apng', 'webp'])
def test_colours_follow_the_frames_with_their_durations(display, anims, fmt):
    k = Kitty(display, ['--graphics', 'kitty', '--loop', '1', anims[fmt]])
    try:
        seen = []      # (colour, first seen, last seen)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and not os.path.exists(k.rcfile):
            c = dominant(k.screen_colors(COLORS))
            now = time.monotonic()
            if c is None:
                continue
            if seen and seen[-1][0] == c:
                seen[-1][2] = now
            else:
                seen.append([c, now, now])
        assert k.exit_status() == 0
        # The sampling stops when animplay exits, which can be before kitty has drawn the last
        # frame: wait for the screen to show it.
        last = k.wait_for(lambda: dominant(k.screen_colors(COLORS)), what='the last frame after the exit')
        if not seen or seen[-1][0] != last:
            now = time.monotonic()
            seen.append([last, now, now])
        order = [c for c, _, _ in seen]
        # One play: red green blue (red may be missed while kitty starts), then blue stays.
        assert order in ([RED, GREEN, BLUE], [GREEN, BLUE]), order
        # Green lasted about its duration: at least from its first to its last sighting, at
        # most from the last sighting of red (or the start) to the first of blue.
        i = order.index(GREEN)
        shortest = seen[i][2] - seen[i][1]
        longest = seen[i + 1][1] - (seen[i - 1][2] if i > 0 else seen[i][1] - 1.0)
        assert shortest <= FRAME_MS / 1000 + 0.3 and longest >= FRAME_MS / 1000 - 0.3, (shortest, longest)
    finally:
        k.close()


def test_three_plays_upload_each_frame_once_and_quit_leaves_the_last_frame(display, anims):
    k = Kitty(display, ['--graphics', 'kitty', '--loop', '3', anims['gif']])
    try:
        assert k.exit_status() == 0
        cmds = settled(k, last_still=True)
        image = our_image(cmds)
        mine = [c for c in cmds if c['id'] == image]
        uploads = [c for c in mine if c['action'] in ('T', 'f')]
        assert [c['action'] for c in uploads] == ['T', 'f', 'f']
        # Every upload is zlib-compressed, inline or through shared memory / a file (kitty is local);
        # the frames are opaque, so they go as RGB (f=24), the still too.
        assert all(c['quiet'] == 1 and c['format'] == 24 and c['compressed'] == 'z' for c in uploads)
        switches = [c['num_cells'] for c in mine if c['action'] == 'a']   # kitty prints c= as num_cells
        assert switches == [2, 3, 1, 2, 3, 1, 2, 3]
        # Exit: the animation image is deleted (all frames), the last frame printed as a still.
        assert mine[-1]['action'] == 'd' and mine[-1]['delete_action'] == 'I'
        last = cmds[-1]
        assert last['action'] == 'T' and last['id'] == 0 and last['format'] == 24
        counts = k.wait_for(lambda: (lambda c: c if c[BLUE] > 20000 else None)(k.screen_colors(COLORS)),
                            what='the last frame on the normal screen')
        assert counts[RED] == 0 and counts[GREEN] == 0
    finally:
        k.close()


@pytest.mark.parametrize('how', ['q', 'ctrl-c', 'SIGTERM', 'SIGHUP', 'clear'])
def test_every_quit_path_leaves_only_the_last_frame(display, anims, how):
    args = ['--graphics', 'kitty', '--loop', '0', anims['gif']]
    if how == 'clear':
        args = ['--clear'] + args
    k = Kitty(display, args)
    try:
        pid = k.pid()
        k.wait_for(lambda: any(c['action'] == 'a' for c in k.commands()), what='a frame switch')
        if how == 'q' or how == 'clear':
            k.send_text('q')
        elif how == 'ctrl-c':
            k.send_text('\\x03')
        else:
            os.kill(pid, getattr(signal, how))
        rc = k.exit_status()
        assert rc == (0 if how in ('q', 'clear') else 1), rc
        cmds = settled(k, last_still=how not in ('clear', 'SIGHUP'))
        image = our_image(cmds)
        mine = [c for c in cmds if c['id'] == image]
        assert mine[-1]['action'] == 'd' and mine[-1]['delete_action'] == 'I'
        stills = [c for c in cmds if c['action'] == 'T' and c['id'] == 0]
        if how in ('clear', 'SIGHUP'):
            assert stills == []
            k.wait_for(lambda: max(k.screen_colors(COLORS).values()) == 0, what='an empty screen')
        else:
            assert len(stills) == 1
            # The still is the frame that was on screen; only it remains.
            k.wait_for(lambda: sorted(k.screen_colors(COLORS).values())[1] == 0
                       and max(k.screen_colors(COLORS).values()) > 20000, what='one colour on screen')
    finally:
        k.close()


def test_resize_places_and_uploads_again(display, anims):
    k = Kitty(display, ['--graphics', 'kitty', '--loop', '0', anims['gif']], width=800, height=600)
    try:
        pid = k.pid()
        k.wait_for(lambda: len([c for c in k.commands() if c['action'] == 'a']) >= 3, what='a whole play')
        first = [c for c in group_uploads(k.commands()) if c['action'] == 'T'][0]
        k.resize(400, 300)
        def reuploaded():
            cmds = group_uploads(k.commands())
            for i, c in enumerate(cmds):
                if c['action'] == 'T' and c['id'] == first['id'] and c['data_width'] < first['data_width']:
                    return cmds, i
            return None
        cmds, i = k.wait_for(reuploaded, what='a smaller root frame after the resize')
        assert cmds[i - 1]['action'] == 'd'          # the old image went first
        k.wait_for(lambda: dominant(k.screen_colors(COLORS), 5000), what='the image after the resize')
        os.kill(pid, signal.SIGTERM)
        assert k.exit_status() == 1
    finally:
        k.close()


def test_suspend_and_continue_keeps_playing_in_pixels(display, anims):
    # Ctrl-Z restores the terminal: the image leaves with the alternate screen. SIGCONT (what a
    # shell's fg sends) re-enters, uploads the frames again and goes on switching them in kitty:
    # no fallback to cells, every colour shown again.
    k = Kitty(display, ['--graphics', 'kitty', '--loop', '0', anims['gif']])
    try:
        pid = k.pid()
        k.wait_for(lambda: any(c['action'] == 'a' for c in k.commands()), what='a frame switch')
        k.send_text('\\x1a')
        k.wait_for(k.stopped, what='animplay stopped by Ctrl-Z')
        k.wait_for(lambda: max(k.screen_colors(COLORS).values()) == 0, what='no image while stopped')
        before = len(k.commands())
        os.kill(pid, signal.SIGCONT)
        image = our_image(k.commands())
        k.wait_for(lambda: any(c['action'] == 'T' and c['id'] == image for c in k.commands()[before:]),
                   what='the frames uploaded again')
        seen = set()
        def every_colour_and_a_whole_cycle():
            seen.add(dominant(k.screen_colors(COLORS)))
            switches = {c['num_cells'] for c in k.commands()[before:] if c['action'] == 'a'}
            return seen >= set(COLORS) and switches == {1, 2, 3}
        k.wait_for(every_colour_and_a_whole_cycle, timeout=30, what='every frame shown again, back to the first')
        after = [c for c in k.commands()[before:] if c['id'] == image]
        assert not any(c['action'] == 'd' for c in after[1:]), 'the image was deleted: fell back to cells'
        k.send_text('q')
        assert k.exit_status() == 0
    finally:
        k.close()


@requires('tmux')
@pytest.mark.parametrize('passthrough', ['on', 'off'])
def test_inside_tmux_frames_reach_kitty_only_through_passthrough(display, anims, tmp_path, passthrough):
    # tmux in kitty: with allow-passthrough on, auto-detection wraps every command for
    # passthrough and kitty shows the frames; with it off, cells.
    conf = tmp_path / 'tmux.conf'
    conf.write_text(f'set -g allow-passthrough {passthrough}\nset -g status off\n')
    sock = str(tmp_path / 'tmux.sock')
    # The probe's round ends at the outer terminal's DA1 through passthrough; the harness's
    # generous budget (PROBE_BUDGET) keeps a loaded machine from turning 'on' into 'no answer'.
    k = Kitty(display, ['--loop', '0', anims['gif']], inside=['tmux', '-S', sock, '-f', str(conf), 'new-session'])
    try:
        pid = k.pid()
        if passthrough == 'on':
            def switched():
                cmds = group_uploads(k.commands())
                return cmds if len([c for c in cmds if c['action'] == 'a']) >= 3 else None
            cmds = k.wait_for(switched, what='frame switches through tmux')
            assert [c['action'] for c in cmds if c['action'] in ('T', 'f')][:2] == ['T', 'f']
        # Either way the animation is on screen (pixels, or truecolor cells).
        k.wait_for(lambda: dominant(k.screen_colors(COLORS), 5000), what='the animation in tmux')
        if passthrough == 'off':
            assert not [c for c in k.commands() if c['action'] in ('T', 'f', 'a')]
        os.kill(pid, signal.SIGTERM)
        assert k.exit_status() == 1
    finally:
        subprocess.run(['tmux', '-S', sock, 'kill-server'], capture_output=True)
        k.close()


def tmux_ask(sock, *args):
    return subprocess.run(['tmux', '-S', sock] + list(args), capture_output=True, text=True, check=True,
                          timeout=10).stdout.strip()


@requires('tmux')
def test_inside_tmux_the_image_sits_in_its_pane_and_leaves_text_behind(display, anims, tmp_path):
    # kitty 0.26 in tmux 3.3 (no Unicode placeholders before kitty 0.28): the image is placed at
    # the pane's offset on kitty's screen, centred in the pane, also after the pane moves (a
    # split to its left: a resize, and a new offset); at exit the image is deleted and the last
    # frame is left as text, which tmux scrolls away like any text; no shared memory is left.
    conf = tmp_path / 'tmux.conf'
    conf.write_text('set -g allow-passthrough on\nset -g status off\n')
    sock = str(tmp_path / 'tmux.sock')
    shm = lambda pid: [n for n in os.listdir('/dev/shm') if n.startswith(f'animplay-tty-graphics-protocol-{pid}-')]
    k = Kitty(display, ['--loop', '0', anims['gif']], inside=['tmux', '-S', sock, '-f', str(conf), 'new-session'])
    try:
        pid = k.pid()
        ours = tmux_ask(sock, 'list-panes', '-F', '#{pane_id}').split()[0]
        cols = int(tmux_ask(sock, 'display', '-p', '#{client_width}'))
        rows = int(tmux_ask(sock, 'display', '-p', '#{client_height}'))
        cw, ch = 800 // cols, 600 // rows      # kitty's cells (the window is 800x600 pixels)

        def centred_in_pane(shot=None, vertically=True):
            left, top, width, height = map(int, tmux_ask(
                sock, 'display', '-p', '-t', ours, '#{pane_left} #{pane_top} #{pane_width} #{pane_height}').split())
            shot = shot or k.screenshot()
            for c in COLORS:
                b = kittyharness.box(shot[2], shot[0], shot[1], c)
                if b and (b[2] - b[0]) * (b[3] - b[1]) > 2000:
                    cx, cy = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
                    # Inside the pane and centred in it to a cell.
                    inside = b[0] >= left * cw and b[2] <= (left + width) * cw + 1
                    if inside and abs(cx - (left + width / 2) * cw) <= cw and (
                            not vertically or abs(cy - (top + height / 2) * ch) <= ch):
                        return c, b
            return None

        k.wait_for(centred_in_pane, what='the image centred in the whole-window pane')
        k.save_screenshot('tmux-during')
        # A pane to the left: ours moves right and narrows. The commands are counted before the
        # split: animplay may re-place the image before the test sees the new pane offset.
        before = len(k.commands())
        tmux_ask(sock, 'split-window', '-h', '-b', '-l', '40%', '-t', ours, 'sleep 600')
        k.wait_for(lambda: int(tmux_ask(sock, 'display', '-p', '-t', ours, '#{pane_left}')) > 0, what='the split')
        k.wait_for(lambda: any(c['action'] == 'T' for c in k.commands()[before:]), what='the image placed again')
        k.wait_for(centred_in_pane, what='the image centred in the moved pane')
        k.save_screenshot('tmux-split')
        tmux_ask(sock, 'send-keys', '-t', ours, 'q')
        assert k.exit_status() == 0
        # The animation image is deleted; what stays is the last frame as text, still centred.
        k.wait_for(lambda: any(c['action'] == 'd' for c in k.commands()), what='the image deleted')
        stills = [c for c in group_uploads(k.commands()) if c['action'] == 'T' and c['id'] == 0]
        assert stills == []
        # Printed at the cursor like `cat`: centred across the pane, from the top down.
        last = k.wait_for(lambda: centred_in_pane(vertically=False), what='the last frame as text, centred')[0]
        k.save_screenshot('tmux-after')
        assert shm(pid) == []
        # Text scrolls: after 50 lines, nothing of the picture is left.
        k.then('seq 1 50')
        k.wait_for(lambda: k.screen_colors([last])[last] == 0, what='the last frame scrolled away')
        k.save_screenshot('tmux-after-seq')
    finally:
        subprocess.run(['tmux', '-S', sock, 'kill-server'], capture_output=True)
        k.close()


def test_soft_alpha_shows_as_in_a_browser(display, tmp_path):
    # kitty composites the frame's alpha itself, over its black background: a glow's 10 %
    # shows 25 of 255, what a browser shows (the same rule the sixel and cell outputs follow).
    ramp = kittyharness.alpha_ramp(str(tmp_path))
    k = Kitty(display, ['--graphics', 'kitty', '--loop', '0', ramp])
    try:
        got = k.wait_for(lambda: kittyharness.ramp_columns(k.screenshot()), what='the ramp on screen')
        k.save_screenshot('kitty-ramp')
        want = [kittyharness.browser_blend(kittyharness.RAMP_COLOURS[x // 8], kittyharness.RAMP_ALPHAS[x % 8], (0, 0, 0))
                for x in range(16)]
        assert all(max(abs(a - b) for a, b in zip(g, w)) <= 2 for g, w in zip(got, want)), (got, want)
        k.send_text('q')
        assert k.exit_status() == 0
    finally:
        k.close()


def test_opaque_root_as_rgb_then_a_frame_with_alpha_shows_as_in_a_browser(display, tmp_path):
    # An opaque frame goes as RGB (f=24), one with alpha as RGBA (f=32), in the same image: the
    # ramp added after an opaque root is composited over kitty's black, not over the root.
    from apngwriter import write_apng
    ramp = [kittyharness.RAMP_COLOURS[x // 8] + (kittyharness.RAMP_ALPHAS[x % 8],) for y in range(8) for x in range(16)]
    opaque = [kittyharness.RAMP_COLOURS[x // 8] + (255,) for y in range(8) for x in range(16)]
    path = str(tmp_path / 'opaque-then-ramp.png')
    write_apng(path, 16, 8, [opaque, ramp], delay_ms=400, plays=0)
    k = Kitty(display, ['--graphics', 'kitty', '--loop', '0', path])
    try:
        want = [kittyharness.browser_blend(kittyharness.RAMP_COLOURS[x // 8], kittyharness.RAMP_ALPHAS[x % 8], (0, 0, 0))
                for x in range(16)]
        def ramp_shown():
            got = kittyharness.ramp_columns(k.screenshot())
            return got if got and all(max(abs(a - b) for a, b in zip(g, w)) <= 2 for g, w in zip(got, want)) else None
        k.wait_for(ramp_shown, what='the ramp frame as a browser shows it')
        k.send_text('q')
        assert k.exit_status() == 0
        cmds = settled(k, last_still=False)
        image = our_image(cmds)
        uploads = [c for c in cmds if c['id'] == image and c['action'] in ('T', 'f')]
        assert [(c['action'], c['format']) for c in uploads] == [('T', 24), ('f', 32)]
    finally:
        k.close()


@pytest.mark.parametrize('strict', [False, True], ids=['sixel', 'sixel!'])
def test_forced_sixel_in_kitty_falls_back_or_refuses(display, anims, tmp_path, strict):
    # kitty 0.26 has no sixel: `--graphics sixel` says so in one line and plays in kitty
    # graphics (never sixel text on screen); `--graphics sixel!` refuses with that line.
    err = tmp_path / 'stderr'
    k = Kitty(display, ['--graphics', 'sixel!' if strict else 'sixel', '--loop', '1', anims['gif']],
              inside=['sh', '-c', f'"$@" 2>{err}', 'sh'])
    try:
        rc = k.exit_status()
        lines = err.read_text().splitlines()
        assert len(lines) == 1 and 'sixel' in lines[0], lines
        if strict:
            assert rc == 1 and lines[0].startswith('animplay: --graphics sixel!: '), lines
            assert not [c for c in k.commands() if c['action'] in ('T', 'f')]
        else:
            assert rc == 0 and lines[0].startswith('animplay: warning: --graphics sixel: ') and lines[0].endswith('using kitty')
            cmds = settled(k, last_still=True)
            assert [c['action'] for c in cmds if c['action'] in ('T', 'f') and c['id'] != 0] == ['T', 'f', 'f']
    finally:
        k.close()


def test_last_frame_stays_where_it_was(display, anims):
    # Centred while playing, and at the same columns once printed into the normal screen at
    # exit (it was printed left-aligned before).
    # The picture while playing is any frame before the last (red or green, each shown 2 s at
    # half speed): waiting for one transient frame alone missed it under load (a screenshot can
    # take most of a second while kitty renders in software).
    k = Kitty(display, ['--graphics', 'kitty', '--loop', '1', '--speed', '0.5', anims['gif']])
    try:
        playing = k.wait_for(lambda: k.color_box(RED) or k.color_box(GREEN), what='a frame while playing')
        assert k.exit_status() == 0
        settled(k, last_still=True)
        left = k.wait_for(lambda: k.color_box(BLUE), what='the last frame after exit')
        k.save_screenshot('kitty-last-frame')
        assert abs(left[0] - playing[0]) <= 1 and abs(left[2] - playing[2]) <= 1, (playing, left)
        assert left[0] > 50          # centred in the 800-pixel window, not at its left edge
    finally:
        k.close()


def test_octants_fall_back_to_sextants_that_kitty_0_26_draws(display, tmp_path):
    # kitty 0.26 draws sextants itself but not octants (from 0.40); without an installed font
    # that has U+1CD00, octants would be tofu boxes: the cells arrive as sextants.
    has_font = subprocess.run(['fc-list', ':charset=1cd00', 'family'], capture_output=True, text=True).stdout.strip()
    gif = str(tmp_path / 'diagonal.gif')
    write_gif(gif, 48, 48, [[(255, 200, 0) if x > y else (0, 60, 200) for y in range(48) for x in range(48)]] * 2,
              delay_cs=50, loops=1)
    k = Kitty(display, ['--graphics', 'cells', '--symbols', 'octant', '--loop', '1', gif])
    try:
        assert k.exit_status() == 0
        def drawn():
            k.dump.flush()
            text = b''.join(line[5:] for line in open(k.dump.name, 'rb') if line.startswith(b'draw '))
            t = text.decode('utf-8', 'replace')
            return t if any(0x1FB00 <= ord(c) <= 0x1FB3B or 0x1CD00 <= ord(c) <= 0x1CDE5 for c in t) else None
        text = k.wait_for(drawn, what='block glyphs drawn')
        octants = any(0x1CD00 <= ord(c) <= 0x1CDE5 for c in text)
        sextants = any(0x1FB00 <= ord(c) <= 0x1FB3B for c in text)
        k.save_screenshot('kitty-octant-fallback')
        assert (octants and not sextants) if has_font else (sextants and not octants)
    finally:
        k.close()


def _bbox(display, color):
    """(pixel count, (x0, y0, x1, y1) or None) of `color` on the root window now."""
    from screenshot import grab
    return grab(display.name, kittyharness.SCREEN).box(color)


def test_fill_uploads_native_frames_and_kitty_enlarges_them(display, tmp_path):
    """--fill: a 40x30 picture (left half red, right half blue) is uploaded at 40x30 and placed
    over whole cells (c= or r=): on screen it fills the window's width or height with its shape
    kept, and the red/blue edge stays in the middle."""
    gif = str(tmp_path / 'halves.gif')
    frame = [RED if x < 20 else BLUE for y in range(30) for x in range(40)]
    write_gif(gif, 40, 30, [frame, frame], delay_cs=50, loops=0)
    k = Kitty(display, ['--graphics', 'kitty', '--fill', '--loop', '0', gif], width=800, height=600)
    try:
        pid = k.pid()
        def placed():
            roots = [c for c in group_uploads(k.commands()) if c['action'] == 'T']
            return roots and roots[0]
        root = k.wait_for(placed, what='the root frame')
        assert (root['data_width'], root['data_height']) == (40, 30), root
        assert root['num_cells'] or root['num_lines'], root      # kitty scales it
        def shot():
            r, b = _bbox(display, RED), _bbox(display, BLUE)
            return (r, b) if r[0] > 20000 and b[0] > 20000 else None
        (rn, rb), (bn, bb) = k.wait_for(shot, what='the picture on screen')
        x0, y0, x1, y1 = rb[0], min(rb[1], bb[1]), bb[2], max(rb[3], bb[3])
        w, h = x1 - x0 + 1, y1 - y0 + 1
        # The shape is kept (4:3 within a cell) and it fills the window one way (800x600 less
        # kitty's padding, less a row for the prompt line).
        assert abs(w * 3 - h * 4) <= 4 * 20, (w, h)
        assert w >= 700 or h >= 520, (w, h)
        # The edge stays in the middle: red ends where blue starts (within kitty's filter).
        assert abs((rb[2] + 1) - bb[0]) <= 2 * max(1, w // 40) and abs((rb[2] - x0) - (x1 - bb[0])) <= w // 20, (rb, bb)
        subprocess.run(['import', '-display', display.name, '-window', 'root',
                        os.path.join(os.environ.get('ANIMPLAY_SHOTS', str(tmp_path)), 'kitty-fill.png')], timeout=20)
        os.kill(pid, signal.SIGTERM)
        assert k.exit_status() == 1
    finally:
        k.close()
