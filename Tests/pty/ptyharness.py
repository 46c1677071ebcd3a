"""Runs animplay in a pseudo-terminal and replays its output in pyte, a terminal emulator.

`run()` starts the real binary on a pty of a fixed size (TERM/COLORTERM set like a desktop
terminal), optionally sends keys or signals at given times, collects every byte, and returns a
`Result` with the exit status, the tty modes (`stty -g`) before and after, and an `AltScreen`
fed with the output: the normal screen at the end plus a snapshot of the alternate screen at
the moment the program left it (what was on screen after the last frame).
"""
import copy, fcntl, os, pty, re, resource, select, signal, struct, subprocess, termios, time
import pyte

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


def binary():
    if os.environ.get('ANIMPLAY_BIN'):      # another build (scripts/tsan: ThreadSanitizer's)
        return os.environ['ANIMPLAY_BIN']
    for cfg in ('release', 'debug'):
        p = os.path.join(ROOT, '.build', cfg, 'animplay')
        if os.path.exists(p) and os.environ.get('ANIMPLAY_BUILD', cfg) == cfg:
            return p
    return os.path.join(ROOT, '.build', 'debug', 'animplay')


class AltScreen(pyte.Screen):
    """pyte.Screen plus the xterm alternate screen (private mode 1049)."""
    ALT = 1049 << 5

    def __init__(self, cols, rows):
        super().__init__(cols, rows)
        self.saved = None
        self.alt_snapshots = []      # alternate-screen contents each time it was left
        self.alt_entries = 0

    def set_mode(self, *modes, **kw):
        if kw.get('private') and 1049 in modes:
            self.alt_entries += 1
            self.saved = (copy.deepcopy(self.buffer), copy.copy(self.cursor))
            self.erase_in_display(2)
            modes = tuple(m for m in modes if m != 1049)
        super().set_mode(*modes, **kw)

    def reset_mode(self, *modes, **kw):
        if kw.get('private') and 1049 in modes:
            self.alt_snapshots.append(copy.deepcopy(self.buffer))
            if self.saved:
                buf, cur = self.saved
                self.buffer.clear(); self.buffer.update(buf)
                self.cursor = cur
                self.saved = None
            modes = tuple(m for m in modes if m != 1049)
        super().reset_mode(*modes, **kw)


class State:
    """What `run` has seen so far, for actions that wait for an observable state."""
    def __init__(self):
        self.output = bytearray()
        self.stopped = False         # the child is stopped (job control)
        self.stopped_since = None    # time.monotonic() when it stopped
        self.stops = []              # per stop: {'offset': output length, 'stty': modes then}

    def since_stop(self):
        """Output written after the last stop (a stopped child writes nothing: all of it came
        after it was continued); empty before any stop."""
        return bytes(self.output[self.stops[-1]['offset']:]) if self.stops else b''


class Result:
    def __init__(self, status, output, screen, stty_before, stty_after, wall, maxrss_kb=0):
        self.maxrss_kb = maxrss_kb      # peak resident set size of the program (VmHWM)
        self.status = status            # exit code (negative: killed by that signal)
        self.output = output            # raw bytes
        self.screen = screen            # AltScreen after all output
        self.stty_before = stty_before
        self.stty_after = stty_after
        self.wall = wall


def vm_hwm_kb(pid):
    """Peak resident set size of a live process (its current program only), in KiB; 0 if gone."""
    try:
        with open(f'/proc/{pid}/status') as f:
            for line in f:
                if line.startswith('VmHWM:'):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def stty_g(fd):
    return subprocess.run(['stty', '-g'], stdin=fd, capture_output=True, text=True).stdout.strip()


def _child_setup(address_space=None):
    """The pty as controlling terminal; no core files from the tests that end animplay with
    SIGQUIT, SIGSEGV or SIGABRT; the address space capped if asked."""
    fcntl.ioctl(1, termios.TIOCSCTTY, 0)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if address_space is not None:
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))


def run(args, cols=80, rows=24, env=None, actions=(), timeout=30, term='xterm-256color',
        colorterm='truecolor', steps=(), exe=None, stdin=None, pixels=(0, 0), address_space=None):
    """stdin: a file or descriptor for standard input instead of the pty (which stays the
    controlling terminal, /dev/tty). actions: (when, bytes to type | signal number | callable)
    pairs. `when` is seconds counted from the first byte the program writes (its signal
    handlers and terminal are set up by then, so a slow start on a loaded machine does not race
    the actions), or a predicate on the `State` seen so far (output, job-control stops): such
    lists fire strictly in order, each once its predicate holds.

    steps: (condition, action) pairs done in order, each once its condition holds: a condition
    is bytes that must appear in the output written since the previous step's action, or a
    callable(new_output, all_output) -> bool. Tests act on observable states this way rather
    than at wall-clock offsets. A step whose condition never holds runs into `timeout`.

    exe: the program to run instead of the built animplay (an installed copy, a shell).

    address_space: a cap in bytes on the program's address space (RLIMIT_AS), so that a test of
    a memory bound fails fast instead of taking the machine's memory when the bound regresses."""
    # SWIFT_BACKTRACE: a debug build links the Swift runtime's backtracer, which would take the
    # fatal signals some tests send after animplay's rescue and wait at its prompt on the pty.
    e = dict(os.environ, TERM=term, LANG='C.UTF-8', SWIFT_BACKTRACE='enable=no')
    e.pop('LINES', None); e.pop('COLUMNS', None); e.pop('NO_COLOR', None)
    if colorterm is None:
        e.pop('COLORTERM', None)
    else:
        e['COLORTERM'] = colorterm
    e.update(env or {})
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, *pixels))   # pixels: window size in pixels
    before = stty_g(slave)
    t0 = time.monotonic()
    proc = subprocess.Popen([exe or binary()] + list(args), stdin=slave if stdin is None else stdin, stdout=slave,
                            stderr=slave, env=e, start_new_session=True,
                            preexec_fn=_child_setup if address_space is None else lambda: _child_setup(address_space))
    state = State()
    out = state.output
    watched = any(callable(a[0]) for a in actions)
    pending = list(actions) if watched else sorted(actions, key=lambda a: a[0])
    todo = list(steps)
    mark = 0                     # output offset where the current step's condition looks
    status = None; maxrss = 0; hwm = 0
    ready = None

    def perform(act):
        if isinstance(act, (bytes, bytearray)):
            os.write(master, act)
        elif callable(act):
            act(proc, master, slave)
        else:
            proc.send_signal(act)

    def due(when, since_ready):
        return when(state) if callable(when) else 0 <= when <= since_ready
    while True:
        now = time.monotonic() - t0
        since_ready = -1 if ready is None else time.monotonic() - ready
        while pending and due(pending[0][0], since_ready):
            perform(pending.pop(0)[1])
        while todo:
            cond, act = todo[0]
            new = bytes(out[mark:])
            if not (cond in new if isinstance(cond, (bytes, bytearray)) else cond(new, bytes(out))):
                break
            todo.pop(0)
            mark = len(out)
            perform(act)
        if now > timeout:
            proc.kill()
        if ready is not None:        # exec'd: its own memory, not the forked copy of ours
            hwm = max(hwm, vm_hwm_kb(proc.pid))
        r, _, _ = select.select([master], [], [], 0.02)
        if r:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b''
            out += data
            if data and ready is None:
                ready = time.monotonic()
            continue
        wp, st, ru = os.wait4(proc.pid, os.WNOHANG | os.WUNTRACED | os.WCONTINUED)
        if wp == proc.pid and os.WIFSTOPPED(st):
            state.stopped = True; state.stopped_since = time.monotonic()
            state.stops.append({'offset': len(out), 'stty': stty_g(slave)})
            continue
        if wp == proc.pid and os.WIFCONTINUED(st):
            state.stopped = False
            continue
        if wp == proc.pid:
            # ru_maxrss also counts the pytest process this child was forked from (Linux keeps
            # the pre-exec peak), so the program's own peak is VmHWM, sampled while it ran.
            status = os.waitstatus_to_exitcode(st); maxrss = hwm or ru.ru_maxrss
            proc.returncode = status
            # drain what is left
            while select.select([master], [], [], 0.05)[0]:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    break
                if not data:
                    break
                out += data
            break
    wall = time.monotonic() - t0
    after = stty_g(slave)
    os.close(master); os.close(slave)
    screen = AltScreen(cols, rows)
    pyte.ByteStream(screen).feed(without_apc(bytes(out)))
    r = Result(status, bytes(out), screen, before, after, wall, maxrss)
    r.stops = state.stops
    return r


def frames(n, marker=b'\x1b8'):
    """A step condition: `n` more frames drawn (each frame ends by restoring the cursor)."""
    return lambda new, _all: new.count(marker) >= n


def without_apc(data):
    """APC strings (ESC _ ... ESC \\, e.g. the kitty graphics query) and the DECRQSS / XTGETTCAP
    queries (ESC P $ q ..., ESC P + q ...) removed: terminals consume them, pyte would print
    their contents as text."""
    return re.sub(rb'\x1b_[^\x1b]*\x1b\\|\x1bP[$+]q[^\x1b]*\x1b\\', b'', data)


def resize(cols, rows):
    """An action that resizes the pty (the kernel sends SIGWINCH)."""
    def act(proc, master, slave):
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
    return act


# The probe's colour-depth query sets a direct colour to read it back (DECRQSS), then resets.
DEPTH_QUERY = b'\x1b[38;2;1;2;3m\x1bP$qm\x1b\\\x1b[m'


def drawn(output):
    """What animplay wrote to draw, without the probe's colour-depth query."""
    return bytes(output).replace(DEPTH_QUERY, b'')


def colour_sequence(output):
    """Dominant colour of each image update (the bytes between DECSC and DECRC)."""
    seq = []
    for chunk in re.findall(rb'\x1b7(.*?)\x1b8', output, re.S):
        m = re.findall(rb'[34]8;2;(\d+);(\d+);(\d+)', chunk)
        if m:
            seq.append(tuple(int(v) for v in max(set(m), key=m.count)))
    return seq


def hexrgb(c):
    """pyte colour ('rrggbb' or a name) as an (r, g, b) tuple, None for 'default'."""
    if c == 'default':
        return None
    if len(c) == 6:
        return tuple(int(c[i:i + 2], 16) for i in (0, 2, 4))
    return c


def halves(buffer, cols, rows):
    """Per cell (upper colour, lower colour) as the eye sees it, from a pyte buffer."""
    out = []
    for y in range(rows):
        line = buffer[y]
        row = []
        for x in range(cols):
            ch = line[x]
            fg, bg = hexrgb(ch.fg), hexrgb(ch.bg)
            if ch.data == '\u2580':
                row.append((fg, bg))
            elif ch.data == '\u2584':
                row.append((bg, fg))
            elif ch.data == '\u2588':
                row.append((fg, fg))
            else:
                row.append((bg, bg))
        out.append(row)
    return out
