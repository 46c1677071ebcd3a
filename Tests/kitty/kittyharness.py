"""Runs animplay inside the real kitty (Debian's, under Xvfb) and watches what kitty does.

- `Display`: an Xvfb server on a display it picks itself (`-displayfd`, race-free; see the class).
- `Kitty`: `kitty --config NONE --dump-commands` running animplay through a small wrapper that
  records animplay's pid and exit status; kitty prints every graphics command it parsed on its
  stdout, which `commands()` parses back (keys only; payloads are checked by the unit tests).
  `send_text` types into the window (kitty remote control), `resize` resizes the OS window,
  `screen_colors()` counts the test colours in a screenshot of the root window (screenshot.py).
"""
import ast, os, re, shutil, signal, subprocess, sys, tempfile, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
sys.path.insert(0, os.path.join(ROOT, 'Tests', 'pty'))
from ptyharness import binary  # noqa: E402
from screenshot import grab  # noqa: E402

SCREEN = (1024, 768)


class Display:
    """An Xvfb server of our own. The X server picks the display number (`-displayfd`): it takes
    the first number whose socket it can bind (the kernel's abstract socket namespace, so two
    servers starting at once cannot both win) and whose lock file it can create (/tmp/.X<N>-lock,
    made with link(), atomic), then writes the number to the pipe once it accepts connections.
    Several pytest-xdist workers and other people's runs on the machine therefore never share or
    steal a display, and nothing here guesses a free number. A server that loses a race it cannot
    recover from (it exits before naming a display) is simply started again."""

    def __init__(self, attempts=5):
        for attempt in range(attempts):
            name = self._start()
            if name:
                self.name = name
                return
        raise RuntimeError(f'Xvfb did not report a display in {attempts} attempts')

    def _start(self):
        r, w = os.pipe()
        self.proc = subprocess.Popen(
            ['Xvfb', '-displayfd', str(w), '-screen', '0', f'{SCREEN[0]}x{SCREEN[1]}x24', '-nolisten', 'tcp'],
            pass_fds=[w], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(w)
        data = b''
        while not data.endswith(b'\n'):
            chunk = os.read(r, 16)   # EOF when Xvfb exits without a display
            if not chunk:
                break
            data += chunk
        os.close(r)
        if data.strip().isdigit():
            return ':' + data.decode().strip()
        self.close()
        return None

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


WRAPPER = r'''
import os, signal, subprocess, sys, time
pidfile, rcfile = sys.argv[1], sys.argv[2]
p = subprocess.Popen(sys.argv[3:])
signal.signal(signal.SIGINT, signal.SIG_IGN)     # Ctrl-C and Ctrl-\ are for animplay; keep the wrapper
signal.signal(signal.SIGQUIT, signal.SIG_IGN)
with open(pidfile, 'w') as f: f.write(str(p.pid))
rc = p.wait()
with open(rcfile + '.tmp', 'w') as f: f.write(str(rc))
os.rename(rcfile + '.tmp', rcfile)
# `then` (WrappedTerminal.then): one shell command run afterwards on the same terminal.
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    if os.path.exists(rcfile + '.then'):
        subprocess.run(['sh', '-c', open(rcfile + '.then').read()])
        open(rcfile + '.then-done', 'w').close()
        break
    time.sleep(0.02)
time.sleep(max(0, deadline - time.monotonic()))
'''


class TerminalDied(AssertionError):
    """The terminal itself exited under a running test. The wrapper keeps the window open for two
    minutes after animplay exits, so this is the terminal failing (a crash), not animplay exiting.
    scripts/test reruns such a test once (`--only-rerun TerminalDied`); no other failure is rerun."""


# The terminal probe's budget for animplay in a real terminal (ANIMPLAY_PROBE_MS). A terminal
# ends the round as soon as it has answered, so a long budget costs nothing; the 100 ms default
# did not always hold on a loaded test machine (kitty drawing in software, three test workers),
# and a forced `--graphics sixel` then went unchecked: kitty's answer, that it has no sixel,
# came after the round (reproduced with ANIMPLAY_PROBE_MS=1). The budget is not under test here.
PROBE_BUDGET = '2000'


class WrappedTerminal:
    """A terminal (`self.proc`, named `self.name`) running animplay through WRAPPER, which writes
    animplay's pid to `self.pidfile` and its exit status to `self.rcfile`."""
    name = 'terminal'

    def wait_for(self, predicate, timeout=20, what='condition'):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            v = predicate()
            if v:
                return v
            if self.proc.poll() is not None:
                raise TerminalDied(f'{self.name} exited (status {self.proc.returncode}) while waiting for {what}'
                                     f'{self.stderr_tail()}')
            time.sleep(0.02)
        raise AssertionError(f'timed out waiting for {what}')

    def stderr_tail(self):
        """The end of the terminal's stderr, for failure messages (empty when there is none)."""
        path = getattr(self, 'stderr_path', None)
        if not path or not os.path.exists(path):
            return ''
        with open(path, 'rb') as f:
            tail = f.read()[-2000:].decode('utf-8', 'replace').strip()
        return f'; its stderr ends:\n{tail}' if tail else ''

    def pid(self):
        return int(self.wait_for(lambda: os.path.exists(self.pidfile) and open(self.pidfile).read(), what='pid'))

    def exited(self):
        return os.path.exists(self.rcfile)

    def stopped(self):
        """Whether animplay is stopped by job control (state T in /proc)."""
        with open(f'/proc/{self.pid()}/stat') as f:
            return f.read().rsplit(')', 1)[1].split()[0] == 'T'

    def then(self, command, timeout=20):
        """Runs the shell command `command` on the terminal after animplay exited (its output goes
        where animplay's went) and waits for it to finish."""
        self.exit_status(timeout)
        with open(self.rcfile + '.then.tmp', 'w') as f:
            f.write(command)
        os.rename(self.rcfile + '.then.tmp', self.rcfile + '.then')
        self.wait_for(lambda: os.path.exists(self.rcfile + '.then-done'), timeout, what=f'`{command}` to finish')

    def exit_status(self, timeout=20):
        return int(self.wait_for(lambda: os.path.exists(self.rcfile) and open(self.rcfile).read(),
                                 timeout, what='animplay to exit'))

    def save_screenshot(self, name):
        """With ANIMPLAY_TEST_SHOTS=DIR set: the root window into DIR/name.png, to look at."""
        d = os.environ.get('ANIMPLAY_TEST_SHOTS')
        if d:
            os.makedirs(d, exist_ok=True)
            subprocess.run(['import', '-display', self.env['DISPLAY'], '-window', 'root', os.path.join(d, name + '.png')],
                           check=True, timeout=20)


def solid_animations(directory, colors, frame_ms):
    """One solid 16x16 frame per colour, `frame_ms` each, looping forever, as GIF, APNG and WebP
    (APNG and WebP made from the GIF by ffmpeg)."""
    from gifwriter import write_gif
    gif = os.path.join(directory, 'rgb.gif')
    write_gif(gif, 16, 16, [[c] * 256 for c in colors], delay_cs=frame_ms // 10, loops=0)
    apng, webp = os.path.join(directory, 'rgb.apng'), os.path.join(directory, 'rgb.webp')
    subprocess.run(['ffmpeg', '-v', 'error', '-y', '-i', gif, '-plays', '0', '-f', 'apng', apng], check=True)
    subprocess.run(['ffmpeg', '-v', 'error', '-y', '-i', gif, '-c:v', 'libwebp', '-lossless', '1',
                    '-loop', '0', webp], check=True)
    return {'gif': gif, 'apng': apng, 'webp': webp}


RAMP_ALPHAS = [0, 16, 25, 64, 96, 128, 192, 255]
RAMP_COLOURS = [(200, 100, 50), (40, 90, 220)]


def alpha_ramp(directory):
    """16x8 APNG (two equal frames, one play): columns 0-7 in RAMP_COLOURS[0], 8-15 in
    RAMP_COLOURS[1], column x with alpha RAMP_ALPHAS[x % 8]."""
    from apngwriter import write_apng
    p = os.path.join(directory, 'ramp.png')
    f = [RAMP_COLOURS[x // 8] + (RAMP_ALPHAS[x % 8],) for y in range(8) for x in range(16)]
    write_apng(p, 16, 8, [f, f], delay_ms=50, plays=1)
    return p


def browser_blend(c, a, bg):
    """A straight-alpha pixel over a page background as Chromium shows it (sRGB code values:
    c·a/255 rounded plus bg·(256−a)/256 truncated; Tests/Fixtures/browser/blend)."""
    return tuple((x * a + 127) // 255 + (b * (256 - a) >> 8) for x, b in zip(c, bg))


def ramp_columns(shot, tolerance=0):
    """The colour shown at the centre of each of the ramp's 16 columns in a screenshot
    (w, h, rgb), found from the opaque columns 7 and 15 (colours within `tolerance`); None when
    they are not on screen."""
    w, h, raw = shot
    b7, b15 = box(raw, w, h, RAMP_COLOURS[0], tolerance), box(raw, w, h, RAMP_COLOURS[1], tolerance)
    if not b7 or not b15:
        return None
    bw = b7[2] - b7[0]
    if bw < 2 or abs((b15[0] - b7[0]) - 8 * bw) > 1:
        return None
    y = (b7[1] + b7[3]) // 2
    out = []
    for x in range(16):
        px = b7[0] + (x - 7) * bw + bw // 2
        i = (y * w + px) * 3
        out.append(tuple(raw[i:i + 3]))
    return out


class Kitty(WrappedTerminal):
    name = 'kitty'

    def __init__(self, display, args, width=800, height=600, env=None, inside=()):
        self.dir = tempfile.mkdtemp(prefix='animplay-kitty-')
        self.pidfile = os.path.join(self.dir, 'pid')
        self.rcfile = os.path.join(self.dir, 'rc')
        self.sock = os.path.join(self.dir, 'sock')
        self.stderr_path = os.path.join(self.dir, 'stderr')
        # `inside`: a command line animplay runs in, within kitty (e.g. tmux new-session).
        self.dump = open(os.path.join(self.dir, 'dump'), 'wb')
        wrapper = os.path.join(self.dir, 'wrap.py')
        with open(wrapper, 'w') as f:
            f.write(WRAPPER)
        # PROBE_BUDGET: see its doc (a test about the budget passes its own in `env`).
        self.env = dict(os.environ, DISPLAY=display.name, LIBGL_ALWAYS_SOFTWARE='1', ANIMPLAY_PROBE_MS=PROBE_BUDGET)
        self.env.pop('TMUX', None)
        if env:
            self.env.update(env)
        self.proc = subprocess.Popen(
            ['kitty', '--config', 'NONE', '-o', f'initial_window_width={width}',
             '-o', f'initial_window_height={height}', '-o', 'remember_window_size=no', '-o', 'sync_to_monitor=no',
             '-o', 'allow_remote_control=yes', '--listen-on', f'unix:{self.sock}',
             '--dump-commands', '--'] + list(inside) + [sys.executable, wrapper, self.pidfile, self.rcfile, binary()] + args,
            stdout=self.dump, stderr=open(self.stderr_path, 'wb'), env=self.env, cwd=self.dir)

    def kitty_cmd(self, *args):
        subprocess.run(['kitty', '@', '--to', f'unix:{self.sock}'] + list(args), env=self.env,
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=10)

    def send_text(self, text):
        self.kitty_cmd('send-text', text)

    def resize(self, width, height):
        self.kitty_cmd('resize-os-window', '--unit', 'pixels', '--width', str(width), '--height', str(height))

    def commands(self):
        """Graphics commands kitty parsed so far, in order: dicts of their keys (str values)."""
        self.dump.flush()
        out = []
        with open(self.dump.name, 'rb') as f:
            for line in f:
                if not line.startswith(b'graphics_command {'):
                    continue
                end = line.index(b'}')
                d = ast.literal_eval(line[len(b'graphics_command '):end + 1].decode('latin-1'))
                out.append({k: (v.decode('latin-1') if isinstance(v, bytes) else v) for k, v in d.items()})
        return out

    def screen_colors(self, colors):
        """How many pixels of each colour the root window shows now."""
        screen = grab(self.env['DISPLAY'], SCREEN)
        return {c: screen.count(c) for c in colors}

    def screenshot(self):
        """The root window now: (width, height, RGB bytes)."""
        raw = subprocess.run(['import', '-display', self.env['DISPLAY'], '-window', 'root', '-depth', '8', 'rgb:-'],
                             capture_output=True, check=True, timeout=20).stdout
        return SCREEN[0], SCREEN[1], raw

    def color_box(self, color, shot=None):
        """(left, top, right, bottom) in pixels of the pixels of `color` in a screenshot (a new one
        when `shot` is None), right and bottom exclusive; None when there are none."""
        w, h, raw = shot or self.screenshot()
        return box(raw, w, h, color)

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.dump.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def box(raw, w, h, color, tolerance=0):
    """Bounding box (left, top, right, bottom; right and bottom exclusive) of `color` (each
    channel within `tolerance`) in RGB bytes of w×h pixels, or None."""
    near = b''.join(b'[' + re.escape(bytes([max(0, v - tolerance)])) + b'-' + re.escape(bytes([min(255, v + tolerance)]))
                    + b']' for v in color)
    pat = re.compile(b'(?=' + near + b')', re.DOTALL)   # overlapping: keep the aligned ones
    left = top = right = bottom = None
    for y in range(h):
        row = raw[y * w * 3:(y + 1) * w * 3]
        xs = [m.start() // 3 for m in pat.finditer(row) if m.start() % 3 == 0]
        if not xs:
            continue
        top = y if top is None else top
        bottom = y + 1
        left = min(xs) if left is None else min(left, min(xs))
        right = max(xs) + 1 if right is None else max(right, max(xs) + 1)
    return None if top is None else (left, top, right, bottom)


def group_uploads(cmds):
    """Split the parsed commands into logical commands: a chunked transmission is one command
    (kitty prints each continuation chunk as a command of its own)."""
    out = []
    for c in cmds:
        if out and out[-1].get('more_pending'):
            out[-1]['more_pending'] = c['more'] == 1
            continue
        c = dict(c)
        c['more_pending'] = c['more'] == 1
        out.append(c)
    return out
