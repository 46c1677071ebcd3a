"""A pseudo-terminal that answers terminal queries like a given real terminal.

`run(args, profile)` starts the real binary on a pty and, as it writes, answers the queries a
profile knows (DA1, XTVERSION, kitty graphics `a=q`, XTSMGRAPHICS registers and largest sixel,
CSI 16 t, OSC 10/11/4), optionally byte by byte with pauses (`split`), with keys typed between the replies (`typed`),
or late. After the program exits it reports what is left unread in the tty's input queue:
replies the program should have consumed must not be there.
"""
import fcntl, os, pty, re, select, struct, subprocess, termios, time
import ptyharness as h

ST = b'\x1b\\'

# Real answers, as recorded from kitty 0.26.5 and xterm 379 (-ti vt340, 256 registers).
KITTY = {
    'da1': b'\x1b[?62;c',
    'xtversion': b'\x1bP>|kitty(0.26.5)' + ST,
    'kitty': b'\x1b_Gi=31;OK' + ST,
    'cell': b'\x1b[6;20;10t',
    'bg': b'\x1b]11;rgb:2020/2020/4040' + ST,
    'fg': b'\x1b]10;rgb:dddd/dddd/dddd' + ST,
    'palette': {i: b'\x1b]4;%d;rgb:%02x%02x/%02x%02x/%02x%02x' % ((i,) + tuple(v for c in c3 for v in (c, c))) + ST
                for i, c3 in enumerate([(0, 0, 0), (204, 4, 3), (25, 203, 0), (206, 203, 0), (13, 115, 204),
                                        (203, 30, 209), (13, 205, 205), (221, 221, 221), (118, 118, 118),
                                        (242, 32, 31), (35, 253, 0), (255, 253, 0), (26, 143, 255),
                                        (253, 40, 255), (20, 255, 255), (255, 255, 255)])},
}
XTERM_SIXEL = {
    'da1': b'\x1b[?63;1;2;4;6;9;15;22c',
    'xtversion': b'\x1bP>|XTerm(379)' + ST,
    'registers': b'\x1b[?1;0;256S',
    'sixelmax': b'\x1b[?2;0;1000;1000S',     # maxGraphicSize, its default
    'cell': b'\x1b[6;17;9t',
    'bg': b'\x1b]11;rgb:ffff/ffff/ffff\x07',
    'fg': b'\x1b]10;rgb:0000/0000/0000\x07',
}
# A terminal that draws the block glyphs itself (kitty from 0.40 draws octants): --symbols
# sextant and octant are used whatever fonts this machine has.
DRAWS_BLOCKS = {
    'da1': b'\x1b[?62;c',
    'xtversion': b'\x1bP>|kitty(0.40.0)' + ST,
}
# A terminal that answers DA1 and nothing else it is asked (VTE's answer, as GNOME Terminal
# gives it): no XTVERSION, no kitty graphics, no sixel.
DA1_ONLY = {
    'da1': b'\x1b[?65;1;9c',
}
SILENT = {}

QUERIES = [  # (pattern in the program's output, profile key)
    (re.compile(rb'\x1b\[0?c'), 'da1'),
    (re.compile(rb'\x1b\[>0?q'), 'xtversion'),
    (re.compile(rb'\x1b_G[^\x1b]*a=q[^\x1b]*\x1b\\'), 'kitty'),
    (re.compile(rb'\x1b\[\?1;1;0S'), 'registers'),
    (re.compile(rb'\x1b\[\?2;4;0S'), 'sixelmax'),
    (re.compile(rb'\x1b\[16t'), 'cell'),
    (re.compile(rb'\x1b\]11;\?'), 'bg'),
    (re.compile(rb'\x1b\]10;\?'), 'fg'),
    (re.compile(rb'\x1b\]4;(\d+);\?'), 'palette'),
]


class Result(h.Result):
    pass


PASSTHROUGH = re.compile(rb'\x1bPtmux;(?:\x1b\x1b|[^\x1b])*\x1b\\')


def _answers(buf, start, profile):
    """Replies for every query that ends at or after `start` in `buf`, in the order asked.
    Queries wrapped for tmux passthrough are not seen (tmux with allow-passthrough off)."""
    buf = PASSTHROUGH.sub(lambda m: b'.' * len(m.group(0)), buf)
    found = []
    for pat, key in QUERIES:
        for m in pat.finditer(buf):
            if m.end() <= start:
                continue
            if key == 'palette':
                r = profile.get('palette', {}).get(int(m.group(1)))
            else:
                r = profile.get(key)
                if callable(r):       # a reply made from the query (e.g. its image id)
                    r = r(m.group(0))
            if r:
                found.append((m.start(), r))
    return [r for _, r in sorted(found)]


def run(args, profile, cols=80, rows=24, xpixel=0, ypixel=0, split=0, typed=(), delay=0.0,
        env=None, timeout=20, actions=(), started=None):
    """split: write replies in pieces of this many bytes (0: each reply whole), with a pause
    after each reply's first piece so that the program reads it cut.
    typed: byte strings typed one after each reply (keys the program should keep or drop).
    delay: seconds between a query and its reply (a terminal far away: replies that fall due
    after the program exited are written then, to be found unread in `leftover`). actions: (seconds after the first
    output, bytes) typed later. started: called with the pid once the program runs."""
    e = dict(os.environ, TERM='xterm-256color', COLORTERM='truecolor', LANG='C.UTF-8')
    for k in ('LINES', 'COLUMNS', 'NO_COLOR', 'TMUX'):
        e.pop(k, None)
    if profile and not delay:
        # An answering terminal ends the round at its DA1 reply; the long budget only keeps a
        # loaded test machine (a slow Python responder) from racing the 100 ms default.
        e['ANIMPLAY_PROBE_MS'] = '3000'
    e.update(env or {})
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, xpixel, ypixel))
    before = h.stty_g(slave)
    t0 = time.monotonic()
    proc = subprocess.Popen([h.binary()] + list(args), stdin=slave, stdout=slave, stderr=slave,
                            env=e, start_new_session=True,
                            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
    if started:
        started(proc.pid)
    out = bytearray()
    answered = 0
    first = None
    pending = sorted(actions, key=lambda a: a[0])
    status = None
    keys = list(typed)
    due = []   # (time, reply) of delayed replies

    def answer(replies):
        nonlocal answered
        for reply in replies:
            pieces = [reply] if not split else [reply[i:i + split] for i in range(0, len(reply), split)]
            for i, p in enumerate(pieces):
                os.write(master, p)
                if i == 0 and len(pieces) > 1:
                    time.sleep(0.001)   # the program reads a cut reply
            answered += 1
            if keys:
                os.write(master, keys.pop(0))

    while True:
        if time.monotonic() - t0 > timeout:
            proc.kill()
        while due and due[0][0] <= time.monotonic():
            answer([due.pop(0)[1]])
        while pending and first is not None and time.monotonic() - first >= pending[0][0]:
            os.write(master, pending.pop(0)[1])
        r, _, _ = select.select([master], [], [], 0.01)
        if r:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b''
            if data:
                if first is None:
                    first = time.monotonic()
                start = len(out)
                out += data
                replies = _answers(bytes(out), start, profile)
                if delay:
                    # Latency, not slowness: each reply leaves `delay` after its query was seen.
                    due += [(time.monotonic() + delay, r) for r in replies]
                else:
                    answer(replies)
                continue
        if proc.poll() is not None:
            for when, reply in due:   # a far terminal still answers after the program is gone
                time.sleep(max(0.0, when - time.monotonic()))
                answer([reply])
            due = []
            while select.select([master], [], [], 0.05)[0]:
                try:
                    data = os.read(master, 65536)
                except OSError:
                    break
                if not data:
                    break
                out += data
            status = proc.returncode
            break
    wall = time.monotonic() - t0
    after = h.stty_g(slave)
    # What nobody read: left in the tty's input queue.
    os.set_blocking(slave, False)
    attrs = termios.tcgetattr(slave)
    attrs[3] &= ~(termios.ICANON | termios.ECHO)
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    try:
        leftover = os.read(slave, 65536)
    except (BlockingIOError, OSError):
        leftover = b''
    os.close(master); os.close(slave)
    import pyte
    screen = h.AltScreen(cols, rows)
    pyte.ByteStream(screen).feed(h.without_apc(bytes(out)))
    res = Result(status, bytes(out), screen, before, after, wall)
    res.leftover = leftover
    res.answered = answered
    return res
