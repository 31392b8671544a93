package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// requestMetric is the API server's counter of the requests it served.
const requestMetric = "apiserver_request_total"

// counted are the resources whose requests the benchmark attributes to the
// client under test: the kinds the synthetic releases hold and the
// Namespace they go to. Requests for other resources on the sandbox come
// from its control plane (pods and ReplicaSets a Deployment makes, node
// heartbeats, the components' own Leases), and status updates are the
// controllers'; neither tool sends those. Piceli's own Lease (a few
// requests per run) is left out with the control plane's.
var counted = map[string]bool{
	"configmaps": true, "secrets": true, "serviceaccounts": true,
	"services": true, "deployments": true, "namespaces": true,
}

// series is one counter: its labels and value.
type series struct {
	labels map[string]string
	value  float64
}

// requestCounts maps each apiserver_request_total series, by its label
// text, to its value.
type requestCounts map[string]series

// parseRequests reads the apiserver_request_total series of a Prometheus
// text exposition.
func parseRequests(text []byte) (requestCounts, error) {
	out := requestCounts{}
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, requestMetric+"{") {
			continue
		}
		end := strings.LastIndexByte(line, '}')
		if end < 0 {
			return nil, fmt.Errorf("malformed %s line %q", requestMetric, line)
		}
		labelText := line[len(requestMetric)+1 : end]
		v, err := strconv.ParseFloat(strings.TrimSpace(line[end+1:]), 64)
		if err != nil {
			return nil, fmt.Errorf("malformed %s value in %q: %w", requestMetric, line, err)
		}
		labels, err := parseLabels(labelText)
		if err != nil {
			return nil, fmt.Errorf("malformed %s labels in %q: %w", requestMetric, line, err)
		}
		out[labelText] = series{labels: labels, value: v}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no %s series in the metrics", requestMetric)
	}
	return out, nil
}

// parseLabels reads `a="x",b="y"`; values may hold escaped quotes.
func parseLabels(s string) (map[string]string, error) {
	out := map[string]string{}
	for s != "" {
		eq := strings.IndexByte(s, '=')
		if eq < 0 || eq+1 >= len(s) || s[eq+1] != '"' {
			return nil, fmt.Errorf("no quoted value after %q", s)
		}
		name, rest := s[:eq], s[eq+2:]
		var val strings.Builder
		i := 0
		for ; i < len(rest) && rest[i] != '"'; i++ {
			if rest[i] == '\\' && i+1 < len(rest) {
				i++
			}
			val.WriteByte(rest[i])
		}
		if i == len(rest) {
			return nil, fmt.Errorf("unterminated value of %s", name)
		}
		out[name] = val.String()
		s = strings.TrimPrefix(rest[i+1:], ",")
	}
	return out, nil
}

// clientRequests counts the requests served between two scrapes that the
// benchmark attributes to the client (see counted), plus discovery and
// OpenAPI reads: every non-resource request but health checks and
// metrics scrapes.
func clientRequests(before, after requestCounts) float64 {
	total := 0.0
	for key, s := range after {
		if attributed(s.labels) {
			total += s.value - before[key].value
		}
	}
	return total
}

func attributed(l map[string]string) bool {
	if l["resource"] == "" {
		return !strings.HasPrefix(l["subresource"], "/")
	}
	return counted[l["resource"]] && l["subresource"] != "status"
}

// breakdown is clientRequests by verb, resource and answer, for the log:
// "APPLY configmaps dry-run 200".
func breakdown(before, after requestCounts) map[string]float64 {
	out := map[string]float64{}
	for key, s := range after {
		d := s.value - before[key].value
		if d == 0 || !attributed(s.labels) {
			continue
		}
		l := s.labels
		what := l["verb"] + " " + l["resource"] + l["subresource"]
		if l["dry_run"] != "" {
			what += " dry-run"
		}
		out[what+" "+l["code"]] += d
	}
	return out
}
