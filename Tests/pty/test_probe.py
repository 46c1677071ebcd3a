"""The terminal probe (`animplay probe`, and before `play` starts): one round of queries with
a 100 ms budget, replies consumed (never echoed, never taken as keys), tty modes restored.

A pty answers like kitty, like xterm with sixel, or not at all (termresponder.py), whole or
byte by byte, with keys typed between the replies.
"""
import os, re, tempfile
import pytest
import termresponder as t
from gifwriter import write_gif

TMP = tempfile.mkdtemp(prefix='animplay-probe-')
# Terminals that answer end the round at their DA1 reply, long before any budget; a loaded CI
# machine may take over 100 ms to deliver byte-by-byte replies, which is not what these tests test.
ANSWERED_BUDGET_MS = '3000'


def facts(res):
    text = res.output.decode('utf-8', 'replace')
    return dict(re.findall(r'^([A-Za-z0-9 ()-]+): (.*?)\r?$', text, re.M))


def assert_clean(res):
    assert res.stty_before == res.stty_after, 'tty modes not restored'
    assert res.leftover == b'', f'unread input left behind: {res.leftover!r}'
    # Replies never reach the screen (no echo): only the queries themselves are output.
    for marker in (b'rgb:', b'>|kitty', b'>|XTerm', b'>|tmux', b'i=31;OK', b'[?62;', b'[?63;', b'[?1;2c', b'[6;20;10t', b'[6;17;9t',
                   b'[?2;0;'):
        assert marker not in res.output, f'reply echoed: {marker!r}'


@pytest.mark.parametrize('split', [0, 1, 3])
def test_kitty_like_terminal(split):
    res = t.run(['probe', '--budget-ms', ANSWERED_BUDGET_MS], t.KITTY, cols=120, rows=40, xpixel=1200, ypixel=800, split=split)
    assert res.status == 0, res.output
    f = facts(res)
    assert f['answered DA1'].startswith('true 62')
    assert f['kitty graphics'].startswith('true')
    assert f['sixel'] == 'false' and f['sixel max size'] == '-'
    assert f['version'] == 'kitty(0.26.5)'
    assert f['cell pixels'].startswith('10x20')
    assert f['background'] == '#202040'
    assert f['foreground'] == '#dddddd'
    pal = f['palette 0-15'].split()
    assert pal[1] == '#cc0403' and pal[12] == '#1a8fff' and len(pal) == 16 and '-' not in pal
    assert_clean(res)


def test_xterm_with_sixel():
    res = t.run(['probe', '--budget-ms', ANSWERED_BUDGET_MS], t.XTERM_SIXEL, split=2)
    f = facts(res)
    assert res.status == 0
    assert f['sixel'] == 'true' and f['colour registers'] == '256'
    assert f['sixel max size'] == '1000x1000'
    assert f['kitty graphics'] == 'false'
    assert f['version'] == 'XTerm(379)'
    # No pixels from the kernel: the cell size comes from CSI 16 t.
    assert f['cell pixels'].startswith('9x17')
    assert f['background'] == '#ffffff'
    assert_clean(res)


def test_keys_typed_between_replies_are_not_replies_and_not_echoed():
    keys = [b'x', b'\x1b[A', b'\x1bOk', b'y']
    res = t.run(['probe', '--budget-ms', ANSWERED_BUDGET_MS], t.KITTY, split=1, typed=keys)
    f = facts(res)
    assert f['keys typed meanwhile (dropped)'] == str(sum(len(k) for k in keys))
    assert f['kitty graphics'].startswith('true') and f['background'] == '#202040'
    assert_clean(res)


def test_silent_terminal_costs_the_budget_and_no_more():
    res = t.run(['probe'], t.SILENT)
    f = facts(res)
    assert res.status == 0
    assert f['answered DA1'].startswith('false')
    assert f['background'] == '-' and f['kitty graphics'] == 'false'
    ms = int(f['elapsed ms'])
    # It waited for the budget (not less) and gave up (no hang); the upper bound is loose.
    assert 100 <= ms < 1000, ms
    assert_clean(res)


def test_tmux_without_passthrough_waits_the_budget_for_the_outer_terminal():
    # tmux answers DA1 itself; the wrapped queries go nowhere (allow-passthrough off).
    res = t.run(['probe'], {'da1': b'\x1b[?1;2c', 'xtversion': b'\x1bP>|tmux 3.4' + t.ST},
                env={'TMUX': '/tmp/tmux-0/default,1,0', 'ANIMPLAY_PROBE_MS': '100'})
    f = facts(res)
    assert f['inside tmux'] == 'true'
    assert f['version'] == 'tmux 3.4'
    assert f['kitty graphics'] == 'false'
    assert 100 <= int(f['elapsed ms']) < 1000
    assert b'\x1bPtmux;\x1b\x1b_G' in res.output   # the kitty query went through passthrough
    assert_clean(res)


@pytest.fixture(scope='module')
def forever_gif():
    p = os.path.join(TMP, 'forever.gif')
    write_gif(p, 8, 4, [[(250, 0, 0)] * 32, [(0, 0, 250)] * 32], delay_cs=10, loops=0)
    return p


@pytest.mark.parametrize('profile', [t.KITTY, t.SILENT], ids=['kitty', 'silent'])
def test_a_key_typed_during_the_probe_reaches_the_player(forever_gif, profile):
    # 'q' typed while the probe waits (just after the first reply, or at once when nothing
    # answers): the player, which loops forever, must see it and quit.
    actions = [] if profile else [(0, b'q')]
    res = t.run([forever_gif], profile, typed=[b'q'], actions=actions, timeout=10)
    assert res.status == 0, res.output[-300:]
    assert res.wall < 8
    assert_clean(res)


def test_replies_after_the_budget_are_not_keys(forever_gif):
    # A slow terminal answers 300 ms late, while the player reads keys: its replies hold Esc,
    # 'r' (reverse) and '0' (restart). They must do nothing; the 'q' typed later quits.
    res = t.run([forever_gif, '--status'], t.KITTY, delay=0.3, actions=[(1.5, b'q')], timeout=10)
    assert res.status == 0
    assert res.wall >= 1.5, 'quit before the q: a late reply was taken as Esc'
    status = ''.join(ch.data for ch in res.screen.alt_snapshots[-1][23].values())
    assert 'frame' in status and 'reverse' not in status, status
    assert res.stty_before == res.stty_after


@pytest.fixture(scope='module')
def still_gif():
    p = os.path.join(TMP, 'still.gif')
    write_gif(p, 8, 4, [[(250, 0, 0)] * 32], delay_cs=10, loops=0)
    return p


@pytest.mark.parametrize('how', ['still', 'one-play', 'probe'])
def test_replies_after_the_budget_never_reach_the_shell(still_gif, forever_gif, how):
    # A terminal 300 ms away (ssh across the world) answers after the 100 ms budget, when a
    # still or a short play has already ended: the replies must not be left for the shell to
    # read as typed text, nor echoed onto the screen. animplay waits for the late sentinel.
    args = {'still': [still_gif], 'one-play': [forever_gif, '--loop', '1'], 'probe': ['probe']}[how]
    res = t.run(args, t.KITTY, delay=0.3, timeout=10)
    assert res.status == 0, res.output[-300:]
    assert res.answered > 0
    assert_clean(res)


def test_ctrl_c_during_the_probe_interrupts_after_the_terminal_is_restored(forever_gif):
    # Signal keys are off while the replies are read; a Ctrl-C typed then is still a SIGINT,
    # delivered once the tty modes are back.
    res = t.run([forever_gif], t.KITTY, typed=[b'\x03'], timeout=10)
    assert res.status == 1, res.output[-300:]
    assert b'interrupted by SIGINT' in res.output
    assert res.stty_before == res.stty_after
    still = t.run(['probe'], t.KITTY, typed=[b'\x03'], timeout=10)
    assert still.status == -2                           # no handler: the default action
    assert still.stty_before == still.stty_after
    assert_clean(still)


def test_gnu_screen_is_not_asked_about_graphics():
    # GNU screen shows APC strings in its status line: only colours, XTVERSION and DA1.
    res = t.run(['probe'], t.KITTY, env={'STY': '1234.pts-0.host', 'TERM': 'screen-256color'})
    assert res.status == 0
    assert b'\x1b_G' not in res.output and b'\x1b[16t' not in res.output
    assert facts(res)['answered DA1'].startswith('true')
    assert_clean(res)
