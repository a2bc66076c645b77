# A migrating Ruby user's day, sent the way the official Ruby clients send it.
#
# Reads ./iron.json as the Ruby clients do (`scheme`, `host`, `port`, `token`, `project_id`),
# then queues, reserves, deletes and clears messages (MQ v3), caches items (cache v1) and
# uploads a package, queues, retries and cancels tasks and schedules (worker v2). Every
# POST, PUT, PATCH and DELETE carries a JSON body (`{}` when there is nothing to say), as
# the clients' REST layer sends it. The code is this project's own. Prints one line per
# step; exits 1 at the first failure.
require 'json'
require 'net/http'
require 'securerandom'

CONFIG = JSON.parse(File.read('iron.json'))

class Api
  def initialize(api_version, user_agent)
    @base = "#{CONFIG['scheme']}://#{CONFIG['host']}:#{CONFIG['port']}/#{api_version}/projects/#{CONFIG['project_id']}/"
    @headers = { 'User-Agent' => user_agent, 'Authorization' => "OAuth #{CONFIG['token']}" }
  end

  def get(path, params = {})
    uri = URI(@base + path)
    uri.query = URI.encode_www_form(params) unless params.empty?
    send_request(Net::HTTP::Get.new(uri, @headers))
  end

  def post(path, params = {}) = with_body(Net::HTTP::Post, path, params)
  def put(path, params = {}) = with_body(Net::HTTP::Put, path, params)
  def patch(path, params = {}) = with_body(Net::HTTP::Patch, path, params)
  def delete(path, params = {}) = with_body(Net::HTTP::Delete, path, params)

  def post_file(path, params, file_name, file_bytes)
    boundary = SecureRandom.hex(16)
    body = +"--#{boundary}\r\nContent-Disposition: form-data; name=\"data\"\r\n\r\n#{params.to_json}\r\n"
    body << "--#{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"#{file_name}\"\r\n"
    body << "Content-Type: application/octet-stream\r\n\r\n"
    body = body.b + file_bytes.b + "\r\n--#{boundary}--\r\n".b
    request = Net::HTTP::Post.new(URI(@base + path), @headers.merge('Content-Type' => "multipart/form-data; boundary=#{boundary}"))
    request.body = body
    send_request(request)
  end

  private

  def with_body(kind, path, params)
    request = kind.new(URI(@base + path), @headers.merge('Content-Type' => 'application/json'))
    request.body = params.to_json
    send_request(request)
  end

  def send_request(request)
    uri = request.uri
    response = Net::HTTP.start(uri.host, uri.port) { |http| http.request(request) }
    abort "FAIL #{request.method} #{uri.path} -> #{response.code} #{response.body}" unless response.code.to_i.between?(200, 299)
    response.body.empty? ? {} : JSON.parse(response.body)
  end
end

def step(name, ok, detail = '')
  abort "FAIL #{name} #{detail}" unless ok
  puts "ok #{name}"
end

def mq_flow
  mq = Api.new(3, 'iron_mq_ruby-6.0.5 (iron_core_ruby-1.0.12)')
  mq.put('queues/rb-orders', {})
  posted = mq.post('queues/rb-orders/messages', messages: [{ body: 'first' }, { body: '' }])
  step('mq post', posted['ids'].length == 2, posted)
  reserved = mq.post('queues/rb-orders/reservations', n: 1, timeout: 60)
  message = reserved['messages'][0]
  step('mq reserve', message['body'] == 'first', reserved)
  mq.delete("queues/rb-orders/messages/#{message['id']}", reservation_id: message['reservation_id'])
  step('mq delete', true)
  mq.delete('queues/rb-orders/messages', {})
  step('mq clear', mq.get('queues/rb-orders')['queue']['size'] == 0)
  mq.delete('queues/rb-orders', {})
  step('mq delete queue', true)
end

def cache_flow
  cache = Api.new(1, 'iron_cache_ruby-1.4.2 (iron_core_ruby-1.0.12)')
  cache.put('caches/rb-cache/items/greeting', value: 'hello', expires_in: 3600)
  cache.put('caches/rb-cache/items/greeting', value: 'other', add: true)
  step('cache add keeps', cache.get('caches/rb-cache/items/greeting')['value'] == 'hello')
  cache.put('caches/rb-cache/items/hits', value: 5)
  step('cache increment', cache.post('caches/rb-cache/items/hits/increment', amount: -2)['value'] == 3)
  cache.delete('caches/rb-cache/items/greeting', {})
  step('cache delete item', !cache.get('caches/rb-cache')['size'].nil?)
  cache.post('caches/rb-cache/clear', {})
  info = cache.get('caches/rb-cache')
  step('cache clear', info['size'] == 0, info)
  cache.delete('caches/rb-cache', {})
  step('cache delete', true)
end

def worker_flow
  worker = Api.new(2, 'iron_worker_ruby-3.4.2 (iron_core_ruby-1.0.12)')
  zip = File.binread(ENV.fetch('PACKAGE_ZIP')) # a zip holding run.sh, made by the test
  code = worker.post_file('codes', { name: 'rb-hello', runtime: 'sh', file_name: 'run.sh' }, 'rb-hello.zip', zip)
  step('worker upload', code['id'], code)
  queued = worker.post('tasks', tasks: [{ code_name: 'rb-hello', payload: { n: 1 }.to_json, priority: 0 }])
  task_id = queued['tasks'][0]['id']
  step('worker queue task', task_id, queued)
  retried = worker.post("tasks/#{task_id}/retry", delay: 5)
  step('worker retry', retried['tasks'][0]['id'] != task_id, retried)
  worker.post("tasks/#{task_id}/cancel", {})
  worker.post("tasks/#{task_id}/cancel", {})
  step('worker cancel twice', true)
  schedule = worker.post('schedules', schedules: [{ code_name: 'rb-hello', payload: '{}', run_every: 3600,
                                                    start_at: '2030-01-01T00:00:00+00:00', run_times: 3 }])
  schedule_id = schedule['schedules'][0]['id']
  step('worker schedule', schedule_id, schedule)
  worker.post("schedules/#{schedule_id}/cancel", {})
  step('worker cancel schedule', true)
end

steps = ARGV.empty? ? %w[mq cache worker] : ARGV
mq_flow if steps.include?('mq')
cache_flow if steps.include?('cache')
worker_flow if steps.include?('worker')
puts 'all ok'
