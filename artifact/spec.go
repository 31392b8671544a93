package artifact

import (
	"time"
)

// SpecFile is the name of the build spec that a release finds beside its
// release.toml.
const SpecFile = "build.toml"

// DefaultLayout, DefaultLock and DefaultRegistry are what [build] layout,
// lock and registry mean when build.toml leaves them out. Paths are relative
// to the build spec's directory.
const (
	DefaultLayout   = ".piceli-build/oci"
	DefaultLock     = "build.lock"
	DefaultRegistry = "piceli.local"
	// DefaultUser is the user images run as unless they say otherwise: the
	// conventional "nonroot" uid and gid of distroless images.
	DefaultUser = "65532:65532"
)

// Spec is a validated build.toml. Every path in it is absolute.
type Spec struct {
	Path     string // the build spec, absolute
	Dir      string // its directory
	Layout   string // the OCI layout directory Build writes
	Lock     string // the lock file Pin writes and Build reads
	Registry string // the host of local image references, such as "piceli.local"
	Epoch    time.Time
	Bases    map[string]*Base
	Images   map[string]*Image
}

// Base is a named group of layers several images can share: either the
// layers of an image in a local OCI layout, or one layer made of files on
// the machine.
type Base struct {
	Name   string
	Layout string  // a local OCI layout directory; empty for a files base
	Ref    string  // the image in Layout: its ref name or its manifest digest
	Files  []Entry // the files of a files base
}

// Entry copies a file or a directory tree (Src, on the machine) to Dst, an
// absolute path in the image.
type Entry struct {
	Src string // absolute
	Dst string // absolute, clean, in the image
	Key string // the build.toml key that declared it, for errors
}

// Image is one image to build. Its layers are, in order: the layers of each
// base, one layer of Files, and one layer holding the Go binary.
type Image struct {
	Name       string
	Repository string   // the repository path, such as "shop/api"; defaults to Name
	Bases      []string // names of Bases, in layer order
	Go         string   // a main package directory (absolute) or "" for none
	Files      []Entry
	Entrypoint []string
	Cmd        []string
	User       string
	Workdir    string
	Env        map[string]string
	Ports      []int
	Labels     map[string]string
}

// BinaryPath is where an image's Go binary lives inside the image.
func (im *Image) BinaryPath() string { return "/app/" + im.Name }
