package observe

import (
	"embed"
	"encoding/json"
	"errors"
	"html/template"
	"io/fs"
	"net/http"
	"slices"
	"strconv"

	"github.com/pynenc/piceli/refusal"
)

//go:embed ui
var uiFiles embed.FS

var (
	indexPage = template.Must(template.ParseFS(uiFiles, "ui/index.html"))
	gatePage  = template.Must(template.ParseFS(uiFiles, "ui/gate.html"))
)

// apiError is the only error body the server sends: a fixed code.
type apiError struct {
	Error struct {
		Code string `json:"code"`
	} `json:"error"`
}

func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, code string) {
	s.logf("%s %s: %d %s", r.Method, r.URL.Path, status, code)
	var body apiError
	body.Error.Code = code
	writeJSON(w, status, body)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"error":{"code":"internal"}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(data, '\n'))
}

// fail answers an error of a handler: bad input is the caller's fault
// (400 bad-request), anything else 502 unavailable; details go to the log
// only.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	s.logf("%s %s: %v", r.Method, r.URL.Path, err)
	status, code := http.StatusBadGateway, "unavailable"
	if refusal.Is(err) {
		status, code = http.StatusBadRequest, "bad-request"
	}
	var body apiError
	body.Error.Code = code
	writeJSON(w, status, body)
}

func (s *Server) asset(name, contentType string) http.HandlerFunc {
	data, err := fs.ReadFile(uiFiles, "ui/"+name)
	if err != nil {
		panic("observe: embedded asset " + name + " missing") // a build defect, not input
	}
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.Write(data)
	}
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

func (s *Server) status(w http.ResponseWriter, r *http.Request) {
	rep, err := Status(r.Context(), s.opts.Cluster, s.opts.Archive, StatusOptions{})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, rep)
}

func (s *Server) objects(w http.ResponseWriter, r *http.Request) {
	rep, err := Status(r.Context(), s.opts.Cluster, s.opts.Archive, StatusOptions{})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"objects": rep.Objects})
}

func (s *Server) forwards(w http.ResponseWriter, _ *http.Request) {
	states := s.fw.States(s.saved())
	if states == nil {
		states = []ForwardState{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"user": s.opts.User, "forwards": states})
}

// logs tails a log of a target in one of the archive's namespaces.
func (s *Server) logs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	opts := LogsOptions{Namespace: q.Get("namespace"), Target: q.Get("target"), Container: q.Get("container"), Previous: q.Get("previous") == "true"}
	if !slices.Contains(s.opts.Archive.Namespaces, opts.Namespace) {
		s.fail(w, r, badInput("namespace %q is not the session's", opts.Namespace))
		return
	}
	if t := q.Get("tail"); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil {
			s.fail(w, r, badInput("tail %q: not a number", t))
			return
		}
		opts.Lines = n
	}
	tail, err := Logs(r.Context(), s.opts.Cluster, opts)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, tail)
}

type forwardRequest struct {
	Name string `json:"name"`
}

func (s *Server) decode(w http.ResponseWriter, r *http.Request) (string, bool) {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	var req forwardRequest
	if err := dec.Decode(&req); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.refuse(w, r, http.StatusRequestEntityTooLarge, "too-large")
			return "", false
		}
		s.refuse(w, r, http.StatusBadRequest, "bad-request")
		return "", false
	}
	return req.Name, true
}

func (s *Server) startForward(w http.ResponseWriter, r *http.Request) {
	name, ok := s.decode(w, r)
	if !ok {
		return
	}
	for _, f := range s.saved() {
		if f.Name == name {
			st, err := s.fw.Start(f)
			if err != nil {
				s.fail(w, r, err)
				return
			}
			writeJSON(w, http.StatusOK, st)
			return
		}
	}
	s.refuse(w, r, http.StatusNotFound, "no-such-forward")
}

func (s *Server) stopForward(w http.ResponseWriter, r *http.Request) {
	name, ok := s.decode(w, r)
	if !ok {
		return
	}
	if err := s.fw.Stop(name); err != nil {
		s.refuse(w, r, http.StatusNotFound, "not-running")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"name": name, "running": false})
}
