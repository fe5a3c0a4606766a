"""Seed inputs for the fuzz targets (fuzz/run.sh), written into a folder:
    python3 fuzz/seeds.py image-serve|alarm|camera FOLDER
Mutations start next to what each parser accepts, and next to the hostile inputs that
docs/interfaces.md names (ingress alarm, camera replies), so that a run reaches the deep
branches."""
import base64
import hashlib
import hmac
import json
import os
import sys
import uuid

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def image_serve():
    """Genuine URLs for the fuzz key (valid, expired, previous key) and inbox queries."""
    def url(key, notification, expiry):
        message = f"mowdeck.push-image.v1\n{notification}\n{expiry}".encode()
        mac = hmac.new(key, message, hashlib.sha256).digest()
        signature = base64.urlsafe_b64encode(mac).decode().rstrip("=")
        return f"/api/v1/notifications/push-images/{notification}?e={expiry}&s={signature}"
    seeds = []
    for index, (key, expiry) in enumerate([(b"fuzz-key", 1900000600), (b"fuzz-key", 1899999999),
                                            (b"fuzz-previous-key", 1900000000)]):
        seeds.append(url(key, str(uuid.UUID(int=index * 7919 + 1)), expiry))
    seeds += ["limit=50", "before=0b7c3b0e-1234-4a5b-8c9d-0123456789ab&limit=3"]
    return [seed.encode() for seed in seeds]


def alarm():
    """A subject, a newline, a payload: a few of each kind of line in the recorded fleet
    stream (valid, unknown kind, missing kind, not JSON), then hostile payloads."""
    seeds = []
    taken = {}
    path = os.path.join(ROOT, "Tests", "Fixtures", "fleet40.alarms.jsonl")
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            try:
                parsed = json.loads(record["payload"])
                group = parsed.get("kind", "<none>") + ("+reason" if "reason" in parsed else "")
            except ValueError:
                group = "<not json>"
            if taken.get(group, 0) < 3:
                taken[group] = taken.get(group, 0) + 1
                seeds.append(record["subject"].encode() + b"\n" + record["payload"].encode())

    subject = b"notifications.alarms.m-4711\n"

    def payload(occurred_at="2026-11-29T10:15:00Z", name='"Robbie"', reason='"trapped"',
                extra=""):
        return (
            '{"event_id": "7d7c3b0e-1234-4a5b-8c9d-0123456789ab", "mower_id": "m-4711", '
            f'"kind": "mower_lifted", "occurred_at": "{occurred_at}", "mower_name": {name}, '
            f'"reason": {reason}{extra}}}').encode()

    hostile = [
        payload(occurred_at="0000-06-01T00:00:00Z"),
        payload(occurred_at="2026-02-30T10:00:00Z"),
        payload(occurred_at="2024-02-29T23:59:59.999999+14:00"),
        payload(occurred_at="1969-12-31T23:59:59Z"),
        payload(occurred_at="1970-01-01T00:00:00-00:30"),
        payload(occurred_at="9999-12-31T23:59:59-23:59"),
        payload(occurred_at="2026-11-29 10:15:00.123+01"),
        payload(name='"Rob\\u0000bie"', reason='"\\u0000\\u001f\\u007f\\u0085"'),
        payload(name='"' + "n" * 100 + '"', reason='"' + "\u00e9" * 200 + '"'),
        payload(name='"a' + "\u0301" * 100 + '"'),
        payload(name='"\\ud800"'),
        payload(name='"\\udc00\\ud83d\\ude9c"'),
        payload(name="null", reason="12"),
        payload(extra=', "x": ' + "[" * 31 + "]" * 31),
        payload(extra=', "x": ' + "[" * 32 + "]" * 32),
        payload().replace(b"m-4711", b"m-4712"),
        payload().replace(b"Robbie", b"Rob\xc3\x28\xff"),
        payload().replace(b"Robbie", b"Rob\x00bie"),
        b"\xef\xbb\xbf" + payload(),
        b"[" * 5000,
        b'{"a":' * 1000,
        b'{"event_id": 1e400}',
        b"-0.0e-0",
        # What JSONDecoder alone would take in a field it skips, and a repeated field.
        payload(extra=', "x": "\\ud800"'),
        payload(extra=', "x": "Rob"').replace(b'"Rob"', b'"Rob\xc3\x28"'),
        payload(extra=', "x": [01, 1e999, "\\x41"],'),
        payload(extra=', "kind": "mower_exploded"'),
    ]
    return seeds + [subject + seed for seed in hostile]


def camera():
    """A content type, a newline, the reply: JPEGs complete and not, JSON errors of each
    kind and of every wrong shape."""
    with open(os.path.join(ROOT, "Tests", "Fixtures", "photos", "small.jpg"), "rb") as f:
        photo = f.read()
    with open(os.path.join(ROOT, "Tests", "Fixtures", "photos", "not-a-jpeg.png"), "rb") as f:
        png = f.read()
    small = photo[:2000] + b"\xff\xd9"
    json_type = b"application/json\n"
    seeds = [
        b"image/jpeg\n" + small,
        b"\n" + small,
        small,
        b"image/jpeg\n" + photo[:2000],
        b"image/jpeg\n\xff\xd8\xff\xd9",
        b"image/jpeg\n\xff\xd8\xff\x00\xff\xd9",
        b"image/png\n" + png[:1000],
        b"text/plain; charset=utf-8\nhello",
        json_type + b'{"error": "asleep"}',
        json_type + b'{"error": "no_camera"}',
        json_type + b'{"error": "busy"}',
        b'application/json; charset=utf-8\n{"error": "overheated"}',
        b'{"error": "busy"}',
        json_type + b'{"error": "x\\u0000y\\u001b[31m"}',
        json_type + b'{"error": "x\x00y\x1b"}',
        json_type + b'{"error": "' + b"e" * 3000 + b'"}',
        json_type + b'{"error": "a' + "\u0301".encode() * 500 + b'"}',
        json_type + b'{"error": "\\ud800"}',
        json_type + b'{"error": "\xc3\x28\xff"}',
        json_type + b'{"error": 5}',
        json_type + b'{"error": {"code": "asleep"}}',
        json_type + b"[]",
        json_type + b"[" * 5000,
        json_type + small,
    ]
    return seeds


def main():
    target, folder = sys.argv[1], sys.argv[2]
    seeds = {"image-serve": image_serve, "alarm": alarm, "camera": camera}[target]()
    os.makedirs(folder, exist_ok=True)
    for index, seed in enumerate(seeds):
        with open(os.path.join(folder, f"seed-{index}"), "wb") as f:
            f.write(seed)


if __name__ == "__main__":
    main()
