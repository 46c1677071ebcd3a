"""Screenshots of an Xvfb root window, cheap enough to watch frames of a few hundred ms.

The real-terminal tests sample the screen in a loop and must see every frame. `import -window
root` costs a process start, an X round trip and a conversion (about 0.2 s of CPU on the loaded
2-core machine), so a loop of them missed frames whenever the machine was busy. Here the pixels
come over one X connection kept per display (python-xlib GetImage, about 25 ms), and colours
are counted with bytes.count/find, which run in C.

Alignment: pixels are 4 bytes (B, G, R, pad). Every pad byte is set to 0x01 and the colour
searched for is (B, G, R, 0x01). A match that is not pixel-aligned covers a pad byte at a place
where the pattern has B, G or R; the test colours' channels are 0 or 255, never 1, so such a
match cannot happen and every match is one pixel. (Colours with a channel of 1 are refused.)

Without python-xlib (scripts/install-deps installs it: Tests/requirements.txt) the pixels come
from ImageMagick's `import`, as before, into the same layout.
"""
import subprocess

_connections = {}


class Screen:
    """The root window's pixels as rows of (B, G, R, 0x01)."""

    def __init__(self, data, width, height):
        self.data, self.width, self.height = data, width, height

    @staticmethod
    def pattern(color):
        r, g, b = color
        assert 1 not in color, 'a channel of 1 is the pad marker'
        return bytes((b, g, r, 1))

    def count(self, color):
        return self.data.count(self.pattern(color))

    def box(self, color):
        """(pixel count, (x0, y0, x1, y1) or None) of the colour."""
        pat, stride = self.pattern(color), self.width * 4
        count, x0, y0, x1, y1 = self.data.count(pat), None, None, None, None
        if not count:
            return 0, None
        for y in range(self.height):
            start = y * stride
            first = self.data.find(pat, start, start + stride)
            if first < 0:
                continue
            last = self.data.rfind(pat, start, start + stride)
            fx, lx = (first - start) // 4, (last - start) // 4
            x0 = fx if x0 is None else min(x0, fx)
            x1 = lx if x1 is None else max(x1, lx)
            y0 = y if y0 is None else y0
            y1 = y
        return count, (x0, y0, x1, y1)


def grab(display_name, size):
    """A Screen of the root window (`size`: its width and height) of `display_name` now."""
    try:
        return _grab_xlib(display_name, size)
    except ImportError:
        return _grab_import(display_name, size)


def _grab_xlib(display_name, size):
    from Xlib import X, display
    conn = _connections.get(display_name)
    if conn is None:
        conn = _connections[display_name] = display.Display(display_name)
    info, screen = conn.display.info, conn.screen()
    bpp = {f.depth: f.bits_per_pixel for f in info.pixmap_formats}.get(screen.root_depth)
    if screen.root_depth != 24 or bpp != 32 or info.image_byte_order != X.LSBFirst:
        return _grab_import(display_name, size)   # not the layout Xvfb -screen WxHx24 gives
    w, h = screen.width_in_pixels, screen.height_in_pixels
    data = bytearray(screen.root.get_image(0, 0, w, h, X.ZPixmap, 0xffffffff).data)
    data[3::4] = b'\x01' * (w * h)
    return Screen(bytes(data), w, h)


def _grab_import(display_name, size):
    raw = subprocess.run(['import', '-display', display_name, '-window', 'root', '-depth', '8', 'rgb:-'],
                         capture_output=True, check=True, timeout=20).stdout
    w, h = size
    n = w * h
    data = bytearray(n * 4)
    data[0::4], data[1::4], data[2::4], data[3::4] = raw[2::3], raw[1::3], raw[0::3], b'\x01' * n
    return Screen(bytes(data), w, h)
