// Package inputfile reads the files Piceli takes as input (specs, lock
// files, kubeconfigs and the files they name, OCI layouts and blobs,
// archives, passphrase and secret files) with a size bound, refusing
// anything that is not a regular file before a byte is read.
package inputfile
