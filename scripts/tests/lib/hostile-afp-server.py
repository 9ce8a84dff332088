#!/usr/bin/env python3
"""A scripted hostile AFP server for afpbench's tests (issue 10).

It speaks just enough DSI/AFP for afpbench to get as far as the misbehaviour
under test: DSIGetStatus, DSIOpenSession, FPLogin (any cleartext login
succeeds), FPOpenVol and FPLogout; every other AFP command is refused with
kFPAccessDenied (-5000), which stops a lantest run at its test directory.

  hostile-afp-server.py --port N [--quantum BYTES] [--name TEXT] [--uam TEXT]
                        [--delay S] [--trickle S] [--tickle-only]

  --quantum BYTES  server quantum advertised in DSIOpenSession (e.g. 4294967295)
  --name, --uam    server name and an extra UAM in DSIGetStatus (may hold ESC,
                   CR/LF, "::error::" ...: give them with $'...' quoting)
  --delay S        answer every request S seconds late
  --trickle S      send every reply one byte at a time, S seconds apart
  --tickle-only    never answer a request; send a DSITickle every 0.5 s

Prints "listening on PORT" on stdout once it accepts connections; runs until
killed.
"""
import argparse
import socket
import socketserver
import struct
import sys
import threading
import time

DSI_CLOSESESSION, DSI_COMMAND, DSI_GETSTATUS, DSI_OPENSESSION, DSI_TICKLE, DSI_WRITE = 1, 2, 3, 4, 5, 6
FP_LOGIN, FP_LOGOUT, FP_OPENVOL = 18, 20, 24
ACCESS_DENIED = -5000


def pstr(b):
    b = b[:255]
    return bytes([len(b)]) + b


def status_block(name, uam):
    """The server information block of DSIGetStatus, with a UTF-8 name."""
    flags = 0x0200  # UTF8ServerName
    head_len = 10 + len(pstr(name))
    head_len += head_len & 1
    offsets_len = 8  # signature, addresses, directory services, UTF-8 name
    machine = pstr(b"HostileAFP1.0")
    versions = bytes([2]) + pstr(b"AFP3.3") + pstr(b"AFP3.4")
    uams = bytes([2]) + pstr(b"Cleartxt Passwrd") + pstr(uam)
    off_machine = head_len + offsets_len
    off_versions = off_machine + len(machine)
    off_uams = off_versions + len(versions)
    off_utf8 = off_uams + len(uams)
    head = struct.pack(">HHHHH", off_machine, off_versions, off_uams, 0, flags) + pstr(name)
    if len(head) & 1:
        head += b"\0"
    return (head + struct.pack(">HHHH", 0, 0, 0, off_utf8) + machine + versions + uams
            + struct.pack(">H", len(name)) + name)


class Handler(socketserver.BaseRequestHandler):
    def send(self, data):
        opts = self.server.opts
        if opts.trickle:
            for i in range(len(data)):
                self.request.sendall(data[i:i + 1])
                time.sleep(opts.trickle)
        else:
            self.request.sendall(data)

    def reply(self, cmd, rid, code, payload=b""):
        if self.server.opts.delay:
            time.sleep(self.server.opts.delay)
        hdr = struct.pack(">BBHiII", 1, cmd, rid, code, len(payload), 0)
        self.send(hdr + payload)

    def recv_exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.request.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("peer closed")
            buf += chunk
        return buf

    def tickler(self, stop):
        while not stop.is_set():
            try:
                self.request.sendall(struct.pack(">BBHIII", 0, DSI_TICKLE, 0, 0, 0, 0))
            except OSError:
                return
            stop.wait(0.5)

    def handle(self):
        opts = self.server.opts
        stop = threading.Event()
        if opts.tickle_only:
            threading.Thread(target=self.tickler, args=(stop,), daemon=True).start()
        try:
            while True:
                flags, cmd, rid, _code, length, _res = struct.unpack(">BBHIII", self.recv_exact(16))
                if length > 1 << 20:
                    return
                payload = self.recv_exact(length) if length else b""
                if flags != 0 or cmd == DSI_TICKLE:
                    continue
                if opts.tickle_only:
                    continue
                if cmd == DSI_CLOSESESSION:
                    self.request.sendall(struct.pack(">BBHIII", 0, DSI_CLOSESESSION, rid, 0, 0, 0))
                    return
                if cmd == DSI_GETSTATUS:
                    self.reply(cmd, rid, 0, status_block(opts.name, opts.uam))
                elif cmd == DSI_OPENSESSION:
                    self.reply(cmd, rid, 0, bytes([0, 4]) + struct.pack(">I", opts.quantum))
                elif cmd in (DSI_COMMAND, DSI_WRITE):
                    afp = payload[0] if payload else 0
                    if afp in (FP_LOGIN, FP_LOGOUT):
                        self.reply(cmd, rid, 0)
                    elif afp == FP_OPENVOL:
                        # attributes and volume ID, as afpbench asks
                        self.reply(cmd, rid, 0, struct.pack(">HHH", 0x0021, 0, 1))
                    else:
                        self.reply(cmd, rid, ACCESS_DENIED)
        except (ConnectionError, OSError):
            return
        finally:
            stop.set()


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--quantum", type=int, default=1 << 20)
    ap.add_argument("--name", default="hostile")
    ap.add_argument("--uam", default="DHX2")
    ap.add_argument("--delay", type=float, default=0)
    ap.add_argument("--trickle", type=float, default=0)
    ap.add_argument("--tickle-only", action="store_true")
    opts = ap.parse_args()
    opts.name = opts.name.encode("utf-8", "surrogateescape")
    opts.uam = opts.uam.encode("utf-8", "surrogateescape")
    srv = Server(("127.0.0.1", opts.port), Handler)
    srv.opts = opts
    print(f"listening on {opts.port}", flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
