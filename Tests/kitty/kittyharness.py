"""Runs animplay inside the real kitty (Debian's, under Xvfb) and watches what kitty does.

- `Display`: an Xvfb server on a display it picks itself (`-displayfd`, race-free; see the class).
- `Kitty`: `kitty --config NONE --dump-commands` running animplay through a small wrapper that
  records animplay's pid and exit status; kitty prints every graphics command it parsed on its
  stdout, which `commands()` parses back (keys only; payloads are checked by the unit tests).
  `send_text` types into the window (kitty remote control), `resize` resizes the OS window,
  `screen_colors()` counts the test colours in a screenshot of the root window (screenshot.py).
"""
import ast, os, shutil, signal, subprocess, sys, tempfile, time

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
signal.signal(signal.SIGINT, signal.SIG_IGN)     # Ctrl-C is for animplay; keep the wrapper
with open(pidfile, 'w') as f: f.write(str(p.pid))
rc = p.wait()
with open(rcfile + '.tmp', 'w') as f: f.write(str(rc))
os.rename(rcfile + '.tmp', rcfile)
time.sleep(120)
'''


class TerminalDied(AssertionError):
    """The terminal itself exited under a running test. The wrapper keeps the window open for two
    minutes after animplay exits, so this is the terminal failing (a crash), not animplay exiting.
    scripts/test reruns such a test once (`--only-rerun TerminalDied`); no other failure is rerun."""


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

    def exit_status(self, timeout=20):
        return int(self.wait_for(lambda: os.path.exists(self.rcfile) and open(self.rcfile).read(),
                                 timeout, what='animplay to exit'))


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
        self.env = dict(os.environ, DISPLAY=display.name, LIBGL_ALWAYS_SOFTWARE='1')
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

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.dump.close()
        shutil.rmtree(self.dir, ignore_errors=True)


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
