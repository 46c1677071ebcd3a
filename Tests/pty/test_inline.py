"""--inline: the animation plays at the cursor in the normal screen (no alternate screen),
below what was printed before, scrolling it up when the cursor is near the bottom, and the
last frame stays where it played (and so in the scrollback)."""
import os, signal, tempfile
import ptyharness as h
from gifwriter import write_gif

TMP = tempfile.mkdtemp(prefix='animplay-inline-')
RED, BLUE = (250, 0, 0), (0, 0, 250)


def anim(loops=3):
    p = os.path.join(TMP, f'rb{loops}.gif')
    write_gif(p, 16, 8, [[RED] * 128, [BLUE] * 128], delay_cs=5, loops=loops)
    return p


def shell(script, **kw):
    return h.run(['-c', script], exe='sh', **kw)


def picture_rows(screen):
    return [y for y in range(screen.lines) if h.hexrgb(screen.buffer[y][0].bg) in (RED, BLUE)]


def test_plays_below_the_prompt_and_leaves_the_last_frame():
    r = shell(f'echo before1; echo before2; {h.binary()} --inline --size 20x5 {anim()}; echo "after rc=$?"',
              cols=40, rows=12)
    assert r.status == 0 and r.screen.alt_entries == 0 and b'\x1b[?1049h' not in r.output
    lines = [l.rstrip() for l in r.screen.display]
    assert lines[:2] == ['before1', 'before2']
    # 16x8 pixels in 20 columns: 16x4 cells, right below the prompt lines; the shell goes on below.
    assert picture_rows(r.screen) == [2, 3, 4, 5]
    assert lines[6] == 'after rc=0'
    assert {h.hexrgb(r.screen.buffer[y][x].bg) for y in range(2, 6) for x in range(16)} == {BLUE}
    # Every frame drawn in place (up over the 4 rows, then the rows): red, blue, every play.
    draws = r.output.split(b'\x1b[4A\r')[1:]
    colours = [h.colour_sequence(b'\x1b7' + d + b'\x1b8')[0] for d in draws]
    collapsed = [c for i, c in enumerate(colours) if i == 0 or colours[i - 1] != c]
    assert collapsed == [RED, BLUE] * 4          # a GIF loop count of 3 is 4 plays, as in browsers


def test_near_the_bottom_the_screen_scrolls_once():
    r = shell(f'seq 1 30; {h.binary()} --inline --size 20x5 {anim()}; echo after', cols=40, rows=12)
    assert r.status == 0
    lines = [l.rstrip() for l in r.screen.display]
    # The picture's 4 rows were reserved once (the numbers scrolled up by 4 + 1), then drawn in place.
    assert picture_rows(r.screen) == [6, 7, 8, 9]
    assert lines[5] == '30' and lines[10] == 'after'
    assert lines[:5] == ['25', '26', '27', '28', '29']


def test_q_quits_keys_are_not_echoed_and_the_tty_is_restored():
    p = anim(loops=0)
    r = h.run(['--inline', '--size', '20x5', p], cols=40, rows=12,
              steps=[(b'\x1b[4A\r', b'xyz'), (b'\x1b[4A\r', b'q')])
    assert r.status == 0 and r.stty_before == r.stty_after
    assert 'xyz' not in '\n'.join(r.screen.display)
    assert r.output.endswith(b'\x1b[?25h')


def test_a_signal_it_does_not_handle_still_gives_the_tty_back():
    # (Typed, Ctrl-\ is a key here: the inline player reads keys with ISIG off.)
    r = h.run(['--inline', '--size', '20x5', anim(loops=0)], cols=40, rows=12,
              steps=[(b'\x1b[4A\r', signal.SIGQUIT)])
    assert r.status == -signal.SIGQUIT and r.stty_before == r.stty_after
    assert not r.screen.cursor.hidden


def test_several_stills_are_one_animation_inline_and_several_animations_are_refused():
    # Stills of one size are the frames of one animation, as in the alternate screen: --inline
    # plays them (it refused any second file). Animations would play one after another, which
    # --inline does not do: refused in one line, saying how to take them as frames.
    stills = []
    for i, c in enumerate([RED, BLUE, RED]):
        stills.append(os.path.join(TMP, f'still{i}.gif'))
        write_gif(stills[-1], 16, 8, [[c] * 128], delay_cs=5)
    r = shell(f'{h.binary()} --inline --size 20x5 --loop 2 {" ".join(stills)}; echo "after rc=$?"', cols=40, rows=12)
    assert r.status == 0 and r.screen.alt_entries == 0
    draws = r.output.split(b'\x1b[4A\r')[1:]
    colours = [h.colour_sequence(b'\x1b7' + d + b'\x1b8')[0] for d in draws]
    # Two plays of red, blue, red: the last red of one and the first of the next run together.
    assert [c for i, c in enumerate(colours) if i == 0 or colours[i - 1] != c] == [RED, BLUE, RED, BLUE, RED]
    assert 'after rc=0' in [l.rstrip() for l in r.screen.display]
    r = shell(f'{h.binary()} --inline {anim()} {anim(2)}; echo "after rc=$?"', cols=40, rows=12)
    assert r.output == (b'animplay: --inline plays one animation, and these files would play one after another '
                        b'(give --sequence to take them as the frames of one)\r\nafter rc=64\r\n')
