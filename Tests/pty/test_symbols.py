"""--symbols end to end: the real binary in a pty, the screen replayed in pyte and rasterised by
each glyph's coverage (from the Unicode character names, independently of animplay's tables)."""
import math, os, subprocess, unicodedata
import ptyharness as h
import termresponder as t
from requires import requires
from gifwriter import write_gif
from test_play import TMP, area_average

W, H = 120, 90          # fits a 40x15 cell box exactly (40 columns x 30 half-block rows)
COLS, ROWS = 40, 15
CW, CH = 2, 6           # raster per cell: a whole number of pixels for halves and sextants


def disc_picture(shift):
    out = []
    for y in range(H):
        for x in range(W):
            dx, dy = x - 45 - shift, y - 45
            if dx * dx + dy * dy < 33 * 33:
                out.append((240, 200, 40))
            elif abs(x - 1.3 * y - 10) < 2.5:
                out.append((40, 200, 220))
            else:
                out.append((30, 30, 80))
    return out


def coverage(ch):
    """Which of a cell's CW x CH raster pixels show the foreground."""
    n = unicodedata.name(ch, '')
    rows = None                          # per raster row: (left, right) covered
    if ch == ' ':
        rows = [(0, 0)] * CH
    elif ch == '\u2588':
        rows = [(1, 1)] * CH
    elif ch == '\u2580':
        rows = [(1, 1)] * 3 + [(0, 0)] * 3
    elif ch == '\u2584':
        rows = [(0, 0)] * 3 + [(1, 1)] * 3
    elif ch == '\u258c':
        rows = [(1, 0)] * CH
    elif ch == '\u2590':
        rows = [(0, 1)] * CH
    elif n.startswith('BLOCK SEXTANT-'):
        on = {int(d) - 1 for d in n.split('-')[1]}
        rows = [((2 * (r // 2)) in on, (2 * (r // 2) + 1) in on) for r in range(CH)]
    assert rows is not None, f'unexpected character {ch!r} ({n})'
    return rows


def rasterise(buffer, row0, col0):
    img = {}
    for r in range(ROWS):
        for c in range(COLS):
            cell = buffer[row0 + r][col0 + c]
            fg, bg = h.hexrgb(cell.fg), h.hexrgb(cell.bg)
            for y, (left, right) in enumerate(coverage(cell.data)):
                for x, on in enumerate((left, right)):
                    img[(r * CH + y, c * CW + x)] = fg if on else bg
    return img


def mse(img, reference):
    total = 0.0
    for (y, x), p in img.items():
        assert p is not None, 'no transparent pixels in this picture'
        q = reference[y * COLS * CW + x]
        total += sum((a - b) ** 2 for a, b in zip(p, q))
    return total / (len(img) * 3)


def test_sextants_reproduce_edges_better_than_half_blocks_and_stay_on_exit():
    path = os.path.join(TMP, 'disc.gif')
    frames = [disc_picture(0), disc_picture(6)]
    write_gif(path, W, H, frames, delay_cs=5, loops=0)
    reference = area_average(frames[-1], W, H, COLS * CW, ROWS * CH)
    errors = {}
    for symbols in ('half', 'sextant'):
        r = t.run([path, '--loop', '1', '--symbols', symbols, '--size', f'{COLS}x{ROWS}'], t.DRAWS_BLOCKS,
                  cols=COLS, rows=ROWS + 1)
        assert r.status == 0 and r.stty_before == r.stty_after
        alt = r.screen.alt_snapshots[-1]
        chars = {alt[y][x].data for y in range(ROWS) for x in range(COLS)}
        if symbols == 'sextant':
            assert any(unicodedata.name(c, '').startswith('BLOCK SEXTANT-') for c in chars)
        else:
            assert chars <= {' ', '\u2580', '\u2584', '\u2588'}
        # The image fills the box, centred in the screen above the (hidden) status row.
        shown = rasterise(alt, 0, 0)
        # The last frame is left in the normal screen at the cursor, drawn the same way (the
        # live frames may differ within one just-noticeable difference, the printed one not).
        printed = rasterise(r.screen.buffer, 0, 0)
        errors[symbols] = mse(printed, reference)
        assert math.sqrt(mse(shown, reference)) < math.sqrt(errors[symbols]) + 2
    # RMS error in sRGB code values: sextants resolve the disc's edge and the thin band.
    assert errors['sextant'] < 0.8 * errors['half'], errors


def test_octants_in_256_colours_are_written_directly():
    # Octants are Unicode 16: animplay writes them itself (SGR 38;5 / 48;5), never through ncurses,
    # whose C library may give them no width.
    path = os.path.join(TMP, 'disc.gif')
    if not os.path.exists(path):
        write_gif(path, W, H, [disc_picture(0), disc_picture(6)], delay_cs=5, loops=0)
    r = t.run([path, '--loop', '1', '--symbols', 'octant', '--colors', '256', '--size', f'{COLS}x{ROWS}'],
              t.DRAWS_BLOCKS, cols=COLS, rows=ROWS + 1)
    assert r.status == 0 and r.stty_before == r.stty_after
    out = h.drawn(r.output)
    octants = [c for c in out.decode('utf-8', 'replace') if 0x1CD00 <= ord(c) <= 0x1CDE5]
    assert len(octants) > 20
    assert b'\x1b[38;5;' in out and b'38;2;' not in out and b'48;2;' not in out
    # Each octant is drawn by the direct writer: right after an SGR or another glyph, inside
    # a save/restore-cursor bracket (ESC 7 ... ESC 8).
    first = out.find('\U0001CD00'.encode()[:2])
    assert out.rfind(b'\x1b7', 0, first) > out.rfind(b'\x1b8', 0, first)


def font_has(codepoint):
    out = subprocess.run(['fc-list', f':charset={codepoint:x}', 'family'], capture_output=True, text=True)
    return out.returncode == 0 and out.stdout.strip() != ''


@requires('fc-list')
def test_octants_fall_back_to_sextants_in_kitty_0_26_without_an_octant_font():
    # kitty 0.26 draws sextants itself but not octants (from 0.40); with no installed font that
    # has U+1CD00, octants would be tofu: sextants, and one warning line saying why.
    path = os.path.join(TMP, 'disc.gif')
    if not os.path.exists(path):
        write_gif(path, W, H, [disc_picture(0), disc_picture(6)], delay_cs=5, loops=0)
    r = t.run([path, '--loop', '1', '--graphics', 'cells', '--symbols', 'octant', '--size', f'{COLS}x{ROWS}'],
              t.KITTY, cols=COLS, rows=ROWS + 1)
    assert r.status == 0
    alt = r.screen.alt_snapshots[-1]
    chars = ''.join(alt[y][x].data for y in range(ROWS) for x in range(COLS))
    octants = any(0x1CD00 <= ord(c) <= 0x1CDE5 for c in chars)
    sextants = any(unicodedata.name(c, '').startswith('BLOCK SEXTANT-') for c in chars)
    warned = b'animplay: warning: --symbols octant: no installed font has U+1CD00; kitty(0.26.5) does not draw it itself; using sextant' in r.output
    if font_has(0x1CD00):
        assert octants and not warned
    else:
        assert sextants and not octants and warned
