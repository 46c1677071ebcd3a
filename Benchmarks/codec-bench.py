#!/usr/bin/env python3
"""JPEG and AVIF decode speed: animplay against libjpeg-turbo's djpeg and libavif's avifdec, in one run
on the same files (made here with ImageMagick and avifenc). Reports the median of N runs of each
command's user+system CPU and peak RSS (animplay: `info --decode`, which decodes and composites every
frame; djpeg: to PPM in /dev/null; avifdec: to a PNG-free Y4M file, or `--info` for sequences).

    python3 Benchmarks/codec-bench.py [--animplay .build/release/animplay] [--runs 5]
"""
import argparse, os, resource, shutil, statistics, subprocess, sys, tempfile, time


def measure(cmd, runs):
    cpu, rss, wall = [], [], []
    for _ in range(runs):
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, ru = os.wait4(p.pid, 0)
        wall.append(time.monotonic() - t0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f'failed: {" ".join(cmd)}')
        cpu.append(ru.ru_utime + ru.ru_stime)
        rss.append(ru.ru_maxrss / 1024)
    return statistics.median(cpu), statistics.median(wall), statistics.median(rss)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--animplay', default='.build/release/animplay')
    ap.add_argument('--runs', type=int, default=5)
    a = ap.parse_args()
    for tool in ('convert', 'djpeg', 'avifenc', 'avifdec'):
        if not shutil.which(tool):
            sys.exit(f'needs {tool} (scripts/install-deps)')
    work = tempfile.mkdtemp(prefix='animplay-codec-bench-')
    try:
        src = os.path.join(work, 'src.png')
        subprocess.run(['convert', '-size', '3000x2000', 'plasma:fractal', '-seed', '7', src], check=True,
                       env={**os.environ, 'MAGICK_SEED': '7'})
        jpg, jpgp = os.path.join(work, 'photo.jpg'), os.path.join(work, 'photo-progressive.jpg')
        subprocess.run(['convert', src, '-quality', '90', '-sampling-factor', '2x2', jpg], check=True)
        subprocess.run(['convert', src, '-quality', '90', '-interlace', 'Plane', jpgp], check=True)
        avif = os.path.join(work, 'photo.avif')
        subprocess.run(['avifenc', '-s', '8', '-j', '1', '-y', '420', src, avif], check=True, stdout=subprocess.DEVNULL)
        frames = []
        for i in range(10):
            f = os.path.join(work, f'f{i:02d}.png')
            subprocess.run(['convert', src, '-crop', '640x360+%d+%d' % (i * 60, i * 40), '+repage', f], check=True)
            frames.append(f)
        anim = os.path.join(work, 'anim.avif')
        subprocess.run(['avifenc', '-s', '8', '-j', '1', '--timescale', '1000', '--duration', '40', *frames, anim],
                       check=True, stdout=subprocess.DEVNULL)
        y4m = os.path.join(work, 'out.y4m')
        rows = [
            ('JPEG 3000x2000 4:2:0', jpg, ['djpeg', '-dct', 'int', '-outfile', '/dev/null', jpg]),
            ('JPEG 3000x2000 progressive', jpgp, ['djpeg', '-dct', 'int', '-outfile', '/dev/null', jpgp]),
            ('AVIF 3000x2000 4:2:0', avif, ['avifdec', '-j', '1', avif, y4m]),
            ('AVIF 640x360x10 sequence', anim, ['avifdec', '-j', '1', '--index', '9', anim, y4m]),
        ]
        print('| file | animplay info --decode CPU s | peer | peer CPU s | animplay peak RSS MB | peer peak RSS MB |')
        print('|---|---|---|---|---|---|')
        for name, path, peer in rows:
            ours = measure([a.animplay, 'info', '--decode', path], a.runs)
            theirs = measure(peer, a.runs)
            print(f'| {name} ({os.path.getsize(path) // 1024} KB) | {ours[0]:.3f} | {peer[0]} | {theirs[0]:.3f} '
                  f'| {ours[2]:.1f} | {theirs[2]:.1f} |')
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
