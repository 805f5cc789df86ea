#!/usr/bin/env python3
"""An independent client of capture's preview server, for the end-to-end tests.

Each subcommand checks what the server sends against HTTP and JPEG as written (multipart
boundaries, Content-Length, the JPEG's start and end markers and its frame header), prints one
JSON object with what it measured, and exits 1 with a line on stderr when a check fails.
Standard library only.
"""
import argparse
import json
import random
import socket
import sys
import threading
import time
import urllib.parse


class Failure(Exception):
    pass


def connect(url, headers=(), method="GET", timeout=10):
    """Sends a request for url; returns the socket and a buffered reader of the reply."""
    parts = urllib.parse.urlsplit(url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    lines = [f"{method} {target} HTTP/1.1", f"Host: {parts.netloc}"] + list(headers)
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
    return sock, sock.makefile("rb")


def read_head(reader):
    """The status code and the headers (lower-case names) of a reply or a part."""
    first = reader.readline()
    if not first:
        raise Failure("the connection closed before a reply")
    status = None
    if first.startswith(b"HTTP/"):
        status = int(first.split()[1])
        first = None
    headers = {}
    line = first if first is not None else reader.readline()
    while line not in (b"\r\n", b"\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
        line = reader.readline()
    return status, headers


def jpeg_size(data):
    """Width and height from a JPEG's frame header; checks the start and end markers."""
    if data[:2] != b"\xff\xd8":
        raise Failure("a part does not start with the JPEG start marker FFD8")
    if data[-2:] != b"\xff\xd9":
        raise Failure("a part does not end with the JPEG end marker FFD9")
    index = 2
    while index + 4 <= len(data):
        if data[index] != 0xFF:
            raise Failure(f"no JPEG marker at byte {index}")
        marker = data[index + 1]
        length = int.from_bytes(data[index + 2:index + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height = int.from_bytes(data[index + 5:index + 7], "big")
            width = int.from_bytes(data[index + 7:index + 9], "big")
            return width, height
        index += 2 + length
    raise Failure("no JPEG frame header (SOF)")


def read_parts(url, count, headers=()):
    """Reads count parts of a multipart MJPEG stream; returns their bytes and arrival times."""
    sock, reader = connect(url, headers)
    status, head = read_head(reader)
    if status != 200:
        raise Failure(f"/stream answered {status}")
    kind = head.get("content-type", "")
    if not kind.startswith("multipart/x-mixed-replace") or "boundary=" not in kind:
        raise Failure(f"not multipart/x-mixed-replace with a boundary: {kind}")
    boundary = kind.split("boundary=", 1)[1].strip().strip('"')
    parts, times = [], []
    while len(parts) < count:
        line = reader.readline()
        if line in (b"\r\n", b"\n"):
            line = reader.readline()
        if line.rstrip(b"\r\n") != b"--" + boundary.encode():
            raise Failure(f"part {len(parts) + 1} does not start with the boundary: {line[:80]!r}")
        _, part = read_head(reader)
        if part.get("content-type") != "image/jpeg":
            raise Failure(f"part {len(parts) + 1} is {part.get('content-type')}, not image/jpeg")
        if "content-length" not in part:
            raise Failure(f"part {len(parts) + 1} has no Content-Length")
        data = reader.read(int(part["content-length"]))
        times.append(time.monotonic())
        if len(data) != int(part["content-length"]):
            raise Failure("the stream ended inside a part")
        if reader.read(2) != b"\r\n":
            raise Failure(f"part {len(parts) + 1} is longer than its Content-Length")
        parts.append(data)
    sock.close()
    return parts, times


def stream(args):
    parts, times = read_parts(args.url, args.parts)
    sizes = {jpeg_size(part) for part in parts}
    # The rate over every interval after the first part: the first waits for the picture grid.
    rate = (len(times) - 2) / (times[-1] - times[1])
    result = {"parts": len(parts), "sizes": sorted(sizes), "rate": rate}
    if args.save:
        for index, part in enumerate(parts):
            with open(f"{args.save}-{index:03d}.jpg", "wb") as file:
                file.write(part)
    if args.rate and abs(rate - args.rate) > 0.1 * args.rate:
        raise Failure(f"{rate:.2f} pictures per second, not within 10 % of {args.rate}")
    if args.size and sizes != {tuple(int(v) for v in args.size.split("x"))}:
        raise Failure(f"pictures of {sorted(sizes)}, not {args.size}")
    return result


def get(args):
    headers = [f"Authorization: Bearer {args.bearer}"] if args.bearer else []
    method = getattr(args, "method", "GET")
    if method == "POST":
        headers.append("Content-Length: 0")
    sock, reader = connect(args.url, headers, method=method)
    status, head = read_head(reader)
    body = reader.read()
    sock.close()
    if args.output:
        with open(args.output, "wb") as file:
            file.write(body)
    result = {"status": status, "content_type": head.get("content-type"), "length": len(body),
              "cors": [name for name in head if name.startswith("access-control")]}
    if head.get("content-type") == "image/jpeg":
        result["size"] = list(jpeg_size(body))
    if head.get("content-type") == "application/json":
        result["json"] = json.loads(body)
    return result


def stall(args):
    """Asks for /stream, reads the reply's head, then reads nothing for the given seconds."""
    sock, reader = connect(args.url)
    status, _ = read_head(reader)
    time.sleep(args.seconds)
    sock.close()
    return {"status": status}


def parallel(args):
    """Reads parts from several clients at once; each must get all of them, whole."""
    results, errors = [], []

    def viewer():
        try:
            parts, _ = read_parts(args.url, args.parts)
            for part in parts:
                jpeg_size(part)
            results.append(len(parts))
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(str(error))

    threads = [threading.Thread(target=viewer) for _ in range(args.clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise Failure(f"{len(errors)} of {args.clients} viewers failed: {errors[0]}")
    return {"clients": len(results), "parts": results}


def bad_requests(rng):
    """Requests no server should take: junk, broken lines, huge heads, bad escapes, bad bytes."""
    yield b"\x00\x01\x02garbage\r\n\r\n"
    yield b"GET\r\n\r\n"
    yield b"GET / HTTP/9.9\r\n\r\n"
    yield b"GET nothing HTTP/1.1\r\n\r\n"
    yield b"get / HTTP/1.1\r\n\r\n"
    yield b"GET /%zz HTTP/1.1\r\n\r\n"
    yield b"GET /?token=%e2%28 HTTP/1.1\r\n\r\n"
    yield b"GET / HTTP/1.1\r\nNo colon here\r\n\r\n"
    yield b"GET / HTTP/1.1\r\n" + b"X-Long: " + b"a" * 20000 + b"\r\n\r\n"
    yield b"GET / HTTP/1.1\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(200)) + b"\r\n"
    yield b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\n\r\n"
    yield b"GET / HTTP/1.1\r\nHost: \xff\xfe\r\n\r\n"
    yield b"DELETE /stream HTTP/1.1\r\n\r\n"
    yield b"GET /../../etc/passwd HTTP/1.1\r\n\r\n"
    yield b"GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\n\r\n"
    yield b"POST /clip HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n"
    while True:
        size = rng.randint(1, 3000)
        junk = bytes(rng.randint(0, 255) for _ in range(size))
        yield junk + (b"\r\n\r\n" if rng.random() < 0.7 else b"")


def fuzz(args):
    """Sends args.count bad requests, some of them never finished; every answer must be a 4xx
    (or the connection closed), and the server must still answer /status.json after them."""
    rng = random.Random(args.seed)
    parts = urllib.parse.urlsplit(args.url)
    answers = {}
    generator = bad_requests(rng)
    for _ in range(args.count):
        request = next(generator)
        sock = socket.create_connection((parts.hostname, parts.port), timeout=10)
        reply = b""
        try:
            sock.sendall(request)
            # The client has said all it will: a head that never ends is answered at once. The
            # server may have answered and closed already (400 for a head over the limit).
            try:
                sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            reply = sock.recv(64)
        except (ConnectionResetError, BrokenPipeError, socket.timeout, OSError):
            pass
        finally:
            sock.close()
        code = reply.split(b" ")[1].decode() if reply.startswith(b"HTTP/1.") else "closed"
        if code not in ("400", "401", "404", "405", "408", "409", "closed"):
            raise Failure(f"{request[:60]!r} was answered {code}")
        answers[code] = answers.get(code, 0) + 1
    # A head over the limit is answered 400, and the client gets to read it.
    sock = socket.create_connection((parts.hostname, parts.port), timeout=10)
    sock.sendall(b"GET / HTTP/1.1\r\nX-Long: " + b"a" * 20000 + b"\r\n\r\n")
    reply = sock.recv(64)
    sock.close()
    if not reply.startswith(b"HTTP/1.0 400"):
        raise Failure(f"a 20 kB header got {reply[:20]!r}, not 400")
    answers["400 huge"] = 1
    # Silent clients: they connect and send nothing, or half a request line.
    silent = []
    for text in (b"", b"GET /sta"):
        sock = socket.create_connection((parts.hostname, parts.port), timeout=15)
        sock.sendall(text)
        silent.append(sock)
    started = time.monotonic()
    for sock in silent:
        reply = sock.recv(64)
        if not reply.startswith(b"HTTP/1.0 408"):
            raise Failure(f"a silent client got {reply[:20]!r}, not 408")
        sock.close()
    answers["408 silent"] = len(silent)
    waited = time.monotonic() - started
    status = get(argparse.Namespace(url=f"{args.url}/status.json", bearer=None, output=None))
    if status["status"] != 200:
        raise Failure(f"after the fuzzing /status.json answered {status['status']}")
    return {"answers": answers, "silent_wait": waited}


def events(args):
    """Reads server-sent events until the server ends them; returns the last status and the
    recording's events."""
    sock, reader = connect(args.url, timeout=30)
    status, head = read_head(reader)
    if status != 200 or head.get("content-type") != "text/event-stream":
        raise Failure(f"/events answered {status} {head.get('content-type')}")
    last, messages, name = None, [], None
    for line in reader:
        line = line.decode().rstrip("\n")
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            value = json.loads(line[6:])
            if name == "status":
                last = value
            else:
                messages.append(value)
        elif line == "":
            name = None
    sock.close()
    return {"last_status": last, "events": messages}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("stream")
    one.add_argument("url")
    one.add_argument("--parts", type=int, default=50)
    one.add_argument("--rate", type=float)
    one.add_argument("--size")
    one.add_argument("--save")
    one = commands.add_parser("get")
    one.add_argument("url")
    one.add_argument("--bearer")
    one.add_argument("--output")
    one.add_argument("--method", default="GET")
    one = commands.add_parser("stall")
    one.add_argument("url")
    one.add_argument("--seconds", type=float, default=5)
    one = commands.add_parser("parallel")
    one.add_argument("url")
    one.add_argument("--clients", type=int, default=10)
    one.add_argument("--parts", type=int, default=20)
    one = commands.add_parser("fuzz")
    one.add_argument("url")
    one.add_argument("--count", type=int, default=300)
    one.add_argument("--seed", type=int, default=26)
    one = commands.add_parser("events")
    one.add_argument("url")
    args = parser.parse_args()
    try:
        result = globals()[args.command](args)
    except (Failure, OSError) as error:
        print(f"preview_client {args.command}: {error}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
