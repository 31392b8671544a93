// Package localpath makes file names from names Piceli reads as input
// (object names, spec keys, run ids) and keeps every path built from them
// inside its directory.
package localpath
