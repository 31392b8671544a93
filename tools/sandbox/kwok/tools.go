//go:build tools

// Package tools pins kwok and kwokctl for the Piceli sandbox.
package tools

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
	_ "sigs.k8s.io/kwok/cmd/kwokctl"
)
