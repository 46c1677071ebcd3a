"""Runs animplay in a pseudo-terminal and lets a test react to what is on screen: `watch(screen)`
is called after each read with the pyte screen so far, and may act (release a server's gate,
type a key). Decisions follow observed states, never the clock; `timeout` only stops a hang."""
import fcntl, os, pty, select, struct, subprocess, termios, time
import pyte
import ptyharness as h


def run(args, watch=None, cols=80, rows=24, env=None, timeout=60, stdin=None, started=None):
    """`started(proc)` is called once the process runs (to look at it from outside)."""
    e = dict(os.environ, TERM='xterm-256color', COLORTERM='truecolor', LANG='C.UTF-8')
    e.pop('LINES', None); e.pop('COLUMNS', None)
    e.update(env or {})
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
    before = h.stty_g(slave)
    proc = subprocess.Popen([h.binary()] + list(args), stdin=slave if stdin is None else stdin,
                            stdout=slave, stderr=slave, env=e, start_new_session=True,
                            preexec_fn=lambda: fcntl.ioctl(1, termios.TIOCSCTTY, 0))
    if started:
        started(proc)
    screen = h.AltScreen(cols, rows)
    stream = pyte.ByteStream(screen)
    out = bytearray()
    t0 = time.monotonic()
    status = None
    while status is None:
        if time.monotonic() - t0 > timeout:
            proc.kill()
        r, _, _ = select.select([master], [], [], 0.02)
        if r:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b''
            if data:
                out += data
                stream.feed(data)
                if watch:
                    watch(screen, master)
                continue
        wp, st = os.waitpid(proc.pid, os.WNOHANG)
        if wp == proc.pid:
            status = os.waitstatus_to_exitcode(st)
            while select.select([master], [], [], 0.05)[0]:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    break
                if not data:
                    break
                out += data; stream.feed(data)
    after = h.stty_g(slave)
    os.close(master); os.close(slave)
    return h.Result(status, bytes(out), screen, before, after, time.monotonic() - t0)


def colours_on(screen, cols=80, rows=24):
    """Set of (r, g, b) colours visible in half-block cells."""
    seen = set()
    for row in h.halves(screen.buffer, cols, rows):
        for u, l in row:
            seen.add(u); seen.add(l)
    seen.discard(None)
    return seen
