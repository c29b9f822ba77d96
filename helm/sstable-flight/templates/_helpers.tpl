{{/*
Names and labels. The full name is the release's, with the chart's name
appended unless the release already carries it.
*/}}
{{- define "sstable-flight.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "sstable-flight.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "sstable-flight.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "sstable-flight.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: sstable-flight
{{- end -}}

{{- define "sstable-flight.selectorLabels" -}}
app.kubernetes.io/name: {{ include "sstable-flight.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/*
The labels that select the pods the server runs in: the chart's own in
statefulset and daemonset modes, the Cassandra pods' in sidecar mode.
*/}}
{{- define "sstable-flight.podSelector" -}}
{{- if eq .Values.mode "sidecar" -}}
{{- if not .Values.sidecar.podSelector -}}
{{- fail "sidecar.podSelector: sidecar mode needs the labels of the Cassandra pods (the Service, PodMonitor and NetworkPolicy select them)" -}}
{{- end -}}
{{- toYaml .Values.sidecar.podSelector -}}
{{- else -}}
{{- include "sstable-flight.selectorLabels" . -}}
{{- end -}}
{{- end -}}

{{- define "sstable-flight.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "sstable-flight.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- required "serviceAccount.name: with serviceAccount.create false, name the account the pods run as" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "sstable-flight.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/*
What the Cassandra beside the server looks like: its volume, mount path
and owner. An empty value takes the default of the mode, in sidecar mode
of sidecar.target.
*/}}
{{- define "sstable-flight.bitnami" -}}
{{- if and (eq .Values.mode "sidecar") (eq .Values.sidecar.target "bitnami") -}}true{{- end -}}
{{- end -}}

{{- define "sstable-flight.cassandraVolume" -}}
{{- if .Values.cassandra.volumeName -}}{{ .Values.cassandra.volumeName }}
{{- else if include "sstable-flight.bitnami" . -}}data
{{- else if eq .Values.mode "sidecar" -}}server-data
{{- else -}}data
{{- end -}}
{{- end -}}

{{- define "sstable-flight.cassandraMountPath" -}}
{{- if .Values.cassandra.mountPath -}}{{ .Values.cassandra.mountPath }}
{{- else if include "sstable-flight.bitnami" . -}}/bitnami/cassandra
{{- else if eq .Values.mode "daemonset" -}}{{ .Values.daemonset.hostPath }}
{{- else -}}/var/lib/cassandra
{{- end -}}
{{- end -}}

{{- define "sstable-flight.dataDir" -}}
{{- $sub := .Values.cassandra.dataSubPath -}}
{{- if not $sub -}}{{- $sub = ternary "data/data" "data" (eq (include "sstable-flight.bitnami" .) "true") -}}{{- end -}}
{{- printf "%s/%s" (include "sstable-flight.cassandraMountPath" .) $sub -}}
{{- end -}}

{{- define "sstable-flight.cassandraUID" -}}
{{- if not (kindIs "invalid" .Values.cassandra.uid) -}}{{ .Values.cassandra.uid }}
{{- else if include "sstable-flight.bitnami" . -}}1001
{{- else -}}999
{{- end -}}
{{- end -}}

{{- define "sstable-flight.cassandraGID" -}}
{{- if not (kindIs "invalid" .Values.cassandra.gid) -}}{{ .Values.cassandra.gid }}
{{- else if include "sstable-flight.bitnami" . -}}1001
{{- else -}}999
{{- end -}}
{{- end -}}

{{/*
The server's uid: hardlink snapshots link Cassandra's files, which the
kernel (fs.protected_hardlinks) allows only to their owner or to a user
who may write them; so in hardlink mode the server runs as Cassandra's
uid, in live mode as 65532, an account that owns nothing.
*/}}
{{- define "sstable-flight.serverUID" -}}
{{- if not (kindIs "invalid" .Values.server.runAsUser) -}}{{ .Values.server.runAsUser }}
{{- else if eq .Values.snapshotMode "hardlink" -}}{{ include "sstable-flight.cassandraUID" . }}
{{- else -}}65532
{{- end -}}
{{- end -}}

{{/*
CQL credentials: the Secret's keys mounted as files username and
password, or a fixed user. cass-operator's and K8ssandra's Secrets hold
username and password; Bitnami's only cassandra-password, for the user
cassandra.
*/}}
{{- define "sstable-flight.cqlUser" -}}
{{- $a := .Values.cassandra.auth -}}
{{- if $a.user -}}{{ $a.user }}
{{- else if and (include "sstable-flight.bitnami" .) (not $a.usernameKey) -}}cassandra
{{- end -}}
{{- end -}}

{{- define "sstable-flight.cqlUsernameKey" -}}
{{- if not (include "sstable-flight.cqlUser" .) -}}
{{- default "username" .Values.cassandra.auth.usernameKey -}}
{{- end -}}
{{- end -}}

{{- define "sstable-flight.cqlPasswordKey" -}}
{{- default (ternary "cassandra-password" "password" (eq (include "sstable-flight.bitnami" .) "true")) .Values.cassandra.auth.passwordKey -}}
{{- end -}}

{{/*
The ports of the Cassandra pods a NetworkPolicy selecting them must
leave open: what the target's operator runs in them (cass-operator's
container ports, K8ssandra's Medusa; Bitnami's and its exporter's; the
statefulset's own).
*/}}
{{- define "sstable-flight.cassandraPorts" -}}
{{- $ports := .Values.networkPolicy.cassandraPorts -}}
{{- if not $ports -}}
{{- if include "sstable-flight.bitnami" . -}}
{{- $ports = list 7000 7001 7199 9042 8080 5555 -}}
{{- else if eq .Values.mode "sidecar" -}}
{{- $ports = list 7000 7001 7199 8080 9000 9042 9103 9142 50051 -}}
{{- else -}}
{{- $ports = list 7000 7001 7199 9042 -}}
{{- end -}}
{{- end -}}
{{- toJson $ports -}}
{{- end -}}

{{/* Whether CQL TLS reads files of a Secret (a CA or a client certificate). */}}
{{- define "sstable-flight.cqlTLSFiles" -}}
{{- with .Values.cassandra.tls -}}
{{- if and .enabled (or .caKey .certKey) -}}true{{- end -}}
{{- end -}}
{{- end -}}

{{- define "sstable-flight.ticketKeySecret" -}}
{{- default (printf "%s-ticket-key" (include "sstable-flight.fullname" .)) .Values.ticketKey.existingSecret -}}
{{- end -}}

{{/*
The server's container, the same in every mode (in sidecar mode merged
into the Cassandra pod by the operator's values).
*/}}
{{- define "sstable-flight.container" -}}
{{- $mount := include "sstable-flight.cassandraMountPath" . -}}
{{- $live := eq .Values.snapshotMode "live" -}}
name: sstable-flight
image: {{ include "sstable-flight.image" . }}
imagePullPolicy: {{ .Values.image.pullPolicy }}
args:
  - --data-dir={{ include "sstable-flight.dataDir" . }}
  {{- /* Cassandra creates its data directory when it first starts, on a
         fresh volume after the server may have started: wait, within the
         startup probe's five minutes, rather than exit into a crash loop. */}}
  - --data-dir-wait=5m
  - --snapshot-mode={{ .Values.snapshotMode }}
  {{- if not $live }}
  # On the data's own mount: a hard link cannot cross mounts.
  - --snapshot-dir={{ $mount }}/sstable-flight-snapshots
  {{- end }}
  - --listen=:{{ .Values.server.flightPort }}
  - --admin-listen=:{{ .Values.server.metricsPort }}
  - --cassandra={{ .Values.cassandra.host | default "$(POD_IP)" }}:{{ .Values.cassandra.cqlPort }}
  {{- with .Values.cassandra.auth.existingSecret }}
  {{- with include "sstable-flight.cqlUser" $ }}
  - --cassandra-user={{ . }}
  {{- else }}
  - --cassandra-user-file=/etc/sstable-flight/cassandra-auth/username
  {{- end }}
  - --cassandra-password-file=/etc/sstable-flight/cassandra-auth/password
  {{- end }}
  {{- with .Values.cassandra.tls }}
  {{- if .enabled }}
  - --cassandra-tls
  {{- if .caKey }}
  - --cassandra-tls-ca=/etc/sstable-flight/cassandra-tls/ca.crt
  {{- end }}
  {{- if .certKey }}
  - --cassandra-tls-cert=/etc/sstable-flight/cassandra-tls/tls.crt
  - --cassandra-tls-key=/etc/sstable-flight/cassandra-tls/tls.key
  {{- end }}
  {{- with .serverName }}
  - --cassandra-tls-server-name={{ . }}
  {{- end }}
  {{- end }}
  {{- end }}
  - --log-level={{ .Values.server.logLevel }}
  - --drain-timeout={{ .Values.server.drainTimeoutSeconds }}s
  {{- if .Values.server.maxStreams }}
  - --max-streams={{ .Values.server.maxStreams }}
  {{- end }}
  - --ticket-key-file=/etc/sstable-flight/ticket-key/{{ .Values.ticketKey.key }}
  {{- if .Values.tls.enabled }}
  - --tls-cert=/etc/sstable-flight/tls/tls.crt
  - --tls-key=/etc/sstable-flight/tls/tls.key
  {{- if .Values.tls.clientCA }}
  - --tls-client-ca=/etc/sstable-flight/tls/ca.crt
  {{- end }}
  {{- end }}
  {{- if .Values.auth.existingSecret }}
  - --auth-token-file=/etc/sstable-flight/token/{{ .Values.auth.tokenKey }}
  {{- end }}
  {{- if .Values.metrics.open }}
  - --metrics-open
  {{- end }}
  {{- if .Values.discovery.enabled }}
  - --kube-service={{ include "sstable-flight.fullname" . }}
  - --kube-namespace=$(POD_NAMESPACE)
  - --kube-port-name=flight
  {{- end }}
  {{- range .Values.server.extraArgs }}
  - {{ . | quote }}
  {{- end }}
env:
  - name: POD_NAMESPACE
    valueFrom: {fieldRef: {fieldPath: metadata.namespace}}
  - name: POD_NAME
    valueFrom: {fieldRef: {fieldPath: metadata.name}}
  - name: POD_IP
    valueFrom: {fieldRef: {fieldPath: status.podIP}}
  {{- /* The Go runtime sizes itself to the container, not the node:
  resourceFieldRef rounds CPU up to whole cores and gives memory in bytes. */}}
  {{- $limits := get .Values.server.resources "limits" | default dict }}
  {{- $requests := get .Values.server.resources "requests" | default dict }}
  {{- if or (get $limits "cpu") (get $requests "cpu") }}
  - name: GOMAXPROCS
    valueFrom: {resourceFieldRef: {resource: {{ ternary "limits.cpu" "requests.cpu" (not (empty (get $limits "cpu"))) }}, divisor: "1"}}
  {{- end }}
  {{- if get $limits "memory" }}
  - name: GOMEMLIMIT
    valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: "1"}}
  {{- end }}
  {{- with .Values.server.extraEnv }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
ports:
  - name: flight
    containerPort: {{ .Values.server.flightPort }}
    protocol: TCP
  - name: sstf-metrics
    containerPort: {{ .Values.server.metricsPort }}
    protocol: TCP
{{- /* The kubelet's gRPC probe speaks no TLS: with TLS, a TCP probe. */}}
{{- $probe := dict "grpc" (dict "port" (int .Values.server.flightPort) "service" "") }}
{{- if .Values.tls.enabled }}
{{- $probe = dict "tcpSocket" (dict "port" "flight") }}
{{- end }}
startupProbe:
  {{- toYaml $probe | nindent 2 }}
  periodSeconds: 5
  failureThreshold: 60
{{- /* Beside Cassandra a failing readiness takes Cassandra's pod out of its Services:
       a minute of failures, not one slow answer (docs/operations.md, "Readiness and probes"). */}}
readinessProbe:
  {{- toYaml $probe | nindent 2 }}
  periodSeconds: 10
  timeoutSeconds: 5
  failureThreshold: 6
livenessProbe:
  {{- toYaml $probe | nindent 2 }}
  periodSeconds: 10
  timeoutSeconds: 5
  failureThreshold: 6
resources:
  {{- toYaml .Values.server.resources | nindent 2 }}
securityContext:
  runAsNonRoot: true
  runAsUser: {{ include "sstable-flight.serverUID" . }}
  runAsGroup: {{ include "sstable-flight.cassandraGID" . }}
  readOnlyRootFilesystem: true
  allowPrivilegeEscalation: false
  privileged: false
  capabilities: {drop: [ALL]}
  seccompProfile: {type: RuntimeDefault}
volumeMounts:
  - name: {{ include "sstable-flight.cassandraVolume" . }}
    mountPath: {{ $mount }}
    readOnly: {{ $live }}
  - name: sstf-tmp
    mountPath: /tmp
  - name: sstf-ticket-key
    mountPath: /etc/sstable-flight/ticket-key
    readOnly: true
  {{- if .Values.tls.enabled }}
  - name: sstf-tls
    mountPath: /etc/sstable-flight/tls
    readOnly: true
  {{- end }}
  {{- if .Values.auth.existingSecret }}
  - name: sstf-token
    mountPath: /etc/sstable-flight/token
    readOnly: true
  {{- end }}
  {{- if .Values.cassandra.auth.existingSecret }}
  - name: sstf-cql-auth
    mountPath: /etc/sstable-flight/cassandra-auth
    readOnly: true
  {{- end }}
  {{- if include "sstable-flight.cqlTLSFiles" . }}
  - name: sstf-cql-tls
    mountPath: /etc/sstable-flight/cassandra-tls
    readOnly: true
  {{- end }}
  {{- if .Values.discovery.enabled }}
  - name: sstf-kube-api-access
    mountPath: /var/run/secrets/kubernetes.io/serviceaccount
    readOnly: true
  {{- end }}
{{- end -}}

{{/*
The volumes the container needs besides Cassandra's. The API token is
projected into the server's container only, so the pod needs no
automounted token (Cassandra's container gets none).
*/}}
{{- define "sstable-flight.volumes" -}}
- name: sstf-tmp
  emptyDir: {sizeLimit: {{ .Values.server.tmpSizeLimit }}}
- name: sstf-ticket-key
  secret: {secretName: {{ include "sstable-flight.ticketKeySecret" . }}, defaultMode: 0440}
{{- if .Values.tls.enabled }}
- name: sstf-tls
  secret: {secretName: {{ required "tls.existingSecret: TLS needs a kubernetes.io/tls Secret" .Values.tls.existingSecret }}, defaultMode: 0440}
{{- end }}
{{- if .Values.auth.existingSecret }}
- name: sstf-token
  secret: {secretName: {{ .Values.auth.existingSecret }}, defaultMode: 0440}
{{- end }}
{{- /* Only the keys the server reads, under fixed names: a missing key
keeps the pod from starting, naming it. A directory mount, not subPath,
so the kubelet updates rotated files. */}}
{{- with .Values.cassandra.auth.existingSecret }}
- name: sstf-cql-auth
  secret:
    secretName: {{ . }}
    defaultMode: 0440
    items:
      {{- with include "sstable-flight.cqlUsernameKey" $ }}
      - {key: {{ . }}, path: username}
      {{- end }}
      - {key: {{ include "sstable-flight.cqlPasswordKey" $ }}, path: password}
{{- end }}
{{- with .Values.cassandra.tls }}
{{- if include "sstable-flight.cqlTLSFiles" $ }}
- name: sstf-cql-tls
  secret:
    secretName: {{ required "cassandra.tls.existingSecret: CQL TLS needs the Secret holding Cassandra's CA" .existingSecret }}
    defaultMode: 0440
    items:
      {{- with .caKey }}
      - {key: {{ . }}, path: ca.crt}
      {{- end }}
      {{- if .certKey }}
      - {key: {{ .certKey }}, path: tls.crt}
      - {key: {{ required "cassandra.tls.keyKey: a client certificate needs its key" .keyKey }}, path: tls.key}
      {{- end }}
{{- end }}
{{- end }}
{{- if .Values.discovery.enabled }}
- name: sstf-kube-api-access
  projected:
    defaultMode: 0444
    sources:
      - serviceAccountToken: {path: token, expirationSeconds: 3607}
      - configMap:
          name: kube-root-ca.crt
          items: [{key: ca.crt, path: ca.crt}]
      - downwardAPI:
          items: [{path: namespace, fieldRef: {fieldPath: metadata.namespace}}]
{{- end }}
{{- end -}}

{{/*
How Prometheus reaches /metrics, for a monitor's endpoint: HTTPS against
the server's CA when it serves TLS, its client certificate when the
server asks for one, its token when the server has one; the last two not
with metrics.open, which exempts /metrics from both.
*/}}
{{- define "sstable-flight.scrapeAccess" -}}
{{- $s := .Values.metrics.scrape -}}
scheme: {{ ternary "https" "http" .Values.tls.enabled }}
{{- if .Values.tls.enabled }}
tlsConfig:
  ca:
    secret: {name: {{ default .Values.tls.existingSecret $s.caSecret }}, key: {{ $s.caKey }}}
  serverName: {{ default (printf "%s.%s.svc" (include "sstable-flight.fullname" .) .Release.Namespace) $s.serverName }}
  {{- if and .Values.tls.clientCA (not .Values.metrics.open) }}
  {{- $client := required "metrics.scrape.clientCertSecret: with tls.clientCA the server asks Prometheus for a client certificate (or set metrics.open)" $s.clientCertSecret }}
  cert:
    secret: {name: {{ $client }}, key: tls.crt}
  keySecret: {name: {{ $client }}, key: tls.key}
  {{- end }}
{{- end }}
{{- if and .Values.auth.existingSecret (not .Values.metrics.open) }}
authorization:
  type: Bearer
  credentials: {name: {{ .Values.auth.existingSecret }}, key: {{ .Values.auth.tokenKey }}}
{{- end }}
{{- end -}}

{{- define "sstable-flight.terminationGrace" -}}
{{- add .Values.server.drainTimeoutSeconds 10 -}}
{{- end -}}
