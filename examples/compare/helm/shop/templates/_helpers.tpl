{{- /* Labels of every object of component NAME; its selector too. */ -}}
{{- define "shop.labels" -}}
app.kubernetes.io/name: {{ . }}
app.kubernetes.io/part-of: shop
{{- end -}}
