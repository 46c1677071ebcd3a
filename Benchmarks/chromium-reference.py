#!/usr/bin/env python3
"""Compares animplay's composited frames with Chromium's, for every case of the corpus.

Headless Chromium (Debian's `chromium`) loads a page from a loopback server started here; the
page decodes each corpus input with WebCodecs' ImageDecoder (premultiplyAlpha 'none',
colorSpaceConversion 'none': the composited frames as Chromium's image decoders make them,
before premultiplying for display and without colour management, which the corpus ignores too)
and posts every frame's pixels back. Each frame is then compared with `animplay dump --format
pam` (straight RGBA): the report counts identical frames per format and lists the cases that
differ, with the largest channel difference and how many pixels differ (colour is compared only
where alpha > 0: a fully transparent pixel has no colour to show).

    apt-get install chromium
    python3 Benchmarks/chromium-reference.py [--animplay .build/release/animplay] [--only ID-substring]
    python3 Benchmarks/chromium-reference.py --file x.gif --file y.png     # any files instead of the corpus

Not part of the test run: Chromium is a large install, and the corpus's own expectations are
what the tests hold the decoders to. This script is how those expectations were checked
against a browser.
"""
import argparse, csv, http.server, json, os, shutil, socketserver, subprocess, sys, tempfile, threading, time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
CORPUS = os.path.join(ROOT, 'Tests', 'Fixtures', 'corpus')
MIME = {'gif': 'image/gif', 'apng': 'image/png', 'png': 'image/png', 'webp': 'image/webp', 'jpeg': 'image/jpeg',
        'avif': 'image/avif'}

PAGE = r'''<!doctype html><meta charset="utf-8"><script>
async function post(path, body) { await fetch(path, {method: 'POST', body}); }
(async () => {
  const cases = await (await fetch('/list')).json();
  for (const c of cases) {
    try {
      const data = await (await fetch('/input/' + c.id)).arrayBuffer();
      const dec = new ImageDecoder({data, type: c.mime, premultiplyAlpha: 'none', colorSpaceConversion: 'none'});
      await dec.tracks.ready;
      await dec.completed;
      const n = dec.tracks.selectedTrack ? dec.tracks.selectedTrack.frameCount : 1;
      const meta = {frames: n, repetitionCount: dec.tracks.selectedTrack ? String(dec.tracks.selectedTrack.repetitionCount) : null, list: []};
      for (let i = 0; i < n; i++) {
        let r;
        try { r = await dec.decode({frameIndex: i, completeFramesOnly: false}); }
        catch (e) { meta.list.push({error: String(e)}); break; }
        const f = r.image;
        // JPEG and AVIF frames come as YUV planes: Chromium converts them to RGBA here.
        const opts = ['RGBA', 'RGBX', 'BGRA', 'BGRX'].includes(f.format) ? {} : {format: 'RGBA', colorSpace: 'srgb'};
        const buf = new Uint8Array(f.allocationSize(opts));
        await f.copyTo(buf, opts);
        meta.list.push({format: opts.format || f.format, native: f.format, w: f.visibleRect.width, h: f.visibleRect.height,
                        duration: f.duration, rotation: f.rotation, flip: f.flip});
        const planar = !['RGBA', 'RGBX', 'BGRA', 'BGRX'].includes(f.format);
        if (c.mime === 'image/jpeg' || (['image/webp', 'image/avif'].includes(c.mime) && n === 1 && planar)) {
          // A JPEG (or a lossy WebP or opaque AVIF still, which ImageDecoder also hands out as YUV
          // planes, converted by copyTo's own chroma upsampling): what an <img> shows. ImageDecoder gives YUV planes with a rotation to apply, and
          // converting those (copyTo) is not how a page draws a JPEG; createImageBitmap decodes it as
          // <img> does (libjpeg-turbo to RGB, EXIF orientation applied) and the 2D canvas reads it back.
          const bmp = await createImageBitmap(new Blob([data], {type: c.mime}),
              {colorSpaceConversion: 'none', premultiplyAlpha: 'none', imageOrientation: 'from-image'});
          const cv = new OffscreenCanvas(bmp.width, bmp.height);
          const cx = cv.getContext('2d');
          cx.drawImage(bmp, 0, 0);
          const px = cx.getImageData(0, 0, bmp.width, bmp.height).data;
          const last = meta.list[meta.list.length - 1];
          last.format = 'RGBA'; last.w = bmp.width; last.h = bmp.height; last.via = 'createImageBitmap';
          await post('/frame/' + c.id + '/' + i, px);
        } else {
          await post('/frame/' + c.id + '/' + i, buf);
        }
        f.close();
      }
      dec.close();
      await post('/meta/' + c.id, JSON.stringify(meta));
    } catch (e) {
      await post('/meta/' + c.id, JSON.stringify({error: String(e)}));
    }
  }
  await post('/done', '');
})();
</script>'''


def load_cases(only):
    with open(os.path.join(CORPUS, 'cases.tsv')) as f:
        rows = list(csv.DictReader(f, delimiter='\t'))
    return [r for r in rows if not only or only in r['id']]


def file_case(path):
    """A case for a file outside the corpus (format from its first bytes)."""
    head = open(path, 'rb').read(16)
    fmt = ('gif' if head[:4] == b'GIF8' else 'webp' if head[8:12] == b'WEBP' else 'jpeg' if head[:2] == b'\xff\xd8'
           else 'avif' if head[4:8] == b'ftyp' else 'png')
    return {'id': os.path.splitext(os.path.basename(path))[0], 'input': os.path.abspath(path), 'format': fmt}


def chromium_frames(cases, out, timeout):
    """Runs headless Chromium against a loopback server; frames land in out/ID/N.raw."""
    by_id = {c['id']: c for c in cases}
    done = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def reply(self, body, ctype):
            self.send_response(200)
            self.send_header('Content-Type', ctype)
            self.send_header('Content-Length', str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path == '/':
                self.reply(PAGE.encode(), 'text/html')
            elif self.path == '/list':
                self.reply(json.dumps([{'id': c['id'], 'mime': MIME[c['format']]} for c in cases]).encode(),
                           'application/json')
            elif self.path.startswith('/input/'):
                c = by_id[self.path[len('/input/'):]]
                with open(os.path.join(CORPUS, c['input']), 'rb') as f:
                    self.reply(f.read(), 'application/octet-stream')
            else:
                self.send_error(404)

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
            parts = self.path.strip('/').split('/')
            if parts[0] == 'frame':
                os.makedirs(os.path.join(out, parts[1]), exist_ok=True)
                with open(os.path.join(out, parts[1], parts[2] + '.raw'), 'wb') as f:
                    f.write(body)
            elif parts[0] == 'meta':
                os.makedirs(os.path.join(out, parts[1]), exist_ok=True)
                with open(os.path.join(out, parts[1], 'meta.json'), 'wb') as f:
                    f.write(body)
            elif parts[0] == 'done':
                done.set()
            self.reply(b'', 'text/plain')

    class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
        daemon_threads = True

    server = Server(('127.0.0.1', 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    profile = tempfile.mkdtemp(prefix='animplay-chromium-')
    browser = subprocess.Popen(['chromium', '--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run',
                                f'--user-data-dir={profile}', f'http://127.0.0.1:{server.server_address[1]}/'],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        if not done.wait(timeout):
            sys.exit(f'chromium did not finish within {timeout} s')
    finally:
        browser.terminate()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            browser.kill()
        server.shutdown()
        shutil.rmtree(profile, ignore_errors=True)


def to_rgba(raw, fmt):
    """WebCodecs pixel formats to straight RGBA bytes."""
    n = len(raw) // 4
    out = bytearray(raw)
    if fmt in ('BGRA', 'BGRX'):
        out[0::4], out[2::4] = raw[2::4], raw[0::4]
    if fmt in ('RGBX', 'BGRX'):
        out[3::4] = b'\xff' * n
    return bytes(out)


_corpus_tools = {}


def corpus_tool(name):
    """A script of the corpus (check.py, webp-expected.py) loaded as a module, once."""
    if name not in _corpus_tools:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from script_module import load
        _corpus_tools[name] = load(os.path.join(CORPUS, name))
    return _corpus_tools[name]


def read_pam(path):
    return corpus_tool('check.py').read_pam(path)


def write_png(path, w, h, rgba):
    """Straight RGBA PNG, as the corpus keeps its expected frames."""
    corpus_tool('webp-expected.py').png(path, w, h, rgba)


def compare(ours, theirs):
    """(pixels that differ, largest channel difference); colour only where alpha > 0."""
    differ, worst = 0, 0
    for i in range(0, len(ours), 4):
        a, b = ours[i:i + 4], theirs[i:i + 4]
        if a == b:
            continue
        d = abs(a[3] - b[3])
        if a[3] or b[3]:
            d = max(d, abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2]))
        if d:
            differ += 1
            worst = max(worst, d)
    return differ, worst


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--animplay', default=os.path.join(ROOT, '.build', 'release', 'animplay'))
    ap.add_argument('--only', help='cases whose id contains this')
    ap.add_argument('--file', action='append', default=[], help='compare this file instead of the corpus (repeatable)')
    ap.add_argument('--write-png', metavar='DIR', help="also write Chromium's frames as DIR/ID/frame-NNNN.png")
    ap.add_argument('--timeout', type=float, default=600)
    ap.add_argument('--keep', help='keep the frames (chromium/ID/N.raw, ours/ID/*.pam) in this folder')
    a = ap.parse_args()
    if not shutil.which('chromium'):
        sys.exit('needs chromium (apt-get install chromium)')
    cases = [file_case(f) for f in a.file] if a.file else [c for c in load_cases(a.only) if c['format'] in MIME]
    work = a.keep or tempfile.mkdtemp(prefix='animplay-chromium-ref-')
    try:
        t0 = time.monotonic()
        chromium_frames(cases, os.path.join(work, 'chromium'), a.timeout)
        print(f'chromium decoded {len(cases)} cases in {time.monotonic() - t0:.1f} s', file=sys.stderr)
        totals, rows = {}, []
        for c in cases:
            fmt = c['format']
            t = totals.setdefault(fmt, {'cases': 0, 'same cases': 0, 'frames': 0, 'same frames': 0, 'same delays': 0,
                                       'same plays': 0, 'skipped': 0})
            t['cases'] += 1
            meta_path = os.path.join(work, 'chromium', c['id'], 'meta.json')
            meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {'error': 'no answer'}
            ours_dir = os.path.join(work, 'ours', c['id'])
            p = subprocess.run([a.animplay, 'dump', os.path.join(CORPUS, c['input']), '-o', ours_dir, '--format', 'pam'],
                               capture_output=True, text=True)
            ours = sorted(f for f in os.listdir(ours_dir)) if os.path.isdir(ours_dir) else []
            theirs = [m for m in meta.get('list', []) if 'error' not in m]
            if 'error' in meta or not ours:
                t['skipped'] += 1
                them = meta.get('error') or f"{len(theirs)} frames"
                rows.append((c['id'], f"not compared: chromium {them}; animplay exit {p.returncode}"))
                continue
            notes, same_case = [], len(ours) == len(theirs)
            info = subprocess.run([a.animplay, 'info', os.path.join(CORPUS, c['input']), '--json'],
                                  capture_output=True, text=True)
            if info.returncode == 0 and len(theirs) >= 2:   # a still has no delays or plays that show
                js = json.loads(info.stdout)
                # WebCodecs gives the stored durations (µs) and the repetition count ('Infinity': forever).
                # Whole milliseconds both sides: a 30 fps AVIF's 33.333 ms is 33333 µs in WebCodecs.
                delays = [round(f['delayMs']) for f in js['frames']][:len(theirs)]
                if [round(m['duration'] / 1000) if m['duration'] is not None else 0 for m in theirs] == delays:
                    t['same delays'] += 1
                else:
                    notes.append(f"delays ms: animplay {delays[:6]}, chromium {[m['duration'] and m['duration'] // 1000 for m in theirs][:6]}")
                rep = meta.get('repetitionCount')
                plays = None if rep in (None, 'null') else 0 if rep == 'Infinity' else int(rep) + 1
                if plays is None or plays == js['plays']:
                    t['same plays'] += 1
                else:
                    notes.append(f"plays: animplay {js['plays']}, chromium {plays}")
            if len(ours) != len(theirs):
                notes.append(f'frames: animplay {len(ours)}, chromium {len(theirs)}')
            for i, (name, m) in enumerate(zip(ours, theirs)):
                w, h, px = read_pam(os.path.join(ours_dir, name))
                t['frames'] += 1
                if (w, h) != (m['w'], m['h']):
                    notes.append(f'frame {i}: size {w}x{h} vs {m["w"]}x{m["h"]}')
                    same_case = False
                    continue
                raw = open(os.path.join(work, 'chromium', c['id'], f'{i}.raw'), 'rb').read()
                theirs_px = to_rgba(raw[:w * h * 4], m['format'])
                if a.write_png:
                    os.makedirs(os.path.join(a.write_png, c['id']), exist_ok=True)
                    write_png(os.path.join(a.write_png, c['id'], f'frame-{i:04d}.png'), w, h, theirs_px)
                differ, worst = compare(px, theirs_px)
                if differ:
                    notes.append(f'frame {i}: {differ} px differ, max {worst}')
                    same_case = False
                else:
                    t['same frames'] += 1
            t['same cases'] += same_case
            if notes:
                rows.append((c['id'], '; '.join(notes[:4]) + (' ...' if len(notes) > 4 else '')))
        print('| format | cases | identical cases | frames compared | identical frames | same delays | same plays | not compared |')
        print('|---|---|---|---|---|---|---|---|')
        for fmt, t in totals.items():
            print(f"| {fmt} | {t['cases']} | {t['same cases']} | {t['frames']} | {t['same frames']} | {t['same delays']} "
                  f"| {t['same plays']} | {t['skipped']} |")
        if rows:
            print('\n| case | difference |\n|---|---|')
            for case_id, note in rows:
                print(f'| {case_id} | {note} |')
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
