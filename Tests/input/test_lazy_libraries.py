"""The codec libraries a run may not need are loaded when a file needs them, not at every start
(CLazyLib, CAVIF, CImageQuant, CCurl): the binary links none of them, a GIF loads none, and a
PNG, WebP or JPEG loads its own (what ld.so reports with LD_DEBUG=files, dlopen included)."""
import os, subprocess
import ptyharness as h

ROOT = h.ROOT
LAZY = ['libpng', 'libwebp', 'libwebpdemux', 'libwebpmux', 'libjpeg', 'libavif', 'libimagequant', 'libcurl']


def loaded(path):
    """The libraries' base names (before .so) that ld.so opened for `animplay info PATH`."""
    env = dict(os.environ, LD_DEBUG='files')
    r = subprocess.run([h.binary(), 'info', path], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    names = set()
    for line in r.stderr.splitlines():
        if 'file=' in line and ('generating link map' in line or 'needed by' in line or 'dynamically loaded by' in line):
            base = os.path.basename(line.split('file=', 1)[1].split()[0].rstrip(';'))
            names.add(base.split('.so')[0])
    return names


def test_the_binary_links_none_of_them():
    r = subprocess.run(['ldd', h.binary()], capture_output=True, text=True)
    assert r.returncode == 0
    linked = {os.path.basename(l.split()[0]).split('.so')[0] for l in r.stdout.splitlines() if l.strip()}
    assert not linked & set(LAZY), r.stdout


def test_a_gif_loads_none_and_each_format_loads_its_own():
    gif = loaded(os.path.join(ROOT, 'samples', 'bounce.gif'))
    assert 'libgif' in gif                               # what ld.so reports is read right
    assert not gif & set(LAZY), sorted(gif)
    png = loaded(os.path.join(ROOT, 'samples', 'spinner.png'))
    assert 'libpng16' in png and not png & {'libwebp', 'libjpeg'}, sorted(png)
    webp = loaded(os.path.join(ROOT, 'samples', 'orbit.webp'))
    assert {'libwebp', 'libwebpdemux', 'libwebpmux'} <= webp and 'libpng16' not in webp, sorted(webp)
    jpeg = loaded(os.path.join(ROOT, 'Tests', 'Fixtures', 'jpeg', 'baseline-420.jpg'))
    assert 'libjpeg' in jpeg and not jpeg & {'libwebp', 'libpng16'}, sorted(jpeg)
