package history

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pynenc/piceli/internal/object"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// revision returns the i-th revision a test adds: objects many ConfigMaps
// with a manifest each, and a secret version on every third.
func revision(i, objects int) Revision {
	r := Revision{
		Plan: fmt.Sprintf("sha256:%064x", i), Run: fmt.Sprintf("20260102-%06d-abcdef", i), Source: "apply",
		Started: t0.Add(time.Duration(i) * time.Minute), Finished: t0.Add(time.Duration(i)*time.Minute + 30*time.Second),
		Outcome: "finished",
	}
	for k := range objects {
		name := fmt.Sprintf("config-%d", k)
		r.Objects = append(r.Objects, Object{
			Ref: object.Ref{Kind: "ConfigMap", Namespace: "shop", Name: name}, APIVersion: "v1", Resource: "configmaps",
			Manifest: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "namespace": "shop"}, "data": map[string]any{"revision": fmt.Sprint(i)}},
		})
	}
	if i%3 == 0 {
		r.Secrets = map[string]int{"db": i / 3}
	}
	return r
}

// addRevisions adds n revisions with Add, of runs after those dir holds
// already, and returns their summaries.
func addRevisions(tb testing.TB, dir string, n, objects int) []Summary {
	tb.Helper()
	have, err := numbers(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var want []Summary
	for i := len(have) + 1; i <= len(have)+n; i++ {
		r := revision(i, objects)
		num, err := Add(dir, testKey, r)
		if err != nil {
			tb.Fatalf("Add(revision %d) error = %v", i, err)
		}
		r.Number = num
		want = append(want, r.Summary())
	}
	return want
}

func TestSummariesOf1000RevisionsReadOnlyTheIndex(t *testing.T) {
	dir := t.TempDir()
	want := addRevisions(t, dir, 1000, 3)
	os.Remove(indexFile(dir))
	if got, err := Summaries(dir); err != nil || !cmp.Equal(want, got) {
		t.Fatalf("Summaries() without an index = %d summaries, %v; want the 1000 added (-want +got):\n%s", len(got), err, cmp.Diff(want, got))
	}
	// Damage every revision file: Summaries must not need any of them, and
	// answers from the index it rebuilt above.
	for n := 1; n <= 1000; n++ {
		if n%2 == 0 {
			os.Remove(file(dir, n))
		} else {
			os.WriteFile(file(dir, n), []byte("{not json"), 0o600)
		}
	}
	got, err := Summaries(dir)
	if err != nil {
		t.Fatalf("Summaries() error = %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Summaries() with damaged revision files (-want +got):\n%s", diff)
	}
}

func TestSummariesCatchUp(t *testing.T) {
	tests := []struct {
		name string
		// damage changes a state directory holding revisions 1 to 5 and
		// their index.
		damage func(t *testing.T, dir string)
	}{
		{"a missing index (a state directory written before it existed) is rebuilt from the revision files", func(t *testing.T, dir string) {
			os.Remove(indexFile(dir))
		}},
		{"an index behind the revision files (a crash between the revision and its entry) is caught up", func(t *testing.T, dir string) {
			writeIndex(dir, readIndex(dir)[:3])
		}},
		{"an undecodable index is rebuilt", func(t *testing.T, dir string) {
			os.WriteFile(indexFile(dir), []byte(`{"schema":`), 0o600)
		}},
		{"an index of another schema is rebuilt", func(t *testing.T, dir string) {
			os.WriteFile(indexFile(dir), []byte(`{"schema":"piceli.history-index/v0","revisions":[]}`), 0o600)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			want := addRevisions(t, dir, 5, 2)
			tt.damage(t, dir)
			got, err := Summaries(dir)
			if err != nil {
				t.Fatalf("Summaries() error = %v", err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Summaries() (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, readIndex(dir)); diff != "" {
				t.Errorf("index saved by Summaries() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAddIndexesEveryRevision(t *testing.T) {
	dir := t.TempDir()
	if got, err := Summaries(dir); err != nil || got != nil {
		t.Fatalf("Summaries(empty) = %v, %v; want none", got, err)
	}
	want := addRevisions(t, dir, 3, 1)
	os.Remove(indexFile(dir)) // as an upgraded state directory has none
	want = append(want, addRevisions(t, dir, 1, 1)...)
	if diff := cmp.Diff(want, readIndex(dir)); diff != "" {
		t.Errorf("index after Add() (-want +got):\n%s", diff)
	}
	st, err := os.Stat(indexFile(dir))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("index file: %v, %v; want mode 0600", st, err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, "history", ".*"))
	if len(leftovers) > 0 {
		t.Errorf("history holds %q after Add(), want no temporary files", leftovers)
	}
}

func TestListIgnoresTheIndex(t *testing.T) {
	dir := t.TempDir()
	addRevisions(t, dir, 2, 1)
	list, err := List(dir)
	if err != nil || len(list) != 2 {
		t.Errorf("List() = %d revisions, %v; want 2", len(list), err)
	}
}

// BenchmarkSummaries1000 measures listing a history of 1,000 revisions of
// 20 objects each from its index.
func BenchmarkSummaries1000(b *testing.B) {
	dir := b.TempDir()
	addRevisions(b, dir, 1000, 20)
	b.ResetTimer()
	for b.Loop() {
		sums, err := Summaries(dir)
		if err != nil || len(sums) != 1000 {
			b.Fatalf("Summaries() = %d summaries, %v; want 1000", len(sums), err)
		}
	}
}

func TestAddWhenTheIndexCannotBeWritten(t *testing.T) {
	dir := t.TempDir()
	want := addRevisions(t, dir, 1, 1)
	os.Remove(indexFile(dir))
	if err := os.Mkdir(indexFile(dir), 0o700); err != nil { // nothing can replace it
		t.Fatal(err)
	}
	r := revision(2, 1)
	n, err := Add(dir, testKey, r)
	if n != 2 || err == nil {
		t.Fatalf("Add() with an unwritable index = %d, %v; want 2 and an error", n, err)
	}
	r.Number = 2
	want = append(want, r.Summary())
	got, err := Summaries(dir)
	if err != nil {
		t.Fatalf("Summaries() error = %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Summaries() with an unwritable index (-want +got):\n%s", diff)
	}
}
