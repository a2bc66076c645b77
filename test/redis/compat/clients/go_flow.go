// A migrating Go user's day, sent the way the official Go clients send it.
//
// Reads ./iron.json as the Go clients do (host, scheme, port as a number, project_id, token).
// Two client styles: iron_go3 (MQ v3, cache, worker v2) sends a JSON body on every request,
// "{}" when there is nothing to send, with its length, and its own Accept-Encoding value;
// iron_go (MQ v1) streams bodies (chunked, no length) and sends Content-Type only with one.
// Uploads are multipart streamed through a pipe: "data" (JSON and a newline), then "file".
// The code is this project's own. Prints one line per step; exits 1 at the first failure.
// Steps (arguments): day (queues, push queue, cache, upload and queue a task) or run (upload,
// run a task, read its log as soon as it is no longer queued or running).
package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"runtime"
	"strings"
	"time"
)

type settings struct {
	Host      string  `json:"host"`
	Scheme    string  `json:"scheme"`
	Port      float64 `json:"port"`
	ProjectID string  `json:"project_id"`
	Token     string  `json:"token"`
}

var config settings

func fail(format string, args ...interface{}) {
	fmt.Printf("FAIL "+format+"\n", args...)
	os.Exit(1)
}

func step(name string, ok bool, detail interface{}) {
	if !ok {
		fail("%s %v", name, detail)
	}
	fmt.Println("ok " + name)
}

func url(version int, path string) string {
	return fmt.Sprintf("%s://%s:%d/%d/projects/%s/%s", config.Scheme, config.Host, int(config.Port), version, config.ProjectID, path)
}

// send does one request and decodes a JSON answer into out (when given); a status of 300 or more fails.
func send(request *http.Request, userAgent string, out interface{}) []byte {
	request.Header.Set("Authorization", "OAuth "+config.Token)
	request.Header.Set("Accept", "application/json")
	request.Header.Set("User-Agent", userAgent)
	response, err := http.DefaultClient.Do(request)
	if err != nil {
		fail("%s %s: %v", request.Method, request.URL, err)
	}
	defer response.Body.Close()
	body, _ := io.ReadAll(response.Body)
	if response.StatusCode >= 300 {
		fail("%s %s -> %d %s", request.Method, request.URL, response.StatusCode, body)
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			fail("%s %s: not JSON: %s", request.Method, request.URL, body)
		}
	}
	return body
}

// v3 sends as iron_go3 does: always a JSON body with its length.
func v3(product string, version int, method, path string, in, out interface{}) []byte {
	if in == nil {
		in = struct{}{}
	}
	data, _ := json.Marshal(in)
	request, _ := http.NewRequest(method, url(version, path), bytes.NewReader(data))
	request.Header.Set("Accept-Encoding", "gzip/deflate")
	request.Header.Set("Content-Type", "application/json")
	return send(request, fmt.Sprintf("iron_go3/%s (Go %s)", product, runtime.Version()), out)
}

// v1 sends as iron_go does: a body of unknown length (chunked), Content-Type only with a body.
func v1(method, path string, in, out interface{}) []byte {
	var body io.Reader
	if in != nil {
		data, _ := json.Marshal(in)
		body = io.MultiReader(bytes.NewReader(data))
	}
	request, _ := http.NewRequest(method, url(1, path), body)
	if in != nil {
		request.Header.Set("Content-Type", "application/json")
	}
	return send(request, "iron_go", out)
}

func mqDay() {
	v3("mq 3.0", 3, "PUT", "queues/go-orders", map[string]interface{}{"queue": map[string]int{"message_timeout": 60}}, nil)
	var posted struct{ Ids []string }
	v3("mq 3.0", 3, "POST", "queues/go-orders/messages", map[string]interface{}{
		"messages": []map[string]interface{}{{"body": "first", "delay": 0}, {"body": "second"}},
	}, &posted)
	step("mq post", len(posted.Ids) == 2, posted)
	var reserved struct {
		Messages []struct {
			ID            string `json:"id"`
			Body          string `json:"body"`
			ReservationID string `json:"reservation_id"`
		}
	}
	v3("mq 3.0", 3, "POST", "queues/go-orders/reservations", map[string]interface{}{"n": 1, "timeout": 30, "wait": 0}, &reserved)
	step("mq reserve", len(reserved.Messages) == 1 && reserved.Messages[0].Body == "first", reserved)
	message := reserved.Messages[0]
	v3("mq 3.0", 3, "DELETE", "queues/go-orders/messages/"+message.ID, map[string]string{"reservation_id": message.ReservationID}, nil)
	var info struct{ Queue struct{ Size int } }
	v3("mq 3.0", 3, "GET", "queues/go-orders", nil, &info)
	step("mq delete", info.Queue.Size == 1, info)
}

type v1Queue struct {
	PushType    string `json:"push_type"`
	Subscribers []struct {
		URL string `json:"url"`
	} `json:"subscribers"`
}

func subscribers(urls ...string) map[string]interface{} {
	list := []map[string]string{}
	for _, url := range urls {
		list = append(list, map[string]string{"url": url})
	}
	return map[string]interface{}{"subscribers": list}
}

func pushDay() {
	var queue v1Queue
	v1("POST", "queues/go-push", map[string]string{"push_type": "multicast"}, &queue)
	step("v1 push queue without subscribers", queue.PushType == "multicast" && len(queue.Subscribers) == 0, queue)
	v1("POST", "queues/go-push/subscribers", subscribers("http://127.0.0.1:9/a"), nil)
	v1("POST", "queues/go-push/subscribers", subscribers("http://127.0.0.1:9/b", "http://127.0.0.1:9/c"), nil)
	v1("GET", "queues/go-push", nil, &queue)
	step("v1 subscribers added", len(queue.Subscribers) == 3, queue)
	v1("DELETE", "queues/go-push/subscribers", subscribers("http://127.0.0.1:9/b"), nil)
	v1("DELETE", "queues/go-push/subscribers", subscribers("http://127.0.0.1:9/a", "http://127.0.0.1:9/c"), nil)
	v1("GET", "queues/go-push", nil, &queue)
	step("v1 subscribers removed to none", len(queue.Subscribers) == 0, queue)
	v1("POST", "queues/go-pushed", map[string]string{"push_type": "unicast"}, &queue)
	v1("POST", "queues/go-pushed", map[string]string{"push_type": "multicast"}, &queue)
	step("v1 update a push queue", queue.PushType == "multicast", queue)
	v1("DELETE", "queues/go-push", nil, nil)
}

func cacheDay() {
	v3("cache 1.0", 1, "PUT", "caches/go-cache/items/forever", map[string]interface{}{"value": "and ever"}, nil)
	meta := map[string]interface{}{}
	v3("cache 1.0", 1, "GET", "caches/go-cache/items/forever", nil, &meta)
	step("cache item meta", meta["expires"] == "9999-01-01T00:00:00Z" && meta["flags"] == 0.0 && meta["cache"] == "go-cache", meta)
	v3("cache 1.0", 1, "PUT", "caches/go-cache/items/flagged", map[string]interface{}{"value": 1, "flags": 12, "expires_in": 60}, nil)
	v3("cache 1.0", 1, "GET", "caches/go-cache/items/flagged", nil, &meta)
	expires, _ := time.Parse(time.RFC3339, fmt.Sprint(meta["expires"]))
	step("cache put with flags", meta["flags"] == 12.0 && time.Until(expires) > 50*time.Second, meta)
	var failed bool
	request, _ := http.NewRequest("POST", url(1, "caches/go-cache/items/forever/increment"), strings.NewReader(`{"amount":1}`))
	request.Header.Set("Authorization", "OAuth "+config.Token)
	request.Header.Set("Content-Type", "application/json")
	response, err := http.DefaultClient.Do(request)
	if err == nil {
		body, _ := io.ReadAll(response.Body)
		response.Body.Close()
		failed = response.StatusCode == 400 && strings.Contains(string(body), "Cannot increment or decrement non-numeric value")
	}
	step("cache increment of a string: the hosted message", failed, err)
}

func packageZip(files map[string]string) []byte {
	var buffer bytes.Buffer
	writer := zip.NewWriter(&buffer)
	for name, text := range files {
		entry, _ := writer.Create(name)
		entry.Write([]byte(text))
	}
	writer.Close()
	return buffer.Bytes()
}

// upload streams the multipart body through a pipe, as iron_go3 does (no length: chunked).
func upload(code map[string]interface{}, zipped []byte) string {
	reader, writer := io.Pipe()
	form := multipart.NewWriter(writer)
	go func() {
		data, _ := form.CreateFormField("data")
		json.NewEncoder(data).Encode(code)
		file, _ := form.CreateFormFile("file", "worker.zip")
		file.Write(zipped)
		form.Close()
		writer.Close()
	}()
	request, _ := http.NewRequest("POST", url(2, "codes"), reader)
	request.Header.Set("Content-Type", "multipart/form-data; boundary="+form.Boundary())
	var out struct{ ID string }
	send(request, "iron_go3/worker 2.0 (Go "+runtime.Version()+")", &out)
	return out.ID
}

func queueTask(codeName string) string {
	var queued struct {
		Tasks []struct{ ID string }
	}
	task := map[string]interface{}{"code_name": codeName, "payload": `{"from":"go"}`, "priority": 0, "timeout": 60}
	v3("worker 2.0", 2, "POST", "tasks", map[string]interface{}{"tasks": []interface{}{task}}, &queued)
	if len(queued.Tasks) != 1 {
		fail("queue task: %v", queued)
	}
	return queued.Tasks[0].ID
}

func workerDay() {
	id := upload(map[string]interface{}{"name": "go-hello", "runtime": "sh", "file_name": "hello.sh"},
		packageZip(map[string]string{"hello.sh": "echo hello from go\n"}))
	step("worker upload", id != "", id)
	taskID := queueTask("go-hello")
	var task struct{ Status string }
	v3("worker 2.0", 2, "GET", "tasks/"+taskID, nil, &task)
	step("worker queue task", task.Status == "queued", task)
}

// workerRun waits while the task is queued or running, as WaitForTask does, then reads the log at once.
func workerRun() {
	upload(map[string]interface{}{"name": "go-run", "runtime": "sh", "file_name": "hello.sh"},
		packageZip(map[string]string{"hello.sh": "echo \"hello from go: $(cat \"$PAYLOAD_FILE\")\"\n"}))
	taskID := queueTask("go-run")
	var task struct{ Status string }
	for delay := 10 * time.Millisecond; ; delay *= 2 {
		v3("worker 2.0", 2, "GET", "tasks/"+taskID, nil, &task)
		if task.Status != "queued" && task.Status != "running" {
			break
		}
		if delay > 500*time.Millisecond {
			delay = 500 * time.Millisecond
		}
		time.Sleep(delay)
	}
	step("worker task "+task.Status, task.Status == "complete", task)
	request, _ := http.NewRequest("GET", url(2, "tasks/"+taskID+"/log"), nil)
	log := send(request, "iron_go3/worker 2.0", nil)
	step("worker log right after completion", string(log) == "hello from go: {\"from\":\"go\"}\n", string(log))
}

func main() {
	raw, err := os.ReadFile("iron.json")
	if err != nil || json.Unmarshal(raw, &config) != nil {
		fail("iron.json: %v", err)
	}
	if config.Scheme == "" {
		config.Scheme = "https"
	}
	steps := os.Args[1:]
	if len(steps) == 0 {
		steps = []string{"day"}
	}
	for _, name := range steps {
		switch name {
		case "day":
			mqDay()
			pushDay()
			cacheDay()
			workerDay()
		case "run":
			workerRun()
		default:
			fail("unknown step %s", name)
		}
	}
	fmt.Println("all ok")
}
