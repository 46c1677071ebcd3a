"""Previews for other programs (`--frame N`): fzf's --preview run for real in a pty, a
previewer's pipe, and a still at the cursor of a terminal that answers queries.
"""
import os, shutil, subprocess, tempfile
import pytest
import ptyharness as h
import termresponder as t
from gifwriter import write_gif
from requires import skip_unless

TMP = tempfile.mkdtemp(prefix='animplay-preview-')
RED, BLUE, GREEN, YELLOW = (250, 0, 0), (0, 0, 250), (0, 200, 0), (250, 250, 0)


@pytest.fixture(scope='module')
def gifs():
    """Two animations whose frame 1 differs from frame 0: red→green and blue→yellow."""
    paths = []
    for name, (a, b) in (('red.gif', (RED, GREEN)), ('blue.gif', (BLUE, YELLOW))):
        p = os.path.join(TMP, name)
        write_gif(p, 16, 8, [[a] * 128, [b] * 128], delay_cs=5, loops=0)
        paths.append(p)
    return paths


def colours_in(screen, x0=0):
    """Colours of the cells at column x0 and right of it (pyte hex strings as RGB tuples)."""
    seen = set()
    for y in range(screen.lines):
        for x in range(x0, screen.columns):
            ch = screen.buffer[y][x]
            for c in (ch.fg, ch.bg):
                rgb = h.hexrgb(c)
                if isinstance(rgb, tuple):
                    seen.add(rgb)
    return seen


def screen_of(output, cols, rows):
    screen = h.AltScreen(cols, rows)
    h.pyte.ByteStream(screen).feed(h.without_apc(output))
    return screen


def test_fzf_preview_shows_frame_n_of_the_selected_file(gifs):
    skip_unless(shutil.which('fzf'), 'needs fzf (scripts/install-deps)')
    listing = os.path.join(TMP, 'list.txt')
    with open(listing, 'w') as f:
        f.write('\n'.join(gifs) + '\n')
    cols, rows = 100, 24
    preview = f"{h.binary()} --frame 1 --colors truecolor {{}}"
    shown = []

    def preview_has(colour):
        def cond(_new, everything):
            screen = screen_of(everything, cols, rows)
            if colour in colours_in(screen, cols // 2):
                shown.append(colour)
                return True
            return False
        return cond
    steps = [
        # fzf starts on the first line (red.gif): its frame 1 is green.
        (preview_has(GREEN), b'\x1b[A'),       # Up: the next entry, blue.gif, whose frame 1 is yellow
        (preview_has(YELLOW), b'\x1b'),        # Esc quits fzf
    ]
    with open(listing) as stdin:
        r = h.run(['--preview', preview, '--preview-window', 'right:50%'], exe='fzf', cols=cols, rows=rows,
                  stdin=stdin, steps=steps, timeout=30)
    assert shown == [GREEN, YELLOW], r.output[-1500:]
    assert r.status == 130 and r.stty_before == r.stty_after
    # Frame 1 only, never frame 0 (a still of the asked frame, not a play).
    assert RED not in colours_in(screen_of(r.output, cols, rows), cols // 2)


def test_pipe_output_is_the_same_every_time_and_asks_nothing(gifs):
    env = dict(os.environ, TERM='xterm-256color', COLORTERM='truecolor', FZF_PREVIEW_COLUMNS='12',
               FZF_PREVIEW_LINES='6')
    outs = [subprocess.run([h.binary(), '--frame', '1', gifs[0]], capture_output=True, env=env,
                           stdin=subprocess.DEVNULL) for _ in range(2)]
    assert all(o.returncode == 0 and o.stderr == b'' for o in outs)
    assert outs[0].stdout == outs[1].stdout
    # No query, no alternate screen, no cursor hiding: colours and glyphs only.
    for seq in (b'\x1b[c', b'\x1b[>q', b'\x1b]11;?', b'\x1b_G', b'\x1b[?1049', b'\x1b[?25'):
        assert seq not in outs[0].stdout
    lines = outs[0].stdout.decode().splitlines()
    assert len(lines) <= 6 and all(len(l.replace('\x1b', '')) > 0 for l in lines)
    screen = screen_of(outs[0].stdout.replace(b'\n', b'\r\n'), 12, 6)
    assert colours_in(screen) == {GREEN}
    # --size wins over the environment; --frame past the end is a usage error naming the count.
    sized = subprocess.run([h.binary(), '--frame', '0', '--size', '8x9', gifs[0]], capture_output=True, env=env)
    assert sized.returncode == 0 and len(sized.stdout.decode().splitlines()) == 2   # 16x8 pixels in 8 columns: 8x4, two rows
    past = subprocess.run([h.binary(), '--frame', '2', gifs[0]], capture_output=True, env=env)
    assert past.returncode == 64 and past.stderr.decode().strip().endswith('--frame 2: the image has 2 frames (0 to 1)')


@pytest.mark.parametrize('profile', [t.KITTY, t.XTERM_SIXEL, t.SILENT], ids=['kitty', 'xterm-sixel', 'silent'])
def test_frame_at_the_cursor_of_a_terminal(gifs, profile):
    """On a terminal: one probe round (answered or not), the still at the cursor, no alternate
    screen, nothing left in the tty's input for the shell."""
    r = t.run(['--frame', '1', '--size', '16x4', gifs[1]], profile, env={'ANIMPLAY_PROBE_MS': '300'})
    assert r.status == 0
    assert b'\x1b[?1049h' not in r.output
    assert r.leftover == b''
    if profile is t.SILENT:
        assert colours_in(screen_of(r.output, 80, 24)) >= {YELLOW}


def readme_lf_previewer():
    """The lf previewer script exactly as the README gives it."""
    text = open(os.path.join(h.ROOT, 'README.md')).read()
    block = text.split('<!-- lf-previewer', 1)[1].split('```sh\n', 1)[1].split('```', 1)[0]
    assert block.startswith('#!/bin/sh')
    return block


def test_lf_previewer_from_the_readme(gifs):
    skip_unless(shutil.which('lf'), 'needs lf (scripts/install-deps)')
    config = os.path.join(TMP, 'config', 'lf')
    os.makedirs(config, exist_ok=True)
    bindir = os.path.join(TMP, 'bin')
    os.makedirs(bindir, exist_ok=True)
    link = os.path.join(bindir, 'animplay')
    if not os.path.exists(link):
        os.symlink(h.binary(), link)
    script = os.path.join(config, 'preview')
    with open(script, 'w') as f:
        f.write(readme_lf_previewer())
    os.chmod(script, 0o755)
    with open(os.path.join(config, 'lfrc'), 'w') as f:
        f.write(f'set previewer {script}\n')
    folder = os.path.join(TMP, 'lf-files')           # the two GIFs only
    os.makedirs(folder, exist_ok=True)
    for g in gifs:
        if not os.path.exists(os.path.join(folder, os.path.basename(g))):
            shutil.copy(g, folder)
    cols, rows = 100, 24
    shown = []

    def preview_has(colour):
        def cond(_new, everything):
            if colour in colours_in(screen_of(everything, cols, rows), cols // 2):
                shown.append(colour)
                return True
            return False
        return cond
    # lf lists blue.gif first (sorted), then red.gif; frame 0 of each is previewed.
    steps = [(preview_has(BLUE), b'j'), (preview_has(RED), b'q')]
    r = h.run([folder], exe='lf', cols=cols, rows=rows, steps=steps, timeout=30,
              env={'XDG_CONFIG_HOME': os.path.join(TMP, 'config'), 'HOME': TMP,
                   'PATH': bindir + os.pathsep + os.environ['PATH']})
    assert shown == [BLUE, RED], r.output[-1500:]
    assert r.status == 0 and r.stty_before == r.stty_after


def test_preview_sizes_from_the_environment_are_bounded(gifs):
    # COLUMNS, LINES and fzf's sizes come from outside: a huge one trapped (an overflow) or
    # asked for petabytes. The picture is now bounded, and as tall as the box allows.
    env = dict(os.environ, FZF_PREVIEW_COLUMNS='9223372036854775807', FZF_PREVIEW_LINES='6')
    p = subprocess.run([h.binary(), '--frame', '0', '--fill', gifs[0]], capture_output=True, env=env, timeout=60)
    assert p.returncode == 0 and p.stderr == b''
    assert len(p.stdout.splitlines()) == 6
    env = dict(os.environ, COLUMNS='99999999', LINES='99999999')
    env.pop('FZF_PREVIEW_COLUMNS', None); env.pop('FZF_PREVIEW_LINES', None)
    p = subprocess.run([h.binary(), '--frame', '0', gifs[0]], capture_output=True, env=env, timeout=120)
    assert p.returncode == 0 and p.stderr == b''
    # At most 2^25 pixels, two to a cell: at most 2^24 cells with a colour escape each.
    cells = p.stdout.count('\u2580'.encode()) + p.stdout.count(b' ')
    assert 0 < cells <= 1 << 24
