"""Hostile and slow terminals (termresponder.py): pixel sizes no screen has, control characters
in replies that `probe` shows, replies later than any budget (also after Ctrl-C). The program
must stay bounded in memory, warn once, print nothing raw, and leave nothing for the shell."""
import os, resource, subprocess, tempfile
import pytest
import termresponder as t
from gifwriter import write_gif

TMP = tempfile.mkdtemp(prefix='animplay-hostile-replies-')


@pytest.fixture(scope='module')
def gif():
    p = os.path.join(TMP, 'two.gif')
    write_gif(p, 40, 20, [[(250, 0, 0)] * 800, [(0, 0, 250)] * 800], delay_cs=5, loops=1)
    return p


@pytest.fixture(scope='module')
def still():
    p = os.path.join(TMP, 'still.gif')
    write_gif(p, 8, 4, [[(250, 0, 0)] * 32], delay_cs=10, loops=0)
    return p


def warnings(res):
    return [l for l in res.output.decode('utf-8', 'replace').splitlines() if 'animplay: warning' in l]


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


@pytest.mark.parametrize('profile,graphics', [(t.KITTY, 'kitty'), (t.XTERM_SIXEL, 'sixel')], ids=['kitty', 'sixel'])
@pytest.mark.parametrize('cell', [b'\x1b[6;10000;10000t', b'\x1b[6;1073741824;1073741824t', b'\x1b[6;1;1t'],
                         ids=['10000px', '2^30px', '1px'])
def test_a_cell_size_no_screen_has_falls_back_with_one_warning(gif, profile, graphics, cell):
    res = t.run([gif, '--graphics', graphics, '--loop', '1'], dict(profile, cell=cell), timeout=30)
    assert res.status == 0, res.output[-400:]
    w = warnings(res)
    assert len(w) == 1 and 'using cells' in w[0] and 'pixels' in w[0], w
    assert peak_rss_mb() < 400, peak_rss_mb()      # 211 GB asked for before the bound


@pytest.mark.parametrize('graphics', ['kitty', 'sixel'])
def test_a_window_of_65535_pixels_is_not_believed(gif, graphics):
    profile = dict(t.KITTY if graphics == 'kitty' else t.XTERM_SIXEL)
    profile.pop('cell')                 # only the kernel's window size speaks
    res = t.run([gif, '--graphics', graphics, '--loop', '1'], profile, xpixel=65535, ypixel=65535, timeout=30)
    assert res.status == 0, res.output[-400:]
    w = warnings(res)
    assert len(w) == 1 and 'using cells' in w[0], w
    assert peak_rss_mb() < 400, peak_rss_mb()


def test_a_believable_screen_too_large_for_the_memory_limit_uses_cells(gif):
    # 512x512-pixel cells on 80x24: a screen of 40960x12288 would pass no bound on its own...
    # 30x15 cells of 512 px: 15360x7680 pixels, within the 16384 bound, 450 MiB per frame.
    res = t.run([gif, '--graphics', 'kitty', '--loop', '1', '--max-memory-mb', '64'],
                dict(t.KITTY, cell=b'\x1b[6;512;512t'), cols=30, rows=15, timeout=30)
    assert res.status == 0, res.output[-400:]
    w = warnings(res)
    assert len(w) == 1 and '--max-memory-mb' in w[0], w


def test_a_still_in_a_terminal_hiding_its_cell_size_warns_once(still):
    profile = dict(t.KITTY)
    profile.pop('cell')
    res = t.run([still, '--graphics', 'kitty'], profile, timeout=20)
    assert res.status == 0, res.output[-400:]
    assert len(warnings(res)) == 1, warnings(res)


def test_probe_shows_control_characters_in_replies_escaped():
    # Inside a DCS string: backspaces, SOH, DEL and a C1 CSI (as UTF-8) that a raw echo
    # would turn into cursor movements and a screen clear.
    evil = dict(t.KITTY, xtversion=b'\x1bP>|kitty\x08\x08\x01\x7f\xc2\x9b2J(0.26.5)' + t.ST)
    res = t.run(['probe'], evil, timeout=20)
    assert res.status == 0, res.output[-400:]
    line = [l for l in res.output.decode('utf-8', 'replace').splitlines() if l.startswith('version:')]
    assert line and '\\x08\\x08\\x01\\x7F\\u{9B}2J' in line[0], line
    assert b'\x08' not in res.output and b'\xc2\x9b' not in res.output


@pytest.mark.parametrize('how', ['still', 'one-play', 'probe'])
def test_replies_later_than_half_a_second_never_reach_the_shell(still, gif, how):
    # A terminal 800 ms away: later than the old 500 ms window.
    args = {'still': [still], 'one-play': [gif, '--loop', '1'], 'probe': ['probe']}[how]
    res = t.run(args, t.KITTY, delay=0.8, timeout=20)
    assert res.status == 0, res.output[-300:]
    assert res.answered > 0
    assert res.leftover == b'', res.leftover
    assert res.stty_before == res.stty_after


@pytest.mark.parametrize('args', [['probe'], ['STILL']])
def test_ctrl_c_during_the_probe_of_a_slow_terminal_leaves_nothing_for_the_shell(still, args):
    args = [still if a == 'STILL' else a for a in args]
    res = t.run(args, t.KITTY, delay=0.3, actions=[(0.02, b'\x03')], timeout=20)
    assert res.status == -2, res.output[-300:]          # the default action of SIGINT
    assert res.leftover == b'', res.leftover
    assert res.stty_before == res.stty_after


# --- 11: shared-memory objects kitty did not read ----------------------------------------------

def kitty_ok_for_every_id(query):
    """kitty's answer to an `a=q` query, for whichever id it asked about (the medium probes too)."""
    import re
    m = re.search(rb'i=(\d+)', query)
    return b'\x1b_Gi=' + (m.group(1) if m else b'31') + b';OK' + t.ST


def shm_objects(pid):
    return [n for n in os.listdir('/dev/shm') if n.startswith(f'animplay-tty-graphics-protocol-{pid}-')]


def test_objects_a_terminal_never_read_are_unlinked_at_exit(gif):
    # A terminal that says it reads shared memory, and then reads none of it.
    pids = []
    res = t.run([gif, '--graphics', 'kitty', '--loop', '1'], dict(t.KITTY, kitty=kitty_ok_for_every_id),
                env={'ANIMPLAY_KITTY_MEDIUM': 'shm'}, timeout=30, started=pids.append)
    assert res.status == 0, res.output[-400:]
    assert b't=s' in res.output, 'frames did not go through shared memory'
    assert shm_objects(pids[0]) == []
    assert res.leftover == b''


def test_stale_objects_of_dead_runs_are_unlinked(gif):
    dead = subprocess.Popen(['true']); dead.wait()
    stale = f'/dev/shm/animplay-tty-graphics-protocol-{dead.pid}-7'
    open(stale, 'wb').write(b'left by a killed run')
    alive = f'/dev/shm/animplay-tty-graphics-protocol-{os.getpid()}-7'
    open(alive, 'wb').write(b'a live run')
    try:
        res = t.run([gif, '--graphics', 'kitty', '--loop', '1'], dict(t.KITTY, kitty=kitty_ok_for_every_id),
                    env={'ANIMPLAY_KITTY_MEDIUM': 'shm'}, timeout=30)
        assert res.status == 0, res.output[-400:]
        assert not os.path.exists(stale) and os.path.exists(alive)
    finally:
        for p in (stale, alive):
            if os.path.exists(p):
                os.remove(p)
