#!/usr/bin/env python3
"""Writes the sixel images of a saved play again, one at each frame's time: the least a player
can spend to send those bytes to a terminal (no decoding, no encoding, no decompression).

usage: paced-write.py SAVED --frames N --seconds S [--plays P]

SAVED is what a play wrote (Benchmarks/ptyrun.py --save): the bytes before its first sixel
image are written first, then images 0..N-1 at start + i·S/N (absolute deadlines, as a player's
clock), P times over, then whatever followed image N-1 (the restore). Each image goes out in one
write, which the kernel takes as the terminal reads it, as it does a player's. The kernel's output
processing (OPOST) is off while it writes, as animplay turns it off during a play
(`NcursesScreen.stopOutputProcessing`): with it on, the kernel looks at every byte, and a later
play of the medium video's bytes cost 0.40 s instead of 0.27 (medians of 3, interleaved, 29 Nov
2026): before that, this floor was measured too high.

`Benchmarks/fill-bench.py` runs it under the same pseudo-terminal as the players, with the bytes
of animplay's one sixel play: its CPU is the pseudo-terminal's cost of those bytes alone (the
kernel's, nearly all: system time), the floor under any later play that re-sends them.
"""
import argparse, os, re, termios, time

IMAGE = re.compile(rb'\x1bP[0-9;]*q')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('saved')
    ap.add_argument('--frames', type=int, required=True)
    ap.add_argument('--seconds', type=float, required=True)
    ap.add_argument('--plays', type=int, default=1)
    a = ap.parse_args()
    data = memoryview(open(a.saved, 'rb').read())
    starts = [m.start() for m in IMAGE.finditer(data)]
    if len(starts) < a.frames:
        raise SystemExit(f'paced-write: {a.saved}: {len(starts)} sixel images, fewer than {a.frames} frames')
    # Image i runs to the next image's start; the last frame's to the next image or the end.
    ends = starts[1:] + [len(data)]
    tail = ends[a.frames - 1]
    images = [data[starts[i]:ends[i]] for i in range(a.frames)]
    fd = 1
    modes = termios.tcgetattr(fd)
    modes[1] &= ~termios.OPOST
    termios.tcsetattr(fd, termios.TCSANOW, modes)
    write_all(fd, data[:starts[0]])
    t0 = time.monotonic()
    step = a.seconds / a.frames
    for play in range(a.plays):
        for i, image in enumerate(images):
            deadline = t0 + (play * a.frames + i) * step
            wait = deadline - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            write_all(fd, image)
    write_all(fd, data[tail:])


def write_all(fd, view):
    while len(view):
        n = os.write(fd, view)
        view = view[n:]


if __name__ == '__main__':
    main()
