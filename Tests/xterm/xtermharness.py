"""Runs animplay inside Debian's xterm with sixel graphics (VT340 emulation, 256 colour
registers) under Xvfb, and looks at what xterm displays.

- `XTerm`: xterm running animplay through kittyharness's wrapper (records animplay's pid and
  exit status, then keeps the window open); `keys` types into it (xdotool, XSendEvent, which
  the xterm is started to allow), `resize` resizes its X window (xterm resizes its pty: SIGWINCH).
- `MLTerm`: Debian's mlterm the same way, a second real sixel terminal (no keys: it ignores
  synthetic key events).
- `boxes()`: for each test colour, its pixel count and bounding box in a screenshot of the root
  window (kitty/screenshot.py).
"""
import os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'kitty'))
sys.path.insert(0, os.path.join(HERE, '..', 'pty'))
from kittyharness import Display, PROBE_BUDGET, WRAPPER, SCREEN, WrappedTerminal, solid_animations  # noqa: E402,F401
from ptyharness import binary  # noqa: E402
from screenshot import grab  # noqa: E402


class SixelTerminal(WrappedTerminal):
    """A terminal under Xvfb running animplay through kittyharness's wrapper, its stderr kept in
    `self.stderr`; subclasses say how to start the terminal around the inner command line."""

    def __init__(self, display, args, env=None, inside=()):
        # `inside`: a command line animplay runs in, within the terminal (e.g. `sh -c '...; exec "$@"' sh`).
        self.dir = tempfile.mkdtemp(prefix=f'animplay-{self.name}-')
        self.pidfile = os.path.join(self.dir, 'pid')
        self.rcfile = os.path.join(self.dir, 'rc')
        wrapper = os.path.join(self.dir, 'wrap.py')
        with open(wrapper, 'w') as f:
            f.write(WRAPPER)
        self.env = dict(os.environ, DISPLAY=display.name, ANIMPLAY_PROBE_MS=PROBE_BUDGET)
        for k in ('TMUX', 'TERM_PROGRAM', 'LC_TERMINAL', 'KITTY_WINDOW_ID', 'WEZTERM_EXECUTABLE', 'KONSOLE_VERSION'):
            self.env.pop(k, None)
        if env:
            self.env.update(env)
        self.stderr = os.path.join(self.dir, 'stderr')
        inner = list(inside) + [sys.executable, wrapper, self.pidfile, self.rcfile, 'sh', '-c',
                 f'exec "$0" "$@" 2>{self.stderr}', binary()] + args
        self.proc = subprocess.Popen(self.command(inner), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     env=self.env, cwd=self.dir)

    def command(self, inner):
        raise NotImplementedError

    def errors(self):
        return open(self.stderr, 'rb').read().decode(errors='replace') if os.path.exists(self.stderr) else ''

    def window(self):
        out = self.wait_for(lambda: subprocess.run(['xdotool', 'search', '--name', 'animplay-test'], env=self.env,
                                                   capture_output=True, text=True).stdout.split(), what='window')
        return out[0]

    def keys(self, *names):
        subprocess.run(['xdotool', 'key', '--window', self.window()] + list(names), env=self.env, check=True, timeout=10)

    def resize(self, width, height):
        subprocess.run(['xdotool', 'windowsize', self.window(), str(width), str(height)], env=self.env,
                       check=True, timeout=10)

    def boxes(self, colors):
        """{colour: (pixel count, (x0, y0, x1, y1) or None)} on the root window now."""
        screen = grab(self.env['DISPLAY'], SCREEN)
        return {c: screen.box(c) for c in colors}

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


class XTerm(SixelTerminal):
    name = 'xterm'

    def __init__(self, display, args, geometry='80x24', env=None, inside=()):
        self.geometry = geometry
        super().__init__(display, args, env, inside)

    def command(self, inner):
        return ['xterm', '-ti', 'vt340', '-xrm', 'XTerm*decTerminalID: vt340',
                '-xrm', 'XTerm*numColorRegisters: 256', '-xrm', 'XTerm*allowSendEvents: true',
                '-geometry', self.geometry, '+sb', '-title', 'animplay-test', '-e'] + inner


class MLTerm(SixelTerminal):
    """Debian's mlterm: sixel without any option (its DA1 answer lists attribute 4)."""
    name = 'mlterm'

    def command(self, inner):
        return ['mlterm', '--geometry=80x24', '--title=animplay-test', '-e'] + inner
