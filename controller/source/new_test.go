package source_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/pynenc/piceli/api/v1alpha1"
	"github.com/pynenc/piceli/controller/source"
)

const someDigest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// Every spec that cannot be used as written is a SpecError naming the
// field, before anything is contacted.
func TestNewRefusesSpecsNamingTheField(t *testing.T) {
	oci := func(s v1alpha1.OCISource) v1alpha1.Source { return v1alpha1.Source{OCI: &s} }
	git := func(s v1alpha1.GitSource) v1alpha1.Source { return v1alpha1.Source{Git: &s} }
	const repo = "oci://registry.example:5000/releases/shop"
	const gitURL = "https://git.example/shop.git"
	cases := []struct {
		name  string
		src   v1alpha1.Source
		field string
	}{
		{"no source", v1alpha1.Source{}, "spec.source"},
		{"both sources", v1alpha1.Source{OCI: &v1alpha1.OCISource{URL: repo, Tag: "v1"}, Git: &v1alpha1.GitSource{URL: gitURL, Branch: "main"}}, "spec.source"},
		{"oci no selector", oci(v1alpha1.OCISource{URL: repo}), "spec.source.oci"},
		{"oci two selectors", oci(v1alpha1.OCISource{URL: repo, Tag: "v1", Digest: someDigest}), "spec.source.oci"},
		{"oci https scheme", oci(v1alpha1.OCISource{URL: "https://registry.example/shop", Tag: "v1"}), "spec.source.oci.url"},
		{"oci no repository", oci(v1alpha1.OCISource{URL: "oci://registry.example", Tag: "v1"}), "spec.source.oci.url"},
		{"oci tag in url", oci(v1alpha1.OCISource{URL: repo + ":v1", Tag: "v1"}), "spec.source.oci.url"},
		{"oci digest in url", oci(v1alpha1.OCISource{URL: repo + "@" + someDigest, Tag: "v1"}), "spec.source.oci.url"},
		{"oci credentials in url", oci(v1alpha1.OCISource{URL: "oci://user:pw@registry.example/shop", Tag: "v1"}), "spec.source.oci.url"},
		{"oci host without a dot or port", oci(v1alpha1.OCISource{URL: "oci://registry/shop", Tag: "v1"}), "spec.source.oci.url"},
		{"oci uppercase repo", oci(v1alpha1.OCISource{URL: "oci://registry.example/Shop", Tag: "v1"}), "spec.source.oci.url"},
		{"oci bad tag", oci(v1alpha1.OCISource{URL: repo, Tag: "v1/../x"}), "spec.source.oci.tag"},
		{"oci bad semver", oci(v1alpha1.OCISource{URL: repo, SemVer: ">=banana"}), "spec.source.oci.semver"},
		{"oci bad digest", oci(v1alpha1.OCISource{URL: repo, Digest: "sha256:abc"}), "spec.source.oci.digest"},
		{"oci secret not dockerconfigjson", oci(v1alpha1.OCISource{URL: repo, Tag: "v1"}), "spec.source.oci.secretRef"},
		{"git no selector", git(v1alpha1.GitSource{URL: gitURL}), "spec.source.git"},
		{"git two selectors", git(v1alpha1.GitSource{URL: gitURL, Branch: "main", Tag: "v1"}), "spec.source.git"},
		{"git file scheme", git(v1alpha1.GitSource{URL: "file:///srv/shop.git", Branch: "main"}), "spec.source.git.url"},
		{"git no scheme", git(v1alpha1.GitSource{URL: "/srv/shop.git", Branch: "main"}), "spec.source.git.url"},
		{"git credentials in https url", git(v1alpha1.GitSource{URL: "https://user:pw@git.example/shop.git", Branch: "main"}), "spec.source.git.url"},
		{"git token in https url", git(v1alpha1.GitSource{URL: "https://token@git.example/shop.git", Branch: "main"}), "spec.source.git.url"},
		{"git password in ssh url", git(v1alpha1.GitSource{URL: "ssh://git:pw@git.example/shop.git", Branch: "main"}), "spec.source.git.url"},
		{"git password in scp url", git(v1alpha1.GitSource{URL: "git:pw@git.example:shop.git", Branch: "main"}), "spec.source.git.url"},
		{"git bad branch", git(v1alpha1.GitSource{URL: gitURL, Branch: "main..x"}), "spec.source.git.branch"},
		{"git option-like branch", git(v1alpha1.GitSource{URL: gitURL, Branch: "--upload-pack=x"}), "spec.source.git.branch"},
		{"git bad tag", git(v1alpha1.GitSource{URL: gitURL, Tag: "v1 x"}), "spec.source.git.tag"},
		{"git short commit", git(v1alpha1.GitSource{URL: gitURL, Commit: "abc123"}), "spec.source.git.commit"},
		{"git path climbs", git(v1alpha1.GitSource{URL: gitURL, Branch: "main", Path: "../x"}), "spec.source.git.path"},
		{"git path climbs inside", git(v1alpha1.GitSource{URL: gitURL, Branch: "main", Path: "deploy/../../x"}), "spec.source.git.path"},
		{"git path absolute", git(v1alpha1.GitSource{URL: gitURL, Branch: "main", Path: "/etc"}), "spec.source.git.path"},
		{"git path unclean", git(v1alpha1.GitSource{URL: gitURL, Branch: "main", Path: "deploy/"}), "spec.source.git.path"},
		{"git path backslash", git(v1alpha1.GitSource{URL: gitURL, Branch: "main", Path: `..\x`}), "spec.source.git.path"},
		{"git ssh without secret", git(v1alpha1.GitSource{URL: "git@git.example:shop.git", Branch: "main"}), "spec.source.git.secretRef"},
	}
	for _, c := range cases {
		var creds source.Credentials
		if strings.HasSuffix(c.name, "not dockerconfigjson") {
			creds = source.Credentials{"username": []byte("u"), "password": []byte("p")}
		}
		_, err := source.New(c.src, creds, source.Options{})
		if err == nil {
			t.Errorf("%s: New accepted it", c.name)
			continue
		}
		assertSpecError(t, err, c.field)
	}
}

// Specs that are fine are accepted without contacting anything.
func TestNewAcceptsGoodSpecs(t *testing.T) {
	for _, src := range []v1alpha1.Source{
		{OCI: &v1alpha1.OCISource{URL: "oci://registry.example:5000/releases/shop", Tag: "v1.2.3"}},
		{OCI: &v1alpha1.OCISource{URL: "oci://ghcr.io/acme/shop", SemVer: "~1.2"}},
		{OCI: &v1alpha1.OCISource{URL: "oci://ghcr.io/acme/shop", Digest: someDigest}},
		{OCI: &v1alpha1.OCISource{URL: "oci://docker.io/acme/shop", Tag: "v1"}},
		{OCI: &v1alpha1.OCISource{URL: "oci://localhost:5000/shop", Tag: "v1"}},
		{Git: &v1alpha1.GitSource{URL: "https://git.example/shop.git", Branch: "release/1.x", Path: "deploy/prod"}},
		{Git: &v1alpha1.GitSource{URL: "http://gitea.gitea.svc:3000/shop.git", Tag: "v1.0.0", Path: "."}},
		{Git: &v1alpha1.GitSource{URL: "https://git.example/shop.git", Commit: strings.Repeat("a1", 20)}},
	} {
		if _, err := source.New(src, nil, source.Options{}); err != nil {
			t.Errorf("New(%+v): %v", src, err)
		}
	}
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	creds := source.Credentials{"identity": pem.EncodeToMemory(block), "known_hosts": []byte("git.example ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\n")}
	src := v1alpha1.Source{Git: &v1alpha1.GitSource{URL: "git@git.example:acme/shop.git", Branch: "main"}}
	if _, err := source.New(src, creds, source.Options{}); err != nil {
		t.Errorf("New of an scp-like SSH URL: %v", err)
	}
}
