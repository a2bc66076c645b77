{{- /*
Ferrum chart helpers. The templates use only Go text/template's built-in functions (no Sprig
such as toYaml, include, default, trunc or b64enc) so that the chart's tests can render them
with the Go template engine itself; Helm runs them unchanged. Hence: structured values are
written as JSON flow style by "ferrum.json", Secrets use stringData, `or` stands for default,
and names are cut with slice.
*/ -}}

{{- /* Any value as JSON (valid YAML flow style): maps with sorted keys, lists, strings, numbers, booleans. */ -}}
{{- define "ferrum.json" -}}
{{- $type := printf "%T" . -}}
{{- if or (eq $type "map[string]interface {}") (eq $type "chartutil.Values") -}}
{ {{- $first := true -}}
{{- range $key, $value := . -}}
{{- if not $first }}, {{ end -}}
{{- $first = false -}}
{{- printf "%q" $key }}: {{ template "ferrum.json" $value -}}
{{- end -}} }
{{- else if eq $type "[]interface {}" -}}
[ {{- range $index, $value := . -}}
{{- if $index }}, {{ end -}}
{{- template "ferrum.json" $value -}}
{{- end -}} ]
{{- else if eq $type "string" -}}
{{- printf "%q" . -}}
{{- else if eq $type "<nil>" -}}
null
{{- else -}}
{{- . -}}
{{- end -}}
{{- end -}}

{{- /* A name cut to a DNS label the way Helm charts' `trunc 63 | trimSuffix "-"` does, with
Go's built-in functions only: at most 63 bytes, without a trailing "-" (len (slice $s 1) is
len $s - 1, there being no arithmetic). Cut shorter first with slice where a suffix follows. */ -}}
{{- define "ferrum.dnsLabel" -}}
{{- $name := . -}}
{{- if gt (len $name) 63 }}{{ $name = slice $name 0 63 }}{{ end -}}
{{- if and $name (eq (slice $name (len (slice $name 1))) "-") }}{{ $name = slice $name 0 (len (slice $name 1)) }}{{ end -}}
{{- $name -}}
{{- end -}}

{{- /* The chart's name in labels: nameOverride, else "ferrum". */ -}}
{{- define "ferrum.name" -}}
{{- template "ferrum.dnsLabel" (or .Values.nameOverride "ferrum") -}}
{{- end -}}

{{- /* The name of objects that carry no component suffix: fullnameOverride, else the release
name (followed by nameOverride when set), as a DNS label (at most 63 characters). */ -}}
{{- define "ferrum.fullname" -}}
{{- template "ferrum.dnsLabel" (or .Values.fullnameOverride (and .Values.nameOverride (printf "%s-%s" .Release.Name .Values.nameOverride)) .Release.Name) -}}
{{- end -}}

{{- /* The prefix of component objects' names ("<prefix>-controller", "<prefix>-redis"...): the
same name cut to 46 characters, so that every "<prefix>-<component>" stays a DNS label (the
longest suffixes, "-controller" and "-test-ready", take 11) and the Redis StatefulSet's name
stays within 52, as its pods' controller-revision-hash label ("<name>-<10-character hash>")
must fit in 63. Names up to 46 characters (all but the longest release names) are unchanged. */ -}}
{{- define "ferrum.prefix" -}}
{{- $name := or .Values.fullnameOverride (and .Values.nameOverride (printf "%s-%s" .Release.Name .Values.nameOverride)) .Release.Name -}}
{{- if gt (len $name) 46 }}{{ $name = slice $name 0 46 }}{{ end -}}
{{- template "ferrum.dnsLabel" $name -}}
{{- end -}}

{{- /* Labels every object carries, as the inside of a flow map: `labels: { {{- template "ferrum.labels" . }}, ... }`. */ -}}
{{- define "ferrum.labels" -}}
"app.kubernetes.io/name": "{{ template "ferrum.name" . }}", "app.kubernetes.io/instance": {{ printf "%q" .Release.Name }}, "app.kubernetes.io/version": {{ printf "%q" .Chart.AppVersion }}, "app.kubernetes.io/managed-by": {{ printf "%q" .Release.Service }}, "helm.sh/chart": {{ printf "%s-%s" .Chart.Name .Chart.Version | printf "%q" }}
{{- end -}}

{{- define "ferrum.selectorLabels" -}}
"app.kubernetes.io/name": "{{ template "ferrum.name" . }}", "app.kubernetes.io/instance": {{ printf "%q" .Release.Name }}
{{- end -}}

{{- /* The Ferrum image; an empty image.tag means the chart's appVersion (Sprig's `default`, with `or`). */ -}}
{{- define "ferrum.image" -}}
{{ printf "%s:%s" .Values.image.repository (or .Values.image.tag .Chart.AppVersion) | printf "%q" }}
{{- end -}}

{{- /* Stops rendering with a message: calling an undefined template is an error in Go and Helm alike (Sprig's fail is not available here). */ -}}
{{- /* The runner API gateway runners call: runner.gateway.apiUrl, else this release's controllers. */ -}}
{{- define "ferrum.gatewayApiUrl" -}}
{{- if .Values.runner.gateway.apiUrl -}}
{{ .Values.runner.gateway.apiUrl }}
{{- else -}}
http://{{ template "ferrum.prefix" . }}-controller:{{ .Values.controller.service.port }}
{{- end -}}
{{- end -}}

{{- define "ferrum.checkValues" -}}
{{- if and .Values.runner.enabled (eq .Values.runner.mode "gateway") -}}
{{- if not .Values.runner.gateway.tokenSecret -}}
{{- template "ferrum: runner.mode gateway needs runner.gateway.tokenSecret (a Secret holding a cluster runner token)" -}}
{{- end -}}
{{- if and (not .Values.controller.enabled) (not .Values.runner.gateway.apiUrl) -}}
{{- template "ferrum: gateway runners without this release's controllers need runner.gateway.apiUrl" -}}
{{- end -}}
{{- end -}}
{{- if and (not .Values.secrets.existingSecret) (or .Values.controller.enabled .Values.redis.bundled.enabled (and .Values.runner.enabled (eq .Values.runner.mode "direct"))) -}}
{{- if or (not .Values.secrets.bootstrapToken) (not .Values.secrets.encryptionKey) -}}
{{- template "ferrum: set secrets.existingSecret, or both secrets.bootstrapToken and secrets.encryptionKey" -}}
{{- end -}}
{{- end -}}
{{- if and .Values.redis.bundled.enabled (not .Values.secrets.existingSecret) (not .Values.secrets.redisPassword) -}}
{{- template "ferrum: the bundled Redis needs a password: set secrets.redisPassword (or key redis-password of secrets.existingSecret)" -}}
{{- end -}}
{{- if le .Values.runner.terminationGracePeriodSeconds .Values.runner.drainSeconds -}}
{{- template "ferrum: runner.terminationGracePeriodSeconds must exceed runner.drainSeconds" -}}
{{- end -}}
{{- template "ferrum.checkControllerStop" . -}}
{{- end -}}

{{- /* The controller's stop fits in its grace period (Go templates cannot add, so each part is
compared on its own; README: preStopSeconds + shutdownTimeoutSeconds < terminationGracePeriodSeconds). */ -}}
{{- define "ferrum.checkControllerStop" -}}
{{- $controller := .Values.controller -}}
{{- if le $controller.shutdownTimeoutSeconds $controller.drainSeconds -}}
{{- template "ferrum: controller.shutdownTimeoutSeconds must exceed controller.drainSeconds" -}}
{{- end -}}
{{- if le $controller.terminationGracePeriodSeconds $controller.shutdownTimeoutSeconds -}}
{{- template "ferrum: controller.terminationGracePeriodSeconds must exceed controller.shutdownTimeoutSeconds" -}}
{{- end -}}
{{- if le $controller.terminationGracePeriodSeconds $controller.preStopSeconds -}}
{{- template "ferrum: controller.terminationGracePeriodSeconds must exceed controller.preStopSeconds" -}}
{{- end -}}
{{- end -}}

{{- define "ferrum.secretName" -}}
{{- if .Values.secrets.existingSecret -}}
{{ .Values.secrets.existingSecret }}
{{- else -}}
{{ template "ferrum.prefix" . }}-secrets
{{- end -}}
{{- end -}}

{{- define "ferrum.serviceAccountName" -}}
{{- if .Values.serviceAccount.name -}}
{{ .Values.serviceAccount.name }}
{{- else if .Values.serviceAccount.create -}}
{{ template "ferrum.fullname" . }}
{{- else -}}
default
{{- end -}}
{{- end -}}

{{- /* What every pod spec starts with (6 spaces deep): the ServiceAccount without an API token, and RuntimeDefault seccomp is set by each pod's securityContext. */ -}}
{{- define "ferrum.podIdentity" }}
      serviceAccountName: {{ template "ferrum.serviceAccountName" . }}
      automountServiceAccountToken: false
{{- end -}}

{{- /* The bundled Redis's password as container env (12 spaces deep). */ -}}
{{- define "ferrum.redisPasswordEnv" }}
            - name: REDIS_PASSWORD
              valueFrom:
                secretKeyRef:
                  name: {{ template "ferrum.secretName" . }}
                  key: redis-password
{{- end -}}

{{- /* Environment both roles share, as container env list items (12 spaces deep). */ -}}
{{- define "ferrum.commonEnv" }}
{{- if .Values.redis.bundled.enabled }}
{{- template "ferrum.redisPasswordEnv" . }}
{{- end }}
            - name: REDIS_URL
{{- if .Values.redis.bundled.enabled }}
              # Kubernetes puts REDIS_PASSWORD, defined just above, into $(REDIS_PASSWORD).
              value: "redis://:$(REDIS_PASSWORD)@{{ template "ferrum.prefix" . }}-redis:6379"
{{- else }}
              valueFrom:
                secretKeyRef:
{{- if .Values.redis.existingSecret }}
                  name: {{ printf "%q" .Values.redis.existingSecret }}
                  key: {{ printf "%q" .Values.redis.existingSecretKey }}
{{- else }}
                  name: "{{ template "ferrum.prefix" . }}-redis-url"
                  key: redis-url
{{- end }}
{{- end }}
{{- if ne .Values.redis.mode "standalone" }}
            - name: FERRUM_REDIS_MODE
              value: {{ printf "%q" .Values.redis.mode }}
{{- end }}
{{- if eq .Values.redis.mode "sentinel" }}
            - name: FERRUM_REDIS_SENTINEL_MASTER
              value: {{ printf "%q" .Values.redis.sentinelMaster }}
{{- end }}
            - name: FERRUM_KEY_PREFIX
              value: {{ printf "%q" .Values.keyPrefix }}
            - name: LOG_LEVEL
              value: {{ printf "%q" .Values.logLevel }}
            - name: FERRUM_ENCRYPTION_KEY
              valueFrom:
                secretKeyRef:
                  name: {{ template "ferrum.secretName" . }}
                  key: encryption-key
{{- end -}}

{{- /* A workload's extra pod labels (podLabels), continuing a flow map of labels: `{ ... {{- template "ferrum.podLabels" .Values.x.podLabels }} }`. */ -}}
{{- define "ferrum.podLabels" -}}
{{- range $key, $value := . }}, {{ printf "%q" $key }}: {{ printf "%q" $value }}{{ end -}}
{{- end -}}

{{- /* A pod's priorityClassName (6 spaces deep), when one is named. */ -}}
{{- define "ferrum.priorityClass" -}}
{{- if . }}
      priorityClassName: {{ printf "%q" . }}
{{- end -}}
{{- end -}}

{{- /* A probe's timing (12 spaces deep): the keys set in a `probes.<name>` value. */ -}}
{{- define "ferrum.probeTuning" -}}
{{- range $key, $value := . }}
            {{ $key }}: {{ $value }}
{{- end -}}
{{- end -}}

{{- define "ferrum.imagePullSecrets" -}}
{{- if .Values.imagePullSecrets }}
      imagePullSecrets:
{{- range .Values.imagePullSecrets }}
        - name: {{ printf "%q" . }}
{{- end }}
{{- end }}
{{- end -}}

{{- /* The Docker engine sidecar of dind mode, as a container list item (8 spaces deep). It
listens only on a unix socket in a volume shared with the runner, owned by socketGid. */ -}}
{{- define "ferrum.dindContainer" }}
        - name: dind
          image: {{ printf "%q" .Values.runner.docker.dind.image }}
          args: ["dockerd", "--host=unix:///var/run/dind/docker.sock", {{ printf "--group=%v" .Values.runner.docker.socketGid | printf "%q" }}]
          env:
            - name: DOCKER_TLS_CERTDIR
              value: ""
          securityContext: { privileged: true }
          resources: {{ template "ferrum.json" .Values.runner.docker.dind.resources }}
          startupProbe:
            exec: { command: ["docker", "--host=unix:///var/run/dind/docker.sock", "info"] }
            periodSeconds: 2
            failureThreshold: 60
          volumeMounts:
            - name: dind-socket
              mountPath: /var/run/dind
            - name: dind-storage
              mountPath: /var/lib/docker
            # The runner's http-stream function sockets, at the same path as in the runner.
            - name: fn-sockets
              mountPath: {{ printf "%q" .Values.runner.docker.functionSocketDir }}
{{- end -}}
