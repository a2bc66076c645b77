<?php
// A migrating PHP user's day, sent the way the official PHP clients (iron_core_php under
// iron_mq_php, iron_cache_php, iron_worker_php) send it with curl.
//
// Reads ./iron.json (protocol, host, port, project_id, token). Every request carries the
// clients' headers (Content-Type: application/json even on GET, Connection: Keep-Alive,
// Keep-Alive: 300); GET puts its parameters after a "?" that stays when there are none;
// PUT, PATCH and DELETE send json_encode of their parameters, "[]" when there are none; an
// upload posts curl's multipart form under a bare "multipart/form-data" Content-Type.
// The code is this project's own. Prints one line per step; exits 1 at the first failure.
// Steps (arguments): day (queues, push queue, cache, upload and queue a task) or run (upload,
// run a task, read its log as soon as it is no longer queued or running).

$config = json_decode(file_get_contents('iron.json'), true);
$config += array('protocol' => 'https', 'port' => 443);

function fail($text)
{
    echo "FAIL $text\n";
    exit(1);
}

function step($name, $ok, $detail = null)
{
    if (!$ok) {
        fail("$name " . json_encode($detail));
    }
    echo "ok $name\n";
}

function call($agent, $version, $method, $path, $params = array(), $form = null)
{
    global $config;
    $url = "{$config['protocol']}://{$config['host']}:{$config['port']}/$version/projects/{$config['project_id']}/$path";
    $headers = array(
        "Authorization: OAuth {$config['token']}",
        "User-Agent: $agent (iron_core-1.0.0)",
        'Content-Type: ' . ($form === null ? 'application/json' : 'multipart/form-data'),
        'Accept: application/json',
        'Connection: Keep-Alive',
        'Keep-Alive: 300',
    );
    $curl = curl_init();
    if ($method === 'GET') {
        curl_setopt($curl, CURLOPT_HTTPGET, true);
        $url .= '?' . http_build_query($params);
    } else {
        curl_setopt($curl, CURLOPT_CUSTOMREQUEST, $method);
        if ($method === 'POST') {
            curl_setopt($curl, CURLOPT_POST, true);
        }
        curl_setopt($curl, CURLOPT_POSTFIELDS, $form === null ? json_encode($params) : $form);
    }
    curl_setopt($curl, CURLOPT_URL, $url);
    curl_setopt($curl, CURLOPT_HTTPHEADER, $headers);
    curl_setopt($curl, CURLOPT_RETURNTRANSFER, true);
    $body = curl_exec($curl);
    $status = curl_getinfo($curl, CURLINFO_HTTP_CODE);
    curl_close($curl);
    if ($body === false || $status >= 300) {
        fail("$method $path -> $status $body");
    }
    return $body;
}

function mq($method, $path, $params = array())
{
    return json_decode(call('iron_mq_php-4.0.0', 3, $method, $path, $params), true);
}

function mq1($method, $path, $params = array())
{
    return json_decode(call('iron_mq_php-1.5.3', 1, $method, $path, $params), true);
}

function cache($method, $path, $params = array())
{
    return json_decode(call('iron_cache_php-0.1.3', 1, $method, $path, $params), true);
}

function worker($method, $path, $params = array(), $form = null)
{
    return call('iron_worker_php-1.5.0', 2, $method, $path, $params, $form);
}

function mq_day()
{
    mq('PUT', 'queues/php-orders', array('queue' => array('message_timeout' => 60)));
    $posted = mq('POST', 'queues/php-orders/messages', array('messages' => array(array('body' => 'first'), array('body' => 'second'))));
    step('mq post', count($posted['ids']) === 2, $posted);
    $reserved = mq('POST', 'queues/php-orders/reservations', array('n' => 1, 'timeout' => 30));
    $message = $reserved['messages'][0];
    step('mq reserve', $message['body'] === 'first', $reserved);
    mq('DELETE', "queues/php-orders/messages/{$message['id']}", array('reservation_id' => $message['reservation_id']));
    $info = mq('GET', 'queues/php-orders');
    step('mq delete', $info['queue']['size'] === 1, $info);
    mq('DELETE', 'queues/php-orders/messages');
    step('mq clear with a [] body', mq('GET', 'queues/php-orders')['queue']['size'] === 0);
}

function urls()
{
    return array('subscribers' => array_map(function ($url) {
        return array('url' => $url);
    }, func_get_args()));
}

function push_day()
{
    $queue = mq1('POST', 'queues/php-push', array('push_type' => 'multicast'));
    step('v1 push queue without subscribers', $queue['push_type'] === 'multicast' && $queue['subscribers'] === array(), $queue);
    mq1('POST', 'queues/php-push/subscribers', urls('http://127.0.0.1:9/a', 'http://127.0.0.1:9/b'));
    step('v1 subscribers added', count(mq1('GET', 'queues/php-push')['subscribers']) === 2);
    mq1('DELETE', 'queues/php-push/subscribers', urls('http://127.0.0.1:9/a', 'http://127.0.0.1:9/b'));
    step('v1 subscribers removed to none', mq1('GET', 'queues/php-push')['subscribers'] === array());
    mq1('DELETE', 'queues/php-push');
}

function cache_day()
{
    cache('PUT', 'caches/php-cache/items/plain', array('value' => 'hello'));
    $meta = cache('GET', 'caches/php-cache/items/plain');
    step('cache item meta', $meta['expires'] === '9999-01-01T00:00:00Z' && $meta['flags'] === 0, $meta);
    cache('PUT', 'caches/php-cache/items/flagged', array('value' => 3, 'flags' => 7, 'expires_in' => 60));
    $meta = cache('GET', 'caches/php-cache/items/flagged');
    $left = strtotime($meta['expires']) - time();
    step('cache put with flags', $meta['flags'] === 7 && $left > 50 && $left <= 61, $meta);
    cache('DELETE', 'caches/php-cache/items/plain');
    step('cache delete with a [] body', true);
}

// The package zip is made by the test (PACKAGE_ZIP: run.sh at its root), the way a user's is.
function upload($name)
{
    $data = array(
        'code_name' => $name, 'name' => $name, 'standalone' => true, 'runtime' => 'sh', 'file_name' => 'run.sh',
        'version' => '1.5.0', 'timestamp' => time(), 'class_name' => $name, 'options' => array(), 'access_key' => $name,
    );
    $form = array('data' => json_encode($data), 'file' => new CURLFile(getenv('PACKAGE_ZIP')));
    return json_decode(worker('POST', 'codes', array(), $form), true)['id'];
}

function queue_task($name)
{
    $queued = json_decode(worker('POST', 'tasks', array('tasks' => array(array('code_name' => $name, 'payload' => '{"from":"php"}')))), true);
    return $queued['tasks'][0]['id'];
}

function worker_day()
{
    step('worker upload', upload('php-hello') != '');
    $id = queue_task('php-hello');
    $task = json_decode(worker('GET', "tasks/$id"), true);
    step('worker queue task', $task['status'] === 'queued', $task);
}

// Waits while the task is queued or running, as waitFor does, then reads the log at once.
function worker_run()
{
    upload('php-run');
    $id = queue_task('php-run');
    do {
        usleep(20000);
        $task = json_decode(worker('GET', "tasks/$id"), true);
    } while ($task['status'] === 'queued' || $task['status'] === 'running');
    step("worker task {$task['status']}", $task['status'] === 'complete', $task);
    $log = worker('GET', "tasks/$id/log");
    step('worker log right after completion', $log === "hello from sh: {\"from\":\"php\"}\n", $log);
}

$steps = array_slice($argv, 1);
foreach ($steps ? $steps : array('day') as $name) {
    if ($name === 'day') {
        mq_day();
        push_day();
        cache_day();
        worker_day();
    } elseif ($name === 'run') {
        worker_run();
    } else {
        fail("unknown step $name");
    }
}
echo "all ok\n";
