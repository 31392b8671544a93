// Command etcd runs the etcd server built from go.etcd.io/etcd/server/v3 for
// the Piceli sandbox; it exists because etcd cannot be installed with go install.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
