"""A migrating Python user's day, sent the way the official Python clients send it.

Reads ./iron.json as the Python clients do (only the keys they know, `protocol` among them),
then queues, reserves, deletes and clears messages (MQ v3), caches items (cache v1), and
uploads a package, queues, retries and cancels tasks and schedules (worker v2). The request
shapes (headers, `null` for every unset option, bodies on DELETE) follow the clients; the
code is this project's own. Prints one line per step; exits 1 at the first failure.
"""
import io
import json
import sys
import zipfile

import requests

KNOWN_KEYS = ("host", "protocol", "port", "project_id", "token")


def load_config():
    config = {"protocol": "https", "port": 443}
    with open("iron.json") as f:
        raw = json.load(f)
    for key in KNOWN_KEYS:
        if key in raw:
            config[key] = raw[key]
    return config


class Api:
    def __init__(self, config, product, version, api_version):
        self.base = "%s://%s:%s/%s/projects/%s/" % (
            config["protocol"], config["host"], config["port"], api_version, config["project_id"])
        self.headers = {
            "Accept": "application/json",
            "User-Agent": "%s (version: %s)" % (product, version),
            "Authorization": "OAuth %s" % config["token"],
        }

    def call(self, method, path, body="", content_type="application/json"):
        headers = dict(self.headers)
        if content_type:
            headers["Content-Type"] = content_type
        if method == "POST":
            headers["Content-Length"] = str(len(body))
        r = requests.request(method, self.base + path, data=body, headers=headers)
        if r.status_code >= 300:
            raise SystemExit("FAIL %s %s -> %d %s" % (method, path, r.status_code, r.text))
        kind = r.headers.get("Content-Type", "text/plain").split(";")[0].lower()
        return json.loads(r.text) if kind == "application/json" else r.text


def step(name, ok, detail=""):
    if not ok:
        raise SystemExit("FAIL %s %s" % (name, detail))
    print("ok %s" % name)


def mq_flow(mq):
    mq.call("PUT", "queues/py-orders", json.dumps({}))
    posted = mq.call("POST", "queues/py-orders/messages",
                     json.dumps({"messages": [{"body": "first"}, {"body": ""}, {"body": "third"}]}))
    step("mq post", len(posted["ids"]) == 3, posted)
    reserved = mq.call("POST", "queues/py-orders/reservations", json.dumps({"n": 1}))
    message = reserved["messages"][0]
    step("mq reserve", message["body"] == "first", reserved)
    mq.call("DELETE", "queues/py-orders/messages/%s" % message["id"],
            json.dumps({"reservation_id": message["reservation_id"]}))
    step("mq delete", True)
    empty = mq.call("POST", "queues/py-orders/reservations", json.dumps({"n": 1}))
    step("mq empty body", empty["messages"][0]["body"] == "", empty)
    mq.call("PATCH", "queues/py-orders", json.dumps({"queue": {"message_timeout": 120}}))
    step("mq update", mq.call("GET", "queues/py-orders")["queue"]["message_timeout"] == 120)
    mq.call("DELETE", "queues/py-orders/messages", json.dumps({}))
    step("mq clear", mq.call("GET", "queues/py-orders")["queue"]["size"] == 0)
    mq.call("DELETE", "queues/py-orders", "", content_type=None)
    step("mq delete queue", True)


def cache_flow(cache):
    cache.call("PUT", "caches/py-cache/items/greeting", json.dumps({"value": "hello"}))
    step("cache get", cache.call("GET", "caches/py-cache/items/greeting")["value"] == "hello")
    cache.call("PUT", "caches/py-cache/items/greeting", json.dumps({"value": "other", "add": True}))
    step("cache add keeps", cache.call("GET", "caches/py-cache/items/greeting")["value"] == "hello")
    cache.call("PUT", "caches/py-cache/items/hits", json.dumps({"value": 1, "expires_in": None}))
    bumped = cache.call("POST", "caches/py-cache/items/hits/increment", json.dumps({"amount": 2}))
    step("cache increment", bumped["value"] == 3, bumped)
    cache.call("POST", "caches/py-cache/clear", "")
    step("cache clear", cache.call("GET", "caches/py-cache")["size"] == 0)
    cache.call("DELETE", "caches/py-cache", "", content_type=None)
    step("cache delete", True)


def package_zip():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("hello.py", "print('hello from python')\n")
    return buffer.getvalue()


def multipart(data, zip_bytes):
    boundary = "----------ferrum_python_flow_boundary"
    parts = [
        "--%s\r\nContent-Disposition: form-data; name=\"data\"\r\n\r\n%s\r\n" % (boundary, data),
        "--%s\r\nContent-Disposition: form-data; name=\"file\"; filename=\"hello.zip\"\r\n"
        "Content-Type: application/zip\r\n\r\n" % boundary,
    ]
    body = parts[0].encode() + parts[1].encode() + zip_bytes + ("\r\n--%s--\r\n" % boundary).encode()
    return "multipart/form-data; boundary=%s" % boundary, body


def worker_flow(worker):
    content_type, body = multipart(
        json.dumps({"name": "py-hello", "runtime": "python", "file_name": "hello.py"}), package_zip())
    code = worker.call("POST", "codes", body, content_type=content_type)
    step("worker upload", code.get("id"), code)
    task = {"name": "py-hello", "code_name": "py-hello", "payload": json.dumps({"n": 1}),
            "priority": None, "delay": None, "label": None, "cluster": None, "sync": None,
            "timeout": None}
    queued = worker.call("POST", "tasks", json.dumps({"tasks": [task]}))
    task_id = queued["tasks"][0]["id"]
    step("worker queue task with nulls", task_id, queued)
    retried = worker.call("POST", "tasks/%s/retry" % task_id, json.dumps({"delay": 1}))
    step("worker retry", retried["tasks"][0]["id"] != task_id, retried)
    worker.call("POST", "tasks/%s/cancel" % task_id, "", content_type=None)
    again = worker.call("POST", "tasks/%s/cancel" % task_id, "", content_type=None)
    step("worker cancel twice", again is not None)
    schedule = dict(task)
    del schedule["timeout"]
    schedule.update({"run_every": 3600, "start_at": "2030-01-01T00:00:00.123456+00:00"})
    created = worker.call("POST", "schedules", json.dumps({"schedules": [schedule]}))
    schedule_id = created["schedules"][0]["id"]
    step("worker schedule with nulls", schedule_id, created)
    worker.call("POST", "schedules/%s/cancel" % schedule_id, "", content_type=None)
    step("worker cancel schedule", True)


def main():
    config = load_config()
    steps = sys.argv[1:] or ["mq", "cache", "worker"]
    if "mq" in steps:
        mq_flow(Api(config, "iron_mq_python", "0.9", 3))
    if "cache" in steps:
        cache_flow(Api(config, "iron_cache_python", "0.3.2", 1))
    if "worker" in steps:
        worker_flow(Api(config, "iron_worker_python", "1.3.8", 2))
    print("all ok")


main()
