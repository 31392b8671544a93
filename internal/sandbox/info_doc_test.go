package sandbox

import (
	"encoding/json"
	"testing"
)

// An Info's document carries its schema beside the fields, in lower case.
func TestInfoDocCarriesSchema(t *testing.T) {
	data, err := json.Marshal(Info{Name: "oj", Kubeconfig: "/k", Context: "kwok-oj", Server: "https://127.0.0.1:1", Nodes: []string{"kwok-node-0"}}.Doc())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"schema":"piceli.sandbox/v1","name":"oj","kubeconfig":"/k","context":"kwok-oj","server":"https://127.0.0.1:1","nodes":["kwok-node-0"],"reused":false}`
	if string(data) != want {
		t.Errorf("document\n%s\nwant\n%s", data, want)
	}
}
