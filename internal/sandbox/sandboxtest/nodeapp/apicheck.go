package main

import (
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// saDir is where the kubelet mounts a pod's ServiceAccount token and CA.
const saDir = "/var/run/secrets/kubernetes.io/serviceaccount/"

// apicheck is an in-cluster client with nothing but the standard library:
// it dials KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT, verifies the
// server's certificate with the ServiceAccount's ca.crt (never skipping
// verification) and authenticates with its token. It prints one line per
// check:
//
//	named VERSION USER       verified as $NODEAPP_SERVER_NAME
//	address VERSION USER     verified as the address dialled (no server name)
//	wrong-name refused: ERR  a server name the certificate lacks fails
//	cert SHA256              the server certificate's fingerprint
//
// VERSION is /version's gitVersion, USER the username a SelfSubjectReview
// returns for the token. It exits 1 when a call that should succeed fails,
// or the wrong name is accepted.
func apicheck() {
	addr := net.JoinHostPort(os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT"))
	ca, err := os.ReadFile(saDir + "ca.crt")
	check(err)
	token, err := os.ReadFile(saDir + "token")
	check(err)
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(ca) {
		fail("apicheck: no certificate in " + saDir + "ca.crt")
	}
	tok := strings.TrimSpace(string(token))
	bad := false
	for _, c := range []struct{ label, name string }{{"named", os.Getenv("NODEAPP_SERVER_NAME")}, {"address", ""}} {
		version, user, fingerprint, err := whoami(addr, c.name, roots, tok)
		if err != nil {
			fmt.Printf("%s failed: %v\n", c.label, err)
			bad = true
			continue
		}
		fmt.Printf("%s %s %s\n", c.label, version, user)
		if c.label == "named" {
			fmt.Printf("cert %s\n", fingerprint)
		}
	}
	if _, _, _, err := whoami(addr, "not-in-the-certificate.invalid", roots, tok); err != nil {
		fmt.Printf("wrong-name refused: %v\n", err)
	} else {
		fmt.Println("wrong-name accepted")
		bad = true
	}
	if bad {
		os.Exit(1)
	}
}

// whoami asks addr, verifying its certificate against roots as serverName
// (the address's host when ""), for /version and who token is.
func whoami(addr, serverName string, roots *x509.CertPool, token string) (version, user, fingerprint string, err error) {
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: serverName, MinVersion: tls.VersionTLS12}}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	var v struct {
		GitVersion string `json:"gitVersion"`
	}
	resp, err := call(client, http.MethodGet, "https://"+addr+"/version", token, nil, &v)
	if err != nil {
		return "", "", "", err
	}
	sum := sha256.Sum256(resp.TLS.PeerCertificates[0].Raw)
	review := []byte(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`)
	var r struct {
		Status struct {
			UserInfo struct {
				Username string `json:"username"`
			} `json:"userInfo"`
		} `json:"status"`
	}
	if _, err := call(client, http.MethodPost, "https://"+addr+"/apis/authentication.k8s.io/v1/selfsubjectreviews", token, review, &r); err != nil {
		return "", "", "", err
	}
	return v.GitVersion, r.Status.UserInfo.Username, hex.EncodeToString(sum[:]), nil
}

// call sends one request with the bearer token and decodes a 2xx answer's
// JSON into out.
func call(client *http.Client, method, url, token string, body []byte, out any) (*http.Response, error) {
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, raw)
	}
	return resp, json.Unmarshal(raw, out)
}

func check(err error) {
	if err != nil {
		fail(err.Error())
	}
}
