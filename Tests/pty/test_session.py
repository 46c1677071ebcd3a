"""Everyday use in a pseudo-terminal: Ctrl-Z and fg, keypad and Alt keys, warnings after the
terminal is restored, --scale that does not fit, --version.

Actions wait for observable states (frames drawn, the process stopped), never fixed delays;
the only timed wait is how long a test keeps the process stopped, which is the scenario.
"""
import os, re, shutil, signal, subprocess, tempfile, termios, time
import pytest
import ptyharness as h
from gifwriter import write_gif
from requires import skip_unless

TMP = tempfile.mkdtemp(prefix='animplay-session-')
# Six frames, one colour each (distinct in the 24-bit SGR of the image updates).
COLOURS = [(250, 0, 0), (0, 200, 0), (0, 0, 250), (250, 250, 0), (0, 250, 250), (250, 0, 250)]


def solid(w, h_, c):
    return [c] * (w * h_)


@pytest.fixture(scope='module')
def six_frames():
    """Six frames of 200 ms, two plays."""
    p = os.path.join(TMP, 'six.gif')
    write_gif(p, 16, 8, [solid(16, 8, c) for c in COLOURS], delay_cs=20, loops=1)
    return p


@pytest.fixture(scope='module')
def forever():
    p = os.path.join(TMP, 'forever.gif')
    write_gif(p, 16, 8, [solid(16, 8, c) for c in COLOURS[:2]], delay_cs=10, loops=0)
    return p


colour_sequence = h.colour_sequence


def frames_shown(output):
    return [COLOURS.index(c) for c in colour_sequence(output)]


def status_row(buffer, rows=24, cols=80):
    return ''.join(buffer[rows - 1][x].data for x in range(cols))


class Watch:
    """A pyte screen fed incrementally from `State.output` (predicates run every few ms)."""
    def __init__(self, cols=80, rows=24):
        import pyte
        self.cols, self.rows = cols, rows
        self.screen = h.AltScreen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.fed = 0

    def status(self, st):
        self.stream.feed(h.without_apc(bytes(st.output[self.fed:])))
        self.fed = len(st.output)
        return status_row(self.screen.buffer, self.rows, self.cols)


# MARK: - Ctrl-Z and fg

def test_ctrl_z_restores_the_terminal_and_fg_continues_from_the_same_frame(six_frames):
    stopped_for = 3.0     # longer than the rest of both plays (2 s): nothing may be skipped
    r = h.run([six_frames, '--status'], actions=[
        (lambda st: len(frames_shown(st.output)) >= 3, b'\x1a'),        # Ctrl-Z on frame 2
        (lambda st: st.stopped and time.monotonic() - st.stopped_since > stopped_for, signal.SIGCONT),
    ])
    assert r.status == 0
    assert len(r.stops) == 1
    stop = r.stops[0]
    before, after = r.output[:stop['offset']], r.output[stop['offset']:]
    # Stopped with the terminal as it was: modes, normal screen, cursor shown.
    assert stop['stty'] == r.stty_before
    assert before.rfind(b'\x1b[?1049l') > before.rfind(b'\x1b[?1049h') >= 0
    assert before.rfind(b'\x1b[?25h') > before.rfind(b'\x1b[?25l')
    assert r.screen.alt_entries == 2 and restored(r)
    # fg: the alternate screen again, cursor hidden, the same frame repainted, then the rest of
    # both plays in order, none dropped.
    assert b'\x1b[?1049h' in after and b'\x1b[?25l' in after
    shown_before = frames_shown(before)
    shown_after = frames_shown(after)
    assert shown_after[0] == shown_before[-1]
    assert shown_before + shown_after[1:] == list(range(6)) * 2
    for snapshot in r.screen.alt_snapshots:
        assert 'drops 0' in status_row(snapshot)
    assert 'play 2/2' in status_row(r.screen.alt_snapshots[-1])


def test_output_processing_is_off_while_playing_and_restored_on_stop_and_exit(six_frames):
    """OPOST is off while curses runs (the kernel need not look at every byte of ~50 MB of
    sixels a play), back on while stopped and after exit, off again after fg."""
    seen = []

    def record(proc, master, slave):
        seen.append(termios.tcgetattr(slave)[1])

    r = h.run([six_frames], actions=[
        (lambda st: len(frames_shown(st.output)) >= 2, record),
        (lambda st: len(frames_shown(st.output)) >= 3, b'\x1a'),
        (lambda st: st.stopped, record),
        (lambda st: st.stopped, signal.SIGCONT),
        (lambda st: len(frames_shown(st.since_stop())) >= 2, record),
    ])
    assert r.status == 0 and restored(r)
    playing, stopped, resumed = seen
    assert playing & termios.OPOST == 0
    assert stopped & termios.OPOST and r.stops[0]['stty'] == r.stty_before
    assert resumed & termios.OPOST == 0


def test_ctrl_z_and_fg_under_an_interactive_shell(six_frames):
    """The real thing: bash's job control sees the stop ("Stopped") and `fg` continues it."""
    bash = shutil.which('bash')
    skip_unless(bash is not None, 'no bash')
    # Each prompt is preceded by the last command's status: 147 (stopped by SIGSTOP), then 0.
    env = {'PS1': '$ ', 'HISTFILE': '/dev/null', 'PROMPT_COMMAND': 'echo "[status $?]"'}
    r = h.run(['--norc', '--noprofile', '-i'], exe=bash, env=env, actions=[
        (lambda st: b'$ ' in st.output, f'{h.binary()} {six_frames} --status\n'.encode()),
        (lambda st: len(frames_shown(st.output)) >= 3, b'\x1a'),
        (lambda st: b'[status 147]' in st.output and st.output.rstrip().endswith(b'$'), b'fg\n'),
        (lambda st: b'[status 0]' in st.output[st.output.index(b'[status 147]'):], b'exit\n'),
    ])
    assert r.status == 0
    out = r.output
    cut = out.index(b'Stopped')
    before, after = out[:cut], out[cut:]
    assert b'[status 0]' in after
    shown_before, shown_after = frames_shown(before), frames_shown(after)
    assert shown_after[0] == shown_before[-1]
    assert shown_before + shown_after[1:] == list(range(6)) * 2
    assert 'drops 0' in status_row(r.screen.alt_snapshots[-1]) and 'play 2/2' in status_row(r.screen.alt_snapshots[-1])


def test_resized_while_stopped_refits_on_fg(forever):
    r = h.run([forever], actions=[
        (lambda st: len(colour_sequence(st.output)) >= 1, b'\x1a'),
        (lambda st: st.stopped, h.resize(40, 12)),
        (lambda st: st.stopped, signal.SIGCONT),
        (lambda st: len(colour_sequence(st.since_stop())) >= 2, b'q'),
    ])
    assert r.status == 0 and len(r.stops) == 1
    after = r.output[r.stops[0]['offset']:]
    screen = h.AltScreen(40, 12)
    import pyte
    pyte.ByteStream(screen).feed(after[:after.rfind(b'\x1b[?1049l')])
    # 16x8 in 40x12 cells (24 pixel rows): 2x = 32x16 pixels, 8 rows, centred.
    cells = h.halves(screen.buffer, 40, 12)
    image = [(y, x) for y in range(12) for x in range(40) if cells[y][x] != (None, None)]
    assert (min(image), max(image)) == ((2, 4), (9, 35)) and len(image) == 8 * 32


def test_ctrl_z_while_paused_stays_paused(forever):
    w = Watch()
    r = h.run([forever, '--status'], actions=[
        (lambda st: len(colour_sequence(st.output)) >= 2, b' '),
        (lambda st: 'paused' in w.status(st), b'\x1a'),
        (lambda st: st.stopped, signal.SIGCONT),
        (lambda st: b'\x1b[?1049h' in st.since_stop() and b'\x1b8' in st.since_stop(), b'q'),
    ])
    assert r.status == 0 and len(r.stops) == 1 and restored(r)
    assert 'paused' in status_row(r.screen.alt_snapshots[-1])
    # Only the repaint after fg: paused playback drew nothing new.
    assert len(colour_sequence(r.output[r.stops[0]['offset']:])) == 1


def restored(r):
    assert r.stty_before == r.stty_after
    assert r.screen.saved is None and not r.screen.cursor.hidden
    return True


# MARK: - Keys

@pytest.mark.parametrize('term', ['xterm-256color',     # keypad keys decoded by ncurses (kpADD...)
                                  'screen-256color'])   # no kpADD: the raw SS3 bytes reach animplay
def test_keypad_keys_act_like_main_keys_and_other_sequences_are_ignored(forever, term):
    w = Watch()
    ignored = b''.join([b'\x1bOM',        # keypad Enter
                        b'\x1bOu', b'\x1bOE',   # keypad 5 (xterm, other terminals)
                        b'\x1bx',         # Alt-x
                        b'\x1b[20~',      # F9 (holds a '0')
                        b'\x1b[1;5C',     # Ctrl-Right
                        b'\x1bOq'])       # keypad 1
    r = h.run([forever, '--status'], term=term, colorterm='truecolor', actions=[
        (lambda st: len(colour_sequence(st.output)) >= 1, b' '),
        (lambda st: 'paused' in w.status(st), b'\x1b[C'),              # step to frame 2
        (lambda st: 'frame 2/2' in w.status(st), b'\x1bOk'),           # keypad +
        (lambda st: 'speed 1.19x' in w.status(st), ignored + b'\x1bOp'),  # ... then keypad 0
        (lambda st: 'frame 1/2' in w.status(st), b'\x1bOm'),           # keypad -
        (lambda st: 'speed 1.00x' in w.status(st), b'\x1b'),           # a lone Esc quits
    ])
    assert r.status == 0 and restored(r)
    final = status_row(r.screen.alt_snapshots[-1])
    assert 'frame 1/2' in final and 'speed 1.00x' in final and 'paused' in final


@pytest.mark.parametrize('key', [b'\x1bx', b'\x1bOM', b'\x1bOu', b'\x1b[20~'])
def test_alt_and_keypad_keys_do_not_quit(forever, key):
    w = Watch()
    r = h.run([forever, '--status'], actions=[
        (lambda st: len(colour_sequence(st.output)) >= 1, key + b' '),   # the key, then pause
        (lambda st: 'paused' in w.status(st), b'q'),
    ])
    assert r.status == 0 and restored(r)
    assert 'paused' in status_row(r.screen.alt_snapshots[-1])


# MARK: - --version

def test_version_prints_one_line_and_touches_nothing():
    for args in (['--version'], ['info', '--version'], ['play', '--version']):
        r = h.run(args)
        assert r.status == 0, args
        assert re.fullmatch(rb'\d+\.\d+\.\d+\r?\n', r.output), r.output
        assert r.stty_before == r.stty_after and r.screen.alt_entries == 0
    # The same line when stdout is not a terminal, and it is in the root help.
    p = subprocess.run([h.binary(), '--version'], capture_output=True)
    assert p.returncode == 0 and re.fullmatch(rb'\d+\.\d+\.\d+\n', p.stdout) and p.stderr == b''
    assert b'--version' in subprocess.run([h.binary(), '--help'], capture_output=True).stdout


# MARK: - Warnings after the terminal is restored

def dump_warnings(args):
    """The warning lines `animplay dump` prints for the same source."""
    out = tempfile.mkdtemp(prefix='animplay-dump-', dir=TMP)
    p = subprocess.run([h.binary(), 'dump'] + args + ['-o', out], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return [l for l in p.stderr.splitlines() if ': warning: ' in l]


def warnings_after_restore(r):
    """Warning lines written after the alternate screen was left, in order."""
    tail = r.output[r.output.rfind(b'\x1b[?1049l'):] if r.screen.alt_entries else r.output
    text = tail.decode('utf-8', 'replace').replace('\r', '')
    return [l[l.index('animplay: '):] for l in text.split('\n') if 'animplay: ' in l and ': warning: ' in l]


@pytest.fixture(scope='module')
def truncated_gif():
    """100 frames of 20 ms, cut after about a third: the first ~35 frames play."""
    p = os.path.join(TMP, 'truncated.gif')
    frames = [[((k * 37) % 256, (k * 91) % 256, 128)] * (16 * 8) for k in range(100)]
    write_gif(p, 16, 8, frames, delay_cs=2, loops=1)
    data = open(p, 'rb').read()
    open(p, 'wb').write(data[:len(data) * 35 // 100])
    return p


def test_damaged_file_plays_then_warns_once_the_terminal_is_restored(truncated_gif):
    expected = dump_warnings([truncated_gif])
    # One cause, one line: the decoder's truncation explains the compositor's frame problem.
    assert len(expected) == 1 and 'truncated' in expected[0], expected
    info = subprocess.run([h.binary(), 'info', '--json', truncated_gif], capture_output=True, text=True)
    import json
    for w in json.loads(info.stdout)['warnings']:
        assert f'animplay: {truncated_gif}: warning: {w}' in expected
    r = h.run([truncated_gif])
    assert r.status == 0 and restored(r)
    assert warnings_after_restore(r) == expected
    # Nothing of it on the alternate screen, and the warnings sit below the last frame.
    assert all('warning' not in ''.join(c.data for c in row.values()) for row in r.screen.alt_snapshots[-1].values())
    assert any('warning' in ''.join(r.screen.buffer[y][x].data for x in range(80)) for y in range(24))


def test_damaged_still_image_warns_after_printing(tmp_path):
    p = str(tmp_path / 'still.gif')
    write_gif(p, 16, 8, [solid(16, 8, COLOURS[0])])
    data = open(p, 'rb').read()
    open(p, 'wb').write(data[:len(data) - 60])      # inside the image data
    r = h.run([p])
    assert r.status == 0 and r.screen.alt_entries == 0
    assert warnings_after_restore(r) == dump_warnings([p]) != []


def test_folder_warnings_after_restore(tmp_path, forever):
    folder = tmp_path / 'frames'
    folder.mkdir()
    for i, c in enumerate(COLOURS[:3]):
        write_gif(str(folder / f'f{i}.gif'), 16, 8, [solid(16, 8, c)])
    import shutil
    shutil.copy(forever, folder / 'f3.gif')               # animated: every frame, no warning
    (folder / 'notes.txt').write_text('not an image')
    (folder / 'sub').mkdir()
    r = h.run([str(folder), '--loop', '1'])
    assert r.status == 0 and restored(r)
    got = warnings_after_restore(r)
    assert got == dump_warnings([str(folder)])
    assert not any('animated' in l for l in got)
    assert any('skipped 1 file that is not' in l for l in got)


# MARK: - --scale that does not fit; the status line at 70 columns

def test_scale_that_does_not_fit_uses_the_largest_whole_factor_and_says_so(tmp_path):
    a, b = (250, 0, 0), (0, 0, 250)
    checker = [a if (x + y) % 2 else b for y in range(16) for x in range(16)]
    p = str(tmp_path / 'checker.gif')
    write_gif(p, 16, 16, [checker, checker[::-1]], delay_cs=10, loops=0)
    w = Watch(70, 20)
    r = h.run([p, '--scale', '10', '--status'], cols=70, rows=20, actions=[
        (lambda st: len(colour_sequence(st.output)) >= 1, b' '),
        (lambda st: 'paused' in w.status(st), b'q'),
    ])
    assert r.status == 0 and restored(r)
    alt = r.screen.alt_snapshots[-1]
    # 70x19 cells (38 pixel rows) hold 16x16 twice, not 10 times: 32x32 pixels, 16 rows.
    cells = h.halves(alt, 70, 19)
    image = [(y, x) for y in range(19) for x in range(70) if cells[y][x] != (None, None)]
    ys = {y for y, _ in image}; xs = {x for _, x in image}
    assert (len(ys), len(xs)) == (16, 32) and len(image) == 16 * 32
    # Every pixel is one of the two colours (a fractional 2.5x would average neighbours), and
    # each source pixel is 2 columns wide.
    assert {c for y, x in image for c in cells[y][x]} == {a, b}
    top, left = min(ys), min(xs)
    assert all(cells[top][left + 2 * i] == cells[top][left + 2 * i + 1] for i in range(16))
    line = status_row(alt, 20, 70)
    assert line.startswith(' paused  frame ') and 'scale 2x (10x does not fit)' in line
