package lock

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	shop  = Owner{Release: "shop", Namespace: "prod"}
	other = Owner{Release: "blog", Namespace: "prod"}
)

func TestOwner(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, dir string)
	}{
		{"the first claim records the owner, owner-only", testClaimRecords},
		{"the owner claims and checks again", testOwnerAgain},
		{"another release is refused naming both and the directory", testOtherRefused},
		{"the same release in another namespace is another owner", testOtherNamespaceRefused},
		{"a directory without an owner file passes the check, untouched", testCheckUnclaimed},
		{"a directory from before owner files is adopted by its first claimant", testClaimAdopts},
		{"of racing claimants exactly one owns the directory", testClaimRace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.run(t, filepath.Join(t.TempDir(), "state"))
		})
	}
}

func testClaimRecords(t *testing.T, dir string) {
	mustClaim(t, dir, shop)
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, ownerFile): 0o600} {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Mode().Perm(); got != want {
			t.Errorf("mode of %s = %v, want %v", path, got, want)
		}
	}
	if got, ok, err := readOwner(dir); err != nil || !ok || got != shop {
		t.Errorf("readOwner() = %v, %v, %v; want %v", got, ok, err, shop)
	}
}

func testOwnerAgain(t *testing.T, dir string) {
	mustClaim(t, dir, shop)
	mustClaim(t, dir, shop)
	if err := CheckOwner(dir, shop); err != nil {
		t.Errorf("CheckOwner(owner) = %v, want nil", err)
	}
}

func testOtherRefused(t *testing.T, dir string) {
	mustClaim(t, dir, shop)
	for name, err := range map[string]error{"ClaimOwner": ClaimOwner(dir, other), "CheckOwner": CheckOwner(dir, other)} {
		var oe *OwnerError
		if !errors.As(err, &oe) || !errors.Is(err, ErrNotOwner) || oe.Owner != shop || oe.Want != other {
			t.Fatalf("%s(other) = %v, want an *OwnerError of %v refusing %v", name, err, shop, other)
		}
		for _, want := range []string{dir, `release "shop"`, `release "blog"`} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s(other) = %q, want it to name %s", name, err, want)
			}
		}
	}
	if got, _, _ := readOwner(dir); got != shop {
		t.Errorf("after the refusals the owner is %v, want %v", got, shop)
	}
}

func testOtherNamespaceRefused(t *testing.T, dir string) {
	mustClaim(t, dir, shop)
	if err := CheckOwner(dir, Owner{Release: "shop", Namespace: "staging"}); !errors.Is(err, ErrNotOwner) {
		t.Errorf("CheckOwner(shop in staging) = %v, want ErrNotOwner", err)
	}
}

func testCheckUnclaimed(t *testing.T, dir string) {
	if err := CheckOwner(dir, shop); err != nil {
		t.Errorf("CheckOwner(missing directory) = %v, want nil", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := CheckOwner(dir, shop); err != nil {
		t.Errorf("CheckOwner(empty directory) = %v, want nil", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("CheckOwner left %d entries, want none", len(entries))
	}
}

func testClaimAdopts(t *testing.T, dir string) {
	writeFile(t, filepath.Join(dir, "plans", "abc.json"), "{}")
	mustClaim(t, dir, shop)
	if err := CheckOwner(dir, other); !errors.Is(err, ErrNotOwner) {
		t.Errorf("CheckOwner(other) after adoption = %v, want ErrNotOwner", err)
	}
}

func testClaimRace(t *testing.T, dir string) {
	owners := []Owner{shop, other, {Release: "a", Namespace: "x"}, {Release: "b", Namespace: "y"}}
	errs := make([]error, len(owners))
	var wg sync.WaitGroup
	for i, o := range owners {
		wg.Go(func() { errs[i] = ClaimOwner(dir, o) })
	}
	wg.Wait()
	got, _, err := readOwner(dir)
	if err != nil {
		t.Fatal(err)
	}
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
			if owners[i] != got {
				t.Errorf("claimant %v succeeded, the directory is %v's", owners[i], got)
			}
		case !errors.Is(err, ErrNotOwner):
			t.Errorf("claimant %v: %v, want ownership or ErrNotOwner", owners[i], err)
		}
	}
	if won != 1 {
		t.Errorf("%d of %d racing claimants own the directory, want 1", won, len(owners))
	}
}

func mustClaim(t *testing.T, dir string, o Owner) {
	t.Helper()
	if err := ClaimOwner(dir, o); err != nil {
		t.Fatalf("ClaimOwner(%s, %v) = %v", dir, o, err)
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}
