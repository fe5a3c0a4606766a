"""A TLS push-image server for e2e-tls.sh: each notification id picks one behaviour.

Usage: push_image_server.py CERT KEY PHOTO PORT_FILE
"""

import http.server
import ssl
import sys
import threading
import time

PREFIX = "/api/v1/notifications/push-images/00000000-0000-4000-8000-00000000000"
first_seen = {}
lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, content_type=None, body=b"", headers=()):
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if not path.startswith(PREFIX) or len(path) != len(PREFIX) + 1:
            return self.send(400)
        case = path[-1]
        with lock:
            first = first_seen.setdefault(case, time.monotonic())
        if case == "1":  # uploaded 2.5 s after the first request
            if time.monotonic() - first < 2.5:
                return self.send(404, "application/json", b'{"error":"not ready"}')
            return self.send(200, "image/jpeg", PHOTO)
        if case == "2":
            return self.send(410)
        if case == "3":  # hangs
            time.sleep(20)
            return self.send(200, "image/jpeg", PHOTO)
        if case == "4":  # redirect to the photo: must not be followed
            return self.send(302, headers=[("Location", PREFIX + "1?e=1&s=x")])
        if case == "5":  # 11 MiB, over the cap
            return self.send(200, "image/jpeg", PHOTO[:3] + bytes(11 * 1024 * 1024) + b"\xff\xd9")
        if case == "6":
            return self.send(429, headers=[("Retry-After", "1")])
        if case == "7":
            return self.send(200, "text/html", b"<html></html>")
        return self.send(400)


cert, key, photo, port_file = sys.argv[1:5]
PHOTO = open(photo, "rb").read()
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
with open(port_file, "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
