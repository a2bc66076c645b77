// A migrating Java user's day, sent the way the official Java clients send it: the MQ
// client's HttpURLConnection turns DELETE and PATCH into POST with X-HTTP-Method-Override,
// takes any 2xx, and reads an error's `msg` only when Content-Type is exactly
// "application/json"; the worker client's (Apache HttpClient) requests answer 200 or fail. The code is this project's own.
// Run as `java JavaFlow.java <scheme> <host> <port> <project_id> <token> <package.zip>`.
// Prints one line per step; exits 1 at the first failure.
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class JavaFlow {
    static String base;
    static String token;

    record Answer(int status, String contentType, String body) {}

    public static void main(String[] args) throws Exception {
        base = args[0] + "://" + args[1] + ":" + args[2];
        String project = args[3];
        token = args[4];
        byte[] zip = Files.readAllBytes(Path.of(args[5]));
        mqFlow("/3/projects/" + project + "/");
        workerFlow("/2/projects/" + project + "/", zip);
        System.out.println("all ok");
    }

    static void mqFlow(String p) throws IOException {
        mqOk("mq create", send("PUT", p + "queues/java-orders", "{}"));
        Answer posted = mqOk("mq post", send("POST", p + "queues/java-orders/messages",
                "{\"messages\":[{\"body\":\"first\",\"delay\":0},{\"body\":\"\",\"delay\":0}]}"));
        check("mq post ids", posted.body.contains("\"ids\""), posted);
        Answer reserved = mqOk("mq reserve", send("POST", p + "queues/java-orders/reservations", "{\"n\":1,\"timeout\":60}"));
        String id = field(reserved.body, "id");
        String reservation = field(reserved.body, "reservation_id");
        mqOk("mq delete (override)", send("DELETE", p + "queues/java-orders/messages/" + id,
                "{\"reservation_id\":\"" + reservation + "\"}"));
        mqOk("mq update (override)", send("PATCH", p + "queues/java-orders", "{\"queue\":{\"message_timeout\":90}}"));
        Answer info = mqOk("mq info", send("GET", p + "queues/java-orders", null));
        check("mq updated", info.body.contains("\"message_timeout\":90"), info);
        mqOk("mq clear (override)", send("DELETE", p + "queues/java-orders/messages", "{}"));
        Answer cleared = mqOk("mq info after clear", send("GET", p + "queues/java-orders", null));
        check("mq cleared", cleared.body.contains("\"size\":0"), cleared);
        mqOk("mq delete queue (override)", send("DELETE", p + "queues/java-orders", null));
        Answer gone = send("GET", p + "queues/java-orders", null);
        check("mq error is exactly application/json",
                gone.status == 404 && "application/json".equals(gone.contentType) && gone.body.contains("\"msg\""), gone);
    }

    static void workerFlow(String p, byte[] zip) throws IOException {
        Answer code = ok("worker upload", upload(p + "codes",
                "{\"name\":\"java-hello\",\"file_name\":\"run.sh\",\"runtime\":\"sh\"}", zip));
        check("worker upload id", field(code.body, "id") != null, code);
        Answer queued = ok("worker queue task", send("POST", p + "tasks",
                "{\"tasks\":[{\"code_name\":\"java-hello\",\"payload\":\"{}\",\"priority\":1,\"timeout\":60}]}"));
        String taskId = field(queued.body, "id");
        Answer retried = ok("worker retry", send("POST", p + "tasks/" + taskId + "/retry", "{\"delay\":5}"));
        check("worker retry links a new task", !retried.body.contains(taskId), retried);
        ok("worker cancel", send("POST", p + "tasks/" + taskId + "/cancel", null));
        ok("worker cancel again", send("POST", p + "tasks/" + taskId + "/cancel", null));
        Answer schedule = ok("worker schedule", send("POST", p + "schedules",
                "{\"schedules\":[{\"code_name\":\"java-hello\",\"payload\":\"{}\",\"run_every\":3600,"
                        + "\"start_at\":\"2030-01-01T00:00:00Z\",\"run_times\":2}]}"));
        ok("worker cancel schedule", send("POST", p + "schedules/" + field(schedule.body, "id") + "/cancel", null));
    }

    static Answer send(String method, String path, String body) throws IOException {
        HttpURLConnection conn = (HttpURLConnection) new URL(base + path).openConnection();
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
            try (OutputStream out = conn.getOutputStream()) {
                out.write(body.getBytes(StandardCharsets.UTF_8));
            }
        }
        return read(conn);
    }

    static Answer upload(String path, String data, byte[] zip) throws IOException {
        String boundary = "ferrumJavaFlowBoundary";
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"data\"\r\n"
                + "Content-Type: text/plain; charset=US-ASCII\r\n\r\n" + data + "\r\n").getBytes(StandardCharsets.UTF_8));
        body.write(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"java-hello.zip\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.UTF_8));
        body.write(zip);
        body.write(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        HttpURLConnection conn = (HttpURLConnection) new URL(base + path).openConnection();
        conn.setRequestMethod("POST");
        conn.setRequestProperty("Authorization", "OAuth " + token);
        conn.setRequestProperty("User-Agent", "iron_worker_java-1.0");
        conn.setRequestProperty("Content-Type", "multipart/form-data; boundary=" + boundary);
        conn.setDoOutput(true);
        try (OutputStream out = conn.getOutputStream()) {
            body.writeTo(out);
        }
        return read(conn);
    }

    static Answer read(HttpURLConnection conn) throws IOException {
        int status = conn.getResponseCode();
        InputStream in = status < 400 ? conn.getInputStream() : conn.getErrorStream();
        String text = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        return new Answer(status, conn.getContentType(), text);
    }

    static Answer mqOk(String step, Answer answer) {
        check(step, answer.status >= 200 && answer.status < 300, answer);
        return answer;
    }

    static Answer ok(String step, Answer answer) {
        check(step, answer.status == 200, answer);
        return answer;
    }

    static void check(String step, boolean ok, Answer answer) {
        if (!ok) {
            System.out.println("FAIL " + step + " -> " + answer.status + " " + answer.contentType + " " + answer.body);
            System.exit(1);
        }
        System.out.println("ok " + step);
    }

    static String field(String json, String name) {
        Matcher m = Pattern.compile("\"" + name + "\"\\s*:\\s*\"([^\"]*)\"").matcher(json);
        return m.find() ? m.group(1) : null;
    }
}
