"""The first kitty upload of a play over ssh (inline, base64) is written while its zlib stream is
made (FrameStream): in a pty that answers like kitty, it must still be one well-formed chunked
command (`a=T` first, every chunk of 4096 base64 characters but the last, `m=1` until the last
says `m=0`), written once, whose data is the frame, before the next frame is added; and leave no
command open. An 800x600 first frame (1.4 MB of RGB, compressed in halves) of seeded noise makes
an upload of some tens of kilobytes."""
import base64, os, random, re, tempfile, zlib
import termresponder as t
from gifwriter import write_gif

TMP = tempfile.mkdtemp(prefix='animplay-kitty-first-')
WINDOW = dict(cols=120, rows=40, xpixel=1200, ypixel=800)
COMMAND = re.compile(rb'\x1b_G([^;\x1b]*)(?:;([^\x1b]*))?\x1b\\')
SSH = {'SSH_CONNECTION': '192.0.2.1 50000 192.0.2.2 22'}


def noisy_then_solid(path):
    """800x600: frame 0 of 16x16 blocks in 200 colours at random (seeded), then two solid frames;
    0.2 s each."""
    rng = random.Random(22)
    colours = [(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(200)]
    blocks = [colours[rng.randrange(200)] for _ in range(50 * 38)]
    first = [blocks[y // 16 * 50 + x // 16] for y in range(600) for x in range(800)]
    write_gif(path, 800, 600, [first, [(250, 0, 0)] * (800 * 600), [(0, 0, 250)] * (800 * 600)],
              delay_cs=20, loops=1)
    return first


def keys(raw):
    return dict(kv.split(b'=', 1) for kv in raw.split(b',') if b'=' in kv)


def test_the_first_upload_is_one_whole_command_written_once():
    path = os.path.join(TMP, 'noisy.gif')
    first_pixels = noisy_then_solid(path)
    res = t.run(['--graphics', 'kitty', '--fill', path], t.KITTY, timeout=30, env=SSH, **WINDOW)
    assert res.status == 0, res.output[-400:]
    assert res.leftover == b'' and res.stty_before == res.stty_after
    cmds = [(keys(m.group(1)), m.group(2) or b'') for m in COMMAND.finditer(res.output)]
    roots = [i for i, (k, _) in enumerate(cmds) if k.get(b'a') == b'T' and k.get(b'i')]
    assert len(roots) == 1, [cmds[i][0] for i in roots]              # frame 0 goes up once
    i = roots[0]
    root = cmds[i][0]
    assert root[b'f'] == b'24' and root[b'o'] == b'z' and root[b's'] == b'800' and root[b'v'] == b'600'
    data = b''
    while True:
        k, payload = cmds[i]
        data += payload
        if k.get(b'm') != b'1':
            break
        assert len(payload) == 4096, len(payload)
        i += 1
        assert set(cmds[i][0]) <= {b'm', b'q'}, cmds[i][0]            # a continuation: only m and q
    assert cmds[i][0][b"m"] == b"0" and len(data) > 32 << 10          # many chunks
    rgb = zlib.decompress(base64.b64decode(data))
    assert rgb == bytes(c for p in first_pixels for c in p)
    # The next frame is added to the same image after it.
    added = [k for k, _ in cmds[i + 1:] if k.get(b'a') == b'f']
    assert added and added[0][b'i'] == root[b'i']
    # No command is left open: the first ESC after each ESC _ is its ST.
    out = res.output
    for m in re.finditer(rb'\x1b_', out):
        end = out.find(b'\x1b', m.end())
        assert end >= 0 and out[end:end + 2] == b'\x1b\\'
