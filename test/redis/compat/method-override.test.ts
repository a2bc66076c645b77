import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { uniqueQueue } from '../../helpers/mq.js';
import { scaled } from '../../helpers/pace.js';
import { useTestServer } from '../../helpers/test-file.js';

// Issue 32: iron_mq_java sends DELETE and PATCH as POST with `X-HTTP-Method-Override` (its
// HttpURLConnection cannot send PATCH, nor a body with DELETE). Those requests are served as
// the method they name, before routing; the header means nothing on other methods or values.

const server = useTestServer();

interface Sent {
  status: number;
  type: string | undefined;
  body: any;
}

/**
 * One request the way the Java client's connection makes it: the method (POST standing for
 * DELETE and PATCH, with the override header), its User-Agent, the JSON type only when there is
 * a body, and Java's default Accept header.
 */
function javaShaped(method: string, urlPath: string, body?: string): Promise<Sent> {
  const overridden = method === 'DELETE' || method === 'PATCH';
  const headers: Record<string, string> = {
    Authorization: `OAuth ${server.token}`,
    'User-Agent': 'IronMQ Java Client',
    Accept: 'text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2',
    ...(overridden ? { 'X-HTTP-Method-Override': method } : {}),
    ...(body === undefined
      ? {}
      : { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) }),
  };
  return rawRequest(overridden ? 'POST' : method, urlPath, headers, body);
}

function rawRequest(method: string, urlPath: string, headers: Record<string, string>, body?: string): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const request = http.request(server.url + urlPath, { method, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          type: response.headers['content-type'],
          body: text && JSON.parse(text),
        }),
      );
    });
    request.on('error', reject);
    request.end(body);
  });
}

const queuePath = (queue: string, rest = '') => `/3/projects/${server.projectId}/queues/${queue}${rest}`;

async function postMessages(queue: string, count: number): Promise<void> {
  const messages = Array.from({ length: count }, (_, index) => ({ body: `m${index}` }));
  expect((await server.http.post(queuePath(queue, '/messages'), { messages })).status).toBe(201);
}

async function reserve(queue: string, n: number): Promise<{ id: string; reservation_id: string }[]> {
  const reserved = await javaShaped(
    'POST',
    queuePath(queue, '/reservations'),
    JSON.stringify({ n, timeout: 60, wait: 0 }),
  );
  expect(reserved.status).toBe(200);
  return reserved.body.messages;
}

describe("the Java client's request shapes, over real HTTP", () => {
  it('delete one message, delete several, touch and release', async () => {
    const queue = uniqueQueue('java');
    await postMessages(queue, 4);
    const [one, two, three, four] = await reserve(queue, 4);
    const touched = await javaShaped(
      'POST',
      queuePath(queue, `/messages/${one!.id}/touch`),
      JSON.stringify({ id: one!.id, timeout: 120, reservation_id: one!.reservation_id }),
    );
    expect([touched.status, touched.type]).toEqual([200, 'application/json']);
    const deleted = await javaShaped(
      'DELETE',
      queuePath(queue, `/messages/${one!.id}`),
      JSON.stringify({ reservation_id: touched.body.reservation_id }),
    );
    expect([deleted.status, deleted.body.msg]).toEqual([200, 'Deleted']);
    const released = await javaShaped(
      'POST',
      queuePath(queue, `/messages/${two!.id}/release`),
      JSON.stringify({ delay: 0, reservation_id: two!.reservation_id }),
    );
    expect(released.status).toBe(200);
    const batch = await javaShaped(
      'DELETE',
      queuePath(queue, '/messages'),
      JSON.stringify({
        ids: [three, four].map((message) => ({ id: message!.id, reservation_id: message!.reservation_id })),
      }),
    );
    expect([batch.status, batch.body.msg]).toEqual([200, 'Deleted']);
    const info = await server.http.get(queuePath(queue));
    expect(info.body.queue.size).toBe(1);
  });

  it('clear a queue (body {}), update it (PATCH), remove a subscriber, delete the queue (no body)', async () => {
    const queue = uniqueQueue('java');
    await postMessages(queue, 3);
    const cleared = await javaShaped('DELETE', queuePath(queue, '/messages'), '{}');
    expect([cleared.status, cleared.body.msg]).toEqual([200, 'Cleared']);

    const push = uniqueQueue('java-push');
    const subscribers = [
      { url: 'http://127.0.0.1:9/a', name: 'a' },
      { url: 'http://127.0.0.1:9/b', name: 'b' },
    ];
    const created = await javaShaped(
      'PUT',
      queuePath(push),
      JSON.stringify({ queue: { type: 'multicast', push: { subscribers } } }),
    );
    expect(created.status).toBe(200);
    const updated = await javaShaped(
      'PATCH',
      queuePath(push),
      JSON.stringify({
        queue: { type: 'multicast', push: { subscribers, retries: 5, retries_delay: 30, error_queue: '' } },
      }),
    );
    expect([updated.status, updated.body.queue?.push?.retries]).toEqual([200, 5]);
    const removed = await javaShaped(
      'DELETE',
      queuePath(push, '/subscribers'),
      JSON.stringify({ subscribers: [{ name: 'b' }] }),
    );
    expect(removed.status).toBe(200);
    const names = (await server.http.get(queuePath(push))).body.queue.push.subscribers.map(
      (s: { name: string }) => s.name,
    );
    expect(names).toEqual(['a']);

    const destroyed = await javaShaped('DELETE', queuePath(queue));
    expect([destroyed.status, destroyed.body.msg]).toEqual([200, 'Deleted']);
    expect((await server.http.get(queuePath(queue))).status).toBe(404);
  });

  it('errors reach the client as it reads them: exactly application/json, with a length, and {"msg"}', async () => {
    const missing = await javaShaped('DELETE', queuePath(uniqueQueue('java-none')));
    expect([missing.status, missing.type, missing.body.msg]).toEqual([404, 'application/json', 'Queue not found']);
  });
});

describe('what the override header does not do', () => {
  const headers = (value: string) => ({ Authorization: `OAuth ${server.token}`, 'X-HTTP-Method-Override': value });

  it('is ignored on a GET, a PUT and a DELETE: the request keeps its own method', async () => {
    const queue = uniqueQueue('override');
    await postMessages(queue, 1);
    const get = await rawRequest('GET', queuePath(queue), headers('DELETE'));
    expect([get.status, get.body.queue?.name]).toEqual([200, queue]);
    const put = await rawRequest(
      'PUT',
      queuePath(queue),
      { ...headers('DELETE'), 'Content-Type': 'application/json' },
      '{}',
    );
    expect([put.status, put.body.queue?.name]).toEqual([200, queue]);
    const del = await rawRequest('DELETE', queuePath(queue), headers('GET'));
    expect([del.status, del.body.msg]).toEqual([200, 'Deleted']);
  });

  it('an unknown value (or POST, HEAD, OPTIONS) leaves a POST a POST', async () => {
    const queue = uniqueQueue('override');
    await postMessages(queue, 1);
    for (const value of ['TRACE', 'HEAD', 'OPTIONS', 'POST', 'delete it']) {
      const response = await rawRequest('POST', queuePath(queue), headers(value));
      expect([response.status, response.body.msg], value).toEqual([
        405,
        `Method POST not allowed on ${queuePath(queue)}`,
      ]);
    }
    expect((await server.http.get(queuePath(queue))).status).toBe(200);
  });

  it('names the method in any letter case, and stands for GET too; inject() sees the same', async () => {
    const queue = uniqueQueue('override');
    await postMessages(queue, 1);
    const asGet = await rawRequest('POST', queuePath(queue), headers('get'));
    expect([asGet.status, asGet.body.queue?.size]).toEqual([200, 1]);
    const injected = await server.running.app.inject({
      method: 'POST',
      url: queuePath(queue),
      headers: headers('Delete'),
    });
    expect([injected.statusCode, injected.json().msg]).toEqual([200, 'Deleted']);
  });
});

/** A real HttpURLConnection program: a line per request in, a line per answer out. Written for this test. */
const JAVA_PROBE = String.raw`
import java.io.*;
import java.net.*;
import java.nio.charset.StandardCharsets;

public class Probe {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String[] parts = line.split("\t", 4);
      String method = parts[0], token = parts[1], url = parts[2], body = parts.length > 3 ? parts[3] : null;
      HttpURLConnection conn = (HttpURLConnection) new URL(url).openConnection();
      if (method.equals("DELETE") || method.equals("PATCH")) {
        conn.setRequestMethod("POST");
        conn.setRequestProperty("X-HTTP-Method-Override", method);
      } else {
        conn.setRequestMethod(method);
      }
      conn.setRequestProperty("Authorization", "OAuth " + token);
      conn.setRequestProperty("User-Agent", "IronMQ Java Client");
      if (body != null) {
        conn.setRequestProperty("Content-Type", "application/json");
        conn.setDoOutput(true);
      }
      conn.connect();
      if (body != null) {
        try (Writer out = new OutputStreamWriter(conn.getOutputStream(), StandardCharsets.UTF_8)) { out.write(body); }
      }
      int status = conn.getResponseCode();
      InputStream stream = status >= 400 ? conn.getErrorStream() : conn.getInputStream();
      String text = stream == null ? "" : new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      System.out.println(status + "\t" + conn.getContentType() + "\t" + conn.getContentLength() + "\t" + text);
    }
  }
}
`;

function hasJava(): boolean {
  return fs.existsSync('/usr/bin/java');
}

describe.runIf(hasJava())("through Java's own HttpURLConnection", () => {
  it(
    'deletes, patches, clears and destroys; errors come back as exactly application/json with a length',
    async () => {
      const queue = uniqueQueue('jvm');
      await postMessages(queue, 2);
      const [message] = await reserve(queue, 1);
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferrum-java-'));
      fs.writeFileSync(path.join(dir, 'Probe.java'), JAVA_PROBE);
      const line = (method: string, rest: string, body?: string) =>
        [method, server.token, server.url + queuePath(queue, rest), ...(body === undefined ? [] : [body])].join('\t');
      const input = [
        line('DELETE', `/messages/${message!.id}`, JSON.stringify({ reservation_id: message!.reservation_id })),
        line('PATCH', '', JSON.stringify({ queue: { message_timeout: 120 } })),
        line('DELETE', '/messages', '{}'),
        line('DELETE', ''),
        line('DELETE', ''),
      ].join('\n');
      const output = await new Promise<string>((resolve, reject) => {
        const child = execFile(
          '/usr/bin/java',
          [path.join(dir, 'Probe.java')],
          { timeout: scaled(60_000) },
          (error, stdout) => (error ? reject(error) : resolve(stdout)),
        );
        child.stdin?.end(input + '\n');
      });
      fs.rmSync(dir, { recursive: true, force: true });
      const answers = output
        .trim()
        .split('\n')
        .map((row) => row.split('\t'));
      expect(answers.map(([status]) => Number(status))).toEqual([200, 200, 200, 200, 404]);
      for (const [, type, length, text] of answers) {
        expect(type).toBe('application/json');
        expect(Number(length)).toBe(Buffer.byteLength(text!));
      }
      expect(JSON.parse(answers[1]![3]!).queue.message_timeout).toBe(120);
      expect(JSON.parse(answers[4]![3]!).msg).toBe('Queue not found');
    },
    scaled(90_000),
  );
});
