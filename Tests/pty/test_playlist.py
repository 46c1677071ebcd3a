"""Several files: animations (or stills of different sizes) play one after another, with n/p
for the next/previous file and the file name in the status line; stills of one size stay the
frames of one animation (--sequence / --in-turn force either reading).
"""
import os, subprocess, tempfile
import pytest
import ptyharness as h
from gifwriter import write_gif

TMP = tempfile.mkdtemp(prefix='animplay-playlist-')
RED, GREEN, BLUE, YELLOW = (250, 0, 0), (0, 200, 0), (0, 0, 250), (250, 250, 0)


def gif(name, colours, loops=None, size=(16, 8), delay_cs=5):
    p = os.path.join(TMP, name)
    write_gif(p, size[0], size[1], [[c] * (size[0] * size[1]) for c in colours], delay_cs=delay_cs, loops=loops)
    return p


def runs(seq):
    """The colour sequence with repeats collapsed (a redraw of the same frame is not a frame)."""
    out = []
    for c in seq:
        if not out or out[-1] != c:
            out.append(c)
    return out


def test_animations_play_in_turn_with_their_names():
    a = gif('a.gif', [RED, GREEN])            # no loop extension: one play
    b = gif('b.gif', [BLUE, YELLOW])
    r = h.run([a, b, '--status'])
    assert r.status == 0 and r.stty_before == r.stty_after
    assert runs(h.colour_sequence(r.output)) == [RED, GREEN, BLUE, YELLOW]
    text = r.output.decode('utf-8', 'replace')
    assert f'1/2 {a}' in text and f'2/2 {b}' in text
    assert text.index(f'1/2 {a}') < text.index(f'2/2 {b}')
    # One alternate screen for both files: no flash of the shell between them.
    assert r.screen.alt_entries == 1


def test_loop_applies_to_each_file():
    a = gif('a2.gif', [RED, GREEN], loops=0)   # forever by itself: in a list, --loop decides
    b = gif('b2.gif', [BLUE, YELLOW], loops=0)
    r = h.run([a, b, '--loop', '2'])
    assert r.status == 0
    assert runs(h.colour_sequence(r.output)) == [RED, GREEN, RED, GREEN, BLUE, YELLOW, BLUE, YELLOW]
    # Without --loop a file that loops forever plays once, so that the list goes on.
    r = h.run([a, b])
    assert r.status == 0 and runs(h.colour_sequence(r.output)) == [RED, GREEN, BLUE, YELLOW]


def test_n_and_p_keys():
    a = gif('na.gif', [RED, GREEN], loops=0, delay_cs=20)
    b = gif('nb.gif', [BLUE, YELLOW], loops=0, delay_cs=20)
    c = gif('nc.gif', [GREEN, RED], loops=0, delay_cs=20)
    steps = [(f'1/3 {a}'.encode(), b'n'),          # forever (--loop 0): only n moves on
             (f'2/3 {b}'.encode(), b'p'),
             (f'1/3 {a}'.encode(), b'p'),           # p on the first file: it again from its start
             (f'1/3 {a}'.encode(), b'n'),
             (f'2/3 {b}'.encode(), b'n'),
             (f'3/3 {c}'.encode(), b'n')]           # n on the last file: the end
    r = h.run([a, b, c, '--loop', '0', '--status'], steps=steps, timeout=30)
    assert r.status == 0 and r.stty_before == r.stty_after
    labels = [l for l in (f'1/3 {a}', f'2/3 {b}', f'3/3 {c}')]
    text = r.output.decode('utf-8', 'replace')
    order = sorted((m, l) for l in labels for m in find_all(text, l))
    assert runs([l for _, l in order]) == [labels[0], labels[1], labels[0], labels[1], labels[2]]


def find_all(text, needle):
    i = text.find(needle)
    while i >= 0:
        yield i
        i = text.find(needle, i + 1)


def test_stills_of_one_size_are_frames_stills_of_several_sizes_play_in_turn():
    s1 = gif('s1.gif', [RED]); s2 = gif('s2.gif', [BLUE])
    big = gif('big.gif', [GREEN], size=(32, 16))
    info = subprocess.run([h.binary(), 'info', '--json', s1, s2], capture_output=True, text=True)
    assert '"frame-sequence"' in info.stdout and '"frameCount":2' in info.stdout.replace(' ', '')
    # Same size: one animation of two frames at 10 fps (the sequence reading), played once.
    r = h.run([s1, s2, '--loop', '1', '--status'])
    assert r.status == 0 and runs(h.colour_sequence(r.output)) == [RED, BLUE]
    assert f'1/2 {s1}'.encode() not in r.output
    # Different sizes: in turn, each still held on screen, n moves on at once.
    r = h.run([s1, big, '--status'], steps=[(f'1/2 {s1}'.encode(), b'n'), (f'2/2 {big}'.encode(), b'n')])
    assert r.status == 0 and runs(h.colour_sequence(r.output))[-2:] == [RED, GREEN]
    # --in-turn forces files in turn, --sequence forces frames.
    r = h.run([s1, s2, '--in-turn', '--status'], steps=[(f'1/2 {s1}'.encode(), b'n'), (f'2/2 {s2}'.encode(), b'q')])
    assert r.status == 0 and runs(h.colour_sequence(r.output)) == [RED, BLUE]
    # Animations as one: every frame of each in turn (it was their first frames only).
    a = gif('sa.gif', [RED, GREEN]); b = gif('sb.gif', [BLUE, YELLOW])
    r = h.run([a, b, '--sequence', '--loop', '1', '--status'])
    assert r.status == 0 and f'1/2 {a}'.encode() not in r.output
    assert runs(h.colour_sequence(r.output)) == [RED, GREEN, BLUE, YELLOW]


def test_a_file_that_fails_is_named_and_skipped():
    a = gif('fa.gif', [RED, GREEN])
    bad = os.path.join(TMP, 'bad.gif')
    with open(bad, 'wb') as f:
        f.write(b'this is not an image')
    b = gif('fb.gif', [BLUE, YELLOW])
    r = h.run([a, bad, b])
    # The others play; the bad one gets its one-line error after the terminal is restored, and
    # its exit status (3: not a supported image).
    assert r.status == 3 and runs(h.colour_sequence(r.output)) == [RED, GREEN, BLUE, YELLOW]
    assert f'animplay: {bad}: unsupported format: not a GIF, PNG, WebP, JPEG or AVIF file'.encode() in r.output.replace(b'\r\n', b'')
    assert r.stty_before == r.stty_after


def test_a_folder_among_the_files_plays_as_its_frames():
    # A folder alone is its images as one animation; among other files, played in turn, it is
    # the same (it failed with "is a directory").
    a = gif('da.gif', [RED, GREEN])
    folder = os.path.join(TMP, 'frames')
    os.makedirs(folder, exist_ok=True)
    for i, c in enumerate([BLUE, YELLOW]):
        write_gif(os.path.join(folder, f'f{i}.gif'), 16, 8, [[c] * 128])
    r = h.run([a, folder, '--loop', '1', '--status'])
    assert r.status == 0 and r.stty_before == r.stty_after
    assert runs(h.colour_sequence(r.output)) == [RED, GREEN, BLUE, YELLOW]
    assert f'2/2 {folder}'.encode() in r.output


def test_info_describes_files_in_turn_as_play_plays_them():
    # `info a.gif b.gif` describes each file (it described a frame sequence of their first
    # frames, with warnings); stills of one size stay one sequence, as in play.
    a = gif('ia.gif', [RED, GREEN]); b = gif('ib.gif', [BLUE, YELLOW, GREEN], size=(24, 8))
    missing = os.path.join(TMP, 'missing.gif')
    p = subprocess.run([h.binary(), 'info', a, missing, b], capture_output=True, text=True)
    assert p.returncode == 2     # the missing file's status, after the others are described
    assert [l for l in p.stdout.splitlines() if l and not l.startswith(' ')] == [a, b]
    assert p.stdout.count('format    gif') == 2 and 'frames    3' in p.stdout
    assert p.stderr == f'animplay: {missing}: cannot read file: No such file or directory\n'
    # --json: one object per line (JSON Lines), each the object `info --json FILE` prints.
    import json
    p = subprocess.run([h.binary(), 'info', '--json', a, b], capture_output=True, text=True)
    lines = p.stdout.splitlines()
    assert p.returncode == 0 and len(lines) == 2
    alone = [json.loads(subprocess.run([h.binary(), 'info', '--json', f], capture_output=True, text=True).stdout)
             for f in (a, b)]
    assert [json.loads(l) for l in lines] == alone
    # --sequence forces the old reading; --in-turn describes stills of one size one by one.
    p = subprocess.run([h.binary(), 'info', '--json', '--sequence', a, b], capture_output=True, text=True)
    assert json.loads(p.stdout)['format'] == 'frame-sequence'
    s1 = gif('is1.gif', [RED]); s2 = gif('is2.gif', [BLUE])
    p = subprocess.run([h.binary(), 'info', '--json', s1, s2], capture_output=True, text=True)
    assert json.loads(p.stdout)['frameCount'] == 2
    p = subprocess.run([h.binary(), 'info', '--json', '--in-turn', s1, s2], capture_output=True, text=True)
    assert [json.loads(l)['file'] for l in p.stdout.splitlines()] == [s1, s2]
