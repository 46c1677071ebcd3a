"""animplay --graphics iterm2 (and detection by TERM_PROGRAM / LC_TERMINAL) in a pseudo-terminal:
the OSC 1337 inline images parse back (base64 -> PNG -> pixels) to the frames, in order, sized
in cells, at a fixed place; the screen is restored. (No iTerm2 runs here: the images' contents
are checked by decoding them, as a terminal would.)"""
import base64, re, struct, tempfile, zlib
import pytest
import ptyharness as h
import termresponder as t
from gifwriter import write_gif

TMP = tempfile.mkdtemp(prefix='animplay-iterm2-')
RED, GREEN, BLUE = (255, 0, 0), (0, 255, 0), (0, 0, 255)
OSC1337 = re.compile(rb'\x1b\[(\d+);(\d+)H\x1b\]1337;File=([^:]*):([A-Za-z0-9+/=]*)\x07')


def png_pixels(data):
    """(width, height, [(r, g, b)] of row 0) of an 8-bit RGB PNG (what our encoder writes)."""
    assert data[:8] == b'\x89PNG\r\n\x1a\n'
    i, idat, w, h_ = 8, b'', None, None
    while i < len(data):
        n, kind = struct.unpack('>I4s', data[i:i + 8])
        body = data[i + 8:i + 8 + n]
        assert zlib.crc32(kind + body) == struct.unpack('>I', data[i + 8 + n:i + 12 + n])[0]
        if kind == b'IHDR':
            w, h_, depth, ctype = struct.unpack('>IIBB', body[:10])
            assert (depth, ctype) == (8, 2)
        elif kind == b'IDAT':
            idat += body
        i += 12 + n
    raw = zlib.decompress(idat)
    stride = w * 3
    rows, prev = [], bytearray(stride)
    for y in range(h_):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - 3] if x >= 3 else 0
            b = prev[x]
            c = prev[x - 3] if x >= 3 else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line)); prev = line
    return w, h_, rows


@pytest.fixture(scope='module')
def rgb_gif():
    path = f'{TMP}/rgb.gif'
    write_gif(path, 8, 8, [[c] * 64 for c in (RED, GREEN, BLUE)], delay_cs=20, loops=0)
    return path


@pytest.mark.parametrize('how', [['--graphics', 'iterm2'], {'TERM_PROGRAM': 'iTerm.app'}, {'LC_TERMINAL': 'iTerm2'}])
def test_frames_parse_back_in_order_sized_in_cells(rgb_gif, how):
    args = (how if isinstance(how, list) else []) + ['--loop', '1', rgb_gif]
    r = h.run(args, cols=80, rows=24, pixels=(800, 480), env=how if isinstance(how, dict) else None)
    assert r.status == 0, r.output[-300:]
    images = OSC1337.findall(r.output)
    assert len(images) >= 3
    colours, places = [], set()
    for row, col, argtext, payload in images:
        args = dict(kv.split(b'=') for kv in argtext.split(b';'))
        png = base64.b64decode(payload)
        assert int(args[b'size']) == len(png)
        assert args[b'inline'] == b'1' and args[b'preserveAspectRatio'] == b'0' and args[b'doNotMoveCursor'] == b'1'
        w, hh, rows = png_pixels(png)
        # 8x8 pixel art in 10x20-pixel cells, enlarged by a whole factor to fit 80x22 rows.
        assert int(args[b'width']) * 10 >= w and int(args[b'height']) * 20 >= hh
        assert (int(args[b'width']) - 1) * 10 < w and (int(args[b'height']) - 1) * 20 < hh
        px = {tuple(rows[y][x:x + 3]) for y in range(hh) for x in range(0, w * 3, 3)}
        assert len(px) == 1, px
        colours.append(px.pop())
        places.add((row, col))
    dedup = [c for i, c in enumerate(colours) if i == 0 or colours[i - 1] != c]
    assert dedup == [RED, GREEN, BLUE]
    assert len(places) == 1
    # The last frame is printed into the normal screen with the cursor moving below it.
    assert b'doNotMoveCursor=0' in r.output.split(b'\x1b[?1049l')[-1]
    assert r.stty_after == r.stty_before


def test_forced_in_a_terminal_that_does_not_say_what_it_is(rgb_gif):
    # DA1 answered, XTVERSION not (VTE): nothing names a terminal without iTerm2 images, so
    # `--graphics iterm2` is obeyed (it used to trap on the missing version: SIGILL).
    r = t.run(['--graphics', 'iterm2', '--loop', '1', rgb_gif], t.DA1_ONLY, cols=80, rows=24, xpixel=800, ypixel=480)
    assert r.status == 0, r.output[-300:]
    assert len(OSC1337.findall(r.output)) == 3
    assert r.stty_before == r.stty_after
