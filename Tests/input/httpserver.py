"""A small HTTP/1.1 server for the URL tests, on 127.0.0.1 with a port the OS chooses.

Routes (query parameters in brackets):
  /f/NAME (percent-decoded) [rate=B/s] [chunked=1] [drop=N] [gate=1] [gzip=1] [maxage=S] [nostore=1]
         [mustrevalidate=1] [smaxage=S] [expires=S from now, or a literal] [vary=V] [type=T]
      a file from the server's directory; rate limits the body; drop closes the connection
      after N body bytes; gate pauses after the first half of the body until `release()`.
      ETag and Last-Modified are sent; If-None-Match / If-Modified-Since give 304 (no body).
         [age=N] [etag=LITERAL] (replaces the ETag; may hold any byte, percent-encoded)
         [need=NAME:VALUE] (403 Forbidden unless the request has that header with that value)
  /redirect?to=URL, /loop (redirects to itself), /status/CODE, /html, /stall (headers, a few
      bytes, then nothing), /huge (announces 1 GB), /endless (chunked, never ends).
  /page [status=N] [reason=R] [type=T] [maxage=S]: an HTML page with that status line and
      Content-Type (any bytes: hostile reason phrases and types).
  /trickle [rate=B/s] [head=N]: a GIF of 1 MB announced, the first N bytes (default 0) at
      once, then `rate` bytes per second (default 2) until the client goes.
Every request is logged in `requests` (path, status, body bytes sent, request headers).
A response whose client went away before its end is logged in `aborted` (path, bytes sent,
request headers), and `aborted_event` is set.
With `hold_304` set, a 304 waits until `release_304()`; `holding_304` is set while it waits.
With `hold_200` set, a file's body stops after its first 16 bytes until the server closes.
"""
import email.utils, gzip, hashlib, os, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlparse, parse_qs, unquote


class Server:
    def __init__(self, root):
        self.root = root
        self.requests = []
        self.gate = threading.Event()
        self.lock = threading.Lock()
        self.stop_event = threading.Event()
        self.sending = 0            # body bytes sent so far by the latest /f/ response
        self.hold_304 = False
        self.holding_304 = threading.Event()
        self.gate_304 = threading.Event()
        self.hold_200 = False
        self.aborted = []
        self.aborted_event = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = 'HTTP/1.1'

            def log_message(self, *a):
                pass

            def do_GET(self):
                outer._handle(self)

        self.httpd = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path):
        return f'http://127.0.0.1:{self.port}{path}'

    def release(self):
        self.gate.set()

    def release_304(self):
        self.gate_304.set()

    def close(self):
        self.stop_event.set()
        self.gate.set()
        self.gate_304.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    def log(self, path, status, sent, headers):
        # Called before the last byte of a response goes out: the client can have the whole
        # response, exit, and the test read `requests` before this thread runs again (seen under
        # load: a second request missing from the log).
        with self.lock:
            self.requests.append({'path': path, 'status': status, 'sent': sent, 'headers': dict(headers)})

    def _handle(self, h):
        u = urlparse(h.path)
        q = {k: v[-1] for k, v in parse_qs(u.query).items()}
        p = u.path
        try:
            if p.startswith('/f/'):
                return self._file(h, p[3:], q)
            if p == '/redirect':
                return self._simple(h, 302, b'', {'Location': q['to']})
            if p == '/loop':
                return self._simple(h, 302, b'', {'Location': '/loop'})
            if p.startswith('/status/'):
                code = int(p.split('/')[2])
                return self._simple(h, code, b'error page\n', {'Content-Type': 'text/plain'})
            if p == '/html':
                body = b'<!DOCTYPE html><html><body><h1>Not Found here</h1></body></html>\n'
                return self._simple(h, 200, body, {'Content-Type': 'text/html; charset=utf-8'})
            if p == '/stall':
                h.send_response(200)
                h.send_header('Content-Type', 'image/gif'); h.send_header('Content-Length', '1000')
                h.end_headers(); h.wfile.write(b'GIF89a'); h.wfile.flush()
                self.log(p, 200, 6, h.headers)
                self.stop_event.wait(30)
                return
            if p == '/page':
                body = b'<!DOCTYPE html><html><body>hello</body></html>\n'
                h.send_response(int(q.get('status', 200)), q.get('reason'))
                h.send_header('Content-Type', q.get('type', 'text/html'))
                if 'maxage' in q: h.send_header('Cache-Control', 'max-age=' + q['maxage'])
                h.send_header('Content-Length', str(len(body)))
                h.end_headers(); h.wfile.write(body)
                self.log(p, int(q.get('status', 200)), len(body), h.headers)
                return
            if p == '/trickle':
                return self._trickle(h, float(q.get('rate', 2)), int(q.get('head', 0)))
            if p == '/huge':
                h.send_response(200)
                h.send_header('Content-Type', 'image/gif'); h.send_header('Content-Length', str(1 << 30))
                h.end_headers(); h.wfile.write(b'GIF89a'); h.wfile.flush()
                self.log(p, 200, 6, h.headers)
                return
            if p == '/endless':
                h.send_response(200)
                h.send_header('Content-Type', 'image/gif'); h.send_header('Transfer-Encoding', 'chunked')
                h.end_headers()
                sent = 0
                block = b'GIF89a' + bytes(65530)
                try:
                    while sent < (64 << 20) and not self.stop_event.is_set():
                        h.wfile.write(b'%x\r\n%s\r\n' % (len(block), block)); sent += len(block)
                except OSError:
                    pass
                self.log(p, 200, sent, h.headers)
                return
            return self._simple(h, 404, b'no such route\n', {'Content-Type': 'text/plain'})
        except (BrokenPipeError, ConnectionResetError):
            with self.lock:
                self.aborted.append({'path': p, 'sent': self.sending, 'headers': dict(h.headers)})
            self.aborted_event.set()

    def _trickle(self, h, rate, head):
        """A 1 MB GIF that arrives at `rate` bytes per second after its first `head` bytes."""
        data = open(os.path.join(self.root, 'trickle.gif'), 'rb').read() if os.path.exists(
            os.path.join(self.root, 'trickle.gif')) else b'GIF89a' + bytes(1 << 20)
        h.send_response(200)
        h.send_header('Content-Type', 'image/gif'); h.send_header('Content-Length', str(len(data)))
        h.end_headers()
        sent = 0
        try:
            h.wfile.write(data[:head]); h.wfile.flush(); sent = head
            while sent < len(data) and not self.stop_event.is_set():
                h.wfile.write(data[sent:sent + 1]); h.wfile.flush(); sent += 1
                self.sending = sent
                self.stop_event.wait(1 / rate)
        except OSError:
            pass
        self.log('/trickle', 200, sent, h.headers)

    def _simple(self, h, code, body, headers):
        h.send_response(code)
        for k, v in headers.items():
            h.send_header(k, v)
        h.send_header('Content-Length', str(len(body)))
        self.log(h.path, code, len(body), h.headers)   # before the response can be complete: see log()
        h.end_headers()
        h.wfile.write(body)

    def _file(self, h, name, q):
        path = os.path.join(self.root, unquote(name))   # as a file server decodes %20
        if not os.path.isfile(path):
            return self._simple(h, 404, b'no such file\n', {'Content-Type': 'text/plain'})
        if 'need' in q:
            name, _, value = q['need'].partition(':')
            if h.headers.get(name) != value:
                return self._simple(h, 403, b'forbidden\n', {'Content-Type': 'text/plain'})
        data = open(path, 'rb').read()
        etag = '"%s"' % hashlib.sha1(data).hexdigest()[:16]
        mtime = email.utils.formatdate(os.path.getmtime(path), usegmt=True)
        cache = []
        if 'maxage' in q: cache.append('max-age=' + q['maxage'])
        if 'nostore' in q: cache.append('no-store')
        if 'mustrevalidate' in q: cache.append('must-revalidate')
        if 'smaxage' in q: cache.append('s-maxage=' + q['smaxage'])
        if 'etag' in q: etag = q['etag']
        common = {'ETag': etag, 'Last-Modified': mtime}
        if 'age' in q: common['Age'] = q['age']
        if cache: common['Cache-Control'] = ', '.join(cache)
        if 'expires' in q:      # seconds from now, or a literal that is not a date
            e = q['expires']
            common['Expires'] = email.utils.formatdate(time.time() + int(e), usegmt=True) \
                if e.lstrip('-').isdigit() else e
        if 'vary' in q: common['Vary'] = q['vary']
        inm, ims = h.headers.get('If-None-Match'), h.headers.get('If-Modified-Since')
        if (inm and inm == etag) or (not inm and ims and ims == mtime):
            if self.hold_304:
                self.holding_304.set()
                self.gate_304.wait(60)
            h.send_response(304)
            for k, v in common.items():
                h.send_header(k, v)
            self.log(h.path, 304, 0, h.headers)
            h.end_headers()
            return
        body = gzip.compress(data) if q.get('gzip') else data
        h.send_response(200)
        h.send_header('Content-Type', q.get('type', 'image/gif'))
        for k, v in common.items():
            h.send_header(k, v)
        if q.get('gzip'): h.send_header('Content-Encoding', 'gzip')
        chunked = q.get('chunked') == '1'
        if chunked:
            h.send_header('Transfer-Encoding', 'chunked')
        else:
            h.send_header('Content-Length', str(len(body)))
        if not body:
            self.log(h.path, 200, 0, h.headers)
        h.end_headers()
        if self.hold_200:
            h.wfile.write(body[:16] if not chunked else b'10\r\n' + body[:16] + b'\r\n')
            h.wfile.flush()
            self.stop_event.wait(60)
            return
        rate = float(q.get('rate', 0))
        drop = int(q['drop']) if 'drop' in q else None
        gate_at = len(body) // 2 if q.get('gate') else None
        sent, t0, step = 0, time.monotonic(), 4096
        while sent < len(body):
            if drop is not None and sent >= drop:
                h.close_connection = True
                self.log(h.path, 200, sent, h.headers)
                h.wfile.flush()
                h.connection.shutdown(2)
                return
            if gate_at is not None and sent >= gate_at:
                self.gate.wait(60); gate_at = None
            n = min(step, len(body) - sent)
            if drop is not None: n = min(n, drop - sent) or n
            piece = body[sent:sent + n]
            if sent + n == len(body):
                self.log(h.path, 200, len(body), h.headers)
            if chunked:
                h.wfile.write(b'%x\r\n%s\r\n' % (len(piece), piece))
            else:
                h.wfile.write(piece)
            h.wfile.flush()
            sent += n
            self.sending = sent
            if rate > 0:
                ahead = t0 + sent / rate - time.monotonic()
                if ahead > 0: time.sleep(ahead)
        if chunked:
            h.wfile.write(b'0\r\n\r\n')


if __name__ == '__main__':
    import sys
    s = Server(sys.argv[1])
    print(s.port, flush=True)
    threading.Event().wait()
