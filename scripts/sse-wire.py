#!/usr/bin/env python3
"""The wire's truth for Server-Sent Events over h2c: what a capture of the
loopback saw, to check a load generator's first-event and gap times
against.

usage: sse-wire.py [--from UNIX_SECONDS] [--to UNIX_SECONDS] CAPTURE.pcap SERVER_PORT

CAPTURE is tcpdump's pcap (-i lo, nanosecond or microsecond stamps) of
h2c connections to SERVER_PORT, started at any point of their life: the
server's side of a connection is followed from its first segment that
holds whole HTTP/2 frames (the event sources write whole frames), the
client's from its first segment that does. A frame is timed by the
segment that brought its last byte. For every stream whose request
HEADERS the capture saw (the request's write), the first event is the
time to the first DATA frame that ends an event (the event's write); a
gap is the time between a stream's consecutive events. On loopback a
segment is stamped as the writer's system call sends it, so these are
the times between the two programs' writes: what a generator reports
over them is its own wait to read and to write.

--from and --to (seconds since the epoch, fractions allowed) take the
truth over a window, a generator's measured one: a first event whose
request was written in it, a gap that ended in it.

Prints one JSON object: streams, events, the first_event and gap
percentiles in microseconds (p50, p90, p99, max), and what could not be
followed (connections never in step, gaps in the capture).
"""
import decimal
import json
import struct
import sys

DATA, HEADERS = 0, 1
PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"


def packets(path):
    """Yields (nanoseconds, TCP source port, destination port, seq, payload)."""
    with open(path, "rb") as f:
        head = f.read(24)
        magic = struct.unpack("<I", head[:4])[0]
        if magic in (0xA1B2C3D4, 0xA1B23C4D):
            end = "<"
        elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
            end = ">"
            magic = struct.unpack(">I", head[:4])[0]
        else:
            sys.exit("sse-wire: %s is not a pcap file (tcpdump -w writes one)" % path)
        scale = 1 if magic == 0xA1B23C4D else 1000
        link = struct.unpack(end + "I", head[20:24])[0]
        skip = {1: 14, 113: 16, 276: 20, 0: 4, 101: 0}.get(link)
        if skip is None:
            sys.exit("sse-wire: link type %d not read (capture with -i lo)" % link)
        rec = struct.Struct(end + "IIII")
        while True:
            h = f.read(16)
            if len(h) < 16:
                return
            sec, frac, incl, _ = rec.unpack(h)
            pkt = f.read(incl)
            ip = pkt[skip:]
            if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6:
                continue
            ihl = (ip[0] & 15) * 4
            total = struct.unpack(">H", ip[2:4])[0]
            tcp = ip[ihl:total]
            if len(tcp) < 20:
                continue
            sport, dport, seq = struct.unpack(">HHI", tcp[:8])
            off = (tcp[12] >> 4) * 4
            payload = tcp[off:]
            if payload:
                yield sec * 1_000_000_000 + frac * scale, sport, dport, seq, payload


def split(b):
    """Cuts b into HTTP/2 frames, (type, flags, stream, payload) each, and
    returns them with the bytes they took (a frame cut short is left)."""
    out, i = [], 0
    while i + 9 <= len(b):
        n = int.from_bytes(b[i:i + 3], "big")
        if i + 9 + n > len(b):
            break
        sid = int.from_bytes(b[i + 5:i + 9], "big") & 0x7FFFFFFF
        out.append((b[i + 3], b[i + 4], sid, b[i + 9:i + 9 + n]))
        i += 9 + n
    return out, i


class Side:
    """One direction of one connection: its bytes in order, cut into frames."""

    def __init__(self):
        self.synced = False
        self.next_seq = None
        self.buf = b""
        self.lost = False

    def feed(self, seq, payload):
        """Takes a segment; returns the frames it completes as (type, flags,
        stream, payload)."""
        if self.lost:
            return []
        if self.next_seq is not None and seq != self.next_seq:
            d = (seq - self.next_seq) % (1 << 32)
            if d > (1 << 31):  # a segment seen before: take what is new
                old = (self.next_seq - seq) % (1 << 32)
                if old >= len(payload):
                    return []
                payload, seq = payload[old:], self.next_seq
            else:  # bytes the capture missed: this side can't be followed on
                self.lost = True
                return []
        self.next_seq = (seq + len(payload)) % (1 << 32)
        if self.synced:
            b = self.buf + payload
        else:
            b = payload[len(PREFACE):] if payload.startswith(PREFACE) else payload
        out, used = split(b)
        if not self.synced:
            # In step only from a segment of whole frames of known types.
            if used != len(b) or any(f[0] > 9 for f in out):
                return []
            self.synced = True
        self.buf = b[used:]
        return out


def percentiles(v):
    if not v:
        return {}
    v.sort()
    pick = lambda q: v[min(len(v) - 1, max(0, int(q * len(v) + 0.999999) - 1))]
    return {"p50": pick(0.5), "p90": pick(0.9), "p99": pick(0.99), "max": v[-1]}


def main():
    args, window = sys.argv[1:], [0, 1 << 63]
    while len(args) > 2 and args[0] in ("--from", "--to"):
        window[args[0] == "--to"] = int(decimal.Decimal(args[1]) * 10**9)
        args = args[2:]
    if len(args) != 2:
        sys.exit("usage: sse-wire.py [--from UNIX_SECONDS] [--to UNIX_SECONDS] CAPTURE.pcap SERVER_PORT")
    path, port = args[0], int(args[1])
    start, end = window
    sides = {}
    asked = {}  # (client port, stream) -> the request's time
    last = {}  # (client port, stream) -> its last event's time
    firsts, gaps = [], []
    events = 0
    for t, sport, dport, seq, payload in packets(path):
        if dport == port:
            key, client = (sport, 0), sport
        elif sport == port:
            key, client = (dport, 1), dport
        else:
            continue
        side = sides.get(key)
        if side is None:
            side = sides[key] = Side()
        for ftype, flags, sid, body in side.feed(seq, payload):
            s = (client, sid)
            if key[1] == 0:
                if ftype == HEADERS and sid:
                    asked[s] = t
                    last.pop(s, None)
                continue
            if ftype != DATA or s not in asked:
                continue
            pad = body[0] if flags & 0x8 and body else 0
            data = body[1:len(body) - pad] if flags & 0x8 else body
            n = data.count(b"\n\n")  # events this frame ends
            if n == 0:
                continue
            if start <= t <= end:
                events += n
                if s in last:
                    gaps.append((t - last[s]) // 1000)
                elif asked[s] >= start:
                    firsts.append((t - asked[s]) // 1000)
                gaps.extend([0] * (n - 1))
            last[s] = t
    print(json.dumps({
        "connections": len({k[0] for k in sides}),
        "never_in_step": sum(1 for s in sides.values() if not s.synced),
        "lost_bytes": sum(1 for s in sides.values() if s.lost),
        "streams": len(firsts), "events": events,
        "first_event": percentiles(firsts), "gap": percentiles(gaps),
    }))


if __name__ == "__main__":
    main()
